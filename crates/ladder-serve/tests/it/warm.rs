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
    let mut cache: WarmCache = WarmCache::new(2);
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

/// `serve`'s warm TTT fold extends its converged estimate with each append and re-smooths only
/// where the new games reach (docs/serve.md, "Warm folds"); after convergence its leaderboard and
/// standings equal what `ladder replay` computes (a fresh projector converging the whole ledger)
/// to 1e-6.
#[test]
fn a_warm_ttt_fold_after_appends_equals_a_full_replay_to_1e_6() {
    use ladder_explain::LedgerHistory;
    use ladder_replay::{replay, Options};
    let all = history(12, 300);
    let lines: Vec<&str> = all.lines().collect();
    let sets =
        [("epsilon".to_string(), "1e-10".to_string()), ("iterations".into(), "100000".into())];
    let config = registry::config("ttt", &sets).unwrap();
    let rules = BoardRules { min_games: 1, active_within: None, top: None };
    let mut ledger = Ledger::memory();
    append(&mut ledger, &lines[..150].join("\n"));
    let mut warm = fresh(&config, &ledger).unwrap();
    for chunk in lines[150..].chunks(41) {
        append(&mut ledger, &chunk.join("\n"));
        warm = bring_up(Some(warm), &config, &ledger).unwrap();

        let mut full = registry::build(config.clone()).unwrap();
        let r =
            replay(&LedgerHistory::new(&ledger), &mut [&mut full], Options::default(), &mut |_| {})
                .unwrap();
        assert_eq!((warm.through, warm.head), (r.through, r.head));
        let fold = |s: String| serde_json::from_str::<serde_json::Value>(&s).unwrap();
        let a =
            fold(Snapshot::capture(&warm.algo, &warm.roster, warm.through, &warm.head).to_json());
        let b = fold(Snapshot::capture(&full, &r.roster, r.through, &r.head).to_json());
        let (pa, pb) = (a["players"].as_array().unwrap(), b["players"].as_array().unwrap());
        assert_eq!(pa.len(), pb.len());
        for (x, y) in pa.iter().zip(pb) {
            assert_eq!(x["player"], y["player"]);
            assert_eq!(x["games"], y["games"]);
            for field in ["rating", "sigma"] {
                let (u, v) = (x[field].as_f64().unwrap(), y[field].as_f64().unwrap());
                assert!((u - v).abs() < 1e-6, "{} {field}: warm {u}, replay {v}", x["player"]);
            }
        }
        let board = leaderboard_json(&warm, &rules, "all");
        let replayed = Warm {
            algo: full,
            roster: r.roster,
            through: r.through,
            head: r.head,
            activity: r.activity,
        };
        let want = leaderboard_json(&replayed, &rules, "all");
        // Ranks as the replay ranks, but for players whose ratings are within 1e-6 of each
        // other (this history is symmetric enough to have such ties): the same player at each
        // rank, or a tie.
        let (ra, rb) = (board["ranked"].as_array().unwrap(), want["ranked"].as_array().unwrap());
        assert_eq!(ra.len(), rb.len());
        let rating = |v: &serde_json::Value| v["rating"].as_f64().unwrap();
        for (x, y) in ra.iter().zip(rb) {
            assert_eq!(x["rank"], y["rank"]);
            let twin = rb.iter().find(|z| z["player"] == x["player"]).unwrap();
            assert!((rating(x) - rating(twin)).abs() < 1e-6, "{}", x["player"]);
            assert!(
                (rating(x) - rating(y)).abs() < 1e-6,
                "rank {}: {} or {}",
                x["rank"],
                x["player"],
                y["player"]
            );
        }
    }
}

