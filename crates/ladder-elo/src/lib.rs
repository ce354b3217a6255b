//! Elo as a ladder projector (`--algo elo`): one rating per player, the 400-point logistic
//! expectation, and a constant K.
//!
//! Design decisions:
//! - **A match is rated at once from its pre-match ratings.** Every pair of seats on different
//!   sides is one game (docs/events.md); each seat's change is `K Σ (s_j - E_j)` over its
//!   pairs, all computed from the ratings before the match, so the result does not depend on the
//!   order of pairs, and every pair is zero-sum, so a match never creates or destroys points.
//!   This is "all pairs in the same period" (`docs/spec.md`) with a period of one match.
//! - **No time.** Elo has no deviation and no idle growth; ticks, timeouts and the passing of time
//!   change nothing.
//! - **The default K is 20** ([`DEFAULT_K`]): FIDE's K for established players, and the K at which
//!   an Elo rating moves like a Glicko rating whose RD is about 59 (`q RD^2 = 20`), just above the
//!   "typical" RD of 50 in the Wikipedia article "Glicko system". See `docs/algorithms/elo.md`.
//! - State is a dense vector indexed by [`PlayerId`] ([`EloState`], serde for checkpoints), and
//!   the per-match buffer is reused, so the hot path allocates nothing once warmed up.
#![deny(missing_docs)]

use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, math, prior_or, Algorithm, Config, ConfigError, Home, Input, ParamKind, ParamSpec,
    PlayerId, ProjectError, ProjectErrorKind, Projector, Revert, SeatIn, Standing, Step, Trace,
    HOME_PARAM, REVERT_AFTER_PARAM, REVERT_PARAM,
};
use serde::{Deserialize, Serialize};

/// The algorithm's name for `--algo` (`docs/spec.md`).
pub const ALGORITHM: &str = "elo";

/// The documented default of `k`: FIDE's development coefficient for established players rated
/// under 2400, and the K of a Glicko player with RD ≈ 59 (`K = q RD^2`, `q = ln(10) / 400`).
pub const DEFAULT_K: f64 = 20.0;

/// The logistic scale: a rating difference of 400 points means odds of 10 to 1 (the Wikipedia
/// article "Glicko system", step 2: "the factor q also occurs in the formulas of ... the Elo
/// system"; the Arimaa text: W(RD) = 1 / (1 + 10^(RD/400))).
pub const SCALE: f64 = 400.0;

/// The constants of `elo` (`docs/spec.md`), with defaults and ranges.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "k",
        kind: ParamKind::above(0.0),
        default: "20",
        doc: "rating points per unit of (result - expectation) in each game: r' = r + K Σ (s - E)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rating",
        kind: ParamKind::any(),
        default: "1500",
        doc: "rating of a player who joins without a prior",
        warn_below: None,
    },
    HOME_PARAM,
    ParamSpec {
        key: "margin",
        kind: ParamKind::Choice(&["none", "log"]),
        default: "none",
        doc: "margin of victory: `log` multiplies K by ln(|margin| + 1) x 2.2 / (0.001 d + 2.2), \
              d the winner's rating minus the loser's, home included (FiveThirtyEight's Elo)",
        warn_below: None,
    },
    REVERT_PARAM,
    REVERT_AFTER_PARAM,
];

/// The margin-of-victory multiplier of FiveThirtyEight's published Elo models ("How Our NFL
/// Predictions Work"): `ln(|margin| + 1) x 2.2 / (0.001 d + 2.2)`, `margin` the difference of the
/// two seats' scores and `d` the winner's rating minus the loser's, home advantage included. A
/// draw takes `ln(2)` (margin 1, no autocorrelation term), so that a draw still moves ratings
/// toward each other (FiveThirtyEight's description gives a tie 0 and their published nfl-elo
/// code `2.2 ln(2)`: docs/algorithms/elo.md).
#[inline]
pub fn margin_multiplier(margin: f64, d: f64) -> f64 {
    if margin == 0.0 {
        std::f64::consts::LN_2
    } else {
        math::ln(margin.abs() + 1.0) * 2.2 / (0.001 * d + 2.2)
    }
}

/// One player's values. Invariant for joined players: `rating` finite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PlayerState {
    rating: f64,
    /// MatchResults sat in; a u32 keeps the record at 16 bytes (refused, not wrapped, at the limit).
    games: u32,
    joined: bool,
}

