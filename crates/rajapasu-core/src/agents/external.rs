//! External players: a program that answers one JSON line per decision
//! (docs/external-players.md), as chess engines speak UCI.
//!
//! One process per player and match, started at its first decision and ended with the match.
//! A program's output is untrusted: its answers are read by a thread, one bounded line at a
//! time, so a program that hangs is given up after the timeout and one that floods is stopped
//! at [`ANSWER_BYTES`]; of its stderr only the last [`STDERR_BYTES`] are kept, as bytes, for the
//! error message. Each program runs in a process group of its own, which is ended with it, and
//! on SIGINT, SIGTERM, SIGHUP or exit of rajapasu (see [`groups`]), so nothing it forks outlives it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::spec::ExternalParams;
use crate::engine::{Pit, PitSet, Position, Rng, Side};

/// Version of the protocol, sent with every decision.
pub const PROTOCOL: u32 = 1;
/// Longest answer line, in bytes (`{"pit":3}` is 9).
pub const ANSWER_BYTES: usize = 4096;
/// The end of the program's stderr kept for error messages, in bytes.
pub const STDERR_BYTES: usize = 4096;
/// Lines of that end shown in an error message.
const STDERR_LINES: usize = 5;
/// Longest answer shown in an error message.
const SHOWN: usize = 200;
/// Where an error message points for the protocol and for buffering.
const DOCS: &str = "docs/external-players.md";

/// Why an external player could not decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExternalError {
    #[error("cannot start external player '{command}': {reason}")]
    Start { command: String, reason: String },
    #[error("external player '{command}' exited ({status}) without answering{stderr}")]
    Exited { command: String, status: String, stderr: String },
    #[error(
        "external player '{command}' gave no answer within {seconds} s (the timeout, at most 600 s; external:timeout=S,cmd=... sets it). \
         If it answers when run by hand, it buffers its output: flush each answer line (Python print(..., flush=True) or python3 -u, \
         C fflush(stdout), awk fflush() and, with mawk, -W interactive; see {DOCS}){stderr}"
    )]
    Timeout { command: String, seconds: String, stderr: String },
    #[error("external player '{command}' answered {answer:?}, which is not a JSON object with an integer \"pit\" such as {{\"pit\":3}} ({reason})")]
    Garbage { command: String, answer: String, reason: String },
    #[error(
        "external player '{command}' played pit {pit}, which is not legal; legal pits: {legal}"
    )]
    Illegal { command: String, pit: i64, legal: String },
    #[error(
        "external player '{command}' wrote more than {ANSWER_BYTES} bytes on stdout without a newline; an answer is one short line \
         such as {{\"pit\":3}} (write logs to stderr)"
    )]
    TooLong { command: String },
    #[error(
        "external player '{command}' wrote the line {answer:?} when it was not asked: it must write exactly one answer line per \
         request (write logs to stderr)"
    )]
    Unsolicited { command: String, answer: String },
}

/// A decision: what the program is told (docs/external-players.md).
#[derive(serde::Serialize)]
struct Request<'a> {
    protocol: u32,
    rules: &'a crate::engine::Ruleset,
    /// Round and ply of the match (ply: the number of this move from the match's start), when known.
    round: Option<u32>,
    ply: Option<u32>,
    side: Side,
    /// 2P counts, global pits (R2).
    board: &'a [u8],
    /// Closed global pits (R12).
    closed: Vec<usize>,
    /// Counters off the board, [South, North].
    reserve: [u32; 2],
    /// Legal local pits (R3, R4, R9).
    legal: Vec<usize>,
    /// A seed for this decision from the seat's stream, below 2^53 so that every JSON reader
    /// holds it exactly.
    seed: u64,
}

/// What the reader of the program's stdout hands over.
enum Line {
    Answer(Vec<u8>),
    /// More than [`ANSWER_BYTES`] without a newline; nothing more is read.
    TooLong,
    /// End of the output, or a read error.
    Closed,
}

/// The pit of an answer: a JSON object with an integer `pit` (other keys are ignored). `[3]`
/// and `3` are refused: the protocol's answer is an object, so that it can grow keys.
fn parse_answer(line: &[u8]) -> Result<i64, String> {
    let text = std::str::from_utf8(line).map_err(|e| format!("not UTF-8: {e}"))?;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let object =
        value.as_object().ok_or_else(|| format!("a JSON {}, not an object", json_kind(&value)))?;
    let pit = object.get("pit").ok_or("missing field `pit`")?;
    pit.as_i64().ok_or_else(|| format!("\"pit\" is a JSON {}, not an integer", json_kind(pit)))
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Lines of stdout. The channel holds one line: a program that floods waits, and a line
    /// it wrote unasked is there to be seen at the next request.
    answers: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// The program's process group (its pid), registered for ending on a signal.
    group: groups::Registered,
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin lets a well-behaved program end; ending the group ends any other, with
        // whatever it forked. The group is ended before the leader is reaped, so its id is
        // still in use and names no other process.
        drop(self.stdin.take());
        self.group.end();
        let _ = self.child.wait();
    }
}

