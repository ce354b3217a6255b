//! Weng-Lin ([`WengLin`], `--algo weng-lin`): the Bayesian approximation of Weng & Lin, "A
//! Bayesian Approximation Method for Online Ranking" (JMLR 12, 2011), Algorithm 1 with the
//! Bradley-Terry full-pairing model, as openskill uses it. Formulas, constants and sources are in
//! docs/algorithms/weng-lin.md.
//!
//! A player is `(mu, sigma)`. A match is a ranking of its sides (a team, or a seat without a
//! team): a side's score is the mean of its seats' scores, a higher score ranks higher, and equal
//! scores are a tie of ranks (a draw). For each side `i`, with `mu_i` and `sigma_i^2` the sums
//! over its players, and every other side `q`:
//!
//! ```text
//! c_iq   = sqrt(sigma_i^2 + sigma_q^2 + 2 beta^2)
//! p_iq   = exp(mu_i / c_iq) / (exp(mu_i / c_iq) + exp(mu_q / c_iq))
//! s      = 1 if i ranks above q, 1/2 on a tie, 0 below
//! delta  = sigma_i^2 / c_iq (s - p_iq)
//! gamma  = sigma_i / c_iq
//! eta    = gamma sigma_i^2 / c_iq^2 p_iq p_qi
//! Omega_i = Σ_q delta,  Delta_i = Σ_q eta
//! mu'    = mu + sigma^2 / sigma_i^2 Omega_i
//! sigma' = sqrt(sigma^2 max(1 - sigma^2 / sigma_i^2 Delta_i, kappa))
//! ```
//!
//! Every side is rated from the values before the match (the algorithm's simultaneous update).
//! There is no time: ticks and timeouts change nothing, and a player's sigma does not grow
//! between matches. State is per-player arrays indexed by [`PlayerId`], serde-derived for
//! checkpoints; scratch buffers are reused, so a warmed-up fold allocates nothing.
#![deny(missing_docs)]

use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, math, prior_or, Algorithm, Config, ConfigError, Home, Input, ParamKind, ParamSpec,
    PlayerId, ProjectError, ProjectErrorKind, Projector, Revert, SeatIn, Standing, Step, Trace,
    REVERT_AFTER_PARAM,
};
use serde::{Deserialize, Serialize};

/// The algorithm's name (docs/spec.md).
pub const ALGORITHM: &str = "weng-lin";

/// The constants of `weng-lin` (docs/spec.md, docs/algorithms/weng-lin.md), with defaults and
/// ranges: openskill's and skillratings' defaults (mu 25, sigma 25/3, beta 25/6, kappa
/// skillratings' `uncertainty_tolerance`).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "mu",
        kind: ParamKind::any(),
        default: "25",
        doc: "rating (mu) of a player who joins without a prior",
        warn_below: None,
    },
    ParamSpec {
        key: "sigma",
        kind: ParamKind::above(0.0),
        default: "8.333333333333334",
        doc: "uncertainty (sigma) of a player who joins without a prior: 25/3",
        warn_below: None,
    },
    ParamSpec {
        key: "beta",
        kind: ParamKind::above(0.0),
        default: "4.166666666666667",
        doc: "performance spread: c_iq = sqrt(sigma_i^2 + sigma_q^2 + 2 beta^2); 25/6",
        warn_below: None,
    },
    ParamSpec {
        key: "kappa",
        kind: ParamKind::above(0.0),
        default: "1e-6",
        doc: "floor of the factor sigma'^2 / sigma^2 = max(1 - sigma^2/sigma_i^2 Delta_i, kappa), \
              so sigma stays positive (Weng & Lin, Algorithm 1)",
        warn_below: None,
    },
    ParamSpec {
        key: "home",
        kind: ParamKind::any(),
        default: "0",
        doc: "home advantage in skill units: added once to the home side's mu_i in every p_iq \
              (`\"home\": true` on a seat; 0 leaves every replay as it was)",
        warn_below: None,
    },
    ParamSpec {
        key: "revert",
        kind: ParamKind::between(0.0, 1.0),
        default: "0",
        doc: "regression to the mean between seasons: at a player's first game after an absence \
              of at least revert_after, mu first moves this fraction of the way back to the \
              constant mu (sigma is kept; 0 leaves every replay as it was)",
        warn_below: None,
    },
    REVERT_AFTER_PARAM,
];

/// One player's values. A joined player has `sigma > 0`; one who has not is all zeros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerState {
    /// The rating mu.
    pub mu: f64,
    /// The uncertainty sigma.
    pub sigma: f64,
    /// MatchResults sat in.
    pub games: u32,
}

impl PlayerState {
    fn is_joined(&self) -> bool {
        self.sigma > 0.0
    }
}

