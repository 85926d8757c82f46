//! The routes: the page, and one JSON endpoint per page action (docs/serve.md).

use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::error::ApiError;
use super::export;
use super::head::BodyCut;
use super::page::{board_answer, page, rules_answer};
use super::params::{bad, game_params, moves_of, Params, Query, GAME_PARAMS};
use super::players::{player, players_bound};
use super::readings::{FINDINGS, FINDINGS_PATH};
use super::set_up_play::set_up_move;
use super::state::{App, BODY_TIMEOUT, MAX_BODIES_BYTES, MAX_BODY_BYTES};
use crate::agents::{seat_rng, Agent, AgentSpec, PlayerError};
use crate::app::explore::analyse::{position_of, run as analyse, AnalyseError};
use crate::app::explore::check_record::{base_rules, run as check_record, CheckRequest};
use crate::app::explore::evaluate::{run as evaluate, EvaluateRequest};
use crate::app::explore::export::replay_page;
use crate::app::explore::game::GameSpec;
use crate::app::explore::statistics::run as statistics;
use crate::app::explore::statistics::{StatisticsError, StatisticsRequest};
use crate::engine::trace::TraceEvent;
use crate::engine::{Game, Side};
use crate::game_record::Record;

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(page_route))
        .route(FINDINGS_PATH, get(findings_route))
        .route("/api/rules", get(rules_route))
        .route("/api/board", get(board_route))
        .route("/api/analyse", get(analyse_route))
        .route("/api/estimate", get(estimate_route))
        .route("/api/game", get(game_route))
        .route("/api/show", get(show_route))
        .route("/api/play", get(play_route))
        .route("/api/statistics", get(statistics_route))
        .route("/api/check-record", post(check_record_route))
        .route("/api/status", get(status_route))
        .route("/api/evaluate", get(evaluate_route))
        .route("/api/export/moves", get(export::moves_route))
        .route("/api/export/trace", get(export::trace_route))
        .route("/api/export/show", get(export::show_route))
        .route("/api/export/dataset", get(export::dataset_route))
        .fallback(|| async { ApiError::status(StatusCode::NOT_FOUND, "no such page or endpoint (see docs/serve.md)") })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            ApiError::refused(
                StatusCode::METHOD_NOT_ALLOWED,
                "method",
                format!("{method} is not served here: the API's endpoints are GET, but POST /api/check-record"),
            )
        })
        .with_state(app)
}

/// The page; it takes no parameters (the game is in the address's fragment).
async fn page_route(Query(query): Query) -> Result<Html<&'static str>, ApiError> {
    Params::parse(&query, &[])?;
    Ok(Html(page()))
}

/// The guide's findings on the named readings (the page links a reading's name to them).
async fn findings_route(Query(query): Query) -> Result<Response, ApiError> {
    Params::parse(&query, &[])?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], FINDINGS).into_response())
}

/// The engine's switches (names, values, defaults, explanations), the players offered and the
/// named readings: what the page's controls are made from.
async fn rules_route(Query(query): Query) -> Reply {
    Params::parse(&query, &[])?;
    Ok(Json(rules_answer()))
}

/// The game's board for the page's board component (see [`board_answer`]).
async fn board_route(Query(query): Query) -> Reply {
    let params = Params::parse(&query, &GAME_PARAMS)?;
    Ok(Json(board_answer(&params.game_spec()?).map_err(ApiError::from)?))
}

type Reply = Result<Json<Value>, ApiError>;

async fn analyse_route(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(query): Query,
) -> Result<Response, ApiError> {
    let request = Params::parse(&query, &game_params(&["match"]))?.analyse_request()?;
    let work = move |app: &App, job: &crate::app::job::Job| {
        let (before, started) = (app.store().counts(), std::time::Instant::now());
        let answer = analyse(&request, app.store(), job).map_err(analyse_error)?;
        // What the solve measured, for the estimates of the analyses that follow.
        if let Ok(pos) = position_of(request.rules, &request.position) {
            let with_match_values = answer["match_note"].is_null();
            app.estimates.record(
                app.store(),
                (&request, &pos),
                before,
                started.elapsed(),
                with_match_values,
            );
        }
        Ok(answer)
    };
    let bound = app.solve_bound();
    Ok(app.answer(&headers, ("analyse", bound), work).await)
}

