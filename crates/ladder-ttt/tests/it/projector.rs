//! The projector through ladder's own steps: forecasts see only the days before, readings do not
//! depend on what was read before, draws under `p_draw = 0` are the limit of small `p_draw`.

use ladder_events::json::parse_line;
use ladder_events::{Event, Timestamp};
use ladder_projector::{Algorithm, Feeder, Home, PlayerId, Projector, Trace, TraceEntry};
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

/// Feeds `events` (sequence numbers from 1); returns the feeder, whose roster names the players.
fn feed(p: &mut Ttt, events: &[Event]) -> Feeder {
    let mut feeder = Feeder::new();
    for (i, e) in events.iter().enumerate() {
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut *p], None).expect("applies");
    }
    feeder
}

const DAYS: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"b"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"c"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"c","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-02T12:00:00Z","seats":[{"player":"a","score":0},{"player":"c","score":1}]}
{"type":"MatchResult","at":"2026-03-02T18:00:00Z","seats":[{"player":"b","score":1},{"player":"a","score":0}]}
{"type":"MatchResult","at":"2026-03-04T09:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-04T15:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
"#;

/// Converged tightly, so that two ways of reaching the fixed point agree far below 1e-6.
const TIGHT: &[(&str, &str)] = &[("epsilon", "1e-12"), ("iterations", "100000"), ("gamma", "0.2")];

#[test]
fn a_forecast_uses_only_the_games_before_the_matchs_day() {
    let all = events(DAYS);
    // The second game of 4 March, forecast after the first game of that day was applied.
    let mut p = configure(TIGHT);
    let feeder = feed(&mut p, &all[..8]);
    let (a, b) = (feeder.roster.get("a").unwrap(), feeder.roster.get("b").unwrap());
    let at = all[8].at;
    let got = p.expectation(a, b, at);

    // By hand, from the history before 4 March alone: each skill is the posterior at the
    // player's last game (2 March, 18:00 for both), drifted by gamma^2 per day to 15:00 on
    // 4 March, and P(a beats b) = Phi((mu_a - mu_b) / sqrt(s_a^2 + s_b^2 + 2 beta^2)).
    let mut before = configure(TIGHT);
    feed(&mut before, &all[..7]);
    before.settle(7, None).unwrap();
    let sa = before.standing(a).unwrap();
    let sb = before.standing(b).unwrap();
    let days = (at.0 - Timestamp::parse("2026-03-02T18:00:00Z").unwrap().0) as f64 / 86_400e9;
    let var = |s: f64| s * s + days * 0.2 * 0.2;
    let sd = (var(sa.sigma.unwrap()) + var(sb.sigma.unwrap()) + 2.0).sqrt();
    let want = 1.0 - gauss::cdf(0.0, sa.rating - sb.rating, sd);
    assert!((got - want).abs() < 1e-9, "forecast {got}, by hand {want}");

    // The game of 4 March 09:00 (a beat b) changed what the whole history says about a, but not
    // the forecast of the same day.
    p.settle(8, None).unwrap();
    assert!((p.standing(a).unwrap().rating - sa.rating).abs() > 1e-3);
}

#[test]
fn readings_do_not_depend_on_what_was_read_before() {
    let all = events(DAYS);
    let mut quiet = configure(&[]);
    let feeder = feed(&mut quiet, &all);
    quiet.settle(all.len() as u64, None).unwrap();
    // The same history with a reading and a forecast after every event.
    let mut busy = configure(&[]);
    let mut f = Feeder::new();
    for (i, e) in all.iter().enumerate() {
        f.feed(i as u64 + 1, e, &|_| false, &mut [&mut busy], None).unwrap();
        let _ = busy.standings();
        if let (Some(a), Some(b)) = (f.roster.get("a"), f.roster.get("b")) {
            let _ = busy.expectation(a, b, e.at);
        }
    }
    busy.settle(all.len() as u64, None).unwrap();
    for id in ["a", "b", "c"].map(|n| feeder.roster.get(n).unwrap()) {
        assert_eq!(quiet.standing(id), busy.standing(id), "bit for bit");
    }
}

#[test]
fn a_draw_under_p_draw_zero_is_the_limit_of_small_p_draw() {
    let draw = r#"
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"b","rating":2,"rd":1}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":0.5},{"player":"b","score":0.5}]}
"#;
    let all = events(draw);
    let mut limit = configure(&[]);
    let feeder = feed(&mut limit, &all);
    let a = feeder.roster.get("a").unwrap();
    // By hand: the difference of performances is d = p_a - p_b ~ N(0 - 2, 36 + 1 + 1 + 1), and
    // a draw in the limit observes d = 0, so E[a | d = 0] = 0 + cov(a, d) / var(d) (0 - (-2))
    // = 36 / 39 * 2, Var[a | d = 0] = 36 - 36^2 / 39.
    let s = limit.standing(a).unwrap();
    assert!((s.rating - 72.0 / 39.0).abs() < 1e-12, "{}", s.rating);
    assert!((s.sigma.unwrap() - (36.0f64 - 36.0 * 36.0 / 39.0).sqrt()).abs() < 1e-12);
    // The package with p_draw = 0.01 on the same game gives mu 1.846147941627881, sigma
    // 1.6641330473428395 (trueskillthroughtime 1.1.0, History([[["a"], ["b"]]], [[0, 0]], [0],
    // {"b": Player(Gaussian(2, 1), 1, 0.03)}, p_draw=0.01).convergence()): within 1e-5.
    let mut small = configure(&[("p_draw", "0.01")]);
    feed(&mut small, &all);
    let y = small.standing(a).unwrap();
    assert!((y.rating - 1.846147941627881).abs() < 1e-9, "{}", y.rating);
    assert!(
        (s.rating - y.rating).abs() < 1e-5 && (s.sigma.unwrap() - y.sigma.unwrap()).abs() < 1e-4
    );
}

