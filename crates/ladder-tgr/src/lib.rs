//! TGR, the "Timed Glicko Rating" system, as a ladder [`Projector`]. "The TGR text" (or "the seed")
//! below is the forum post that introduced it for the Competitor program; `docs/algorithms/tgr.md`
//! quotes the lines this crate implements.
//!
//! TGR is Glicko-1 played one battle at a time, with two changes: RD grows with the *time* since a
//! player's last battle (a fraction of a UTC day, `PTime * SC^2`, plus a midnight tick that adds the
//! rest of the day), and each rating change is weighted by `2 * PMERIT - 1`, the seed's estimate that
//! the result was deserved rather than lucky. The arithmetic lives in [`formulas`] as pure functions
//! that cite the seed line by line; this file decides which values go in.
//!
//! Design decisions (each argued in `docs/algorithms/tgr.md`):
//! - **Lazy midnights.** The seed visits every player at every midnight. A history of 55,000 days
//!   and 34,000 players cannot afford that, so each player keeps the UTC day of their last update and
//!   the midnights since then are applied at once when the player is next touched
//!   ([`formulas::midnights`]). A `MidnightTick` event and a day boundary without one are therefore
//!   the same thing: neither touches any player, both just pass. [`Projector::standings`] and
//!   [`Tgr::values_at`] apply pending midnights on the side, without changing the state.
//! - **Order.** `order=as-written` (default) runs `UpdatePlayer(first, second)` then
//!   `UpdatePlayer(second, first)` with the second call seeing the first seat's new values, as the
//!   seed's code does; `order=simultaneous` feeds both calls the values from before the battle.
//! - **P.** The seed leaves `P = ...` blank. [`PARAMS`] defaults it to 5/6, the smallest value at
//!   which `2 * PMERIT - 1 >= 0` for every result, so no result reverses the sign of Glicko's change;
//!   lower values are accepted with a warning.
//! - **Extensions.** Draws are `Win = 0.5`; a match of more than two seats is one battle per pair of
//!   seats on different sides, in seat order; arithmetic that breaks down (PE rounding to exactly 1
//!   or 0) is a typed [`ProjectError`] naming the event, never a NaN rating.
//! - **State.** Dense per-player arrays indexed by [`PlayerId`], no allocation per event, no clock,
//!   IO or randomness. [`TgrState`] is serde-serializable for replay checkpoints.
//!
//! Besides the projector: [`pair`] (the seed's queue as a pure function). The leaderboard
//! (GLIXARE ranking, provisional players left out) is ladder-replay's, one for every algorithm.
#![deny(missing_docs)]

pub mod formulas;
mod queue;

pub use formulas::{glixare, update_player, win_prob, Breakdown, Constants, Player, Update};
pub use queue::{pair, Candidate, QueueChoice, QUEUE_BAND, QUEUE_WAIT_SECONDS};

use formulas::{day_frac, midnights, update_player_home};
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    Algorithm, Config, ConfigError, Display, Input, ParamKind, ParamSpec, PlayerId, ProjectError,
    ProjectErrorKind, Projector, Quantities, SeatIn, Standing, Step, Trace, HOME_PARAM,
};
use ladder_projector::{Home, Revert, REVERT_AFTER_PARAM, REVERT_PARAM};
use serde::{Deserialize, Serialize};

/// The algorithm's name for `--algo` (`docs/spec.md`).
pub const ALGORITHM: &str = "tgr";

/// An idle gap (since the player's last battle, queue timeout or join) longer than this many days
/// raises the `long-idle-gap` trace flag. A week: at `sc=20`, long enough to add `7 * SC^2 = 2800`
/// to RD^2, which takes an established RD of 50 to about 73.
pub const LONG_IDLE_DAYS: f64 = 7.0;

