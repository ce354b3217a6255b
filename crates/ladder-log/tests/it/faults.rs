//! Storage faults: a full disk and a read-only ledger, each met with a clear error naming the
//! ledger and what to do; the failed append is refused whole, and afterwards the chain verifies
//! and every acknowledged event is there.
//!
//! Two ways of causing them:
//! - **Real**, when this process may mount (root with CAP_SYS_ADMIN, as in the development
//!   sandbox and in CI, where a refused mount fails the test under `CI=true`): a size-limited tmpfs filled until sled gets ENOSPC, and a read-only bind mount of a
//!   ledger directory. sled then sees the kernel's errors.
//! - **Injected**, always: [`Faulty`] wraps the real sled store and, after a random number of
//!   writes, fails every further write with the io error a full disk or a read-only remount gives
//!   (a file system cannot be made read-only under open files, so "made read-only while open" is
//!   only possible this way). Faults land everywhere: inside a batch, at the flush, at the commit
//!   record, at the tail merge, at open.
//!
//! Each test prints its counts (faults injected, events acknowledged, events lost: always 0).
//! `LADDER_FAULTS=N` raises the injected count for a long run (docs/GUARANTEES.md).

use crate::child::{role, spawn, LEDGER_ENV};
use crate::crash::{input, Rng};
use crate::items;
use ladder_events::json::to_line;
use ladder_log::{
    AppendError, AppendOptions, Entry, InjectedFaults, Ledger, LogError, SledStore, Store, Tree,
    Value, Write, MIN_FREE_BYTES,
};
use std::io::{BufRead, BufReader, ErrorKind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI64, Ordering};

/// A store that fails every write once its budget of writes is spent, with the io error `kind`.
struct Faulty {
    inner: SledStore,
    path: PathBuf,
    budget: AtomicI64,
    kind: ErrorKind,
}

impl Faulty {
    fn write(&self, what: &str) -> Result<(), LogError> {
        if self.budget.fetch_sub(1, Ordering::SeqCst) > 0 {
            return Ok(());
        }
        let source = std::io::Error::new(self.kind, format!("injected {:?}", self.kind));
        Err(LogError::from_io(&self.path, what, source))
    }
}

impl Store for Faulty {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
        self.inner.get(tree, key)
    }
    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
        self.write("writing")?;
        self.inner.insert(tree, key, value)
    }
    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
        self.write("removing")?;
        self.inner.remove(tree, key)
    }
    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
        self.write("writing a batch")?;
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
        self.inner.scan(tree, from)
    }
    fn flush(&self) -> Result<(), LogError> {
        self.write("flushing")?;
        self.inner.flush()
    }
    fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        self.inner.size_on_disk()
    }
}

/// The input's events as canonical lines, and as JSON Lines to append.
fn stream() -> (Vec<String>, Vec<String>) {
    let text = input();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let canonical = items(&text).into_iter().map(|r| to_line(&r.unwrap())).collect();
    (lines, canonical)
}

/// Checks a fault's error: the right kind, naming the ledger, saying what to do.
fn check_message(e: &LogError, kind: ErrorKind, path: &Path) {
    let text = e.to_string();
    let named = text.contains(&path.display().to_string());
    match (kind, e) {
        (ErrorKind::StorageFull, LogError::Full { .. }) => {
            assert!(named && text.contains("free disk space"), "{text}")
        }
        (ErrorKind::ReadOnlyFilesystem, LogError::ReadOnly { .. }) => {
            assert!(named && text.contains("make it writable"), "{text}")
        }
        _ => panic!("a {kind:?} fault gave {e:?}"),
    }
}

/// Opens the ledger with no faults and checks the promise: the chain verifies, and the stored
/// events are the input's first `acked` (or, after an unconfirmed commit, possibly the whole
/// failed batch more: all or nothing of it). Returns how many are stored.
fn check_after(path: &Path, expected: &[String], acked: usize, unconfirmed: usize) -> usize {
    let l = Ledger::open(path).unwrap_or_else(|e| panic!("the ledger reopens: {e}"));
    let head = l.verify(None).unwrap_or_else(|e| panic!("verify after a fault: {e}"));
    let stored: Vec<String> = l.events(1).map(|e| to_line(&e.unwrap().event)).collect();
    assert_eq!(stored.len() as u64, head.seq);
    let n = stored.len();
    assert!(n == acked || n == acked + unconfirmed, "acked {acked}, stored {n}");
    assert_eq!(stored[..], expected[..n], "the stored events are not the input's prefix");
    n
}

