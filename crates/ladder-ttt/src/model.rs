//! The whole-history model of TrueSkill Through Time (Landfried & Mocskos, "TrueSkill Through
//! Time: Reliable Initial Skill Estimates and Historical Comparability with Julia, Python and R",
//! Journal of Statistical Software, 2025), kept as flat arrays.
//!
//! A *batch* is the games at one instant. Each player in a batch has a *skill* there, the
//! product of three messages: `forward` (what the player's earlier batches say, drifted by
//! `gamma^2` per time unit since the previous one; the prior at the first), `backward` (what the
//! later batches say, drifted back) and `likelihood` (what this batch's games say: the product of
//! the player's *items*, one per game). The estimate is found as the reference package
//! `trueskillthroughtime` 1.1.0 finds it: one forward pass as the games arrive (each batch
//! iterated once), then [`Model::converge`] repeats sweeps (backward over batches from the
//! second-last to the first, then forward from the second to the last, each batch iterating its
//! games once) until no posterior moves by more than `epsilon` in mean and in deviation.
//!
//! The arrays only grow at their ends, because games arrive in time order: a game at the last
//! batch's instant joins it, a later one opens a new batch. So new games can be folded into a
//! converged estimate, and the next [`Model::converge`] starts from it (docs/algorithms/ttt.md,
//! "Incremental").

use crate::game::{self, GameParams, Scratch, TeamIn};
use crate::gauss::{Ms, G};
use serde::{Deserialize, Serialize};

/// No index.
const NONE: u32 = u32::MAX;

/// The constants of the model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelParams {
    /// Performance noise of every player.
    pub beta: f64,
    /// Skill drift per time unit (standard deviation).
    pub gamma: f64,
    /// Probability of a draw between two sides of equal skill.
    pub p_draw: f64,
    /// Home advantage in skill units: added to the mean of the home team's performance.
    pub home: f64,
}

/// Regression to the mean between seasons (`revert`, docs/algorithms/ttt.md, "Revert"): the
/// link from a player's skill before an absence to their skill at the first game after it is,
/// after the drift `d = s + N(0, gamma^2 t)`, the linear-Gaussian step
/// `s' = (1 - fraction) d + fraction mu + N(0, fraction (2 - fraction) sigma^2)`: the mean moves
/// `fraction` of the way back to `mu`, and a skill distributed as the population `N(mu, sigma^2)`
/// stays so (at `fraction = 1` the player starts afresh from it). Being linear and Gaussian, the
/// step passes messages exactly both ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reversion {
    /// `revert`, from 0 (off) to 1.
    pub fraction: f64,
    /// The mean moved back to (the constant `mu`).
    pub mu: f64,
    /// The population's deviation (the constant `sigma`).
    pub sigma: f64,
}

impl Reversion {
    /// The message about the skill after the step, from `d`, the message about the drifted skill
    /// before it: `N((1 - f) mu_d + f mu, (1 - f)^2 sigma_d^2 + f (2 - f) sigma^2)`.
    pub fn forward(&self, d: G) -> G {
        self.forward_to(d, self.mu)
    }

    /// [`Reversion::forward`] toward the mean `to` instead of the constant `mu` (`revert_to=field`,
    /// docs/algorithms/ttt.md, "Revert"): `N((1 - f) mu_d + f to, (1 - f)^2 sigma_d^2 +
    /// f (2 - f) sigma^2)`.
    pub fn forward_to(&self, d: G, to: f64) -> G {
        let f = self.fraction;
        let noise = f * (2.0 - f) * self.sigma * self.sigma;
        if f >= 1.0 {
            return G::new(to, noise.sqrt());
        }
        if d.pi <= 0.0 {
            return G::NINF;
        }
        let (mu, var) = (d.tau / d.pi, 1.0 / d.pi);
        let keep = 1.0 - f;
        let var = keep * keep * var + noise;
        G { tau: (keep * mu + f * to) / var, pi: 1.0 / var }
    }

    /// The message about the drifted skill before the step, from `m`, a message about the skill
    /// after it: `N((mu_m - f mu) / (1 - f), (sigma_m^2 + f (2 - f) sigma^2) / (1 - f)^2)`; no
    /// information when `m` has none or `f = 1` (the past is then cut off).
    pub fn backward(&self, m: G) -> G {
        self.backward_to(m, self.mu)
    }

