//! `revert` and `revert_after` (docs/algorithms/ttt.md, "Revert"): the link from a player's skill
//! before an absence of at least `revert_after` to their skill at the first game after it is the
//! drift, then the step `s' = (1 - f) d + f mu + N(0, f (2 - f) sigma^2)`. Checked by hand on one
//! absence (a forecast and the traced messages of the game), against an independent
//! implementation of the whole model written here, and at `revert=0` against no revert at all.

use ladder_events::json::parse_line;
use ladder_events::Event;
use ladder_projector::{Algorithm, Feeder, PlayerId, Projector, Trace, TraceEntry};
use ladder_ttt::gauss;
use ladder_ttt::Ttt;

fn events(jsonl: &str) -> Vec<Event> {
    jsonl.lines().filter(|l| !l.trim().is_empty()).map(|l| parse_line(l).expect("valid")).collect()
}

fn configure(sets: &[(&str, &str)]) -> Ttt {
    let sets: Vec<(String, String)> =
        sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Ttt::configure(&sets).expect("valid constants")
}

fn feed(p: &mut Ttt, events: &[Event], trace: &mut Option<Trace>) -> Feeder {
    let mut feeder = Feeder::new();
    for (i, e) in events.iter().enumerate() {
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut *p], trace.as_mut()).expect("applies");
    }
    feeder
}

/// One absence: a beats b on 2 January, and meets c 120 days later (or 60, below
/// `revert_after=90d`).
const ABSENCE: &str = r#"
{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"b"}
{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"c"}
{"type":"MatchResult","at":"2026-01-02T00:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-05-02T00:00:00Z","seats":[{"player":"a","score":1},{"player":"c","score":0}]}
{"type":"MatchResult","at":"2026-03-03T00:00:00Z","seats":[{"player":"a","score":1},{"player":"c","score":0}]}
"#;

const CONSTANTS: &[(&str, &str)] =
    &[("revert", "0.5"), ("revert_after", "90d"), ("epsilon", "1e-12"), ("iterations", "100000")];

#[test]
fn a_forecast_after_an_absence_is_reverted_by_hand() {
    let all = events(ABSENCE);
    let mut p = configure(CONSTANTS);
    let feeder = feed(&mut p, &all[..4], &mut None);
    let (a, c) = (feeder.roster.get("a").unwrap(), feeder.roster.get("c").unwrap());

    // By hand. After one win of a over b, both N(0, 6^2) with beta = 1, the converged history is
    // TrueSkill's update of one game: c^2 = 2 beta^2 + 2 sigma^2 = 74, v = pdf(0) / cdf(0),
    // w = v^2, mu_a = sigma^2 / c v, sigma_a^2 = sigma^2 (1 - sigma^2 / c^2 w).
    let (sigma2, beta2, gamma) = (36.0, 1.0, 0.03);
    let c2: f64 = 2.0 * beta2 + 2.0 * sigma2;
    let v = gauss::pdf(0.0, 0.0, 1.0) / gauss::cdf(0.0, 0.0, 1.0);
    let w = v * v;
    let mu_a = sigma2 / c2.sqrt() * v;
    let var_a = sigma2 * (1.0 - sigma2 / c2 * w);
    let standing = p.standing(a).unwrap();
    assert!((standing.rating - mu_a).abs() < 1e-6, "{} vs {mu_a}", standing.rating);
    assert!((standing.sigma.unwrap() - var_a.sqrt()).abs() < 1e-6);

    // 120 days later (at least revert_after = 90d): drifted by gamma^2 120, then reverted half
    // way: mean 0.5 mu_a + 0.5 0, variance 0.25 (var_a + gamma^2 120) + 0.5 (2 - 0.5) 36. c has
    // not played: their prior. P(a beats c) = cdf(mu / sd) with sd^2 the two variances + 2 beta^2.
    let f = 0.5;
    let mean = (1.0 - f) * mu_a + f * 0.0;
    let var = (1.0 - f) * (1.0 - f) * (var_a + gamma * gamma * 120.0) + f * (2.0 - f) * sigma2;
    let want = gauss::cdf(mean / (var + sigma2 + 2.0 * beta2).sqrt(), 0.0, 1.0);
    let got = p.expectation(a, c, all[4].at);
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");

    // 60 days later: below revert_after, only the drift.
    let var = var_a + gamma * gamma * 60.0;
    let want = gauss::cdf(mu_a / (var + sigma2 + 2.0 * beta2).sqrt(), 0.0, 1.0);
    let got = p.expectation(a, c, all[5].at);
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
}