#[test]
fn a_checkpoint_restores_the_same_readings() {
    let all = events(DAYS);
    let mut p = configure(&[]);
    let feeder = feed(&mut p, &all[..5]);
    let mut q = Ttt::restore(p.config().clone(), p.state().clone()).expect("fits");
    let mut f = Feeder::with_roster(feeder.roster.clone());
    for (i, e) in all.iter().enumerate().skip(5) {
        f.feed(i as u64 + 1, e, &|_| false, &mut [&mut q, &mut p], None).unwrap();
    }
    assert_eq!(p.standings(), q.standings());
    let other = configure(&[("beta", "2")]);
    assert!(Ttt::restore(other.config().clone(), p.state().clone()).is_err());
}

const HOME: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"b"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1,"home":true},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-03T10:00:00Z","seats":[{"player":"a","score":0},{"player":"b","score":1,"home":true}]}
"#;

#[test]
fn home_moves_a_forecast_by_hand() {
    // Before any game both skills are the prior N(0, 6^2); with beta 1 and home h = 1 on a,
    // P(a wins) = Phi(h / sqrt(6^2 + 6^2 + 2)) = Phi(1 / sqrt(74)) = Phi(0.11624763874381928)
    // = 0.5462718588045324 (Python: 0.5 * (1 + math.erf(x / math.sqrt(2)))). The projector takes
    // Phi from the package's erfc (Numerical Recipes' fit, fractional error below 1.2e-7), so
    // the two agree to 1e-7, not to the last digit.
    let all = events(HOME);
    let mut p = configure(&[("home", "1")]);
    let feeder = feed(&mut p, &all[..2]);
    let (a, b) = (feeder.roster.get("a").unwrap(), feeder.roster.get("b").unwrap());
    let at = all[2].at;
    let got = p.expectation_at(a, b, at, Home::First);
    assert!((got - 0.5462718588045324).abs() < 1e-7, "{got}");
    let got = p.expectation_at(a, b, at, Home::Second);
    assert!((got - (1.0 - 0.5462718588045324)).abs() < 1e-7, "{got}");
    let got = p.expectation_at(a, b, at, Home::Neither);
    assert!((got - 0.5).abs() < 1e-7, "{got}");
}

