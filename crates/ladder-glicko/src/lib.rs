//! Glicko ([`Glicko`], the Wikipedia article "Glicko system") and Glicko-2 ([`Glicko2`], that
//! article and Glickman's "Example of the Glicko-2 system") as ladder projectors.
//!
//! Design decisions:
//! - **One period engine, two rating steps.** [`periods::Periodic`] holds the bookkeeping of
//!   rating periods once (slots, games, closing, idle marks, the fast two-seat path, standings
//!   and expectations); Glicko and Glicko-2 are each a [`periods::Rule`] plugged into it
//!   ([`glicko::GlickoRule`], [`glicko2::Glicko2Rule`]), so a fix to periods lands once.
//! - **A rating period is a buffer, not a timer.** Each game adds to per-period *sums* over
//!   per-period *slots* as it arrives; the games themselves are kept only for the trace of the
//!   period's close, a two-seat match as its game and a larger one as its seats
//!   ([`periods::Games`], linear in seats). A slot holds a player's values at the period's start (rating,
//!   RD* or idle-grown phi, and g of that deviation, computed once). The period is computed when
//!   the first step of a later period arrives (any kind of step), and that step's trace holds the
//!   computation. Nothing visits players who did not play: idle growth is applied lazily, as `t`
//!   boundaries (Glicko) or `k` sat-out periods (Glicko-2) at once, when a player next plays or
//!   when [`Projector::standings`](ladder_projector::Projector::standings) reports them.
//! - **`standings()` closes the last period on the side.** The open period is computed into fresh
//!   buffers from `&self`; the state is untouched, so standings can be taken at any step of a
//!   replay.
//! - **`period=game` is the same machinery** with a period of one match, closed at once, and
//!   fractional idle growth `t = elapsed / idle` instead of whole periods (lichess's way).
//! - **State is plain data.** [`GlickoState`] and [`Glicko2State`] derive serde so that a replay
//!   can checkpoint a projector and resume it with `Algorithm::restore`; per-player values live in
//!   dense vectors indexed by [`PlayerId`](ladder_projector::PlayerId), and the scratch buffers of
//!   the period computation are reused, so the hot path allocates nothing once warmed up.
//! - **Arithmetic never lets NaN or infinity out.** Every computed value is checked before the
//!   state is written; a failure is a [`ProjectError`](ladder_projector::ProjectError) naming the
//!   step, and leaves the state as it was. Glicko-2's iterations are bounded
//!   ([`glicko2::MAX_BRACKET_STEPS`], [`glicko2::MAX_ILLINOIS_ITERATIONS`]).
//!
//! Formulas, constants and every reading of the seeds are written down in
//! `docs/algorithms/glicko.md` and `docs/algorithms/glicko2.md`.
#![deny(missing_docs)]

mod clock;
pub mod glicko;
pub mod glicko2;
pub mod periods;

pub use glicko::{Glicko, GlickoState};
pub use glicko2::lanes::Glicko2Lanes;
pub use glicko2::{Glicko2, Glicko2State};

/// An idle gap of at least this many rating periods (or, with `period=game`, `idle` durations)
/// raises the `long-idle-gap` flag in a trace.
pub const LONG_IDLE_PERIODS: f64 = 30.0;