/// Everything a checkpoint must keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WengLinState {
    players: Vec<PlayerState>,
    /// Each player's last game (nanoseconds; `i64::MIN` before the first), kept only while
    /// `revert` is on (empty otherwise).
    last: Vec<i64>,
}

/// One side of a match being rated: its seats and the sums over its players.
#[derive(Clone, Copy, Debug, Default)]
struct Team {
    /// The side's id ([`SeatIn::side`]).
    side: u32,
    /// Σ score and seat count, for the side's mean score.
    score: f64,
    seats: u32,
    /// mu_i = Σ mu, sigma_i^2 = Σ sigma^2 over the side's players.
    mu: f64,
    sigma2: f64,
    /// Omega_i and Delta_i.
    omega: f64,
    delta: f64,
    /// The constant `home` if a seat of the side is at home, else 0.
    home: f64,
}

impl Team {
    fn mean_score(&self) -> f64 {
        self.score / f64::from(self.seats)
    }
}

/// The Weng-Lin projector (`--algo weng-lin`).
///
/// Invariants: every joined player's mu is finite and sigma positive and finite; the state
/// changes only when a step succeeds.
#[derive(Clone, Debug)]
pub struct WengLin {
    config: Config,
    mu: f64,
    sigma: f64,
    beta: f64,
    kappa: f64,
    home: f64,
    revert: Revert,
    state: WengLinState,
    /// Reused buffers (not state): the match's sides, each seat's side index, the new values.
    teams: Vec<Team>,
    team_of: Vec<u32>,
    new: Vec<(f64, f64)>,
    /// Per seat of the current match: the mu it enters with (reverted where due).
    enter: Vec<f64>,
}

/// The Bradley-Terry probability that a side at `mu_i` beats one at `mu_q` with `c`:
/// `exp(mu_i / c) / (exp(mu_i / c) + exp(mu_q / c))`, computed as `1 / (1 + exp((mu_q - mu_i) / c))`
/// (the same number, without overflow for large ratings).
#[inline]
pub fn p_win(mu_i: f64, mu_q: f64, c: f64) -> f64 {
    1.0 / (1.0 + math::exp((mu_q - mu_i) / c))
}

/// `c_iq = sqrt(sigma_i^2 + sigma_q^2 + 2 beta^2)`.
#[inline]
pub fn c_of(sigma_i2: f64, sigma_q2: f64, beta: f64) -> f64 {
    (sigma_i2 + sigma_q2 + 2.0 * beta * beta).sqrt()
}

/// The result `s` of side `i` against side `q` from their scores: 1 above, 1/2 tied, 0 below.
fn result(score_i: f64, score_q: f64) -> f64 {
    ladder_projector::outcome(score_i, score_q)
}

impl Algorithm for WengLin {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["beta"];
    type State = WengLinState;

    fn new(config: Config) -> Result<WengLin, ConfigError> {
        WengLin::restore(config, WengLinState::default())
    }

    /// Refuses a state holding a joined player whose values are not finite.
    fn restore(config: Config, state: WengLinState) -> Result<WengLin, ConfigError> {
        config.check(ALGORITHM, PARAMS)?;
        let sane = |p: &PlayerState| !p.is_joined() || (p.mu.is_finite() && p.sigma.is_finite());
        if !state.players.iter().all(sane) {
            return Err(ConfigError::Inconsistent {
                algorithm: ALGORITHM,
                message: "the checkpoint holds a player whose mu or sigma is not finite".into(),
            });
        }
        Ok(WengLin {
            mu: config.number("mu"),
            sigma: config.number("sigma"),
            beta: config.number("beta"),
            kappa: config.number("kappa"),
            home: config.number("home"),
            revert: Revert::from_config(&config),
            config,
            state,
            teams: Vec::new(),
            team_of: Vec::new(),
            new: Vec::new(),
            enter: Vec::new(),
        })
    }

    fn state(&self) -> &WengLinState {
        &self.state
    }
}

