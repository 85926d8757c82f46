//! `rajapasu show`: a match as a self-contained replay page, or one state of it as an SVG.

use std::path::{Path, PathBuf};

use crate::agents::AgentSpec;
use crate::app::explore::export::{capital, moves_page_info, outcome_line, rules_line};
use crate::engine::Side;
use crate::io::{read_table, write_string_atomically, Dataset};
use crate::show::{page_html, state_svg, Film, PageInfo};
use crate::sim::schema::{MATCHES, MOVES};
use crate::sim::table::{ColumnData, Table};
use crate::sim::{play_match, replay_match, Batch, Detail, RunConfig, Shard};

use super::replay::{replay_error, MoveArgs};
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory: the match given by --match is replayed from its recorded moves
    /// (detail move or lap), or else played again by its players from its manifest (rules,
    /// players, seed, first player), and checked against the dataset's matches row.
    #[arg(value_name = "DIR", requires = "match_id", conflicts_with_all = ["moves", "moves_file", "first", "rules"])]
    dir: Option<PathBuf>,
    /// The match of DIR to show (its match_id, from 0).
    #[arg(long = "match", value_name = "ID", requires = "dir")]
    match_id: Option<u64>,
    /// Allow the external player of DIR's manifest that runs COMMAND (its program and arguments,
    /// exactly as the manifest's cmd=, optionally as timeout=S,cmd=COMMAND) to be run again, to
    /// show a match whose moves DIR does not record. Nothing else ever runs a program named in a
    /// dataset. Repeat for a second program.
    #[arg(long = "run-external", value_name = "COMMAND", requires = "dir")]
    run_external: Vec<String>,
    #[command(flatten)]
    moves: MoveArgs,
    /// The file to write: the HTML page, or with --svg the SVG.
    #[arg(long)]
    out: PathBuf,
    /// Write a static SVG of the state after --ply (in the page's drawing) instead of the page.
    #[arg(long, requires = "ply")]
    svg: bool,
    /// A state: after this many moves (0: the match's start). With --svg the state drawn;
    /// otherwise where the page opens when its address names no state.
    #[arg(long, value_name = "K")]
    ply: Option<u32>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (film, mut info) = match (&args.dir, args.match_id) {
        (Some(dir), Some(id)) => from_dataset(dir, id, &args.run_external)?,
        _ => from_moves(&args.moves)?,
    };
    let ply = args.ply.unwrap_or(0);
    if ply > film.plies() {
        return Err(CliError::usage(format!(
            "--ply {ply}: the match has {} moves (plies 0..={})",
            film.plies(),
            film.plies()
        )));
    }
    let text = if args.svg {
        state_svg(&film, ply).expect("ply checked")
    } else {
        info.initial_ply = ply;
        page_html(&film, &info)
    };
    write_string_atomically(&args.out, &text).map_err(CliError::failed)?;
    eprintln!(
        "show: wrote {} ({} moves, {} rounds, {} KB)",
        args.out.display(),
        film.plies(),
        film.rounds.len(),
        text.len().div_ceil(1024)
    );
    Ok(())
}

fn from_moves(args: &MoveArgs) -> Result<(Film, PageInfo), CliError> {
    let (rules, first, moves) = args.parse()?;
    let film = Film::replay(rules, first, &moves).map_err(|e| replay_error(&e))?;
    let info = moves_page_info(&rules, first, moves.len(), &film);
    Ok((film, info))
}

