//! The folded form ([`ladder_events::folded`]) read by the fast driver gives the same replay as
//! the stored events, bit for bit: snapshots, digests, heads, scores and activity, through every
//! `--until`, with voids, ticks, timeouts, teams, three-seat matches and home seats, in one and
//! several configurations (Glicko-2 lanes included).

use super::{glicko2_batch, long_history, Memory};
use ladder_events::folded::Encoder;
use ladder_events::json::parse_line;
use ladder_events::{codec, Body, Timestamp};
use ladder_replay::{
    registry, FoldedHistory, History, HistoryEvent, ReplayError, Snapshot, Until, VisitFolded,
};

/// A history with its folded form: the same events, and `folded()` built from them the way the
/// ledger builds it, cut into segments of `every` events so that runs end mid-chunk.
struct WithFolded<'a> {
    memory: &'a Memory,
    every: usize,
}

struct MemoryFolded<'a> {
    memory: &'a Memory,
    segments: Vec<Vec<u8>>,
    voids: Vec<(u64, u64, Timestamp)>,
    /// The number of players, as the ledger's folded form records it: the roster is made that
    /// size at once.
    players: usize,
}

impl History for WithFolded<'_> {
    fn events_from(
        &self,
        from: u64,
    ) -> Box<dyn Iterator<Item = Result<HistoryEvent, ReplayError>> + '_> {
        self.memory.events_from(from)
    }
    fn voided_at(&self, match_id: &str) -> Option<(u64, Timestamp)> {
        self.memory.voided_at(match_id)
    }
    fn head_seq(&self) -> u64 {
        self.memory.head_seq()
    }
    fn voids(&self) -> Vec<(u64, u64)> {
        self.memory.voids()
    }
    fn folded(&self) -> Option<Box<dyn FoldedHistory + '_>> {
        let mut enc = Encoder::new();
        let mut segments = Vec::new();
        let mut voids = Vec::new();
        for (i, h) in self.memory.events.iter().enumerate() {
            let bytes = codec::encode(&h.event);
            enc.push(&codec::view(&bytes).unwrap());
            if let Body::MatchVoided { match_id, .. } = &h.event.body {
                let m = self.memory.events.iter().find(|e| e.event.id.as_ref() == Some(match_id));
                voids.push((m.unwrap().seq, h.seq, h.event.at));
            }
            if (i + 1) % self.every == 0 {
                segments.push(enc.take());
            }
        }
        segments.push(enc.take());
        let players = enc.players();
        Some(Box::new(MemoryFolded { memory: self.memory, segments, voids, players }))
    }
}

impl FoldedHistory for MemoryFolded<'_> {
    fn voids(&self) -> Vec<(u64, u64, Timestamp)> {
        self.voids.clone()
    }
    fn head(&self) -> (u64, [u8; 32]) {
        let last = self.memory.events.last().unwrap();
        (last.seq, last.hash)
    }
    fn read(&mut self, visit: &mut VisitFolded<'_>) -> Result<(), ReplayError> {
        for s in &self.segments {
            if !visit(s)? {
                break;
            }
        }
        Ok(())
    }
    fn hash_at(&self, seq: u64) -> Result<[u8; 32], ReplayError> {
        Ok(self.memory.events[seq as usize - 1].hash)
    }
    fn players(&self) -> usize {
        self.players
    }
}