pub(crate) struct External {
    params: ExternalParams,
    process: Option<Process>,
}

impl External {
    pub(crate) fn new(params: ExternalParams) -> External {
        External { params, process: None }
    }

    fn command(&self) -> String {
        self.params.command.to_string()
    }

    fn start(&self) -> Result<Process, ExternalError> {
        let argv = self.params.argv();
        groups::install();
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| ExternalError::Start { command: self.command(), reason: e.to_string() })?;
        let group = groups::Registered::new(child.id() as i32);
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, answers) = mpsc::sync_channel(1);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                let buf = match reader.fill_buf() {
                    Ok([]) => break,
                    Ok(buf) => buf,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let (take, end) = match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => (i, Some(i + 1)),
                    None => (buf.len(), None),
                };
                if line.len() + take > ANSWER_BYTES {
                    let _ = tx.send(Line::TooLong);
                    return;
                }
                line.extend_from_slice(&buf[..take]);
                reader.consume(end.unwrap_or(take));
                if end.is_some() && tx.send(Line::Answer(std::mem::take(&mut line))).is_err() {
                    return;
                }
            }
            let _ = tx.send(Line::Closed);
        });
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_BYTES)));
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            // Bytes, not text: a program may write anything on stderr, and must keep running.
            let mut pipe = stderr_pipe;
            let mut buf = [0u8; 4096];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        let mut k = kept.lock().expect("stderr bytes");
                        k.extend(&buf[..n]);
                        let excess = k.len().saturating_sub(STDERR_BYTES);
                        k.drain(..excess);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
        });
        Ok(Process { stdin: child.stdin.take(), child, answers, stderr, group })
    }

    /// Asks the program for its move. None: no legal move (the program is not asked).
    pub(crate) fn choose(
        &mut self,
        pos: &Position,
        round: Option<u32>,
        ply: Option<u32>,
        rng: &mut Rng,
    ) -> Result<Option<Pit>, ExternalError> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Ok(None);
        }
        let p = pos.rules().pits_per_row;
        let open = pos.open();
        let closed = (0..2 * p as usize)
            .filter(|&g| {
                !open[Side::from_index(g / p as usize)].contains(Pit::new_unchecked(g % p as usize))
            })
            .collect();
        let request = Request {
            protocol: PROTOCOL,
            rules: pos.rules(),
            round,
            ply,
            side: pos.turn(),
            board: pos.board(),
            closed,
            reserve: [pos.reserve()[Side::South], pos.reserve()[Side::North]],
            legal: legal.iter().map(Pit::index).collect(),
            seed: rng.next_u64() >> 11,
        };
        let mut line = serde_json::to_string(&request).expect("a request serializes");
        line.push('\n');
        if self.process.is_none() {
            self.process = Some(self.start()?);
        }
        let chosen = self.exchange(&line).and_then(|answer| {
            let pit = parse_answer(&answer).map_err(|reason| ExternalError::Garbage {
                command: self.command(),
                answer: String::from_utf8_lossy(&answer).chars().take(SHOWN).collect(),
                reason,
            })?;
            usize::try_from(pit)
                .ok()
                .and_then(|i| Pit::new(i, p))
                .filter(|&pit| legal.contains(pit))
                .ok_or_else(|| ExternalError::Illegal {
                    command: self.command(),
                    pit,
                    legal: legal_list(legal),
                })
        });
        if chosen.is_err() {
            // A program that failed once is not asked again.
            self.process = None;
        }
        chosen.map(Some)
    }

    /// Writes one request line and waits for one answer line.
    fn exchange(&mut self, line: &str) -> Result<Vec<u8>, ExternalError> {
        let timeout = Duration::from_millis(self.params.timeout_ms as u64);
        let command = self.command();
        let process = self.process.as_mut().expect("started");
        // Anything on stdout before the request is a line nobody asked for.
        match process.answers.try_recv() {
            Err(TryRecvError::Empty) => {}
            Ok(Line::Answer(extra)) => {
                return Err(ExternalError::Unsolicited {
                    command,
                    answer: String::from_utf8_lossy(&extra).chars().take(SHOWN).collect(),
                })
            }
            Ok(Line::TooLong) => return Err(ExternalError::TooLong { command }),
            Ok(Line::Closed) | Err(TryRecvError::Disconnected) => {
                return Err(process.exited(command))
            }
        }
        let written =
            process.stdin.as_mut().map(|s| s.write_all(line.as_bytes()).and_then(|_| s.flush()));
        if !matches!(written, Some(Ok(()))) {
            return Err(process.exited(command));
        }
        match process.answers.recv_timeout(timeout) {
            Ok(Line::Answer(answer)) => Ok(answer),
            Ok(Line::TooLong) => Err(ExternalError::TooLong { command }),
            Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => Err(process.exited(command)),
            Err(RecvTimeoutError::Timeout) => {
                process.group.end();
                Err(ExternalError::Timeout {
                    command,
                    seconds: format!("{}", timeout.as_secs_f64()),
                    stderr: process.stderr_tail(),
                })
            }
        }
    }
}