    /// [`Reversion::backward`] through a step toward the mean `to` instead of the constant `mu`:
    /// `N((mu_m - f to) / (1 - f), (sigma_m^2 + f (2 - f) sigma^2) / (1 - f)^2)`.
    pub fn backward_to(&self, m: G, to: f64) -> G {
        let f = self.fraction;
        if f >= 1.0 || m.pi <= 0.0 {
            return G::NINF;
        }
        let (mu, var) = (m.tau / m.pi, 1.0 / m.pi);
        let keep = 1.0 - f;
        let var = (var + f * (2.0 - f) * self.sigma * self.sigma) / (keep * keep);
        G { tau: (mu - f * to) / keep / var, pi: 1.0 / var }
    }
}

/// A player's skill in one batch.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Skill {
    agent: u32,
    /// The same player's skill in their previous and next batch, or [`NONE`].
    prev: u32,
    next: u32,
    /// Time units since the player's previous batch (0 at their first).
    elapsed: f64,
    /// The player's first skill after an absence of at least `revert_after`: the time link from
    /// the previous skill also moves the skill back toward the prior ([`Reversion`]).
    reverted: bool,
    forward: G,
    backward: G,
    likelihood: G,
}

impl Skill {
    #[inline]
    fn posterior(&self) -> G {
        self.likelihood.times(self.backward).times(self.forward)
    }
}

/// The batch of games at one instant: its skills and events are the ranges from these starts to
/// the next batch's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Batch {
    time: f64,
    skills: u32,
    events: u32,
}

/// A game: its teams are the range from `teams` to the next event's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Event {
    teams: u32,
    /// The caller's name for it (ladder: the event's sequence number), for errors.
    tag: u64,
}

/// A team of a game: its items are the range from `items` to the next team's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Team {
    items: u32,
    output: f64,
    /// The team is at home: its performance's mean gains `home`.
    home: bool,
}

/// A player's seat in a game: their skill in the batch and the game's last message to it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Item {
    skill: u32,
    likelihood: G,
}

/// A player: the prior at their first game, and their latest skill.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Agent {
    prior: G,
    last: u32,
}

/// Why the model could not go on: a game whose arithmetic left the finite numbers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("game {tag}: a likelihood message is not finite (skills too far apart for the arithmetic)")]
pub struct ModelError {
    /// The game's tag.
    pub tag: u64,
}

/// One seat's messages in a game ([`Model::last_game`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatMessages {
    /// The player.
    pub agent: u32,
    /// Their prior (what enters at their first game).
    pub prior: Ms,
    /// Time units since their previous game (0 at the first).
    pub elapsed: f64,
    /// Their previous batch's forward times likelihood, before the drift (`None` at the first).
    pub drifted_from: Option<Ms>,
    /// The forward message: the previous batch's, drifted by `gamma^2 elapsed` (the prior at the
    /// first), and moved back toward the prior when `reverted`.
    pub forward: Ms,
    /// This is the player's first game after an absence of at least `revert_after`, and
    /// `revert` is on: the forward message went through the [`Reversion`] step.
    pub reverted: bool,
    /// The mean a reverted forward message moved toward: the constant `mu`, or the field's mean
    /// the game was pushed with ([`Model::push_game_reverting_to`]).
    pub revert_to: f64,
    /// The backward message: what their later games say, drifted back.
    pub backward: Ms,
    /// This game's likelihood message.
    pub likelihood: Ms,
    /// The skill as the game sees it: the posterior without this game's message.
    pub within: Ms,
    /// The posterior of the skill in the batch (forward, backward, and all the batch's games).
    pub posterior: Ms,
}

/// What [`Model::converge`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Converged {
    /// The largest change of a posterior's mean and deviation in the last sweep.
    pub step: (f64, f64),
    /// Sweeps made.
    pub iterations: u32,
}

/// The whole history and its messages.
///
/// Invariants: batches are in increasing time; every skill's `prev`/`next` link the same agent's
/// skills in batch order; an agent's `last` is their latest skill; each item's likelihood is a
/// factor of its skill's `likelihood`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Model {
    params: ModelParams,
    agents: Vec<Agent>,
    batches: Vec<Batch>,
    skills: Vec<Skill>,
    events: Vec<Event>,
    teams: Vec<Team>,
    items: Vec<Item>,
    /// The last batch has games not yet iterated (the package iterates a batch once when it is
    /// built).
    open: bool,
    /// Regression to the mean at a player's first game after an absence (off by default).
    revert: Reversion,
    /// The reverted skills whose step moves toward a mean other than the constant `mu`
    /// (`revert_to=field`): (skill, that mean), in increasing skill order; empty otherwise.
    /// Boxed (one word in the model, not a vector's three), as `scratch` is: ladder-replay's
    /// `Algo` enum holds a `Ttt` inline, and its variants stay within clippy's size bound.
    #[allow(clippy::box_collection)] // the size above, on purpose
    targets: Box<Vec<(u32, f64)>>,
    /// Reused buffers (boxed: a projector holding a model stays small).
    #[serde(skip)]
    scratch: Box<Buffers>,
}

