//! The folded form beside the ledger: built on first use, trusted only whole and bound to the
//! head, rebuilt (to the same bytes) when it is damaged, cut or stale, left alone by a ledger
//! that cannot write it, and checked against the chain by `check_folded`.

use crate::append_ok;
use ladder_log::{AppendOptions, FoldedCheck, FoldedState, Ledger, FOLDED_FILE};
use std::path::Path;

/// Joins, matches with a void, a tick, a timeout, teams and a seat at home.
fn history(from: usize, n: usize) -> String {
    let mut text = String::new();
    if from == 0 {
        for p in ["alice", "bob", "carol", "dave"] {
            text.push_str(&format!(
                "{{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"{p}\"}}\n"
            ));
        }
    }
    for i in from..from + n {
        let at = format!("2026-03-{:02}T{:02}:{:02}:00Z", 1 + i / 1440, i / 60 % 24, i % 60);
        let (a, b) = [("alice", "bob"), ("bob", "carol"), ("carol", "alice")][i % 3];
        let line = match i % 50 {
            7 => format!(
                "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"id\":\"m-{i}\",\"seats\":[{{\"player\":\"alice\",\"score\":1,\"team\":1}},{{\"player\":\"bob\",\"score\":0,\"team\":2}},{{\"player\":\"dave\",\"score\":1,\"team\":1}}]}}"
            ),
            8 => format!("{{\"type\":\"MatchVoided\",\"at\":\"{at}\",\"match\":\"m-{}\",\"reason\":\"r\"}}", i - 1),
            9 => format!("{{\"type\":\"QueueTimeout\",\"at\":\"{at}\",\"player\":\"dave\"}}"),
            _ => format!(
                "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"id\":\"m-{i}\",\"seats\":[{{\"player\":\"{a}\",\"score\":1,\"home\":true,\"seconds\":30.5}},{{\"player\":\"{b}\",\"score\":0}}]}}"
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

fn file(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join(FOLDED_FILE)).expect("the folded form is there")
}

/// Every record the folded form hands out, in one buffer.
fn records(ledger: &Ledger) -> Vec<u8> {
    let mut folded = ledger.folded().expect("a folded form");
    let mut out = Vec::new();
    folded
        .read(|segment| -> Result<bool, ladder_log::LogError> {
            out.extend_from_slice(segment);
            Ok(true)
        })
        .expect("the records read");
    out
}

/// A change made to the folded form's bytes.
type Harm = Box<dyn Fn(&mut Vec<u8>)>;

/// The same, as a plain function.
type ByteHarm = fn(&mut Vec<u8>);

#[test]
fn the_folded_form_is_built_once_and_rebuilt_the_same_after_any_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let mut ledger = Ledger::open(&path).unwrap();
    append_ok(&mut ledger, &history(0, 3000), AppendOptions::default());
    assert_eq!(ledger.folded_state(), FoldedState::Absent);
    let first = ledger.folded().expect("built");
    assert_eq!(first.was(), &FoldedState::Absent);
    assert_eq!(first.head(), ledger.head());
    // 3,000 events: 60 voids, one each 50.
    assert_eq!(first.voids().len(), 60);
    assert!(first.voids().iter().all(|v| v.void_seq == v.match_seq + 1));
    drop(first);
    let good = file(&path);
    let decoded = records(&ledger);
    assert_eq!(ledger.folded().unwrap().was(), &FoldedState::Current);
    // Every record decodes, one event record per stored event.
    let items: Vec<_> =
        ladder_events::folded::Reader::new(&decoded).collect::<Result<_, _>>().unwrap();
    let events = items.iter().filter(|i| matches!(i, ladder_events::folded::Item::Event { .. }));
    assert_eq!(events.count() as u64, ledger.head().seq);
    // The header's number of players is the number of name records.
    let names = items.iter().filter(|i| matches!(i, ladder_events::folded::Item::Name(_)));
    assert_eq!(ledger.folded().unwrap().players(), names.count() as u64);

    let damage: Vec<(&str, Harm)> = vec![
        ("a flipped byte in the magic", Box::new(|b: &mut Vec<u8>| b[0] ^= 1)),
        // A file of the layout before the short two-seat record: built again, never read.
        ("layout version 1", Box::new(|b: &mut Vec<u8>| b[7] = 1)),
        // Nor one of the layout before the number of players.
        ("layout version 2", Box::new(|b: &mut Vec<u8>| b[7] = 2)),
        ("a flipped byte in the head", Box::new(|b: &mut Vec<u8>| b[20] ^= 0x40)),
        ("a flipped byte in the number of players", Box::new(|b: &mut Vec<u8>| b[66] ^= 1)),
        ("a flipped byte in the checksum", Box::new(|b: &mut Vec<u8>| b[80] ^= 1)),
        ("a flipped byte in the records", Box::new(|b: &mut Vec<u8>| b[500] ^= 0x10)),
        (
            "a flipped byte in the voids",
            Box::new(|b: &mut Vec<u8>| {
                let n = b.len();
                b[n - 5] ^= 1
            }),
        ),
        ("cut short", Box::new(|b: &mut Vec<u8>| b.truncate(b.len() / 2))),
        ("cut inside its header", Box::new(|b: &mut Vec<u8>| b.truncate(40))),
        ("emptied", Box::new(|b: &mut Vec<u8>| b.clear())),
        ("a byte longer", Box::new(|b: &mut Vec<u8>| b.push(0))),
        (
            "a record length too large",
            Box::new(|b: &mut Vec<u8>| b[48..56].copy_from_slice(&u64::MAX.to_le_bytes())),
        ),
    ];
    for (what, harm) in damage {
        let mut bytes = good.clone();
        harm(&mut bytes);
        std::fs::write(path.join(FOLDED_FILE), &bytes).unwrap();
        assert!(
            matches!(ledger.folded_state(), FoldedState::Damaged { .. }),
            "{what}: {:?}",
            ledger.folded_state()
        );
        let again = ledger.folded().expect("rebuilt");
        assert!(matches!(again.was(), FoldedState::Damaged { .. }), "{what}");
        drop(again);
        assert_eq!(file(&path), good, "{what}: rebuilt to the same bytes");
        assert_eq!(records(&ledger), decoded, "{what}");
        // A check made before the ledger is asked (as a replay makes it while the ledger
        // opens) finds the same damage, and the file is rebuilt all the same.
        std::fs::write(path.join(FOLDED_FILE), &bytes).unwrap();
        let checked = FoldedCheck::read(&path);
        assert!(matches!(checked.state(), FoldedState::Damaged { .. }), "{what}");
        let again = ledger.folded_with(Some(checked)).expect("rebuilt");
        assert!(matches!(again.was(), FoldedState::Damaged { .. }), "{what}");
        drop(again);
        assert_eq!(file(&path), good, "{what}: rebuilt to the same bytes");
    }
    let mut old = good.clone();
    old[7] = 2;
    std::fs::write(path.join(FOLDED_FILE), &old).unwrap();
    assert_eq!(
        ledger.folded_state(),
        FoldedState::Damaged {
            detail: "a folded form of layout version 2, and this build reads version 3".into()
        }
    );
    drop(ledger.folded());
    assert_eq!(file(&path), good);
    // A check of a whole file is taken as it is; a check of another directory is not used.
    let checked = FoldedCheck::read(&path);
    assert_eq!(checked.state(), &FoldedState::Current);
    assert_eq!(ledger.folded_with(Some(checked)).unwrap().was(), &FoldedState::Current);
    let elsewhere = tempfile::tempdir().unwrap();
    let absent = FoldedCheck::read(elsewhere.path());
    assert_eq!(absent.state(), &FoldedState::Absent);
    assert_eq!(ledger.folded_with(Some(absent)).unwrap().was(), &FoldedState::Current);

    // A whole file that claims another head (its checksum made right for it) is stale.
    let mut other = good.clone();
    other[16..48].copy_from_slice(&[7; 32]);
    let mut sum = blake3::Hasher::new();
    sum.update(&other[104..]);
    sum.update(&other[..72]);
    other[72..104].copy_from_slice(sum.finalize().as_bytes());
    std::fs::write(path.join(FOLDED_FILE), &other).unwrap();
    assert_eq!(ledger.folded_state(), FoldedState::Stale { seq: ledger.head().seq });
    // Checked on its own, it is whole; against the ledger's head, stale, and built again.
    let checked = FoldedCheck::read(&path);
    assert_eq!(checked.state(), &FoldedState::Current);
    assert_eq!(
        ledger.folded_with(Some(checked)).unwrap().was(),
        &FoldedState::Stale { seq: ledger.head().seq }
    );
    assert_eq!(file(&path), good);
    std::fs::write(path.join(FOLDED_FILE), &other).unwrap();
    assert_eq!(ledger.folded().unwrap().was(), &FoldedState::Stale { seq: ledger.head().seq });
    assert_eq!(file(&path), good);

    // After an append it is stale, and the next use builds it through the new head (a check
    // made before the append included).
    let checked = FoldedCheck::read(&path);
    append_ok(&mut ledger, &history(3000, 500), AppendOptions::default());
    let before = ledger.head().seq - 500;
    assert_eq!(ledger.folded_state(), FoldedState::Stale { seq: before });
    let grown = ledger.folded_with(Some(checked)).unwrap();
    assert_eq!(grown.was(), &FoldedState::Stale { seq: before });
    assert_eq!(grown.head(), ledger.head());
    drop(grown);
    assert!(records(&ledger).starts_with(&decoded), "the new records extend the old ones");
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(FOLDED_FILE))
        .collect();
    assert_eq!(names, [FOLDED_FILE]);
}

#[test]
fn check_folded_finds_a_file_whose_checksum_was_made_to_match_other_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let mut ledger = Ledger::open(&path).unwrap();
    append_ok(&mut ledger, &history(0, 200), AppendOptions::default());
    assert_eq!(ledger.check_folded().unwrap(), FoldedState::Absent);
    drop(ledger.folded().unwrap());
    assert_eq!(ledger.check_folded().unwrap(), FoldedState::Current);
    // A score changed in a record (the first match's first seat: 1.0 becomes 0.0), with the
    // checksum recomputed: whole and bound to the head, so only re-deriving it finds it.
    let mut bytes = file(&path);
    let one = 1.0f64.to_le_bytes();
    let at = bytes.windows(8).position(|w| w == one).expect("a score of 1 is stored");
    bytes[at..at + 8].copy_from_slice(&0.0f64.to_le_bytes());
    let mut sum = blake3::Hasher::new();
    sum.update(&bytes[104..]);
    sum.update(&bytes[..72]);
    let sum = *sum.finalize().as_bytes();
    bytes[72..104].copy_from_slice(&sum);
    std::fs::write(path.join(FOLDED_FILE), &bytes).unwrap();
    assert_eq!(ledger.folded_state(), FoldedState::Current);
    assert!(matches!(ledger.check_folded().unwrap(), FoldedState::Damaged { .. }));
    ledger.remove_folded().unwrap();
    assert_eq!(ledger.folded_state(), FoldedState::Absent);
}

