//! One game's likelihood messages: the factor graph of a single TrueSkill game (Herbrich, Minka &
//! Graepel, "TrueSkill: A Bayesian Skill Rating System", NIPS 2006), solved as the reference
//! package `trueskillthroughtime` 1.1.0 solves it: in closed form for two teams
//! (`likelihood_analitico`), by expectation propagation along the chain of performance
//! differences for more (`likelihood_teams`, at most 10 rounds, stopping below 1e-6).

use crate::gauss::{self, Ms, NINF};

/// One team of a game as the game sees it: a range of the game's items and its result (a higher
/// result ranks higher; equal results are a draw).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TeamIn {
    /// First item of the team.
    pub start: usize,
    /// One past its last item.
    pub end: usize,
    /// The team's result.
    pub output: f64,
    /// Added to the mean of the team's performance (the home advantage; 0 on neutral ground).
    pub offset: f64,
}

/// The constants a game needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameParams {
    /// Performance noise of every player.
    pub beta: f64,
    /// Probability of a draw between two sides of equal skill.
    pub p_draw: f64,
}

/// Reused buffers for games of more than two teams.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    order: Vec<usize>,
    vars: Vec<TeamVar>,
    diffs: Vec<Diff>,
    tie: Vec<bool>,
    margin: Vec<f64>,
    perf: Vec<Ms>,
}

#[derive(Clone, Copy, Debug)]
struct TeamVar {
    prior: Ms,
    likelihood_lose: Ms,
    likelihood_win: Ms,
}

impl TeamVar {
    fn posterior_win(&self) -> Ms {
        self.prior.times(self.likelihood_lose).times(NINF)
    }
    fn posterior_lose(&self) -> Ms {
        self.prior.times(self.likelihood_win).times(NINF)
    }
    fn likelihood(&self) -> Ms {
        self.likelihood_win.times(self.likelihood_lose).times(NINF)
    }
}

#[derive(Clone, Copy, Debug)]
struct Diff {
    prior: Ms,
    likelihood: Ms,
}

/// A team's performance: the sum over its players of `N(mu, sigma^2 + beta^2)`, its mean moved by
/// the team's offset (home advantage).
fn performance(priors: &[Ms], team: TeamIn, beta: f64) -> Ms {
    let mut res = Ms { mu: team.offset, sigma: 0.0 };
    for p in &priors[team.start..team.end] {
        res = res.plus(Ms { mu: p.mu, sigma: (p.sigma * p.sigma + beta * beta).sqrt() });
    }
    res
}

fn draw_margin(params: GameParams, a: TeamIn, b: TeamIn) -> f64 {
    if params.p_draw == 0.0 {
        return 0.0;
    }
    let beta2 = params.beta * params.beta;
    let sa: f64 = (a.start..a.end).map(|_| beta2).sum();
    let sb: f64 = (b.start..b.end).map(|_| beta2).sum();
    gauss::margin(params.p_draw, (sa + sb).sqrt())
}

fn approx(n: Ms, margin: f64, tie: bool) -> Ms {
    let (mu, sigma) = trunc(n.mu, n.sigma, margin, tie);
    Ms { mu, sigma }
}

/// [`gauss::trunc`], with a draw under `p_draw = 0` (margin 0) taken as its limit: the two
/// performances were equal, so the difference is exactly 0 (the package refuses such a game;
/// docs/algorithms/ttt.md, "Draws").
fn trunc(mu: f64, sigma: f64, margin: f64, tie: bool) -> (f64, f64) {
    if tie && margin == 0.0 {
        (0.0, 0.0)
    } else {
        gauss::trunc(mu, sigma, margin, tie)
    }
}

/// `approx(prior) / prior`: the message of a difference's factor. A point observation (the limit
/// draw) is the point mass itself, which the quotient in natural parameters cannot express.
fn diff_message(prior: Ms, margin: f64, tie: bool) -> Ms {
    let a = approx(prior, margin, tie);
    if a.sigma == 0.0 {
        a
    } else {
        a.over(prior)
    }
}

/// The likelihood message of every item of a game, written into `out` (one per item of
/// `priors`): `priors` are the items' skills as the game sees them (the package's within-batch
/// priors), `teams` the teams in the order written.
pub fn likelihoods(
    priors: &[Ms],
    teams: &[TeamIn],
    params: GameParams,
    scratch: &mut Scratch,
    out: &mut [Ms],
) {
    if teams.len() == 2 {
        two_teams(priors, teams[0], teams[1], params, out);
    } else {
        many_teams(priors, teams, params, scratch, out);
    }
}

