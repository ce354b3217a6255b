//! The replay driver and the canonical output, with no disk: an in-memory history.

use ladder_events::{json::parse_line, Body, Event, Timestamp};
use ladder_projector::{Display, ParamValue, PlayerId, Standing};
use ladder_replay::checkpoint::{replay_checkpointed, CheckpointStore, Entry};
use ladder_replay::{
    registry, replay, BoardRules, History, HistoryEvent, LeftOut, Options, ReplayError, Row,
    Snapshot, Until,
};
use std::collections::HashMap;

struct Memory {
    events: Vec<HistoryEvent>,
    voids: HashMap<String, (u64, Timestamp)>,
}

impl Memory {
    fn new(events: Vec<Event>) -> Memory {
        let mut prev = [0u8; 32];
        let mut voids = HashMap::new();
        let events = events
            .into_iter()
            .enumerate()
            .map(|(i, event)| {
                let seq = i as u64 + 1;
                let mut h = blake3::Hasher::new();
                h.update(&prev);
                h.update(&ladder_events::codec::encode(&event));
                prev = *h.finalize().as_bytes();
                if let Body::MatchVoided { match_id, .. } = &event.body {
                    voids.insert(match_id.clone(), (seq, event.at));
                }
                HistoryEvent { seq, hash: prev, event }
            })
            .collect();
        Memory { events, voids }
    }

    fn fixture(name: &str) -> Memory {
        let path = format!("{}/../../fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        Memory::new(text.lines().map(|l| parse_line(l).unwrap()).collect())
    }
}

impl History for Memory {
    fn events_from(
        &self,
        from: u64,
    ) -> Box<dyn Iterator<Item = Result<HistoryEvent, ReplayError>> + '_> {
        Box::new(self.events.iter().skip(from.saturating_sub(1) as usize).cloned().map(Ok))
    }
    fn voided_at(&self, match_id: &str) -> Option<(u64, Timestamp)> {
        self.voids.get(match_id).copied()
    }
    fn head_seq(&self) -> u64 {
        self.events.len() as u64
    }
    fn voids(&self) -> Vec<(u64, u64)> {
        self.voids
            .iter()
            .map(|(id, (v, _))| {
                let m = self.events.iter().find(|h| h.event.id.as_deref() == Some(id)).unwrap().seq;
                (*v, m)
            })
            .collect()
    }
}

/// Checkpoints in memory.
#[derive(Default)]
struct Store(std::cell::RefCell<std::collections::BTreeMap<Vec<u8>, Vec<u8>>>);