#[derive(Clone, Debug, Default)]
struct Buffers {
    game: Scratch,
    priors: Vec<Ms>,
    teams: Vec<TeamIn>,
    out: Vec<Ms>,
    old: Vec<Ms>,
}

impl Model {
    /// An empty history.
    pub fn new(params: ModelParams) -> Model {
        Model {
            params,
            agents: Vec::new(),
            batches: Vec::new(),
            skills: Vec::new(),
            events: Vec::new(),
            teams: Vec::new(),
            items: Vec::new(),
            open: false,
            revert: Reversion::default(),
            targets: Box::default(),
            scratch: Box::default(),
        }
    }

    /// This model with regression to the mean `revert` ([`Reversion`]), applied to the skills
    /// that games pushed with [`Model::push_game_reverting`] mark as reverted. Set it before the
    /// first game.
    pub fn with_revert(mut self, revert: Reversion) -> Model {
        self.revert = revert;
        self
    }

    /// The regression to the mean in force.
    pub fn revert(&self) -> Reversion {
        self.revert
    }

    /// The constants.
    pub fn params(&self) -> ModelParams {
        self.params
    }

    /// Games so far.
    pub fn games(&self) -> usize {
        self.events.len()
    }

    /// Batches so far.
    pub fn batches(&self) -> usize {
        self.batches.len()
    }

    /// Sets `agent`'s prior (ids are dense from 0; missing ones are created with `prior`). Only
    /// before the agent's first game: afterwards the prior has already been used.
    pub fn set_prior(&mut self, agent: u32, prior: G) {
        let i = agent as usize;
        if i >= self.agents.len() {
            self.agents.resize(i + 1, Agent { prior, last: NONE });
        }
        if self.agents[i].last == NONE {
            self.agents[i].prior = prior;
        }
    }

    /// Whether `agent` has a prior.
    pub fn has_agent(&self, agent: u32) -> bool {
        (agent as usize) < self.agents.len()
    }

    fn skill_end(&self, b: usize) -> usize {
        self.batches.get(b + 1).map_or(self.skills.len(), |x| x.skills as usize)
    }

    fn event_end(&self, b: usize) -> usize {
        self.batches.get(b + 1).map_or(self.events.len(), |x| x.events as usize)
    }

    fn team_end(&self, e: usize) -> usize {
        self.events.get(e + 1).map_or(self.teams.len(), |x| x.teams as usize)
    }

    fn item_end(&self, t: usize) -> usize {
        self.teams.get(t + 1).map_or(self.items.len(), |x| x.items as usize)
    }

    /// Adds a game at `time` (time units, never before the last game's): `teams` are each a list
    /// of agents (who have priors) and a result (higher ranks higher; equal is a draw). A game at
    /// the last batch's time joins that batch; a later one closes it (iterating its games once)
    /// and opens a new one.
    pub fn push_game(
        &mut self,
        time: f64,
        tag: u64,
        teams: &[(&[u32], f64)],
    ) -> Result<(), ModelError> {
        self.push_game_at(time, tag, teams, None)
    }

    /// [`Model::push_game`] with team `home` (an index of `teams`) at home: its performance's mean
    /// gains the constant `home`.
    pub fn push_game_at(
        &mut self,
        time: f64,
        tag: u64,
        teams: &[(&[u32], f64)],
        home: Option<usize>,
    ) -> Result<(), ModelError> {
        self.push_game_reverting(time, tag, teams, home, &|_| false)
    }

    /// [`Model::push_game_at`] where `reverted(agent)` says whether an agent's skill in this
    /// game, when it is their first in a new batch after an earlier one, is moved back toward the
    /// prior ([`Reversion`]); the caller decides (ladder: an absence of at least `revert_after`).
    pub fn push_game_reverting(
        &mut self,
        time: f64,
        tag: u64,
        teams: &[(&[u32], f64)],
        home: Option<usize>,
        reverted: &dyn Fn(u32) -> bool,
    ) -> Result<(), ModelError> {
        self.push_game_reverting_to(time, tag, teams, home, reverted, self.revert.mu)
    }

