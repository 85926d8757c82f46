//! `rajapasu tournament`: a round robin from a tournament file, with Bradley-Terry ratings
//! (the job: `app::tournament`).

use std::path::PathBuf;

use crate::app::tournament::file::Tournament;
use crate::app::tournament::TournamentRequest;

use super::output::Output;
use super::run::StudyArgs;
use super::simulate::Bars;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tournament file, e.g. experiments/ladder.toml.
    file: PathBuf,
    #[command(flatten)]
    study: StudyArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let tournament = Tournament::load(&args.file)?;
    let name = tournament.name.clone();
    let job = TournamentRequest { tournament, options: args.study.options() }.validate()?;
    let bars = Bars::new(args.study.quiet);
    let done = crate::app::tournament::run(&job, &crate::agents::Resources::default(), &bars)?;
    if !args.study.quiet {
        eprintln!(
            "{name}: ratings.json, ratings.csv, pairs.csv, ratings.txt, summary.* and {} chart files in {}",
            done.charts.len(),
            done.dir.display()
        );
    }
    // Printed last: a reader that goes away (`| head`) does not cut the tournament short.
    let mut out = Output::lines();
    out.text(&done.text)?;
    out.finish()
}
