//! `rajapasu solve-cluster`: the match table (R17) solved as a chain of steps of independent
//! tasks over files in a shared directory (`exact::ClusterSolve`), for a Slurm job or array
//! (scripts/slurm_match.sh) or the local driver `run`. `plan` makes the directory, `next` says
//! how many tasks the current step has (0: done), `task` runs one, `advance` is the barrier
//! after them; each is safe to run again after a kill. docs/guide/solve.md shows the chain.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::cli::output::Output;
use crate::cli::CliError;
use crate::exact::{ClusterSolve, ClusterStep, MatchError, MAX_BUCKETS};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Plan the solve of the board's match table in DIR, each level split into --buckets.
    Plan {
        dir: PathBuf,
        #[command(flatten)]
        plan: PlanArgs,
    },
    /// Print the number of tasks of the step to run now (0: the table is written).
    Next { dir: PathBuf },
    /// Run one task of the current step: INDEX, else $SLURM_ARRAY_TASK_ID, else $SLURM_PROCID.
    Task { dir: PathBuf, index: Option<u32> },
    /// After every task of the step: check their files, move to the next step, print its tasks.
    Advance { dir: PathBuf },
    /// The local driver: plan (when --buckets is given), then every step's tasks as processes
    /// of this binary, --jobs at a time, and the barriers, to the table.
    Run {
        dir: PathBuf,
        #[command(flatten)]
        plan: OptionalPlan,
        /// Tasks run at once.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: u32,
        /// Print the table's path and the levels' figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args, Debug)]
struct PlanArgs {
    /// Buckets each level is split into: the tasks of a level step.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BUCKETS as i64))]
    buckets: u32,
    #[command(flatten)]
    rules: super::RuleArgs,
}

#[derive(clap::Args, Debug)]
struct OptionalPlan {
    /// Plan the solve first (as `plan`), each level split into this many buckets; without it
    /// DIR must hold a plan.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BUCKETS as i64))]
    buckets: Option<u32>,
    #[command(flatten)]
    rules: super::RuleArgs,
}

fn failed(e: MatchError) -> CliError {
    CliError::of(&e, &e)
}

/// The solve in `dir`, or a usage error saying to plan one.
fn open(dir: &Path) -> Result<ClusterSolve, CliError> {
    if !dir.join("plan.json").exists() {
        return Err(CliError::usage(format!(
            "{}: no cluster solve is planned there (`rajapasu solve-cluster plan {} --buckets B --rule ...`)",
            dir.display(),
            dir.display()
        )));
    }
    ClusterSolve::open(dir).map_err(failed)
}

fn plan(dir: &Path, args: &PlanArgs) -> Result<ClusterSolve, CliError> {
    ClusterSolve::plan(dir, args.rules.ruleset()?, args.buckets).map_err(failed)
}

/// The index of this task: given, else Slurm's.
fn task_index(given: Option<u32>) -> Result<u32, CliError> {
    if let Some(i) = given {
        return Ok(i);
    }
    for var in ["SLURM_ARRAY_TASK_ID", "SLURM_PROCID"] {
        if let Ok(text) = std::env::var(var) {
            return text
                .parse()
                .map_err(|_| CliError::usage(format!("${var} is '{text}', not a task index")));
        }
    }
    Err(CliError::usage(
        "no task index: give INDEX, or run under Slurm ($SLURM_ARRAY_TASK_ID or $SLURM_PROCID)",
    ))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let mut out = Output::lines();
    match args.action {
        Action::Plan { dir, plan: p } => {
            let solve = plan(&dir, &p)?;
            let step = solve.step().map_err(failed)?;
            out.line(solve.tasks(step))?;
        }
        Action::Next { dir } => {
            let solve = open(&dir)?;
            out.line(solve.tasks(solve.step().map_err(failed)?))?;
        }
        Action::Task { dir, index } => {
            let index = task_index(index)?;
            open(&dir)?.task(index).map_err(failed)?;
        }
        Action::Advance { dir } => {
            let solve = open(&dir)?;
            let step = solve.advance().map_err(failed)?;
            out.line(solve.tasks(step))?;
        }
        Action::Run { dir, plan: p, jobs, json } => {
            let solve = match p.buckets {
                Some(buckets) => plan(&dir, &PlanArgs { buckets, rules: p.rules })?,
                None => open(&dir)?,
            };
            let steps = drive(&solve, &dir, jobs)?;
            let figures = solve.figures().map_err(failed)?;
            let table = solve.table_path();
            if json {
                let v = serde_json::json!({
                    "table": table, "steps": steps, "buckets": solve.buckets(), "figures": figures,
                });
                out.line(v)?;
            } else {
                out.line(format_args!(
                    "table: {} ({steps} steps; {} levels in {} propagation rounds, at most {} a level; largest level {} positions, largest bucket {})",
                    table.display(),
                    figures.levels,
                    figures.rounds,
                    figures.most_rounds,
                    figures.largest_level,
                    figures.largest_bucket
                ))?;
            }
        }
    }
    out.finish()
}

/// Runs the steps to the end, each task a process of this binary; the steps run.
fn drive(solve: &ClusterSolve, dir: &Path, jobs: u32) -> Result<u64, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find this program to run its tasks: {e}")))?;
    let mut steps = 0;
    loop {
        let step = solve.step().map_err(failed)?;
        if step == ClusterStep::Done {
            return Ok(steps);
        }
        let tasks = solve.tasks(step);
        let mut running: Vec<(u32, Child)> = Vec::new();
        for index in 0..tasks {
            if running.len() == jobs as usize {
                let (i, child) = running.remove(0);
                wait(i, child, step)?;
            }
            let child = Command::new(&exe)
                .args(["solve-cluster", "task"])
                .arg(dir)
                .arg(index.to_string())
                .stdin(Stdio::null())
                .spawn()
                .map_err(|e| CliError::failed(format!("cannot start task {index}: {e}")))?;
            running.push((index, child));
        }
        for (i, child) in running {
            wait(i, child, step)?;
        }
        solve.advance().map_err(failed)?;
        steps += 1;
    }
}

fn wait(index: u32, mut child: Child, step: ClusterStep) -> Result<(), CliError> {
    let status =
        child.wait().map_err(|e| CliError::failed(format!("task {index} of step {step}: {e}")))?;
    if status.success() {
        return Ok(());
    }
    Err(CliError::failed(format!(
        "task {index} of step {step} failed ({status}); run again to continue"
    )))
}