    /// [`Model::push_game_reverting`] with the reverted skills' step moving toward the mean `to`
    /// instead of the constant `mu` (`revert_to=field`: the field's mean on the game's day, from
    /// the events before it; docs/algorithms/ttt.md, "Revert"). The mean is kept per skill, so
    /// every later message through the step, either way, uses it.
    pub fn push_game_reverting_to(
        &mut self,
        time: f64,
        tag: u64,
        teams: &[(&[u32], f64)],
        home: Option<usize>,
        reverted: &dyn Fn(u32) -> bool,
        to: f64,
    ) -> Result<(), ModelError> {
        let same = self.batches.last().is_some_and(|b| b.time == time);
        if !same {
            self.close()?;
            self.batches.push(Batch {
                time,
                skills: self.skills.len() as u32,
                events: self.events.len() as u32,
            });
        }
        let b = self.batches.len() - 1;
        let first_skill = self.batches[b].skills;
        self.events.push(Event { teams: self.teams.len() as u32, tag });
        for (k, &(agents, output)) in teams.iter().enumerate() {
            self.teams.push(Team { items: self.items.len() as u32, output, home: home == Some(k) });
            for &a in agents {
                let last = self.agents[a as usize].last;
                let skill = if last != NONE && last >= first_skill {
                    last
                } else {
                    let revert = last != NONE && self.revert.fraction > 0.0 && reverted(a);
                    self.new_skill(a, time, revert, to)
                };
                self.items.push(Item { skill, likelihood: G::NINF });
            }
        }
        self.open = true;
        Ok(())
    }

    /// A new skill for `agent` in the last batch, at `time`, with its forward message.
    fn new_skill(&mut self, agent: u32, time: f64, reverted: bool, to: f64) -> u32 {
        let id = self.skills.len() as u32;
        let a = self.agents[agent as usize];
        let (elapsed, forward) = if a.last == NONE {
            (0.0, a.prior)
        } else {
            let p = self.skills[a.last as usize];
            let prev_time = self.batch_time_of(a.last);
            let elapsed = time - prev_time;
            let drifted = p.forward.times(p.likelihood).forget(self.params.gamma, elapsed);
            (elapsed, if reverted { self.revert.forward_to(drifted, to) } else { drifted })
        };
        if reverted && to.to_bits() != self.revert.mu.to_bits() {
            self.targets.push((id, to));
        }
        if a.last != NONE {
            self.skills[a.last as usize].next = id;
        }
        self.skills.push(Skill {
            agent,
            prev: a.last,
            next: NONE,
            elapsed,
            reverted,
            forward,
            backward: G::NINF,
            likelihood: G::NINF,
        });
        self.agents[agent as usize].last = id;
        id
    }

    /// The forward message into skill `sk`: the prior at the player's first game, else the
    /// previous skill's forward times likelihood, drifted over `sk.elapsed` (and moved back
    /// toward the prior when `sk` is reverted).
    #[inline]
    fn forward_into(&self, s: usize) -> G {
        let sk = &self.skills[s];
        if sk.prev == NONE {
            return self.agents[sk.agent as usize].prior;
        }
        let p = &self.skills[sk.prev as usize];
        let drifted = p.forward.times(p.likelihood).forget(self.params.gamma, sk.elapsed);
        if sk.reverted {
            self.revert.forward_to(drifted, self.target(s as u32))
        } else {
            drifted
        }
    }

    /// The backward message from skill `next` into the previous skill of the same player: its
    /// likelihood times backward (taken back through the reversion when `next` is reverted),
    /// drifted back over its `elapsed`; no information when there is no next skill.
    #[inline]
    fn backward_from(&self, next: u32) -> G {
        if next == NONE {
            return G::NINF;
        }
        let n = &self.skills[next as usize];
        let m = n.likelihood.times(n.backward);
        let m = if n.reverted { self.revert.backward_to(m, self.target(next)) } else { m };
        m.forget(self.params.gamma, n.elapsed)
    }

    /// The mean reverted skill `skill`'s step moves toward: its own (`revert_to=field`) or the
    /// constant `mu`.
    fn target(&self, skill: u32) -> f64 {
        match self.targets.binary_search_by_key(&skill, |t| t.0) {
            Ok(k) => self.targets[k].1,
            Err(_) => self.revert.mu,
        }
    }

    fn batch_of(&self, skill: u32) -> usize {
        self.batches.partition_point(|b| b.skills <= skill) - 1
    }

    fn batch_time_of(&self, skill: u32) -> f64 {
        self.batches[self.batch_of(skill)].time
    }

    /// Iterates the open batch once (what the package does when it builds a batch).
    pub fn close(&mut self) -> Result<(), ModelError> {
        if self.open {
            self.open = false;
            self.iterate(self.batches.len() - 1)?;
        }
        Ok(())
    }