/// How long the analysis of a position would take, said before it is asked for: whether its
/// round's values and match values are at hand, and if not the positions and seconds
/// expected at this server's measured rate ([`super::estimate`]).
async fn estimate_route(State(app): State<Arc<App>>, Query(query): Query) -> Reply {
    let request = Params::parse(&query, &game_params(&["match"]))?.analyse_request()?;
    let pos = position_of(request.rules, &request.position).map_err(analyse_error)?;
    Ok(Json(app.estimates.estimate(app.store(), &request, &pos)))
}

/// A search player's evaluation of every legal move (offered where the exact values are beyond
/// the budget).
async fn evaluate_route(State(app): State<Arc<App>>, Query(query): Query) -> Reply {
    let params = Params::parse(&query, &game_params(&["match", "player", "seed"]))?;
    let base = params.analyse_request()?;
    let spec = player(params.one("player")?.unwrap_or("minimax:6"), "player")?;
    let request = EvaluateRequest {
        rules: base.rules,
        position: base.position,
        player: spec,
        seed: params.count("seed", 1, 0, u64::MAX)?,
    };
    let bound = players_bound(&[&request.player]);
    let result = app
        .heavy(("evaluate", bound), move |_, job| {
            let evaluation = evaluate(&request, Some(job.stop_flag()));
            // A search stopped by the flag is cut short: not an answer.
            job.check().map_err(|_| AnalyseError::Cancelled)?;
            evaluation
        })
        .await?;
    result.map(Json).map_err(analyse_error)
}

fn analyse_error(e: AnalyseError) -> ApiError {
    match e {
        AnalyseError::Field { field, message } => ApiError::bad(field, message),
        e @ AnalyseError::RoundBudget(_) => ApiError::budget("position", e.to_string()),
        AnalyseError::Budget(message) => ApiError::budget("position", message),
        AnalyseError::Cancelled => ApiError::cancelled(),
    }
}

/// The jobs running (with their progress), waiting, finished and cancelled, and what the
/// exact store has computed.
async fn status_route(State(app): State<Arc<App>>, Query(query): Query) -> Reply {
    Params::parse(&query, &[])?;
    let mut v = app.jobs.status();
    let counts = app.store().counts();
    v["store"] = json!({
        "match_tables": counts.match_tables,
        "round_solutions": counts.round_solutions,
        "round_values": counts.round_values,
    });
    Ok(Json(v))
}

/// The game of `rule`, its start (`first`, or a set-up) and `moves`, played (a set-up or a move
/// that cannot be played: 400).
pub fn game_of(params: &Params) -> Result<(GameSpec, Game), ApiError> {
    let spec = params.game_spec()?;
    let game = spec.game().map_err(ApiError::from)?;
    Ok((spec, game))
}

/// The state after the moves: whose move, the legal moves, and the trace (the JSON lines of
/// `replay`).
async fn game_route(Query(query): Query) -> Reply {
    let params = Params::parse(&query, &GAME_PARAMS)?;
    let spec = params.game_spec()?;
    let mut trace = Vec::new();
    let game = spec
        .trace(|e: TraceEvent| {
            trace.push(serde_json::to_value(&e).expect("trace events serialize"))
        })
        .map_err(ApiError::from)?;
    let legal: Vec<usize> = game.legal_moves().iter().map(|p| p.index()).collect();
    let rules = spec.rules;
    Ok(Json(json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "first": game.first(),
        "set_up": spec.start.is_set_up(),
        "ply": game.ply(),
        "round": game.round(),
        "to_move": game.position().turn(),
        "legal": legal,
        "over": game.outcome().map(|o| json!({ "winner": o.winner() })),
        "trace": trace,
    })))
}

/// The replay page of `show` for the moves (the page `/api/export/show` downloads), opening at
/// `ply` (default: the last).
async fn show_route(Query(query): Query) -> Result<Response, ApiError> {
    let params = Params::parse(&query, &game_params(&["ply"]))?;
    let ply = match params.one("ply")? {
        Some(_) => Some(params.count("ply", 0, 0, u32::MAX as u64)? as u32),
        None => None,
    };
    let page = replay_page(&params.game_spec()?, ply).map_err(ApiError::from)?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}

