//! Building steps by hand: players are ids 0, 1, 2, ..., instants are (day, seconds) in UTC.

use ladder_events::{Prior, Timestamp, NANOS_PER_DAY, NANOS_PER_SECOND};
use ladder_projector::{
    Config, Input, PlayerId, ProjectError, Projector, SeatIn, Standing, Step, Trace,
};

/// 00:00:00 UTC of day `day` (days since 1970-01-01) plus `seconds`.
pub fn at(day: i64, seconds: i64) -> Timestamp {
    Timestamp(day * NANOS_PER_DAY + seconds * NANOS_PER_SECOND)
}

/// A configuration of `algorithm` from `K=V,...`, on top of the constants these tests' hand
/// calculations are written against: one-day periods, and Glicko's c = 34.64 (the example of
/// "Classic Glicko system").
/// The defaults differ (chosen on real ladders, docs/real-ladders.md); the period mechanics and
/// the seeds' examples do not depend on them, so the tests state their own.
pub fn config(
    algorithm: &'static str,
    specs: &[ladder_projector::ParamSpec],
    sets: &str,
) -> Config {
    let base = match algorithm {
        "glicko" => "period=1d,c=34.64",
        _ => "period=1d",
    };
    let mut all = Config::parse_assignments(base).unwrap();
    all.extend(Config::parse_assignments(sets).unwrap());
    Config::new(algorithm, specs, &all).unwrap()
}

/// A prior with the given quantities.
pub fn prior(rating: f64, rd: f64, volatility: Option<f64>) -> Prior {
    Prior { rating: Some(rating), rd: Some(rd), volatility }
}

/// Feeds steps to a projector, numbering them from 1.
pub struct Run<P: Projector> {
    pub p: P,
    pub seq: u64,
}

impl<P: Projector> Run<P> {
    pub fn new(p: P) -> Run<P> {
        Run { p, seq: 0 }
    }

    pub fn step(
        &mut self,
        at: Timestamp,
        input: Input<'_>,
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        self.seq += 1;
        self.p.apply(&Step { seq: self.seq, at, input }, trace)
    }

    pub fn join(&mut self, id: u32, when: Timestamp, prior: Prior) {
        self.step(when, Input::Joined { player: PlayerId(id), prior }, None).unwrap();
    }

    /// A match of lone seats `(player, score)`.
    pub fn play(&mut self, when: Timestamp, seats: &[(u32, f64)]) -> Result<(), ProjectError> {
        self.play_traced(when, seats, None)
    }

    pub fn play_traced(
        &mut self,
        when: Timestamp,
        seats: &[(u32, f64)],
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let seats: Vec<SeatIn> = seats
            .iter()
            .enumerate()
            .map(|(i, &(p, score))| SeatIn {
                player: PlayerId(p),
                score,
                side: i as u32,
                seconds: None,
                home: false,
            })
            .collect();
        self.step(when, Input::Match { seats: &seats }, trace)
    }

    pub fn tick(&mut self, when: Timestamp, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        self.step(when, Input::Tick, trace)
    }

    pub fn standing(&self, id: u32) -> Standing {
        self.p.standings().into_iter().find(|s| s.player == PlayerId(id)).unwrap()
    }
}

/// The value of the first quantity named `name` for `player` in `trace` after `skip` of them.
pub fn quantity(trace: &Trace, player: u32, name: &str, skip: usize) -> f64 {
    trace
        .entries
        .iter()
        .filter_map(|e| match e {
            ladder_projector::TraceEntry::Quantity { player: Some(p), name: n, value, .. }
                if p.0 == player && n == name =>
            {
                Some(*value)
            }
            _ => None,
        })
        .nth(skip)
        .unwrap_or_else(|| panic!("no quantity {name} #{skip} for player {player} in {trace:#?}"))
}

pub fn has_flag(trace: &Trace, player: u32, code: &str) -> bool {
    trace.entries.iter().any(|e| {
        matches!(e, ladder_projector::TraceEntry::Flag { player: Some(p), code: c, .. }
            if p.0 == player && *c == code)
    })
}

/// Asserts `|got - want| <= tol`.
#[track_caller]
pub fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} (tolerance {tol})");
}

/// Reads a fixture ladder.
pub fn fixture(name: &str) -> Vec<ladder_events::Event> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| ladder_events::json::parse_line(l).unwrap())
        .collect()
}

/// The seeded generator of the random cases: the same cases on every run.
pub use ladder_sim::SplitMix64;

/// Uniform in [lo, hi).
pub fn range(rng: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit()
}