/// Match `id` of the dataset in `dir`, replayed from its recorded moves or else played again by
/// its players as `simulate` played it (an external player only when `run_external` names its
/// program), and checked against the dataset's row of that match.
fn from_dataset(
    dir: &Path,
    id: u64,
    run_external: &[String],
) -> Result<(Film, PageInfo), CliError> {
    // Only the match's batch is read, so only it is checked (a page of a million-match
    // dataset in a fraction of a second rather than the whole dataset's check).
    let dataset = Dataset::open_unverified(dir)?;
    let m = dataset.manifest().clone();
    if id >= m.matches {
        return Err(CliError::usage(format!(
            "--match {id}: {} holds matches 0..={}",
            dir.display(),
            m.matches - 1
        )));
    }
    dataset.verify_batch(id / m.batch_size)?;
    // The run played again match by match (its shard aside), with move records to replay.
    let cfg = RunConfig { detail: Detail::Move, shard: Shard::WHOLE, ..m.config() };
    let first = m.first;
    if m.expected_run_id() != dataset.run_id {
        return Err(CliError::usage(format!(
            "{}: the manifest's run id {} is not that of its rules, players, first player and seed ({}); the manifest was changed",
            dir.display(),
            dataset.run_id,
            m.expected_run_id()
        )));
    }
    let mut batch = Batch::default();
    let source = if let Some(played) = &m.played {
        // A match played from its moves (a person's, perhaps): the manifest records them.
        let moves = played.pits().map_err(|e| {
            CliError::usage(format!("{}: manifest field `played`: {e}", dir.display()))
        })?;
        replay_match(&cfg, id, &moves, &mut batch).map_err(|e| {
            CliError::usage(format!(
                "{}: the manifest's played moves do not replay: {e}",
                dir.display()
            ))
        })?;
        format!(
            "Replayed by rajapasu {} from the moves its manifest records and checked against its matches row.",
            env!("CARGO_PKG_VERSION")
        )
    } else if m.detail >= Detail::Move {
        // The dataset's own moves: no player runs.
        let (part, moves) = recorded_moves(&dataset, id)?;
        replay_match(&cfg, id, &moves, &mut batch).map_err(|e| {
            CliError::usage(format!(
                "{}: the recorded moves of match {id} do not replay: {e}",
                part.display()
            ))
        })?;
        format!("Replayed by rajapasu {} from the dataset's moves table and checked against its matches row.", env!("CARGO_PKG_VERSION"))
    } else {
        // Only a match played from its moves has a person's seat (the manifest is checked).
        let players = m.player_config().ok_or_else(|| {
            CliError::usage(format!("{}: a seat is human, with no moves recorded", dir.display()))
        })?;
        let mut players = RunConfig { detail: Detail::Move, shard: Shard::WHOLE, ..players };
        allow_externals(&mut players, m.detail, dir, id, run_external)?;
        play_match(&players, &crate::agents::Resources::default(), id, &mut batch)
            .map_err(|e| CliError::usage(format!("match {id} cannot be played again: {e}")))?;
        format!("Played again by rajapasu {} from the dataset's manifest and checked against its matches row.", env!("CARGO_PKG_VERSION"))
    };
    let recorded = dataset_row(&dataset, id)?;
    check_row(&batch.matches.clone().into_table(), &recorded, id, dir)?;
    let moves: Vec<usize> = batch.moves.pit.iter().map(|&p| p as usize).collect();
    let first_player = first.for_match(id);
    let film = Film::replay(cfg.rules, first_player, &moves).map_err(|e| {
        CliError::failed(format!(
            "match {id} was played again but its moves do not replay ({e}): a bug"
        ))
    })?;
    let dir_name = dir
        .file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let about = vec![
        format!(
            "Match {id} of the dataset {dir_name}: South {}, North {}; master seed {}; {} moved first.",
            m.south,
            m.north,
            m.seed,
            capital(first_player)
        ),
        rules_line(&cfg.rules),
        outcome_line(&film),
        source,
    ];
    Ok((
        film,
        PageInfo { title: format!("Raja Pasu: match {id} of {dir_name}"), about, initial_ply: 0 },
    ))
}

/// An external player of the manifest runs again only when `run_external` names its program;
/// the flag's spec (its timeout) replaces the manifest's.
fn allow_externals(
    cfg: &mut RunConfig,
    recorded: Detail,
    dir: &Path,
    id: u64,
    run_external: &[String],
) -> Result<(), CliError> {
    let mut allowed = Vec::new();
    for given in run_external {
        // The manifest's whole spec (external:cmd=...) is accepted too.
        match format!("external:{}", given.strip_prefix("external:").unwrap_or(given))
            .parse::<AgentSpec>()
        {
            Ok(AgentSpec::External(p)) => allowed.push(p),
            Ok(_) => unreachable!("an external: spec is external"),
            Err(e) => return Err(CliError::usage(format!("--run-external {given}: {}", e.reason))),
        }
    }
    let mut externals = Vec::new();
    for (seat, spec) in [(Side::South, &mut cfg.south), (Side::North, &mut cfg.north)] {
        let AgentSpec::External(theirs) = spec.clone() else { continue };
        externals.push(theirs.command.clone());
        match allowed.iter().find(|p| **p == theirs) {
            Some(p) => *spec = AgentSpec::External(p.clone()),
            None => {
                return Err(CliError::usage(format!(
                    "{}: match {id} is not recorded move by move (detail {}), and {} is the external player '{}': showing the match \
                     means running that program again, which show does only when asked. Pass --run-external {} to run it \
                     (or simulate again with --detail move, whose moves show replays without running anything)",
                    dir.display(),
                    recorded,
                    capital(seat),
                    theirs.command,
                    shell_word(&theirs.command)
                )))
            }
        }
    }
    if let Some(stray) = allowed.iter().find(|p| !externals.contains(&p.command)) {
        let players = if externals.is_empty() { "none".to_string() } else { externals.join("; ") };
        return Err(CliError::usage(format!(
            "--run-external {}: no player of {} runs that program (its external players: {players})",
            shell_word(&stray.command),
            dir.display()
        )));
    }
    Ok(())
}