/// Injected faults of `kind`: each round opens the ledger through [`Faulty`] with a random budget
/// and appends random batches until the fault strikes. Returns (faults, events stored at the end,
/// lost), and prints where the faults struck.
fn injected(kind: ErrorKind, seed: u64, rounds: usize) -> (usize, usize, usize) {
    injected_at(kind, seed, rounds, Level::AboveTheStore)
}

/// Where a fault is injected: by a [`Store`] wrapped around the sled store (the ledger's own
/// handling), or inside the sled store in place of a sled write (the store's handling too: after
/// its first failure it no longer touches sled).
#[derive(Clone, Copy, PartialEq)]
enum Level {
    AboveTheStore,
    BelowTheStore,
}

fn injected_at(kind: ErrorKind, seed: u64, rounds: usize, level: Level) -> (usize, usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let (lines, expected) = stream();
    let mut rng = Rng(seed);
    let (mut faults, mut stored, mut lost) = (0, 0, 0);
    let (mut at_open, mut in_batch, mut at_commit) = (0, 0, 0);
    for _ in 0..rounds {
        if stored == lines.len() {
            std::fs::remove_dir_all(&path).unwrap();
            stored = 0;
        }
        let budget = rng.below(150) as i64;
        let wrap = |inner: SledStore| -> Box<dyn Store> {
            Box::new(Faulty { inner, path: path.clone(), budget: AtomicI64::new(budget), kind })
        };
        let (acked, mut unconfirmed) = (stored, 0);
        let opened = match level {
            Level::AboveTheStore => Ledger::open_with(&path, wrap),
            Level::BelowTheStore => Ledger::open_injected(
                &path,
                InjectedFaults { free_space: None, fail_after_writes: Some(budget as u64), kind },
            ),
        };
        let struck = match opened {
            Err(e) => {
                at_open += 1;
                check_message(&e, kind, &path);
                true
            }
            Ok(mut l) => loop {
                let n = (1 + rng.below(100) as usize).min(lines.len() - stored);
                let batch = lines[stored..stored + n].join("\n");
                match l.append(items(&batch), &AppendOptions::default()) {
                    Ok(r) => {
                        assert_eq!(r.head.seq as usize, stored + n);
                        stored += n;
                        if stored == lines.len() {
                            break false;
                        }
                    }
                    Err(AppendError::Storage(e)) => {
                        in_batch += 1;
                        check_message(&e, kind, &path);
                        break true;
                    }
                    Err(AppendError::Unconfirmed(e)) => {
                        at_commit += 1;
                        unconfirmed = n;
                        check_message(&e, kind, &path);
                        // The handle refuses further appends, as poisoned (not as corrupt).
                        let again = l.append(items(&lines[0]), &AppendOptions::default());
                        assert!(
                            matches!(again, Err(AppendError::Storage(LogError::Poisoned))),
                            "{again:?}"
                        );
                        break true;
                    }
                    Err(e) => panic!("{e}"),
                }
            },
        };
        faults += usize::from(struck);
        let acked_now = stored.max(acked);
        let n = check_after(&path, &expected, acked_now, unconfirmed);
        lost += acked_now.saturating_sub(n);
        stored = n;
    }
    eprintln!(
        "{kind:?}: faults at open {at_open}, inside a batch {in_batch}, at the commit {at_commit}"
    );
    (faults, stored, lost)
}

