//! Every append rule, the order of the checks, the options, and atomic refusal.

use crate::{append_ok, items, stored_lines};
use ladder_events::Rule;
use ladder_log::{AppendError, AppendOptions, Head, Ledger};

const PLAIN: AppendOptions =
    AppendOptions { auto_join: false, ticks: false, skip_invalid: false, not_after: None };
const AUTO: AppendOptions =
    AppendOptions { auto_join: true, ticks: false, skip_invalid: false, not_after: None };
const TICKS: AppendOptions =
    AppendOptions { auto_join: false, ticks: true, skip_invalid: false, not_after: None };
const SKIP: AppendOptions =
    AppendOptions { auto_join: false, ticks: false, skip_invalid: true, not_after: None };

const JOINS: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice"}
{"type":"PlayerJoined","at":"2026-03-01T09:05:00Z","player":"bob","rating":1700,"rd":80}
"#;

fn ledger_with(text: &str) -> Ledger {
    let mut l = Ledger::memory();
    append_ok(&mut l, text, PLAIN);
    l
}

/// Appends `text` expecting a refusal; checks that nothing changed and returns (index, rule).
fn refused(ledger: &mut Ledger, text: &str, opts: AppendOptions) -> (usize, Rule) {
    let before = (ledger.head(), stored_lines(ledger));
    match ledger.append(items(text), &opts) {
        Err(AppendError::Refused { index, violation }) => {
            assert_eq!(
                (ledger.head(), stored_lines(ledger)),
                before,
                "a refusal changed the ledger"
            );
            assert_eq!(ledger.verify(None).unwrap(), before.0);
            (index, violation.rule)
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn m(at: &str, id: Option<&str>, a: &str, b: &str) -> String {
    let id = id.map(|i| format!(r#","id":"{i}""#)).unwrap_or_default();
    format!(
        r#"{{"type":"MatchResult","at":"{at}"{id},"seats":[{{"player":"{a}","score":1}},{{"player":"{b}","score":0}}]}}"#
    )
}

#[test]
fn appends_chain_and_read_back() {
    let mut l = Ledger::memory();
    assert_eq!(l.head(), Head::EMPTY);
    let text = format!(
        "{JOINS}{}\n{}",
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        m("2026-03-01T13:00:00Z", None, "bob", "alice")
    );
    let r = append_ok(&mut l, &text, PLAIN);
    assert_eq!((r.appended, r.duplicates, r.head.seq), (4, 0, 4));
    assert_eq!(l.head(), r.head);
    let stored: Vec<_> = l.events(1).map(|e| e.unwrap()).collect();
    assert_eq!(stored.len(), 4);
    let mut prev = ladder_log::GENESIS;
    for (i, e) in stored.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1);
        assert_eq!(e.prev_hash, prev);
        // The leaf bytes are the event's canonical JSON line, as `ladder log` prints it.
        let line = ladder_events::json::to_line(&e.event);
        assert_eq!(e.hash, ladder_log::chain_hash(&prev, line.as_bytes()));
        assert_eq!(ladder_events::codec::decode(&e.bytes).unwrap(), e.event);
        prev = e.hash;
    }
    assert_eq!(prev, l.head().hash);
    assert_eq!(l.verify(None).unwrap(), l.head());
    assert_eq!(l.verify(Some(l.head())).unwrap(), l.head());
    // Iteration from the middle links to the stored previous hash.
    let from3: Vec<_> = l.events(3).map(|e| e.unwrap()).collect();
    assert_eq!(from3, stored[2..].to_vec());
    assert!(l.events(5).next().is_none());
    assert_eq!(l.get(2).unwrap().unwrap(), stored[1]);
    assert_eq!(l.get(0).unwrap(), None);
    assert_eq!(l.seq_of_id("m-1").unwrap(), Some(3));
    assert_eq!(l.match_seq("m-1").unwrap(), Some(3));
    assert_eq!(l.joined_at("bob").unwrap(), Some(2));
    assert_eq!(l.joined_at("carol").unwrap(), None);
    // An empty append changes nothing.
    let r = append_ok(&mut l, "", PLAIN);
    assert_eq!((r.appended, r.head), (0, l.head()));
}

#[test]
fn duplicates_are_checked_before_every_other_rule() {
    let text = format!(
        "{JOINS}{}\n{}",
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        m("2026-03-02T12:00:00Z", Some("m-2"), "bob", "alice")
    );
    let mut l = ledger_with(&text);
    let head = l.head();
    // Re-sending everything is a no-op: m-1 is in the past, the joins too, yet all are duplicates.
    let r = append_ok(&mut l, &text, PLAIN);
    assert_eq!((r.appended, r.duplicates, r.head), (0, 4, head));
    // Same id, other content: a conflict, even in the past.
    assert_eq!(
        refused(&mut l, &m("2026-03-01T12:00:00Z", Some("m-1"), "bob", "alice"), PLAIN),
        (0, Rule::IdConflict)
    );
    // A join with other content: join-once; with the same content but an id: still a duplicate.
    let other_join = r#"{"type":"PlayerJoined","at":"2026-03-03T09:00:00Z","player":"alice"}"#;
    assert_eq!(refused(&mut l, other_join, PLAIN), (0, Rule::JoinedTwice));
    let same_join =
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice","id":"j-a"}"#;
    assert_eq!(append_ok(&mut l, same_join, PLAIN).duplicates, 1);
    // Within one batch: the second copy is a duplicate, a changed copy a conflict.
    let twice = format!(
        "{}\n{}",
        m("2026-03-04T12:00:00Z", Some("m-3"), "alice", "bob"),
        m("2026-03-04T12:00:00Z", Some("m-3"), "alice", "bob")
    );
    let r = append_ok(&mut l, &twice, PLAIN);
    assert_eq!((r.appended, r.duplicates), (1, 1));
    let conflict = format!(
        "{}\n{}",
        m("2026-03-05T12:00:00Z", Some("m-4"), "alice", "bob"),
        m("2026-03-05T12:00:00Z", Some("m-4"), "bob", "alice")
    );
    assert_eq!(refused(&mut l, &conflict, PLAIN), (1, Rule::IdConflict));
    // A tick for a date already ticked is a duplicate, even long after.
    append_ok(&mut l, r#"{"type":"MidnightTick","at":"2026-03-06"}"#, PLAIN);
    let r =
        append_ok(&mut l, r#"{"type":"MidnightTick","at":"2026-03-06T00:00:00Z","id":"t"}"#, PLAIN);
    assert_eq!((r.appended, r.duplicates), (0, 1));
    // ...but a tick for an unticked past date is out of order.
    assert_eq!(
        refused(&mut l, r#"{"type":"MidnightTick","at":"2026-03-05"}"#, PLAIN),
        (0, Rule::TimeOrder)
    );
}

#[test]
fn time_order_and_ticks_first() {
    let mut l = ledger_with(JOINS);
    assert_eq!(
        refused(&mut l, &m("2026-03-01T08:00:00Z", None, "alice", "bob"), PLAIN),
        (0, Rule::TimeOrder)
    );
    // Equal instants are fine.
    append_ok(&mut l, &m("2026-03-01T09:05:00Z", None, "alice", "bob"), PLAIN);
    // A tick must be at midnight (a stateless rule), and before every other event at its instant.
    assert_eq!(
        refused(&mut l, r#"{"type":"MidnightTick","at":"2026-03-02T00:00:01Z"}"#, PLAIN),
        (0, Rule::TickNotMidnight)
    );
    let late_tick = format!(
        "{}\n{}",
        m("2026-03-02T00:00:00Z", None, "alice", "bob"),
        r#"{"type":"MidnightTick","at":"2026-03-02"}"#
    );
    assert_eq!(refused(&mut l, &late_tick, PLAIN), (1, Rule::TickOrder));
    let first_tick = format!(
        "{}\n{}",
        r#"{"type":"MidnightTick","at":"2026-03-02"}"#,
        m("2026-03-02T00:00:00Z", None, "alice", "bob")
    );
    assert_eq!(append_ok(&mut l, &first_tick, PLAIN).appended, 2);
}

#[test]
fn players_join_once_and_before_playing() {
    let mut l = ledger_with(JOINS);
    assert_eq!(
        refused(&mut l, &m("2026-03-01T12:00:00Z", None, "alice", "carol"), PLAIN),
        (0, Rule::UnknownPlayer)
    );
    let timeout = r#"{"type":"QueueTimeout","at":"2026-03-01T12:00:00Z","player":"dave"}"#;
    assert_eq!(refused(&mut l, timeout, PLAIN), (0, Rule::UnknownPlayer));
    let joins_twice = r#"
{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"carol"}
{"type":"PlayerJoined","at":"2026-03-01T11:00:00Z","player":"carol"}"#;
    assert_eq!(refused(&mut l, joins_twice, PLAIN), (1, Rule::JoinedTwice));
    // Joined earlier in the same batch counts.
    let text = format!(
        "{}\n{}",
        r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"carol"}"#,
        m("2026-03-01T12:00:00Z", None, "alice", "carol")
    );
    assert_eq!(append_ok(&mut l, &text, PLAIN).appended, 2);
}

#[test]
fn auto_join_adds_missing_joins_in_seat_order_at_the_same_instant() {
    let mut l =
        ledger_with(r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"bob"}"#);
    let text = r#"
{"type":"MatchResult","at":"2026-03-01T12:00:00Z","seats":[{"player":"zed","score":1},{"player":"bob","score":0},{"player":"amy","score":0}]}
{"type":"QueueTimeout","at":"2026-03-01T13:00:00Z","player":"kim"}
{"type":"QueueTimeout","at":"2026-03-01T14:00:00Z","player":"zed"}"#;
    let r = append_ok(&mut l, text, AUTO);
    assert_eq!((r.appended, r.auto_joined), (6, 3));
    let lines = stored_lines(&l);
    assert_eq!(
        lines[1..5],
        [
            r#"{"type":"PlayerJoined","at":"2026-03-01T12:00:00Z","player":"zed"}"#.to_string(),
            r#"{"type":"PlayerJoined","at":"2026-03-01T12:00:00Z","player":"amy"}"#.to_string(),
            r#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","seats":[{"player":"zed","score":1.0},{"player":"bob","score":0.0},{"player":"amy","score":0.0}]}"#.to_string(),
            r#"{"type":"PlayerJoined","at":"2026-03-01T13:00:00Z","player":"kim"}"#.to_string(),
        ]
    );
    // An invalid event gets no joins: nothing is written.
    let bad = r#"{"type":"MatchResult","at":"2026-03-01T11:00:00Z","seats":[{"player":"new","score":1},{"player":"bob","score":0}]}"#;
    assert_eq!(refused(&mut l, bad, AUTO), (0, Rule::TimeOrder));
}

#[test]
fn voids_name_a_match_once() {
    let text = format!(
        "{JOINS}{}\n{}",
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        r#"{"type":"QueueTimeout","at":"2026-03-01T12:30:00Z","id":"q-1","player":"bob"}"#
    );
    let mut l = ledger_with(&text);
    let void = |id: &str, at: &str| {
        format!(r#"{{"type":"MatchVoided","at":"{at}","match":"{id}","reason":"wrong account"}}"#)
    };
    assert_eq!(refused(&mut l, &void("m-9", "2026-03-02T10:00:00Z"), PLAIN), (0, Rule::VoidTarget));
    assert_eq!(refused(&mut l, &void("q-1", "2026-03-02T10:00:00Z"), PLAIN), (0, Rule::VoidTarget));
    assert_eq!(l.voided_at("m-1"), None);
    append_ok(&mut l, &void("m-1", "2026-03-02T10:00:00Z"), PLAIN);
    assert_eq!(l.voided_at("m-1"), Some(5));
    assert_eq!(
        refused(&mut l, &void("m-1", "2026-03-02T11:00:00Z"), PLAIN),
        (0, Rule::VoidRepeated)
    );
    // A match earlier in the batch can be voided, but only once in it.
    let text = format!(
        "{}\n{}\n{}",
        m("2026-03-03T12:00:00Z", Some("m-2"), "alice", "bob"),
        void("m-2", "2026-03-03T13:00:00Z"),
        void("m-2", "2026-03-03T14:00:00Z")
    );
    assert_eq!(refused(&mut l, &text, PLAIN), (2, Rule::VoidRepeated));
    let text = format!(
        "{}\n{}",
        m("2026-03-03T12:00:00Z", Some("m-2"), "alice", "bob"),
        void("m-2", "2026-03-03T13:00:00Z")
    );
    append_ok(&mut l, &text, PLAIN);
    assert_eq!(l.voided_at("m-2"), Some(7));
    let mut voids: Vec<_> = l.voids().collect();
    voids.sort();
    assert_eq!(voids, vec![("m-1", 5), ("m-2", 7)]);
}

#[test]
fn ticks_fill_date_boundaries_between_events_including_the_stored_last() {
    let mut l = ledger_with(JOINS); // last stored event: 2026-03-01T09:05
    let text = format!(
        "{}\n{}\n{}\n{}",
        m("2026-03-03T00:00:00Z", None, "alice", "bob"), // crosses 03-02 and 03-03 (at its instant)
        m("2026-03-03T05:00:00Z", None, "alice", "bob"), // crosses nothing
        r#"{"type":"MidnightTick","at":"2026-03-05"}"#,  // crosses 03-04; 03-05 is itself
        m("2026-03-05T01:00:00Z", None, "alice", "bob"),
    );
    let r = append_ok(&mut l, &text, TICKS);
    assert_eq!((r.appended, r.ticks_inserted), (7, 3));
    let ats: Vec<String> = l
        .events(3)
        .map(|e| {
            let e = e.unwrap().event;
            format!("{} {}", e.body.type_name(), e.at)
        })
        .collect();
    assert_eq!(
        ats,
        [
            "MidnightTick 2026-03-02T00:00:00Z",
            "MidnightTick 2026-03-03T00:00:00Z",
            "MatchResult 2026-03-03T00:00:00Z",
            "MatchResult 2026-03-03T05:00:00Z",
            "MidnightTick 2026-03-04T00:00:00Z",
            "MidnightTick 2026-03-05T00:00:00Z",
            "MatchResult 2026-03-05T01:00:00Z",
        ]
    );
    // Never after the last event; a date already ticked is not ticked again.
    let r = append_ok(&mut l, &m("2026-03-05T02:00:00Z", None, "alice", "bob"), TICKS);
    assert_eq!(r.ticks_inserted, 0);
    let r = append_ok(&mut l, r#"{"type":"MidnightTick","at":"2026-03-07"}"#, TICKS);
    assert_eq!((r.appended, r.ticks_inserted), (2, 1));
    // Re-running the whole import with ticks adds nothing: every line is a duplicate or ticked.
    let mut fresh = Ledger::memory();
    let all = format!(
        "{JOINS}{}\n{}",
        m("2026-03-01T12:00:00Z", Some("a"), "alice", "bob"),
        m("2026-03-04T12:00:00Z", Some("b"), "alice", "bob")
    );
    let r1 = append_ok(&mut fresh, &all, TICKS);
    assert_eq!(r1.ticks_inserted, 3);
    let r2 = append_ok(&mut fresh, &all, TICKS);
    assert_eq!((r2.appended, r2.duplicates), (0, 4));
    // Invalid events do not get ticks.
    assert_eq!(
        refused(&mut fresh, &m("2026-03-09T12:00:00Z", None, "alice", "nobody"), TICKS),
        (0, Rule::UnknownPlayer)
    );
}

#[test]
fn skip_invalid_reports_each_by_index_and_rule() {
    let mut l = ledger_with(JOINS);
    let text = format!(
        "{}\nnot json\n{}\n{}\n{}\n{}",
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        m("2026-03-01T11:00:00Z", None, "alice", "bob"),
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        m("2026-03-01T13:00:00Z", None, "alice", "carol"),
        m("2026-03-01T14:00:00Z", Some("m-1"), "bob", "alice"),
    );
    let r = append_ok(&mut l, &text, SKIP);
    assert_eq!((r.appended, r.duplicates), (1, 1));
    let skipped: Vec<_> = r.skipped.iter().map(|(i, v)| (*i, v.rule)).collect();
    assert_eq!(
        skipped,
        vec![
            (1, Rule::Syntax),
            (2, Rule::TimeOrder),
            (4, Rule::UnknownPlayer),
            (5, Rule::IdConflict)
        ]
    );
    // Without the option the parse error refuses at its index.
    assert_eq!(
        refused(&mut l, "\n{\"type\":\"Nope\",\"at\":\"2026-03-02\"}", PLAIN),
        (0, Rule::UnknownType)
    );
}

#[test]
fn a_refusal_after_many_blocks_leaves_nothing_and_ids_stay_free() {
    let mut l = ledger_with(JOINS);
    let head = l.head();
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&m("2026-03-02T12:00:00Z", Some(&format!("x-{i}")), "alice", "bob"));
        text.push('\n');
    }
    let bad = format!("{text}{}", m("2026-03-01T00:00:00Z", None, "alice", "bob"));
    assert_eq!(refused(&mut l, &bad, PLAIN), (10_000, Rule::TimeOrder));
    assert_eq!(l.head(), head);
    assert_eq!(l.seq_of_id("x-5").unwrap(), None);
    // The same events, now valid, are new (not duplicates of the refused batch).
    let r = append_ok(&mut l, &text, PLAIN);
    assert_eq!((r.appended, r.duplicates), (10_000, 0));
    assert_eq!(l.seq_of_id("x-9999").unwrap(), Some(10_002));
    assert_eq!(l.verify(None).unwrap(), l.head());
    // Reading from any point crosses block boundaries correctly.
    for from in [1, 4095, 4096, 4097, 4098, 8194, 10_002] {
        let first = l.events(from).next().unwrap().unwrap();
        assert_eq!(first.seq, from);
        assert_eq!(l.events(from).count() as u64, l.head().seq - from + 1);
    }
}

#[test]
fn single_appends_merge_into_one_tail_block() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut l = Ledger::open(&path).unwrap();
    append_ok(&mut l, JOINS, PLAIN);
    for i in 0..40 {
        append_ok(
            &mut l,
            &m(&format!("2026-03-02T12:00:{i:02}Z"), Some(&format!("s-{i}")), "alice", "bob"),
            PLAIN,
        );
    }
    let head = l.verify(None).unwrap();
    assert_eq!(head.seq, 42);
    let lines = stored_lines(&l);
    drop(l);
    let blocks = crate::raw_sled(&path).open_tree("events").unwrap().len();
    assert!(blocks < 16, "{blocks} blocks for 41 appends");
    let l = Ledger::open(&path).unwrap();
    assert_eq!((l.head(), stored_lines(&l)), (head, lines));
    assert_eq!(l.seq_of_id("s-39").unwrap(), Some(42));
}

#[test]
fn checkpoints_are_kept_apart_listed_by_prefix_and_durable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut l = Ledger::open(&path).unwrap();
    append_ok(&mut l, JOINS, PLAIN);
    let (at1, at2) = (l.get(1).unwrap().unwrap(), l.get(2).unwrap().unwrap());
    let (at1, at2) = (Head { seq: 1, hash: at1.hash }, Head { seq: 2, hash: at2.hash });
    l.put_checkpoint(b"tgr/abc/2", at2, b"state at 2").unwrap();
    l.put_checkpoint(b"tgr/abc/1", at1, b"state at 1").unwrap();
    l.put_checkpoint(b"glicko/x/1", at1, b"other").unwrap();
    let list = |l: &Ledger, p: &[u8]| -> Vec<(Vec<u8>, u64, Vec<u8>)> {
        l.checkpoints(p).unwrap().into_iter().map(|(k, h, v)| (k, h.seq, v)).collect()
    };
    assert_eq!(
        list(&l, b"tgr/"),
        vec![
            (b"tgr/abc/1".to_vec(), 1, b"state at 1".to_vec()),
            (b"tgr/abc/2".to_vec(), 2, b"state at 2".to_vec())
        ]
    );
    assert_eq!(list(&l, b"").len(), 3);
    l.remove_checkpoint(b"tgr/abc/2").unwrap();
    // Checkpoints are not events: the chain and the head do not move.
    assert_eq!(l.verify(None).unwrap().seq, 2);
    drop(l);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(list(&l, b"tgr/"), vec![(b"tgr/abc/1".to_vec(), 1, b"state at 1".to_vec())]);
    assert_eq!(list(&l, b"glicko/"), vec![(b"glicko/x/1".to_vec(), 1, b"other".to_vec())]);
    // The memory ledger has the same API.
    let m = Ledger::memory();
    m.put_checkpoint(b"a", Head::EMPTY, b"1").unwrap();
    assert_eq!(m.checkpoints(b"a").unwrap(), vec![(b"a".to_vec(), Head::EMPTY, b"1".to_vec())]);
}

/// A checkpoint is bound to its key, to the head it was computed at and to its own bytes: one
/// moved under another key (two players' ratings exchanged, in effect), edited, or computed at a
/// head the chain does not hold is refused by `checkpoints` and reported by `verify`.
#[test]
fn a_moved_edited_or_unbound_checkpoint_is_refused() {
    use ladder_log::{LogError, Store, Tree, VerifyError};
    let store = std::sync::Arc::new(ladder_log::MemStore::new());
    let mut l = Ledger::with_store(Box::new(store.clone()), None).unwrap();
    append_ok(&mut l, JOINS, PLAIN);
    let at2 = Head { seq: 2, hash: l.get(2).unwrap().unwrap().hash };
    l.put_checkpoint(b"k/a", at2, b"alice 1600; bob 1400").unwrap();
    l.put_checkpoint(b"k/b", at2, b"alice 1400; bob 1600").unwrap();
    assert!(l.verify(None).is_ok());
    // Swap the two stored values.
    let a = store.get(Tree::Checkpoints, b"k/a").unwrap().unwrap().to_vec();
    let b = store.get(Tree::Checkpoints, b"k/b").unwrap().unwrap().to_vec();
    store.insert(Tree::Checkpoints, b"k/a", &b).unwrap();
    store.insert(Tree::Checkpoints, b"k/b", &a).unwrap();
    assert!(matches!(l.checkpoints(b"k/"), Err(LogError::Corrupt { .. })));
    assert!(matches!(l.verify(None), Err(VerifyError::Storage(LogError::Corrupt { .. }))));
    // One byte of its state edited.
    let mut edited = a.clone();
    *edited.last_mut().unwrap() ^= 1;
    store.insert(Tree::Checkpoints, b"k/a", &edited).unwrap();
    store.insert(Tree::Checkpoints, b"k/b", &b).unwrap();
    assert!(l.checkpoints(b"k/a").is_err());
    store.insert(Tree::Checkpoints, b"k/a", &a).unwrap();
    assert_eq!(l.checkpoints(b"k/").unwrap().len(), 2);
    // Computed at a head the chain does not hold.
    l.put_checkpoint(b"k/c", Head { seq: 2, hash: [7; 32] }, b"x").unwrap();
    assert!(l.checkpoints(b"k/c").is_err());
    assert!(matches!(l.verify(None), Err(VerifyError::Index { .. })));
}

/// Re-sending a history whose events have no ids appends nothing, whatever their instants: each
/// id-less event matches a stored id-less event with its content at its instant, each stored
/// event at most once. Before this rule, the events at the ledger's last instant were appended
/// again at every re-send, and a re-send of earlier ones was refused as out of time order.
#[test]
fn resending_id_less_events_appends_nothing_whatever_their_instants() {
    let void = r#"{"type":"MatchVoided","at":"2026-03-01T15:00:00Z","match":"m-1","reason":"r"}"#;
    let timeout = r#"{"type":"QueueTimeout","at":"2026-03-01T16:00:00Z","player":"alice"}"#;
    let text = format!(
        "{JOINS}{}\n{}\n{}\n{void}\n{timeout}\n{}\n{}\n",
        m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"),
        m("2026-03-01T13:00:00Z", None, "alice", "bob"),
        m("2026-03-01T13:00:00Z", None, "bob", "alice"),
        // Two equal results at the last instant: both are stored, and both are matched later.
        m("2026-03-01T17:00:00Z", None, "alice", "bob"),
        m("2026-03-01T17:00:00Z", None, "alice", "bob"),
    );
    let mut l = Ledger::memory();
    let r = append_ok(&mut l, &text, PLAIN);
    assert_eq!((r.appended, r.duplicates), (9, 0));
    let (head, lines) = (l.head(), stored_lines(&l));
    for _ in 0..3 {
        let r = append_ok(&mut l, &text, PLAIN);
        assert_eq!((r.appended, r.duplicates, r.head), (0, 9, head));
        assert_eq!(stored_lines(&l), lines);
    }
    // A third equal result at the last instant is new: two are stored, this batch has three.
    let three = format!(
        "{}\n{}\n{}",
        m("2026-03-01T17:00:00Z", None, "alice", "bob"),
        m("2026-03-01T17:00:00Z", None, "alice", "bob"),
        m("2026-03-01T17:00:00Z", None, "alice", "bob")
    );
    let r = append_ok(&mut l, &three, PLAIN);
    assert_eq!((r.appended, r.duplicates), (1, 2));
    // An id-less result that was never stored, before the last instant, is still out of order;
    // one with an id is not matched against id-less stored events.
    assert_eq!(
        refused(&mut l, &m("2026-03-01T13:00:00Z", None, "alice", "alice2"), AUTO),
        (0, Rule::TimeOrder)
    );
    assert_eq!(
        refused(&mut l, &m("2026-03-01T13:00:00Z", Some("new"), "alice", "bob"), PLAIN),
        (0, Rule::TimeOrder)
    );
    // The window moves forward only: a batch that went on to 17:00 does not come back to 13:00.
    let back = format!(
        "{}\n{}",
        m("2026-03-01T17:00:00Z", None, "alice", "bob"),
        m("2026-03-01T13:00:00Z", None, "alice", "bob")
    );
    assert_eq!(refused(&mut l, &back, PLAIN), (1, Rule::TimeOrder));
}

/// `not_after` (the caller's clock plus a margin) refuses later instants, checked after the
/// duplicate rules (a re-import of a stored event is still a duplicate) and before time order.
#[test]
fn instants_after_not_after_are_refused_as_future_instant() {
    let mut l = ledger_with(JOINS);
    let bound = ladder_events::Timestamp::parse("2026-03-02T09:00:00Z").unwrap();
    let guarded = AppendOptions { not_after: Some(bound), ..PLAIN };
    // At the bound: accepted; one nanosecond later: refused, naming the bound.
    append_ok(&mut l, &m("2026-03-02T09:00:00Z", Some("m-1"), "alice", "bob"), guarded);
    let late = m("2026-03-02T09:00:00.000000001Z", Some("m-2"), "alice", "bob");
    match l.append(crate::items(&late), &guarded) {
        Err(AppendError::Refused { index: 0, violation }) => {
            assert_eq!(violation.rule, Rule::FutureInstant);
            assert!(violation.detail.contains("2026-03-02T09:00:00Z"), "{violation}");
        }
        other => panic!("expected future-instant, got {other:?}"),
    }
    // A far-future event (2262) would block every later append; without a bound it is stored.
    let far = m("2262-01-01T00:00:00Z", Some("m-3"), "alice", "bob");
    assert_eq!(refused(&mut l, &far, guarded), (0, Rule::FutureInstant));
    let r = append_ok(&mut l, &far, PLAIN);
    assert_eq!(r.appended, 1);
    // Once stored, re-sending it under a bound is a duplicate, not a refusal.
    assert_eq!(append_ok(&mut l, &far, guarded).duplicates, 1);
    // Under skip-invalid it is skipped like any rule.
    let skip = AppendOptions { not_after: Some(bound), ..SKIP };
    let r = append_ok(&mut l, &m("2262-01-02T00:00:00Z", Some("m-4"), "alice", "bob"), skip);
    assert_eq!(
        r.skipped.iter().map(|(i, v)| (*i, v.rule)).collect::<Vec<_>>(),
        [(0, Rule::FutureInstant)]
    );
}

/// An id given twice with different content in one batch names the earlier input event, never a
/// stored seq (nothing of the batch is stored).
#[test]
fn a_conflict_within_one_batch_names_the_earlier_input_event() {
    let mut l = ledger_with(JOINS);
    append_ok(&mut l, &m("2026-03-01T10:00:00Z", Some("m-0"), "alice", "bob"), PLAIN);
    // Input 0 is a duplicate and input 1 comes after an inserted tick and an auto-join, so an
    // input's index is not its seq's distance from the head.
    let text = format!(
        "{}\n{}\n{}\n{}\n{}",
        m("2026-03-01T10:00:00Z", Some("m-0"), "alice", "bob"),
        m("2026-03-02T12:00:00Z", Some("m-1"), "alice", "carol"),
        m("2026-03-02T13:00:00Z", Some("m-2"), "bob", "alice"),
        m("2026-03-02T14:00:00Z", None, "bob", "alice"),
        m("2026-03-02T15:00:00Z", Some("m-1"), "carol", "alice"),
    );
    let opts = AppendOptions { auto_join: true, ticks: true, ..PLAIN };
    let before = l.head();
    match l.append(crate::items(&text), &opts) {
        Err(AppendError::Refused { index, violation }) => {
            assert_eq!((index, violation.rule, violation.earlier), (4, Rule::IdConflict, Some(1)));
            assert!(!violation.detail.contains("seq"), "{violation}");
            assert!(violation.detail.contains("earlier in this input"), "{violation}");
        }
        other => panic!("expected id-conflict, got {other:?}"),
    }
    assert_eq!(l.head(), before);
    // Against a stored event, the stored seq is named and there is no earlier input.
    match l.append(crate::items(&m("2026-03-03T10:00:00Z", Some("m-0"), "bob", "alice")), &PLAIN) {
        Err(AppendError::Refused { violation, .. }) => {
            assert!(violation.detail.contains("stored at seq 3"), "{violation}");
            assert_eq!(violation.earlier, None);
        }
        other => panic!("expected id-conflict, got {other:?}"),
    }
}

/// An unreadable input refuses the batch even under skip-invalid: the rest of the input is
/// unknown, so storing what came before would be a partial import reported as a success.
#[test]
fn unreadable_input_is_never_skipped() {
    let mut l = ledger_with(JOINS);
    let before = (l.head(), stored_lines(&l));
    let mut input = crate::items(&m("2026-03-01T12:00:00Z", Some("m-1"), "alice", "bob"));
    input.push(Err(ladder_events::Violation::new(Rule::Syntax, "bad line")));
    input.push(Err(ladder_events::Violation::new(Rule::Unreadable, "the disk failed")));
    match l.append(input, &SKIP) {
        Err(AppendError::Refused { index, violation }) => {
            assert_eq!((index, violation.rule), (2, Rule::Unreadable));
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!((l.head(), stored_lines(&l)), before);
}

/// A match of `n` seats among players `p0..p{n-1}`, in canonical form (as `ladder log --format
/// jsonl` prints it): names zero-padded to `width` digits, one more for the first `wider` seats.
fn big_match(n: usize, width: usize, wider: usize, id: &str) -> String {
    let seats: Vec<String> = (0..n)
        .map(|i| {
            let w = width + usize::from(i < wider);
            format!(r#"{{"player":"p{i:0w$}","score":{}.0}}"#, i % 7)
        })
        .collect();
    format!(
        r#"{{"type":"MatchResult","at":"2026-03-02T00:00:00Z","id":"{id}","seats":[{}]}}"#,
        seats.join(",")
    )
}

/// The event size bounds: 1,000 seats is the most (`too-many-seats` beyond), and an event's
/// canonical line at most 65,535 bytes (`event-too-long` beyond), each refused whole, naming the
/// rule, and skipped under `--skip-invalid`.
#[test]
fn a_match_has_at_most_1000_seats_and_an_event_line_at_most_65535_bytes() {
    let mut l = Ledger::memory();
    append_ok(&mut l, &big_match(1000, 3, 0, "ok"), AUTO);
    assert_eq!(l.head().seq, 1001);
    assert_eq!(refused(&mut l, &big_match(1001, 3, 0, "many"), AUTO), (0, Rule::TooManySeats));
    // The bound is on the line as stored. The line is 70 bytes around its seats (with id "e"),
    // and a seat `{"player":"p<w digits>","score":S.0}` is 27 + w bytes, its comma included
    // (the last has none): 70 + 1000 * (27 + 38) - 1 = 65,069 bytes at w = 38, so 466 seats one
    // digit wider make exactly 65,535, and 467 one byte more.
    let exact = big_match(1000, 38, 466, "e");
    assert_eq!(exact.len(), 65_535);
    let mut fresh = Ledger::memory();
    append_ok(&mut fresh, &exact, AUTO);
    assert_eq!(stored_lines(&fresh).pop().unwrap(), exact, "the input is canonical already");
    let over = big_match(1000, 38, 467, "e");
    let mut fresh = Ledger::memory();
    assert_eq!(refused(&mut fresh, &over, AUTO), (0, Rule::EventTooLong));
    // Skipped under --skip-invalid, by index and rule.
    let mut l = Ledger::memory();
    let both = format!("{}\n{}\n", big_match(1001, 3, 0, "a"), over);
    let r = l.append(items(&both), &AppendOptions { skip_invalid: true, ..AUTO }).unwrap();
    let rules: Vec<_> = r.skipped.iter().map(|(i, v)| (*i, v.rule)).collect();
    assert_eq!(rules, vec![(0, Rule::TooManySeats), (1, Rule::EventTooLong)]);
}
