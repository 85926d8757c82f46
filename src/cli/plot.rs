//! `rajapasu plot`: charts of a dataset or study, as PNG and SVG.

use std::path::PathBuf;

use crate::analysis::summarize::summarize_path;

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory, or a study directory holding one dataset per arm.
    dir: PathBuf,
    /// Where to write the charts (default: DIR/charts).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Round numbers shown by the charts by round (closed_pits, rounds_by_number): FIRST..LAST,
    /// both included (also FIRST.. or ..LAST). Default: rounds 1 to 30, or fewer if no match goes
    /// further.
    #[arg(long, value_name = "FIRST..LAST")]
    rounds: Option<crate::plot::RoundRange>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let study = summarize_path(&args.dir, None)?;
    let out = args.out.unwrap_or_else(|| args.dir.join("charts"));
    let charts = crate::plot::plot_study_rounds(&study, &out, args.rounds.unwrap_or_default())
        .map_err(CliError::failed)?;
    let mut stdout = Output::lines();
    for path in charts {
        stdout.line(path.display())?;
    }
    stdout.finish()
}
