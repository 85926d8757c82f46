//! External players: a program that answers one JSON line per decision
//! (docs/external-players.md), as chess engines speak UCI.
//!
//! One process per player and match, started at its first decision and ended with the match.
//! Its answers are read by a thread, so a program that hangs is given up after the timeout;
//! the last lines it wrote to stderr are kept for the error message.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::spec::ExternalParams;
use crate::engine::{Pit, PitSet, Position, Rng, Side};

/// Version of the protocol, sent with every decision.
pub const PROTOCOL: u32 = 1;
/// Lines of the program's stderr kept for error messages.
const STDERR_LINES: usize = 5;
/// Longest answer shown in an error message.
const SHOWN: usize = 200;

/// Why an external player could not decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    #[error("cannot start external player '{command}': {reason}")]
    Start { command: String, reason: String },
    #[error("external player '{command}' exited ({status}) without answering{stderr}")]
    Exited { command: String, status: String, stderr: String },
    #[error("external player '{command}' gave no answer within {seconds} s (the timeout; external:timeout=S,cmd=... sets it){stderr}")]
    Timeout { command: String, seconds: String, stderr: String },
    #[error("external player '{command}' answered {answer:?}, which is not a JSON object with an integer \"pit\" ({reason})")]
    Garbage { command: String, answer: String, reason: String },
    #[error("external player '{command}' played pit {pit}, which is not legal; legal pits: {legal}")]
    Illegal { command: String, pit: i64, legal: String },
    /// A host player (`python:NAME`, see `host.rs`) failed or played an illegal pit.
    #[error("Python player 'python:{name}': {reason}")]
    Host { name: String, reason: String },
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

#[derive(serde::Deserialize)]
struct Answer {
    pit: i64,
}

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Lines of stdout; None once it is closed.
    answers: Receiver<Option<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin lets a well-behaved program end; the kill ends any other.
        drop(self.stdin.take());
        let _ = self.child.kill();
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

    fn start(&self) -> Result<Process, PlayerError> {
        let argv = self.params.argv();
        let mut child = Command::new(argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| PlayerError::Start { command: self.command(), reason: e.to_string() })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Some(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(None);
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                let mut k = kept.lock().expect("stderr lines");
                if k.len() == STDERR_LINES {
                    k.pop_front();
                }
                k.push_back(line);
            }
        });
        Ok(Process { stdin: child.stdin.take(), child, answers, stderr })
    }

    /// Asks the program for its move. None: no legal move (the program is not asked).
    pub(crate) fn choose(
        &mut self,
        pos: &Position,
        round: Option<u32>,
        ply: Option<u32>,
        rng: &mut Rng,
    ) -> Result<Option<Pit>, PlayerError> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Ok(None);
        }
        let p = pos.rules().pits_per_row;
        let open = pos.open();
        let closed =
            (0..2 * p as usize).filter(|&g| !open[Side::from_index(g / p as usize)].contains(Pit::new_unchecked(g % p as usize))).collect();
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
        let answer = self.exchange(&line);
        if answer.is_err() {
            // A program that failed once is not asked again.
            self.process = None;
        }
        let answer = answer?;
        let parsed: Answer = serde_json::from_str(&answer).map_err(|e| PlayerError::Garbage {
            command: self.command(),
            answer: answer.chars().take(SHOWN).collect(),
            reason: e.to_string(),
        })?;
        match usize::try_from(parsed.pit).ok().and_then(|i| Pit::new(i, p)).filter(|&pit| legal.contains(pit)) {
            Some(pit) => Ok(Some(pit)),
            None => {
                self.process = None;
                Err(PlayerError::Illegal { command: self.command(), pit: parsed.pit, legal: legal_list(legal) })
            }
        }
    }

    /// Writes one request line and waits for one answer line.
    fn exchange(&mut self, line: &str) -> Result<String, PlayerError> {
        let timeout = Duration::from_millis(self.params.timeout_ms as u64);
        let command = self.command();
        let process = self.process.as_mut().expect("started");
        let written = process.stdin.as_mut().map(|s| s.write_all(line.as_bytes()).and_then(|_| s.flush()));
        if !matches!(written, Some(Ok(()))) {
            return Err(process.exited(command));
        }
        match process.answers.recv_timeout(timeout) {
            Ok(Some(answer)) => Ok(answer),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(process.exited(command)),
            Err(RecvTimeoutError::Timeout) => {
                let _ = process.child.kill();
                Err(PlayerError::Timeout { command, seconds: format!("{}", timeout.as_secs_f64()), stderr: process.stderr_tail() })
            }
        }
    }
}

impl Process {
    /// The error of a program that closed its pipes: its exit status if it ended.
    fn exited(&mut self, command: String) -> PlayerError {
        // The pipes close as the process exits; give it a moment to be reaped.
        let mut status = None;
        for _ in 0..100 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let status = status.map_or("closed its output, still running".to_string(), |s| s.to_string());
        // The stderr reader may still be taking the last lines.
        std::thread::sleep(Duration::from_millis(20));
        PlayerError::Exited { command, status, stderr: self.stderr_tail() }
    }

    fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().expect("stderr lines");
        if lines.is_empty() {
            String::new()
        } else {
            format!("; its last stderr lines: {}", lines.iter().cloned().collect::<Vec<_>>().join(" | "))
        }
    }
}

fn legal_list(legal: PitSet) -> String {
    if legal.is_empty() {
        "none".into()
    } else {
        legal.to_string()
    }
}