/// TGR's constants (`docs/spec.md`), in the order every output echoes them.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "sc",
        kind: ParamKind::at_least(0.0),
        default: "20",
        doc: "SC: a day without battles adds SC^2 to RD^2 (the TGR text)",
        warn_below: None,
    },
    ParamSpec {
        key: "p",
        kind: ParamKind::between(0.0, 1.0),
        default: "0.8333333333333334",
        doc: "P: chance that an even battle's result was deserved, in PMERIT = 1 - (1 - P) * XD * \
              (1 + 2 * XD); the TGR text leaves it blank, default 5/6 (docs/algorithms/tgr.md)",
        warn_below: Some((
            5.0 / 6.0,
            "below 5/6 an improbable result can reverse the sign of a rating change \
             (2 * PMERIT - 1 < 0: a winner may lose rating)",
        )),
    },
    ParamSpec {
        key: "rd_max",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "the cap on RD, the seed's min(..., 350)",
        warn_below: None,
    },
    ParamSpec {
        key: "provisional_rd",
        kind: ParamKind::above(0.0),
        default: "100",
        doc: "a rating is provisional (no GLIXARE) when RD > provisional_rd (the TGR text's code)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rating",
        kind: ParamKind::any(),
        default: "1500",
        doc: "a new player's rating, the seed's NewPlayer.Rating (a prior overrides it)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rd",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "a new player's RD, the seed's NewPlayer.RD (a prior overrides it)",
        warn_below: None,
    },
    ParamSpec {
        key: "order",
        kind: ParamKind::Choice(&["as-written", "simultaneous"]),
        default: "as-written",
        doc: "as-written: the second UpdatePlayer sees the first seat's new values (the seed's \
              code); simultaneous: both from the values before the battle",
        warn_below: None,
    },
    HOME_PARAM,
    REVERT_PARAM,
    REVERT_AFTER_PARAM,
];

/// Which values the second UpdatePlayer of a battle sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `UpdatePlayer(first, second)` then `UpdatePlayer(second, first)`, the second seeing the first
    /// seat's new rating and RD: the seed's code to the letter (the default).
    AsWritten,
    /// Both calls from the values before the battle (Glicko's usual symmetric update).
    Simultaneous,
}

/// One player's stored state: 32 bytes, aligned so that a record is one half of a cache line
/// (with 100,000 players a replay's fold waits on memory for most records it reads; a 48-byte
/// record straddled two lines one time in four).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[repr(align(32))]
struct Slot {
    /// Rating, RD and Time as of the end of `day`'s last update of this player. An RD of 0 marks
    /// an id the roster handed out to other players' events before this one joined (a joined
    /// player's RD is always > 0).
    values: Player,
    /// The UTC day `values` belong to: midnights after it are pending. (A [`Timestamp`]'s day
    /// is within ±106,752 of the epoch, so it fits.)
    day: i32,
    /// Rated matches (MatchResult events) the player sat in; refused at `u32::MAX` with a typed
    /// error ([`ladder_projector::check_seats`]).
    games: u32,
}

impl Slot {
    const ABSENT: Slot =
        Slot { values: Player { rating: 0.0, rd: 0.0, time: 0.0 }, day: 0, games: 0 };

    /// True once the player joined.
    fn joined(&self) -> bool {
        self.values.rd > 0.0
    }

    /// The UTC day `values` belong to.
    fn day(&self) -> i64 {
        i64::from(self.day)
    }
}

/// A UTC day number as a [`Slot`] stores it.
fn day32(day: i64) -> i32 {
    i32::try_from(day).expect("a Timestamp's day is within ±106,752 of the epoch")
}

/// The whole mutable state of a TGR projection, serializable for replay checkpoints.
///
/// Invariant: a player's RD is the one after their last update; midnights from the day after it
/// through `last_day` are pending and applied when the player is next touched or reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TgrState {
    players: Vec<Slot>,
    last_day: Option<i64>,
    /// Each player's last battle (nanoseconds; `i64::MIN` before the first), kept only while
    /// `revert` is on (empty otherwise).
    last: Vec<i64>,
}

impl TgrState {
    /// The UTC day number of the last step applied, if any.
    pub fn last_day(&self) -> Option<i64> {
        self.last_day
    }
}

