//! The queue: every match the simulator pairs is inside the TGR text's band under the ratings the
//! ledger's own TGR projector holds at that point of the history, and the ratings recover the
//! hidden skills.

use crate::{ladders, run};
use ladder_events::{Body, Event};
use ladder_projector::{Algorithm, Config, Feeder, Projector};
use ladder_sim::SimParams;
use ladder_tgr::{Tgr, QUEUE_BAND};

fn tgr() -> Tgr {
    Tgr::new(Config::new(ladder_tgr::ALGORITHM, ladder_tgr::PARAMS, &[]).unwrap()).unwrap()
}

/// Replays `events` into TGR with its defaults; returns every match's WinProb just before it
/// (first seat against second) and the projector.
fn replay(events: &[Event]) -> (Vec<f64>, Tgr, Feeder) {
    let mut t = tgr();
    let mut feeder = Feeder::new();
    let mut probs = Vec::new();
    for (n, e) in events.iter().enumerate() {
        if let Body::MatchResult { seats } = &e.body {
            let a = feeder.roster.get(&seats[0].player).unwrap();
            let b = feeder.roster.get(&seats[1].player).unwrap();
            probs.push(t.expectation(a, b, e.at));
        }
        feeder.feed(n as u64 + 1, e, &|_| false, &mut [&mut t], None).expect("TGR replays it");
    }
    (probs, t, feeder)
}

#[test]
fn every_match_is_inside_the_band_under_the_ledgers_tgr() {
    for p in ladders() {
        let (events, _) = run(&p);
        let (probs, _, _) = replay(&events);
        assert_eq!(probs.len() as u64, p.matches);
        for (n, wp) in probs.iter().enumerate() {
            assert!((wp - 0.5).abs() < QUEUE_BAND, "{p:?}: match {} has WinProb {wp}", n + 1);
        }
        // The band is used, not just respected: uneven pairings happen.
        let widest = probs.iter().map(|wp| (wp - 0.5).abs()).fold(0.0, f64::max);
        assert!(widest > 0.1, "{p:?}: widest pairing only {widest}");
    }
}

#[test]
fn nobody_fits_a_player_far_above_everyone() {
    // With skills spread wide, the strongest players outgrow the band: they keep queueing and
    // timing out, and their timeouts are a large share of their queue entries.
    let mut p = SimParams::new(40, 4_000, 31);
    p.skill_sd = 600.0;
    let (events, truth) = run(&p);
    let best = truth.iter().max_by(|a, b| a.skill.total_cmp(&b.skill)).unwrap();
    let timeouts = events
        .iter()
        .filter(|e| matches!(&e.body, Body::QueueTimeout { player } if *player == best.player))
        .count() as u64;
    assert!(
        timeouts > best.matches,
        "{}: {timeouts} timeouts, {} games",
        best.player,
        best.matches
    );
}

/// Spearman's rank correlation of two equally long samples (no ties expected).
fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let rank = |v: &[f64]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
        let mut r = vec![0.0; v.len()];
        for (k, &i) in idx.iter().enumerate() {
            r[i] = k as f64;
        }
        r
    };
    let (rx, ry) = (rank(x), rank(y));
    let n = x.len() as f64;
    let d2: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - b) * (a - b)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

#[test]
fn tgr_recovers_the_hidden_skills() {
    let p = SimParams::new(300, 30_000, 41);
    let (events, truth) = run(&p);
    let (_, t, feeder) = replay(&events);
    let standings = t.standings();
    let mut skill = Vec::new();
    let mut rating = Vec::new();
    for s in &standings {
        let name = feeder.roster.name(s.player);
        let tr = truth.iter().find(|t| t.player == name).unwrap();
        if tr.matches >= 30 {
            skill.push(tr.skill);
            rating.push(s.rating);
        }
    }
    assert!(skill.len() > 200, "{} players with 30 games", skill.len());
    let rho = spearman(&skill, &rating);
    assert!(rho > 0.8, "rank correlation {rho}");
}
