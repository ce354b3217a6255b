//! A deterministic synthetic ladder: the benchmark input of ladder and a demonstration of TGR's
//! queue (the TGR text), with hidden true skills a user can compare every algorithm against.
//!
//! [`simulate`] turns [`SimParams`] into a stream of [`Event`](ladder_events::Event)s that the ledger accepts as they
//! come (docs/events.md): joins, match results, queue timeouts and midnight ticks, in time
//! order, every match with an id. The stream is lazy: 30 million matches take memory for the
//! players and the matches in progress, nothing per event. [`Simulation::truth`] reports the
//! hidden skills ([`TrueSkill`]) once the stream is read.
//!
//! # The model
//! - **Skills.** Each player has a hidden skill on the Elo/Glicko scale, drawn at join from a
//!   normal distribution (`skill_mean`, `skill_sd`), that drifts as a random walk: every UTC day
//!   adds a normal step of `drift_sd` points. The walk is applied lazily (the days since a player
//!   was last seen at once, a normal of `drift_sd * sqrt(days)`), from a counter-based generator
//!   keyed by seed, player and days, so reading the truth disturbs nothing.
//! - **Joining.** `initial_share` of the players join at `start`; the others join one by one over
//!   the first `join_window` of the ladder, each at whichever comes first of its share of the
//!   matches and its share of `days`, so all of them have joined before the last match.
//! - **Queueing and idling.** A joined player alternates active spells (mean `active_days`) and idle
//!   spells (mean `idle_days`), both exponential; while active they enter the queue after
//!   exponential gaps. The gap's mean is set so that `matches` take about `days`, scaled by the
//!   share of queue entries that have found an opponent so far (a small ladder, whose players rarely
//!   overlap in the queue, queues more often). See [`SimParams::days`].
//! - **Pairing.** The TGR text's queue, through [`ladder_tgr::pair`]: a player entering the queue
//!   is paired with the waiting player whose `WinProb` is closest to 50%, strictly inside 15%–85%;
//!   if nobody fits, they wait, and are paired by the next arrival that fits them, or after
//!   [`ladder_tgr::QUEUE_WAIT_SECONDS`] a `QueueTimeout` is recorded at the instant the wait ran out.
//!   At every midnight the waiting players scan each other again (their RDs just grew, which widens
//!   who fits). The ratings the queue sees are TGR's with its default constants, kept by the
//!   simulator from the events it emits with `ladder_tgr`'s own formulas in the projector's order
//!   (lazy midnights, `order=as-written`), so they are exactly what `ladder replay --algo tgr` gives
//!   at that point of the history. No fallback: a player nobody fits only ever times out.
//! - **Games.** A game lasts a uniform whole number of seconds in `game_seconds` (both seats carry
//!   it as `seconds`); the `MatchResult` is recorded when it ends, and the queueing player sits
//!   first. The outcome is drawn from the hidden skills at that day: a draw with probability
//!   `draw_rate`, otherwise the first seat wins with `1 / (1 + 10^((s2 - s1) / 400))`.
//! - **Ticks.** A `MidnightTick` at every UTC midnight between the first and the last event.
//!
//! # Determinism
//! Everything random comes from the seed through the integer generators in `rng` (xoshiro256**
//! and SplitMix64, written here, no dependency); ties in time are broken by scheduling order; no
//! hash map is iterated. Instants are whole seconds after `start`, scores are 0, 0.5 or 1, and the
//! hidden skills use additions and `sqrt` only, so the output is bit-identical across platforms.
//! The one residue: waiting gaps and win chances go through `ln` and `exp`, whose last bit may
//! differ between C libraries; it changes a decision only when a draw falls within an ulp of a
//! threshold (about 1e-16 per decision).
#![deny(missing_docs)]

mod calendar;
mod engine;
mod rng;
mod truth;

pub use engine::Simulation;
pub use rng::SplitMix64;
pub use truth::TrueSkill;

use ladder_events::{Timestamp, NANOS_PER_DAY};

/// The last instant a simulated event may have: 2262-01-01T00:00:00Z, a margin inside the
/// timestamp range (which ends on 2262-04-11). A ladder that has not played its matches by then
/// ends there (see [`Simulation`]).
pub const END_OF_TIME: Timestamp = Timestamp(106_651 * NANOS_PER_DAY);

/// Everything that determines a simulated ladder. The same parameters give the same events.
///
/// [`SimParams::new`] fills in the documented defaults; change fields to taste and
/// [`simulate`] checks them.
#[derive(Clone, Debug, PartialEq)]
pub struct SimParams {
    /// Players who join, named `p1` to `pN` zero-padded to one width (`p001`..`p250`), so sorting
    /// by bytes sorts by number. At least 2.
    pub players: u32,
    /// Matches to play: the stream ends with the `matches`-th `MatchResult`.
    pub matches: u64,
    /// The seed of every random choice; match ids are `s{seed}-m{n}`.
    pub seed: u64,
    /// The instant of the first joins. Default 2020-01-01T00:00:00Z.
    pub start: Timestamp,
    /// The span the ladder aims at, in days (default 365): the queueing rate is chosen so that
    /// `matches` take about this long. A ladder whose players cannot find each other in the queue
    /// (very few players, or skills far apart) takes longer.
    pub days: f64,
    /// Share of the players who join at `start` (default 0.25; at least two players do).
    pub initial_share: f64,
    /// The others join evenly over this first share of the ladder (default 0.5): the k-th of L late
    /// joiners joins once `ceil(k * join_window * matches / L)` matches have started, or at
    /// `start + k * join_window * days / L`, whichever comes first.
    pub join_window: f64,
    /// Chance that a game is drawn, whatever the skills (default 0.05).
    pub draw_rate: f64,
    /// Mean of the hidden skills at join (default 1500, TGR's initial rating).
    pub skill_mean: f64,
    /// Standard deviation of the hidden skills at join (default 200).
    pub skill_sd: f64,
    /// Standard deviation of one day's step of a hidden skill's random walk (default 5: about 95
    /// points a year).
    pub drift_sd: f64,
    /// Mean length of an active spell in days (default 30).
    pub active_days: f64,
    /// Mean length of an idle spell in days (default 20): no queueing, so TGR's RD grows.
    pub idle_days: f64,
    /// Shortest and longest game, in whole seconds (default 300 to 1200).
    pub game_seconds: (u32, u32),
}

