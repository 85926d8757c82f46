//! A game written as a dataset of one match (docs/data.md, "A match played from its moves"):
//! the tables `simulate` writes at the chosen detail, with its manifest, checksums and
//! datapackage.json. A game played at the page may have human players, so there is no player
//! and seed to play it again: the manifest records the moves, and the seats as played, `human`
//! or a built-in player. A built-in seat is checked here: each of its moves must be the
//! player's choice with the random stream of (seed, ply before the move, seat), as the page's
//! engine chose it. `verify` replays the moves and compares every row.

use std::path::Path;

use super::game::{GameSpec, Start};
use crate::agents::{seat_rng, Agent, AgentSpec, PlayerError, Resources};
use crate::app::job::Job;
use crate::app::FieldError;
use crate::engine::{BySide, Game, Side};
use crate::exact::{MatchError, PerfectKind};
use crate::io::dataset::{Played, PlayedSeat};
use crate::io::{DatasetError, DatasetWriter, Formats, Manifest};
use crate::sim::{replay_match, Batch, BatchSink, Detail, FirstPolicy, RunConfig, Shard};

/// A game to write as a dataset: the game (from a match's start), who played each seat
/// (`human` or a built-in player), the seed of the built-in ones, and what to write.
#[derive(Clone, Debug)]
pub struct DatasetRequest {
    pub game: GameSpec,
    pub seats: BySide<PlayedSeat>,
    pub seed: u64,
    pub detail: Detail,
    pub format: Formats,
}

/// Why a game was not written as a dataset.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The request is not a game that makes a dataset (the field says why).
    #[error("{0}")]
    Field(FieldError),
    /// The directory refused the dataset, or it could not be written.
    #[error("{0}")]
    Dataset(#[from] DatasetError),
    /// The server's own tables failed a perfect seat (the file named in the message).
    #[error("{0}")]
    Tables(String),
    #[error("cancelled")]
    Cancelled,
}

impl crate::app::BadInput for ExportError {
    fn is_bad_input(&self) -> bool {
        match self {
            ExportError::Field(_) => true,
            ExportError::Dataset(e) => e.is_bad_input(),
            ExportError::Tables(_) | ExportError::Cancelled => false,
        }
    }
}

impl From<FieldError> for ExportError {
    fn from(e: FieldError) -> ExportError {
        ExportError::Field(e)
    }
}

/// The match's first player; a set-up game has no match start to make rows of.
fn first_player(start: &Start) -> Result<Side, FieldError> {
    match start {
        Start::Match { first } => Ok(*first),
        Start::RoundStart { .. } | Start::Board { .. } => Err(FieldError::new(
            if matches!(start, Start::RoundStart { .. }) { "holdings" } else { "position" },
            "a dataset holds whole matches from their start; a game from a set-up position exports as its move list, trace or replay page",
        )),
    }
}

/// Only `human` and the built-in players (an external program is not run again).
fn check_seats(seats: &BySide<PlayedSeat>) -> Result<(), FieldError> {
    for side in Side::ALL {
        if let PlayedSeat::Player(AgentSpec::External(_) | AgentSpec::Host(_)) = seats[side] {
            return Err(FieldError::new(
                side.name(),
                format!("{}: a seat is human or a built-in player", seats[side]),
            ));
        }
    }
    Ok(())
}

/// The game's end, refused unless the match is over: before any seat's player runs, so a
/// request that cannot make a dataset costs nothing.
fn check_over(request: &DatasetRequest) -> Result<(), ExportError> {
    let end = request.game.game()?;
    if end.is_over() {
        return Ok(());
    }
    let why = format!(
        "the match is not over after {} moves ({} to move): a dataset holds whole matches; play it to its end",
        request.game.moves.len(),
        end.position().turn()
    );
    Err(FieldError::new("moves", why).into())
}

