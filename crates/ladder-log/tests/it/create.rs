//! A ledger killed while it is being created: the path then holds no ledger or a whole empty
//! one, never a half-made one that every later open refuses (`src/create.rs`).
//!
//! The child creates a ledger and appends one event. It runs under `strace`, which kills it with
//! SIGKILL on entering the N-th call of one system call (`-e inject=SYSCALL:signal=KILL:when=N`),
//! for every call that changes files (mkdir, open, write, pwrite64, rename, unlink, fsync, ...)
//! and every N until the child finishes before its N-th call: each state a kill during creation
//! can leave is visited once, deterministically. A ledger created in place, sled's `conf` written
//! with two writes, was refused for good after a kill between them (`write` number 2).
//!
//! `strace` is an outside tool: under `CI=true` (`.ci/run` installs it) this test fails without
//! it; elsewhere it says so and checks nothing.

use crate::child::{role, CHILD_ENV, LEDGER_ENV};
use crate::items;
use ladder_log::{AppendOptions, Ledger, LogError};
use std::path::Path;
use std::process::{Command, Stdio};

const TEST: &str =
    "create::a_kill_at_any_system_call_of_a_creation_leaves_no_ledger_or_a_whole_one";
const JOIN: &str = r#"{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"alice"}"#;
/// The system calls a kill is injected at: those that change files or their durability.
const CALLS: [&str; 12] = [
    "mkdir",
    "openat",
    "write",
    "pwrite64",
    "rename",
    "unlink",
    "unlinkat",
    "rmdir",
    "fsync",
    "fdatasync",
    "flock",
    "sync_file_range",
];
/// The most calls of one kind a child makes before it finishes (a bound on the loop).
const MAX_N: u32 = 200;

/// Calls of `openat` and `write` the child makes before it creates the ledger. strace counts
/// calls per thread, and the test harness's main thread makes a few of them (5 and 2) before
/// the test's thread starts: without these, a kill meant for the test thread's second `write`
/// (the middle of sled's `conf`) would strike the main thread's first.
const PAD: u32 = 8;

/// The child: creates the ledger (or opens it), appends one join, exits.
fn child_create() -> ! {
    use std::io::Write as _;
    for _ in 0..PAD {
        let mut null = std::fs::OpenOptions::new().write(true).open("/dev/null").unwrap();
        null.write_all(b"x").unwrap();
    }
    let path = std::env::var(LEDGER_ENV).expect("ledger path");
    let mut l = Ledger::open(&path).expect("the ledger opens in the child");
    l.append(items(JOIN), &AppendOptions::default()).expect("the join appends");
    println!("\nCHILD acked {}", l.head().seq);
    std::process::exit(0)
}

fn strace_runs() -> bool {
    let ok = Command::new("strace").arg("-V").output().is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var("CI").as_deref() != Ok("true"),
        "strace is missing and CI=true (.ci/run installs it)"
    );
    ok
}

/// The entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs the child under strace, killed at the `n`-th `call`; true when it was killed.
fn run_killed(ledger: &Path, call: &str, n: u32) -> (bool, bool) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-e"])
        .arg(format!("inject={call}:signal=KILL:when={n}"))
        .arg(exe)
        .args([TEST, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, "create")
        .env(LEDGER_ENV, ledger)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .expect("strace starts");
    let acked = String::from_utf8_lossy(&out.stdout).contains("CHILD acked 1");
    (!out.status.success(), acked)
}

#[test]
fn a_kill_at_any_system_call_of_a_creation_leaves_no_ledger_or_a_whole_one() {
    if role().as_deref() == Some("create") {
        child_create();
    }
    if !strace_runs() {
        eprintln!("strace is not installed: the kills during creation were not run");
        return;
    }
    let (mut kills, mut refused) = (0, Vec::new());
    for call in CALLS {
        let first = if matches!(call, "openat" | "write") { PAD + 1 } else { 1 };
        for n in first..=MAX_N {
            let dir = tempfile::tempdir().unwrap();
            let ledger = dir.path().join("ledger");
            // Every other run the path is an empty directory already (a user's `mkdir`).
            let made = n % 2 == 0;
            if made {
                std::fs::create_dir(&ledger).unwrap();
            }
            let (killed, acked) = run_killed(&ledger, call, n);
            if !killed {
                assert!(acked, "{call} #{n}: the child failed without being killed");
                break;
            }
            kills += 1;
            // What the kill left: no ledger (nothing, or the empty directory made before), or a
            // whole one that a reader opens, never a refused one.
            let left = names(dir.path());
            match Ledger::open_existing(&ledger) {
                Ok(l) => assert!(l.head().seq <= 1, "{call} #{n}: {}", l.head()),
                // What a user made stays as they made it: empty.
                Err(LogError::NoLedger { .. }) if made && !names(&ledger).is_empty() => refused
                    .push(format!("{call} #{n}: left {:?} in the empty directory", names(&ledger))),
                Err(LogError::NoLedger { .. }) => {}
                Err(e) => refused.push(format!("{call} #{n}: left {left:?}; refused: {e}")),
            }
            // The next open for writing opens or creates it, holds what was acknowledged, and
            // removes what the killed creation left beside it.
            let mut l = match Ledger::open(&ledger) {
                Ok(l) => l,
                Err(e) => {
                    refused.push(format!("{call} #{n}: left {left:?}; open refused: {e}"));
                    continue;
                }
            };
            assert!(l.head().seq >= u64::from(acked), "{call} #{n}: acked, then {}", l.head());
            l.append(items(JOIN), &AppendOptions::default()).unwrap();
            assert_eq!(l.head().seq, 1, "{call} #{n}");
            l.verify(None).unwrap();
            drop(l);
            assert_eq!(names(dir.path()), ["ledger"], "{call} #{n}: left beside the ledger");
        }
    }
    eprintln!("{kills} kills during creation, {} refused", refused.len());
    assert!(
        refused.is_empty(),
        "{} kills left a refused ledger:\n{}",
        refused.len(),
        refused.join("\n")
    );
    assert!(kills > 20, "only {kills} kills: the child ran too few system calls to test");
}