#[test]
fn a_ledger_that_cannot_write_its_folded_form_reads_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let mut ledger = Ledger::open(&path).unwrap();
    append_ok(&mut ledger, &history(0, 100), AppendOptions::default());
    // A directory where the file goes: the rename fails whoever runs the test (root too).
    std::fs::create_dir_all(path.join(FOLDED_FILE).join("in-the-way")).unwrap();
    assert!(ledger.folded().is_none());
    assert!(matches!(ledger.folded_state(), FoldedState::Damaged { .. }));
    let names: Vec<String> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(FOLDED_FILE))
        .collect();
    assert_eq!(names, [FOLDED_FILE], "no temporary file left");
    // The ledger opens again (the seals leave the folded form out) and reads as before.
    drop(ledger);
    let ledger = Ledger::open_existing(&path).unwrap();
    assert_eq!(ledger.events(1).count() as u64, ledger.head().seq);
    // An empty ledger has no folded form to build.
    let empty = Ledger::open(dir.path().join("empty")).unwrap();
    assert!(empty.folded().is_none());
}

/// Every file in the ledger directory (recursively): its name, the blake3 of its bytes, and its
/// modification and change times, to show that something wrote nothing.
fn files(dir: &Path) -> Vec<(String, String, std::time::SystemTime, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                dirs.push(path);
            } else {
                let bytes = blake3::hash(&std::fs::read(&path).unwrap()).to_hex().to_string();
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, bytes, meta.modified().unwrap(), meta.ctime(), meta.ctime_nsec()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A ledger closed cleanly, with its folded form current: [`SealedHead`] finds its head without
/// opening sled, writes nothing, and hands out the folded form only when [`Ledger::folded`] would
/// use it as it is; anything else about the directory (seals, head file, folded form, a holder
/// of the lock) sends the caller to the ledger's own open.
#[test]
fn a_sealed_ledger_hands_out_its_folded_form_without_opening_sled() {
    use ladder_log::SealedHead;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let head = {
        let mut ledger = Ledger::open(&path).unwrap();
        append_ok(&mut ledger, &history(0, 500), AppendOptions::default());
        drop(ledger.folded().expect("built"));
        ledger.head()
    };
    let good = file(&path);
    let before = files(&path);
    let sealed = SealedHead::read(&path).unwrap().expect("sealed as closed");
    assert_eq!(sealed.head(), head);
    let mut folded = sealed.folded(FoldedCheck::read(&path)).ok().expect("current");
    assert_eq!(folded.head(), head);
    let mut read = Vec::new();
    folded
        .folded()
        .read(|s| -> Result<bool, ladder_log::LogError> {
            read.extend_from_slice(s);
            Ok(true)
        })
        .unwrap();
    // The same records as the ledger's own folded form hands out, the same voids.
    {
        drop(folded);
        let ledger = Ledger::open_existing(&path).unwrap();
        assert_eq!(records(&ledger), read);
    }
    // Opening the ledger wrote to it (sled's open and close); from here on only reads.
    let before_reads = files(&path);
    assert_ne!(before, before_reads, "sled's open and close write: the comparison can fail");
    for _ in 0..3 {
        let sealed = SealedHead::read(&path).unwrap().expect("sealed");
        let folded = sealed.folded(FoldedCheck::read(&path)).ok().expect("current");
        assert_eq!(folded.voids().len(), 10);
    }
    assert_eq!(files(&path), before_reads, "reading a sealed ledger wrote nothing");

    // Held by another handle: the lock's error, as opening gives it.
    {
        let ledger = Ledger::open_existing(&path).unwrap();
        let e = SealedHead::read(&path).err().expect("locked");
        assert!(matches!(e, ladder_log::LogError::Locked { .. }), "{e}");
        drop(ledger);
    }
    // A stale, damaged or missing folded form: handed back for the ledger's open.
    let damage: [(&str, ByteHarm); 3] = [
        ("a flipped byte in its records", |b| b[300] ^= 4),
        ("another head", |b| b[20] ^= 1),
        ("cut short", |b| b.truncate(b.len() - 3)),
    ];
    for (what, harm) in damage {
        let mut bytes = good.clone();
        harm(&mut bytes);
        std::fs::write(path.join(FOLDED_FILE), &bytes).unwrap();
        let sealed = SealedHead::read(&path).unwrap().expect("sled's files are untouched");
        let check = sealed.folded(FoldedCheck::read(&path)).err().expect(what);
        // The check goes on to the ledger, which builds the folded form again.
        let ledger = Ledger::open_existing(&path).unwrap();
        assert_ne!(
            ledger.folded_with(Some(*check)).unwrap().was(),
            &FoldedState::Current,
            "{what}"
        );
        drop(ledger);
        assert_eq!(file(&path), good, "{what}: built again, the same");
    }
    std::fs::remove_file(path.join(FOLDED_FILE)).unwrap();
    let sealed = SealedHead::read(&path).unwrap().unwrap();
    assert!(sealed.folded(FoldedCheck::read(&path)).is_err(), "absent");
    drop(Ledger::open_existing(&path).unwrap().folded());
    // Stale: a folded form of the head before the last append.
    let stale = file(&path);
    {
        let mut ledger = Ledger::open(&path).unwrap();
        append_ok(&mut ledger, &history(500, 5), AppendOptions::default());
    }
    std::fs::write(path.join(FOLDED_FILE), &stale).unwrap();
    let sealed = SealedHead::read(&path).unwrap().unwrap();
    assert!(sealed.folded(FoldedCheck::read(&path)).is_err(), "stale");
    drop(Ledger::open_existing(&path).unwrap().folded());

    // sled's files written since the close (its log rewritten with the same bytes: only the
    // seal tells): not sealed, whatever the folded form says.
    let db = path.join("db");
    std::fs::write(&db, std::fs::read(&db).unwrap()).unwrap();
    assert!(SealedHead::read(&path).unwrap().is_none(), "a rewritten log");
    // Opened through a copy, verified, closed: sealed again.
    let ledger = Ledger::open(&path).unwrap();
    ledger.verify(None).unwrap();
    drop(ledger);
    assert!(SealedHead::read(&path).unwrap().is_some(), "sealed again by a clean close");
    let text = std::fs::read_to_string(path.join("ladder-head")).unwrap();
    std::fs::write(path.join("ladder-head"), text.replacen("format 4", "format 3", 1)).unwrap();
    assert!(SealedHead::read(&path).unwrap().is_none(), "a damaged head file");
    crate::forge_head_file(&path, head);
    assert!(SealedHead::read(&path).unwrap().is_none(), "no seals");
    // No ledger at all: nothing is created.
    let empty = dir.path().join("none");
    std::fs::create_dir(&empty).unwrap();
    assert!(SealedHead::read(&empty).unwrap().is_none());
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
}
