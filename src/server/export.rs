//! The game exported as files (docs/serve.md): its move list, its trace (exactly what `replay`
//! prints), the replay page of `show`, each as a download, and the dataset of one match as a
//! tar archive.

use std::path::Path;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::ApiError;
use super::params::{game_params, Params, Query, GAME_PARAMS};
use super::state::App;
use crate::agents::AgentSpec;
use crate::app::explore::export::{move_list, replay_page, trace_lines};
use crate::app::explore::export_dataset::{self, DatasetRequest, ExportError};
use crate::engine::{BySide, Side};
use crate::io::dataset::PlayedSeat;

fn download(content_type: &'static str, name: &str, body: impl IntoResponse) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response()
}

/// The moves as `replay --moves` takes them (the game checked first: a bad one is a 400).
pub async fn moves_route(Query(query): Query) -> Result<Response, ApiError> {
    let params = Params::parse(&query, &GAME_PARAMS)?;
    let spec = params.game_spec()?;
    spec.game().map_err(ApiError::from)?;
    Ok(download("text/plain; charset=utf-8", "moves.txt", move_list(&spec.moves)))
}

/// The trace: the JSON lines `replay` prints for the moves.
pub async fn trace_route(Query(query): Query) -> Result<Response, ApiError> {
    let params = Params::parse(&query, &GAME_PARAMS)?;
    let lines = trace_lines(&params.game_spec()?).map_err(ApiError::from)?;
    Ok(download("application/x-ndjson", "trace.jsonl", lines))
}

/// The replay page `show --moves` writes, opening at `ply` (default 0, as `show`'s).
pub async fn show_route(Query(query): Query) -> Result<Response, ApiError> {
    let params = Params::parse(&query, &game_params(&["ply"]))?;
    let ply = params.count("ply", 0, 0, u32::MAX as u64)? as u32;
    let page = replay_page(&params.game_spec()?, Some(ply)).map_err(ApiError::from)?;
    Ok(download("text/html; charset=utf-8", "replay.html", page))
}

/// A seat of a played game: `human` (the default), or a player (which ones may be recorded is
/// the application's to check).
fn seat(params: &Params, name: &'static str) -> Result<PlayedSeat, ApiError> {
    match params.one(name)?.unwrap_or("human").parse().map_err(|e| ApiError::bad(name, e))? {
        PlayedSeat::Player(spec) => Ok(PlayedSeat::Player(super::players::bounded(spec))),
        human => Ok(human),
    }
}

/// The request of `/api/export/dataset`, and the command its manifest records (the query, the
/// moves left to the manifest's `played`).
fn dataset_request(query: &str) -> Result<(DatasetRequest, String), ApiError> {
    let params =
        Params::parse(query, &game_params(&["south", "north", "seed", "detail", "format"]))?;
    let text = |name: &'static str, default: &'static str| -> Result<String, ApiError> {
        Ok(params.one(name)?.unwrap_or(default).to_string())
    };
    let request = DatasetRequest {
        game: params.game_spec()?,
        seats: BySide::new(seat(&params, "south")?, seat(&params, "north")?),
        seed: params.count("seed", 1, 0, u64::MAX)?,
        detail: text("detail", "lap")?.parse().map_err(|e| ApiError::bad("detail", e))?,
        format: text("format", "parquet")?.parse().map_err(|e| ApiError::bad("format", e))?,
    };
    let rest: Vec<&str> =
        query.split('&').filter(|p| !p.is_empty() && !p.starts_with("moves=")).collect();
    let command = format!(
        "rajapasu serve: GET /api/export/dataset?{} (the moves: played.moves)",
        rest.join("&")
    );
    Ok((request, command))
}

/// The game as a dataset of one match (docs/data.md, "A match played from its moves"), in a tar
/// archive of its directory. It is written in a temporary directory inside the tables directory,
/// removed once archived: no file is written elsewhere.
pub async fn dataset_route(
    State(app): State<Arc<App>>,
    Query(query): Query,
) -> Result<Response, ApiError> {
    let (request, command) = dataset_request(&query)?;
    let seats: Vec<&AgentSpec> = Side::ALL
        .iter()
        .filter_map(|&side| {
            if let PlayedSeat::Player(spec) = &request.seats[side] {
                Some(spec)
            } else {
                None
            }
        })
        .collect();
    let mut bound = super::players::players_bound(&seats);
    bound["moves"] = json!(request.game.moves.len());
    let (name, archive) = app
        .heavy(("export-dataset", bound), move |app, job| {
            let failed = |e: std::io::Error| {
                ApiError::status(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("cannot write the dataset: {e}"),
                )
            };
            std::fs::create_dir_all(&app.tables).map_err(failed)?;
            let scratch = tempfile::Builder::new()
                .prefix(".export-")
                .tempdir_in(&app.tables)
                .map_err(failed)?;
            let dir = scratch.path().join("dataset");
            let manifest = export_dataset::write(&request, &dir, &app.resources, &command, job)
                .map_err(|e| match e {
                    ExportError::Field(e) => ApiError::from(e),
                    ExportError::Dataset(e) => {
                        ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, e)
                    }
                    ExportError::Tables(e) => ApiError::status(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the server's tables failed a seat: {e}"),
                    ),
                    ExportError::Cancelled => ApiError::cancelled(),
                })?;
            let name = format!("match-{}", manifest.run_id);
            Ok::<_, ApiError>((name.clone(), archive(&dir, &name).map_err(failed)?))
        })
        .await??;
    Ok(download("application/x-tar", &format!("{name}.tar"), archive))
}

/// The dataset in `dir` as a tar archive of one directory `name`: its manifest, package
/// descriptor, tables and progress markers (not its lock files), in a fixed order, with fixed
/// times and modes.
fn archive(dir: &Path, name: &str) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    append_sorted(&mut builder, dir, Path::new(name))?;
    builder.into_inner()
}

fn append_sorted(
    builder: &mut tar::Builder<Vec<u8>>,
    dir: &Path,
    at: &Path,
) -> std::io::Result<()> {
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    builder.append_dir(at, dir)?;
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(".lock") {
            continue;
        }
        if entry.file_type()?.is_dir() {
            append_sorted(builder, &entry.path(), &at.join(&name))?;
        } else {
            builder.append_path_with_name(entry.path(), at.join(&name))?;
        }
    }
    Ok(())
}
