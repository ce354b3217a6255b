//! Home advantage in every algorithm with a win expectancy (docs/spec.md, `home`): the constant is
//! added to the home seat's side of the expectation and nowhere else. So a home player's update
//! equals their update on neutral ground against an opponent rated `home` lower, and the away
//! player's equals theirs against an opponent rated `home` higher, whatever the algorithm; and a
//! prediction with a seat at home equals one with that seat's rating raised by `home`. One Glicko
//! game is worked by hand.
// std's powf draws the simulated results: an outside source, not ladder's arithmetic.
#![allow(clippy::disallowed_methods)]

use ladder_events::{json::parse_line, Event, Timestamp};
use ladder_projector::{fold_all, Home, PlayerId, Projector};
use ladder_replay::registry;

/// The algorithms with a win expectancy, with the constants each is tried under, and a home
/// advantage on their own scale.
const CASES: &[(&str, &str, f64)] = &[
    ("elo", "", 80.0),
    ("tgr", "order=as-written", 80.0),
    ("tgr", "order=simultaneous", 80.0),
    ("glicko", "period=game", 80.0),
    ("glicko", "period=5d", 80.0),
    ("glicko2", "period=game", 80.0),
    ("glicko2", "period=10d", 80.0),
    ("weng-lin", "", 3.0),
    ("ttt", "", 1.0),
];

fn events(ra: f64, rb: f64, a_home: bool, b_home: bool, a_wins: bool) -> Vec<Event> {
    let (sa, sb) = if a_wins { (1, 0) } else { (0, 1) };
    let home = |h: bool| if h { r#","home":true"# } else { "" };
    [
        format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"a","rating":{ra},"rd":90}}"#
        ),
        format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"b","rating":{rb},"rd":120}}"#
        ),
        format!(
            r#"{{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{{"player":"a","score":{sa}{}}},{{"player":"b","score":{sb}{}}}]}}"#,
            home(a_home),
            home(b_home)
        ),
    ]
    .iter()
    .map(|l| parse_line(l).unwrap())
    .collect()
}

fn ratings(algo: &str, sets: &str, home: f64, events: &[Event]) -> (f64, f64) {
    let mut pairs: Vec<(String, String)> =
        ladder_projector::Config::parse_assignments(sets).unwrap();
    pairs.push(("home".into(), home.to_string()));
    let mut p = registry::build(registry::config(algo, &pairs).unwrap()).unwrap();
    fold_all(events, &mut p).unwrap();
    let s = p.standings();
    (s[0].rating, s[1].rating)
}

#[track_caller]
fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{what}: got {got}, want {want}");
}

#[test]
fn home_is_the_opponent_moved_by_home_in_every_algorithm() {
    for &(algo, sets, h) in CASES {
        let (ra, rb) =
            if algo == "weng-lin" || algo == "ttt" { (27.0, 24.0) } else { (1560.0, 1490.0) };
        for a_wins in [true, false] {
            let what = format!("{algo} {sets} a_wins={a_wins}");
            // a at home.
            let (a1, b1) = ratings(algo, sets, h, &events(ra, rb, true, false, a_wins));
            let (a_neutral, _) =
                ratings(algo, sets, 0.0, &events(ra, rb - h, false, false, a_wins));
            let (_, b_neutral) =
                ratings(algo, sets, 0.0, &events(ra + h, rb, false, false, a_wins));
            close(a1, a_neutral, &format!("{what}: home a"));
            close(b1, b_neutral, &format!("{what}: away b"));
            // b at home.
            let (a2, b2) = ratings(algo, sets, h, &events(ra, rb, false, true, a_wins));
            let (a_neutral, _) =
                ratings(algo, sets, 0.0, &events(ra, rb + h, false, false, a_wins));
            let (_, b_neutral) =
                ratings(algo, sets, 0.0, &events(ra - h, rb, false, false, a_wins));
            close(a2, a_neutral, &format!("{what}: away a"));
            close(b2, b_neutral, &format!("{what}: home b"));
            // On neutral ground the constant changes nothing.
            let plain = events(ra, rb, false, false, a_wins);
            assert_eq!(ratings(algo, sets, h, &plain), ratings(algo, sets, 0.0, &plain), "{what}");
        }
    }
}

