//! sled lets one process open a ledger: a second process gets `Locked`, not a hang, also while
//! the holder's head file is in the slot layout (what it reads before the lock). (How fast the
//! refusal comes is not asserted here: speed lives in benchmarks; the 30 s bound below only turns
//! a hang into a failure instead of a stuck test run.)

use crate::child::{role, spawn, LEDGER_ENV};
use ladder_log::{Ledger, LogError};
use std::io::Read;
use std::time::{Duration, Instant};

const TEST: &str = "lock::a_second_process_is_refused_at_once";

#[test]
fn a_second_process_is_refused_at_once() {
    if role().as_deref() == Some("open") {
        // The child: try to open the ledger the parent holds and say what happened.
        let path = std::env::var(LEDGER_ENV).expect("the parent names the ledger");
        let outcome = match Ledger::open(&path) {
            Err(LogError::Locked { path: p }) => {
                format!("locked {} {}", p.display(), LogError::Locked { path: p.clone() })
            }
            Err(e) => format!("other error: {e}"),
            Ok(_) => "opened".to_string(),
        };
        println!("\nCHILD {outcome}");
        std::process::exit(0);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut held = Ledger::open(&path).unwrap();
    // A commit, so the head file the child reads before the lock is in the slot layout.
    crate::append_ok(
        &mut held,
        "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"alice\"}\n",
        ladder_log::AppendOptions::default(),
    );
    let head = std::fs::read(path.join(ladder_log::HEAD_FILE)).unwrap();
    assert!(!head.starts_with(b"ladder ledger\n"), "the head file is in the slot layout");
    let start = Instant::now();
    let mut child = spawn(TEST, "open", &path, None);
    // Bounded wait: a hang is a failure, not a stuck test run.
    let deadline = start + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the second process hung on the lock");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(status.success(), "child failed: {out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("CHILD "))
        .unwrap_or_else(|| panic!("no report in {out:?}"));
    assert_eq!(line.split_whitespace().nth(1), Some("locked"), "{line}");
    assert!(
        line.contains(&format!("the ledger {} is in use by another process", path.display())),
        "{line}"
    );
    // Once the holder closes it, the ledger opens again.
    drop(held);
    assert_eq!(Ledger::open(&path).unwrap().head().seq, 1);
}