/// `text` as one shell word, for a command line to copy.
fn shell_word(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| text.to_string(), |q| q.into_owned())
}

/// The part file of `table` that holds match `id`.
fn batch_part(dataset: &Dataset, table: &str, id: u64) -> Result<PathBuf, CliError> {
    let batch = id / dataset.manifest().batch_size;
    dataset.batch_part(table, batch)?.ok_or_else(|| {
        CliError::usage(format!(
            "{}: no part file of batch {batch} (which holds match {id}) in {table}/",
            dataset.dir.display()
        ))
    })
}

/// The recorded moves of match `id` (local pits in ply order), with the part file they are from.
fn recorded_moves(dataset: &Dataset, id: u64) -> Result<(PathBuf, Vec<u32>), CliError> {
    let part = batch_part(dataset, MOVES.name, id)?;
    let table = read_table(&part, &MOVES).map_err(CliError::usage)?;
    let (Some(ColumnData::U64(ids)), Some(ColumnData::I64(plies)), Some(ColumnData::I64(pits))) =
        (table.column("match_id"), table.column("ply"), table.column("pit"))
    else {
        unreachable!("read_table checks the schema")
    };
    let mut moves: Vec<(i64, u32)> = Vec::new();
    for i in (0..ids.len()).filter(|&i| ids[i] == id) {
        // A pit out of range is refused by the replay; one that is not even a u32 here.
        let pit = u32::try_from(pits[i]).map_err(|_| {
            CliError::usage(format!(
                "{}: match {id}, ply {}: pit {} is not a pit number",
                part.display(),
                plies[i],
                pits[i]
            ))
        })?;
        moves.push((plies[i], pit));
    }
    moves.sort_unstable();
    if let Some((at, (ply, _))) =
        moves.iter().enumerate().find(|(i, (ply, _))| *ply != *i as i64 + 1)
    {
        return Err(CliError::usage(format!(
            "{}: the moves of match {id} are not plies 1, 2, 3, ...: ply {ply} where ply {} belongs",
            part.display(),
            at + 1
        )));
    }
    Ok((part, moves.into_iter().map(|(_, pit)| pit).collect()))
}

/// The dataset's matches row of match `id`, as a one-row table, from the part file of its batch.
fn dataset_row(dataset: &Dataset, id: u64) -> Result<Table, CliError> {
    let part = &batch_part(dataset, MATCHES.name, id)?;
    let table = read_table(part, &MATCHES).map_err(CliError::usage)?;
    let ids = match table.column("match_id") {
        Some(ColumnData::U64(ids)) => ids,
        _ => unreachable!("read_table checks the schema"),
    };
    let row = ids
        .iter()
        .position(|&m| m == id)
        .ok_or_else(|| CliError::usage(format!("{}: match {id} is not in it", part.display())))?;
    Ok(Table {
        name: table.name,
        columns: table
            .columns
            .iter()
            .map(|c| crate::sim::table::Column { name: c.name, data: c.data.row(row) })
            .collect(),
    })
}

/// The regenerated match must be the dataset's: a difference is an error naming every column.
fn check_row(regenerated: &Table, recorded: &Table, id: u64, dir: &Path) -> Result<(), CliError> {
    let differences: Vec<String> = regenerated
        .columns
        .iter()
        .filter_map(|c| {
            let theirs =
                recorded.column(c.name).map_or_else(|| "missing".to_string(), |d| d.show(0));
            let ours = c.data.show(0);
            (ours != theirs).then(|| {
                format!("{} is {theirs} in the dataset but {ours} when played again", c.name)
            })
        })
        .collect();
    if differences.is_empty() {
        return Ok(());
    }
    Err(CliError::usage(format!(
        "{}: match {id} played again from the manifest differs from the dataset's matches row: {}; the dataset was changed or made by another version of rajapasu",
        dir.display(),
        differences.join("; ")
    )))
}
