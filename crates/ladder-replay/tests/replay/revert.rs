//! Regression to the mean between seasons (docs/spec.md, `revert` and `revert_after`) in every
//! algorithm that has it: at a player's first game after an absence of at least `revert_after`,
//! the rating the game starts from (as the algorithm's trace records it) is the rating after
//! their last game moved `revert` of the way back to the initial rating; after a shorter
//! absence, or with `revert=0`, it is that rating unchanged. Elo's whole update with reversion is
//! checked against a plain implementation in ladder-elo's tests.

use ladder_events::{json::parse_line, Event};
use ladder_projector::{fold_all, Feeder, PlayerId, Projector, Trace, TraceEntry};
use ladder_replay::registry;

/// (algorithm, constants, the traced name of the rating a game starts from, that name's value
/// for a rating r, the initial rating).
type Case = (&'static str, &'static str, &'static str, fn(f64) -> f64, f64);

const CASES: &[Case] = &[
    ("elo", "", "r", |r| r, 1500.0),
    ("tgr", "", "Player1.Rating", |r| r, 1500.0),
    ("tgr", "order=simultaneous", "Player1.Rating", |r| r, 1500.0),
    ("glicko", "period=game", "r", |r| r, 1500.0),
    ("glicko", "period=5d", "r", |r| r, 1500.0),
    ("glicko2", "period=game", "mu", |r| (r - 1500.0) / 173.7178, 1500.0),
    ("glicko2", "period=10d", "mu", |r| (r - 1500.0) / 173.7178, 1500.0),
    ("weng-lin", "", "mu", |r| r, 25.0),
];

/// Joins on day 0 (a with a prior above the initial rating), a game on day 0, the second game
/// `gap` days later, and a join `gap + 30` days on (which closes a rating period still open).
fn history(initial: f64, gap: u32) -> Vec<Event> {
    let day = |d: u32| {
        let t = ladder_events::Timestamp(
            i64::from(d) * ladder_events::NANOS_PER_DAY
                + ladder_events::Timestamp::parse("2026-01-01").unwrap().0,
        );
        let mut out = Vec::new();
        t.write_rfc3339(&mut out);
        String::from_utf8(out).unwrap()
    };
    let a = initial * 1.1;
    [
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"a","rating":{a}}}"#, day(0)),
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"b"}}"#, day(0)),
        format!(r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#, day(0)),
        format!(r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"a","score":0}},{{"player":"b","score":1}}]}}"#, day(gap)),
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"c"}}"#, day(gap + 30)),
    ]
    .iter()
    .map(|l| parse_line(l).unwrap())
    .collect()
}

fn build(algo: &str, sets: &str, extra: &str) -> registry::Algo {
    let mut pairs = ladder_projector::Config::parse_assignments(sets).unwrap();
    pairs.extend(ladder_projector::Config::parse_assignments(extra).unwrap());
    registry::build(registry::config(algo, &pairs).unwrap()).unwrap()
}

/// The last value of `name` traced for `player` while the events after the first game are
/// applied (the second game, and the join that closes its period): the second game's.
fn traced_start(
    algo: &str,
    sets: &str,
    extra: &str,
    events: &[Event],
    name: &str,
    player: u32,
) -> f64 {
    let mut p = build(algo, sets, extra);
    let mut feeder = Feeder::new();
    let mut trace = Trace::new();
    for (i, e) in events.iter().enumerate() {
        let t = if i >= 3 { Some(&mut trace) } else { None };
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut p], t).unwrap();
    }
    trace
        .entries
        .iter()
        .rev()
        .find_map(|e| match e {
            TraceEntry::Quantity { player: Some(who), name: n, value, .. }
                if *who == PlayerId(player) && n == name =>
            {
                Some(*value)
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("{algo} {sets}: no {name} traced for #{player}"))
}

#[test]
fn the_first_game_after_a_long_absence_starts_from_a_reverted_rating() {
    for &(algo, sets, name, scale, initial) in CASES {
        for gap in [200u32, 60] {
            let events = history(initial, gap);
            // The ratings after the first game, as the standings report them right after it.
            let mut first = build(algo, sets, "");
            fold_all(&events[..3], &mut first).unwrap();
            let after: Vec<f64> = first.standings().iter().map(|s| s.rating).collect();
            for (player, &r) in after.iter().enumerate() {
                let what = format!("{algo} {sets} gap {gap} player {player}");
                let plain = traced_start(algo, sets, "revert=0", &events, name, player as u32);
                let half = traced_start(
                    algo,
                    sets,
                    "revert=0.5,revert_after=90d",
                    &events,
                    name,
                    player as u32,
                );
                assert!((plain - scale(r)).abs() < 1e-9, "{what}: {plain} vs {}", scale(r));
                let want = if gap >= 90 { scale(r + 0.5 * (initial - r)) } else { scale(r) };
                assert!((half - want).abs() < 1e-9, "{what}: {half} vs {want}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One absence each, by hand, and each algorithm with `revert` written plainly in this file and
// compared with the projector over random histories (as ladder-elo's tests do for Elo).

/// `2026-01-01T00:00:00Z` plus `hours`, as RFC 3339 text.
fn at_hours(hours: i64) -> String {
    let t = ladder_events::Timestamp(
        ladder_events::Timestamp::parse("2026-01-01").unwrap().0
            + hours * (ladder_events::NANOS_PER_DAY / 24),
    );
    let mut out = Vec::new();
    t.write_rfc3339(&mut out);
    String::from_utf8(out).unwrap()
}

/// `n` players joining at hour 0 with the algorithm's defaults, then two-seat games `(first seat,
/// second seat, hour, first seat's score, second seat's score)`.
fn games_history(n: u32, games: &[(u32, u32, i64, f64, f64)]) -> Vec<Event> {
    let mut lines: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"type":"PlayerJoined","at":"{}","player":"p{i}"}}"#, at_hours(0)))
        .collect();
    for &(a, b, h, sa, sb) in games {
        lines.push(format!(
            r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"p{a}","score":{sa}}},{{"player":"p{b}","score":{sb}}}]}}"#,
            at_hours(h)
        ));
    }
    lines.iter().map(|l| parse_line(l).unwrap()).collect()
}