    /// One pass over batch `b`'s games (the package's `Batch.iteration`): each game sees its
    /// players' skills without its own last message, and replaces that message.
    fn iterate(&mut self, b: usize) -> Result<(), ModelError> {
        let params = GameParams { beta: self.params.beta, p_draw: self.params.p_draw };
        let home = self.params.home;
        let (e0, e1) = (self.batches[b].events as usize, self.event_end(b));
        let mut buf = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        for e in e0..e1 {
            let (t0, t1) = (self.events[e].teams as usize, self.team_end(e));
            let (i0, i1) = (self.teams[t0].items as usize, self.item_end(t1 - 1));
            buf.priors.clear();
            buf.teams.clear();
            for t in t0..t1 {
                let (s, end) = (self.teams[t].items as usize, self.item_end(t));
                buf.teams.push(TeamIn {
                    start: s - i0,
                    end: end - i0,
                    output: self.teams[t].output,
                    offset: if self.teams[t].home { home } else { 0.0 },
                });
            }
            for item in &self.items[i0..i1] {
                let sk = &self.skills[item.skill as usize];
                buf.priors.push(sk.posterior().over(item.likelihood).ms());
            }
            buf.out.clear();
            buf.out.resize(i1 - i0, crate::gauss::NINF);
            game::likelihoods(&buf.priors, &buf.teams, params, &mut buf.game, &mut buf.out);
            if buf.out.iter().any(|m| !m.mu.is_finite() || m.sigma.is_nan()) {
                result = Err(ModelError { tag: self.events[e].tag });
                break;
            }
            for (k, item) in self.items[i0..i1].iter_mut().enumerate() {
                let new = buf.out[k].g();
                let sk = &mut self.skills[item.skill as usize];
                sk.likelihood = sk.likelihood.over(item.likelihood).times(new);
                item.likelihood = new;
            }
        }
        self.scratch = buf;
        result
    }

    fn posteriors_into(&self, b: usize, out: &mut Vec<Ms>) {
        out.clear();
        let (s0, s1) = (self.batches[b].skills as usize, self.skill_end(b));
        out.extend(self.skills[s0..s1].iter().map(|s| s.posterior().ms()));
    }

    fn diff(&mut self, b: usize, step: &mut (f64, f64)) {
        let old = std::mem::take(&mut self.scratch.old);
        let s0 = self.batches[b].skills as usize;
        for (k, o) in old.iter().enumerate() {
            let d = o.delta(self.skills[s0 + k].posterior().ms());
            step.0 = step.0.max(d.0);
            step.1 = step.1.max(d.1);
        }
        self.scratch.old = old;
    }

    fn remember(&mut self, b: usize) {
        let mut old = std::mem::take(&mut self.scratch.old);
        self.posteriors_into(b, &mut old);
        self.scratch.old = old;
    }

    /// One sweep over the history (the package's `History.iteration`): backward from the
    /// second-last batch to the first, then forward from the second to the last; a history of
    /// one batch instead converges that batch (at most 20 passes, to 1e-6, as the package's
    /// `Batch.convergence`). Returns the largest change of a posterior.
    pub fn sweep(&mut self) -> Result<(f64, f64), ModelError> {
        self.close()?;
        let nb = self.batches.len();
        let mut step = (0.0, 0.0);
        for j in (0..nb.saturating_sub(1)).rev() {
            self.remember(j);
            let (s0, s1) = (self.batches[j].skills as usize, self.skill_end(j));
            for s in s0..s1 {
                let next = self.skills[s].next;
                self.skills[s].backward = self.backward_from(next);
            }
            self.iterate(j)?;
            self.diff(j, &mut step);
        }
        for j in 1..nb {
            self.remember(j);
            let (s0, s1) = (self.batches[j].skills as usize, self.skill_end(j));
            for s in s0..s1 {
                self.skills[s].forward = self.forward_into(s);
            }
            self.iterate(j)?;
            self.diff(j, &mut step);
        }
        if nb == 1 {
            self.remember(0);
            let before = self.scratch.old.clone();
            let mut inner = (f64::INFINITY, f64::INFINITY);
            let mut i = 0;
            while (inner.0 > 1e-6 || inner.1 > 1e-6) && i < 20 {
                self.remember(0);
                self.iterate(0)?;
                inner = (0.0, 0.0);
                self.diff(0, &mut inner);
                i += 1;
            }
            self.scratch.old = before;
            self.diff(0, &mut step);
        }
        Ok(step)
    }

    /// Sweeps until no posterior moves by more than `epsilon` (mean or deviation) or `iterations`
    /// sweeps were made (the package's `History.convergence`).
    pub fn converge(&mut self, epsilon: f64, iterations: u32) -> Result<Converged, ModelError> {
        self.close()?;
        let mut step = (f64::INFINITY, f64::INFINITY);
        let mut i = 0;
        while (step.0 > epsilon || step.1 > epsilon) && i < iterations {
            step = self.sweep()?;
            i += 1;
        }
        Ok(Converged { step, iterations: i })
    }