/// Replays `configs` (algorithm and constants) through `replay_algos` from the stored events and
/// from the folded form, and holds every output of the two to each other.
fn same_both_ways(memory: &Memory, configs: &[(&str, Vec<(String, String)>)], what: &str) {
    let last = memory.events.last().unwrap();
    let middle = &memory.events[memory.events.len() / 2];
    let untils = [
        Until::Head,
        Until::Seq(1),
        Until::Seq(memory.events.len() as u64 / 3),
        Until::Seq(last.seq),
        Until::Instant(middle.event.at),
        Until::Instant(Timestamp(i64::MIN)),
    ];
    for until in untils {
        for (every, threads) in [(1, 1), (97, 2), (1 << 20, 2)] {
            {
                let build = || -> Vec<registry::Algo> {
                    configs
                        .iter()
                        .map(|(a, sets)| {
                            registry::build(registry::config(a, sets).unwrap()).unwrap()
                        })
                        .collect()
                };
                let (mut a, mut b) = (build(), build());
                let ra = ladder_replay::replay_algos(memory, &mut a, until, Some(3), threads);
                let folded = WithFolded { memory, every };
                let rb = ladder_replay::replay_algos(&folded, &mut b, until, Some(3), threads);
                let at = format!("{what}, {until:?}, segments of {every}, {threads} threads");
                let (ra, rb) = match (ra, rb) {
                    (Ok(ra), Ok(rb)) => (ra, rb),
                    (Err(x), Err(y)) => {
                        assert_eq!(x.to_string(), y.to_string(), "{at}");
                        continue;
                    }
                    (x, y) => panic!("{at}: {:?} against {:?}", x.err(), y.err()),
                };
                assert_eq!((ra.through, ra.head), (rb.through, rb.head), "{at}");
                assert_eq!(ra.scores, rb.scores, "{at}");
                assert_eq!(ra.activity, rb.activity, "{at}");
                assert_eq!(ra.roster.len(), rb.roster.len(), "{at}");
                for (x, y) in a.iter().zip(&b) {
                    let sx = Snapshot::capture(x, &ra.roster, ra.through, &ra.head);
                    let sy = Snapshot::capture(y, &rb.roster, rb.through, &rb.head);
                    assert_eq!(sx.to_json(), sy.to_json(), "{at}");
                    assert_eq!(sx.digest(), sy.digest(), "{at}");
                }
                // What `ladder replay` calls: the same replay, each player's last game left out.
                let mut c = build();
                let rc = ladder_replay::replay_algos_each_without_activity(
                    &folded,
                    &mut c,
                    until,
                    Some(3),
                    threads,
                )
                .unwrap();
                assert!(rc.failed.iter().all(Option::is_none), "{at}");
                let rc = rc.replayed;
                assert_eq!((ra.through, ra.head), (rc.through, rc.head), "{at}");
                assert_eq!(ra.scores, rc.scores, "{at}");
                let mut last_event_only = ladder_replay::Activity::new();
                if let Some(at) = ra.activity.last_event() {
                    last_event_only.event(at);
                }
                assert_eq!(rc.activity, last_event_only, "{at}");
                for ((x, z), score) in a.iter().zip(&c).zip(&rc.scores) {
                    let mut sx = Snapshot::capture(x, &ra.roster, ra.through, &ra.head);
                    let sz = Snapshot::capture(z, &rc.roster, rc.through, &rc.head);
                    assert_eq!(sx.to_json(), sz.to_json(), "{at}");
                    // What `ladder replay --format json` prints: the snapshot's JSON, scored.
                    let mut printed = Vec::new();
                    ladder_replay::write_replay_json(
                        &mut printed,
                        z,
                        &rc.roster,
                        rc.through,
                        &rc.head,
                        Some(score),
                    )
                    .unwrap();
                    sx.prediction = Some(score.clone());
                    assert_eq!(printed, (sx.to_json() + "\n").into_bytes(), "{at}");
                }
            }
        }
    }
}

fn every_algorithm() -> Vec<(&'static str, Vec<(String, String)>)> {
    registry::ALGORITHMS.iter().map(|a| (*a, Vec::new())).collect()
}

#[test]
fn the_folded_form_replays_every_fixture_as_the_stored_events_do() {
    for fixture in ["club.jsonl", "teams.jsonl", "glickman.jsonl"] {
        let memory = Memory::fixture(fixture);
        for algo in every_algorithm() {
            same_both_ways(&memory, std::slice::from_ref(&algo), fixture);
        }
    }
}

#[test]
fn the_folded_form_replays_voids_teams_and_many_chunks_as_the_stored_events_do() {
    // 20,000 matches: several chunks, voids, three-seat matches with teams, ticks and timeouts.
    let memory = long_history();
    for algo in ["tgr", "glicko2", "elo"] {
        same_both_ways(&memory, &[(algo, Vec::new())], "long history");
    }
    // A batch of Glicko-2 configurations folds as lanes from either source.
    let batch: Vec<_> = glicko2_batch().into_iter().map(|sets| ("glicko2", sets)).collect();
    same_both_ways(&memory, &batch, "long history, Glicko-2 lanes");
}

#[test]
fn the_folded_form_replays_a_simulated_ladder_and_home_seats_as_the_stored_events_do() {
    let sim = ladder_sim::simulate(&ladder_sim::SimParams::new(300, 5_000, 11)).unwrap();
    let memory = Memory::new(sim.collect());
    same_both_ways(&memory, &[("glicko2", Vec::new()), ("elo", Vec::new())], "simulated ladder");
    // Home seats: one on each side, one match with none, a draw; names that share a prefix.
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"ann"}"#,
        r#"{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"anna","rating":1700}"#,
        r#"{"type":"MatchResult","at":"2026-01-02T00:00:00Z","id":"a","seats":[{"player":"ann","score":1,"home":true},{"player":"anna","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-01-03T00:00:00Z","id":"b","seats":[{"player":"ann","score":0},{"player":"anna","score":1,"home":true}]}"#,
        r#"{"type":"MatchResult","at":"2026-01-04T00:00:00Z","id":"c","seats":[{"player":"anna","score":0.5},{"player":"ann","score":0.5}]}"#,
        r#"{"type":"MatchVoided","at":"2026-01-05T00:00:00Z","match":"b","reason":"replayed"}"#,
    ];
    let memory = Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect());
    let configs: Vec<_> = registry::ALGORITHMS.iter().map(|a| (*a, vec![])).collect();
    for c in configs {
        let has_home = registry::params(c.0).unwrap().iter().any(|s| s.key == "home");
        let home = if has_home { vec![("home".to_string(), "35".to_string())] } else { c.1 };
        same_both_ways(&memory, &[(c.0, home)], "home seats");
    }
}
