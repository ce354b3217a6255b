//! Standard output for every command, and what a closed stdout means.
//!
//! `ladder log | head` closes the pipe after a few lines; so does `ladder append ... | true`
//! before the first. Rust ignores SIGPIPE, so the next write fails with `BrokenPipe`, and
//! `println!` would panic (exit 101). Every command prints through [`stdout`] instead (the binary
//! denies `print!`/`println!`), whose writes mark a `BrokenPipe` with [`StdoutClosed`] so that
//! `main` can tell it from any other failure: the command stops writing at once (a long listing
//! is not computed for nobody), its work up to that point stands (an append prints only after its
//! event is stored), and the process ends quietly with exit 0 (docs/outputs.md).

use std::io::{self, Write};

/// The error a write to a closed standard output carries inside its `io::Error`.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// The locked standard output; see the module comment.
pub struct Out(io::StdoutLock<'static>);

/// Standard output, for every command's output.
pub fn stdout() -> Out {
    Out(io::stdout().lock())
}

fn mark(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        e
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(mark)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(mark)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

/// True when `err` is, somewhere in its chain, a write to a closed standard output.
pub fn is_closed_stdout(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|inner| inner.is::<StdoutClosed>())
            || e.is::<StdoutClosed>()
    })
}

/// `writeln!` to [`stdout`]: `outln!("...")?` where `println!` would panic on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::out::stdout(), $($arg)*)
    }};
}
