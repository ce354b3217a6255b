//! UpdatePlayer worked by hand, every intermediate written out, then checked against the trace.
//!
//! Hand constants: Q = ln(10)/400 = 0.005756462732485115, Q^2 = 3.3136863190489995e-5,
//! PI = 3.14159265359 (the seed's), PI^2 = 9.869604401090658, SC = 20, P = 5/6.

use crate::{close, flags, quantity, run_traced, standing};

/// Two new players (1500/350) join at 06:00 (Time = 0.25); at 18:00 (Time = 0.75) alice beats bob.
const EVEN: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"alice"}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"bob"}
{"type":"MatchResult","at":"2026-03-01T18:00:00Z","id":"m1","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}
"#;

#[test]
fn even_battle_of_new_players_as_written() {
    let (t, roster, trace) = run_traced(EVEN, &[]);
    let a = "UpdatePlayer(#0, #1)";
    let b = "UpdatePlayer(#1, #0)";
    let q = |s, n| quantity(&trace, s, 0, n);

    // ---- UpdatePlayer(alice, bob, Time = 0.75, Win = 1) ----
    // PTime = Time - Player1.Time = 0.75 - 0.25 = 0.5
    close(q(a, "PTime"), 0.5, 0.0);
    // PRD = min(sqrt(350^2 + 0.5 * 20^2), 350) = min(sqrt(122700), 350)
    //     = min(350.2855977627399, 350) = 350 (capped: the rd-at-cap flag)
    close(q(a, "PRD"), 350.0, 0.0);
    // PG = 1 / sqrt(1 + 3 * Q^2 * 350^2 / PI^2)
    //    3 * Q^2 * 350^2 = 3 * 3.3136863190489995e-5 * 122500 = 12.177797222505072
    //    / PI^2 = 1.2338688287404247; + 1 = 2.233868828740425; sqrt = 1.4946132706290363
    //    PG = 1 / 1.4946132706290363 = 0.6690693971820089
    close(q(a, "PG"), 0.6690693971820089, 1e-12);
    // PE = 1 / (1 + 10^(-PG * (1500 - 1500) / 400)) = 1 / (1 + 1) = 0.5
    close(q(a, "PE"), 0.5, 0.0);
    // WinProb(alice, bob): equal ratings, so 10^0 = 1 and WinProb = 0.5; XD = |1 - 0.5| = 0.5
    close(q(a, "WinProb"), 0.5, 0.0);
    close(q(a, "XD"), 0.5, 0.0);
    // PMERIT = 1 - (1 - 5/6) * 0.5 * (1 + 2 * 0.5) = 1 - (1/6) * 0.5 * 2 = 5/6 = 0.8333333333333334
    close(q(a, "PMERIT"), 5.0 / 6.0, 1e-15);
    // V = 1 / (PG^2 * PE * (1 - PE) * Q^2)
    //   PG^2 = 0.44765385824549675; * 0.5 * 0.5 * Q^2 = 3.7084611643440062e-6
    //   V = 269653.6260416498
    close(q(a, "V"), 269653.6260416498, 1e-7);
    // 1/PRD^2 + 1/V = 8.163265306122448e-6 + 3.708461164344007e-6 = 1.1871726470466456e-5
    // delta = Q * PG * (1 - 0.5) * (2 * 5/6 - 1) / 1.1871726470466456e-5
    //       = 0.005756462732485115 * 0.6690693971820089 * 0.5 * 0.6666666666666667 / ...
    //       = 0.0012838243501081719 / 1.1871726470466456e-5 = 108.14133507051133
    close(q(a, "delta"), 108.14133507051133, 1e-9);
    close(q(a, "Rating"), 1608.1413350705113, 1e-9);
    // RD = 1 / sqrt(1.1871726470466456e-5) = 290.2305060910879
    close(q(a, "RD"), 290.2305060910879, 1e-9);
    assert!(flags(&trace, a, 0).contains(&"rd-at-cap"));
    assert!(flags(&trace, a, 0).contains(&"provisional-opponent"));

    // ---- UpdatePlayer(bob, alice, Time = 0.75, Win = 0), seeing alice's NEW values ----
    // PTime = 0.5, PRD = 350 (as above)
    close(q(b, "PTime"), 0.5, 0.0);
    close(q(b, "PRD"), 350.0, 0.0);
    // PG = 1 / sqrt(1 + 3 * Q^2 * 290.2305060910879^2 / PI^2)
    //    3 * Q^2 * 290.2305...^2 = 8.373726417869868; / PI^2 = 0.8484358721555764
    //    PG = 1 / sqrt(1.8484358721555764) = 0.7355256219258945
    close(q(b, "PG"), 0.7355256219258945, 1e-12);
    // PE = 1 / (1 + 10^(-PG * (1500 - 1608.1413350705113) / 400))
    //    exponent = 0.7355256219258945 * 108.14133507051133 / 400 = 0.198851806834086
    //    10^0.198851806834086 = 1.5807085661998905; PE = 1 / 2.5807085661998905
    //    = 0.38749047959045846
    close(q(b, "PE"), 0.38749047959045846, 1e-12);
    // WinProb(bob, alice): G = 1 / sqrt(1 + 3 * Q^2 * (350^2 + 290.2305...^2) / PI^2)
    //    = 0.5695898159543586; exponent = G * 108.14133507051133 / 400 = 0.15399050784967794
    //    10^0.15399050784967794 = 1.425576435173376; WinProb = 1 / 2.425576435173376
    //    = 0.41227313454194314; XD = |0 - WinProb| = 0.41227313454194314
    close(q(b, "WinProb"), 0.41227313454194314, 1e-12);
    close(q(b, "XD"), 0.41227313454194314, 1e-12);
    // PMERIT = 1 - (1/6) * XD * (1 + 2 * XD) = 1 - (1/6) * 0.7522114094720215
    //        = 0.8746314317546631
    close(q(b, "PMERIT"), 0.8746314317546631, 1e-12);
    // V = 1 / (PG^2 * PE * (1 - PE) * Q^2); PE * (1 - PE) = 0.23734160781721494
    //   PG^2 * 0.2373... * Q^2 = 4.25481700832737e-6; V = 235027.73398781594
    close(q(b, "V"), 235027.73398781594, 1e-6);
    // 1/PRD^2 + 1/V = 8.163265306122448e-6 + 4.25481700832737e-6 = 1.2418082314449817e-5
    // delta = Q * PG * (0 - PE) * (2 * PMERIT - 1) / 1.2418...e-5
    //       = -0.0012292741459303377 / 1.2418082314449817e-5 = -98.99065852542633
    close(q(b, "delta"), -98.99065852542633, 1e-9);
    // RD = 1 / sqrt(1.2418082314449817e-5) = 283.7740855536863
    close(q(b, "RD"), 283.7740855536863, 1e-9);

    // The standings agree, with the games counted.
    let alice = standing(&t, &roster, "alice");
    let bob = standing(&t, &roster, "bob");
    close(alice.rating, 1608.1413350705113, 1e-9);
    close(bob.rating, 1401.0093414745736, 1e-9);
    close(bob.rd.unwrap(), 283.7740855536863, 1e-9);
    assert_eq!((alice.games, bob.games), (1, 1));
    assert!(alice.display.unwrap().provisional && alice.display.unwrap().glixare.is_none());
}

#[test]
fn even_battle_of_new_players_simultaneous_is_symmetric() {
    // From the values before the battle, bob's call is alice's mirrored: PG = 0.6690693971820089,
    // PE = 0.5, XD = 0.5, PMERIT = 5/6, V = 269653.6260416498, so delta = -108.14133507051133
    // and RD = 290.2305060910879.
    let (t, roster, _) = run_traced(EVEN, &[("order", "simultaneous")]);
    let alice = standing(&t, &roster, "alice");
    let bob = standing(&t, &roster, "bob");
    close(alice.rating, 1608.1413350705113, 1e-9);
    close(bob.rating, 1391.8586649294887, 1e-9);
    close(alice.rd.unwrap(), 290.2305060910879, 1e-9);
    close(bob.rd.unwrap(), 290.2305060910879, 1e-9);
}

/// Glickman's first pair with priors: 1500/200 beats 1400/30; both joined at 06:00, battle at
/// 18:00, so PTime = 0.5 and RD grows before the battle without reaching the cap.
const PRIORS: &str = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"p","rating":1500,"rd":200}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"o","rating":1400,"rd":30}
{"type":"MatchResult","at":"2026-03-01T18:00:00Z","id":"m1","seats":[{"player":"p","score":1},{"player":"o","score":0}]}
"#;