/// The TGR projector: the TGR text folded over a ladder's events.
#[derive(Clone, Debug)]
pub struct Tgr {
    config: Config,
    k: Constants,
    provisional_rd: f64,
    initial_rating: f64,
    initial_rd: f64,
    order: Order,
    /// `home`: rating points added to the home seat's side of PE and WinProb.
    home: f64,
    /// `revert` and `revert_after`.
    revert: Revert,
    state: TgrState,
}

/// What the first `UpdatePlayer` of a battle (and both under `order=simultaneous`) sees of Player2.
const BEFORE_BATTLE: [&str; 2] =
    ["Player2's rating before the battle", "Player2's RD after the midnights, before the battle"];
/// What the second `UpdatePlayer` sees of Player2 under `order=as-written`: the seed's code calls it
/// after the first has changed Player2's values.
const AFTER_OWN_UPDATE: [&str; 2] = [
    "order=as-written: Player2's rating after their own UpdatePlayer above",
    "order=as-written: Player2's RD after their own UpdatePlayer above",
];

impl Algorithm for Tgr {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["sc", "p"];
    type State = TgrState;

    /// `config` is checked again against [`PARAMS`] (missing keys take their defaults, unknown
    /// keys and out-of-range values are refused, warnings recomputed).
    fn new(config: Config) -> Result<Tgr, ConfigError> {
        Tgr::restore(config, TgrState::default())
    }

    fn restore(config: Config, state: TgrState) -> Result<Tgr, ConfigError> {
        if config.algorithm != ALGORITHM {
            return Err(ConfigError::Inconsistent {
                algorithm: ALGORITHM,
                message: format!("a configuration of `{}` is not one of tgr", config.algorithm),
            });
        }
        let sets: Vec<(String, String)> =
            config.values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let config = Config::new(ALGORITHM, PARAMS, &sets)?;
        let k = Constants {
            sc: config.number("sc"),
            p: config.number("p"),
            rd_max: config.number("rd_max"),
        };
        let order = match config.text("order") {
            "simultaneous" => Order::Simultaneous,
            _ => Order::AsWritten,
        };
        Ok(Tgr {
            k,
            provisional_rd: config.number("provisional_rd"),
            initial_rating: config.number("initial_rating"),
            initial_rd: config.number("initial_rd"),
            order,
            home: config.number("home"),
            revert: Revert::from_config(&config),
            config,
            state,
        })
    }

    fn state(&self) -> &TgrState {
        &self.state
    }
}

impl Tgr {
    /// The numeric constants in force.
    pub fn constants(&self) -> Constants {
        self.k
    }

    /// The update order in force.
    pub fn order(&self) -> Order {
        self.order
    }

    /// Player `id`'s values as the seed would hold them after the last step applied: midnights up to
    /// that step's day applied (a tick at the instant of the last event counts), state unchanged.
    pub fn values(&self, id: PlayerId) -> Option<Player> {
        let slot = self.slot(id)?;
        Some(self.caught_up(slot, self.state.last_day.unwrap_or(slot.day())))
    }

    /// Player `id`'s values as the seed would hold them at `at` (at least the last step's day):
    /// the midnights up to `at`'s day applied on the side. What [`pair`] and
    /// [`Projector::expectation`] want.
    pub fn values_at(&self, id: PlayerId, at: Timestamp) -> Option<Player> {
        let slot = self.slot(id)?;
        let day = self.state.last_day.map_or(at.day(), |d| d.max(at.day()));
        Some(self.caught_up(slot, day))
    }

    /// Whether `rd` makes a rating provisional: `RD > provisional_rd`, as the seed's code
    /// (`If Player.RD > 100`); its prose says "at least 100", the code wins.
    pub fn is_provisional(&self, rd: f64) -> bool {
        rd > self.provisional_rd
    }

    fn slot(&self, id: PlayerId) -> Option<&Slot> {
        self.state.players.get(id.index()).filter(|s| s.joined())
    }

