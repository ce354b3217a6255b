//! Pipelined appends (`Staged::commit_meanwhile`, `Ledger::stage_after`, `Ledger::resume`): the
//! next group staged while the previous one's syncs run stores exactly what appending the groups
//! one after the other stores, checks its rules against the group below it, writes nothing
//! before that group is durable and published, and is never acknowledged when that group's
//! syncs fail.

use crate::{check_after_fault, items, Failing, Switched};
use ladder_events::json::to_line;
use ladder_log::{
    AppendError, AppendOptions, AppendReport, Held, Ledger, LogError, SledStore, Store,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn join(p: &str, at: &str) -> String {
    format!("{{\"type\":\"PlayerJoined\",\"at\":\"{at}\",\"player\":\"{p}\"}}")
}

fn result(id: &str, at: &str, a: &str, b: &str) -> String {
    format!(
        "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"id\":\"{id}\",\"seats\":[{{\"player\":\"{a}\",\"score\":1}},{{\"player\":\"{b}\",\"score\":0}}]}}"
    )
}

fn void(id: &str, at: &str, target: &str) -> String {
    format!(
        "{{\"type\":\"MatchVoided\",\"at\":\"{at}\",\"id\":\"{id}\",\"match\":\"{target}\",\"reason\":\"entered twice\"}}"
    )
}

/// Three groups, each reading what the one before wrote: joins used by the next group's
/// results, a retry of an earlier group's result (a duplicate), a void of the group before's
/// match.
fn groups() -> [String; 3] {
    let g1 = [
        join("ann", "2026-03-01T00:00:00Z"),
        join("ben", "2026-03-01T00:00:00Z"),
        result("m1", "2026-03-01T01:00:00Z", "ann", "ben"),
    ];
    let g2 = [
        join("cat", "2026-03-01T02:00:00Z"),
        result("m1", "2026-03-01T01:00:00Z", "ann", "ben"),
        result("m2", "2026-03-01T02:00:00Z", "ann", "cat"),
        result("m3", "2026-03-01T03:00:00Z", "ben", "cat"),
    ];
    let g3 = [
        void("v2", "2026-03-01T04:00:00Z", "m2"),
        result("m3", "2026-03-01T03:00:00Z", "ben", "cat"),
        result("m4", "2026-03-01T05:00:00Z", "cat", "ann"),
    ];
    [g1.join("\n"), g2.join("\n"), g3.join("\n")]
}

fn deferring(mut l: Ledger) -> Ledger {
    // What `ladder serve` sets: a commit leaves its ids in memory, so it lends what the next
    // group needs.
    l.defer_id_index(65_536);
    l
}

/// Appends the groups pipelined: each group after the first is staged while the one before it
/// is made durable, then resumed once that one is published. Returns each group's report.
fn pipelined(l: &mut Ledger, groups: &[String]) -> Vec<AppendReport> {
    let opts = AppendOptions::default();
    let mut reports = Vec::new();
    let mut held: Option<Held> = None;
    for i in 0..groups.len() {
        let shared: &Ledger = l;
        let staged = match held.take() {
            Some(h) => shared.resume(h).expect("resumes on the group below, published"),
            None => shared.stage(items(&groups[i]), &opts).unwrap(),
        };
        let (durable, next) = staged.commit_meanwhile(|below| {
            let next = groups.get(i + 1)?;
            let below = below.expect("a group with deferred ids lends the next one its state");
            assert!(below.last_at().is_some(), "the group below has a last event");
            Some(shared.stage_after(Some(below), items(next), &opts))
        });
        let durable = durable.unwrap();
        reports.push(l.publish(durable).unwrap());
        held = next.map(|staged| staged.unwrap().expect("staged on top of the group below"));
    }
    reports
}

fn stored(l: &Ledger) -> Vec<String> {
    l.events(1).map(|e| to_line(&e.unwrap().event)).collect()
}

#[test]
fn pipelined_groups_store_what_groups_appended_one_after_another_store() {
    let groups = groups();
    let mut plain = deferring(Ledger::memory());
    let plain_reports: Vec<AppendReport> =
        groups.iter().map(|g| plain.append(items(g), &AppendOptions::default()).unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut l = deferring(Ledger::open(&path).unwrap());
    let reports = pipelined(&mut l, &groups);
    // The same reports (appended, duplicates, heads), so the same chain: the heads' hashes.
    assert_eq!(reports, plain_reports);
    assert_eq!((reports[1].appended, reports[1].duplicates), (3, 1));
    assert_eq!((reports[2].appended, reports[2].duplicates), (2, 1));
    assert_eq!(l.head(), plain.head());
    assert_eq!(l.root().unwrap(), plain.root().unwrap());
    assert_eq!(stored(&l), stored(&plain));
    drop(l);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.verify(None).unwrap(), plain.head());
    // Every id is found after the reopen: a retry of each group's events is all duplicates.
    let mut l = deferring(l);
    for g in &groups {
        let r = l.append(items(g), &AppendOptions::default()).unwrap();
        assert_eq!(r.appended, 0, "{r:?}");
    }
}

/// A group staged on top of another is checked against it (a conflict with its id, a time
/// before its last event, a player it did not join) and refused with the input index, and
/// nothing of it is written; the group below commits and publishes as if it were alone.
#[test]
fn a_group_staged_on_another_is_checked_against_it_and_a_refusal_writes_nothing() {
    let groups = groups();
    let opts = AppendOptions::default();
    let refused = [
        // m1 again with other content: a conflict with the group below.
        (result("m1", "2026-03-01T03:00:00Z", "ben", "ann"), "id-conflict"),
        // Before the group below's last event.
        (result("m9", "2026-03-01T00:30:00Z", "ann", "ben"), "time-order"),
        // Dan joined nowhere (m8 before it names cat, whom the group below joined).
        (result("m9", "2026-03-01T06:00:00Z", "ann", "dan"), "joined-first"),
    ];
    for (line, rule) in refused {
        let mut l = deferring(Ledger::memory());
        l.append(items(&groups[0]), &opts).unwrap();
        let shared: &Ledger = &l;
        let staged = shared.stage(items(&groups[1]), &opts).unwrap();
        let input = format!(
            "{}
{line}",
            result("m8", "2026-03-01T05:00:00Z", "ann", "cat")
        );
        let (durable, next) =
            staged.commit_meanwhile(|below| shared.stage_after(below, items(&input), &opts));
        match next {
            Err(AppendError::Refused { index, violation }) => {
                assert_eq!((index, violation.rule.to_string()), (1, rule.to_string()))
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("{line} was staged"),
        }
        let report = l.publish(durable.unwrap()).unwrap();
        assert_eq!(report.head.seq, 6);
        // Nothing of the refused group is stored: the next append starts right after the head.
        let r = l.append(items(&groups[2]), &opts).unwrap();
        assert_eq!(r.head.seq, 8);
        assert_eq!(l.verify(None).unwrap(), r.head);
    }
}

/// Without deferred ids a commit writes the id index, so the next group is not staged on top of
/// it (`None`: stage it after the publish); the group below commits as always.
#[test]
fn a_group_that_writes_the_id_index_lends_nothing() {
    let groups = groups();
    let opts = AppendOptions::default();
    let mut l = Ledger::memory();
    let shared: &Ledger = &l;
    let staged = shared.stage(items(&groups[0]), &opts).unwrap();
    let (durable, next) = staged.commit_meanwhile(|below| {
        assert!(below.is_none());
        shared.stage_after(below, items(&groups[1]), &opts)
    });
    assert!(matches!(next, Ok(None)));
    l.publish(durable.unwrap()).unwrap();
    let r = l.append(items(&groups[1]), &opts).unwrap();
    assert_eq!(r.appended, 3);
}

/// Group N's syncs fail while group N+1 is staged on top of it: N's commit is unconfirmed (the
/// handle takes no more appends), N+1 is never resumed, and the ledger opened again holds the
/// groups before N, and N whole or not at all, never anything of N+1.
#[test]
fn a_failed_sync_of_a_group_leaves_neither_it_nor_the_group_staged_on_it_acknowledged() {
    let groups = groups();
    let opts = AppendOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let fail = Arc::new(AtomicBool::new(false));
    let f = fail.clone();
    let p = path.clone();
    let wrap = move |inner: SledStore| -> Box<dyn Store> {
        Box::new(Switched { inner, path: p.clone(), on: f.clone(), failing: Failing::Flush })
    };
    let mut l = deferring(Ledger::open_with(&path, wrap).unwrap());
    l.append(items(&groups[0]), &opts).unwrap();
    let shared: &Ledger = &l;
    let staged = shared.stage(items(&groups[1]), &opts).unwrap();
    fail.store(true, Ordering::SeqCst);
    let (durable, next) =
        staged.commit_meanwhile(|below| shared.stage_after(below, items(&groups[2]), &opts));
    assert!(matches!(durable, Err(AppendError::Unconfirmed(_))), "the commit failed");
    let held = next.unwrap().expect("staged in memory while the syncs ran");
    assert_eq!(held.report().appended, 2);
    // The group staged on it is refused, and so is any other append of this handle.
    assert!(matches!(l.resume(held), Err(AppendError::Storage(LogError::Poisoned))));
    assert!(matches!(
        l.append(items(&groups[2]), &opts),
        Err(AppendError::Storage(LogError::Poisoned))
    ));
    drop(l);
    // Opened again: group 1 (3 events), and group 2 (3 more) whole or not at all; never group 3.
    let expected: Vec<String> = items(&groups.join(
        "
",
    ))
    .into_iter()
    .map(|e| to_line(&e.unwrap()))
    .filter({
        let mut seen = std::collections::HashSet::new();
        move |line| seen.insert(line.clone())
    })
    .collect();
    let n = check_after_fault(&path, &expected, 3, 3);
    assert!(n == 3 || n == 6, "{n}");
}
