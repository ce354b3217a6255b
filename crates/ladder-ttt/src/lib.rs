//! TrueSkill Through Time ([`Ttt`], `--algo ttt`): Landfried & Mocskos, "TrueSkill Through Time:
//! Reliable Initial Skill Estimates and Historical Comparability with Julia, Python and R"
//! (Journal of Statistical Software, 2025), the model of its reference package
//! `trueskillthroughtime` 1.1.0. Formulas, constants and sources are in docs/algorithms/ttt.md.
//!
//! Every other ladder algorithm is a filter: a rating at a moment uses only the games before it.
//! TrueSkill Through Time is a whole-history method: every game informs every moment of every
//! player connected to it, through messages passed forward and backward along each player's
//! games. So this projector does not rate a game when it is applied: `apply` adds the game to the
//! [`Model`] (the games at one instant form a batch; a player's prior enters at their first game;
//! between batches a skill drifts by `gamma^2` per `time_unit`, fractions included), and the
//! estimate is converged when it is read ([`Projector::standing`], [`Projector::settle`]), on a
//! copy, once per state. The state itself always stays the forward pass of the package, so that
//! a reading never depends on what was read before it (with the package's default of 30 sweeps
//! a history is often not converged yet, and a warm start would end elsewhere): the same events
//! and constants give the same bits, as every projector must. A kept fold (`serve`'s) asks for
//! the other trade with [`Projector::set_incremental`]: each reading then extends the previous
//! converged estimate with the games applied since and re-smooths only where they reach, equal to
//! the full recompute after convergence, not bit for bit (docs/algorithms/ttt.md, "Incremental").
//!
//! A reported rating is the *smoothed* posterior at the player's last game: what the whole
//! history says about their skill then (the last point of the package's learning curve). A
//! forecast for `--score` uses only the games before the match's UTC day, converged on their own.
#![deny(missing_docs)]

pub mod game;
pub mod gauss;
pub mod model;

pub use model::{Converged, Model, ModelError, ModelParams, Reversion, SeatMessages};

use gauss::{Ms, G};
use ladder_events::{Timestamp, NANOS_PER_DAY};
use ladder_projector::{
    check_seats, prior_or, Algorithm, Config, ConfigError, Home, Input, ParamKind, ParamSpec,
    PlayerId, ProjectError, Projector, Revert, SeatIn, Standing, Step, Trace, REVERT_AFTER_PARAM,
};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// The algorithm's name (docs/spec.md).
pub const ALGORITHM: &str = "ttt";