    /// Converges a history whose batches before `first` were converged and whose later batches
    /// entered by the forward pass ([`Model::extend_before`]), visiting only the batches the new
    /// information reaches: the incremental update (docs/algorithms/ttt.md, "Incremental").
    ///
    /// Each round is a backward phase (latest batch first) then a forward phase (earliest first),
    /// as a sweep of [`Model::converge`] is, but a batch is iterated only when a message into it
    /// may have changed: at the start, the new batches (in both phases, the last one in the
    /// forward phase only, as in a sweep) and the batches holding the previous skill of a new
    /// batch's players; afterwards, the neighbours (previous and next skill of the same player)
    /// of every skill whose posterior moved by more than `epsilon` in mean or deviation, and the
    /// batch itself in the next phase (its games see each other through the skills they share,
    /// so one pass over a batch of several games does not settle it). It stops when no batch is
    /// left to visit, or after `iterations` rounds. With `first == 0`,
    /// or a history of one batch, it is [`Model::converge`].
    pub fn converge_from(
        &mut self,
        first: usize,
        epsilon: f64,
        iterations: u32,
    ) -> Result<Converged, ModelError> {
        self.close()?;
        let nb = self.batches.len();
        if first == 0 || nb <= 1 {
            return self.converge(epsilon, iterations);
        }
        if first >= nb {
            return Ok(Converged { step: (0.0, 0.0), iterations: 0 });
        }
        let mut back = vec![false; nb];
        let mut fwd = vec![false; nb];
        for flag in &mut back[first..nb - 1] {
            *flag = true;
        }
        for flag in &mut fwd[first..nb] {
            *flag = true;
        }
        for s in self.batches[first].skills as usize..self.skills.len() {
            let prev = self.skills[s].prev;
            if prev != NONE {
                back[self.batch_of(prev)] = true;
            }
        }
        let mut step = (0.0, 0.0);
        let mut i = 0;
        while i < iterations && (back.contains(&true) || fwd.contains(&true)) {
            step = (0.0, 0.0);
            for j in (0..nb).rev() {
                if !std::mem::take(&mut back[j]) {
                    continue;
                }
                self.remember(j);
                for s in self.batches[j].skills as usize..self.skill_end(j) {
                    let next = self.skills[s].next;
                    self.skills[s].backward = self.backward_from(next);
                }
                self.iterate(j)?;
                // A batch whose own posteriors moved is visited again (its games see each other
                // through the skills they share, as a sweep revisits every batch).
                fwd[j] |= self.mark(j, epsilon, &mut step, &mut back, &mut fwd);
            }
            for j in 0..nb {
                if !std::mem::take(&mut fwd[j]) {
                    continue;
                }
                self.remember(j);
                for s in self.batches[j].skills as usize..self.skill_end(j) {
                    self.skills[s].forward = self.forward_into(s);
                }
                self.iterate(j)?;
                back[j] |= self.mark(j, epsilon, &mut step, &mut back, &mut fwd);
            }
            i += 1;
        }
        Ok(Converged { step, iterations: i })
    }

    /// After batch `b` was iterated (its old posteriors remembered): folds each skill's change
    /// into `step`, and marks the batches of the previous and next skill of every skill that
    /// moved by more than `epsilon`. Returns whether any did.
    fn mark(
        &mut self,
        b: usize,
        epsilon: f64,
        step: &mut (f64, f64),
        back: &mut [bool],
        fwd: &mut [bool],
    ) -> bool {
        let mut moved = false;
        let old = std::mem::take(&mut self.scratch.old);
        let s0 = self.batches[b].skills as usize;
        for (k, o) in old.iter().enumerate() {
            let sk = self.skills[s0 + k];
            let d = o.delta(sk.posterior().ms());
            step.0 = step.0.max(d.0);
            step.1 = step.1.max(d.1);
            if d.0 > epsilon || d.1 > epsilon {
                moved = true;
                if sk.prev != NONE {
                    back[self.batch_of(sk.prev)] = true;
                }
                if sk.next != NONE {
                    fwd[self.batch_of(sk.next)] = true;
                }
            }
        }
        self.scratch.old = old;
        moved
    }

    /// `agent`'s posterior at their last game and that game's time; `None` before their first.
    pub fn last(&self, agent: u32) -> Option<(f64, Ms)> {
        let last = self.agents.get(agent as usize)?.last;
        if last == NONE {
            return None;
        }
        Some((self.batch_time_of(last), self.skills[last as usize].posterior().ms()))
    }