impl Process {
    /// The error of a program that closed its pipes: its exit status if it ended.
    fn exited(&mut self, command: String) -> ExternalError {
        // The pipes close as the process exits; give it a moment to be reaped.
        let mut status = None;
        for _ in 0..100 {
            if let Ok(Some(s)) = self.child.try_wait() {
                // What it forked goes with it, at once, while its group id cannot be reused.
                self.group.end();
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let status =
            status.map_or("closed its output, still running".to_string(), |s| s.to_string());
        // The stderr reader may still be taking the last bytes.
        std::thread::sleep(Duration::from_millis(20));
        ExternalError::Exited { command, status, stderr: self.stderr_tail() }
    }

    /// The last lines of the kept end of stderr, as text (invalid UTF-8 replaced).
    fn stderr_tail(&self) -> String {
        let bytes: Vec<u8> = self.stderr.lock().expect("stderr bytes").iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
        if lines.is_empty() {
            return String::new();
        }
        let last = &lines[lines.len().saturating_sub(STDERR_LINES)..];
        // The end of each line, where a program says what went wrong.
        let shown: Vec<String> = last
            .iter()
            .map(|l| {
                let chars: Vec<char> = l.chars().filter(|c| !c.is_control()).collect();
                let from = chars.len().saturating_sub(2 * SHOWN);
                (if from > 0 { "..." } else { "" }).to_string()
                    + &chars[from..].iter().collect::<String>()
            })
            .collect();
        format!("; its last stderr lines: {}", shown.join(" | "))
    }
}

fn legal_list(legal: PitSet) -> String {
    if legal.is_empty() {
        "none".into()
    } else {
        legal.to_string()
    }
}

/// The process groups of running external players, ended when rajapasu is told to stop.
///
/// Each player is the leader of a group of its own (so a terminal's Ctrl-C does not reach it
/// directly); the groups are kept in a fixed table of atomics, which a signal handler can read
/// (async-signal-safe: only atomic loads, `kill` and `raise`). On SIGINT, SIGTERM or SIGHUP the
/// handler kills every group, then lets the signal end rajapasu as it would have; at exit
/// (`std::process::exit` after an error in another thread) the same is done by `atexit`.
///
/// This table is the one process-wide mutable state of the core, and the operating system
/// forces it: a signal handler and an `atexit` function take no argument, so what they must
/// end can only be found in a static. Everything else a run shares is passed down
/// ([`crate::agents::Resources`]).
mod groups {
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::Once;

    /// More than threads x seats on any machine this runs on; a player beyond it still runs
    /// and is ended with its match, only not on a signal.
    const SLOTS: usize = 4096;
    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
    static INSTALL: Once = Once::new();

    fn end_all() {
        for slot in &GROUPS {
            let group = slot.load(Ordering::Acquire);
            if group > 0 {
                // SAFETY: kill is async-signal-safe; a negative pid names the process group.
                unsafe { libc::kill(-group, libc::SIGKILL) };
            }
        }
    }

    extern "C" fn on_signal(signal: libc::c_int) {
        end_all();
        // SA_RESETHAND restored the default action: the signal ends rajapasu once the handler
        // returns, with the status a shell expects.
        // SAFETY: raise is async-signal-safe.
        unsafe { libc::raise(signal) };
    }

    extern "C" fn at_exit() {
        end_all();
    }

    /// Installs the handlers once, for the signals whose action is the default (a signal
    /// that was ignored, as `nohup` ignores SIGHUP, stays ignored).
    pub fn install() {
        INSTALL.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: plain sigaction calls on a zeroed struct; the handler is async-signal-safe.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction != libc::SIG_DFL
                    {
                        continue;
                    }
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction =
                        on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                    action.sa_flags = libc::SA_RESETHAND;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
            // SAFETY: registers a function without arguments that only sends signals.
            unsafe { libc::atexit(at_exit) };
        });
    }

    /// A player's group in the table, until it is ended.
    pub struct Registered {
        group: i32,
        slot: Option<usize>,
    }

    impl Registered {
        pub fn new(group: i32) -> Registered {
            let slot = GROUPS.iter().position(|s| {
                s.compare_exchange(0, group, Ordering::AcqRel, Ordering::Relaxed).is_ok()
            });
            Registered { group, slot }
        }

        /// Kills the whole group (the program and whatever it forked); then forgets it.
        pub fn end(&mut self) {
            if self.group > 0 {
                // SAFETY: a negative pid names the process group of our own child, which is not
                // reaped yet, so the id cannot have been reused.
                unsafe { libc::kill(-self.group, libc::SIGKILL) };
                self.group = 0;
            }
            if let Some(slot) = self.slot.take() {
                GROUPS[slot].store(0, Ordering::Release);
            }
        }
    }

    impl Drop for Registered {
        fn drop(&mut self) {
            self.end();
        }
    }
}