impl CheckpointStore for Store {
    fn list(&self, prefix: &[u8]) -> Result<Vec<Entry>, ReplayError> {
        Ok(self
            .0
            .borrow()
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
    fn put(&self, key: &[u8], _at: (u64, [u8; 32]), value: &[u8]) -> Result<(), ReplayError> {
        self.0.borrow_mut().insert(key.to_vec(), value.to_vec());
        Ok(())
    }
}

fn snapshot(history: &Memory, algo: &str, sets: &[(&str, &str)], until: Until) -> Snapshot {
    let sets: Vec<(String, String)> =
        sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut p = registry::build(registry::config(algo, &sets).unwrap()).unwrap();
    let r = replay(history, &mut [&mut p], Options { until, ..Options::default() }, &mut |_| {})
        .unwrap();
    Snapshot::capture(&p, &r.roster, r.through, &r.head)
}

#[test]
fn json_has_the_documented_shape() {
    // Written by hand from docs/outputs.md: keys in order, floats shortest, null glixare.
    let snap = Snapshot {
        algorithm: "tgr",
        config: vec![
            ("sc", ParamValue::Number(20.0)),
            ("order", ParamValue::Text("as-written".into())),
        ],
        through: 5,
        head: "ab".repeat(32),
        players: vec![Row {
            player: "al\"ice".into(),
            standing: Standing {
                player: PlayerId(0),
                rating: 1563.2,
                rd: Some(290.3),
                volatility: None,
                sigma: None,
                games: 1,
                display: Some(Display { provisional: true, glixare: None }),
            },
        }],
        prediction: None,
    };
    let without = format!(
        "{{\"algorithm\":\"tgr\",\"config\":{{\"sc\":20.0,\"order\":\"as-written\"}},\"through\":5,\"head\":\"{}\",\"players\":[{{\"player\":\"al\\\"ice\",\"rating\":1563.2,\"rd\":290.3,\"games\":1,\"provisional\":true,\"glixare\":null}}]}}",
        "ab".repeat(32)
    );
    let digest = blake3::hash(without.as_bytes()).to_hex().to_string();
    assert_eq!(snap.digest(), digest);
    let with = without.replace(",\"players\"", &format!(",\"digest\":\"{digest}\",\"players\""));
    assert_eq!(snap.to_json(), with);
}

#[test]
fn same_history_same_digest_and_until_equals_prefix() {
    let full = Memory::fixture("club.jsonl");
    for algo in registry::ALGORITHMS {
        let a = snapshot(&full, algo, &[], Until::Head);
        let b = snapshot(&full, algo, &[], Until::Head);
        assert_eq!(a.to_json(), b.to_json());
        for n in [1, 10, 40, 70] {
            // A ledger holding only the first n events, with its own void index.
            let prefix = Memory::new(full.events[..n].iter().map(|h| h.event.clone()).collect());
            let cut = snapshot(&full, algo, &[], Until::Seq(n as u64));
            let whole = snapshot(&prefix, algo, &[], Until::Head);
            assert_eq!(cut.digest(), whole.digest(), "{algo} through {n}");
            assert_eq!(cut.head, whole.head);
        }
    }
}

#[test]
fn a_voided_match_counts_only_before_its_void() {
    let club = Memory::fixture("club.jsonl");
    let (void_seq, match_seq) = {
        let v = club.voids.get("c20").unwrap().0;
        let m = club.events.iter().find(|h| h.event.id.as_deref() == Some("c20")).unwrap().seq;
        (v, m)
    };
    for algo in registry::ALGORITHMS {
        // Through the head, c20 was never played: the same as a history without c20 and its void.
        let without: Vec<Event> = club
            .events
            .iter()
            .filter(|h| {
                h.event.id.as_deref() != Some("c20")
                    && !matches!(h.event.body, Body::MatchVoided { .. })
            })
            .map(|h| h.event.clone())
            .collect();
        let a = snapshot(&club, algo, &[], Until::Head);
        let b = snapshot(&Memory::new(without), algo, &[], Until::Head);
        assert_eq!(a.players, b.players, "{algo}");
        // Just before the void, c20 counts: games differ from the voided replay.
        let before = snapshot(&club, algo, &[], Until::Seq(void_seq - 1));
        let after_match_without = snapshot(&club, algo, &[], Until::Seq(match_seq - 1));
        assert!(before.through > after_match_without.through);
        let played: u64 = before.players.iter().map(|r| r.standing.games).sum();
        let replayed_without = Memory::new(
            club.events[..(void_seq - 1) as usize]
                .iter()
                .filter(|h| h.event.id.as_deref() != Some("c20"))
                .map(|h| h.event.clone())
                .collect(),
        );
        let played_without: u64 = snapshot(&replayed_without, algo, &[], Until::Head)
            .players
            .iter()
            .map(|r| r.standing.games)
            .sum();
        assert_eq!(played, played_without + 2, "{algo}: c20 has two seats");
    }
}

#[test]
fn until_parses_sequences_and_instants() {
    assert_eq!(Until::parse("17"), Ok(Until::Seq(17)));
    assert_eq!(
        Until::parse("2026-03-01"),
        Ok(Until::Instant(Timestamp::parse("2026-03-01").unwrap()))
    );
    assert!(Until::parse("soon").is_err());
}

#[test]
fn yaml_snapshots_of_every_fixture() {
    insta::glob!("../../../fixtures", "*.jsonl", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let history = Memory::fixture(name);
        let mut out = String::new();
        for algo in registry::ALGORITHMS {
            out.push_str(&snapshot(&history, algo, &[], Until::Head).to_yaml());
            out.push_str("---\n");
        }
        insta::assert_snapshot!(out);
    });
}

/// The leaderboard of `lines` under `algo` with `sets` and `rules`.
fn board(
    lines: &[&str],
    algo: &str,
    sets: &[(&str, &str)],
    rules: &BoardRules,
) -> ladder_replay::Leaderboard {
    let history = Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect());
    let sets: Vec<(String, String)> =
        sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut p = registry::build(registry::config(algo, &sets).unwrap()).unwrap();
    let r = replay(&history, &mut [&mut p], Options::default(), &mut |_| {}).unwrap();
    ladder_replay::leaderboard(&p, &r.roster, &r.activity, rules)
}

fn ranks(board: &ladder_replay::Leaderboard) -> Vec<(usize, &str)> {
    board.ranked.iter().map(|r| (r.rank, r.row.player.as_str())).collect()
}

const DAY: i64 = 86_400_000_000_000;

#[test]
fn leaderboard_ranks_share_on_ties() {
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"d"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"c"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a","rating":1500,"rd":50}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"d","score":1},{"player":"a","score":0}]}"#,
    ];
    // Elo, everyone: d won (above 1500), b and c untouched at 1500 share rank 2 by name, a lost.
    let elo = board(&lines, "elo", &[], &BoardRules::everyone());
    assert_eq!(ranks(&elo), vec![(1, "d"), (2, "b"), (2, "c"), (4, "a")]);
    assert_eq!(elo.left_out, LeftOut::default());
    assert_eq!((elo.key, elo.provisional_rd), ("rating", None));
    // --top 3 cuts inside nothing: b and c keep their shared rank, a is counted below the top.
    let top = board(&lines, "elo", &[], &BoardRules { top: Some(3), ..BoardRules::everyone() });
    assert_eq!(ranks(&top), vec![(1, "d"), (2, "b"), (2, "c")]);
    assert_eq!(top.left_out, LeftOut { below_top: 1, ..LeftOut::default() });
    // TGR: only a (RD 50 prior) is established; the rest (RD near 350) are left out, counted.
    let tgr = board(&lines, "tgr", &[], &BoardRules::everyone());
    assert_eq!(ranks(&tgr), vec![(1, "a")]);
    assert_eq!(tgr.left_out, LeftOut { provisional: 3, ..LeftOut::default() });
    assert_eq!((tgr.key, tgr.provisional_rd), ("glixare", Some(100.0)));
}

#[test]
fn tgr_ranks_by_glixare_with_ties_by_name_and_leaves_provisional_players_out() {
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"zed","rating":1700,"rd":50}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"amy","rating":1700,"rd":50}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"kim","rating":1800,"rd":60}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"new","rating":2500}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"low","rating":1200,"rd":40}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"bee"}"#,
    ];
    let b = board(&lines, "tgr", &[], &BoardRules::everyone());
    // new (rating 2500) is provisional: its rating does not rank it.
    assert_eq!(ranks(&b), vec![(1, "kim"), (2, "amy"), (2, "zed"), (4, "low")]);
    assert_eq!(b.left_out.provisional, 2);
    // GLIXARE is the key: kim's displayed percentage.
    assert_eq!(
        b.ranked[0].row.standing.display.unwrap().glixare,
        Some(ladder_tgr::glixare(1800.0, 60.0))
    );
}