    fn caught_up(&self, slot: &Slot, day: i64) -> Player {
        if day > slot.day() {
            Player { rating: slot.values.rating, rd: self.pending_rd(slot, day), time: 0.0 }
        } else {
            slot.values
        }
    }

    fn pending_rd(&self, slot: &Slot, day: i64) -> f64 {
        midnights(slot.values.rd, slot.values.time, day - slot.day(), &self.k)
    }

    /// TGR text, new player: `NewPlayer.Rating = 1500; NewPlayer.RD = 350; NewPlayer.Time =
    /// DayFrac();`, with the configured initial values or the player's prior.
    fn join(&mut self, id: PlayerId, prior: Prior, day: i64, time: f64, trace: Option<&mut Trace>) {
        let i = id.index();
        if i >= self.state.players.len() {
            self.state.players.resize(i + 1, Slot::ABSENT);
        }
        let slot = &mut self.state.players[i];
        if slot.joined() {
            // The log refuses a second join; if one slips through, the first stands.
            return;
        }
        let values = Player {
            rating: prior.rating.unwrap_or(self.initial_rating),
            rd: prior.rd.unwrap_or(self.initial_rd),
            time,
        };
        *slot = Slot { values, day: day32(day), games: 0 };
        if let Some(t) = trace {
            t.section(format!("NewPlayer(#{})", id.0));
            t.quantity(Some(id), "Rating", "prior rating, else initial_rating", values.rating);
            t.quantity(Some(id), "RD", "prior rd, else initial_rd", values.rd);
            t.quantity(Some(id), "Time", "DayFrac()", values.time);
        }
    }

    /// Applies the midnights pending for `id` up to `day` (lazily, the TGR text's midnight code)
    /// and returns the player's index.
    fn touch(
        &mut self,
        seq: u64,
        id: PlayerId,
        day: i64,
        time: f64,
        trace: Option<&mut Trace>,
    ) -> Result<usize, ProjectError> {
        let i = id.index();
        let slot = match self.state.players.get(i) {
            Some(s) if s.joined() => *s,
            _ => return Err(ProjectError::new(seq, ProjectErrorKind::UnknownPlayer(id.0))),
        };
        if day > slot.day() {
            let rd = self.pending_rd(&slot, day);
            let s = &mut self.state.players[i];
            s.values.rd = rd;
            // TGR text, midnight: Player.Time = 0
            s.values.time = 0.0;
            s.day = day32(day);
            if let Some(t) = trace {
                let days = day - slot.day();
                t.section(format!("Midnights(#{})", id.0));
                t.quantity(
                    Some(id),
                    "midnights",
                    "UTC midnights since the last update",
                    days as f64,
                );
                t.quantity(Some(id), "Player.Time", "Time at the first of them", slot.values.time);
                t.quantity(
                    Some(id),
                    "RD",
                    "min(sqrt(RD^2 + ((1 - Player.Time) + (midnights - 1)) * SC^2), rd_max)",
                    rd,
                );
                if rd >= self.k.rd_max {
                    t.flag(Some(id), "rd-at-cap", format!("RD reached rd_max = {}", self.k.rd_max));
                }
                let gap = (day - slot.day()) as f64 + time - slot.values.time;
                if gap > LONG_IDLE_DAYS {
                    t.flag(
                        Some(id),
                        "long-idle-gap",
                        format!("{gap:.2} days since the last battle, timeout or join"),
                    );
                }
            }
        }
        Ok(i)
    }

