//! The library half of the `ladder` command: the ledger seen as a replay's history.
//!
//! `ladder-replay` reads a `History` and stores checkpoints in a `CheckpointStore`, so it needs
//! no sled; ladder-explain's [`LedgerHistory`] gives it the ledger, and [`ledger_history`] fills
//! its progress hook with this program's bars (`ladder serve` leaves it empty). Benchmarks use
//! it to replay from a real sled ledger.
#![deny(missing_docs)]

pub use ladder_explain::LedgerHistory;
use ladder_explain::Progress;
use ladder_log::Ledger;

/// A spinner counting events as they stream in (an import's total is unknown until the end),
/// hidden unless stderr is a terminal.
pub fn spinner(what: &'static str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::new_spinner().with_finish(indicatif::ProgressFinish::AndClear);
    let style = indicatif::ProgressStyle::with_template("{spinner} {msg} {human_pos} events")
        .expect("the template is valid");
    bar.set_style(style);
    bar.set_message(what);
    bar
}

/// A progress bar over `total` items, hidden unless stderr is a terminal.
pub fn progress(total: u64, what: &'static str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if total < 200_000 || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total).with_finish(indicatif::ProgressFinish::AndClear);
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {human_pos}/{human_len} events, {eta} left",
    )
    .expect("the template is valid")
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what);
    bar
}

/// The CLI's progress hook: a bar on stderr over each long read (drawn only when stderr is a
/// terminal and the read is long enough to be worth watching, see [`progress`]).
pub struct Bars;

impl Progress for Bars {
    fn start(&self, total: u64) -> Box<dyn Fn(u64)> {
        let bar = progress(total, "replaying");
        Box::new(move |n| bar.set_position(n))
    }
}

/// The ledger as a replay's history, ticking the CLI's progress bars as it is read.
pub fn ledger_history(ledger: &Ledger) -> LedgerHistory<'_> {
    LedgerHistory::with_progress(ledger, &Bars).with_folded()
}