#[test]
fn min_games_leaves_out_players_with_fewer_rated_games() {
    // a plays three games, b two, c one (all against a), d none.
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"a"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"b"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"c"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"d"}"#,
        r#"{"type":"MatchResult","at":"2026-03-02T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-03-03T10:00:00Z","seats":[{"player":"b","score":1},{"player":"a","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-03-04T10:00:00Z","seats":[{"player":"a","score":1},{"player":"c","score":0}]}"#,
    ];
    let rules = BoardRules { min_games: 2, active_within: None, top: None };
    let b = board(&lines, "elo", &[], &rules);
    let mut listed: Vec<&str> = b.ranked.iter().map(|r| r.row.player.as_str()).collect();
    listed.sort();
    assert_eq!(listed, ["a", "b"]);
    assert_eq!(b.left_out, LeftOut { few_games: 2, ..LeftOut::default() });
    assert!(b.ranked.iter().all(|r| r.row.standing.games >= 2));
    // Exactly min_games is enough; min_games 0 lists d, who never played.
    let all = board(&lines, "elo", &[], &BoardRules { min_games: 0, ..rules });
    assert_eq!(all.ranked.len(), 4);
}

#[test]
fn active_within_leaves_out_players_whose_last_game_is_too_long_before_the_last_event() {
    // old last played on 2025-01-01; edge exactly 365 days before the last event; now on it.
    let lines = [
        r#"{"type":"PlayerJoined","at":"2024-12-01T00:00:00Z","player":"old"}"#,
        r#"{"type":"PlayerJoined","at":"2024-12-01T00:00:00Z","player":"edge"}"#,
        r#"{"type":"PlayerJoined","at":"2024-12-01T00:00:00Z","player":"now"}"#,
        r#"{"type":"PlayerJoined","at":"2024-12-01T00:00:00Z","player":"idle"}"#,
        r#"{"type":"MatchResult","at":"2025-01-01T12:00:00Z","seats":[{"player":"old","score":1},{"player":"edge","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2025-02-01T12:00:00Z","seats":[{"player":"edge","score":1},{"player":"now","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-02-01T12:00:00Z","seats":[{"player":"now","score":1},{"player":"edge","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-02-01T12:00:00Z","seats":[{"player":"now","score":1},{"player":"edge","score":0}]}"#,
    ];
    // The last event is 2026-02-01T12:00, when edge and now last played; old last played 396
    // days before it (2025-01-01T12:00), idle never did.
    let within =
        |days: i64| BoardRules { min_games: 0, active_within: Some(days * DAY), top: None };
    let b = board(&lines, "elo", &[], &within(365));
    let mut listed: Vec<&str> = b.ranked.iter().map(|r| r.row.player.as_str()).collect();
    listed.sort();
    assert_eq!(listed, ["edge", "now"]);
    // old (396 days) and idle (never played) are inactive.
    assert_eq!(b.left_out, LeftOut { inactive: 2, ..LeftOut::default() });
    let last = b.ranked.iter().find(|r| r.row.player == "now").unwrap().last_played.unwrap();
    assert_eq!(last, Timestamp::parse("2026-02-01T12:00:00Z").unwrap());
    // 396 days is old's distance exactly: at most the duration counts as active.
    let b = board(&lines, "elo", &[], &within(396));
    assert_eq!(b.ranked.len(), 3);
    let b = board(&lines, "elo", &[], &within(395));
    assert_eq!(b.ranked.len(), 2);
    // `all` (None) keeps everyone, even idle.
    let b = board(&lines, "elo", &[], &BoardRules::everyone());
    assert_eq!(b.ranked.len(), 4);
}

#[test]
fn glicko_and_glicko2_leave_out_players_above_their_provisional_rd() {
    // Two established players (RD 40 priors) and a newcomer (RD 350) who played once.
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"x","rating":1600,"rd":40}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"y","rating":1500,"rd":40}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"n"}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"n","score":1},{"player":"x","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T11:00:00Z","seats":[{"player":"y","score":1},{"player":"x","score":0}]}"#,
    ];
    for algo in ["glicko", "glicko2"] {
        let b = board(&lines, algo, &[], &BoardRules::everyone());
        let max_rd = b.ranked.iter().map(|r| r.row.standing.rd.unwrap()).fold(0.0, f64::max);
        assert!(max_rd <= 100.0, "{algo}: every listed RD is at most provisional_rd");
        let mut listed: Vec<&str> = b.ranked.iter().map(|r| r.row.player.as_str()).collect();
        listed.sort();
        assert_eq!(listed, ["x", "y"], "{algo}");
        assert_eq!(b.left_out, LeftOut { provisional: 1, ..LeftOut::default() }, "{algo}");
        // A provisional_rd above the newcomer's RD lists them too.
        let wide = board(&lines, algo, &[("provisional_rd", "350")], &BoardRules::everyone());
        assert_eq!(wide.ranked.len(), 3, "{algo}");
        assert_eq!(wide.provisional_rd, Some(350.0));
    }
}

