//! The interface between the history and the ratings: every algorithm is a [`Projector`].
//!
//! A projector is a pure fold. It receives [`Step`]s (events whose player names are already
//! interned into dense [`PlayerId`]s by a [`Roster`], and from which voided matches were already
//! removed by the replay driver), and keeps per-player state in arrays indexed by those ids. It
//! reads no clock, file or database: every instant comes from a step. Rules about what may be
//! appended were checked by the log before any projector sees an event, so `apply` holds no
//! validation beyond arithmetic.
//!
//! Constants come in as a validated [`Config`] built from the algorithm's [`ParamSpec`] table
//! (docs/spec.md). Results go out as [`Standing`]s. For the audit, `apply` can write every
//! intermediate quantity into a [`Trace`].
#![deny(missing_docs)]

mod config;
mod fold;
pub mod math;
mod roster;
#[cfg(feature = "test-support")]
mod test_support;
mod trace;

pub use config::{
    describe_specs, parse_duration, Config, ConfigError, ParamKind, ParamSpec, ParamValue, Period,
};
pub use fold::{sides_into, Feeder};
pub use roster::{PlayerId, Roster};
#[cfg(feature = "test-support")]
pub use test_support::{fixture_table, fold_all, standings_table, voided_ids};
pub use trace::{Trace, TraceEntry};

use ladder_events::{Prior, Timestamp};

/// One seat of a match as projectors see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatIn {
    /// Who sat here.
    pub player: PlayerId,
    /// The seat's score; outcomes between seats come from comparing scores.
    pub score: f64,
    /// The seat's side: seats with equal sides are team-mates and never compared
    /// ([`ladder_events::Event::sides`]).
    pub side: u32,
    /// Time in the game in seconds, if the event gave one.
    pub seconds: Option<f64>,
    /// The seat is at home (`"home": true`): every algorithm with a win expectancy adds its
    /// `home` constant to this seat's side of the expectation.
    pub home: bool,
}

impl SeatIn {
    /// The advantage this seat brings to its side of an expectation: `home` when it is at home,
    /// else 0.
    #[inline]
    pub fn advantage(&self, home: f64) -> f64 {
        if self.home {
            home
        } else {
            0.0
        }
    }
}

/// Which of two seats of a predicted game is at home (docs/outputs.md, `--score`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Home {
    /// Neutral ground: neither.
    #[default]
    Neither,
    /// The first seat (`a` of [`Projector::expectation_at`]).
    First,
    /// The second seat (`b`).
    Second,
}

impl Home {
    /// The home seat of two seats (`Neither` unless exactly one of them is at home).
    pub fn of(a: &SeatIn, b: &SeatIn) -> Home {
        match (a.home, b.home) {
            (true, false) => Home::First,
            (false, true) => Home::Second,
            _ => Home::Neither,
        }
    }

    /// The advantage of the first seat over the second: `home`, `-home` or 0.
    #[inline]
    pub fn edge(self, home: f64) -> f64 {
        match self {
            Home::Neither => 0.0,
            Home::First => home,
            Home::Second => -home,
        }
    }
}

/// The constant `revert` (docs/spec.md): the fraction of the way back to the initial rating a
/// player's rating moves at their first game after an absence of at least `revert_after`.
pub const REVERT_PARAM: ParamSpec = ParamSpec {
    key: "revert",
    kind: ParamKind::between(0.0, 1.0),
    default: "0",
    doc: "regression to the mean between seasons: at a player's first game after an absence of \
          at least revert_after, the rating first moves this fraction of the way back to the \
          initial rating (0 leaves every replay as it was)",
    warn_below: None,
};

/// The constant `revert_after` (docs/spec.md): the absence after which `revert` applies.
pub const REVERT_AFTER_PARAM: ParamSpec = ParamSpec {
    key: "revert_after",
    kind: ParamKind::Duration,
    default: "90d",
    doc: "the absence (time since the player's last game) after which revert applies",
    warn_below: None,
};