const UNJOINED: PlayerState = PlayerState { rating: 0.0, games: 0, joined: false };

/// Everything a checkpoint must keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EloState {
    players: Vec<PlayerState>,
    /// Each player's last game (nanoseconds; `i64::MIN` before the first), kept only while
    /// `revert` is on (empty otherwise).
    last: Vec<i64>,
}

/// The Elo projector.
///
/// Invariant: every joined player's rating is finite; the state changes only when a step succeeds.
#[derive(Clone, Debug)]
pub struct Elo {
    config: Config,
    k: f64,
    initial_rating: f64,
    /// `home`: added to the home seat's rating in every expectation.
    home: f64,
    /// `margin=log`.
    margin: bool,
    /// `revert` and `revert_after`.
    revert: Revert,
    state: EloState,
    /// Per seat of the current match: the rating change.
    deltas: Vec<f64>,
    /// Per seat of the current match: the rating it enters with (reverted where due).
    before: Vec<f64>,
}

/// The 400-point logistic expectation that a player rated `r` beats one rated `r_j`:
/// `E = 1 / (1 + 10^((r_j - r) / 400))`.
#[inline]
pub fn expected(r: f64, r_j: f64) -> f64 {
    // 10^x as e^(x ln 10): the same number to a few units in the last place, at the cost of exp
    // rather than powf.
    1.0 / (1.0 + math::exp((r_j - r) * (std::f64::consts::LN_10 / SCALE)))
}

use ladder_projector::outcome;

/// The error of a new rating that is not finite (`r + K Σ (s - E)` overflowed) for `seat` at
/// `step`: both paths refuse the match with it, changing nothing.
#[cold]
fn overflowed(step: &Step<'_>, seat: &SeatIn) -> ProjectError {
    ProjectError::new(
        step.seq,
        ProjectErrorKind::NonFinite {
            quantity: "r'",
            detail: format!("player #{}: r + K Σ (s - E) overflowed", seat.player.0),
        },
    )
}

impl Algorithm for Elo {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["k"];
    type State = EloState;

    fn new(config: Config) -> Result<Elo, ConfigError> {
        Elo::restore(config, EloState::default())
    }

    fn restore(config: Config, state: EloState) -> Result<Elo, ConfigError> {
        config.check(ALGORITHM, PARAMS)?;
        let (k, initial_rating) = (config.number("k"), config.number("initial_rating"));
        let (home, margin) = (config.number("home"), config.text("margin") == "log");
        let revert = Revert::from_config(&config);
        Ok(Elo {
            config,
            k,
            initial_rating,
            home,
            margin,
            revert,
            state,
            deltas: Vec::new(),
            before: Vec::new(),
        })
    }

    fn state(&self) -> &EloState {
        &self.state
    }
}

impl Elo {
    /// The instant of `player`'s last game, while `revert` is on and they have played.
    fn last_game(&self, player: PlayerId) -> Option<i64> {
        self.state.last.get(player.index()).copied().filter(|&l| l != i64::MIN)
    }

    /// `player`'s rating as they would enter a game at `at` (reverted where due).
    fn rating_at(&self, player: PlayerId, at: Timestamp) -> f64 {
        let Some(p) = self.state.players.get(player.index()).filter(|s| s.joined) else {
            return self.initial_rating;
        };
        if self.revert.due(self.last_game(player), at.0) {
            self.revert.apply(p.rating, self.initial_rating)
        } else {
            p.rating
        }
    }

    /// K for one game whose first seat scored `margin` more than the second and is `diff`
    /// rating points (home included) above it: `k`, times [`margin_multiplier`] with `margin=log`
    /// (d is the winner's rating minus the loser's).
    #[inline]
    fn k_of(&self, margin: f64, diff: f64) -> f64 {
        if self.margin {
            let d = if margin < 0.0 { -diff } else { diff };
            self.k * margin_multiplier(margin, d)
        } else {
            self.k
        }
    }