    fn rate(
        &mut self,
        (seq, at): (u64, Timestamp),
        seats: &[SeatIn],
        day: i64,
        time: f64,
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        // Unknown players and full game counts are refused before anything changes.
        ladder_projector::check_seats(seq, seats, |p| {
            self.state.players.get(p.index()).filter(|s| s.joined()).map(|s| s.games)
        })?;
        for seat in seats {
            self.touch(seq, seat.player, day, time, trace.as_deref_mut())?;
        }
        if self.revert.is_on() {
            // revert: a first battle after an absence of at least revert_after moves the
            // rating that fraction of the way back to initial_rating before it.
            for seat in seats {
                let k = seat.player.index();
                if k >= self.state.last.len() {
                    self.state.last.resize(k + 1, i64::MIN);
                }
                let last = Some(self.state.last[k]).filter(|&l| l != i64::MIN);
                if self.revert.due(last, at.0) {
                    let values = &mut self.state.players[k].values;
                    values.rating = self.revert.apply(values.rating, self.initial_rating);
                    if let Some(t) = trace.as_deref_mut() {
                        t.quantity(
                            Some(seat.player),
                            "Rating (revert)",
                            "Rating + revert (initial_rating - Rating): the first battle after \
                             an absence of at least revert_after",
                            values.rating,
                        );
                    }
                }
                self.state.last[k] = at.0;
            }
        }
        // Extension of the TGR text (docs/events.md): every pair of seats on different sides, in
        // seat order, one battle per pair.
        for (i, a) in seats.iter().enumerate() {
            for b in &seats[i + 1..] {
                if a.side == b.side {
                    continue;
                }
                // TGR text, battle end: If Player1 won the battle against Player2 then Win = 1
                // else Win = 0 (extended: equal scores are a draw, Win = 0.5).
                let win = if a.score > b.score {
                    1.0
                } else if a.score < b.score {
                    0.0
                } else {
                    0.5
                };
                let edge = a.advantage(self.home) - b.advantage(self.home);
                self.battle(seq, (a.player, b.player), time, win, edge, trace.as_deref_mut())?;
            }
        }
        for seat in seats {
            self.state.players[seat.player.index()].games += 1;
        }
        Ok(())
    }

    /// TGR text, battle end: `UpdatePlayer(Player1,Player2,Time,Win);
    /// UpdatePlayer(Player2,Player1,Time,1-Win);`. Both players are already caught up to today.
    /// `edge` is the first seat's home advantage over the second (rating points).
    fn battle(
        &mut self,
        seq: u64,
        (a, b): (PlayerId, PlayerId),
        time: f64,
        win: f64,
        edge: f64,
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let fail = |e: Breakdown| {
            ProjectError::new(
                seq,
                ProjectErrorKind::NonFinite { quantity: e.quantity(), detail: e.to_string() },
            )
        };
        let a0 = self.state.players[a.index()].values;
        let b0 = self.state.players[b.index()].values;
        // TGR text, battle end: UpdatePlayer(Player1,Player2,Time,Win)
        let ua = update_player_home(a0, b0, time, win, edge, &self.k).map_err(fail)?;
        // as-written: the second call sees Player1's new values, as the seed's code does.
        let opponent = match self.order {
            Order::AsWritten => ua.after,
            Order::Simultaneous => a0,
        };
        // TGR text, battle end: UpdatePlayer(Player2,Player1,Time,1-Win)
        let ub = update_player_home(b0, opponent, time, 1.0 - win, -edge, &self.k).map_err(fail)?;
        self.state.players[a.index()].values = ua.after;
        self.state.players[b.index()].values = ub.after;
        if let Some(t) = trace {
            self.trace_update(t, (a, a0), (b, b0), win, &ua, (BEFORE_BATTLE, edge));
            let note = match self.order {
                Order::AsWritten => AFTER_OWN_UPDATE,
                Order::Simultaneous => BEFORE_BATTLE,
            };
            self.trace_update(t, (b, b0), (a, opponent), 1.0 - win, &ub, (note, -edge));
        }
        Ok(())
    }