#[test]
fn priors_with_time_growth_both_orders() {
    let (t, roster, trace) = run_traced(PRIORS, &[]);
    let a = "UpdatePlayer(#0, #1)";
    let b = "UpdatePlayer(#1, #0)";
    let q = |s, n| quantity(&trace, s, 0, n);
    // ---- UpdatePlayer(p, o, 0.75, 1) ----
    // PRD = min(sqrt(200^2 + 0.5 * 400), 350) = sqrt(40200) = 200.4993765576342
    close(q(a, "PRD"), 200.4993765576342, 1e-12);
    assert!(!flags(&trace, a, 0).contains(&"rd-at-cap"));
    // PG = 1 / sqrt(1 + 3 * Q^2 * 900 / PI^2) = 1 / sqrt(1.0090652...) = 0.9954980060779488
    close(q(a, "PG"), 0.9954980060779488, 1e-12);
    // PE = 1 / (1 + 10^(-0.9954980060779488 * 100 / 400)) = 0.6394677360079211
    close(q(a, "PE"), 0.6394677360079211, 1e-12);
    // WinProb: G = 1 / sqrt(1 + 3 * Q^2 * (200^2 + 30^2) / PI^2) = 0.8415668764892216,
    //   1 / (1 + 10^(-G * 100 / 400)) = 0.6187969073387547; XD = 1 - that = 0.3812030926612453
    close(q(a, "XD"), 0.3812030926612453, 1e-12);
    // PMERIT = 1 - (1/6) * 0.3812030926612453 * 1.7624061853224906 = 0.8880275519382932
    close(q(a, "PMERIT"), 0.8880275519382932, 1e-12);
    // V = 1 / (PG^2 * PE * (1 - PE) * Q^2) = 132082.42784551685
    close(q(a, "V"), 132082.42784551685, 1e-6);
    // 1/PRD^2 + 1/V = 1/40200 + 1/132082.4278... = 3.244665171118015e-5
    // delta = Q * PG * (1 - PE) * (2 * PMERIT - 1) / 3.2446...e-5 = 49.415466554667965
    close(q(a, "delta"), 49.415466554667965, 1e-9);
    // RD = 1 / sqrt(3.244665171118015e-5) = 175.55574917437488
    close(q(a, "RD"), 175.55574917437488, 1e-9);

    // ---- as-written: UpdatePlayer(o, p', 0.75, 0) sees p' = 1549.415466554668 / 175.5557... ----
    // PRD = sqrt(30^2 + 0.5 * 400) = sqrt(1100) = 33.166247903554
    close(q(b, "PRD"), 33.166247903554, 1e-12);
    // PG = 1 / sqrt(1 + 3 * Q^2 * 175.5557...^2 / PI^2) = 0.8735608568846818
    close(q(b, "PG"), 0.8735608568846818, 1e-12);
    // PE = 1 / (1 + 10^(-PG * (1400 - 1549.415466554668) / 400)) = 0.32052641214612443
    close(q(b, "PE"), 0.32052641214612443, 1e-12);
    // XD = WinProb(o, p') = 0.32108974848388017; PMERIT = 0.9121188330588729
    close(q(b, "XD"), 0.32108974848388017, 1e-12);
    close(q(b, "PMERIT"), 0.9121188330588729, 1e-12);
    // V = 181579.1053734221; delta = -1.4525624846062422; RD = 33.066242052069036
    close(q(b, "V"), 181579.1053734221, 1e-6);
    close(q(b, "delta"), -1.4525624846062422, 1e-9);
    close(standing(&t, &roster, "o").rating, 1398.5474375153938, 1e-9);
    close(standing(&t, &roster, "o").rd.unwrap(), 33.066242052069036, 1e-9);

    // ---- simultaneous: UpdatePlayer(o, p, 0.75, 0) sees p = 1500 / 200 ----
    // PG = 1 / sqrt(1 + 3 * Q^2 * 200^2 / PI^2) = 0.8442814944018745
    // PE = 1 / (1 + 10^(-PG * (1400 - 1500) / 400)) = 0.38083454958652907
    // XD = WinProb(o, p) = 1 - 0.6187969073387547 = 0.38120309266124525
    // PMERIT = 0.8880275519382932 (XD as p's); V = 179544.04663899596
    // delta = -1.5704058668778098, RD = 1 / sqrt(1/1100 + 1/V) = 33.0651137058899
    let (s, roster, trace) = run_traced(PRIORS, &[("order", "simultaneous")]);
    close(quantity(&trace, b, 0, "PG"), 0.8442814944018745, 1e-12);
    close(quantity(&trace, b, 0, "PE"), 0.38083454958652907, 1e-12);
    close(quantity(&trace, b, 0, "delta"), -1.5704058668778098, 1e-9);
    close(standing(&s, &roster, "o").rating, 1398.4295941331222, 1e-9);
    close(standing(&s, &roster, "o").rd.unwrap(), 33.0651137058899, 1e-9);
    // The first seat's update is the same in both orders.
    close(standing(&s, &roster, "p").rating, 1549.415466554668, 1e-9);
}