    fn joined(
        &mut self,
        step: &Step<'_>,
        id: PlayerId,
        prior: Prior,
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let i = id.index();
        if i >= self.state.players.len() {
            self.state.players.resize(i + 1, UNJOINED);
        }
        if self.state.players[i].joined {
            return Ok(());
        }
        // Elo keeps a rating only: prior.rd and prior.volatility are not its quantities.
        let rating = prior_or(step.seq, prior.rating, self.initial_rating, "r", "rating", false)?;
        self.state.players[i] = PlayerState { rating, games: 0, joined: true };
        if self.revert.is_on() {
            if i >= self.state.last.len() {
                self.state.last.resize(i + 1, i64::MIN);
            }
            self.state.last[i] = i64::MIN;
        }
        if let Some(t) = trace {
            t.section(format!("{ALGORITHM} PlayerJoined #{}", id.0));
            t.quantity(Some(id), "r", "prior.rating, else initial_rating", rating);
        }
        Ok(())
    }

    /// A two-seat match on two sides, untraced: the general loop below for one pair, without
    /// its buffer. Same arithmetic in the same order (a test checks it against the traced path).
    #[inline]
    fn match_of_two(
        &mut self,
        step: &Step<'_>,
        x: &SeatIn,
        y: &SeatIn,
    ) -> Result<(), ProjectError> {
        let (i, j) = (x.player.index(), y.player.index());
        let (r, r_j) = (self.state.players[i].rating, self.state.players[j].rating);
        let (h, h_j) = (x.advantage(self.home), y.advantage(self.home));
        let e = expected(r + h, r_j + h_j);
        let s = outcome(x.score, y.score);
        let k = self.k_of(x.score - y.score, r + h - (r_j + h_j));
        // The general path's deltas start at 0.0 and take +K (s - E) and -K (s - E).
        let d = 0.0 + k * (s - e);
        let d_j = 0.0 - k * (s - e);
        let (new, new_j) = (r + d, r_j + d_j);
        for (seat, value) in [(x, new), (y, new_j)] {
            if !value.is_finite() {
                return Err(overflowed(step, seat));
            }
        }
        let p = &mut self.state.players[i];
        p.rating = new;
        p.games += 1;
        let p = &mut self.state.players[j];
        p.rating = new_j;
        p.games += 1;
        Ok(())
    }