/// The standings of `algo` with `sets` after `events`, in player order.
fn standings(algo: &str, sets: &str, events: &[Event]) -> Vec<ladder_projector::Standing> {
    let mut p = build(algo, sets, "");
    fold_all(events, &mut p).unwrap();
    let mut s = p.standings();
    s.sort_by_key(|s| s.player);
    s
}

#[track_caller]
fn near(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{what}: got {got}, want {want}");
}

/// The hand cases' history: a and b (p0, p1) join new at 2026-01-01T00:00Z; at once a beats b;
/// 200 days later b beats a (a's seat written first). revert=0.5, revert_after=90d.
fn one_absence() -> Vec<Event> {
    games_history(2, &[(0, 1, 0, 1.0, 0.0), (0, 1, 200 * 24, 0.0, 1.0)])
}

#[test]
fn one_tgr_absence_by_hand() {
    // TGR's UpdatePlayer (Q = ln(10)/400, PI = 3.14159265359, P = 5/6), sc=5, as-written.
    // Battle 1 (PTime = 0, both 1500/350), a wins:
    //   a: PG = 0.6690693971820089, PE = 1/2, WinProb = 1/2, XD = 1/2, PMERIT = 5/6,
    //      V = 269653.62604164984, RD = 1/sqrt(1/350^2 + 1/V) = 290.2305060910879,
    //      Rating = 1500 + Q PG (1/2) (2 PMERIT - 1) RD^2 = 1608.1413350705113
    //   b (sees a's new values): PG = g(290.2305...) = 0.7355256219258945,
    //      PE = 1/(1 + 10^(-PG (1500 - 1608.1413...)/400)) = 0.38749047959045846,
    //      WinProb = 0.41227313454194314 = XD, PMERIT = 0.8746314317546631, V = 235027.73398781594,
    //      RD = 283.7740855536863, Rating = 1401.0093414745736
    // 200 midnights: RD^2 grows by 200 sc^2 = 5000 (under the cap of 350), so at battle 2
    //   (PTime = 0) a's RD is sqrt(290.2305...^2 + 5000) = 298.72018121628304 and b's
    //   sqrt(283.774...^2 + 5000) = 292.4512465896339, in PRD, PG and WinProb alike.
    // Revert (200 days >= 90d): a 1608.1413... + 0.5 (1500 - 1608.1413...) = 1554.0706675352558,
    //   b 1401.0093... + 0.5 (1500 - 1401.0093...) = 1450.5046707372867
    // Battle 2, a loses (Win = 0): PG = g(292.45...) = 0.7329461176569534, PE = 0.6075352020463711,
    //   G = g(sqrt(298.72...^2 + 292.45...^2)) = 0.6019001230808964, WinProb = 0.5887588958040979
    //   = XD, PMERIT = 0.7863278382364969, V = 235598.4081602377, RD = 254.4024171832254,
    //   Rating = 1554.07... - Q PG PE (2 PMERIT - 1) RD^2 = 1459.0681246341503
    // b (sees a's new values, wins): PG = g(254.40...) = 0.7780530874202286, PE = 0.49041260400221764,
    //   WinProb = 0.49222711492765236, XD = 0.5077728850723476, PMERIT = 0.8294267515497102,
    //   V = 199475.6290784765, RD = 244.6658795396924, Rating = 1540.520581701507
    let s = standings("tgr", "sc=5,revert=0.5,revert_after=90d", &one_absence());
    near(s[0].rating, 1459.0681246341503, "a Rating");
    near(s[0].rd.unwrap(), 254.4024171832254, "a RD");
    near(s[1].rating, 1540.520581701507, "b Rating");
    near(s[1].rd.unwrap(), 244.6658795396924, "b RD");
}