/// The move a player makes after the moves (`pit` null: the match is over).
async fn play_route(State(app): State<Arc<App>>, Query(query): Query) -> Reply {
    let params = Params::parse(&query, &game_params(&["player", "seed"]))?;
    let (_, game) = game_of(&params)?;
    let spec = player(
        params.one("player")?.ok_or_else(|| {
            bad(
                "player",
                "which player: random, greedy, minimax:D, mcts:N, perfect:round or perfect:match",
            )
        })?,
        "player",
    )?;
    let seed = params.count("seed", 1, 0, u64::MAX)?;
    let name = spec.to_string();
    let bound = players_bound(&[&spec]);
    let set_up = params.game_spec()?.start.is_set_up();
    let pit = app
        .heavy(("play", bound), move |app, job| play_one(app, job, spec, seed, game, set_up))
        .await??;
    Ok(Json(json!({ "pit": pit, "player": name })))
}

/// The move `spec` makes in `game` (None: the match is over); its search stops once the job is
/// cancelled, and a move found then is not answered.
/// From a set-up position, a perfect player whose tables do not reach it plays as
/// [`set_up_move`] says.
fn play_one(
    app: &App,
    job: &crate::app::job::Job,
    spec: AgentSpec,
    seed: u64,
    mut game: Game,
    set_up: bool,
) -> Result<Option<usize>, ApiError> {
    if game.is_over() {
        return Ok(None);
    }
    let side = game.position().turn();
    let mut agent =
        Agent::seated(spec.clone(), seat_rng(seed, game.ply() as u64, side), &app.resources)
            .stopped_by(job.stop_flag());
    let played = match agent.play(&mut game, &mut ()) {
        Ok(played) => played.map(|(pit, _)| pit.index()),
        Err(e) => match set_up.then(|| set_up_move(app, &spec, &game, &e)).flatten() {
            Some(answer) => answer?,
            None => return Err(player_error(e)),
        },
    };
    job.check().map_err(|_| ApiError::cancelled())?;
    Ok(played)
}

/// A player that could not move: the client's fault (400, naming `field`) but where the
/// server's own tables failed it (500, naming the file).
pub fn player_error_of(field: &str, e: PlayerError) -> ApiError {
    match &e {
        PlayerError::Perfect(p) if p.is_server_side() => ApiError::status(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the server's tables failed the player: {e}"),
        ),
        _ => ApiError::bad(field, e),
    }
}

fn player_error(e: PlayerError) -> ApiError {
    player_error_of("player", e)
}

/// The most matches of one statistics request (over all moves).
pub const MAX_STATISTICS_MATCHES: u64 = 20_000;
/// Moves a simulated continuation may take before it is counted unfinished.
const CONTINUATION_PLIES: u32 = 50_000;

/// Each legal move's results over seeded continuations by a pair of players.
async fn statistics_route(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(query): Query,
) -> Result<Response, ApiError> {
    let params = Params::parse(&query, &game_params(&["south", "north", "matches", "seed"]))?;
    let (_, game) = game_of(&params)?;
    let first = game.first();
    let specs = [
        player(params.one("south")?.unwrap_or("random"), "south")?,
        player(params.one("north")?.unwrap_or("random"), "north")?,
    ];
    let matches = params.count("matches", 200, 1, MAX_STATISTICS_MATCHES)?;
    let seed = params.count("seed", 1, 0, u64::MAX)?;
    let legal: Vec<usize> = game.legal_moves().iter().map(|p| p.index()).collect();
    if matches * legal.len() as u64 > MAX_STATISTICS_MATCHES {
        return Err(ApiError::bad(
            "matches",
            format!(
                "{matches} matches for each of {} moves; at most {MAX_STATISTICS_MATCHES} in all",
                legal.len()
            ),
        ));
    }
    let mut bound = players_bound(&[&specs[0], &specs[1]]);
    bound["continuations"] = json!(matches * legal.len() as u64);
    bound["plies_per_continuation"] = json!(CONTINUATION_PLIES);
    let work = move |app: &App, job: &crate::app::job::Job| {
        let names = [specs[0].to_string(), specs[1].to_string()];
        let request = StatisticsRequest {
            game,
            first,
            players: specs,
            matches,
            seed,
            max_plies: CONTINUATION_PLIES,
        };
        let rows = statistics(&request, &app.resources, job).map_err(|e| match e {
            StatisticsError::Player(e) => player_error(e),
            StatisticsError::Move(e) => ApiError::bad("player", e),
            StatisticsError::Cancelled => ApiError::cancelled(),
        })?;
        Ok(json!({ "matches": matches, "seed": seed, "players": names, "moves": rows }))
    };
    Ok(app.answer(&headers, ("statistics", bound), work).await)
}