impl SimParams {
    /// `players` players, `matches` matches from `seed`, every other field at its default.
    pub fn new(players: u32, matches: u64, seed: u64) -> SimParams {
        SimParams {
            players,
            matches,
            seed,
            start: Timestamp(18_262 * NANOS_PER_DAY), // 2020-01-01T00:00:00Z
            days: 365.0,
            initial_share: 0.25,
            join_window: 0.5,
            draw_rate: 0.05,
            skill_mean: 1500.0,
            skill_sd: 200.0,
            drift_sd: 5.0,
            active_days: 30.0,
            idle_days: 20.0,
            game_seconds: (300, 1200),
        }
    }

    /// Checks every field; [`simulate`] calls it.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |field: &'static str, value: String, expected: &'static str| {
            Err(SimError::Invalid { field, value, expected })
        };
        let finite = |x: f64| x.is_finite();
        if self.players < 2 {
            return bad("players", self.players.to_string(), "at least 2");
        }
        if !(finite(self.days) && self.days > 0.0) {
            return bad("days", self.days.to_string(), "a number > 0");
        }
        for (field, x) in [("initial_share", self.initial_share), ("join_window", self.join_window)]
        {
            if !(finite(x) && (0.0..=1.0).contains(&x)) {
                return bad(field, x.to_string(), "a share in [0, 1]");
            }
        }
        if !(finite(self.draw_rate) && (0.0..1.0).contains(&self.draw_rate)) {
            return bad("draw_rate", self.draw_rate.to_string(), "a probability in [0, 1)");
        }
        if !finite(self.skill_mean) {
            return bad("skill_mean", self.skill_mean.to_string(), "a finite number");
        }
        for (field, x) in [
            ("skill_sd", self.skill_sd),
            ("drift_sd", self.drift_sd),
            ("idle_days", self.idle_days),
        ] {
            if !(finite(x) && x >= 0.0) {
                return bad(field, x.to_string(), "a number >= 0");
            }
        }
        if !(finite(self.active_days) && self.active_days > 0.0) {
            return bad("active_days", self.active_days.to_string(), "a number > 0");
        }
        let (lo, hi) = self.game_seconds;
        if lo == 0 || lo > hi {
            return bad("game_seconds", format!("{lo}..{hi}"), "1 <= shortest <= longest");
        }
        // Even with no idling and no waiting, the players can play only `players / 2` games at
        // once: refuse what cannot fit before the end of the timestamp range.
        let room = (END_OF_TIME.0 - self.start.0) as f64 / 1e9;
        let shortest = self.matches as f64 * f64::from(lo) / f64::from(self.players / 2);
        let span = self.days * 86_400.0;
        if self.start >= END_OF_TIME || shortest > room || span > room {
            return Err(SimError::TooLong {
                matches: self.matches,
                players: self.players,
                start: self.start,
            });
        }
        Ok(())
    }

    /// The number of players who join at `start`: `ceil(initial_share * players)`, at least 2.
    pub fn initial_players(&self) -> u32 {
        ((self.initial_share * f64::from(self.players)).ceil() as u32).clamp(2, self.players)
    }

    /// The base queueing rate: queue entries per day of an active player, chosen so that the
    /// expected active player-days over `days` give two entries per match. The simulation divides
    /// it by the share of entries that have found an opponent so far.
    pub fn queue_rate(&self) -> f64 {
        let n = f64::from(self.players);
        let early = f64::from(self.initial_players()) / n;
        // Late joiners join evenly over the first `join_window`: on average present for
        // 1 - join_window / 2 of the span.
        let present = early + (1.0 - early) * (1.0 - self.join_window / 2.0);
        let active = self.active_days / (self.active_days + self.idle_days);
        2.0 * self.matches as f64 / (self.days * n * present * active)
    }
}

/// Parameters that [`simulate`] refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// A field out of its range.
    #[error("{field} is {value}; it must be {expected}")]
    Invalid {
        /// The field's name in [`SimParams`].
        field: &'static str,
        /// Its value as given.
        value: String,
        /// The range it must be in.
        expected: &'static str,
    },
    /// The ladder cannot end before [`END_OF_TIME`].
    #[error(
        "{matches} matches between {players} players starting at {start} cannot finish before \
         2262 (the end of the timestamp range); use more players, fewer matches or an earlier start"
    )]
    TooLong {
        /// Matches asked for.
        matches: u64,
        /// Players asked for.
        players: u32,
        /// The start asked for.
        start: Timestamp,
    },
}

/// The ladder `params` describe, as a lazy stream of events (see the crate documentation for the
/// model). Refuses parameters out of range ([`SimParams::validate`]).
pub fn simulate(params: &SimParams) -> Result<Simulation, SimError> {
    params.validate()?;
    Ok(Simulation::new(params.clone()))
}