#[test]
fn a_prediction_adds_home_to_the_home_seat() {
    for &(algo, sets, h) in CASES {
        let (ra, rb) =
            if algo == "weng-lin" || algo == "ttt" { (27.0, 24.0) } else { (1560.0, 1490.0) };
        let joins = |ra: f64, home: f64| {
            let mut e = events(ra, rb, false, false, true);
            e.truncate(2);
            let mut pairs = ladder_projector::Config::parse_assignments(sets).unwrap();
            pairs.push(("home".into(), home.to_string()));
            let mut p = registry::build(registry::config(algo, &pairs).unwrap()).unwrap();
            fold_all(&e, &mut p).unwrap();
            p
        };
        let at = Timestamp::parse("2026-03-01T10:00:00Z").unwrap();
        let (a, b) = (PlayerId(0), PlayerId(1));
        let with_home = joins(ra, h);
        let raised = joins(ra + h, 0.0);
        let lowered = joins(ra - h, 0.0);
        let what = format!("{algo} {sets}");
        close(with_home.expectation_at(a, b, at, Home::First), raised.expectation(a, b, at), &what);
        close(
            with_home.expectation_at(a, b, at, Home::Second),
            lowered.expectation(a, b, at),
            &what,
        );
        close(
            with_home.expectation_at(a, b, at, Home::Neither),
            with_home.expectation(a, b, at),
            &what,
        );
    }
}

#[test]
fn one_glicko_game_at_home_by_hand() {
    // Both join at 1500 with RD 350 and play at once (t = 0), a at home with home=100 and wins.
    // q = ln(10) / 400; g(350) = 1 / sqrt(1 + 3 q^2 350^2 / pi^2) = 0.6690693971819845
    // E_a = 1 / (1 + 10^(-g (1500 + 100 - 1500) / 400)) = 0.5951139680019167
    // d^2 = 1 / (q^2 g^2 E (1 - E)) = 279777.85426598374
    // RD' = 1 / sqrt(1/350^2 + 1/d^2) = 291.88491416206506
    // r'_a = 1500 + q RD'^2 g (1 - E_a) = 1632.856545740799
    // E_b = 1 / (1 + 10^(-g (1500 - 1600) / 400)) = 0.40488603199808326 (= 1 - E_a)
    // r'_b = 1500 + q RD'^2 g (0 - E_b) = 1367.143454259201
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"a"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"b"}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1,"home":true},{"player":"b","score":0}]}"#,
    ];
    let events: Vec<Event> = lines.iter().map(|l| parse_line(l).unwrap()).collect();
    let sets = [("period".to_string(), "game".to_string()), ("home".into(), "100".into())];
    let mut p = registry::build(registry::config("glicko", &sets).unwrap()).unwrap();
    fold_all(&events, &mut p).unwrap();
    let s = p.standings();
    close(s[0].rating, 1632.856545740799, "r'_a");
    close(s[0].rd.unwrap(), 291.88491416206506, "RD'_a");
    close(s[1].rating, 1367.143454259201, "r'_b");
}

