//! A warm fold brought up to date equals a fresh replay of the same ledger, for every algorithm,
//! after appends and after a void of a match the warm fold had already counted.

use crate::common::{append, history};
use ladder_log::Ledger;
use ladder_replay::{registry, BoardRules, Snapshot};
use ladder_serve::reads::leaderboard_json;
use ladder_serve::warm::{bring_up, fresh, Warm, WarmCache};

fn same(a: &Warm, b: &Warm) {
    let sa = Snapshot::capture(&a.algo, &a.roster, a.through, &a.head).to_json();
    let sb = Snapshot::capture(&b.algo, &b.roster, b.through, &b.head).to_json();
    assert_eq!(sa, sb);
    let rules = BoardRules { min_games: 1, active_within: Some(3_600_000_000_000), top: None };
    assert_eq!(leaderboard_json(a, &rules, "1h"), leaderboard_json(b, &rules, "1h"));
}

#[test]
fn warm_folds_equal_fresh_replays_after_appends_and_voids() {
    let all = history(12, 400);
    let lines: Vec<&str> = all.lines().collect();
    for algo in ["elo", "glicko", "glicko2", "tgr", "zonestats", "weng-lin"] {
        let config = registry::config(algo, &[]).unwrap();
        let mut ledger = Ledger::memory();
        append(&mut ledger, &lines[..200].join("\n"));
        let mut warm = fresh(&config, &ledger).unwrap();
        for chunk in lines[200..].chunks(53) {
            append(&mut ledger, &chunk.join("\n"));
            warm = bring_up(Some(warm), &config, &ledger).unwrap();
            same(&warm, &fresh(&config, &ledger).unwrap());
        }
        // A void of a match the warm fold counted: it refolds, and still equals a fresh replay.
        append(
            &mut ledger,
            "{\"type\":\"MatchVoided\",\"at\":\"2026-01-03T00:00:00Z\",\"match\":\"r10\",\"reason\":\"test\"}",
        );
        warm = bring_up(Some(warm), &config, &ledger).unwrap();
        same(&warm, &fresh(&config, &ledger).unwrap());
        assert_eq!(warm.through, ledger.head().seq, "{algo}");
    }
}

#[test]
fn the_cache_keeps_at_most_its_capacity_dropping_the_least_recently_used() {
    let mut cache = WarmCache::new(2);
    let a = registry::config("elo", &[]).unwrap();
    let b = registry::config("elo", &[("k".into(), "10".into())]).unwrap();
    let c = registry::config("glicko", &[]).unwrap();
    let slot_a = cache.slot(&a);
    *slot_a.lock().unwrap() = None;
    cache.slot(&b);
    cache.slot(&a); // a is now the most recent
    cache.slot(&c); // drops b
    assert_eq!(cache.len(), 2);
    assert!(std::sync::Arc::ptr_eq(&slot_a, &cache.slot(&a)), "a was kept");
}