#[test]
fn one_glicko_absence_by_hand() {
    // "Glicko system", period=game (c = 6 per idle day), q = ln(10)/400.
    // Game 1 (t = 0, both 1500/350): g(350) = 0.6690693971819845, E = 1/2,
    //   d^2 = 1/(q^2 g^2 / 4) = 269653.6260416694, RD' = 290.2305060910912,
    //   r' = 1500 +- q RD'^2 g / 2: a 1662.2120026057648, b 1337.7879973942352
    // Game 2, 200 days later: RD* = sqrt(290.2305...^2 + 36 x 200) = 302.38013603061114 for both;
    //   revert 0.5: a 1581.1060013028823, b 1418.8939986971177.
    //   a (loses): g(302.38...) = 0.7215080188703028, E = 1/(1 + 10^(-g 162.2120.../400)) = 0.6623357690482843,
    //   d^2 = 259204.7843621132, RD' = 259.98299689413864, r' = 1581.106... - q RD'^2 g E = 1395.169369119814
    //   b (wins): E = 0.3376642309517156, the same d^2 and RD', r' = 1604.830630880186
    let s = standings("glicko", "period=game,revert=0.5,revert_after=90d", &one_absence());
    near(s[0].rating, 1395.169369119814, "a r'");
    near(s[0].rd.unwrap(), 259.98299689413864, "a RD'");
    near(s[1].rating, 1604.830630880186, "b r'");
    near(s[1].rd.unwrap(), 259.9829968941387, "b RD'");
}

#[test]
fn one_glicko2_absence_by_hand() {
    // Glickman's Glicko-2 (tau = 0.5, epsilon = 1e-6), period=game, phi capped at 350/173.7178.
    // Game 1 (t = 0, both 1500/350/0.06): g = 0.6690694125812041, E = 1/2, v = 8.935474903646744,
    //   sigma' = 0.05999967537233814, phi* = phi (capped) = 2.014761872416068,
    //   phi' = 1.6707010322617406, mu' = +-0.9337673023164317: a 1662.2120014703455, b 1337.7879985296545
    // Game 2, 200 days later (200 idle periods of sigma'^2): phi = sqrt(1.6707...^2 + 200 x
    //   0.05999967...^2) = 1.8738287403489247 for both; revert 0.5: a 1581.1060007351728,
    //   b 1418.8939992648272, mu = +-0.4668836511582161.
    //   a (loses): g(1.8738...) = 0.6955039361760278, E = 1/(1 + exp(-g (0.4668... + 0.4668...)))
    //   = 0.6568839941108245, v = 9.172150200722902, Delta = -4.190438102554458,
    //   sigma' = 0.06000008406302894, phi* = 1.8747890970040357, phi' = 1.5940751658926773,
    //   mu' = -0.6940458939672416: r' = 1379.4318742009775, RD' = 276.91923085351095
    //   b (wins): mu' = 0.6940458939672416, r' = 1620.5681257990225, the same RD'.
    let s = standings("glicko2", "period=game,revert=0.5,revert_after=90d", &one_absence());
    near(s[0].rating, 1379.4318742009775, "a r'");
    near(s[0].rd.unwrap(), 276.91923085351095, "a RD'");
    near(s[0].volatility.unwrap(), 0.06000008406302894, "a sigma'");
    near(s[1].rating, 1620.5681257990225, "b r'");
}

#[test]
fn one_weng_lin_absence_by_hand() {
    // Weng-Lin (Bradley-Terry, full pairing), mu 25, sigma 25/3, beta 25/6.
    // Match 1: c = sqrt(2 sigma^2 + 2 beta^2) = 13.176156917368248, p = 1/2,
    //   delta = sigma^2/c (1 - 1/2) = 2.63523138347365: a 27.63523138347365, b 22.36476861652635;
    //   eta = (sigma/c) sigma^2/c^2 p (1 - p) = 0.0632455532033676, sigma' = 8.065506316323548
    // 200 days away, revert 0.5 toward mu 25: a 26.317615691736826, b 23.682384308263174.
    // Match 2: c = sqrt(2 x 8.0655...^2 + 2 beta^2) = 12.838497049870453,
    //   p_a = 1/(1 + exp((23.68... - 26.31...)/c)) = 0.5511356188007093,
    //   delta_a = sigma^2/c (0 - p_a) = -2.7925924862183007: a 23.525023205518526, b 26.474976794481474;
    //   eta = 0.06133748625527851, sigma' = 7.814233291243442 for both.
    let s = standings("weng-lin", "revert=0.5,revert_after=90d", &one_absence());
    near(s[0].rating, 23.525023205518526, "a mu'");
    near(s[1].rating, 26.474976794481474, "b mu'");
    near(s[0].sigma.unwrap(), 7.814233291243442, "a sigma'");
    // Without revert the second match starts from 27.635... and 22.364... instead.
    let plain = standings("weng-lin", "", &one_absence());
    assert!((plain[0].rating - s[0].rating).abs() > 0.5, "{} {}", plain[0].rating, s[0].rating);
}