    /// The messages of the last game's seats, in seat order (what `explain` shows of a game).
    pub fn last_game(&self) -> Vec<SeatMessages> {
        let Some(e) = self.events.len().checked_sub(1) else { return Vec::new() };
        let (t0, t1) = (self.events[e].teams as usize, self.team_end(e));
        let (i0, i1) = (self.teams[t0].items as usize, self.item_end(t1 - 1));
        self.items[i0..i1]
            .iter()
            .map(|item| {
                let sk = &self.skills[item.skill as usize];
                let drifted_from = if sk.prev == NONE {
                    None
                } else {
                    let p = &self.skills[sk.prev as usize];
                    Some(p.forward.times(p.likelihood).ms())
                };
                SeatMessages {
                    agent: sk.agent,
                    prior: self.agents[sk.agent as usize].prior.ms(),
                    elapsed: sk.elapsed,
                    drifted_from,
                    forward: sk.forward.ms(),
                    reverted: sk.reverted,
                    revert_to: self.target(item.skill),
                    backward: sk.backward.ms(),
                    likelihood: item.likelihood.ms(),
                    within: sk.posterior().over(item.likelihood).ms(),
                    posterior: sk.posterior().ms(),
                }
            })
            .collect()
    }

    /// `agent`'s prior.
    pub fn prior(&self, agent: u32) -> Option<G> {
        self.agents.get(agent as usize).map(|a| a.prior)
    }

    /// [`Model::curve`] with each point's batch index instead of its time, and the number of
    /// the agent's games in that batch.
    pub fn curve_batches(&self, agent: u32) -> Vec<(usize, Ms, u32)> {
        let mut out = Vec::new();
        let mut s = self.agents.get(agent as usize).map_or(NONE, |a| a.last);
        while s != NONE {
            let sk = &self.skills[s as usize];
            let b = self.batch_of(s);
            let (e0, e1) = (self.batches[b].events as usize, self.event_end(b));
            let (i0, i1) = (self.teams[self.events[e0].teams as usize].items as usize, {
                let t1 = self.team_end(e1 - 1);
                self.item_end(t1 - 1)
            });
            let games = self.items[i0..i1].iter().filter(|i| i.skill == s).count() as u32;
            out.push((b, sk.posterior().ms(), games));
            s = sk.prev;
        }
        out.reverse();
        out
    }

    /// `agent`'s learning curve: the time and posterior of every batch they played in, in order
    /// (the package's `learning_curves`).
    pub fn curve(&self, agent: u32) -> Vec<(f64, Ms)> {
        let mut out = Vec::new();
        let mut s = self.agents.get(agent as usize).map_or(NONE, |a| a.last);
        while s != NONE {
            let sk = &self.skills[s as usize];
            out.push((self.batch_time_of(s), sk.posterior().ms()));
            s = sk.prev;
        }
        out.reverse();
        out
    }

    /// The field a debutant enters beside (`debut=field`, docs/algorithms/ttt.md, "Debut"): the
    /// mean, over the players whose latest game in a closed batch before time `before` is at
    /// `from` or later, of their filtered skill there (forward times likelihood: what the games
    /// up to it say, the forward pass's estimate), and how many players that is. The open batch
    /// (its games not yet iterated) does not count: a player whose latest skill is in it counts
    /// with the skill before it. `None` when no player qualifies.
    pub fn field_mean(&self, from: f64, before: f64) -> Option<(f64, usize)> {
        // Skills from this one on are in the open batch or at `before` or later.
        let open_from = match self.batches.last() {
            Some(b) if self.open => b.skills,
            _ => self.skills.len() as u32,
        };
        let cut = self.batches.partition_point(|b| b.time < before);
        let cut = self.batches.get(cut).map_or(self.skills.len() as u32, |b| b.skills);
        let end = open_from.min(cut);
        let (mut sum, mut n) = (0.0, 0usize);
        for a in &self.agents {
            let mut s = a.last;
            while s != NONE && s >= end {
                s = self.skills[s as usize].prev;
            }
            if s == NONE || self.batch_time_of(s) < from {
                continue;
            }
            let sk = &self.skills[s as usize];
            sum += sk.forward.times(sk.likelihood).ms().mu;
            n += 1;
        }
        (n > 0).then(|| (sum / n as f64, n))
    }

    /// The batch of `agent`'s last game, `None` before their first.
    pub fn last_batch(&self, agent: u32) -> Option<usize> {
        let last = self.agents.get(agent as usize)?.last;
        (last != NONE).then(|| self.batch_of(last))
    }

    /// The batch at exactly `time`, if there is one.
    pub fn batch_at(&self, time: f64) -> Option<usize> {
        let b = self.batches.partition_point(|x| x.time < time);
        (self.batches.get(b)?.time == time).then_some(b)
    }