#[test]
fn home_zero_leaves_a_replay_as_it_was_and_home_wins_teach_less() {
    let all = events(HOME);
    let neutral: String = HOME.replace(r#","home":true"#, "");
    let standings = |jsonl: &str, sets: &[(&str, &str)]| {
        let mut p = configure(sets);
        feed(&mut p, &events(jsonl));
        p.standings()
    };
    // home = 0: the home seats change nothing, bit for bit.
    assert_eq!(standings(HOME, &[]), standings(&neutral, &[]));
    // The first game alone: a won at home; with home = 1 that win was more expected, so a ends
    // lower than after a neutral win.
    let first: String = HOME.lines().take(4).collect::<Vec<_>>().join("\n");
    let at_home = standings(&first, &[("home", "1")]);
    let plain = standings(&first, &[]);
    assert!(at_home[0].rating < plain[0].rating, "{} vs {}", at_home[0].rating, plain[0].rating);
    assert_eq!(all.len(), 4);
}

/// Two weeks of a small club: each day a few games between seven players, some of whom join
/// late, at hours that put several games of a day at one instant and others apart.
fn club() -> String {
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let mut out = String::new();
    for n in &names[..5] {
        out.push_str(&format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"{n}"}}"#
        ));
        out.push('\n');
    }
    // A fixed pseudo-random sequence (a linear congruential generator, Knuth's MMIX constants),
    // so the history is the same on every run.
    let mut x: u64 = 7;
    let mut next = |n: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    for day in 1..=14 {
        if day == 6 {
            for n in &names[5..] {
                out.push_str(&format!(
                    r#"{{"type":"PlayerJoined","at":"2026-03-06T07:00:00Z","player":"{n}"}}"#
                ));
                out.push('\n');
            }
        }
        let playing = if day >= 6 { 7 } else { 5 };
        for g in 0..4 {
            let a = next(playing) as usize;
            let b = (a + 1 + next(playing - 1) as usize) % playing as usize;
            let hour = 9 + 3 * (g / 2);
            let won = next(2);
            out.push_str(&format!(
                r#"{{"type":"MatchResult","at":"2026-03-{day:02}T{hour:02}:00:00Z","seats":[{{"player":"{}","score":{won}}},{{"player":"{}","score":{}}}]}}"#,
                names[a],
                names[b],
                1 - won
            ));
            out.push('\n');
        }
    }
    out
}