/// The constants of `ttt` (docs/spec.md, docs/algorithms/ttt.md), with the package's defaults.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "mu",
        kind: ParamKind::any(),
        default: "0",
        doc: "prior skill mean of a player who joins without a prior",
        warn_below: None,
    },
    ParamSpec {
        key: "sigma",
        kind: ParamKind::above(0.0),
        default: "6",
        doc: "prior skill deviation of a player who joins without a prior",
        warn_below: None,
    },
    ParamSpec {
        key: "beta",
        kind: ParamKind::above(0.0),
        default: "1",
        doc: "performance noise: a performance is N(skill, beta^2)",
        warn_below: None,
    },
    ParamSpec {
        key: "gamma",
        kind: ParamKind::at_least(0.0),
        default: "0.03",
        doc: "skill drift per time_unit: the variance grows by gamma^2 per unit between games",
        warn_below: None,
    },
    ParamSpec {
        key: "time_unit",
        kind: ParamKind::Duration,
        default: "1d",
        doc: "the unit in which time between batches is measured (fractions count)",
        warn_below: None,
    },
    ParamSpec {
        key: "p_draw",
        kind: ParamKind::Number { min: 0.0, min_inclusive: true, max: 1.0, max_inclusive: false },
        default: "0",
        doc: "probability of a draw between two sides of equal skill (sets the draw margin)",
        warn_below: None,
    },
    ParamSpec {
        key: "epsilon",
        kind: ParamKind::above(0.0),
        default: "1e-6",
        doc: "convergence: stop when no posterior mean or deviation moves by more in a sweep",
        warn_below: None,
    },
    ParamSpec {
        key: "iterations",
        kind: ParamKind::between(1.0, 1_000_000.0),
        default: "30",
        doc: "convergence: at most this many sweeps over the history (a whole number)",
        warn_below: None,
    },
    ParamSpec {
        key: "home",
        kind: ParamKind::any(),
        default: "0",
        doc: "home advantage in skill units: added to the mean of the home side's performance \
              in every game and forecast (`\"home\": true` on a seat; 0 leaves every replay as it \
              was)",
        warn_below: None,
    },
    ParamSpec {
        key: "revert",
        kind: ParamKind::between(0.0, 1.0),
        default: "0",
        doc: "regression to the mean between seasons: at a player's first game after an absence \
              of at least revert_after, the skill's mean first moves this fraction of the way \
              back to the constant mu, and its variance the same way toward sigma^2 (0 leaves \
              every replay as it was)",
        warn_below: None,
    },
    REVERT_AFTER_PARAM,
    ParamSpec {
        key: "revert_to",
        kind: ParamKind::Choice(&["mu", "field"]),
        default: "mu",
        doc: "the mean revert moves a returning player's skill toward: the constant mu (`mu`), \
              or the mean skill of the players active in the debut_window before the game's \
              day, the field debut=field reads (`field`)",
        warn_below: None,
    },
    ParamSpec {
        key: "debut",
        kind: ParamKind::Choice(&["prior", "field"]),
        default: "prior",
        doc: "where a player who joins without a rating enters at their first game: at the \
              prior mu (`prior`, the package's model), or at the mean skill of the players active \
              in the debut_window before their day, less debut_offset (`field`)",
        warn_below: None,
    },
    ParamSpec {
        key: "debut_offset",
        kind: ParamKind::any(),
        default: "0",
        doc: "with debut=field: how far below the field's mean skill a debutant's prior mean sits",
        warn_below: None,
    },
    ParamSpec {
        key: "debut_window",
        kind: ParamKind::Duration,
        default: "365d",
        doc: "with debut=field or revert_to=field: the players whose latest game before the \
              day is this recent make the field",
        warn_below: None,
    },
];

/// A player's bookkeeping beside the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerState {
    /// Joined (a PlayerJoined was applied).
    pub joined: bool,
    /// MatchResults sat in.
    pub games: u32,
    /// The prior as given (mean, deviation), reported before the first game.
    pub prior: (f64, f64),
    /// The PlayerJoined gave a `rating` (so `debut=field` leaves the prior mean alone).
    pub rated: bool,
}

/// Everything a checkpoint must keep: the whole history as the model holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TttState {
    model: Model,
    players: Vec<PlayerState>,
    /// The instant of the first game: times are time units since it.
    origin: Option<i64>,
    /// The instant of each batch of the model.
    batch_at: Vec<i64>,
    /// Counts the changes applied, so a converged copy knows whether it is current.
    version: u64,
    /// With `debut=field`: the UTC day of the last match applied and the field's mean then
    /// (`None` without a field), fixed at the day's first match, before it is applied. Boxed,
    /// as `debut` is, so the projector stays small beside the other algorithms.
    field: Option<Box<(i64, Option<f64>)>>,
}

/// The converged estimate of the history.
#[derive(Clone, Debug)]
struct Estimate {
    model: Arc<Model>,
    result: Converged,
}

/// A player's last time (in time units) and posterior, `None` before their first game.
type Last = Option<(f64, Ms)>;

/// What a forecast of a day's matches may know: the games before that day, converged on their
/// own. A forecast reads only its own two players' last posteriors from it ([`Model::last`]),
/// not every player's: a day has a few dozen players, the history thousands.
#[derive(Clone, Debug)]
struct Forecast {
    day: i64,
    /// The games before `day`, converged; the next day's forecast starts from it.
    model: Box<Model>,
}

