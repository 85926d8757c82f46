//! `rajapasu serve`: the explorer page and its JSON API on this machine (the server:
//! `crate::server`, docs/serve.md).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use super::output::Output;
use super::CliError;
use crate::server::{run, Config};
use crate::size::Size;

/// Who may talk to the server, printed after the options.
const AFTER_HELP: &str = "\
Who may talk to the server (docs/serve.md): it answers only requests addressed to it as
127.0.0.1:PORT, localhost:PORT, [::1]:PORT, its --bind address or an --allow-host name; API
requests and POSTs from a page of another origin are refused (403), POST bodies must be
application/json, and no CORS header is ever sent. Off the loopback, the API also needs the
token printed at start (the address it prints holds it: ?token=, or Authorization: Bearer).";

#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The address to listen on. Another than the loopback lets anyone who can reach this
    /// machine use its CPU and memory, with the token printed at start.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Another name the server may be addressed by (its Host header, with the port), e.g. the
    /// machine's name on the network; repeatable.
    #[arg(long = "allow-host", value_name = "NAME", value_parser = host_name)]
    allow_hosts: Vec<String>,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Directory of match tables and saved round values (R17), read and written there. Default:
    /// $RAJAPASU_TABLES, else $XDG_CACHE_HOME/rajapasu/tables, else ~/.cache/rajapasu/tables.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Memory one solve may use, and the exact values kept between requests, e.g. 2G.
    #[arg(long, value_name = "SIZE", default_value_t = Size::DEFAULT_MEMORY)]
    max_memory: Size,
    /// The most positions one solve may reach (the real board's round 1 has 16.8 million).
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    max_positions: u64,
    /// Open the page in the browser (xdg-open).
    #[arg(long)]
    open: bool,
}

/// A host name or address as a `Host` header holds it without its port.
fn host_name(text: &str) -> Result<String, String> {
    let bracketed = text.starts_with('[')
        && text.ends_with(']')
        && text[1..text.len() - 1].parse::<std::net::Ipv6Addr>().is_ok();
    let plain = !text.is_empty()
        && text.len() <= 253
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if bracketed || plain {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!(
            "'{text}' is not a host name (letters, digits, dots and dashes) nor an IPv6 address in brackets; give it without a port"
        ))
    }
}

/// The tables directory, made if it is missing, refused unless the server can write in it: a
/// server that cannot keep its tables would answer every request that needs them with an error
/// of its own.
fn usable_tables(dir: std::path::PathBuf) -> Result<std::path::PathBuf, CliError> {
    let refused = |e: std::io::Error| {
        CliError::usage(format!(
            "--tables {}: not a directory the server can write in: {e}",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(refused)?;
    tempfile::Builder::new().prefix(".serve-probe-").tempfile_in(&dir).map_err(refused)?;
    Ok(dir)
}

pub fn run_command(args: Args) -> Result<(), CliError> {
    let max_memory = args.max_memory.bytes();
    let token = if args.bind.is_loopback() {
        None
    } else {
        eprintln!(
            "warning: listening on {}: anyone who can reach this address and has the token printed below can use this machine's CPU and memory through the page",
            args.bind
        );
        Some(crate::server::new_token().map_err(|e| {
            CliError::usage(format!("cannot read a random token from /dev/urandom: {e}"))
        })?)
    };
    let config = Config {
        addr: SocketAddr::new(args.bind, args.port),
        tables: usable_tables(crate::cli::tables_dir(args.tables.as_deref())?)?,
        max_memory,
        max_positions: args.max_positions,
        allow_hosts: args.allow_hosts.clone(),
        token: token.clone(),
    };
    let mut out = Output::lines();
    let mut printed = Ok(());
    let served = run(config, |addr| {
        let url = match &token {
            Some(token) => format!("http://{addr}/?token={token}"),
            None => format!("http://{addr}/"),
        };
        printed = out.line(format_args!("rajapasu serve: {url} (Ctrl-C stops it)"));
        if args.open {
            // The user's own request on the command line, never a page's.
            let _ = std::process::Command::new("xdg-open").arg(&url).spawn();
        }
    });
    printed?;
    served.map_err(|e| CliError::usage(format!("--bind {} --port {}: {e}", args.bind, args.port)))
}
