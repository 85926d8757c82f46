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
}

impl Output {
    /// Line by line: each line reaches the reader when it is printed.
    pub fn lines() -> Output {
        Output { out: Box::new(std::io::stdout()) }
    }

    /// Buffered: for many lines printed at once.
    pub fn buffered() -> Output {
        Output { out: Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())) }
    }

    /// Writes `text` as it is.
    pub fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.out.write_all(text.as_bytes()).map_err(stdout_error)
    }

    /// Writes `line` and a newline.
    pub fn line(&mut self, line: impl std::fmt::Display) -> Result<(), CliError> {
        writeln!(self.out, "{line}").map_err(stdout_error)
    }

    /// Flushes what is buffered (a closed pipe is not an error).
    pub fn finish(mut self) -> Result<(), CliError> {
        self.out.flush().map_err(stdout_error)
    }
}