/// The TrueSkill Through Time projector (`--algo ttt`).
///
/// Invariants: `state.model` holds every applied game, in time order; the converged copy, when
/// there is one, is of the current `state.version`.
#[derive(Debug)]
pub struct Ttt {
    config: Config,
    mu: f64,
    sigma: f64,
    beta: f64,
    p_draw: f64,
    home: f64,
    epsilon: f64,
    iterations: u32,
    unit: i64,
    /// `revert` and `revert_after`.
    revert: Revert,
    /// The field (`debut=field`, or `revert_to=field` with `revert` on): `debut_offset` (`Some`
    /// with `debut=field`: debutants enter below the field), `debut_window` (nanoseconds: who
    /// makes the field) and whether `revert_to=field` (`revert` then moves toward the field's
    /// mean); `None` when neither is on.
    debut: Option<Box<(Option<f64>, i64, bool)>>,
    /// Readings start from the previous reading's converged estimate
    /// ([`Projector::set_incremental`]); off by default.
    incremental: bool,
    state: TttState,
    /// The converged estimate (or its failure) and the version it is of.
    converged: Mutex<Option<(u64, Result<Estimate, ProjectError>)>>,
    forecast: Mutex<Option<Forecast>>,
    /// Reused buffers (not state): a match's sides and their agents.
    sides: Vec<(u32, f64, u32)>,
    agents: Vec<Vec<u32>>,
}

impl Clone for Ttt {
    fn clone(&self) -> Ttt {
        Ttt {
            config: self.config.clone(),
            mu: self.mu,
            sigma: self.sigma,
            beta: self.beta,
            p_draw: self.p_draw,
            home: self.home,
            epsilon: self.epsilon,
            iterations: self.iterations,
            unit: self.unit,
            revert: self.revert,
            debut: self.debut.clone(),
            incremental: self.incremental,
            state: self.state.clone(),
            converged: Mutex::new(lock(&self.converged).clone()),
            forecast: Mutex::new(lock(&self.forecast).clone()),
            sides: Vec::new(),
            agents: Vec::new(),
        }
    }
}