/// A history of 300 two-seat games among 8 players over 60 days, one seat at home in most of
/// them (either one), from a fixed linear congruential sequence.
fn home_history() -> crate::Memory {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let mut lines: Vec<String> = (0..8)
        .map(|i| {
            format!(r#"{{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"p{i}"}}"#)
        })
        .collect();
    for g in 0..300u64 {
        let a = next(8);
        let b = (a + 1 + next(7)) % 8;
        let (sa, sb) = [(1, 0), (0, 1), (1, 1), (3, 1)][next(4) as usize];
        let home = match next(3) {
            0 => (r#","home":true"#, ""),
            1 => ("", r#","home":true"#),
            _ => ("", ""),
        };
        let at = Timestamp(
            Timestamp::parse("2026-01-01T01:00:00Z").unwrap().0 + g as i64 * 17_280_000_000_000,
        );
        let mut at_text = Vec::new();
        at.write_rfc3339(&mut at_text);
        let at_text = String::from_utf8(at_text).unwrap();
        lines.push(format!(
            r#"{{"type":"MatchResult","at":"{at_text}","seats":[{{"player":"p{a}","score":{sa}{}}},{{"player":"p{b}","score":{sb}{}}}]}}"#,
            home.0, home.1
        ));
    }
    crate::Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect())
}

#[test]
fn the_fast_drivers_and_glicko2_lanes_agree_with_the_reference_driver_on_home_seats_and_revert() {
    use ladder_replay::{replay, replay_algos, Options, Snapshot, Until};
    let history = home_history();
    for &(algo, sets, h) in CASES {
        // Home advantages, and regression after a day away (as revert_after, so that it applies
        // often in these 60 days), differing between configurations.
        let configs: Vec<_> = [(0.0, "0"), (h, "0.3"), (2.0 * h, "0.5")]
            .iter()
            .map(|(home, revert)| {
                let mut pairs = ladder_projector::Config::parse_assignments(sets).unwrap();
                pairs.push(("home".into(), home.to_string()));
                // TTT has no `revert` (a whole-history model already lets a skill drift).
                if algo != "ttt" {
                    pairs.push(("revert".into(), revert.to_string()));
                    pairs.push(("revert_after".into(), "1d".into()));
                }
                registry::config(algo, &pairs).unwrap()
            })
            .collect();
        let mut seq: Vec<_> =
            configs.iter().cloned().map(|c| registry::build(c).unwrap()).collect();
        let mut fast: Vec<_> =
            configs.iter().cloned().map(|c| registry::build(c).unwrap()).collect();
        let mut refs: Vec<&mut dyn Projector> = seq.iter_mut().map(|p| p as _).collect();
        let ra = replay(
            &history,
            &mut refs,
            Options { warmup: Some(0), ..Options::default() },
            &mut |_| {},
        )
        .unwrap();
        // Glicko-2's three configurations fold as lanes here.
        let rb = replay_algos(&history, &mut fast, Until::Head, Some(0), 2).unwrap();
        assert_eq!(ra.scores, rb.scores, "{algo} {sets}");
        for (x, y) in seq.iter().zip(&fast) {
            let sx = Snapshot::capture(x, &ra.roster, ra.through, &ra.head);
            let sy = Snapshot::capture(y, &rb.roster, rb.through, &rb.head);
            assert_eq!(sx.to_json(), sy.to_json(), "{algo} {sets}");
        }
        // The home constant is used: each configuration scores differently.
        let losses: Vec<_> = ra.scores.iter().map(|s| format!("{s:?}")).collect();
        assert_ne!(losses[0], losses[1], "{algo} {sets}");
        assert_ne!(losses[1], losses[2], "{algo} {sets}");
    }
}

/// A simulated league with a known home advantage: 24 teams of fixed strength (Elo scale,
/// spread over 600 points), 9,000 games between random pairs over about 25 years, one side at
/// home in each, the home side winning with probability 1 / (1 + 10^(-(s_home + 80 - s_away) /
/// 400)): the model Elo with `home` fits, with home = 80.
fn simulated_league() -> crate::Memory {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut uniform = || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let strength: Vec<f64> = (0..24).map(|i| 1200.0 + 600.0 * f64::from(i) / 23.0).collect();
    let mut lines: Vec<String> = (0..24)
        .map(|i| {
            format!(r#"{{"type":"PlayerJoined","at":"2000-01-01T00:00:00Z","player":"t{i}"}}"#)
        })
        .collect();
    let start = Timestamp::parse("2000-01-02T00:00:00Z").unwrap().0;
    for g in 0..9000i64 {
        let h = (uniform() * 24.0) as usize % 24;
        let a = (h + 1 + (uniform() * 23.0) as usize % 23) % 24;
        let p = 1.0 / (1.0 + 10f64.powf(-(strength[h] + 80.0 - strength[a]) / 400.0));
        let (sh, sa) = if uniform() < p { (1, 0) } else { (0, 1) };
        let mut at = Vec::new();
        Timestamp(start + g * 86_400_000_000_000).write_rfc3339(&mut at);
        lines.push(format!(
            r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"t{h}","score":{sh},"home":true}},{{"player":"t{a}","score":{sa}}}]}}"#,
            String::from_utf8(at).unwrap()
        ));
    }
    crate::Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect())
}