/// The path as a user may give it: an empty directory made beforehand keeps its permissions, a
/// directory holding other files is refused for creating (naming the directory and a file in
/// it) and left exactly as it was, and read as no ledger; a lock file alone (what a kill left in
/// a user's empty directory before creations were whole) does not count as another file; a temporary
/// directory a killed creation left beside the path is removed by the next open for writing
/// and left by a reader, and a file at the path is refused as before.
#[test]
fn an_empty_directory_keeps_its_mode_and_leftovers_are_removed_by_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("made");
    std::fs::create_dir(&made).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o700)).unwrap();
        drop(Ledger::open(&made).unwrap());
        let mode = std::fs::metadata(&made).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
    #[cfg(not(unix))]
    drop(Ledger::open(&made).unwrap());
    assert_eq!(Ledger::open_existing(&made).unwrap().head().seq, 0);

    let busy = dir.path().join("busy");
    std::fs::create_dir_all(busy.join("photos")).unwrap();
    std::fs::write(busy.join("notes.txt"), "mine").unwrap();
    std::fs::write(busy.join("ladder-lock"), "").unwrap();
    let e = Ledger::open(&busy).unwrap_err();
    assert!(matches!(e, LogError::NotALedgerDirectory { .. }), "{e:?}");
    let text = e.to_string();
    // The smallest foreign name, every time; the lock file is a ledger's own.
    assert!(
        text.contains(&busy.display().to_string()) && text.contains("(notes.txt, ...)"),
        "{text}"
    );
    assert!(matches!(Ledger::open_existing(&busy), Err(LogError::NoLedger { .. })));
    assert_eq!(names(&busy), ["ladder-lock", "notes.txt", "photos"]);
    assert_eq!(std::fs::read_to_string(busy.join("notes.txt")).unwrap(), "mine");

    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("ladder-lock"), "").unwrap();
    let mut l = Ledger::open(&locked).unwrap();
    l.append(items(JOIN), &AppendOptions::default()).unwrap();
    drop(l);
    assert_eq!(Ledger::open_existing(&locked).unwrap().head().seq, 1);

    // What a creation killed before its rename leaves: a directory with a lock file nobody
    // holds, and sled's files half made.
    let left = dir.path().join(".made.ladder-creating-999999-0");
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("ladder-lock"), "").unwrap();
    std::fs::write(left.join("conf"), "segment_size: 524288\n").unwrap();
    drop(Ledger::open_existing(&made).unwrap());
    assert!(left.exists(), "a reader removed it");
    drop(Ledger::open(&made).unwrap());
    assert!(!left.exists(), "the open for writing left it");

    let file = dir.path().join("file");
    std::fs::write(&file, "not a ledger").unwrap();
    assert!(Ledger::open(&file).is_err());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a ledger");
    assert_eq!(names(dir.path()), ["busy", "file", "locked", "made"]);
}

/// A storage failure while the ledger is built (a full disk, a read-only directory, injected at
/// each of the creation's first writes) names the ledger's path, leaves no ledger and nothing
/// beside it, and the next open creates it.
#[test]
fn a_failure_while_creating_names_the_ledger_and_leaves_nothing() {
    for kind in [std::io::ErrorKind::StorageFull, std::io::ErrorKind::ReadOnlyFilesystem] {
        for writes in 0..2 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("ledger");
            let faults = ladder_log::InjectedFaults {
                free_space: None,
                fail_after_writes: Some(writes),
                kind,
            };
            let e = Ledger::open_injected(&path, faults).unwrap_err();
            let text = e.to_string();
            assert!(text.contains(&path.display().to_string()), "{kind:?} {writes}: {text}");
            assert!(!text.contains("ladder-creating"), "{kind:?} {writes}: {text}");
            assert_eq!(names(dir.path()), Vec::<String>::new(), "{kind:?} {writes}");
            assert_eq!(Ledger::open(&path).unwrap().head().seq, 0);
        }
    }
}