#[test]
fn each_left_out_player_is_counted_once_under_the_first_rule_they_fail() {
    // p never played: inactive (and too few games, and provisional), counted as inactive only.
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"p"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"q"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"r","rating":1500,"rd":40}"#,
        r#"{"type":"MatchResult","at":"2026-03-02T10:00:00Z","seats":[{"player":"q","score":1},{"player":"r","score":0}]}"#,
    ];
    let rules = BoardRules { min_games: 1, active_within: Some(DAY), top: None };
    let b = board(&lines, "glicko", &[], &rules);
    // q played once (enough games) but is provisional; r is listed.
    assert_eq!(ranks(&b), vec![(1, "r")]);
    assert_eq!(b.left_out, LeftOut { inactive: 1, few_games: 0, provisional: 1, below_top: 0 });
    let line = ladder_replay::left_out_line(&b, &rules).unwrap();
    assert_eq!(
        line,
        "left out: 1 inactive (no game within 1d of the last event; --active-within all keeps \
         them), 1 provisional (RD above 100)"
    );
}

#[test]
fn checkpointed_and_fresh_replays_agree() {
    for fixture in ["club.jsonl", "teams.jsonl", "glickman.jsonl"] {
        let history = Memory::fixture(fixture);
        let n = history.events.len() as u64;
        for algo in registry::ALGORITHMS {
            let config = registry::config(algo, &[]).unwrap();
            let fresh = snapshot(&history, algo, &[], Until::Head);
            let mut stale_seen = false;
            for cut in (1..n).step_by(7).chain([n - 1]) {
                let store = Store::default();
                let (_, _, first) =
                    replay_checkpointed(&history, &store, config.clone(), Until::Seq(cut)).unwrap();
                assert_eq!(
                    first,
                    ladder_replay::checkpoint::CheckpointUse {
                        resumed_from: None,
                        saved_at: Some(cut)
                    }
                );
                let (p, r, second) =
                    replay_checkpointed(&history, &store, config.clone(), Until::Head).unwrap();
                // club.jsonl voids c20 late: a checkpoint taken after c20 but before its void
                // still counts the match, so it must not be used; every other checkpoint is.
                let stale = history.voids().iter().any(|&(void, m)| m <= cut && cut < void);
                let usable = !stale;
                assert_eq!(
                    second.resumed_from,
                    usable.then_some(cut),
                    "{fixture} {algo} cut {cut}"
                );
                stale_seen |= stale;
                let resumed = Snapshot::capture(&p, &r.roster, r.through, &r.head);
                assert_eq!(resumed.to_json(), fresh.to_json(), "{fixture} {algo} cut {cut}");
            }
            assert_eq!(
                stale_seen,
                fixture == "club.jsonl",
                "the stale-checkpoint case is exercised"
            );
        }
    }
}

#[test]
fn parallel_folds_equal_sequential_ones() {
    for fixture in ["club.jsonl", "teams.jsonl", "glickman.jsonl"] {
        let history = Memory::fixture(fixture);
        for algo in registry::ALGORITHMS {
            // Three configurations differing in their first numeric constant, where there is one.
            let spec = registry::params(algo).unwrap();
            let configs: Vec<_> = (0..3)
                .map(|i| {
                    let sets = match spec
                        .iter()
                        .find(|s| matches!(s.kind, ladder_projector::ParamKind::Number { .. }))
                    {
                        Some(s) => {
                            let base: f64 = s.default.parse().unwrap();
                            vec![(
                                s.key.to_string(),
                                (base * (1.0 + 0.25 * i as f64)).min(1.0f64.max(base)).to_string(),
                            )]
                        }
                        None => vec![],
                    };
                    registry::config(algo, &sets).unwrap()
                })
                .collect();
            let mut seq: Vec<_> =
                configs.iter().cloned().map(|c| registry::build(c).unwrap()).collect();
            let mut par: Vec<_> =
                configs.iter().cloned().map(|c| registry::build(c).unwrap()).collect();
            let mut a: Vec<&mut dyn ladder_projector::Projector> =
                seq.iter_mut().map(|p| p as _).collect();
            let ra = replay(
                &history,
                &mut a,
                Options { warmup: Some(3), ..Options::default() },
                &mut |_| {},
            )
            .unwrap();
            let mut b: Vec<&mut (dyn ladder_projector::Projector + Send)> =
                par.iter_mut().map(|p| p as _).collect();
            let rb =
                ladder_replay::replay_parallel(&history, &mut b, Until::Head, Some(3), 2).unwrap();
            assert_eq!((ra.through, ra.head), (rb.through, rb.head));
            assert_eq!(ra.scores, rb.scores, "{fixture} {algo}");
            assert_eq!(ra.activity, rb.activity, "{fixture} {algo}");
            for (x, y) in seq.iter().zip(&par) {
                let sx = Snapshot::capture(x, &ra.roster, ra.through, &ra.head);
                let sy = Snapshot::capture(y, &rb.roster, rb.through, &rb.head);
                assert_eq!(sx.to_json(), sy.to_json(), "{fixture} {algo}");
            }
        }
    }
}
#[path = "replay/by_day.rs"]
mod by_day;
#[path = "replay/extremes.rs"]
mod extremes;
#[path = "replay/folded.rs"]
mod folded;
#[path = "replay/home.rs"]
mod home;
#[path = "replay/revert.rs"]
mod revert;