#[test]
fn midnights_and_timeout_by_hand() {
    // o (1400/30) joins at 06:00 (Time 0.25) on day 1 and is next seen at 12:00 on day 4 in a
    // QueueTimeout. Three midnights passed: the first adds (1 - 0.25) * 400 = 300 to RD^2, the two
    // others 400 each: RD = min(sqrt(900 + 300 + 800), 350) = sqrt(2000) = 44.721359549995796.
    // The timeout sets Time = 0.5 and does not grow RD.
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"o","rating":1400,"rd":30}
{"type":"QueueTimeout","at":"2026-03-04T12:00:00Z","player":"o"}
"#;
    let (t, roster, trace) = run_traced(text, &[]);
    let o = roster.get("o").unwrap();
    close(quantity(&trace, "Midnights(#0)", 0, "midnights"), 3.0, 0.0);
    close(standing(&t, &roster, "o").rd.unwrap(), 2000f64.sqrt(), 1e-12);
    let v = t.values(o).unwrap();
    assert_eq!(v.time, 0.5);
    // Reported after one more midnight (a tick is the last event): RD^2 gains (1 - 0.5) * 400.
    let text2 = format!("{text}{}\n", r#"{"type":"MidnightTick","at":"2026-03-05T00:00:00Z"}"#);
    let (t, roster, _) = run_traced(&text2, &[]);
    close(standing(&t, &roster, "o").rd.unwrap(), 2200f64.sqrt(), 1e-12);
}