    /// The trace of one `UpdatePlayer(Player1, Player2, Time, Win)`: `me` with their values before
    /// it, `opp` with the values this call used, `whose` saying which values those are, and `edge`
    /// Player1's home advantage over Player2.
    fn trace_update(
        &self,
        t: &mut Trace,
        (me, my_values): (PlayerId, Player),
        (opp, opp_values): (PlayerId, Player),
        win: f64,
        u: &Update,
        (whose, edge): ([&'static str; 2], f64),
    ) {
        let p = Some(me);
        t.section(format!("UpdatePlayer(#{}, #{})", me.0, opp.0));
        t.opponent(p, opp);
        t.quantity(p, "P", "constant p", self.k.p);
        t.quantity(p, "SC", "constant sc", self.k.sc);
        t.quantity(p, "Q", "ln(10) / 400", formulas::Q);
        t.quantity(p, "PI", "the seed's PI, 3.14159265359", formulas::SEED_PI);
        t.quantity(p, "Player1.Rating", "Player1's rating before this update", my_values.rating);
        t.quantity(
            p,
            "Player1.RD",
            "Player1's RD after the midnights, before this update",
            my_values.rd,
        );
        t.quantity(
            p,
            "Player1.Time",
            "Player1's day fraction at their last update",
            my_values.time,
        );
        t.quantity(p, "Player2.Rating", whose[0], opp_values.rating);
        t.quantity(p, "Player2.RD", whose[1], opp_values.rd);
        t.quantity(p, "Time", "DayFrac()", u.after.time);
        t.quantity(p, "Win", "1 won, 0 lost, 0.5 drew", win);
        t.quantity(p, "PTime", "Time - Player1.Time", u.ptime);
        t.quantity(p, "PRD", "min(sqrt(Player1.RD^2 + PTime * SC^2), rd_max)", u.prd);
        t.quantity(p, "PG", "1 / sqrt(1 + 3 * Q^2 * Player2.RD^2 / PI^2)", u.pg);
        if self.home != 0.0 {
            t.quantity(
                p,
                "Home",
                "home: Player1's home advantage over Player2 (home, -home or 0), added to \
                 Player1.Rating in PE and WinProb",
                edge,
            );
        }
        t.quantity(p, "PE", "1 / (1 + 10^(-PG * (Player1.Rating - Player2.Rating) / 400))", u.pe);
        t.quantity(p, "G", "1 / sqrt(1 + 3 * Q^2 * (Player1.RD^2 + Player2.RD^2) / PI^2)", u.g);
        t.quantity(
            p,
            "WinProb",
            "WinProb(Player1, Player2) = 1 / (1 + 10^(-G * (Player1.Rating - Player2.Rating) / 400))",
            u.win_prob,
        );
        t.quantity(p, "XD", "abs(Win - WinProb(Player1, Player2))", u.xd);
        t.quantity(p, "PMERIT", "1 - (1 - P) * XD * (1 + 2 * XD)", u.pmerit);
        t.quantity(p, "V", "1 / (PG^2 * PE * (1 - PE) * Q^2)", u.v);
        t.quantity(
            p,
            "delta",
            "Q * PG * (Win - PE) * (2 * PMERIT - 1) / (1 / PRD^2 + 1 / V)",
            u.delta,
        );
        t.quantity(p, "Rating", "Player1.Rating + delta", u.after.rating);
        t.quantity(p, "RD", "1 / sqrt(1 / PRD^2 + 1 / V)", u.after.rd);
        if win == 1.0 && u.delta < 0.0 {
            t.flag(p, "winner-lost-rating", format!("won and lost {:.6} rating", -u.delta));
        }
        if win == 0.0 && u.delta > 0.0 {
            t.flag(p, "loser-gained-rating", format!("lost and gained {:.6} rating", u.delta));
        }
        if u.merit_weight() < 0.0 {
            t.flag(
                p,
                "negative-merit-weight",
                format!("2 * PMERIT - 1 = {:.6} reverses Glicko's change", u.merit_weight()),
            );
        }
        if u.prd_capped {
            t.flag(p, "rd-at-cap", format!("PRD capped at rd_max = {}", self.k.rd_max));
        }
        if self.is_provisional(opp_values.rd) {
            t.flag(
                p,
                "provisional-opponent",
                format!(
                    "opponent's RD {:.6} > provisional_rd = {}",
                    opp_values.rd, self.provisional_rd
                ),
            );
        }
    }
}

impl Projector for Tgr {
    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(&mut self, step: &Step<'_>, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        let day = step.at.day();
        // TGR text, DayFrac(): (Hours * 3600 + Minutes * 60 + Seconds) / 86400, of the event's
        // `at`.
        let time = day_frac(step.at.nanos_into_day());
        if self.state.last_day.is_none_or(|d| day > d) {
            // Every midnight up to `day` has now struck, explicit or not; players catch up lazily.
            self.state.last_day = Some(day);
        }
        match step.input {
            Input::Joined { player, prior } => {
                self.join(player, prior, day, time, trace);
                Ok(())
            }
            Input::Tick => {
                if let Some(t) = trace {
                    t.section(format!("MidnightTick {}", step.at));
                    t.quantity(None, "day", "UTC day number starting at this midnight", day as f64);
                }
                Ok(())
            }
            Input::Timeout { player } => {
                let i = self.touch(step.seq, player, day, time, trace)?;
                // TGR text, queue: If P = 0.35 then { Player.Time = DayFrac(); ... } (RD not grown)
                self.state.players[i].values.time = time;
                Ok(())
            }
            Input::Match { seats } => self.rate((step.seq, step.at), seats, day, time, trace),
        }
    }

    fn standing(&self, player: PlayerId) -> Option<Standing> {
        let slot = self.state.players.get(player.index()).filter(|s| s.joined())?;
        let v = self.caught_up(slot, self.state.last_day.unwrap_or(slot.day()));
        // TGR text, display: If Player.RD > 100 then display "Rating is Provisional"
        let provisional = self.is_provisional(v.rd);
        Some(Standing {
            player,
            rating: v.rating,
            rd: Some(v.rd),
            volatility: None,
            sigma: None,
            games: u64::from(slot.games),
            display: Some(Display {
                provisional,
                glixare: (!provisional).then(|| glixare(v.rating, v.rd)),
            }),
        })
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    /// The displayed GLIXARE (TGR text, display), for players who are not provisional.
    fn ranked_by(&self) -> &'static str {
        "glixare"
    }

    /// A rating change turned around (a winner who lost, a loser who gained, a negative merit
    /// weight): the result's surprise made PMERIT fall below 1/2.
    fn flag_reason(&self, code: &str, player: &str, quantity: &Quantities<'_>) -> Option<String> {
        let _ = player;
        if !matches!(code, "winner-lost-rating" | "loser-gained-rating" | "negative-merit-weight") {
            return None;
        }
        let num = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.6}"));
        Some(format!(
            "the result's surprise XD = |Win - WinProb| = {} makes PMERIT = 1 - (1 - P) XD (1 + 2 XD) \
             = {} fall below 1/2 with P = {}, so the merit weight 2 PMERIT - 1 = {} is negative and \
             turns the change around (with P at 5/6 or above PMERIT never falls below 1/2)",
            num(quantity("XD")),
            num(quantity("PMERIT")),
            num(quantity("P")),
            num(quantity("PMERIT").map(|p| 2.0 * p - 1.0))
        ))
    }

    fn prefetch(&self, player: PlayerId) {
        if let Some(p) = self.state.players.get(player.index()) {
            ladder_projector::prefetch(p);
        }
    }

    /// `WinProb(a, b)` with the midnights up to `at`'s day applied on the side; 0.5 when either
    /// player never joined.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        match (self.values_at(a, at), self.values_at(b, at)) {
            (Some(x), Some(y)) => win_prob(x.rating, x.rd, y.rating, y.rd),
            _ => 0.5,
        }
    }

    /// [`Projector::expectation`] with `home` added to the home seat's rating.
    /// ratings reverted where a battle at `at` would revert them.
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        let of = |p: PlayerId| {
            let mut v = self.values_at(p, at)?;
            let last = self.state.last.get(p.index()).copied().filter(|&l| l != i64::MIN);
            if self.revert.due(last, at.0) {
                v.rating = self.revert.apply(v.rating, self.initial_rating);
            }
            Some(v)
        };
        match (of(a), of(b)) {
            (Some(x), Some(y)) => win_prob(x.rating + home.edge(self.home), x.rd, y.rating, y.rd),
            _ => 0.5,
        }
    }
}