/// Regression to the mean between seasons (`revert`, `revert_after`), as every algorithm that
/// has it applies it: at a player's first game after an absence of at least `after` since their
/// last game, the rating first moves `fraction` of the way back to the initial rating. A player's
/// first game is never reverted (their rating is their prior or the initial one).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Revert {
    /// `revert`: 0 turns it off.
    pub fraction: f64,
    /// `revert_after`, in nanoseconds.
    pub after: i64,
}

impl Revert {
    /// The constants of a configuration that has them (off otherwise).
    pub fn from_config(config: &Config) -> Revert {
        let has = |k: &str| config.values.iter().any(|(key, _)| *key == k);
        if !has("revert") || !has("revert_after") {
            return Revert::default();
        }
        Revert { fraction: config.number("revert"), after: config.duration("revert_after") }
    }

    /// True when it can ever apply.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.fraction > 0.0
    }

    /// Whether a player whose last game was at `last` (nanoseconds; `None` before their first
    /// game) is reverted at a game at `at`.
    #[inline]
    pub fn due(&self, last: Option<i64>, at: i64) -> bool {
        self.fraction > 0.0 && last.is_some_and(|l| at.saturating_sub(l) >= self.after)
    }

    /// `rating + fraction (toward - rating)`.
    #[inline]
    pub fn apply(&self, rating: f64, toward: f64) -> f64 {
        rating + self.fraction * (toward - rating)
    }
}

/// The constant `home` of every algorithm with a win expectancy (docs/spec.md): added to the
/// home seat's side of the expectation, in the algorithm's rating units.
pub const HOME_PARAM: ParamSpec = ParamSpec {
    key: "home",
    kind: ParamKind::any(),
    default: "0",
    doc: "home advantage: added to the home seat's rating in every expectation (`\"home\": true` \
          on a seat; 0 leaves every replay as it was)",
    warn_below: None,
};

/// What happened, with players interned.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// A player enters, optionally with a prior.
    Joined {
        /// Who.
        player: PlayerId,
        /// Their prior (all fields optional).
        prior: Prior,
    },
    /// A match that is not voided (as far as the replay knows).
    Match {
        /// The seats in the order written.
        seats: &'a [SeatIn],
    },
    /// A midnight, explicit in the log or implied by a day boundary (TGR applies both alike).
    Tick,
    /// A QueueTimeout.
    Timeout {
        /// Who waited.
        player: PlayerId,
    },
}

/// One event as a projector receives it.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The event's sequence number in the log (for error messages and traces).
    pub seq: u64,
    /// The event's instant.
    pub at: Timestamp,
    /// What happened.
    pub input: Input<'a>,
}

/// TGR's display of a rating (the TGR text's display code, docs/algorithms/tgr.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Display {
    /// RD above `provisional_rd`.
    pub provisional: bool,
    /// The GLIXARE percentage, `None` when provisional.
    pub glixare: Option<f64>,
}

/// One player's result as the replay reports it (docs/outputs.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Who.
    pub player: PlayerId,
    /// The rating on the algorithm's own scale.
    pub rating: f64,
    /// Rating deviation, for algorithms that keep one (tgr, glicko, glicko2).
    pub rd: Option<f64>,
    /// Volatility, for glicko2.
    pub volatility: Option<f64>,
    /// Uncertainty sigma, for weng-lin.
    pub sigma: Option<f64>,
    /// Matches (MatchResult events, not pairs) the player sat in and that were rated.
    pub games: u64,
    /// TGR's provisional flag and GLIXARE; `None` for other algorithms.
    pub display: Option<Display>,
}

impl Standing {
    /// A standing with a rating only (elo, zonestats, performance).
    pub fn rating_only(player: PlayerId, rating: f64, games: u64) -> Standing {
        Standing { player, rating, rd: None, volatility: None, sigma: None, games, display: None }
    }