/// The value of quantity `name` of `player` in the trace's last match section.
fn traced(trace: &Trace, player: PlayerId, name: &str) -> Option<f64> {
    let start = trace
        .entries
        .iter()
        .rposition(|e| matches!(e, TraceEntry::Section(s) if s.starts_with("ttt match")))?;
    trace.entries[start..].iter().find_map(|e| match e {
        TraceEntry::Quantity { player: Some(p), name: n, value, .. }
            if *p == player && n == name =>
        {
            Some(*value)
        }
        _ => None,
    })
}

#[test]
fn the_game_after_an_absence_receives_the_reverted_forward_message_by_hand() {
    let all = events(ABSENCE);
    let mut p = configure(CONSTANTS);
    let mut trace = Some(Trace::new());
    let feeder = feed(&mut p, &all[..5], &mut trace);
    let trace = trace.unwrap();
    let (a, c) = (feeder.roster.get("a").unwrap(), feeder.roster.get("c").unwrap());
    let q = |who, name| traced(&trace, who, name).unwrap_or_else(|| panic!("{name} traced"));

    // explain shows the term with its value for the returning player only.
    assert_eq!(q(a, "revert"), 0.5);
    assert_eq!(q(a, "revert toward mu"), 0.0);
    assert_eq!(q(a, "revert toward sigma"), 6.0);
    assert_eq!(traced(&trace, c, "revert"), None, "c's first game is never reverted");
    // The forward message into a's skill on 2 May, from the converged message of 2 January
    // (forward x likelihood there, `previous`), 120 days of drift, then half way back to N(0, 36).
    assert_eq!(q(a, "elapsed"), 120.0);
    let (pm, ps) = (q(a, "previous mu"), q(a, "previous sigma"));
    let drifted = ps * ps + 0.03 * 0.03 * 120.0;
    let mean = 0.5 * pm;
    let var = 0.25 * drifted + 0.75 * 36.0;
    assert!((q(a, "forward mu") - mean).abs() < 1e-12, "{} vs {mean}", q(a, "forward mu"));
    assert!((q(a, "forward sigma") - var.sqrt()).abs() < 1e-12);
    // The likelihood of this game is TrueSkill's for the skills as the game sees them: a's
    // `within` is the forward (no later game), c's is the prior N(0, 36).
    let (wm, ws) = (q(a, "within mu"), q(a, "within sigma"));
    assert!((wm - mean).abs() < 1e-12 && (ws - var.sqrt()).abs() < 1e-12);
    let c2 = var + 36.0 + 2.0;
    let t = mean / c2.sqrt();
    let v = gauss::pdf(t, 0.0, 1.0) / gauss::cdf(t, 0.0, 1.0);
    let want = mean + var / c2.sqrt() * v;
    assert!((q(a, "posterior mu") - want).abs() < 1e-9, "{} vs {want}", q(a, "posterior mu"));
}

#[test]
fn revert_zero_leaves_every_reading_as_without_it() {
    let all = events(ABSENCE);
    let mut plain = configure(&[]);
    let mut off = configure(&[("revert", "0"), ("revert_after", "1d")]);
    feed(&mut plain, &all[..5], &mut None);
    let feeder = feed(&mut off, &all[..5], &mut None);
    assert_eq!(plain.standings(), off.standings());
    let (a, c) = (feeder.roster.get("a").unwrap(), feeder.roster.get("c").unwrap());
    assert_eq!(plain.curve(a), off.curve(a));
    let at = all[4].at;
    assert_eq!(plain.expectation(a, c, at).to_bits(), off.expectation(a, c, at).to_bits());
}

