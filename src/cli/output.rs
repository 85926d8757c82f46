//! The one stdout writer of every subcommand. A reader that goes away (`| head -1`, `| true`)
//! ends the output quietly: the write returns [`CliError::BrokenPipe`], which exits 0 (Rust
//! ignores SIGPIPE, so a closed pipe is an `EPIPE` error here, never a signal or a panic).
//! Subcommands never use `print!`/`println!`, which panic on a closed pipe.

use std::io::Write;

use super::{stdout_error, CliError};

/// Standard output, line-buffered (progress lines appear as they are printed) or fully
/// buffered (for long outputs such as traces); flushed on [`Output::finish`].
pub struct Output {
    out: Box<dyn Write>,
    /// For [`Output::progress`]: whether a closed pipe lets the work go on.
    keep_working: bool,
    /// The reader went away (with `keep_working`): later lines are dropped.
    closed: bool,
}

impl Output {
    /// Line by line: each line reaches the reader when it is printed.
    pub fn lines() -> Output {
        Output { out: Box::new(std::io::stdout()), keep_working: false, closed: false }
    }

    /// Line by line, for lines printed while files are still to be written (a solve's table
    /// of results): a reader that goes away ends the printing, not the work, so the files are
    /// written all the same; [`Output::finish`] then reports the closed pipe (exit 0).
    pub fn progress() -> Output {
        Output { keep_working: true, ..Output::lines() }
    }

    /// Buffered: for many lines printed at once.
    pub fn buffered() -> Output {
        Output {
            out: Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())),
            keep_working: false,
            closed: false,
        }
    }

    /// Writes `text` as it is.
    pub fn text(&mut self, text: &str) -> Result<(), CliError> {
        let result = if self.closed { Ok(()) } else { self.out.write_all(text.as_bytes()) };
        self.checked(result)
    }

    /// Writes `line` and a newline.
    pub fn line(&mut self, line: impl std::fmt::Display) -> Result<(), CliError> {
        let result = if self.closed { Ok(()) } else { writeln!(self.out, "{line}") };
        self.checked(result)
    }

    fn checked(&mut self, result: std::io::Result<()>) -> Result<(), CliError> {
        match result.map_err(stdout_error) {
            Err(CliError::BrokenPipe) if self.keep_working => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }

    /// Flushes what is buffered (a closed pipe is not an error).
    pub fn finish(mut self) -> Result<(), CliError> {
        if self.closed {
            return Err(CliError::BrokenPipe);
        }
        self.out.flush().map_err(stdout_error)
    }
}