/// The closed form for two teams (the package's `likelihood_analitico`).
fn two_teams(priors: &[Ms], a: TeamIn, b: TeamIn, params: GameParams, out: &mut [Ms]) {
    // The package sorts by result, highest first, keeping the written order on a tie.
    let (first, second) = if a.output >= b.output { (a, b) } else { (b, a) };
    let tie = a.output == b.output;
    let t0 = performance(priors, first, params.beta);
    let t1 = performance(priors, second, params.beta);
    let d = t0.minus(t1);
    let margin = draw_margin(params, first, second);
    let (mu_trunc, sigma_trunc) = trunc(d.mu, d.sigma, margin, tie);
    let d_var = d.sigma * d.sigma;
    let t_var = sigma_trunc * sigma_trunc;
    let (delta_div, theta_div_pow2) = if d.sigma == sigma_trunc {
        (d_var * mu_trunc - t_var * d.mu, f64::INFINITY)
    } else {
        ((d_var * mu_trunc - t_var * d.mu) / (d_var - t_var), (t_var * d_var) / (d_var - t_var))
    };
    for (team, sign) in [(first, 1.0), (second, -1.0)] {
        for j in team.start..team.end {
            let p = priors[j];
            let mu = if d.sigma == sigma_trunc { 0.0 } else { p.mu + (delta_div - d.mu) * sign };
            let sigma = (theta_div_pow2 + d_var - p.sigma * p.sigma).sqrt();
            out[j] = Ms { mu, sigma };
        }
    }
}