/// A Gaussian message in natural parameters, written anew here: `(tau, pi)`, `pi = 0` none.
#[derive(Clone, Copy, Debug)]
struct Msg {
    tau: f64,
    pi: f64,
}

const NONE: Msg = Msg { tau: 0.0, pi: 0.0 };

impl Msg {
    fn of(mu: f64, var: f64) -> Msg {
        Msg { tau: mu / var, pi: 1.0 / var }
    }
    fn mul(self, o: Msg) -> Msg {
        Msg { tau: self.tau + o.tau, pi: self.pi + o.pi }
    }
    fn mean_var(self) -> (f64, f64) {
        (self.tau / self.pi, 1.0 / self.pi)
    }
    fn drift(self, add: f64) -> Msg {
        if self.pi == 0.0 {
            return NONE;
        }
        let (m, v) = self.mean_var();
        Msg::of(m, v + add)
    }
}

/// TrueSkill Through Time for one-against-one wins, one game per player per instant, with the
/// reversion step, by plain message passing: every forward message along every player's chain,
/// then every backward message, then every game's two messages, until nothing moves.
fn independent(
    games: &[(f64, usize, usize)],
    players: usize,
    (mu0, sigma0, beta, gamma, f, after): (f64, f64, f64, f64, f64, f64),
) -> Vec<Vec<(f64, f64)>> {
    // Each player's chain: (game, time).
    let mut chain: Vec<Vec<(usize, f64)>> = vec![Vec::new(); players];
    for (g, &(t, w, l)) in games.iter().enumerate() {
        chain[w].push((g, t));
        chain[l].push((g, t));
    }
    let noise = f * (2.0 - f) * sigma0 * sigma0;
    let reverted = |p: usize, k: usize| k > 0 && chain[p][k].1 - chain[p][k - 1].1 >= after;
    let mut fwd: Vec<Vec<Msg>> = chain.iter().map(|c| vec![NONE; c.len()]).collect();
    let mut bwd = fwd.clone();
    let mut lik = fwd.clone();
    let node = |chain: &Vec<Vec<(usize, f64)>>, p: usize, g: usize| {
        chain[p].iter().position(|&(x, _)| x == g).expect("in chain")
    };
    for _ in 0..100_000 {
        let mut moved: f64 = 0.0;
        for p in 0..players {
            for k in 0..chain[p].len() {
                fwd[p][k] = if k == 0 {
                    Msg::of(mu0, sigma0 * sigma0)
                } else {
                    let d = fwd[p][k - 1]
                        .mul(lik[p][k - 1])
                        .drift(gamma * gamma * (chain[p][k].1 - chain[p][k - 1].1));
                    if reverted(p, k) {
                        let (m, v) = d.mean_var();
                        Msg::of((1.0 - f) * m + f * mu0, (1.0 - f) * (1.0 - f) * v + noise)
                    } else {
                        d
                    }
                };
            }
            for k in (0..chain[p].len()).rev() {
                bwd[p][k] = if k + 1 == chain[p].len() {
                    NONE
                } else {
                    let m = lik[p][k + 1].mul(bwd[p][k + 1]);
                    let m = if reverted(p, k + 1) && m.pi > 0.0 {
                        let (mm, vv) = m.mean_var();
                        Msg::of((mm - f * mu0) / (1.0 - f), (vv + noise) / ((1.0 - f) * (1.0 - f)))
                    } else {
                        m
                    };
                    m.drift(gamma * gamma * (chain[p][k + 1].1 - chain[p][k].1))
                };
            }
        }
        for (g, &(_, w, l)) in games.iter().enumerate() {
            let (kw, kl) = (node(&chain, w, g), node(&chain, l, g));
            let (mw, vw) = fwd[w][kw].mul(bwd[w][kw]).mean_var();
            let (ml, vl) = fwd[l][kl].mul(bwd[l][kl]).mean_var();
            // d = perf_w - perf_l ~ N(mw - ml, vw + vl + 2 beta^2), observed > 0: the moments of
            // the truncated normal, divided by N(mu_d, var_d), give the message to d.
            let (mu_d, var_d) = (mw - ml, vw + vl + 2.0 * beta * beta);
            let sd = var_d.sqrt();
            let t = mu_d / sd;
            let v = gauss::pdf(t, 0.0, 1.0) / gauss::cdf(t, 0.0, 1.0);
            let (mean_t, var_t) = (mu_d + sd * v, var_d * (1.0 - v * (v + t)));
            let to_d = Msg { tau: mean_t / var_t - mu_d / var_d, pi: 1.0 / var_t - 1.0 / var_d };
            let (mu_m, var_m) = to_d.mean_var();
            let new_w = Msg::of(mu_m + ml, var_m + vl + 2.0 * beta * beta);
            let new_l = Msg::of(mw - mu_m, var_m + vw + 2.0 * beta * beta);
            for (p, k, new) in [(w, kw, new_w), (l, kl, new_l)] {
                let old = lik[p][k];
                if old.pi > 0.0 {
                    let (a, b) = (old.mean_var(), new.mean_var());
                    moved = moved.max((a.0 - b.0).abs()).max((a.1 - b.1).abs());
                } else {
                    moved = f64::INFINITY;
                }
                lik[p][k] = new;
            }
        }
        if moved < 1e-13 {
            break;
        }
    }
    (0..players)
        .map(|p| {
            (0..chain[p].len())
                .map(|k| {
                    let (m, v) = fwd[p][k].mul(bwd[p][k]).mul(lik[p][k]).mean_var();
                    (m, v.sqrt())
                })
                .collect()
        })
        .collect()
}