impl WengLin {
    /// `(mu, sigma)` of a joined player.
    pub fn values(&self, player: PlayerId) -> Option<(f64, f64)> {
        let p = self.state.players.get(player.index()).filter(|p| p.is_joined())?;
        Some((p.mu, p.sigma))
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
            self.state.players.resize(i + 1, PlayerState::default());
        }
        if self.state.players[i].is_joined() {
            // The log refuses a second join; a replay that sees one keeps the first.
            return Ok(());
        }
        // A prior is on the algorithm's own scale: `rating` is mu and `rd` is sigma.
        let mu = prior_or(step.seq, prior.rating, self.mu, "mu", "rating", false)?;
        let sigma = prior_or(step.seq, prior.rd, self.sigma, "sigma", "rd", true)?;
        self.state.players[i] = PlayerState { mu, sigma, games: 0 };
        if let Some(t) = trace {
            t.section(format!("{ALGORITHM} PlayerJoined #{}", id.0));
            t.quantity(Some(id), "mu", "prior.rating, else mu", mu);
            t.quantity(Some(id), "sigma", "prior.rd, else sigma", sigma);
        }
        Ok(())
    }

    fn matched(
        &mut self,
        step: &Step<'_>,
        seats: &[SeatIn],
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        check_seats(step.seq, seats, |id| {
            self.state.players.get(id.index()).filter(|p| p.is_joined()).map(|p| p.games)
        })?;
        if let Some(t) = trace.as_deref_mut() {
            t.section(format!("{ALGORITHM} match at {}", step.at));
        }
        // The mu each seat enters with: moved toward the constant mu at a first game after an
        // absence of at least revert_after.
        self.enter.clear();
        for seat in seats {
            let mu = self.state.players[seat.player.index()].mu;
            let last = self.state.last.get(seat.player.index()).copied().filter(|&l| l != i64::MIN);
            if self.revert.due(last, step.at.0) {
                let reverted = self.revert.apply(mu, self.mu);
                if let Some(t) = trace.as_deref_mut() {
                    t.quantity(
                        Some(seat.player),
                        "mu_revert",
                        "mu + revert (constant mu - mu): the first game after an absence of at \
                         least revert_after",
                        reverted,
                    );
                }
                self.enter.push(reverted);
            } else {
                self.enter.push(mu);
            }
        }
        // The sides in order of first appearance, with their sums.
        let (teams, team_of) = (&mut self.teams, &mut self.team_of);
        teams.clear();
        team_of.clear();
        for (n, seat) in seats.iter().enumerate() {
            let k = match teams.iter().position(|t| t.side == seat.side) {
                Some(k) => k,
                None => {
                    teams.push(Team { side: seat.side, ..Team::default() });
                    teams.len() - 1
                }
            };
            let p = &self.state.players[seat.player.index()];
            let team = &mut teams[k];
            team.score += seat.score;
            team.seats += 1;
            team.mu += self.enter[n];
            team.sigma2 += p.sigma * p.sigma;
            if seat.home {
                team.home = self.home;
            }
            team_of.push(k as u32);
        }
        // Algorithm 1, step 2: Omega_i and Delta_i of every side from the values before the match.
        let beta = self.beta;
        for i in 0..teams.len() {
            let me = teams[i];
            let who = seats.get(team_of.iter().position(|&k| k as usize == i).unwrap_or(0));
            let who = who.map(|s| s.player);
            let sigma_i = me.sigma2.sqrt();
            let (mut omega, mut delta) = (0.0, 0.0);
            if let Some(t) = trace.as_deref_mut() {
                t.quantity(who, "mu_i", "Σ mu over the side's players", me.mu);
                t.quantity(who, "sigma_i^2", "Σ sigma^2 over the side's players", me.sigma2);
                t.quantity(who, "score_i", "mean of the side's seat scores", me.mean_score());
            }
            for (q, other) in teams.iter().enumerate() {
                if q == i {
                    continue;
                }
                let c = c_of(me.sigma2, other.sigma2, beta);
                let p = if self.home == 0.0 {
                    p_win(me.mu, other.mu, c)
                } else {
                    p_win(me.mu + me.home, other.mu + other.home, c)
                };
                let s = result(me.mean_score(), other.mean_score());
                let small_delta = me.sigma2 / c * (s - p);
                let gamma = sigma_i / c;
                let eta = gamma * me.sigma2 / (c * c) * p * (1.0 - p);
                omega += small_delta;
                delta += eta;
                if let Some(t) = trace.as_deref_mut() {
                    t.quantity(who, "mu_q", "the other side's Σ mu", other.mu);
                    if self.home != 0.0 {
                        t.quantity(who, "h_i", "home: this side's home advantage", me.home);
                        t.quantity(who, "h_q", "home: the other side's home advantage", other.home);
                    }
                    t.quantity(who, "sigma_q^2", "the other side's Σ sigma^2", other.sigma2);
                    t.quantity(who, "c_iq", "sqrt(sigma_i^2 + sigma_q^2 + 2 beta^2)", c);
                    t.quantity(
                        who,
                        "p_iq",
                        "exp(mu_i / c_iq) / (exp(mu_i / c_iq) + exp(mu_q / c_iq))",
                        p,
                    );
                    t.quantity(who, "s", "1 ranked above, 0.5 tied, 0 below (mean scores)", s);
                    t.quantity(who, "delta_q", "sigma_i^2 / c_iq (s - p_iq)", small_delta);
                    t.quantity(who, "gamma_q", "sigma_i / c_iq", gamma);
                    t.quantity(who, "eta_q", "gamma_q sigma_i^2 / c_iq^2 p_iq (1 - p_iq)", eta);
                }
            }
            teams[i].omega = omega;
            teams[i].delta = delta;
            if let Some(t) = trace.as_deref_mut() {
                t.quantity(who, "Omega_i", "Σ_q delta_q", omega);
                t.quantity(who, "Delta_i", "Σ_q eta_q", delta);
            }
        }
        // Algorithm 1, step 3: every player of side i.
        self.new.clear();
        for ((seat, &k), &p_mu) in seats.iter().zip(team_of.iter()).zip(&self.enter) {
            let team = &teams[k as usize];
            let p = &self.state.players[seat.player.index()];
            let share = p.sigma * p.sigma / team.sigma2;
            let mu = p_mu + share * team.omega;
            let factor = (1.0 - share * team.delta).max(self.kappa);
            let sigma = (p.sigma * p.sigma * factor).sqrt();
            if !(mu.is_finite() && sigma.is_finite() && sigma > 0.0) {
                return Err(ProjectError::new(
                    step.seq,
                    ProjectErrorKind::NonFinite {
                        quantity: if mu.is_finite() { "sigma'" } else { "mu'" },
                        detail: format!(
                            "player #{}: mu' = {mu}, sigma' = {sigma} (ratings too far apart \
                             or too large for the arithmetic)",
                            seat.player.0
                        ),
                    },
                ));
            }
            if let Some(t) = trace.as_deref_mut() {
                let who = Some(seat.player);
                t.quantity(who, "mu", "rating before the match", p_mu);
                t.quantity(who, "sigma", "uncertainty before the match", p.sigma);
                t.quantity(who, "mu'", "mu + sigma^2 / sigma_i^2 Omega_i", mu);
                t.quantity(
                    who,
                    "sigma'",
                    "sqrt(sigma^2 max(1 - sigma^2 / sigma_i^2 Delta_i, kappa))",
                    sigma,
                );
                if factor == self.kappa {
                    t.flag(who, "sigma-at-floor", "1 - sigma^2/sigma_i^2 Delta_i fell to kappa");
                }
            }
            self.new.push((mu, sigma));
        }
        for (seat, &(mu, sigma)) in seats.iter().zip(self.new.iter()) {
            let p = &mut self.state.players[seat.player.index()];
            p.mu = mu;
            p.sigma = sigma;
            p.games += 1;
        }
        if self.revert.is_on() {
            for seat in seats {
                let k = seat.player.index();
                if k >= self.state.last.len() {
                    self.state.last.resize(k + 1, i64::MIN);
                }
                self.state.last[k] = step.at.0;
            }
        }
        Ok(())
    }
}

