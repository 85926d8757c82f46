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
}

pub fn run(args: Args) -> Result<(), CliError> {
    let study = summarize_path(&args.dir, None)?;
    let out = args.out.unwrap_or_else(|| args.dir.join("charts"));
    let charts = crate::plot::plot_study(&study, &out).map_err(CliError::failed)?;
    let mut stdout = Output::lines();
    for path in charts {
        stdout.line(path.display())?;
    }
    stdout.finish()
}