#[test]
fn reverted_histories_match_an_independent_implementation() {
    // Four players; absences of 30 days or more (revert_after) before days 40, 41, 100 and 101.
    let games = [
        (0.0, 0, 1),
        (1.0, 2, 3),
        (2.0, 0, 2),
        (3.0, 1, 3),
        (40.0, 0, 3),
        (41.0, 1, 2),
        (42.0, 2, 0),
        (43.0, 3, 1),
        (44.0, 3, 0),
        (100.0, 1, 0),
        (101.0, 3, 2),
        (102.0, 0, 3),
        (103.0, 2, 1),
        (140.0, 2, 1),
    ];
    let names = ["a", "b", "c", "d"];
    let mut jsonl = String::new();
    for n in names {
        jsonl.push_str(&format!(
            "{{\"type\":\"PlayerJoined\",\"at\":\"2026-01-01T00:00:00Z\",\"player\":\"{n}\"}}\n"
        ));
    }
    let day0 = ladder_events::Timestamp::parse("2026-01-02T00:00:00Z").unwrap().0;
    for &(day, w, l) in &games {
        let at = ladder_events::Timestamp(day0 + (day as i64) * ladder_events::NANOS_PER_DAY);
        jsonl.push_str(&format!(
            "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"seats\":[{{\"player\":\"{}\",\"score\":1}},{{\"player\":\"{}\",\"score\":0}}]}}\n",
            names[w], names[l]
        ));
    }
    for (f, fs) in [(0.4, "0.4"), (1.0, "1"), (0.0, "0")] {
        let mut p = configure(&[
            ("mu", "1"),
            ("sigma", "5"),
            ("gamma", "0.1"),
            ("revert", fs),
            ("revert_after", "30d"),
            ("epsilon", "1e-12"),
            ("iterations", "100000"),
        ]);
        let feeder = feed(&mut p, &events(&jsonl), &mut None);
        let want = independent(&games, 4, (1.0, 5.0, 1.0, 0.1, f, 30.0));
        for (i, n) in names.iter().enumerate() {
            let id = feeder.roster.get(n).unwrap();
            let curve = p.curve(id).unwrap();
            assert_eq!(curve.len(), want[i].len(), "{n}");
            for ((_, s), (m, sd)) in curve.iter().zip(&want[i]) {
                assert!((s.rating - m).abs() < 1e-6, "revert {f}, {n}: {} vs {m}", s.rating);
                assert!((s.sigma.unwrap() - sd).abs() < 1e-6, "revert {f}, {n}");
            }
        }
    }
}