    /// The fields every command prints for this standing, beside the player's name, in the
    /// documented order (docs/outputs.md): `rating`, then `rd`, `volatility` and `sigma` where the
    /// algorithm keeps them, `games`, then TGR's `provisional` and `glixare`. `replay`,
    /// `leaderboard`, `history`, `explain`, `plot` and `serve` all take their fields from here, so
    /// a quantity one algorithm adds reaches every output at once.
    pub fn fields(&self) -> Vec<(&'static str, FieldValue)> {
        let mut f = vec![("rating", FieldValue::Number(self.rating))];
        if let Some(rd) = self.rd {
            f.push(("rd", FieldValue::Number(rd)));
        }
        if let Some(v) = self.volatility {
            f.push(("volatility", FieldValue::Number(v)));
        }
        if let Some(sigma) = self.sigma {
            f.push(("sigma", FieldValue::Number(sigma)));
        }
        f.push(("games", FieldValue::Count(self.games)));
        if let Some(d) = self.display {
            f.push(("provisional", FieldValue::Flag(d.provisional)));
            f.push(("glixare", d.glixare.map_or(FieldValue::Null, FieldValue::Number)));
        }
        f
    }

    /// The standing's uncertainty on its rating's scale, for a band around it: the RD where the
    /// algorithm keeps one, otherwise Weng-Lin's and TTT's sigma.
    pub fn spread(&self) -> Option<f64> {
        self.rd.or(self.sigma)
    }

    /// What [`Standing::spread`] is, as a band around the rating is labelled: "RD" where the
    /// algorithm keeps a rating deviation, "sigma" where it keeps Weng-Lin's or TTT's sigma.
    pub fn spread_name(&self) -> Option<&'static str> {
        match (self.rd, self.sigma) {
            (Some(_), _) => Some("RD"),
            (None, Some(_)) => Some("sigma"),
            (None, None) => None,
        }
    }

    /// What a leaderboard ranks this player by, highest first: the displayed GLIXARE where the
    /// algorithm shows one (TGR), otherwise the rating.
    pub fn rank_key(&self) -> f64 {
        self.display.and_then(|d| d.glixare).unwrap_or(self.rating)
    }
}

/// The value of one field of a [`Standing`] (see [`Standing::fields`]). It serializes as the JSON
/// value the outputs print (a number, an integer, a boolean or `null`) and renders as a table cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue {
    /// A quantity on the algorithm's scale (rating, RD, volatility, sigma, GLIXARE).
    Number(f64),
    /// A count (games).
    Count(u64),
    /// A yes/no (provisional).
    Flag(bool),
    /// A quantity not defined for this standing (a provisional player's GLIXARE).
    Null,
}

impl FieldValue {
    /// The value as a table cell: numbers with `decimals` places, counts whole, flags as
    /// `yes`/`no`, a missing value as `-`.
    pub fn cell(&self, decimals: usize) -> String {
        match *self {
            FieldValue::Number(x) => format!("{x:.decimals$}"),
            FieldValue::Count(n) => n.to_string(),
            FieldValue::Flag(b) => if b { "yes" } else { "no" }.to_string(),
            FieldValue::Null => "-".to_string(),
        }
    }
}

impl serde::Serialize for FieldValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            FieldValue::Number(x) => s.serialize_f64(x),
            FieldValue::Count(n) => s.serialize_u64(n),
            FieldValue::Flag(b) => s.serialize_bool(b),
            FieldValue::Null => s.serialize_none(),
        }
    }
}