fn rounds() -> usize {
    std::env::var("LADDER_FAULTS").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

#[test]
fn injected_full_disk_faults_refuse_the_append_whole_and_lose_nothing() {
    let (faults, acked, lost) = injected(ErrorKind::StorageFull, 0x51ed_270b_a3f1_d2c5, rounds());
    assert_eq!(lost, 0);
    eprintln!(
        "full disk (injected): {faults} faults, {acked} events stored at the end, {lost} lost"
    );
}

/// The same faults injected inside the sled store, in place of sled's writes: the store's own
/// promise (after its first failure it touches sled no more) is tested on every machine.
#[test]
fn faults_below_the_store_refuse_the_append_whole_and_lose_nothing() {
    for (kind, seed) in
        [(ErrorKind::StorageFull, 0x2545_f491), (ErrorKind::ReadOnlyFilesystem, 0x9e37)]
    {
        let (faults, acked, lost) = injected_at(kind, seed, rounds(), Level::BelowTheStore);
        assert_eq!(lost, 0);
        assert!(faults > 0, "{kind:?}: no fault struck");
        eprintln!("{kind:?} below the store: {faults} faults, {acked} events stored, {lost} lost");
    }
}

/// A free-space figure below [`MIN_FREE_BYTES`] refuses the open before sled or the head file is
/// touched: an existing ledger stays byte for byte as it was, and a new one is not created.
#[test]
fn too_little_free_space_refuses_the_open_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let (lines, _) = stream();
    {
        let mut l = Ledger::open(&path).unwrap();
        l.append(items(&lines[..50].join("\n")), &AppendOptions::default()).unwrap();
    }
    let snapshot = |p: &Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| f.is_file())
            .map(|f| (f.display().to_string(), std::fs::read(&f).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = snapshot(&path);
    let low = InjectedFaults {
        free_space: Some(MIN_FREE_BYTES - 1),
        fail_after_writes: None,
        kind: ErrorKind::StorageFull,
    };
    for _ in 0..2 {
        let e = Ledger::open_injected(&path, low).unwrap_err();
        check_message(&e, ErrorKind::StorageFull, &path);
        assert!(snapshot(&path) == before, "a refused open wrote to the ledger");
    }
    let fresh = dir.path().join("new");
    assert!(Ledger::open_injected(&fresh, low).is_err());
    assert!(!fresh.exists(), "a refused open created a ledger");
    assert_eq!(Ledger::open(&path).unwrap().head().seq, 50);
}

#[test]
fn injected_read_only_faults_refuse_the_append_whole_and_lose_nothing() {
    let (faults, acked, lost) =
        injected(ErrorKind::ReadOnlyFilesystem, 0x2f6b_93a0_c1d4_e587, rounds());
    assert_eq!(lost, 0);
    eprintln!(
        "read-only (injected): {faults} faults, {acked} events stored at the end, {lost} lost"
    );
}

/// A mount made by this test, unmounted when dropped.
struct Mount(PathBuf);

impl Mount {
    /// Runs `mount ARGS... TARGET`; `None` when this process may not mount. Under `CI=true` a
    /// refused mount fails the test instead: CI runs as root, so the real faults must run there.
    fn new(args: &[&str], target: &Path) -> Option<Mount> {
        std::fs::create_dir_all(target).unwrap();
        let out = Command::new("mount").args(args).arg(target).output();
        let ok = out.as_ref().is_ok_and(|o| o.status.success());
        assert!(
            ok || std::env::var("CI").as_deref() != Ok("true"),
            "mount {args:?} failed and CI=true (CI runs as root, so it may mount): {out:?}"
        );
        ok.then(|| Mount(target.to_path_buf()))
    }

    fn remount(&self, options: &str) {
        let out = Command::new("mount").args(["-o", options]).arg(&self.0).output().unwrap();
        assert!(out.status.success(), "remount {options}: {out:?}");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

/// Event `i` of the tmpfs test: a join, then timeouts with long ids (250 bytes), so a few
/// megabytes fill with some tens of thousands of events.
fn fill_line(i: usize) -> String {
    let t0 = 1_772_323_200i64; // 2026-03-01T00:00:00Z
    let at = ladder_events::Timestamp((t0 + 1 + i as i64) * 1_000_000_000);
    if i == 0 {
        return format!(r#"{{"type":"PlayerJoined","at":"{at}","player":"p"}}"#);
    }
    let id = format!("{i:0>250}");
    format!(r#"{{"type":"QueueTimeout","at":"{at}","id":"{id}","player":"p"}}"#)
}

/// The child of the tmpfs test: from the ledger's head, appends batches of 200 until the disk is
/// full, printing each acknowledged head and then the error.
fn child_fill() -> ! {
    let path = PathBuf::from(std::env::var(LEDGER_ENV).unwrap());
    let mut l = match Ledger::open(&path) {
        Ok(l) => l,
        Err(e) => {
            println!("\nCHILD open-error {e}");
            std::process::exit(0)
        }
    };
    loop {
        let at = l.head().seq as usize;
        let batch: Vec<String> = (at..at + 200).map(fill_line).collect();
        match l.append(items(&batch.join("\n")), &AppendOptions::default()) {
            Ok(r) => println!("\nCHILD acked {}", r.head.seq),
            Err(e) => {
                if matches!(e, AppendError::Unconfirmed(_)) {
                    println!("\nCHILD unconfirmed");
                }
                let cause = std::error::Error::source(&e).map(|s| format!(": {s}"));
                println!("\nCHILD message {e}{}", cause.unwrap_or_default());
                // Closing after ENOSPC once hung forever in sled's flush-on-drop.
                drop(l);
                println!("\nCHILD closed");
                std::process::exit(0)
            }
        }
    }
}

const FILL: &str = "faults::a_full_tmpfs_refuses_the_append_whole_and_loses_nothing";

#[test]
fn a_full_tmpfs_refuses_the_append_whole_and_loses_nothing() {
    if role().as_deref() == Some("fill") {
        child_fill();
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    let Some(mount) = Mount::new(&["-t", "tmpfs", "-o", "size=8m", "tmpfs"], &mnt) else {
        eprintln!("full disk: mounting a tmpfs is not permitted here; injected faults instead");
        let (faults, _, lost) = injected(ErrorKind::StorageFull, 0x9e37_79b9, 8);
        assert_eq!(lost, 0);
        eprintln!("full disk (injected instead): {faults} faults, {lost} lost");
        return;
    };
    let ledger = mnt.join("ledger");
    let shown = ledger.display().to_string();
    let (mut faults, mut acked, mut size_mb) = (0, 0usize, 8);
    for _ in 0..3 {
        // The child fills the disk; its acknowledged heads and its error come back on stdout.
        let mut child = spawn(FILL, "fill", &ledger, None);
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(out).lines().map_while(Result::ok).collect::<Vec<String>>()
        });
        // Bounded wait: a hang (closing the ledger after ENOSPC) is a failure, not a stuck run.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("the child hung after the disk filled");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let lines = reader.join().unwrap();
        assert!(lines.iter().any(|l| l == "CHILD closed"), "the child did not close: {lines:?}");
        let (mut message, mut unconfirmed) = (String::new(), false);
        for line in lines {
            if let Some(seq) = line.strip_prefix("CHILD acked ") {
                acked = seq.parse().unwrap();
            } else if let Some(m) = line.strip_prefix("CHILD message ") {
                message = m.to_string();
            } else if line == "CHILD unconfirmed" {
                unconfirmed = true;
            } else if let Some(m) = line.strip_prefix("CHILD open-error ") {
                panic!("the ledger did not open with {size_mb} MB: {m}");
            }
        }
        assert!(child.wait().unwrap().success());
        faults += 1;
        assert!(
            message.contains(&format!("no space left for the ledger {shown}"))
                && message.contains("free disk space"),
            "{message}"
        );
        // While the disk is full, opening is refused before sled writes anything.
        match Ledger::open(&ledger) {
            Err(e @ LogError::Full { .. }) => assert!(e.to_string().contains(&shown), "{e}"),
            other => panic!("opening on a full disk: {other:?}"),
        }
        // Free space, then: the chain verifies and every acknowledged event is there, the
        // refused batch not at all (or, had the commit record failed, whole).
        size_mb += 8;
        mount.remount(&format!("remount,size={size_mb}m"));
        let l = Ledger::open(&ledger).unwrap();
        let n = l.verify(None).unwrap().seq as usize;
        assert!(n == acked || (unconfirmed && n == acked + 200), "acked {acked}, stored {n}");
        let want: Vec<String> = items(&(0..n).map(fill_line).collect::<Vec<_>>().join("\n"))
            .into_iter()
            .map(|r| to_line(&r.unwrap()))
            .collect();
        let stored: Vec<String> = l.events(1).map(|e| to_line(&e.unwrap().event)).collect();
        assert!(stored == want, "the stored events are not the acknowledged ones");
        acked = n;
    }
    eprintln!("full disk (tmpfs): {faults} faults, {acked} events acknowledged, 0 lost");
}

#[test]
fn a_read_only_ledger_is_refused_with_a_clear_message_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let ledger = src.join("ledger");
    let (lines, expected) = stream();
    let mut l = Ledger::open(&ledger).unwrap();
    l.append(items(&lines[..500].join("\n")), &AppendOptions::default()).unwrap();
    drop(l);
    let view = dir.path().join("view");
    let bind = Mount::new(&["--bind", src.to_str().unwrap()], &view);
    let Some(bind) = bind else {
        eprintln!("read-only: mounting is not permitted here; the injected faults cover it");
        let faulty = Faulty {
            inner: SledStore::open(&ledger).unwrap(),
            path: ledger.clone(),
            budget: AtomicI64::new(0),
            kind: ErrorKind::ReadOnlyFilesystem,
        };
        let mut l = Ledger::with_store(Box::new(faulty), Some(ledger.clone())).unwrap();
        let Err(AppendError::Storage(e)) =
            l.append(items(&lines[500..600].join("\n")), &AppendOptions::default())
        else {
            panic!("the append was not refused")
        };
        check_message(&e, ErrorKind::ReadOnlyFilesystem, &ledger);
        drop(l);
        check_after(&ledger, &expected, 500, 0);
        return;
    };
    bind.remount("remount,bind,ro");
    let ro = view.join("ledger");
    // sled opens a ledger for writing even to read it: the open is refused, clearly.
    match Ledger::open(&ro) {
        Err(e) => check_message(&e, ErrorKind::ReadOnlyFilesystem, &ro),
        Ok(_) => panic!("a read-only ledger opened for writing"),
    }
    drop(bind);
    // Nothing was touched: the ledger verifies with its 500 events, and takes the rest.
    assert_eq!(check_after(&ledger, &expected, 500, 0), 500);
    let mut l = Ledger::open(&ledger).unwrap();
    l.append(items(&lines[500..].join("\n")), &AppendOptions::default()).unwrap();
    assert_eq!(l.verify(None).unwrap().seq as usize, expected.len());
    eprintln!("read-only (bind mount): 1 fault, 500 events acknowledged, 0 lost");
}

/// Event `i` of the bulk test: 200 joins, then matches with 60-byte ids, like a big CSV import.
fn bulk_line(i: usize) -> String {
    if i < 200 {
        return format!(r#"{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"p{i}"}}"#);
    }
    let (a, b) = (i % 200, (i + 1) % 200);
    format!(
        r#"{{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"m-{i}-{}","seats":[{{"player":"p{a}","score":1}},{{"player":"p{b}","score":0}}]}}"#,
        "x".repeat(60)
    )
}

/// The child of the bulk test: 1,000 events acknowledged, then one import of 60,000 that fills
/// the disk.
fn child_bulk() -> ! {
    let path = PathBuf::from(std::env::var(LEDGER_ENV).unwrap());
    let mut l = Ledger::open(&path).unwrap();
    let first: Vec<String> = (0..1_000).map(bulk_line).collect();
    let r = l.append(items(&first.join("\n")), &AppendOptions::default()).unwrap();
    println!("\nCHILD acked {}", r.head.seq);
    let big: Vec<String> = (1_000..61_000).map(bulk_line).collect();
    match l.append(items(&big.join("\n")), &AppendOptions::default()) {
        Ok(r) => println!("\nCHILD acked {}", r.head.seq),
        Err(e) => println!("\nCHILD message {e}"),
    }
    drop(l);
    std::process::exit(0)
}

const BULK: &str = "faults::opening_a_ledger_on_a_full_disk_is_refused_and_damages_nothing";

/// sled 0.34 recovering a ledger on a full disk (after a big import hit ENOSPC) left it
/// unreadable at most tmpfs sizes tried (2, 4, 7, 9, 10, 12 MB): every acknowledged event lost.
/// Opening is now refused below `MIN_FREE_BYTES` free, before sled writes anything.
#[test]
fn opening_a_ledger_on_a_full_disk_is_refused_and_damages_nothing() {
    if role().as_deref() == Some("bulk") {
        child_bulk();
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    let (mut faults, mut opens_refused) = (0, 0);
    for size_mb in [7, 10] {
        let Some(mount) =
            Mount::new(&["-t", "tmpfs", "-o", &format!("size={size_mb}m"), "tmpfs"], &mnt)
        else {
            eprintln!("open on a full disk: mounting a tmpfs is not permitted here; injected faults instead");
            let (faults, _, lost) = injected(ErrorKind::StorageFull, 0x7f4a_7c15, 8);
            assert_eq!(lost, 0);
            eprintln!("full disk (injected instead): {faults} faults, {lost} lost");
            return;
        };
        let ledger = mnt.join("ledger");
        let out = spawn(BULK, "bulk", &ledger, None).wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("CHILD acked 1000"), "{text}");
        assert!(text.contains("CHILD message no space left for the ledger"), "{text}");
        faults += 1;
        // Twice, as a user retrying would: refused each time, and sled never runs.
        for _ in 0..2 {
            match Ledger::open(&ledger) {
                Err(LogError::Full { .. }) => opens_refused += 1,
                other => panic!("opening on a full disk: {other:?}"),
            }
        }
        mount.remount(&format!("remount,size={}m", size_mb + 16));
        let want: Vec<String> = items(&(0..1_000).map(bulk_line).collect::<Vec<_>>().join("\n"))
            .into_iter()
            .map(|r| to_line(&r.unwrap()))
            .collect();
        assert_eq!(check_after(&ledger, &want, 1_000, 0), 1_000);
        drop(mount);
    }
    eprintln!("open on a full disk: {faults} faults, {opens_refused} opens refused, 0 lost");
}

/// Opening no longer builds the players index (a replay never asks for it): when the store fails
/// to give it later, every caller that needs it (a lookup, a verify, an append) gets the store's
/// own typed error, the append writes nothing, and once the store reads again everything is there.
#[test]
fn a_players_index_that_fails_to_load_later_is_the_callers_error_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let joins =
        "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"alice\"}\n\
                 {\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:05:00Z\",\"player\":\"bob\"}";
    {
        let mut l = Ledger::open(&path).unwrap();
        l.append(items(joins), &AppendOptions::default()).unwrap();
    }
    let failing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let wrap = |inner: SledStore| -> Box<dyn Store> {
        Box::new(crate::Switched {
            inner,
            path: path.clone(),
            on: failing.clone(),
            failing: crate::Failing::FactsScan,
        })
    };
    let mut l = Ledger::open_with(&path, wrap).unwrap();
    let head = l.head();
    assert_eq!(head.seq, 2);
    failing.store(true, Ordering::SeqCst);
    // The message names what failed and where (the store's own error is its source).
    let injected = |text: &str| {
        text.contains("scanning the facts tree") && text.contains(&path.display().to_string())
    };
    match l.joined_at("bob") {
        Err(e @ LogError::Storage { .. }) => assert!(injected(&e.to_string()), "{e}"),
        other => panic!("a lookup through an unreadable facts tree gave {other:?}"),
    }
    match l.verify(None) {
        Err(ladder_log::VerifyError::Storage(e @ LogError::Storage { .. })) => {
            assert!(injected(&e.to_string()), "{e}")
        }
        other => panic!("a verify through an unreadable facts tree gave {other:?}"),
    }
    let carol = "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T10:00:00Z\",\"player\":\"carol\"}";
    match l.append(items(carol), &AppendOptions::default()) {
        Err(AppendError::Storage(e @ LogError::Storage { .. })) => {
            assert!(injected(&e.to_string()), "{e}")
        }
        other => panic!("an append through an unreadable facts tree gave {other:?}"),
    }
    assert_eq!(l.head(), head, "the refused append moved the head");
    failing.store(false, Ordering::SeqCst);
    assert_eq!(l.joined_at("bob").unwrap(), Some(2));
    assert_eq!(l.joined_at("carol").unwrap(), None);
    assert_eq!(l.verify(None).unwrap(), head);
    l.append(items(carol), &AppendOptions::default()).unwrap();
    assert_eq!(l.joined_at("carol").unwrap(), Some(3));
    // Bob joined already: the index the append loaded refuses a second join.
    let again = "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T11:00:00Z\",\"player\":\"bob\"}";
    assert!(matches!(
        l.append(items(again), &AppendOptions::default()),
        Err(AppendError::Refused { .. })
    ));
    assert_eq!(l.verify(None).unwrap().seq, 3);
}

/// A damaged facts chunk is still refused when the ledger opens (opening checks every chunk,
/// though it builds only the voids and ticks from them): an error, never a panic or an empty
/// ledger, and the store is left as it was.
#[test]
fn a_damaged_facts_chunk_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let joins = "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"alice\"}";
    {
        let mut l = Ledger::open(&path).unwrap();
        l.append(items(joins), &AppendOptions::default()).unwrap();
    }
    {
        let store = SledStore::open(&path).unwrap();
        let (k, v) = store.scan(Tree::Facts, &[]).next().unwrap().unwrap();
        let mut v = v.to_vec();
        // The join's name, cut off: the chunk ends inside its entry.
        v.truncate(v.len() - 2);
        store.insert(Tree::Facts, &k, &v).unwrap();
        store.flush().unwrap();
    }
    for attempt in 0..2 {
        match Ledger::open(&path) {
            Ok(l) => panic!("attempt {attempt}: a damaged facts chunk opened at {}", l.head()),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("facts chunk") && text.contains("is cut"), "{text}");
            }
        }
    }
}