/// Expectation propagation along the chain of differences between consecutive teams in finishing
/// order (the package's `likelihood_teams`), then each player's message (the team's message less
/// the rest of the team's performance).
fn many_teams(
    priors: &[Ms],
    teams: &[TeamIn],
    params: GameParams,
    s: &mut Scratch,
    out: &mut [Ms],
) {
    let n = teams.len();
    s.order.clear();
    s.order.extend(0..n);
    // Highest result first; a stable sort keeps the written order among equal results.
    s.order.sort_by(|&x, &y| teams[y].output.total_cmp(&teams[x].output));
    s.perf.clear();
    s.perf.extend(teams.iter().map(|&t| performance(priors, t, params.beta)));
    s.vars.clear();
    s.vars.extend(s.order.iter().map(|&o| TeamVar {
        prior: s.perf[o],
        likelihood_lose: NINF,
        likelihood_win: NINF,
    }));
    s.diffs.clear();
    s.tie.clear();
    s.margin.clear();
    for e in 0..n - 1 {
        s.diffs.push(Diff { prior: s.vars[e].prior.minus(s.vars[e + 1].prior), likelihood: NINF });
        let (x, y) = (teams[s.order[e]], teams[s.order[e + 1]]);
        s.tie.push(x.output == y.output);
        s.margin.push(draw_margin(params, x, y));
    }
    let nd = n - 1;
    let (vars, diffs) = (&mut s.vars, &mut s.diffs);
    let mut step = (f64::INFINITY, f64::INFINITY);
    let mut i = 0;
    while (step.0 > 1e-6 || step.1 > 1e-6) && i < 10 {
        step = (0.0, 0.0);
        for e in 0..nd - 1 {
            diffs[e].prior = vars[e].posterior_win().minus(vars[e + 1].posterior_lose());
            diffs[e].likelihood = diff_message(diffs[e].prior, s.margin[e], s.tie[e]);
            let likelihood_lose = vars[e].posterior_win().minus(diffs[e].likelihood);
            let dl = vars[e + 1].likelihood_lose.delta(likelihood_lose);
            step = (step.0.max(dl.0), step.1.max(dl.1));
            vars[e + 1].likelihood_lose = likelihood_lose;
        }
        for e in (1..nd).rev() {
            diffs[e].prior = vars[e].posterior_win().minus(vars[e + 1].posterior_lose());
            diffs[e].likelihood = diff_message(diffs[e].prior, s.margin[e], s.tie[e]);
            let likelihood_win = vars[e + 1].posterior_lose().plus(diffs[e].likelihood);
            let dw = vars[e].likelihood_win.delta(likelihood_win);
            step = (step.0.max(dw.0), step.1.max(dw.1));
            vars[e].likelihood_win = likelihood_win;
        }
        i += 1;
    }
    if nd == 1 {
        diffs[0].prior = vars[0].posterior_win().minus(vars[1].posterior_lose());
        diffs[0].likelihood = diff_message(diffs[0].prior, s.margin[0], s.tie[0]);
    }
    vars[0].likelihood_win = vars[1].posterior_lose().plus(diffs[0].likelihood);
    vars[n - 1].likelihood_lose = vars[n - 2].posterior_win().minus(diffs[nd - 1].likelihood);
    // Team `order[e]` sits at position e of the chain. (The package 1.1.0 reads position
    // `order[e]` for team e, which is the same whenever the teams are written in finishing order
    // or the order is its own inverse; docs/algorithms/ttt.md.)
    for (pos, &team_index) in s.order.iter().enumerate() {
        let team = teams[team_index];
        let m = vars[pos].likelihood();
        let perf = s.perf[team_index];
        for j in team.start..team.end {
            out[j] = m.minus(perf.exclude(priors[j]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_on_one_win_moves_the_winner_up_by_trueskills_formula() {
        // Herbrich et al. 2006: for 1 vs 1 with priors N(0, 6^2) and beta 1, the winner's posterior
        // mean is mu + sigma^2 / c v(t), c^2 = 2 beta^2 + 2 sigma^2 = 74, t = 0, v(0) = pdf(0) /
        // cdf(0) = 2 pdf(0). The likelihood message times the prior must give that posterior.
        let priors = [Ms { mu: 0.0, sigma: 6.0 }, Ms { mu: 0.0, sigma: 6.0 }];
        let teams = [
            TeamIn { start: 0, end: 1, output: 1.0, offset: 0.0 },
            TeamIn { start: 1, end: 2, output: 0.0, offset: 0.0 },
        ];
        let mut out = [NINF; 2];
        let params = GameParams { beta: 1.0, p_draw: 0.0 };
        likelihoods(&priors, &teams, params, &mut Scratch::default(), &mut out);
        let post = out[0].times(priors[0]);
        let c = 74f64.sqrt();
        let v = gauss::pdf(0.0, 0.0, 1.0) / gauss::cdf(0.0, 0.0, 1.0);
        let want = 36.0 / c * v;
        assert!((post.mu - want).abs() < 1e-12, "{} vs {want}", post.mu);
        let loser = out[1].times(priors[1]);
        assert!((loser.mu + want).abs() < 1e-12);
    }

    #[test]
    fn a_home_win_moves_the_winner_by_trueskills_formula_with_the_offset() {
        // Herbrich et al. 2006 with the difference's mean moved by the home advantage h: priors
        // N(0, 6^2), beta 1, h = 1 on the winner's side: d ~ N(h, c^2), c^2 = 2 beta^2 + 2 sigma^2
        // = 74, t = h / c, v(t) = pdf(t) / cdf(t), w(t) = v (v + t). The winner's posterior is
        // mean sigma^2 / c v(t), variance sigma^2 (1 - sigma^2 / c^2 w(t)); the loser's mirrors.
        let priors = [Ms { mu: 0.0, sigma: 6.0 }, Ms { mu: 0.0, sigma: 6.0 }];
        let teams = [
            TeamIn { start: 0, end: 1, output: 1.0, offset: 1.0 },
            TeamIn { start: 1, end: 2, output: 0.0, offset: 0.0 },
        ];
        let mut out = [NINF; 2];
        let params = GameParams { beta: 1.0, p_draw: 0.0 };
        likelihoods(&priors, &teams, params, &mut Scratch::default(), &mut out);
        let c = 74f64.sqrt();
        let t = 1.0 / c;
        let v = gauss::pdf(t, 0.0, 1.0) / gauss::cdf(t, 0.0, 1.0);
        let w = v * (v + t);
        let post = out[0].times(priors[0]);
        assert!((post.mu - 36.0 / c * v).abs() < 1e-12, "{} vs {}", post.mu, 36.0 / c * v);
        let sd = (36.0 * (1.0 - 36.0 / 74.0 * w)).sqrt();
        assert!((post.sigma - sd).abs() < 1e-12, "{} vs {sd}", post.sigma);
        let loser = out[1].times(priors[1]);
        assert!((loser.mu + 36.0 / c * v).abs() < 1e-12);
        // An expected win (at home) teaches less than a neutral one.
        let neutral = [
            TeamIn { start: 0, end: 1, output: 1.0, offset: 0.0 },
            TeamIn { start: 1, end: 2, output: 0.0, offset: 0.0 },
        ];
        likelihoods(&priors, &neutral, params, &mut Scratch::default(), &mut out);
        assert!(out[0].times(priors[0]).mu > post.mu);
    }

    #[test]
    fn three_teams_in_any_written_order_get_the_same_messages() {
        let priors =
            [Ms { mu: 1.0, sigma: 2.0 }, Ms { mu: 0.0, sigma: 3.0 }, Ms { mu: -1.0, sigma: 1.5 }];
        let params = GameParams { beta: 1.0, p_draw: 0.0 };
        let mut out = [NINF; 3];
        let teams = [
            TeamIn { start: 0, end: 1, output: 3.0, offset: 0.0 },
            TeamIn { start: 1, end: 2, output: 2.0, offset: 0.0 },
            TeamIn { start: 2, end: 3, output: 1.0, offset: 0.0 },
        ];
        likelihoods(&priors, &teams, params, &mut Scratch::default(), &mut out);
        // The same game written in the order 2, 0, 1 (a permutation that is not its own inverse).
        let priors2 = [priors[2], priors[0], priors[1]];
        let teams2 = [
            TeamIn { start: 0, end: 1, output: 1.0, offset: 0.0 },
            TeamIn { start: 1, end: 2, output: 3.0, offset: 0.0 },
            TeamIn { start: 2, end: 3, output: 2.0, offset: 0.0 },
        ];
        let mut out2 = [NINF; 3];
        likelihoods(&priors2, &teams2, params, &mut Scratch::default(), &mut out2);
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            assert!((out[a].mu - out2[b].mu).abs() < 1e-12);
            assert!((out[a].sigma - out2[b].sigma).abs() < 1e-12);
        }
    }
}