#[test]
fn tune_recovers_a_known_home_advantage_within_ten_percent() {
    use ladder_replay::tune::{axes, default_search, search_from, starts, Point};
    use ladder_replay::{replay_algos, Until};
    let history = simulated_league();
    let specs = registry::params("elo").unwrap();
    let keys: Vec<String> =
        default_search("elo", specs, true).iter().map(|k| k.to_string()).collect();
    assert!(keys.contains(&"home".to_string()), "{keys:?}");
    let defaults = registry::config("elo", &[]).unwrap();
    let current = |k: &str| {
        defaults
            .values
            .iter()
            .find(|(key, _)| *key == k)
            .map_or(String::new(), |(_, v)| v.to_string())
    };
    let axes = axes("elo", specs, &keys, &current).unwrap();
    let start: Point = axes.iter().map(|a| (a.key(), current(a.key()))).collect();
    let found = search_from::<ladder_replay::ReplayError>(
        &axes,
        starts(&axes, &start),
        &mut |batch| {
            let mut projectors: Vec<_> = batch
                .iter()
                .map(|p| {
                    let sets: Vec<(String, String)> =
                        p.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
                    registry::build(registry::config("elo", &sets).unwrap()).unwrap()
                })
                .collect();
            // The first 1,000 games (ratings still far from the strengths) are not scored.
            let r = replay_algos(&history, &mut projectors, Until::Head, Some(1000), 1)?;
            Ok(r.scores.iter().map(|s| s.log_loss().unwrap_or(f64::INFINITY)).collect())
        },
        &mut |_, _| {},
    )
    .unwrap();
    let home: f64 = found.best.iter().find(|(k, _)| *k == "home").unwrap().1.parse().unwrap();
    assert!((72.0..=88.0).contains(&home), "home = {home} (true 80): {found:?}");
}

/// Two new players (the algorithm's defaults) join and play at once, a at home and winning, with
/// `sets`: the standings after it.
fn one_home_win(algo: &str, sets: &[(&str, &str)]) -> Vec<ladder_projector::Standing> {
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"a"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00Z","player":"b"}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1,"home":true},{"player":"b","score":0}]}"#,
    ];
    let events: Vec<Event> = lines.iter().map(|l| parse_line(l).unwrap()).collect();
    let sets: Vec<(String, String)> =
        sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut p = registry::build(registry::config(algo, &sets).unwrap()).unwrap();
    fold_all(&events, &mut p).unwrap();
    p.standings()
}

#[test]
fn one_tgr_battle_at_home_by_hand() {
    // Both 1500 with RD 350, battling the instant they join (PTime = 0, PRD = 350), home=100, the
    // home player (Player1) wins; the TGR text's UpdatePlayer with Player1.Rating + 100 in PE and
    // WinProb. Q = ln(10)/400, PI = 3.14159265359, P = 5/6:
    // PG = 1 / sqrt(1 + 3 Q^2 350^2 / PI^2)                 = 0.6690693971820089
    // PE = 1 / (1 + 10^(-PG 100 / 400))                     = 0.5951139680019201
    // G = 1 / sqrt(1 + 3 Q^2 (350^2 + 350^2) / PI^2); WinProb = 1 / (1 + 10^(-G 100 / 400))
    //                                                       = 0.5766713999885265
    // XD = 1 - WinProb; PMERIT = 1 - (1 - P) XD (1 + 2 XD)  = 0.8697095321355297
    // V = 1 / (PG^2 PE (1 - PE) Q^2); RD = 1 / sqrt(1/350^2 + 1/V) = 291.88491416206193
    // Rating = 1500 + Q PG (1 - PE) (2 PMERIT - 1) RD^2     = 1598.2366627339475
    let s = one_home_win("tgr", &[("home", "100")]);
    close(s[0].rating, 1598.2366627339475, "Rating");
    close(s[0].rd.unwrap(), 291.88491416206193, "RD");
}

