//! `rajapasu perft`: legal move sequences inside round 1 (docs/rules.md, "Perft").

use crate::engine::{perft, Position, Side};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Deepest depth to count (prints depths 1..D).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=40))]
    depth: u32,
    #[command(flatten)]
    rules: super::RuleArgs,
    /// Print JSON ({"rules":..., "perft":[...]}) instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let pos = Position::opening(rules, Side::South);
    let mut out = Output::lines();
    let mut counts = Vec::new();
    for d in 1..=args.depth {
        let n = perft(&pos, d);
        counts.push(n);
        if !args.json {
            out.line(format_args!("perft({d}) = {n}"))?;
        }
    }
    if args.json {
        let v = serde_json::json!({ "rules": rules, "rules_hash": rules.hash(), "perft": counts });
        out.line(v)?;
    }
    out.finish()
}
