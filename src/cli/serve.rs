//! `rajapasu serve`: the explorer page and its JSON API on this machine (the server:
//! `crate::server`, docs/serve.md).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use super::output::Output;
use super::CliError;
use crate::app::solve::parse_memory;
use crate::server::{run, Config};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The address to listen on. Another than the loopback lets anyone who can reach this
    /// machine use its CPU and memory.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Directory of match tables and saved round values (R17), read and written there. Default:
    /// $RAJAPASU_TABLES, else $XDG_CACHE_HOME/rajapasu/tables, else ~/.cache/rajapasu/tables.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Memory one solve may use, and the exact values kept between requests, e.g. 2G.
    #[arg(long, value_name = "SIZE", default_value = "4G")]
    max_memory: String,
    /// The most positions one solve may reach (the real board's round 1 has 16.8 million).
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    max_positions: u64,
    /// Open the page in the browser (xdg-open).
    #[arg(long)]
    open: bool,
}

pub fn run_command(args: Args) -> Result<(), CliError> {
    let max_memory = parse_memory(&args.max_memory).map_err(|e| CliError::usage(format!("--max-memory: {e}")))?;
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this address can use this machine's CPU and memory through the page",
            args.bind
        );
    }
    let config = Config {
        addr: SocketAddr::new(args.bind, args.port),
        tables: crate::cli::tables_dir(args.tables.as_deref())?,
        max_memory,
        max_positions: args.max_positions,
    };
    let mut out = Output::lines();
    let mut printed = Ok(());
    let served = run(config, |addr| {
        let url = format!("http://{addr}/");
        printed = out.line(format_args!("rajapasu serve: {url} (Ctrl-C stops it)"));
        if args.open {
            // The user's own request on the command line, never a page's.
            let _ = std::process::Command::new("xdg-open").arg(&url).spawn();
        }
    });
    printed?;
    served.map_err(|e| CliError::usage(format!("--bind {} --port {}: {e}", args.bind, args.port)))
}