/// The convergence quantities `explain` shows (the sweeps it took and the last sweep's step),
/// written once for the match's trace and the whole history's.
fn trace_convergence(t: &mut Trace, result: &Converged) {
    t.quantity(
        None,
        "iterations",
        "sweeps until the step fell below epsilon",
        f64::from(result.iterations),
    );
    t.quantity(
        None,
        "step_mu",
        "largest change of a posterior mean in the last sweep",
        result.step.0,
    );
    t.quantity(
        None,
        "step_sigma",
        "largest change of a posterior deviation in the last sweep",
        result.step.1,
    );
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave a half-written cache: the value is replaced
    // whole, so a poisoned lock's contents are still consistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The model's regression to the mean under `config`: `revert` toward the constants `mu` and
/// `sigma` (all zero when `revert` is 0, so that a model without it is the model as before).
fn reversion(config: &Config) -> Reversion {
    let revert = Revert::from_config(config);
    if !revert.is_on() {
        return Reversion::default();
    }
    Reversion { fraction: revert.fraction, mu: config.number("mu"), sigma: config.number("sigma") }
}

impl Algorithm for Ttt {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["sigma", "gamma"];
    type State = TttState;

    fn new(config: Config) -> Result<Ttt, ConfigError> {
        let params = ModelParams {
            beta: config.number("beta"),
            gamma: config.number("gamma"),
            p_draw: config.number("p_draw"),
            home: config.number("home"),
        };
        let state = TttState {
            model: Model::new(params).with_revert(reversion(&config)),
            players: Vec::new(),
            origin: None,
            batch_at: Vec::new(),
            version: 0,
            field: None,
        };
        Ttt::restore(config, state)
    }

    /// Refuses a state kept under other constants, or whose players and model disagree.
    fn restore(config: Config, state: TttState) -> Result<Ttt, ConfigError> {
        config.check(ALGORITHM, PARAMS)?;
        let wrong = |message: &str| ConfigError::Inconsistent {
            algorithm: ALGORITHM,
            message: message.to_string(),
        };
        let iterations = config.number("iterations");
        if iterations.fract() != 0.0 {
            return Err(wrong("iterations must be a whole number of sweeps"));
        }
        let params = ModelParams {
            beta: config.number("beta"),
            gamma: config.number("gamma"),
            p_draw: config.number("p_draw"),
            home: config.number("home"),
        };
        if state.model.params() != params {
            return Err(wrong("the checkpoint was taken with other beta, gamma, p_draw or home"));
        }
        if state.model.revert() != reversion(&config) {
            return Err(wrong("the checkpoint was taken with other revert, mu or sigma"));
        }
        // revert_to=field matters only while revert is on; debut=field alone needs no flag.
        let revert_field =
            config.text("revert_to") == "field" && Revert::from_config(&config).is_on();
        let debut_field = config.text("debut") == "field";
        if state
            .players
            .iter()
            .enumerate()
            .any(|(i, p)| p.joined && !state.model.has_agent(i as u32))
        {
            return Err(wrong("the checkpoint holds a joined player the model does not know"));
        }
        Ok(Ttt {
            mu: config.number("mu"),
            sigma: config.number("sigma"),
            beta: params.beta,
            p_draw: params.p_draw,
            home: params.home,
            epsilon: config.number("epsilon"),
            iterations: iterations as u32,
            unit: config.duration("time_unit"),
            revert: Revert::from_config(&config),
            debut: (debut_field || revert_field).then(|| {
                Box::new((
                    debut_field.then(|| config.number("debut_offset")),
                    config.duration("debut_window"),
                    revert_field,
                ))
            }),
            incremental: false,
            config,
            state,
            converged: Mutex::new(None),
            forecast: Mutex::new(None),
            sides: Vec::new(),
            agents: Vec::new(),
        })
    }

    fn state(&self) -> &TttState {
        &self.state
    }
}

impl Ttt {
    /// Time units from the first game to `at`.
    fn units(&self, at: i64) -> f64 {
        let origin = self.state.origin.unwrap_or(at);
        (at - origin) as f64 / self.unit as f64
    }

    /// The converged estimate of the history applied so far (computed once per version).
    pub fn estimate(&self) -> Result<(Arc<Model>, Converged), ProjectError> {
        let mut cache = lock(&self.converged);
        if let Some((version, out)) = cache.as_ref() {
            if *version == self.state.version {
                return out.clone().map(|e| (e.model, e.result));
            }
        }
        let previous = if self.incremental { cache.take() } else { None };
        let converged = match previous.and_then(|(_, e)| e.ok()) {
            Some(e) => self.extended(e.model),
            None => None,
        };
        let converged = converged.unwrap_or_else(|| {
            let mut model = self.state.model.clone();
            model.converge(self.epsilon, self.iterations).map(|result| (model, result))
        });
        let out = match converged {
            Ok((model, result)) => Ok(Estimate { model: Arc::new(model), result }),
            Err(e) => Err(ProjectError::non_finite(
                e.tag,
                "likelihood",
                "a game's message left the finite numbers (skills too far apart for the \
                 arithmetic)",
            )),
        };
        *cache = Some((self.state.version, out.clone()));
        out.map(|e| (e.model, e.result))
    }

    /// The incremental update of a reading ([`Projector::set_incremental`]): the previous
    /// converged estimate brought up to the games applied since ([`Model::extend`]) and
    /// re-smoothed only where they reach ([`Model::converge_from`]). `None` when the history is
    /// not an extension of it (then the caller converges the whole history).
    fn extended(&self, previous: Arc<Model>) -> Option<Result<(Model, Converged), ModelError>> {
        let mut model = Arc::try_unwrap(previous).unwrap_or_else(|shared| (*shared).clone());
        match model.extend(&self.state.model) {
            Ok(Some(first)) => Some(
                model
                    .converge_from(first, self.epsilon, self.iterations)
                    .map(|result| (model, result)),
            ),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }

    fn joined(
        &mut self,
        step: &Step<'_>,
        id: PlayerId,
        prior: ladder_events::Prior,
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let i = id.index();
        if i >= self.state.players.len() {
            self.state.players.resize(i + 1, PlayerState::default());
        }
        if self.state.players[i].joined {
            return Ok(());
        }
        // A prior is on the algorithm's own scale: `rating` is mu and `rd` is sigma.
        let mu = prior_or(step.seq, prior.rating, self.mu, "mu", "rating", false)?;
        let sigma = prior_or(step.seq, prior.rd, self.sigma, "sigma", "rd", true)?;
        self.state.model.set_prior(id.0, G::new(mu, sigma));
        self.state.players[i].joined = true;
        self.state.players[i].prior = (mu, sigma);
        self.state.players[i].rated = prior.rating.is_some();
        self.state.version += 1;
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
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let players = &self.state.players;
        check_seats(step.seq, seats, |id| {
            players.get(id.index()).filter(|p| p.joined).map(|p| p.games)
        })?;
        if self.state.origin.is_none() {
            self.state.origin = Some(step.at.0);
        }
        // The sides in order of first appearance: (side, Σ score, seats); a side's result is the
        // mean of its seats' scores.
        self.sides.clear();
        for seat in seats {
            match self.sides.iter_mut().find(|s| s.0 == seat.side) {
                Some(s) => {
                    s.1 += seat.score;
                    s.2 += 1;
                }
                None => self.sides.push((seat.side, seat.score, 1)),
            }
        }
        if self.agents.len() < self.sides.len() {
            self.agents.resize(self.sides.len(), Vec::new());
        }
        for a in &mut self.agents {
            a.clear();
        }
        // The side of the seat at home (the log allows it on one side at most).
        let mut home = None;
        for seat in seats {
            let k = self.sides.iter().position(|s| s.0 == seat.side).unwrap_or(0);
            self.agents[k].push(seat.player.0);
            if seat.home {
                home = Some(k);
            }
        }
        let teams: Vec<(&[u32], f64)> = self
            .sides
            .iter()
            .zip(&self.agents)
            .map(|(s, a)| (a.as_slice(), s.1 / f64::from(s.2)))
            .collect();
        let time = self.units(step.at.0);
        // revert: a player's first game after an absence of at least revert_after (measured
        // between the events' instants) moves their skill back toward the prior.
        let due: Vec<u32> = if self.revert.is_on() {
            let (model, batch_at) = (&self.state.model, &self.state.batch_at);
            seats
                .iter()
                .map(|seat| seat.player.0)
                .filter(|&a| {
                    let last = model.last_batch(a).and_then(|b| batch_at.get(b)).copied();
                    self.revert.due(last, step.at.0)
                })
                .collect()
        } else {
            Vec::new()
        };
        if let Some(&(offset, _, _)) = self.debut.as_deref() {
            let day = step.at.0.div_euclid(NANOS_PER_DAY);
            let field = self.field_of(day);
            self.state.field = Some(Box::new((day, field)));
            if let (Some(f), Some(offset)) = (field, offset) {
                for seat in seats {
                    let p = self.state.players[seat.player.index()];
                    if p.games == 0 && !p.rated {
                        self.state.model.set_prior(seat.player.0, G::new(f - offset, p.prior.1));
                    }
                }
            }
        }
        let reverted = |a: u32| due.contains(&a);
        // revert_to=field: toward the field's mean of the day (fixed above), else the constant mu.
        let to = match self.state.field.as_deref() {
            Some(&(_, Some(f))) if self.reverts_to_field() => f,
            _ => self.mu,
        };
        self.state
            .model
            .push_game_reverting_to(time, step.seq, &teams, home, &reverted, to)
            .map_err(|e| {
                ProjectError::non_finite(e.tag, "likelihood", "a game's message is not finite")
            })?;
        if self.state.model.batches() > self.state.batch_at.len() {
            self.state.batch_at.push(step.at.0);
        }
        for seat in seats {
            self.state.players[seat.player.index()].games += 1;
        }
        self.state.version += 1;
        if let Some(t) = trace {
            self.trace_game(step, time, t)?;
            if self.home != 0.0 {
                for seat in seats.iter().filter(|s| s.home) {
                    t.quantity(
                        Some(seat.player),
                        "home",
                        "home: added to the mean of this seat's side's performance",
                        self.home,
                    );
                }
            }
        }
        Ok(())
    }

    /// What `explain` shows of a match: the history through it converged, and every seat's
    /// messages in it, with the sweeps it took.
    fn trace_game(&self, step: &Step<'_>, time: f64, t: &mut Trace) -> Result<(), ProjectError> {
        let (model, result) = self.estimate()?;
        t.section(format!(
            "{ALGORITHM} match at {}: the history through it, converged ({} games in {} batches)",
            step.at,
            model.games(),
            model.batches()
        ));
        t.quantity(None, "t", "time units since the first game (the batch's time)", time);
        trace_convergence(t, &result);
        let gamma = self.state.model.params().gamma;
        for m in model.last_game() {
            let who = Some(PlayerId(m.agent));
            t.quantity(
                who,
                "prior mu",
                "prior.rating, else mu (enters at the first game)",
                m.prior.mu,
            );
            t.quantity(who, "prior sigma", "prior.rd, else sigma", m.prior.sigma);
            if let Some((offset, field)) = self.debut_of(m.agent) {
                t.quantity(
                    who,
                    "debut field",
                    "debut=field: mean filtered skill of the players active in debut_window before \
                     the day",
                    field,
                );
                t.quantity(
                    who,
                    "debut offset",
                    "debut_offset: the prior mean is the field's less this",
                    offset,
                );
            }
            t.quantity(
                who,
                "elapsed",
                "time units since the player's previous game (0 at the first)",
                m.elapsed,
            );
            t.quantity(
                who,
                "drift",
                "gamma^2 elapsed: variance added by the drift",
                gamma * gamma * m.elapsed,
            );
            if let Some(d) = m.drifted_from {
                t.quantity(who, "previous mu", "previous batch: forward x likelihood, mean", d.mu);
                t.quantity(
                    who,
                    "previous sigma",
                    "previous batch: forward x likelihood, deviation",
                    d.sigma,
                );
            }
            if m.reverted {
                let r = self.state.model.revert();
                t.quantity(
                    who,
                    "revert",
                    "revert: first game after an absence of at least revert_after, the drifted \
                     message moved this fraction back to N(mu, sigma^2)",
                    r.fraction,
                );
                if self.reverts_to_field() {
                    t.quantity(
                        who,
                        "revert toward field",
                        "revert_to=field: the field's mean on the day (the constant mu without one)",
                        m.revert_to,
                    );
                } else {
                    t.quantity(who, "revert toward mu", "the constant mu", m.revert_to);
                }
                t.quantity(who, "revert toward sigma", "the constant sigma", r.sigma);
            }
            t.quantity(
                who,
                "forward mu",
                "previous batch's message drifted (the prior at the first; reverted when revert \
                 is shown)",
                m.forward.mu,
            );
            t.quantity(who, "forward sigma", "sqrt(previous sigma^2 + drift)", m.forward.sigma);
            t.quantity(who, "backward mu", "what the later games say, drifted back", m.backward.mu);
            t.quantity(
                who,
                "backward sigma",
                "its deviation (infinite: no later game)",
                m.backward.sigma,
            );
            t.quantity(
                who,
                "within mu",
                "the skill as this game sees it (posterior / its message)",
                m.within.mu,
            );
            t.quantity(who, "within sigma", "its deviation", m.within.sigma);
            t.quantity(
                who,
                "likelihood mu",
                "this game's message (TrueSkill's truncated difference)",
                m.likelihood.mu,
            );
            t.quantity(who, "likelihood sigma", "its deviation", m.likelihood.sigma);
            t.quantity(
                who,
                "posterior mu",
                "forward x backward x the batch's likelihoods: mean",
                m.posterior.mu,
            );
            t.quantity(who, "posterior sigma", "its deviation", m.posterior.sigma);
        }
        Ok(())
    }

    /// `revert_to=field` (with `debut=field`): `revert` moves toward the field's mean.
    fn reverts_to_field(&self) -> bool {
        self.debut.as_deref().is_some_and(|d| d.2)
    }

    /// With `debut=field`, the field's mean skill for a debut on UTC `day`: the value fixed at
    /// that day's first match when there was one, else computed from the forward pass now
    /// ([`Model::field_mean`]: the players whose latest game before the day is within
    /// `debut_window` of the day's start). Only the events before the day decide it, so a
    /// forecast and the game it forecasts see the same field.
    fn field_of(&self, day: i64) -> Option<f64> {
        let &(_, window, _) = self.debut.as_deref()?;
        if let Some(&(d, f)) = self.state.field.as_deref() {
            if d == day {
                return f;
            }
        }
        let start = day * NANOS_PER_DAY;
        let field = self.state.model.field_mean(self.units(start - window), self.units(start));
        field.map(|(m, _)| m)
    }

    /// With `debut=field`, the offset and the field's mean of the debut that set `agent`'s prior
    /// in the match just applied: `Some` only when that match was the player's first and no
    /// `rating` was given.
    fn debut_of(&self, agent: u32) -> Option<(f64, f64)> {
        let offset = self.debut.as_deref()?.0?;
        let p = self.state.players.get(agent as usize)?;
        let &(_, field) = self.state.field.as_deref()?;
        (p.games == 1 && !p.rated).then_some(())?;
        field.map(|f| (offset, f))
    }

    /// The prior a player without games enters with: theirs, but with `debut=field` and no
    /// `rating` given, its mean is the field's on `day` less `debut_offset`.
    fn entering(&self, player: PlayerId, day: i64) -> Ms {
        let prior = self.state.model.prior(player.0).unwrap_or(G::new(self.mu, self.sigma)).ms();
        let rated = self.state.players.get(player.index()).is_some_and(|p| p.rated);
        match (self.debut.as_deref(), rated) {
            (Some((Some(offset), _, _)), false) => match self.field_of(day) {
                Some(f) => Ms { mu: f - offset, sigma: prior.sigma },
                None => prior,
            },
            _ => prior,
        }
    }

    /// Whether a game at `at` reverts a player whose last game was the batch at
    /// time `last`: `revert_after` is measured between the events' instants, as for a game.
    fn reverts(&self, last: f64, at: Timestamp) -> bool {
        if !self.revert.is_on() {
            return false;
        }
        let last = self.state.model.batch_at(last).and_then(|b| self.state.batch_at.get(b));
        self.revert.due(last.copied(), at.0)
    }

    /// A player's posterior from `model` drifted to `at` (time units; the instant `instant`), and
    /// reverted where a game then would revert it, for a forecast; or their prior.
    fn predictive(&self, last: Last, player: PlayerId, at: f64, instant: Timestamp) -> Ms {
        match last {
            Some((t, m)) => {
                let g = self.state.model.params().gamma;
                let drifted = Ms { mu: m.mu, sigma: (m.sigma * m.sigma + (at - t) * g * g).sqrt() };
                if self.reverts(t, instant) {
                    let day = instant.0.div_euclid(NANOS_PER_DAY);
                    let to = match self.field_of(day) {
                        Some(f) if self.reverts_to_field() => f,
                        _ => self.mu,
                    };
                    self.state.model.revert().forward_to(drifted.g(), to).ms()
                } else {
                    drifted
                }
            }
            None => self.entering(player, instant.0.div_euclid(NANOS_PER_DAY)),
        }
    }

    /// The forecast of the day holding `at` for players `a` and `b`: their last posteriors from
    /// the games before that UTC day, converged on their own. Each day's model starts from the
    /// previous day's converged one and re-smooths only the batches the new games reach
    /// ([`Model::converge_from`], the incremental update), so a scored replay costs about one
    /// convergence plus local work per day rather than a convergence of the prefix per day.
    fn forecast(
        &self,
        at: Timestamp,
        a: PlayerId,
        b: PlayerId,
    ) -> Result<(Last, Last), ModelError> {
        let day = at.0.div_euclid(NANOS_PER_DAY);
        let mut cache = lock(&self.forecast);
        if let Some(f) = cache.as_ref() {
            if f.day == day {
                return Ok((f.model.last(a.0), f.model.last(b.0)));
            }
        }
        let start = self.units(day * NANOS_PER_DAY);
        let mut model = match cache.take() {
            Some(f) if f.day < day => f.model,
            _ => Box::new(Model::new(self.state.model.params())),
        };
        let (before, first) = (model.games(), model.batches());
        model.extend_before(&self.state.model, start)?;
        if model.games() > before {
            model.converge_from(first, self.epsilon, self.iterations)?;
        }
        let last = (model.last(a.0), model.last(b.0));
        *cache = Some(Forecast { day, model });
        Ok(last)
    }
}

impl Projector for Ttt {
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

    /// The smoothed posterior at the player's last game, from the converged history (the prior
    /// before their first game). `None` also when the history cannot converge ([`Ttt::settle`]
    /// names the game).
    fn standing(&self, player: PlayerId) -> Option<Standing> {
        let p = self.state.players.get(player.index()).filter(|p| p.joined)?;
        let m = if p.games == 0 {
            Ms { mu: p.prior.0, sigma: p.prior.1 }
        } else {
            let (model, _) = self.estimate().ok()?;
            model.last(player.0)?.1
        };
        let mut s = Standing::rating_only(player, m.mu, u64::from(p.games));
        s.sigma = Some(m.sigma);
        Some(s)
    }

    fn standings(&self) -> Vec<Standing> {
        (0..self.players()).filter_map(|i| self.standing(PlayerId(i as u32))).collect()
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    /// The smoothed posterior at each of the player's games (the package's learning curve), from
    /// the converged history; `Some` for every id, empty without games (or when the history cannot
    /// converge: [`Ttt::settle`] names the game).
    fn curve(&self, player: PlayerId) -> Option<Vec<(Timestamp, Standing)>> {
        if self.state.players.get(player.index()).is_none_or(|p| p.games == 0) {
            return Some(Vec::new());
        }
        let Ok((model, _)) = self.estimate() else { return Some(Vec::new()) };
        let mut games = 0u64;
        Some(
            model
                .curve_batches(player.0)
                .into_iter()
                .map(|(b, m, n)| {
                    games += u64::from(n);
                    let mut s = Standing::rating_only(player, m.mu, games);
                    s.sigma = Some(m.sigma);
                    (Timestamp(self.state.batch_at[b]), s)
                })
                .collect(),
        )
    }

    /// With `on`, a reading extends the previous converged estimate with the games applied since
    /// and re-smooths only where they reach ([`Model::extend`], [`Model::converge_from`]); a
    /// history that is not an extension of it (never, in a fold) is converged whole.
    fn set_incremental(&mut self, on: bool) {
        self.incremental = on;
    }

    /// Converges the history; an arithmetic failure names the game. With a trace, records the
    /// sweeps it took and the last change.
    fn settle(&self, seq: u64, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        let _ = seq;
        let (model, result) = self.estimate()?;
        if let Some(t) = trace {
            t.section(format!("{ALGORITHM} convergence of the whole history"));
            t.quantity(None, "games", "games in the history", model.games() as f64);
            t.quantity(None, "batches", "instants with games", model.batches() as f64);
            trace_convergence(t, &result);
        }
        Ok(())
    }

    /// `P(a wins) + P(draw) / 2` for a game at `at`, from the games before `at`'s UTC day
    /// (converged on their own): with each skill drifted to `at`, the difference of performances
    /// is `N(mu_a - mu_b, sigma_a^2 + sigma_b^2 + 2 beta^2)`, and with the draw margin `m`
    /// the result is `1 - (cdf(m) + cdf(-m)) / 2`.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        self.expectation_at(a, b, at, Home::Neither)
    }

    /// [`Projector::expectation`] with `home` added to the mean of the home seat's performance
    /// (so to the mean of the difference, `mu_a - mu_b`, with its sign).
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        let Ok((last_a, last_b)) = self.forecast(at, a, b) else { return 0.5 };
        let t = self.units(at.0);
        let (pa, pb) = (self.predictive(last_a, a, t, at), self.predictive(last_b, b, t, at));
        let sd = (pa.sigma * pa.sigma + pb.sigma * pb.sigma + 2.0 * self.beta * self.beta).sqrt();
        let mu = pa.mu - pb.mu + home.edge(self.home);
        let m = if self.p_draw == 0.0 {
            0.0
        } else {
            gauss::margin(self.p_draw, (2.0 * self.beta * self.beta).sqrt())
        };
        1.0 - (gauss::cdf(m, mu, sd) + gauss::cdf(-m, mu, sd)) / 2.0
    }
}