/// A request's body, at most [`MAX_BODY_BYTES`], within [`BODY_TIMEOUT`]; one cut short (the
/// client closed its side before its `Content-Length`) is said to be so.
async fn read_body(
    app: &App,
    headers: &HeaderMap,
    body: Body,
    cut: Option<BodyCut>,
) -> Result<axum::body::Bytes, ApiError> {
    // The connection layer let only bodies of one whole Content-Length through.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    let too_large = declared.is_some_and(|n| n > MAX_BODY_BYTES as u64);
    // Held while the body is read: the bytes of all bodies being read stay bounded.
    let _bytes = if too_large { None } else { body_bytes(app, declared.unwrap_or(0))? };
    let cut_short = || {
        ApiError::bad(
            "body",
            "the body ended before its Content-Length: the client stopped sending it",
        )
        .closing()
    };
    let cut = async move {
        match cut {
            Some(cut) => cut.wait().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        read = to_bytes(body, MAX_BODY_BYTES) => read.map_err(|_| match too_large {
            true => ApiError::bad("body", format!("{} bytes, larger than {MAX_BODY_BYTES}, the most a request may send", declared.unwrap_or(0))),
            false => cut_short(),
        }),
        () = cut => Err(cut_short()),
        () = tokio::time::sleep(BODY_TIMEOUT) => Err(ApiError::refused(
            StatusCode::REQUEST_TIMEOUT,
            "body",
            format!("the body did not arrive within {} s", BODY_TIMEOUT.as_secs()),
        ).closing()),
    }
}

/// A share of [`MAX_BODIES_BYTES`] for a body of `declared` bytes, at once or not at all: a
/// server busy reading others' bodies answers 503 before reading this one.
fn body_bytes(
    app: &App,
    declared: u64,
) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, ApiError> {
    if declared == 0 {
        return Ok(None);
    }
    let n = u32::try_from(declared).expect("at most MAX_BODY_BYTES");
    app.bodies.clone().try_acquire_many_owned(n).map(Some).map_err(|_| {
        ApiError::refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "body",
            format!("busy: the request bodies being read fill the server's {MAX_BODIES_BYTES} bytes for them; try again"),
        )
        .closing()
    })
}

/// A record, or a bare move list, checked against every reading (the output of
/// `check-record --json`).
async fn check_record_route(
    State(app): State<Arc<App>>,
    Query(query): Query,
    cut: Option<axum::Extension<BodyCut>>,
    headers: HeaderMap,
    body: Body,
) -> Reply {
    Params::parse(&query, &[])?;
    let body = read_body(&app, &headers, body, cut.map(|c| c.0)).await?;
    let v: Value = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad("body", format!("not JSON ({e}); send {{\"record\": TEXT}} or {{\"moves\": \"0,3\", \"first\": \"south\"}}"))
    })?;
    let Some(fields) = v.as_object() else {
        return Err(ApiError::bad("body", "not a JSON object"));
    };
    if let Some(k) =
        fields.keys().find(|k| !["record", "moves", "first", "rules"].contains(&k.as_str()))
    {
        return Err(ApiError::bad(
            k,
            format!("unknown field '{k}': known ones are record, moves, first, rules"),
        ));
    }
    let text = |k: &str| -> Result<Option<&str>, ApiError> {
        match fields.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ApiError::bad(k, "must be a string")),
        }
    };
    let rules: Vec<String> = match fields.get("rules") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ApiError::bad("rules", "must be a list of name=value strings"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(ApiError::bad("rules", "must be a list of name=value strings")),
    };
    let record = match (text("record")?, text("moves")?) {
        (Some(r), None) => Record::parse(r).map_err(|e| ApiError::bad("record", e))?,
        (None, Some(m)) => {
            let first = text("first")?
                .map_or(Ok(Side::South), |f| f.parse().map_err(|e| ApiError::bad("first", e)))?;
            Record::from_moves(first, &moves_of(m)?)
        }
        _ => {
            return Err(ApiError::bad(
                "record",
                "give exactly one of record (a record's text) and moves (a move list)",
            ))
        }
    };
    let base = base_rules(&record, &rules).map_err(|e| {
        ApiError::bad(if e.field == "rules" { "rules" } else { "record" }, e.message)
    })?;
    let request = CheckRequest { base, record };
    Ok(Json(
        app.heavy(("check-record", json!({ "body_bytes": MAX_BODY_BYTES })), move |_, _| {
            check_record(&request)
        })
        .await?,
    ))
}