/// `revert_to=field`: a (rated N(2, 1)) beats b (unrated) on 1 March, c beats d (both
/// unrated) on 3 March, and a, away four days, meets d on 5 March.
const FIELD: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"a","rating":2,"rd":1}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"b"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"c"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"d"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-03T10:00:00Z","seats":[{"player":"c","score":1},{"player":"d","score":0}]}
{"type":"MatchResult","at":"2026-03-05T10:00:00Z","seats":[{"player":"a","score":1},{"player":"d","score":0}]}
"#;

/// `sigma = beta = 1`, `gamma = 0`, half way back after three days, toward the field or `mu`.
fn field_constants(to: &str) -> Vec<(&str, &str)> {
    vec![
        ("sigma", "1"),
        ("gamma", "0"),
        ("revert", "0.5"),
        ("revert_after", "3d"),
        ("revert_to", to),
        ("debut", "field"),
        ("debut_offset", "0"),
        ("epsilon", "1e-12"),
        ("iterations", "100000"),
    ]
}

/// TrueSkill's one-game update of a winner N(mw, 1) and a loser N(ml, 1) at beta = 1:
/// `c = 2`, `t = (mw - ml) / c`, `v = pdf(t) / cdf(t)`, `w = v (v + t)`; each mean moves by
/// `v / c` and each variance becomes `1 - w / c^2`. Returns (winner's mean, loser's mean,
/// either's variance).
fn one_game(mw: f64, ml: f64) -> (f64, f64, f64) {
    let c = 2.0;
    let t = (mw - ml) / c;
    let v = gauss::pdf(t, 0.0, 1.0) / gauss::cdf(t, 0.0, 1.0);
    let w = v * (v + t);
    (mw + v / c, ml - v / c, 1.0 - w / (c * c))
}

#[test]
fn a_forecast_after_an_absence_is_reverted_toward_the_field_by_hand() {
    // docs/algorithms/ttt.md, "Revert". On 5 March the field is the players whose latest game
    // before the day is in a closed batch within the window: the batch of 3 March is still open
    // (its game not yet iterated), so c and d do not count, and a and b count with their
    // filtered skills of 1 March, TrueSkill's one-game update of N(2, 1) beating N(0, 1) (b
    // entered at mu: no field on 1 March). Their means move by the same amount in opposite
    // directions, so the field is exactly (2 + 0) / 2 = 1.
    let all = events(FIELD);
    let mut p = configure(&field_constants("field"));
    let feeder = feed(&mut p, &all[..6], &mut None);
    let (a, d) = (feeder.roster.get("a").unwrap(), feeder.roster.get("d").unwrap());
    let (mu_a, _, var) = one_game(2.0, 0.0);
    let (_, mu_d, var_d) = one_game(0.0, 0.0);
    // a, away four days (at least revert_after), moves half way back to the field (1), and its
    // variance half way in the step's terms: 0.25 var + 0.5 (2 - 0.5) sigma^2. d's last game
    // was two days before: not reverted (and gamma = 0: no drift either).
    let field = 1.0;
    let mean = 0.5 * mu_a + 0.5 * field;
    let var_a = 0.25 * var + 0.75;
    let want = gauss::cdf((mean - mu_d) / (var_a + var_d + 2.0).sqrt(), 0.0, 1.0);
    let got = p.expectation(a, d, all[6].at);
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");

    // Toward mu (the default) the same absence moves a half way to 0 instead.
    let mut to_mu = configure(&field_constants("mu"));
    feed(&mut to_mu, &all[..6], &mut None);
    let mean = 0.5 * mu_a;
    let want_mu = gauss::cdf((mean - mu_d) / (var_a + var_d + 2.0).sqrt(), 0.0, 1.0);
    let got_mu = to_mu.expectation(a, d, all[6].at);
    assert!((got_mu - want_mu).abs() < 1e-9, "{got_mu} vs {want_mu}");
    assert!(got > got_mu + 0.05, "a field above mu keeps more of a's lead: {got} vs {got_mu}");
}