#[test]
fn one_weng_lin_match_at_home_by_hand() {
    // mu 25, sigma 25/3, beta 25/6 for both, home=2 for a, a wins:
    // c = sqrt(2 sigma^2 + 2 beta^2) = 13.176156917368248
    // p = 1 / (1 + exp(-((25 + 2) - 25) / c)) = 0.5378746405211254
    // mu_a' = 25 + sigma^2 / c (1 - p) = 27.435614500795545, mu_b' = 22.564385499204455
    // sigma' = sqrt(sigma^2 (1 - sigma/c sigma^2/c^2 p (1 - p))) = 8.067068459539664 for both
    let s = one_home_win("weng-lin", &[("home", "2")]);
    close(s[0].rating, 27.435614500795545, "mu_a");
    close(s[1].rating, 22.564385499204455, "mu_b");
    close(s[0].sigma.unwrap(), 8.067068459539664, "sigma_a");
    close(s[1].sigma.unwrap(), 8.067068459539664, "sigma_b");
}

#[test]
fn one_glicko2_game_at_home_by_hand() {
    // Glickman, "Example of the Glicko-2 system", with the home player's mu raised by home (in
    // Glicko-2 units) in E. Both join at 1500 / 350 / 0.06 and play at once (period=game, t = 0),
    // a at home with home=100, a wins; tau = 0.5, epsilon = 1e-6.
    // Step 2: mu = 0, phi = 350 / 173.7178 = 2.014761872416068, h = 100 / 173.7178 = 0.5756462492617337
    // Step 3: g(phi_b) = 1 / sqrt(1 + 3 phi^2 / pi^2)                  = 0.6690694125812041
    //         E = 1 / (1 + exp(-g (0 + h - 0)))                          = 0.5951139662708319
    //         v = 1 / (g^2 E (1 - E))                                    = 9.270960041111948
    // Step 4: Delta = v g (1 - E)                                        = 2.511473971271357
    // Step 5: a = ln(0.06^2) = -5.626821433520073; Delta^2 = 6.3075 < phi^2 + v = 13.3302, so
    //         f(a - tau) = 1.99996 >= 0 gives B = a - tau = -6.126821433520073 (k = 1);
    //         f_A = -7.113627871327253e-05; two Illinois steps: C = -5.626839217340871, then
    //         C = -5.62683921720612 (|B - A| < 1e-6); sigma' = e^(A/2)  = 0.059999466487748024
    // Step 6: sqrt(phi^2 + sigma'^2) = 2.0156550643699718, capped at rd_max / 173.7178 (ladder's
    //         reading, docs/algorithms/glicko2.md): phi* = phi        = 2.014761872416068
    // Step 7: phi' = 1 / sqrt(1 / phi*^2 + 1 / v)                        = 1.6802245697292486
    //         mu' = 0 + phi'^2 g (1 - E)                                 = 0.7647837198296644
    // Step 8: r' = 173.7178 mu' + 1500 = 1632.8565452846258, RD' = 173.7178 phi' = 291.8849157593117
    // b, away and losing: E_b = 1 - E_a, the same v, |Delta|, sigma' and phi', mu'_b = -mu'_a:
    // r'_b = 1367.1434547153742.
    let s = one_home_win("glicko2", &[("period", "game"), ("home", "100")]);
    close(s[0].rating, 1632.8565452846258, "r'_a");
    close(s[0].rd.unwrap(), 291.8849157593117, "RD'_a");
    close(s[0].volatility.unwrap(), 0.059999466487748024, "sigma'_a");
    close(s[1].rating, 1367.1434547153742, "r'_b");
    close(s[1].rd.unwrap(), 291.8849157593117, "RD'_b");
    // Without home the same game moves a by the Glicko-2 update of an even game instead:
    // E = 1/2, v = 8.935474903646744, sigma' = 0.05999967537233814, phi* = phi (capped),
    // phi' = 1 / sqrt(1 / phi^2 + 1 / v) = 1.6707010322617406, mu' = phi'^2 g / 2 = 0.9337673023164317,
    // r' = 1662.2120014703455.
    let even = one_home_win("glicko2", &[("period", "game")]);
    close(even[0].rating, 1662.2120014703455, "r'_a, home=0");
}