/// Refuses the seats of a match at step `seq` that a projector cannot apply: a player who never
/// joined (`games` gives `None`), or one whose game count, kept as a `u32` so that per-player
/// records stay small, is already at its limit. `games` gives a joined player's count.
pub fn check_seats(
    seq: u64,
    seats: &[SeatIn],
    games: impl Fn(PlayerId) -> Option<u32>,
) -> Result<(), ProjectError> {
    for seat in seats {
        match games(seat.player) {
            None => {
                return Err(ProjectError::new(seq, ProjectErrorKind::UnknownPlayer(seat.player.0)))
            }
            Some(u32::MAX) => {
                return Err(ProjectError::new(
                    seq,
                    ProjectErrorKind::Overflow {
                        what: format!("player #{}'s games", seat.player.0),
                        limit: u64::from(u32::MAX),
                    },
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The outcome for the first of two seats, by comparing their scores (docs/events.md: equal is a
/// draw): 1 win, 0.5 draw, 0 loss.
pub fn outcome(first: f64, second: f64) -> f64 {
    if first > second {
        1.0
    } else if first < second {
        0.0
    } else {
        0.5
    }
}

/// Why a projector could not apply a step. Always names the event.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("event {seq}: {kind}")]
pub struct ProjectError {
    /// Sequence number of the event being applied.
    pub seq: u64,
    /// What went wrong.
    pub kind: ProjectErrorKind,
}

/// What went wrong in a projector's arithmetic.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectErrorKind {
    /// A quantity became NaN or infinite, or a division by zero was about to happen.
    #[error("{quantity} is not finite ({detail})")]
    NonFinite {
        /// The seed's name of the quantity, e.g. `V` or `phi'`.
        quantity: &'static str,
        /// What led there, e.g. `PE rounded to exactly 1`.
        detail: String,
    },
    /// An iteration did not converge within its bound.
    #[error("{what} did not converge in {iterations} iterations")]
    NoConvergence {
        /// Which iteration.
        what: &'static str,
        /// The bound that was reached.
        iterations: u32,
    },
    /// A step named a player the projector never saw join.
    #[error("player #{0} never joined")]
    UnknownPlayer(u32),
    /// A counter of the state reached the largest value it can hold.
    #[error("{what} reached its limit of {limit}")]
    Overflow {
        /// What was counted, e.g. `player #3's games`.
        what: String,
        /// The largest value the counter holds.
        limit: u64,
    },
}

impl ProjectError {
    /// An error at event `seq`.
    pub fn new(seq: u64, kind: ProjectErrorKind) -> ProjectError {
        ProjectError { seq, kind }
    }

    /// A [`ProjectErrorKind::NonFinite`] error at event `seq`.
    pub fn non_finite(seq: u64, quantity: &'static str, detail: impl Into<String>) -> ProjectError {
        ProjectError::new(seq, ProjectErrorKind::NonFinite { quantity, detail: detail.into() })
    }
}

/// A joining player's prior quantity (a PlayerJoined's `rating` or `rd`, docs/events.md), or the
/// algorithm's `default` when the event gives none; refused unless finite, and unless positive
/// too when `positive` (a deviation). The error at event `seq` names the algorithm's `quantity`
/// and the event's `field`.
pub fn prior_or(
    seq: u64,
    given: Option<f64>,
    default: f64,
    quantity: &'static str,
    field: &str,
    positive: bool,
) -> Result<f64, ProjectError> {
    let value = given.unwrap_or(default);
    match (value.is_finite(), positive) {
        (true, false) => Ok(value),
        (true, true) if value > 0.0 => Ok(value),
        (_, false) => Err(ProjectError::non_finite(
            seq,
            quantity,
            format!("the prior {field} is not a finite number"),
        )),
        (_, true) => Err(ProjectError::non_finite(
            seq,
            quantity,
            format!("the prior {field} is not a positive finite number"),
        )),
    }
}

/// Looks a traced quantity up by name (a player's, in the traces `explain` reads): what
/// [`Projector::period_change`] and [`Projector::flag_reason`] take their numbers from.
pub type Quantities<'a> = dyn Fn(&str) -> Option<f64> + 'a;

/// A rating algorithm folded over the history.
///
/// Invariants every implementation keeps: no clock, IO or randomness; the same steps in the same
/// order give bit-identical state; state is per-player arrays indexed by [`PlayerId`].
pub trait Projector {
    /// The algorithm's name (`tgr`, `glicko`, ...; docs/spec.md): the configuration's.
    fn algorithm(&self) -> &'static str {
        self.config().algorithm
    }

    /// The configuration in force, every constant included.
    fn config(&self) -> &Config;

    /// Folds one step into the state. With a trace, records every intermediate quantity computed
    /// for this step (and, for algorithms with rating periods, for any period this step closes).
    fn apply(&mut self, step: &Step<'_>, trace: Option<&mut Trace>) -> Result<(), ProjectError>;

    /// One player's standing as the replay would report it if it ended now (`None` for an id
    /// that never joined). Does not change the state: algorithms with rating periods compute the
    /// closing of the open period (and idle growth up to it) on the side. What `plot` and
    /// `history` read after each of a player's events.
    fn standing(&self, player: PlayerId) -> Option<Standing>;

    /// How many player ids the state has records for (joined or not): the ids
    /// [`Projector::standings`] visits.
    fn players(&self) -> usize;

    /// The standings as the replay reports them if it ended now, sorted by [`PlayerId`], one per
    /// player who joined: [`Projector::standing`] of every id. An algorithm may compute them all
    /// at once (Glicko's open period is closed once, not once per player), with the same values.
    fn standings(&self) -> Vec<Standing> {
        (0..self.players()).filter_map(|i| self.standing(PlayerId(i as u32))).collect()
    }

    /// What a leaderboard ranks by: `rating` (the default), or the name of the display value
    /// [`Standing::rank_key`] takes instead (TGR's `glixare`).
    fn ranked_by(&self) -> &'static str {
        "rating"
    }

    /// Checks that the state can be reported once the replay ends after event `seq`: algorithms
    /// with rating periods compute the closing of the open period (what [`Projector::standings`]
    /// does on the side) and return its arithmetic failure as an error at `seq`, where
    /// `standings()` alone would have to leave that period out. With a trace, records that
    /// computation as [`Projector::apply`] records a period a step closes (what `explain` shows
    /// for a period still open at the head). Changes nothing. Drivers call it once, at the end.
    /// Algorithms without periods have nothing to check or record.
    fn settle(&self, seq: u64, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        let _ = (seq, trace);
        Ok(())
    }

    /// The algorithm's own expectation that `a` beats `b` in a game starting at `at`, from the
    /// state just before it (used by `--score`, docs/outputs.md). A draw counts as half a win.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64;

    /// [`Projector::expectation`] for a game where `home` says which seat is at home: what
    /// `--score`, `sweep` and `tune` read. An algorithm with a `home` constant adds it to the
    /// home seat's side; the default (an algorithm without one) is the neutral expectation.
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        let _ = home;
        self.expectation(a, b, at)
    }

    /// The rating period a match at `at` is rated in, `(k, P)`: the period `[k P, (k + 1) P)` in
    /// nanoseconds from the Unix epoch, for an algorithm that rates the matches of a period of
    /// fixed length together when it closes. `None` (the default) where each match is rated when
    /// it is applied. What `explain` reads to find where a match's arithmetic happens.
    fn rating_period(&self, at: Timestamp) -> Option<(i64, i64)> {
        let _ = at;
        None
    }

    /// A player's rating at the start of a rating period and after it (on the reported scale),
    /// from the quantities the period's trace records for them, looked up by name with
    /// `quantity`. `None` (the default) for algorithms without rating periods, or when a quantity
    /// is missing. What `explain` compares a match's result with.
    fn period_change(&self, quantity: &Quantities<'_>) -> Option<(f64, f64)> {
        let _ = quantity;
        None
    }

    /// Why this algorithm raised flag `code` for `player`, in plain language with the numbers
    /// behind it (`quantity` looks the player's traced quantities up by name): what `explain`
    /// prints as the flag's `why`. `None` (the default) leaves the flag to `explain`'s generic
    /// reason for its code.
    fn flag_reason(&self, code: &str, player: &str, quantity: &Quantities<'_>) -> Option<String> {
        let _ = (code, player, quantity);
        None
    }

    /// For a whole-history algorithm (TrueSkill Through Time), whose estimate of a moment changes
    /// with every later game: `player`'s smoothed curve, what the whole history applied so far
    /// says about their skill at each of their games, as the game's instant and the standing
    /// there, oldest first (empty for a player without games or an unknown id). `None` (the
    /// default) for every filter, whose standing after an event is final: `history` and `plot`
    /// then read [`Projector::standing`] after each event instead.
    fn curve(&self, player: PlayerId) -> Option<Vec<(Timestamp, Standing)>> {
        let _ = player;
        None
    }

    /// A hint that `player` is about to be applied: reads the player's record so that it is in
    /// the cache when the step comes. Changes nothing; a driver that knows the steps ahead calls
    /// it a few steps early, so the fold does not wait on memory for every player (with 100,000
    /// players the records do not stay in the cache). The default does nothing.
    fn prefetch(&self, player: PlayerId) {
        let _ = player;
    }
}

/// What every algorithm crate provides besides the fold: its name and constant table, one
/// constructor from a validated [`Config`], and its state, saved and restored for checkpoints.
/// ladder-replay's registry lists every implementation once; adding an algorithm is a crate that
/// implements this trait and one line there (docs/ARCHITECTURE.md, "Adding an algorithm").
pub trait Algorithm: Projector + Clone + std::fmt::Debug + Sized {
    /// The algorithm's name (`--algo`, docs/spec.md).
    const ALGORITHM: &'static str;
    /// The constants, with defaults, ranges and docs.
    const PARAMS: &'static [ParamSpec];
    /// The constants `ladder tune` searches by default: those a ladder's data decides (fixed
    /// points of the method and starting values are left alone). None by default.
    const TUNED: &'static [&'static str] = &[];
    /// Everything a checkpoint must keep.
    type State: serde::Serialize + serde::de::DeserializeOwned + Clone + std::fmt::Debug;

    /// A fresh projector. Refuses a configuration of another algorithm (and any rule between
    /// constants the table cannot express).
    fn new(config: Config) -> Result<Self, ConfigError>;

    /// A projector resuming from [`Algorithm::state`], taken under the same configuration. A
    /// state whose parts do not fit together is refused.
    fn restore(config: Config, state: Self::State) -> Result<Self, ConfigError>;

    /// The state, for checkpoints.
    fn state(&self) -> &Self::State;

    /// [`Algorithm::new`] with the configuration built from `KEY=VALUE` pairs (later ones win;
    /// defaults for the rest).
    fn configure(sets: &[(String, String)]) -> Result<Self, ConfigError> {
        Self::new(Config::new(Self::ALGORITHM, Self::PARAMS, sets)?)
    }
}

/// Asks the CPU to bring `value` into the cache, without waiting for it: the body of
/// [`Projector::prefetch`] and of the roster's lookahead. On x86-64 this is the `prefetcht0`
/// instruction; elsewhere it does nothing.
///
/// Reading the value instead (a plain load kept with `black_box`) also brings it in, but the
/// load cannot retire until the value arrives, so the fold waited on nearly as many misses as
/// without it; the prefetch instruction has no result to wait for. The 10M-match TGR replay took
/// 2.84 s against 3.19 s with the load (docs/PERFORMANCE.md, "What limits the replay", says how
/// it was measured).
#[inline]
#[allow(unsafe_code)] // The workspace's one `unsafe`: see docs/ARCHITECTURE.md.
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is `unsafe` only because it is a `target_feature(enable = "sse")`
    // function, and SSE is part of the x86-64 baseline, so every x86-64 CPU has it. The
    // instruction is a hint: it reads no memory the program can observe and cannot fault,
    // whatever the address; here the address is a live reference's anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prior_is_taken_defaulted_or_refused_naming_quantity_and_field() {
        assert_eq!(prior_or(1, Some(1700.0), 1500.0, "r", "rating", false).unwrap(), 1700.0);
        assert_eq!(prior_or(1, None, 1500.0, "r", "rating", false).unwrap(), 1500.0);
        // A rating may be zero or negative; a deviation may not.
        assert_eq!(prior_or(1, Some(-3.0), 1500.0, "r", "rating", false).unwrap(), -3.0);
        let e = prior_or(7, Some(0.0), 350.0, "RD", "RD", true).unwrap_err();
        assert_eq!(e.seq, 7);
        assert_eq!(
            e.kind,
            ProjectErrorKind::NonFinite {
                quantity: "RD",
                detail: "the prior RD is not a positive finite number".into()
            }
        );
        let e = prior_or(2, Some(f64::NAN), 25.0, "mu", "rating", false).unwrap_err();
        assert_eq!(
            e.kind,
            ProjectErrorKind::NonFinite {
                quantity: "mu",
                detail: "the prior rating is not a finite number".into()
            }
        );
        assert!(prior_or(3, Some(f64::INFINITY), 1.0, "sigma", "rd", true).is_err());
    }
}