#[test]
fn the_game_after_an_absence_is_reverted_toward_the_fields_mean_it_shows() {
    // The traced game of 5 March: a's forward message is the message of 1 March (`previous`)
    // moved half way to the field, 1 as worked above, and `explain` shows that mean.
    let all = events(FIELD);
    let mut p = configure(&field_constants("field"));
    let mut trace = Some(Trace::new());
    let feeder = feed(&mut p, &all, &mut trace);
    let trace = trace.unwrap();
    let (a, d) = (feeder.roster.get("a").unwrap(), feeder.roster.get("d").unwrap());
    let q = |who, name| traced(&trace, who, name).unwrap_or_else(|| panic!("{name} traced"));
    assert_eq!(q(a, "revert"), 0.5);
    assert!((q(a, "revert toward field") - 1.0).abs() < 1e-12, "{}", q(a, "revert toward field"));
    assert_eq!(traced(&trace, a, "revert toward mu"), None);
    assert_eq!(traced(&trace, d, "revert"), None, "d's absence is shorter than revert_after");
    let (pm, ps) = (q(a, "previous mu"), q(a, "previous sigma"));
    let mean = 0.5 * pm + 0.5 * 1.0;
    let var = 0.25 * ps * ps + 0.75;
    assert!((q(a, "forward mu") - mean).abs() < 1e-12, "{} vs {mean}", q(a, "forward mu"));
    assert!((q(a, "forward sigma") - var.sqrt()).abs() < 1e-12);
}

#[test]
fn revert_to_field_is_echoed_only_when_it_acts() {
    let keys = |p: &Ttt| p.config().echoed().iter().map(|(k, _)| *k).collect::<Vec<_>>();
    // The default is not echoed, so digests of replays without it stay as they were; nor is
    // `field` while revert is 0 (it then changes nothing), and then it changes no reading.
    let plain = configure(&[("revert", "0.5")]);
    assert!(!keys(&plain).contains(&"revert_to"), "{:?}", keys(&plain));
    let idle = configure(&[("revert_to", "field")]);
    assert!(!keys(&idle).iter().any(|k| k.starts_with("revert")), "{:?}", keys(&idle));
    assert!(!keys(&idle).contains(&"debut_window"), "{:?}", keys(&idle));
    // On, it is echoed with the window that makes its field, with debut=prior too.
    let on = configure(&[("revert", "0.5"), ("revert_to", "field")]);
    for k in ["revert_to", "debut_window"] {
        assert!(keys(&on).contains(&k), "{:?}", keys(&on));
    }
    assert!(!keys(&on).contains(&"debut"), "{:?}", keys(&on));
    let all = events(FIELD);
    let mut a = configure(&[("revert_to", "field"), ("revert_after", "1d")]);
    let mut b = configure(&[("revert_after", "1d")]);
    feed(&mut a, &all, &mut None);
    feed(&mut b, &all, &mut None);
    assert_eq!(a.standings(), b.standings());
}

#[test]
fn revert_to_field_reverts_toward_the_field_under_debut_prior_too() {
    // debut=prior: b, c and d enter at mu whatever the field, but a returning a still moves
    // half way to the field of 5 March, 1 as worked above (the field does not depend on debut
    // here: no one debuts after a field exists).
    let all = events(FIELD);
    let mut sets = field_constants("field");
    sets.retain(|(k, _)| !k.starts_with("debut"));
    let mut p = configure(&sets);
    let feeder = feed(&mut p, &all[..6], &mut None);
    let (a, d) = (feeder.roster.get("a").unwrap(), feeder.roster.get("d").unwrap());
    let (mu_a, _, var) = one_game(2.0, 0.0);
    let (_, mu_d, var_d) = one_game(0.0, 0.0);
    let mean = 0.5 * mu_a + 0.5 * 1.0;
    let var_a = 0.25 * var + 0.75;
    let want = gauss::cdf((mean - mu_d) / (var_a + var_d + 2.0).sqrt(), 0.0, 1.0);
    let got = p.expectation(a, d, all[6].at);
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
}