/// A player's kept history ([`player_up_to`], what the player page and `GET /api/players/NAME`
/// read) brought up to date over each append, and over a void of a match it had counted, equals
/// a replay from the first event: the page's lines equal [`player_history`]'s and the API's
/// object equals [`player_json`]'s (the replays every read made before the histories were
/// kept), for every algorithm and for players with and without games in the new events.
#[test]
fn player_history_fold_equals_a_fresh_replay() {
    use ladder_serve::reads::{player_json, player_json_text};
    use ladder_serve::site::player_history;
    use ladder_serve::warm::player_up_to;
    // The kept answer's object, read back from the text the API writes.
    let player_json_kept = |warm: &_, f: &_| {
        player_json_text(warm, f).map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap())
    };
    let all = history(12, 400);
    let lines: Vec<&str> = all.lines().collect();
    let mut compared = 0;
    for algo in ["elo", "glicko", "glicko2", "tgr", "zonestats", "weng-lin", "ttt"] {
        let sets: &[(String, String)] = &[];
        let config = registry::config(algo, sets).unwrap();
        let mut ledger = Ledger::memory();
        append(&mut ledger, &lines[..200].join("\n"));
        let mut folds: Vec<_> =
            ["p0", "p5", "nobody"].iter().map(|n| (n.to_string(), None)).collect();
        let check = |ledger: &Ledger,
                     folds: &mut Vec<(String, Option<_>)>,
                     compared: &mut usize| {
            let head = ledger.head().seq;
            let warm = fresh(&config, ledger).unwrap();
            for (i, (name, kept)) in folds.iter_mut().enumerate() {
                // The API's ranked history for two players, the page's unranked one for p5.
                let ranked = i != 1;
                let f = player_up_to(kept.take(), &config, ledger, name, ranked, head).unwrap();
                assert_eq!(f.warm.through, head, "{algo} {name}");
                let fresh_lines = player_history(ledger, config.clone(), name).unwrap();
                let named = f.warm.roster.get(name).is_some();
                assert_eq!(named, fresh_lines.is_some(), "{algo} {name}");
                // The page's lines (which show no rank) are those of a fresh replay.
                let without_rank: Vec<_> = f
                    .lines
                    .iter()
                    .map(|l| {
                        format!("{:?}", ladder_serve::site::PlayerLine { rank: None, ..l.clone() })
                    })
                    .collect();
                let fresh_text: Vec<_> =
                    fresh_lines.unwrap_or_default().iter().map(|l| format!("{l:?}")).collect();
                assert_eq!(without_rank, fresh_text, "{algo} {name}");
                if ranked {
                    let old = player_json(&warm, ledger, name).unwrap();
                    assert_eq!(player_json_kept(&warm, &f), old, "{algo} {name}");
                    // The text the API writes is serde_json's of the same object, byte for byte.
                    assert_eq!(
                        player_json_text(&warm, &f),
                        old.as_ref().map(|v| serde_json::to_string(v).unwrap()),
                        "{algo} {name}"
                    );
                    *compared += usize::from(old.is_some());
                } else {
                    assert!(f.lines.iter().all(|l| l.rank.is_none()), "{algo} {name}");
                    let ranked = player_up_to(None, &config, ledger, name, true, head).unwrap();
                    let old = player_json(&warm, ledger, name).unwrap();
                    assert_eq!(player_json_kept(&warm, &ranked), old, "{algo} {name}");
                    *compared += usize::from(old.is_some());
                }
                *kept = Some(f);
            }
        };
        check(&ledger, &mut folds, &mut compared);
        for chunk in lines[200..].chunks(53) {
            append(&mut ledger, &chunk.join("\n"));
            check(&ledger, &mut folds, &mut compared);
        }
        append(
            &mut ledger,
            "{\"type\":\"MatchVoided\",\"at\":\"2026-01-03T00:00:00Z\",\"match\":\"r10\",\"reason\":\"test\"}",
        );
        check(&ledger, &mut folds, &mut compared);
    }
    // Two named players, 6 rounds each, 7 algorithms.
    assert_eq!(compared, 2 * 6 * 7);
}

/// An explanation started from the kept states of a fold ([`ladder_serve::warm::KeptStarts`])
/// is the one `ladder explain` builds from the first event, byte for byte: at events around the
/// states (4,096 events apart here), after voids inside one state's span and across one (a
/// match before a state voided after it), for a per-game algorithm and one with rating periods,
/// with events asked for in an order that makes states both before and after they are used.
#[test]
fn explanations_from_kept_states_equal_those_from_the_first_event() {
    use ladder_explain::{explain, explain_with, Request};
    use ladder_serve::warm::{KeptStarts, Marks};
    let mut text = history(20, 9000);
    // r4000 (event 4,020) is voided at event 9,021, after the state at 4,096; r5000 (event
    // 5,020) at 9,022, inside the span of the state at 8,192.
    for (i, m) in ["r4000", "r5000"].iter().enumerate() {
        text.push_str(&format!(
            "{{\"type\":\"MatchVoided\",\"at\":\"2026-01-03T00:00:0{i}Z\",\"match\":\"{m}\",\"reason\":\"test\"}}\n"
        ));
    }
    text.push_str(
        &history(20, 300)
            .lines()
            .skip(20)
            .map(|l| l.replace("2026-01-02", "2026-01-04").replace("\"id\":\"r", "\"id\":\"s"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let mut ledger = Ledger::memory();
    append(&mut ledger, &text);
    let head = ledger.head().seq;
    assert_eq!(head, 20 + 9000 + 2 + 300);
    let seqs = [
        8193, 9300, 3, 21, 4020, 4021, 4095, 4096, 4097, 4098, 5020, 5021, 8191, 8192, 9021, 9022,
        9023, 9100, head, 6000, 100,
    ];
    for algo in ["elo", "glicko2"] {
        let config = registry::config(algo, &[]).unwrap();
        let cache = std::sync::Mutex::new(WarmCache::<Marks>::new(4));
        let starts = KeptStarts { cache: &cache, ledger: &ledger };
        for seq in seqs {
            let request = Request { config: config.clone(), seq, player: None, vs: Vec::new() };
            let kept = explain_with(&ledger, &request, &starts).unwrap().to_json();
            let fresh = explain(&ledger, &request).unwrap().to_json();
            assert_eq!(kept.to_string(), fresh.to_string(), "{algo} event {seq}");
        }
        // States were made and used: the one before event 8,193 is the state at 8,192.
        let start = ladder_explain::Starts::before(&starts, &config, 8193).unwrap();
        assert_eq!(start.seq, 8192);
        // The state at 4,096 counted r4000, voided at 9,021: passed over through 9,021 on.
        assert_eq!(ladder_explain::Starts::before(&starts, &config, 9020).unwrap().seq, 8192);
        assert!(ladder_explain::Starts::before(&starts, &config, 9021).is_none());
    }
}