    /// Removes the last batch (its skills, games, teams and seats), leaving each of its players'
    /// previous skill their last again, with no backward message.
    fn pop_batch(&mut self) {
        let Some(b) = self.batches.pop() else { return };
        for s in (b.skills as usize..self.skills.len()).rev() {
            let sk = self.skills[s];
            self.agents[sk.agent as usize].last = sk.prev;
            if sk.prev != NONE {
                self.skills[sk.prev as usize].next = NONE;
                self.skills[sk.prev as usize].backward = G::NINF;
            }
        }
        let e = b.events as usize;
        let t = self.events.get(e).map_or(self.teams.len(), |x| x.teams as usize);
        let i = self.teams.get(t).map_or(self.items.len(), |x| x.items as usize);
        self.skills.truncate(b.skills as usize);
        let kept = self.targets.partition_point(|t| t.0 < b.skills);
        self.targets.truncate(kept);
        self.events.truncate(e);
        self.teams.truncate(t);
        self.items.truncate(i);
        self.open = false;
    }

    /// Brings a converged model up to `main`, which holds its games and more after them (the
    /// same games, applied in the same order, then new ones): the games of `main`'s batches not
    /// here enter by the forward pass ([`Model::extend_before`]), and a last batch that gained
    /// games at the same instant is taken out and entered again whole. Returns the first batch
    /// that is new here, what [`Model::converge_from`] re-smooths from; `None`, with nothing
    /// changed, when `main` does not begin with this model's games (then only a full
    /// convergence of `main` will do).
    pub fn extend(&mut self, main: &Model) -> Result<Option<usize>, ModelError> {
        let (nb, ne) = (self.batches.len(), self.events.len());
        if nb == 0 {
            if ne > 0 || self.params != main.params || self.revert != main.revert {
                return Ok(None);
            }
            self.extend_before(main, f64::INFINITY)?;
            return Ok(Some(0));
        }
        let last = self.batches[nb - 1];
        let fits = self.params == main.params
            && self.revert == main.revert
            && nb <= main.batches.len()
            && ne <= main.events.len()
            && main.batches[nb - 1].time == last.time
            && main.batches[nb - 1].events == last.events
            && self.skills.len() <= main.skills.len()
            && main.events[ne - 1].tag == self.events[ne - 1].tag;
        if !fits {
            return Ok(None);
        }
        let first = if main.event_end(nb - 1) > ne {
            self.pop_batch();
            nb - 1
        } else {
            nb
        };
        self.extend_before(main, f64::INFINITY)?;
        Ok(Some(first))
    }

    /// Brings this model up to `main`'s games before time `before`: `self` must hold a prefix of
    /// `main`'s batches (as a model built by this function does). The priors of players who have
    /// not played here yet are taken from `main`, and the new games enter by the forward pass, with
    /// every message already here kept: the incremental update (docs/algorithms/ttt.md,
    /// "Incremental"), which [`Model::converge`] then sweeps from.
    pub fn extend_before(&mut self, main: &Model, before: f64) -> Result<(), ModelError> {
        for (a, agent) in main.agents.iter().enumerate() {
            self.set_prior(a as u32, agent.prior);
        }
        let mut teams: Vec<(Vec<u32>, f64)> = Vec::new();
        for b in self.batches.len()..main.batches.len() {
            let batch = main.batches[b];
            if batch.time >= before {
                break;
            }
            for e in batch.events as usize..main.event_end(b) {
                teams.clear();
                let mut home = None;
                for t in main.events[e].teams as usize..main.team_end(e) {
                    if main.teams[t].home {
                        home = Some(teams.len());
                    }
                    let agents = (main.teams[t].items as usize..main.item_end(t))
                        .map(|i| main.skills[main.items[i].skill as usize].agent)
                        .collect();
                    teams.push((agents, main.teams[t].output));
                }
                let view: Vec<(&[u32], f64)> =
                    teams.iter().map(|(a, r)| (a.as_slice(), *r)).collect();
                // A skill is reverted here where it is in `main` (the same batches, so the same
                // first skill after the same absence).
                let (i0, i1) = (
                    main.teams[main.events[e].teams as usize].items as usize,
                    main.item_end(main.team_end(e) - 1),
                );
                let reverted = |a: u32| {
                    main.items[i0..i1].iter().any(|i| {
                        let sk = &main.skills[i.skill as usize];
                        sk.agent == a && sk.reverted
                    })
                };
                // The mean their step moves toward, as `main` keeps it (one per game: a game's
                // reverted skills were pushed with one `to`).
                let to = main.items[i0..i1]
                    .iter()
                    .find(|i| main.skills[i.skill as usize].reverted)
                    .map_or(self.revert.mu, |i| main.target(i.skill));
                self.push_game_reverting_to(
                    batch.time,
                    main.events[e].tag,
                    &view,
                    home,
                    &reverted,
                    to,
                )?;
            }
        }
        self.close()
    }
}