#[test]
fn a_days_forecasts_do_not_depend_on_which_pairs_were_asked_before() {
    // A forecast reads only its own two players from the day's model; asking every pair of the
    // club in one order or the reverse, or only one pair, gives the same bits for every pair.
    let all = events(&club());
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let sets = [("epsilon", "0.01"), ("iterations", "10")];
    let (mut forward, mut backward, mut alone) =
        (configure(&sets), configure(&sets), configure(&sets));
    let mut feeder = Feeder::new();
    let mut asked = 0;
    for (i, e) in all.iter().enumerate() {
        feeder
            .feed(i as u64 + 1, e, &|_| false, &mut [&mut forward, &mut backward, &mut alone], None)
            .unwrap();
        let ids: Vec<_> = names.iter().filter_map(|n| feeder.roster.get(n)).collect();
        let pairs: Vec<_> = ids
            .iter()
            .flat_map(|&a| ids.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
            .collect();
        let got: Vec<u64> =
            pairs.iter().map(|&(a, b)| forward.expectation(a, b, e.at).to_bits()).collect();
        let mut reversed: Vec<u64> =
            pairs.iter().rev().map(|&(a, b)| backward.expectation(a, b, e.at).to_bits()).collect();
        reversed.reverse();
        assert_eq!(got, reversed, "event {}", i + 1);
        // A projector asked only one pair at each event (so it built the same days' models)
        // agrees too.
        if !pairs.is_empty() {
            let k = i % pairs.len();
            let (a, b) = pairs[k];
            assert_eq!(alone.expectation(a, b, e.at).to_bits(), got[k], "event {}", i + 1);
            asked += 1;
        }
    }
    assert!(asked > 50, "{asked}");
}

#[test]
fn mu_shifts_every_rating_and_leaves_every_forecast_as_it_was() {
    // With no player's prior given (as `--auto-join` writes them), every player starts at mu:
    // mu moves the whole scale, so a rating moves by the shift and a forecast, which reads a
    // difference of two skills, does not move (to rounding). With revert on too: it pulls toward
    // mu. So `tune` has nothing to find in mu (docs/algorithms/ttt.md, "Constants"). With
    // debut=field too: the field's mean moves with the scale, so a debutant's prior does.
    let all = events(&club());
    let mut ratings = Vec::new();
    for (revert, debut) in [("0", "prior"), ("0.3", "prior"), ("0", "field"), ("0.3", "field")] {
        let base = vec![
            ("revert", revert),
            ("revert_after", "2d"),
            ("gamma", "0.1"),
            ("debut", debut),
            ("debut_offset", "0.6"),
            ("debut_window", "3d"),
        ];
        let mut at0 = configure(&base);
        let mut shifted = configure(&[base.as_slice(), &[("mu", "3.5")]].concat());
        let mut f0 = Feeder::new();
        let mut f1 = Feeder::new();
        let mut forecasts = 0;
        for (i, e) in all.iter().enumerate() {
            f0.feed(i as u64 + 1, e, &|_| false, &mut [&mut at0], None).unwrap();
            f1.feed(i as u64 + 1, e, &|_| false, &mut [&mut shifted], None).unwrap();
            if let (Some(a), Some(g)) = (f0.roster.get("a"), f0.roster.get("g")) {
                let (p, q) = (at0.expectation(a, g, e.at), shifted.expectation(a, g, e.at));
                assert!((p - q).abs() < 1e-9, "{revert} {debut}, event {}: {p} vs {q}", i + 1);
                forecasts += 1;
            }
        }
        assert!(forecasts > 30);
        for (s, t) in at0.standings().iter().zip(shifted.standings()) {
            assert!((t.rating - s.rating - 3.5).abs() < 1e-9, "{} vs {}", s.rating, t.rating);
            assert!((t.sigma.unwrap() - s.sigma.unwrap()).abs() < 1e-9);
        }
        ratings.push(at0.standings().iter().map(|s| s.rating).collect::<Vec<_>>());
    }
    // The club has debutants after the first day (f and g), so debut=field is not idle here.
    assert!(ratings[0].iter().zip(&ratings[2]).any(|(a, b)| (a - b).abs() > 1e-3));
    assert!(ratings[1].iter().zip(&ratings[3]).any(|(a, b)| (a - b).abs() > 1e-3));
}

#[test]
fn beta_with_sigma_and_gamma_is_only_the_unit_of_skill() {
    // With every prior at mu = 0, multiplying beta, sigma and gamma by one factor multiplies every
    // skill by it (every message is a Gaussian in the same units) and leaves every forecast as
    // it was (a forecast reads (mu_a - mu_b) / sd, both in those units): beta = 1 fixes the unit,
    // and `tune` searches sigma and gamma in it (docs/algorithms/ttt.md, "Tuning"). With revert
    // too: it pulls toward mu = 0 with the prior's sigma, scaled alike. With debut=field too:
    // the field's mean is in the same units, and debut_offset is scaled alike.
    let all = events(&club());
    for (revert, debut) in [("0", "prior"), ("0.3", "prior"), ("0", "field"), ("0.3", "field")] {
        // Converged far below the tolerance: epsilon is in skill units, so at a looser epsilon
        // the two would stop after different numbers of sweeps.
        let tight = [("epsilon", "1e-13"), ("iterations", "100000")];
        let one = [
            ("sigma", "0.8"),
            ("gamma", "0.05"),
            ("revert", revert),
            ("revert_after", "2d"),
            tight[0],
            tight[1],
            ("debut", debut),
            ("debut_offset", "0.5"),
            ("debut_window", "3d"),
        ];
        let three = [
            tight[0],
            tight[1],
            ("sigma", "2.4000000000000004"),
            ("gamma", "0.15000000000000002"),
            ("beta", "3"),
            ("revert", revert),
            ("revert_after", "2d"),
            ("debut", debut),
            ("debut_offset", "1.5"),
            ("debut_window", "3d"),
        ];
        let (mut p1, mut p3) = (configure(&one), configure(&three));
        let (mut f1, mut f3) = (Feeder::new(), Feeder::new());
        let mut forecasts = 0;
        for (i, e) in all.iter().enumerate() {
            f1.feed(i as u64 + 1, e, &|_| false, &mut [&mut p1], None).unwrap();
            f3.feed(i as u64 + 1, e, &|_| false, &mut [&mut p3], None).unwrap();
            if let (Some(a), Some(g)) = (f1.roster.get("b"), f1.roster.get("f")) {
                let (p, q) = (p1.expectation(a, g, e.at), p3.expectation(a, g, e.at));
                assert!((p - q).abs() < 1e-9, "{revert} {debut}, event {}: {p} vs {q}", i + 1);
                forecasts += 1;
            }
        }
        assert!(forecasts > 30);
        for (s, t) in p1.standings().iter().zip(p3.standings()) {
            assert!((t.rating - 3.0 * s.rating).abs() < 1e-9, "{} vs {}", s.rating, t.rating);
            assert!((t.sigma.unwrap() - 3.0 * s.sigma.unwrap()).abs() < 1e-9);
        }
    }
}

const DEBUT: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"a","rating":2,"rd":1}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"b"}
{"type":"PlayerJoined","at":"2026-03-01T08:00:00Z","player":"c"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-02T10:00:00Z","seats":[{"player":"b","score":1},{"player":"a","score":0}]}
{"type":"MatchResult","at":"2026-03-03T10:00:00Z","seats":[{"player":"c","score":1},{"player":"a","score":0}]}
"#;

#[test]
fn a_debutant_enters_at_the_fields_mean_less_the_offset_by_hand() {
    // docs/algorithms/ttt.md, "Debut". sigma = beta = 1, gamma = 0. On 1 March a (rated N(2, 1))
    // beats b (unrated: no field yet, so N(mu, 1) = N(0, 1)). TrueSkill's one-game update: c^2 =
    // 1 + 1 + 2 beta^2 = 4, t = (2 - 0) / 2 = 1, a's mean rises by (1 / 2) v(1) and b's falls by
    // the same, so the two filtered means average exactly 1, whatever v(1) is. On 3 March the
    // field is the players whose latest game before the day is in a closed batch within the
    // window: the batch of 2 March is still open (its game not yet iterated), so a and b count
    // with their skills of 1 March: field 1, and with debut_offset 0.5 the unrated debutant c
    // enters at N(1 - 0.5, 1) = N(0.5, 1). The rated a keeps N(2, 1).
    let all = events(DEBUT);
    let sets = [
        ("sigma", "1"),
        ("gamma", "0"),
        ("debut", "field"),
        ("debut_offset", "0.5"),
        ("epsilon", "1e-12"),
        ("iterations", "100000"),
    ];
    let mut p = configure(&sets);
    let feeder = feed(&mut p, &all[..5]);
    let (a, c) = (feeder.roster.get("a").unwrap(), feeder.roster.get("c").unwrap());
    let at = all[5].at;
    let got = p.expectation(c, a, at);

    // The forecast: c's entering prior against a's standing from the history before 3 March,
    // P(c beats a) = Phi((0.5 - mu_a) / sqrt(1 + s_a^2 + 2 beta^2)) (no drift at gamma 0).
    p.settle(5, None).unwrap();
    let sa = p.standing(a).unwrap();
    let sd = (1.0 + sa.sigma.unwrap() * sa.sigma.unwrap() + 2.0).sqrt();
    let want = 1.0 - gauss::cdf(0.0, 0.5 - sa.rating, sd);
    assert!((got - want).abs() < 1e-12, "forecast {got}, by hand {want}");

    // The game enters c at that prior; a's own prior is untouched.
    feed_rest(&mut p, &all, 5);
    p.settle(6, None).unwrap();
    let (model, _) = p.estimate().unwrap();
    let prior_c = model.prior(c.0).unwrap().ms();
    assert!((prior_c.mu - 0.5).abs() < 1e-12 && (prior_c.sigma - 1.0).abs() < 1e-12, "{prior_c:?}");
    let prior_a = model.prior(a.0).unwrap().ms();
    assert!((prior_a.mu - 2.0).abs() < 1e-12, "{prior_a:?}");

    // Off (debut=prior, the default), c enters at mu = 0 and the forecast moves.
    let mut off = configure(&[
        ("sigma", "1"),
        ("gamma", "0"),
        ("epsilon", "1e-12"),
        ("iterations", "100000"),
    ]);
    feed(&mut off, &all[..5]);
    let off_p = off.expectation(c, a, at);
    let want_off = 1.0 - gauss::cdf(0.0, 0.0 - sa.rating, sd);
    assert!((off_p - want_off).abs() < 1e-12, "forecast {off_p}, by hand {want_off}");
}

#[test]
fn debut_field_is_the_packages_model_with_the_priors_it_chose() {
    // debut=field changes only the priors of the unrated debutants: the club replayed with it
    // ends where the club replayed without it ends when f and g (who join on day 6, when there
    // is a field) are given, as PlayerJoined ratings, the priors debut=field chose for them. The
    // replay without it is the package's model (the reference vectors, tests/it/reference.rs).
    let tight = [("epsilon", "1e-12"), ("iterations", "100000"), ("gamma", "0.1")];
    let field = [
        tight[0],
        tight[1],
        tight[2],
        ("debut", "field"),
        ("debut_offset", "0.8"),
        ("debut_window", "3d"),
    ];
    let text = club();
    let mut p = configure(&field);
    let feeder = feed(&mut p, &events(&text));
    p.settle(text.lines().count() as u64, None).unwrap();
    let mut given = text.clone();
    for n in ["f", "g"] {
        let id = feeder.roster.get(n).unwrap();
        let prior = p.estimate().unwrap().0.prior(id.0).unwrap().ms();
        assert!(prior.mu.abs() > 0.1, "{n}'s prior is not mu's: {prior:?}");
        assert!((prior.sigma - 6.0).abs() < 1e-12, "the deviation stays sigma's: {prior:?}");
        let joined =
            format!(r#"{{"type":"PlayerJoined","at":"2026-03-06T07:00:00Z","player":"{n}"}}"#);
        let rated = format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-06T07:00:00Z","player":"{n}","rating":{:?},"rd":6}}"#,
            prior.mu
        );
        assert!(given.contains(&joined));
        given = given.replace(&joined, &rated);
    }
    let mut q = configure(&tight);
    feed(&mut q, &events(&given));
    q.settle(text.lines().count() as u64, None).unwrap();
    let (s, t) = (p.standings(), q.standings());
    assert_eq!(s.len(), 7);
    for (s, t) in s.iter().zip(&t) {
        assert!((s.rating - t.rating).abs() < 1e-9, "{} vs {}", s.rating, t.rating);
        assert!((s.sigma.unwrap() - t.sigma.unwrap()).abs() < 1e-9);
    }
}

#[test]
fn debut_prior_leaves_every_reading_and_echo_as_without_it() {
    // Off (the default), debut_offset and debut_window change nothing, and an output echoes none
    // of the three, so outputs and digests stay those from before the option existed. On, all
    // three are echoed.
    let all = events(&club());
    let mut plain = configure(&[("gamma", "0.1")]);
    let mut off = configure(&[
        ("gamma", "0.1"),
        ("debut", "prior"),
        ("debut_offset", "1.5"),
        ("debut_window", "3d"),
    ]);
    feed(&mut plain, &all);
    feed(&mut off, &all);
    assert_eq!(plain.standings(), off.standings());
    let keys = |p: &Ttt| p.config().echoed().iter().map(|(k, _)| *k).collect::<Vec<_>>();
    assert_eq!(keys(&plain), keys(&off));
    assert!(!keys(&off).iter().any(|k| k.starts_with("debut")), "{:?}", keys(&off));
    let on = configure(&[("debut", "field")]);
    let echoed = keys(&on);
    for k in ["debut", "debut_offset", "debut_window"] {
        assert!(echoed.contains(&k), "{echoed:?}");
    }
}

#[test]
fn explain_shows_the_debut_prior_it_used() {
    // The history of the hand test above, the debut traced: c enters at the field's mean (1, by
    // hand above) less the offset (0.5), and `explain` shows the three; a, rated and not
    // debuting, shows no debut.
    let all = events(DEBUT);
    let mut p = configure(&[
        ("sigma", "1"),
        ("gamma", "0"),
        ("debut", "field"),
        ("debut_offset", "0.5"),
        ("epsilon", "1e-12"),
        ("iterations", "100000"),
    ]);
    let mut feeder = Feeder::new();
    let mut trace = Trace::new();
    for (i, e) in all.iter().enumerate() {
        let t = if i == 5 { Some(&mut trace) } else { None };
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut p], t).expect("applies");
    }
    let (a, c) = (feeder.roster.get("a").unwrap(), feeder.roster.get("c").unwrap());
    let traced = |who: PlayerId, name: &str| {
        trace.entries.iter().find_map(|e| match e {
            TraceEntry::Quantity { player: Some(p), name: n, value, .. }
                if *p == who && n == name =>
            {
                Some(*value)
            }
            _ => None,
        })
    };
    let near = |x: Option<f64>, want: f64| x.is_some_and(|x| (x - want).abs() < 1e-12);
    assert!(near(traced(c, "debut field"), 1.0), "{:?}", traced(c, "debut field"));
    assert!(near(traced(c, "debut offset"), 0.5), "{:?}", traced(c, "debut offset"));
    assert!(near(traced(c, "prior mu"), 0.5), "{:?}", traced(c, "prior mu"));
    assert_eq!(traced(a, "debut field"), None);
    assert!(near(traced(a, "prior mu"), 2.0), "{:?}", traced(a, "prior mu"));
}

/// Feeds `events[from..]` through a fresh feeder's roster rebuilt from `events[..from]`.
fn feed_rest(p: &mut Ttt, events: &[Event], from: usize) {
    let mut feeder = Feeder::new();
    let mut none = configure(&[]);
    for (i, e) in events[..from].iter().enumerate() {
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut none], None).expect("applies");
    }
    for (i, e) in events.iter().enumerate().skip(from) {
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut *p], None).expect("applies");
    }
}