/// Plays the game, checking that each move of a built-in seat is its player's choice (its
/// search stopped once the job is cancelled); the game at its end.
fn play_checked(
    request: &DatasetRequest,
    players: &Resources,
    job: &Job,
) -> Result<Game, ExportError> {
    let moves = &request.game.moves;
    job.stage("checking the built-in seats' moves", moves.len() as u64);
    request.game.walk(|game, i| {
        job.advance(1);
        job.check().map_err(|_| ExportError::Cancelled)?;
        let side = game.position().turn();
        let PlayedSeat::Player(spec) = &request.seats[side] else { return Ok(()) };
        let mut probe = *game;
        let rng = seat_rng(request.seed, game.ply() as u64, side);
        let mut agent = Agent::seated(spec.clone(), rng, players).stopped_by(job.stop_flag());
        let chosen = agent.play(&mut probe, &mut ()).map_err(|e| seat_error(side, e))?.map(|(pit, _)| pit.index());
        // A search stopped by the flag chose nothing to judge the move by.
        job.check().map_err(|_| ExportError::Cancelled)?;
        if chosen != Some(moves[i]) {
            let theirs = chosen.map_or("none".to_string(), |p| format!("pit {p}"));
            let why = format!(
                "move {} (pit {}) is not {spec}'s choice with seed {} ({theirs}); a seat whose moves a person made, even in part, is human",
                i + 1,
                moves[i],
                request.seed
            );
            return Err(FieldError::new(side.name(), why).into());
        }
        Ok(())
    })
}

/// A seat's player that could not move: the seat's fault, but the server's where its own
/// tables failed the player.
fn seat_error(side: Side, e: PlayerError) -> ExportError {
    match &e {
        PlayerError::Perfect(p) if p.is_server_side() => ExportError::Tables(e.to_string()),
        _ => FieldError::new(side.name(), e).into(),
    }
}

/// The digest of the match table a perfect:match seat read (see [`Manifest::tables`]).
fn tables_digest(
    request: &DatasetRequest,
    players: &Resources,
) -> Result<Option<String>, ExportError> {
    let perfect = AgentSpec::Perfect(PerfectKind::Match);
    let Some(side) = Side::ALL.into_iter().find(|&s| request.seats[s] == perfect) else {
        return Ok(None);
    };
    let table = players.exact.match_table(request.game.rules).map_err(|e| match e {
        MatchError::Io(_) | MatchError::Invalid(_) | MatchError::Checkpoint(_) => {
            ExportError::Tables(format!("perfect:match: {e}"))
        }
        e => FieldError::new(side.name(), format!("perfect:match: {e}")).into(),
    })?;
    Ok(Some(table.digest()))
}

/// Writes the game into `dir` (a new dataset) as one match; `command` is recorded in the
/// manifest. The perfect seats read `players`' store, as they did when the game was played.
pub fn write(
    request: &DatasetRequest,
    dir: &Path,
    players: &Resources,
    command: &str,
    job: &Job,
) -> Result<Manifest, ExportError> {
    let first = first_player(&request.game.start)?;
    check_seats(&request.seats)?;
    check_over(request)?;
    play_checked(request, players, job)?;
    let cfg = RunConfig {
        rules: request.game.rules,
        south: request.seats[Side::South].clone(),
        north: request.seats[Side::North].clone(),
        first: if first == Side::South { FirstPolicy::South } else { FirstPolicy::North },
        seed: request.seed,
        matches: 1,
        detail: request.detail,
        batch_size: 1,
        shard: Shard::WHOLE,
    };
    let pits: Vec<u32> = request.game.moves.iter().map(|&p| p as u32).collect();
    let mut batch = Batch::default();
    // The round cut (R17: a round not ended after 10,000 moves) ends a match the page plays on.
    replay_match(&cfg, 0, &pits, &mut batch).map_err(|e| FieldError::new("moves", e))?;
    let tables = tables_digest(request, players)?;
    let writer = DatasetWriter::create_played(
        dir,
        &cfg,
        Played::new(&request.game.moves),
        tables,
        request.format,
        command,
    )?;
    writer.write(batch)?;
    Ok(writer.finish(true)?)
}
