//! Cross-module tests of the ledger: the append rules, the model property test, tamper evidence,
//! the process lock and crash safety.

mod blobs;
mod child;
mod crash;
mod create;
mod discard;
mod faults;
mod folded;
mod fuzz_corpus;
mod integrity;
mod leaves;
mod lock;
mod model;
mod pipeline;
mod rules;
mod tamper;

use ladder_events::json::parse_line;
use ladder_events::{Event, Violation};
use ladder_log::{
    AppendOptions, AppendReport, Entry, Ledger, LogError, SledStore, Store, Tree, Value, Write,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Input items from JSON Lines (blank lines skipped), parse errors as `Err`.
pub fn items(text: &str) -> Vec<Result<Event, Violation>> {
    text.lines().filter(|l| !l.trim().is_empty()).map(parse_line).collect()
}

/// Events from JSON Lines that must parse.
pub fn events(text: &str) -> Vec<Event> {
    items(text).into_iter().map(|r| r.expect("test line parses")).collect()
}

/// Every stored event as its canonical JSON line.
pub fn stored_lines(ledger: &Ledger) -> Vec<String> {
    ledger
        .events(1)
        .map(|r| ladder_events::json::to_line(&r.expect("stored event reads").event))
        .collect()
}

/// Appends JSON Lines with options, expecting success.
pub fn append_ok(ledger: &mut Ledger, text: &str, opts: AppendOptions) -> AppendReport {
    ledger.append(items(text), &opts).unwrap_or_else(|e| panic!("append refused: {e}"))
}

/// Writes the ledger's head file (`ladder-head`) by hand, recording `head` and no seals, as a
/// tamperer who rewrote sled's head record would also rewrite it. The format is the one
/// `src/headfile.rs` documents; the check line is computed here from that description.
pub fn forge_head_file(path: &std::path::Path, head: ladder_log::Head) {
    let body = format!("ladder ledger\nformat {}\nhead {head}\n", ladder_log::LEDGER_FORMAT);
    let check = blake3::hash(body.as_bytes()).to_hex();
    std::fs::write(path.join("ladder-head"), format!("{body}check {check}\n")).unwrap();
}

/// Opens a ledger's sled database directly (to tamper with it), retrying while sled's threads of
/// an instance just dropped still hold the lock.
pub fn raw_sled(path: &std::path::Path) -> sled::Db {
    let start = std::time::Instant::now();
    loop {
        match sled::open(path) {
            Ok(db) => return db,
            Err(e) if start.elapsed() < std::time::Duration::from_secs(2) => {
                let _ = e;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("sled opens {}: {e}", path.display()),
        }
    }
}

/// Opens the ledger at `path` with no faults and checks it after a fault: the chain verifies,
/// and the stored events are the first `acked` of `expected` (or, after an unconfirmed commit,
/// possibly `unconfirmed` more: all or nothing of the failed group). Returns how many are stored.
pub fn check_after_fault(
    path: &std::path::Path,
    expected: &[String],
    acked: usize,
    unconfirmed: usize,
) -> usize {
    let l = Ledger::open(path).unwrap_or_else(|e| panic!("the ledger reopens: {e}"));
    let head = l.verify(None).unwrap_or_else(|e| panic!("verify after a fault: {e}"));
    let stored: Vec<String> =
        l.events(1).map(|e| ladder_events::json::to_line(&e.unwrap().event)).collect();
    assert_eq!(stored.len() as u64, head.seq);
    let n = stored.len();
    assert!(n == acked || n == acked + unconfirmed, "acked {acked}, stored {n}");
    assert_eq!(stored[..], expected[..n], "the stored events are not the input's prefix");
    n
}

/// Which operation a [`Switched`] store fails while its switch is on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Failing {
    /// Every flush: a commit's syncs failing.
    Flush,
    /// Scans of the facts tree: the players index, which opening leaves for its first use,
    /// cannot be read.
    FactsScan,
}

/// A sled store that fails one kind of operation ([`Failing`]) while `on` is set, with a
/// storage error naming `path`, and passes everything else through.
pub struct Switched {
    /// The store every operation goes to unless it fails.
    pub inner: SledStore,
    /// The path the injected error names.
    pub path: PathBuf,
    /// The switch: the operation fails while it is set.
    pub on: Arc<AtomicBool>,
    /// The operation that fails.
    pub failing: Failing,
}

impl Switched {
    fn fails(&self, failing: Failing) -> bool {
        self.failing == failing && self.on.load(Ordering::SeqCst)
    }
}

impl Store for Switched {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
        self.inner.get(tree, key)
    }
    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
        self.inner.insert(tree, key, value)
    }
    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
        self.inner.remove(tree, key)
    }
    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
        self.inner.apply(tree, writes)
    }
    fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
        self.inner.last_at_or_before(tree, key)
    }
    fn scan<'a>(
        &'a self,
        tree: Tree,
        from: &[u8],
    ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
        if tree == Tree::Facts && self.fails(Failing::FactsScan) {
            let source = std::io::Error::other("injected: the facts tree cannot be read");
            return Box::new(std::iter::once(Err(LogError::from_io(
                &self.path,
                "scanning the facts tree",
                source,
            ))));
        }
        self.inner.scan(tree, from)
    }
    fn flush(&self) -> Result<(), LogError> {
        if self.fails(Failing::Flush) {
            let source = std::io::Error::other("injected: the flush failed");
            return Err(LogError::from_io(&self.path, "flushing", source));
        }
        self.inner.flush()
    }
    fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        self.inner.size_on_disk()
    }
}