/// A history long enough for several of the fast driver's chunks (8,192 steps) and many of the
/// default `records_from` runs (64 events), with ticks, voids, a three-seat match and teams.
fn long_history() -> Memory {
    let mut lines = Vec::new();
    let day = |i: usize| format!("2026-01-{:02}", 1 + i / 1000);
    let at = |i: usize| format!("{}T{:02}:{:02}:{:02}Z", day(i), 1 + i % 1000 / 60, i % 60, i % 7);
    for p in 0..150 {
        lines.push(format!(
            r#"{{"type":"PlayerJoined","at":"2025-12-31T00:00:00Z","player":"p{p}"}}"#
        ));
    }
    let mut x: u64 = 7;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    for i in 0..20_000 {
        if i % 1000 == 0 {
            lines.push(format!(r#"{{"type":"MidnightTick","at":"{}"}}"#, day(i)));
        }
        let (a, b) = (next() % 150, next() % 150);
        if a == b {
            lines.push(format!(r#"{{"type":"QueueTimeout","at":"{}","player":"p{a}"}}"#, at(i)));
        } else if i % 997 == 0 {
            let c = (0..150).find(|c| *c != a && *c != b).unwrap();
            lines.push(format!(
                r#"{{"type":"MatchResult","at":"{}","id":"m{i}","seats":[{{"player":"p{a}","score":3,"team":1}},{{"player":"p{b}","score":1,"team":2}},{{"player":"p{c}","score":3,"team":1}}]}}"#,
                at(i)
            ));
        } else {
            let score = [1.0, 0.0, 0.5][next() % 3];
            lines.push(format!(
                r#"{{"type":"MatchResult","at":"{}","id":"m{i}","seats":[{{"player":"p{a}","score":{score}}},{{"player":"p{b}","score":{}}}]}}"#,
                at(i),
                1.0 - score
            ));
        }
        if i % 4001 == 5 {
            lines.push(format!(
                r#"{{"type":"MatchVoided","at":"{}","match":"m{}","reason":"test"}}"#,
                at(i),
                i - 5
            ));
        }
    }
    Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect())
}

#[test]
fn the_fast_driver_equals_the_sequential_one_over_many_chunks() {
    let history = long_history();
    assert!(history.events.len() > 2 * 8192);
    let untils = [
        Until::Head,
        Until::Seq(12_345),
        Until::Seq(8_192),
        Until::Instant(Timestamp::parse("2026-01-09T05:00:00Z").unwrap()),
    ];
    for algo in ["tgr", "glicko2", "elo", "zonestats"] {
        for until in untils {
            let config = registry::config(algo, &[]).unwrap();
            let mut seq = registry::build(config.clone()).unwrap();
            let ra = replay(
                &history,
                &mut [&mut seq],
                Options { until, warmup: Some(10), ..Options::default() },
                &mut |_| {},
            )
            .unwrap();
            for threads in [1, 2] {
                let mut par = registry::build(config.clone()).unwrap();
                let rb = ladder_replay::replay_parallel(
                    &history,
                    &mut [&mut par],
                    until,
                    Some(10),
                    threads,
                )
                .unwrap();
                assert_eq!((ra.through, ra.head), (rb.through, rb.head), "{algo} {until:?}");
                assert_eq!(ra.scores, rb.scores, "{algo} {until:?}");
                assert_eq!(ra.activity, rb.activity, "{algo} {until:?}");
                let sa = Snapshot::capture(&seq, &ra.roster, ra.through, &ra.head);
                let sb = Snapshot::capture(&par, &rb.roster, rb.through, &rb.head);
                assert_eq!(sa.to_json(), sb.to_json(), "{algo} {until:?} threads {threads}");
            }
        }
    }
}

#[test]
fn calibration_is_the_same_whether_the_winner_or_the_loser_is_listed_first() {
    // Five players, fifteen games on consecutive days with every result decided; the second
    // history lists the same games with the seats swapped.
    let names = ["p0", "p1", "p2", "p3", "p4"];
    let mut first = Vec::new();
    let mut swapped = Vec::new();
    for n in names {
        let join =
            format!(r#"{{"type":"PlayerJoined","at":"2026-01-01T08:00:00Z","player":"{n}"}}"#);
        first.push(parse_line(&join).unwrap());
        swapped.push(parse_line(&join).unwrap());
    }
    for k in 0..15usize {
        // The lower-numbered player wins two games in three: a stable order to calibrate on.
        let (a, b) = (names[k % 5], names[(k * 2 + 1) % 5]);
        if a == b {
            continue;
        }
        let (w, l) = if k % 3 == 2 { (b, a) } else { (a, b) };
        let at = format!("2026-01-{:02}T10:00:00Z", k + 2);
        let seat = |p: &str, s: u8| format!(r#"{{"player":"{p}","score":{s}}}"#);
        let line = |x: String, y: String| {
            parse_line(&format!(r#"{{"type":"MatchResult","at":"{at}","seats":[{x},{y}]}}"#))
                .unwrap()
        };
        first.push(line(seat(w, 1), seat(l, 0)));
        swapped.push(line(seat(l, 0), seat(w, 1)));
    }
    // TGR's `order=as-written` updates the first seat first, so its ratings (not only its
    // calibration) depend on the order written; `simultaneous` does not.
    let sets = |algo: &str| match algo {
        "tgr" => vec![("order".to_string(), "simultaneous".to_string())],
        _ => vec![],
    };
    for algo in ["elo", "glicko", "glicko2", "tgr"] {
        let scores = |events: &Vec<Event>| {
            let history = Memory::new(events.clone());
            let mut p = registry::build(registry::config(algo, &sets(algo)).unwrap()).unwrap();
            let options = Options { warmup: Some(0), ..Options::default() };
            let r = replay(&history, &mut [&mut p], options, &mut |_| {}).unwrap();
            r.scores[0].clone()
        };
        let (a, b) = (scores(&first), scores(&swapped));
        assert_eq!(a.matches, b.matches);
        assert!(a.matches >= 10, "{algo}: {} matches", a.matches);
        for (x, y) in a.bins.iter().zip(&b.bins) {
            assert_eq!(x.n, y.n, "{algo}");
            assert!((x.sum_p - y.sum_p).abs() < 1e-9, "{algo}");
            assert!((x.sum_y - y.sum_y).abs() < 1e-12, "{algo}");
        }
        // Listing the winner first no longer makes every bin observe 1: favourites lost some.
        let observed: f64 = a.bins.iter().map(|b| b.sum_y).sum();
        assert!(observed < a.matches as f64, "{algo}");
        assert!(a.bins[..5].iter().all(|b| b.n == 0), "{algo}: favourites have p >= 0.5");
    }
}

#[test]
fn standing_of_one_player_is_their_row_of_standings_after_every_event() {
    // `plot` and `history` read `standing(id)` after each of a player's events; it must be the
    // player's row of `standings()` exactly, open rating periods and idle growth included.
    for fixture in ["club.jsonl", "teams.jsonl", "glickman.jsonl"] {
        let history = Memory::fixture(fixture);
        for algo in registry::ALGORITHMS {
            let sets: &[(String, String)] = &[];
            let mut p = registry::build(registry::config(algo, sets).unwrap()).unwrap();
            let mut checked = 0usize;
            replay(&history, &mut [&mut p], Options::default(), &mut |s| {
                let p = &*s.projectors[0];
                let all = p.standings();
                for id in 0..p.players() as u32 + 2 {
                    let id = PlayerId(id);
                    let row = all.iter().find(|st| st.player == id);
                    assert_eq!(p.standing(id).as_ref(), row, "{algo} {fixture} seq {}", s.seq);
                    checked += usize::from(row.is_some());
                }
            })
            .unwrap();
            assert!(checked > 0, "{algo} {fixture}: no standing was compared");
        }
    }
}

/// Glicko-2 configurations that differ in every constant a sweep or `tune` varies, under two
/// clocks (the default period and `period=game`), so `replay_algos` folds two sets of lanes.
fn glicko2_batch() -> Vec<Vec<(String, String)>> {
    let set = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
    };
    vec![
        set(&[]),
        set(&[("tau", "0.3")]),
        set(&[("tau", "1.2"), ("sigma", "0.04")]),
        set(&[("period", "game"), ("idle", "2d")]),
        set(&[("sigma", "0.09"), ("rd_max", "300"), ("initial_rd", "300")]),
        set(&[("period", "game"), ("idle", "2d"), ("tau", "0.8")]),
        set(&[("epsilon", "1e-9"), ("initial_rating", "1400"), ("initial_rd", "250")]),
        set(&[("period", "1d")]),
        set(&[("period", "1d"), ("tau", "0.9"), ("provisional_rd", "80")]),
        // revert and home, under both clocks (the lanes find where a player enters from once
        // for every lane, and apply each lane's revert and home to it).
        set(&[("revert", "0.3"), ("revert_after", "2d"), ("home", "40")]),
        set(&[("period", "game"), ("idle", "2d"), ("revert", "0.5"), ("revert_after", "1d")]),
    ]
}

/// Each configuration of `batch` replayed alone by the sequential driver, then all of them by
/// `replay_algos` (Glicko-2 lanes) on 1, 2 and 3 threads: the same snapshots, digests, scores
/// and activity, bit for bit.
fn lanes_equal_single_replays(history: &Memory, batch: &[Vec<(String, String)>], what: &str) {
    let configs: Vec<_> =
        batch.iter().map(|sets| registry::config("glicko2", sets).unwrap()).collect();
    let mut singles = Vec::new();
    for config in &configs {
        let mut p = registry::build(config.clone()).unwrap();
        let r = replay(
            history,
            &mut [&mut p],
            Options { warmup: Some(5), ..Options::default() },
            &mut |_| {},
        )
        .unwrap();
        let snap = Snapshot::capture(&p, &r.roster, r.through, &r.head);
        singles.push((snap.to_json(), snap.digest(), r.scores[0].clone(), r.activity));
    }
    for threads in [1, 2, 3] {
        let mut algos: Vec<_> =
            configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let r = ladder_replay::replay_algos(history, &mut algos, Until::Head, Some(5), threads)
            .unwrap();
        assert_eq!(r.scores.len(), configs.len());
        for (i, p) in algos.iter().enumerate() {
            let snap = Snapshot::capture(p, &r.roster, r.through, &r.head);
            let (json, digest, score, activity) = &singles[i];
            assert_eq!(&snap.to_json(), json, "{what}: configuration {i}, {threads} threads");
            assert_eq!(&snap.digest(), digest, "{what}: configuration {i}, {threads} threads");
            assert_eq!(&r.scores[i], score, "{what}: configuration {i}, {threads} threads");
            assert_eq!(&r.activity, activity, "{what}: {threads} threads");
        }
    }
}

#[test]
fn glicko2_lanes_equal_single_replays_on_the_fixtures() {
    for fixture in ["glickman.jsonl", "club.jsonl", "teams.jsonl"] {
        lanes_equal_single_replays(&Memory::fixture(fixture), &glicko2_batch(), fixture);
    }
    // Many chunks, voids, a three-seat match with teams, ticks and timeouts.
    lanes_equal_single_replays(&long_history(), &glicko2_batch(), "long history");
}

#[test]
fn glicko2_lanes_equal_single_replays_on_a_simulated_ladder() {
    // 300 players and 30,000 matches over a year: joins over time, idle spells, draws.
    let sim = ladder_sim::simulate(&ladder_sim::SimParams::new(300, 30_000, 11)).unwrap();
    let history = Memory::new(sim.collect());
    lanes_equal_single_replays(&history, &glicko2_batch(), "simulated ladder");
}

/// Each configuration of `batch` replayed alone by the sequential driver, some of which fail;
/// then all of them by `replay_algos_each` (lanes, or one by one for a mixed batch) on 1, 2 and 3
/// threads: a failed configuration reports exactly its own replay's error (event and reason),
/// every other one the same snapshot, digest and scores as its own replay, bit for bit; and
/// `replay_algos` stops at the earliest of those errors. Returns how many failed.
fn each_equals_single_replays(
    history: &Memory,
    batch: &[(&str, Vec<(String, String)>)],
    what: &str,
) -> usize {
    let configs: Vec<_> =
        batch.iter().map(|(algo, sets)| registry::config(algo, sets).unwrap()).collect();
    let mut singles = Vec::new();
    for config in &configs {
        let mut p = registry::build(config.clone()).unwrap();
        let options = Options { warmup: Some(5), ..Options::default() };
        singles.push(match replay(history, &mut [&mut p], options, &mut |_| {}) {
            Ok(r) => {
                let snap = Snapshot::capture(&p, &r.roster, r.through, &r.head);
                Ok((snap.to_json(), snap.digest(), r.scores[0].clone()))
            }
            Err(ReplayError::Project(e)) => Err(e),
            Err(e) => panic!("{what}: {e}"),
        });
    }
    let failures = singles.iter().filter(|s| s.is_err()).count();
    for threads in [1, 2, 3] {
        let mut algos: Vec<_> =
            configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let each =
            ladder_replay::replay_algos_each(history, &mut algos, Until::Head, Some(5), threads)
                .unwrap();
        let r = &each.replayed;
        assert_eq!(each.failed.len(), configs.len());
        for (i, p) in algos.iter().enumerate() {
            let at = format!("{what}: configuration {i} {:?}, {threads} threads", batch[i]);
            match &singles[i] {
                Err(e) => assert_eq!(each.failed[i].as_ref(), Some(e), "{at}"),
                Ok((json, digest, score)) => {
                    assert_eq!(each.failed[i], None, "{at}");
                    let snap = Snapshot::capture(p, &r.roster, r.through, &r.head);
                    assert_eq!(&snap.to_json(), json, "{at}");
                    assert_eq!(&snap.digest(), digest, "{at}");
                    assert_eq!(&r.scores[i], score, "{at}");
                }
            }
        }
        // A sweep's way: the same scores and failures, no states copied out.
        let mut algos: Vec<_> =
            configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let scored =
            ladder_replay::replay_algos_scores(history, &mut algos, Until::Head, Some(5), threads)
                .unwrap();
        assert_eq!(scored.failed, each.failed, "{what}, {threads} threads");
        for (i, f) in scored.failed.iter().enumerate() {
            if f.is_none() {
                assert_eq!(scored.replayed.scores[i], r.scores[i], "{what}, {threads} threads");
            }
        }
        // All or nothing, as a replay asks: the earliest failure (the lowest configuration's at
        // one event), or every result.
        let mut algos: Vec<_> =
            configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let first = singles.iter().filter_map(|s| s.as_ref().err()).min_by_key(|e| e.seq);
        match (
            ladder_replay::replay_algos(history, &mut algos, Until::Head, Some(5), threads),
            first,
        ) {
            (Err(ReplayError::Project(e)), Some(first)) => {
                assert_eq!(e.seq, first.seq, "{what}, {threads} threads")
            }
            (Ok(_), None) => {}
            (other, first) => panic!("{what}, {threads} threads: {other:?} against {first:?}"),
        }
    }
    failures
}

/// Glicko-2 configurations of which some cannot replay a history: an `epsilon` finer than the
/// float spacing of ln(sigma'^2) is never met, so step 5.4 gives up after its bound
/// (`MAX_ILLINOIS_ITERATIONS`) at the first period it rates; the rest are [`glicko2_batch`].
fn glicko2_failing_batch() -> Vec<(&'static str, Vec<(String, String)>)> {
    let set = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
    };
    let mut batch: Vec<_> = glicko2_batch().into_iter().map(|sets| ("glicko2", sets)).collect();
    batch.insert(1, ("glicko2", set(&[("epsilon", "1e-300")])));
    batch.insert(5, ("glicko2", set(&[("period", "game"), ("idle", "2d"), ("epsilon", "1e-300")])));
    batch.push(("glicko2", set(&[("tau", "0.7"), ("epsilon", "1e-300")])));
    batch
}

#[test]
fn glicko2_lanes_fail_alone_as_single_replays_do() {
    // A sweep's lanes: a configuration that cannot apply an event stops there with its own
    // replay's error, and the others go on to the same results as their own replays.
    for fixture in ["club.jsonl", "teams.jsonl"] {
        let n = each_equals_single_replays(
            &Memory::fixture(fixture),
            &glicko2_failing_batch(),
            fixture,
        );
        assert_eq!(n, 3, "{fixture}: the three epsilon=1e-300 configurations fail");
    }
    let n = each_equals_single_replays(&long_history(), &glicko2_failing_batch(), "long history");
    assert_eq!(n, 3, "long history");
    // Every configuration failing: each with its own error.
    let set = |e: &str| vec![("epsilon".to_string(), e.to_string())];
    let all = [("glicko2", set("1e-300")), ("glicko2", set("1e-310"))];
    assert_eq!(each_equals_single_replays(&long_history(), &all, "all failing"), 2);
}

#[test]
fn glicko2_lanes_equal_single_replays_in_groups_of_every_size() {
    // The lanes rate a period's slots eight (slot, lane) pairs at a time in slot order, a group
    // running on into the next slots (`rate_in_n`), take a game's exps four or eight lanes at a
    // time (`exp4`, `exp_n`) and score its log loss two blocks of four lanes at a time
    // (`Scores`, `ln_n`): sets of 1 to 9 lanes of one clock (groups holding
    // one lane of up to eight slots, or parts of two slots; full groups and last groups of
    // fewer, on 1 to 3 threads), a grid over tau and sigma with home and revert on, and for
    // sizes from 3 on a lane in the middle of a group that fails at the first period it rates
    // (epsilon finer than any step 5 can meet) while the lanes beside it go on, its later slots
    // in the same group dropped.
    let sim = ladder_sim::simulate(&ladder_sim::SimParams::new(120, 4_000, 5)).unwrap();
    let history = Memory::new(sim.collect());
    let grid: Vec<Vec<(String, String)>> = [0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 0.4, 0.6, 0.8]
        .iter()
        .zip([0.04, 0.06, 0.08, 0.05, 0.07, 0.03, 0.09, 0.06, 0.05])
        .map(|(tau, sigma)| {
            vec![
                ("tau".to_string(), tau.to_string()),
                ("sigma".to_string(), sigma.to_string()),
                ("home".to_string(), "25".to_string()),
                ("revert".to_string(), "0.2".to_string()),
                ("revert_after".to_string(), "20d".to_string()),
            ]
        })
        .collect();
    for size in 1..=9 {
        let mut batch: Vec<_> = grid[..size].iter().map(|sets| ("glicko2", sets.clone())).collect();
        let failing = size >= 3;
        if failing {
            batch[size / 2].1.push(("epsilon".to_string(), "1e-300".to_string()));
        }
        let n = each_equals_single_replays(&history, &batch, &format!("{size} lanes"));
        assert_eq!(n, usize::from(failing), "{size} lanes");
    }
}

#[test]
fn glicko2_lanes_that_fail_only_at_the_end_fail_there_as_single_replays_do() {
    // With a period longer than the history, no period closes while it is read: every rating
    // happens when the replay settles at its end (`Glicko2Lanes::settle` for a sweep, which
    // rates the open period as closing does, eight (slot, lane) pairs at a time). Nine lanes, so
    // a full group and a last group of one, with the failing lane (epsilon finer than any step
    // 5 can meet) in the middle of the first: it fails at the last event, as its own replay
    // does, and the others' scores are their own replays'.
    let sim = ladder_sim::simulate(&ladder_sim::SimParams::new(120, 4_000, 5)).unwrap();
    let history = Memory::new(sim.collect());
    let mut batch: Vec<_> = [0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 0.4, 0.6, 0.8]
        .iter()
        .map(|tau| {
            (
                "glicko2",
                vec![
                    ("tau".to_string(), tau.to_string()),
                    ("period".to_string(), "1000w".to_string()),
                ],
            )
        })
        .collect();
    batch[4].1.push(("epsilon".to_string(), "1e-300".to_string()));
    assert_eq!(each_equals_single_replays(&history, &batch, "one period"), 1);
}

#[test]
fn other_batches_fail_alone_as_single_replays_do() {
    // Not lanes: a mixed batch folds configuration by configuration, each failing alone.
    let set = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
    };
    let batch = [
        ("glicko2", set(&[])),
        ("glicko2", set(&[("epsilon", "1e-300")])),
        ("elo", set(&[])),
        ("glicko", set(&[])),
    ];
    assert_eq!(each_equals_single_replays(&long_history(), &batch, "mixed"), 1);
}

#[test]
fn a_mixed_batch_or_a_single_configuration_folds_as_before() {
    // Not only Glicko-2: replay_algos takes replay_parallel's path; one Glicko-2 the same.
    let history = long_history();
    for algos in [vec!["glicko2", "elo"], vec!["glicko2"], vec!["glicko", "glicko"]] {
        let configs: Vec<_> = algos.iter().map(|a| registry::config(a, &[]).unwrap()).collect();
        let mut seq: Vec<_> = configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let mut refs: Vec<&mut dyn ladder_projector::Projector> =
            seq.iter_mut().map(|p| p as _).collect();
        let ra = replay(
            &history,
            &mut refs,
            Options { warmup: Some(3), ..Options::default() },
            &mut |_| {},
        )
        .unwrap();
        let mut par: Vec<_> = configs.iter().map(|c| registry::build(c.clone()).unwrap()).collect();
        let rb = ladder_replay::replay_algos(&history, &mut par, Until::Head, Some(3), 2).unwrap();
        assert_eq!(ra.scores, rb.scores, "{algos:?}");
        for (x, y) in seq.iter().zip(&par) {
            let sx = Snapshot::capture(x, &ra.roster, ra.through, &ra.head);
            let sy = Snapshot::capture(y, &rb.roster, rb.through, &rb.head);
            assert_eq!(sx.digest(), sy.digest(), "{algos:?}");
        }
    }
}