    fn matched(
        &mut self,
        step: &Step<'_>,
        seats: &[SeatIn],
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let players = &self.state.players;
        check_seats(step.seq, seats, |id| {
            players.get(id.index()).filter(|p| p.joined).map(|p| p.games)
        })?;
        if let (None, [x, y], false) = (&trace, seats, self.revert.is_on()) {
            if x.side != y.side && x.player != y.player {
                return self.match_of_two(step, x, y);
            }
        }
        if let Some(t) = trace.as_deref_mut() {
            t.section(format!("{ALGORITHM} match at {}", step.at));
        }
        self.deltas.clear();
        self.deltas.resize(seats.len(), 0.0);
        // The rating each seat enters with: reverted toward initial_rating at a first game after
        // an absence of at least revert_after.
        self.before.clear();
        for seat in seats {
            let r = players[seat.player.index()].rating;
            let last = self.state.last.get(seat.player.index()).copied().filter(|&l| l != i64::MIN);
            if self.revert.due(last, step.at.0) {
                let reverted = self.revert.apply(r, self.initial_rating);
                if let Some(t) = trace.as_deref_mut() {
                    t.quantity(
                        Some(seat.player),
                        "r_revert",
                        "r + revert (initial_rating - r): the first game after an absence of at \
                         least revert_after",
                        reverted,
                    );
                }
                self.before.push(reverted);
            } else {
                self.before.push(r);
            }
        }
        for (i, x) in seats.iter().enumerate() {
            let r = self.before[i];
            let h = x.advantage(self.home);
            for (j, y) in seats.iter().enumerate().skip(i + 1) {
                if x.side == y.side {
                    continue;
                }
                let r_j = self.before[j];
                let h_j = y.advantage(self.home);
                // E = 1 / (1 + 10^((r_j + h_j - r - h) / 400)); the pair is zero-sum: E_j = 1 - E.
                let e = expected(r + h, r_j + h_j);
                let s = outcome(x.score, y.score);
                let k = if self.margin {
                    let diff = r + h - (r_j + h_j);
                    self.k_of(x.score - y.score, diff)
                } else {
                    self.k
                };
                self.deltas[i] += k * (s - e);
                self.deltas[j] -= k * (s - e);
                if let Some(t) = trace.as_deref_mut() {
                    // Both seats' sides of the pair, each under its own name: the second seat's
                    // E is 1 - E and its s is 1 - s (the pair is zero-sum).
                    for (me, opp, r_me, r_opp, h_me, h_opp, e_me, s_me) in
                        [(x, y, r, r_j, h, h_j, e, s), (y, x, r_j, r, h_j, h, 1.0 - e, 1.0 - s)]
                    {
                        let who = Some(me.player);
                        t.opponent(who, opp.player);
                        t.quantity(who, "K", "constant k", self.k);
                        if self.margin {
                            t.quantity(
                                who,
                                "K_mov",
                                "K ln(|margin| + 1) 2.2 / (0.001 d + 2.2), d the winner's rating \
                                 minus the loser's, home included (margin=log)",
                                k,
                            );
                        }
                        t.quantity(who, "r", "rating before the match", r_me);
                        t.quantity(who, "r_j", "opponent's rating before the match", r_opp);
                        if self.home != 0.0 {
                            t.quantity(who, "h", "home: this seat's home advantage", h_me);
                            t.quantity(who, "h_j", "home: the opponent's home advantage", h_opp);
                        }
                        let formula = if self.home != 0.0 {
                            "1 / (1 + 10^((r_j + h_j - r - h) / 400))"
                        } else {
                            "1 / (1 + 10^((r_j - r) / 400))"
                        };
                        t.quantity(who, "E", formula, e_me);
                        t.quantity(who, "s", "1 win, 0.5 draw, 0 loss (scores compared)", s_me);
                        t.quantity(
                            who,
                            "K (s - E)",
                            "this pair's change for this seat",
                            k * (s_me - e_me),
                        );
                    }
                }
            }
        }
        for ((seat, &d), &r) in seats.iter().zip(&self.deltas).zip(&self.before) {
            if !(r + d).is_finite() {
                return Err(overflowed(step, seat));
            }
        }
        for (i, (seat, &d)) in seats.iter().zip(&self.deltas).enumerate() {
            let p = &mut self.state.players[seat.player.index()];
            let before = p.rating;
            p.rating = self.before[i] + d;
            p.games += 1;
            if self.revert.is_on() {
                let k = seat.player.index();
                if k >= self.state.last.len() {
                    self.state.last.resize(k + 1, i64::MIN);
                }
                self.state.last[k] = step.at.0;
            }
            if let Some(t) = trace.as_deref_mut() {
                let who = Some(seat.player);
                t.quantity(who, "r'", "r + K Σ (s_j - E_j) over the seat's pairs", p.rating);
                let best = seats.iter().all(|o| o.side == seat.side || o.score < seat.score);
                if best && p.rating < before {
                    t.flag(
                        who,
                        "winner-lost-rating",
                        format!("seat {i} won the match but lost rating"),
                    );
                }
            }
        }
        Ok(())
    }
}

impl Projector for Elo {
    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(&mut self, step: &Step<'_>, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        match step.input {
            Input::Joined { player, prior } => self.joined(step, player, prior, trace),
            Input::Match { seats } => self.matched(step, seats, trace),
            Input::Tick | Input::Timeout { .. } => Ok(()),
        }
    }

    fn standing(&self, player: PlayerId) -> Option<Standing> {
        let p = self.state.players.get(player.index()).filter(|p| p.joined)?;
        Some(Standing::rating_only(player, p.rating, u64::from(p.games)))
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    fn prefetch(&self, player: PlayerId) {
        if let Some(p) = self.state.players.get(player.index()) {
            ladder_projector::prefetch(p);
        }
    }

    /// `E = 1 / (1 + 10^((r_b - r_a) / 400))` from the current ratings (Elo has no time).
    fn expectation(&self, a: PlayerId, b: PlayerId, _at: Timestamp) -> f64 {
        let rating = |p: PlayerId| {
            self.state
                .players
                .get(p.index())
                .filter(|s| s.joined)
                .map_or(self.initial_rating, |s| s.rating)
        };
        expected(rating(a), rating(b))
    }

    /// The expectation with `home` added to the home seat's rating.
    /// ratings reverted where a game at `at` would revert them.
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        expected(self.rating_at(a, at) + home.edge(self.home), self.rating_at(b, at))
    }
}