impl Projector for WengLin {
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
        let p = self.state.players.get(player.index()).filter(|p| p.is_joined())?;
        let mut s = Standing::rating_only(player, p.mu, u64::from(p.games));
        s.sigma = Some(p.sigma);
        Some(s)
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    fn prefetch(&self, player: PlayerId) {
        if let Some(p) = self.state.players.get(player.index()) {
            ladder_projector::prefetch(p);
        }
    }

    /// The Bradley-Terry probability that `a` beats `b`: `1 / (1 + exp((mu_b - mu_a) / c))` with
    /// `c = sqrt(2 beta^2 + sigma_a^2 + sigma_b^2)`; a player who never joined counts with the
    /// configured mu and sigma.
    fn expectation(&self, a: PlayerId, b: PlayerId, _at: Timestamp) -> f64 {
        let of = |p: PlayerId| self.values(p).unwrap_or((self.mu, self.sigma));
        let ((mu_a, sigma_a), (mu_b, sigma_b)) = (of(a), of(b));
        p_win(mu_a, mu_b, c_of(sigma_a * sigma_a, sigma_b * sigma_b, self.beta))
    }

    /// [`Projector::expectation`] with `home` added to the home seat's mu.
    /// mu reverted where a game at `at` would revert it.
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        let of = |p: PlayerId| {
            let (mu, sigma) = self.values(p).unwrap_or((self.mu, self.sigma));
            let last = self.state.last.get(p.index()).copied().filter(|&l| l != i64::MIN);
            if self.revert.due(last, at.0) {
                (self.revert.apply(mu, self.mu), sigma)
            } else {
                (mu, sigma)
            }
        };
        let ((mu_a, sigma_a), (mu_b, sigma_b)) = (of(a), of(b));
        let c = c_of(sigma_a * sigma_a, sigma_b * sigma_b, self.beta);
        p_win(mu_a + home.edge(self.home), mu_b, c)
    }
}
