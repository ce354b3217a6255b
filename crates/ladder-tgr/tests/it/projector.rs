//! Configuration, errors, display, leaderboard, queue and trace behaviour of the projector.

use crate::{close, events, flags, run, run_traced, sets, standing, tgr};
use ladder_events::Timestamp;
use ladder_projector::{
    fold_all, Algorithm, Config, ConfigError, ParamKind, PlayerId, ProjectErrorKind, Projector,
    TraceEntry,
};
use ladder_tgr::{glixare, pair, Order, Tgr, PARAMS};

#[test]
fn params_are_the_documented_ones() {
    let keys: Vec<&str> = PARAMS.iter().map(|s| s.key).collect();
    assert_eq!(
        keys,
        [
            "sc",
            "p",
            "rd_max",
            "provisional_rd",
            "initial_rating",
            "initial_rd",
            "order",
            "home",
            "revert",
            "revert_after"
        ]
    );
    let t = Tgr::configure(&[]).unwrap();
    let c = t.config();
    assert_eq!(
        c.to_string(),
        "tgr sc=20.0 p=0.8333333333333334 rd_max=350.0 provisional_rd=100.0 \
         initial_rating=1500.0 initial_rd=350.0 order=as-written"
    );
    // `home` is echoed once it is set (at 0 it changes nothing, and outputs stay as they were).
    let h = Tgr::configure(&[("home".into(), "30".into())]).unwrap();
    assert!(h.config().to_string().ends_with(" order=as-written home=30.0"), "{}", h.config());
    assert_eq!(c.number("p"), 5.0 / 6.0);
    assert!(c.warnings.is_empty(), "the default p must not warn: {:?}", c.warnings);
    let p = PARAMS.iter().find(|s| s.key == "p").unwrap();
    assert_eq!(p.kind, ParamKind::between(0.0, 1.0));
    assert_eq!(p.warn_below.map(|w| w.0), Some(5.0 / 6.0));
    assert_eq!(t.order(), Order::AsWritten);
    assert_eq!(t.algorithm(), "tgr");
}

#[test]
fn p_below_five_sixths_warns_outside_the_unit_interval_is_refused() {
    for p in ["0.35", "0", "0.8333"] {
        let t = Tgr::configure(&sets(&[("p", p)])).unwrap();
        assert_eq!(t.config().warnings.len(), 1, "p={p}");
        assert!(t.config().warnings[0].contains("reverse the sign"), "{:?}", t.config().warnings);
    }
    for p in ["0.8333333333333334", "0.9", "1"] {
        assert!(Tgr::configure(&sets(&[("p", p)])).unwrap().config().warnings.is_empty(), "p={p}");
    }
    for bad in [("p", "-0.01"), ("p", "1.01"), ("p", "nan"), ("sc", "-1"), ("rd_max", "0")] {
        assert!(
            matches!(Tgr::configure(&sets(&[bad])), Err(ConfigError::BadValue { .. })),
            "{bad:?} must be refused"
        );
    }
    for bad in [("initial_rd", "-5"), ("provisional_rd", "0"), ("order", "random")] {
        assert!(
            matches!(Tgr::configure(&sets(&[bad])), Err(ConfigError::BadValue { .. })),
            "{bad:?}"
        );
    }
    assert!(matches!(Tgr::configure(&sets(&[("c", "1")])), Err(ConfigError::UnknownKey { .. })));
}

#[test]
fn new_rechecks_a_hand_built_config() {
    let mut c = Tgr::configure(&[]).unwrap().config().clone();
    c.values[1].1 = ladder_projector::ParamValue::Number(2.0);
    assert!(matches!(Tgr::new(c), Err(ConfigError::BadValue { key: "p", .. })));
    let other = Config { algorithm: "glicko", values: vec![], warnings: vec![] };
    assert!(matches!(Tgr::new(other), Err(ConfigError::Inconsistent { .. })));
    // Missing keys take their defaults.
    let partial = Config { algorithm: "tgr", values: vec![], warnings: vec![] };
    assert_eq!(Tgr::new(partial).unwrap().constants().sc, 20.0);
}

#[test]
fn pe_of_exactly_one_is_a_typed_error_naming_the_event() {
    // 10000 vs 1500 with small RDs: PG ~ 1, PE = 1 / (1 + 10^(-21.2...)) rounds to exactly 1.
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"giant","rating":10000,"rd":30}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"ant","rating":1500,"rd":30}
{"type":"MatchResult","at":"2026-03-01T07:00:00Z","id":"m1","seats":[{"player":"giant","score":1},{"player":"ant","score":0}]}
"#;
    let mut t = tgr(&[]);
    let err = fold_all(&events(text), &mut t).unwrap_err();
    assert_eq!(err.seq, 3);
    match &err.kind {
        ProjectErrorKind::NonFinite { quantity, detail } => {
            assert_eq!(*quantity, "V");
            assert!(detail.contains("PE rounded to exactly 1"), "{detail}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().starts_with("event 3: V is not finite"), "{err}");
    // Nothing was half-applied: both players keep their priors.
    close(t.values(PlayerId(0)).unwrap().rating, 10000.0, 0.0);
    close(t.values(PlayerId(1)).unwrap().rating, 1500.0, 0.0);
}

#[test]
fn a_player_who_never_joined_is_a_typed_error() {
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"a"}
{"type":"QueueTimeout","at":"2026-03-01T07:00:00Z","player":"ghost"}
"#;
    let err = fold_all(&events(text), &mut tgr(&[])).unwrap_err();
    assert_eq!((err.seq, err.kind), (2, ProjectErrorKind::UnknownPlayer(1)));
}

#[test]
fn glixare_of_1500_is_exactly_fifty_and_rounds_to_two_decimals() {
    for rd in [0.0, 30.0, 50.0, 100.0, 350.0] {
        assert_eq!(glixare(1500.0, rd), 50.0, "rd {rd}");
    }
    // By hand, 1700/50: spread = sqrt(3 * ln(10)^2 * 50^2 + 2500 * (64 * PI^2 + 147 * ln(10)^2))
    //   ln(10)^2 = 5.301898110478399; 3 * 5.301898110478399 * 2500 = 39764.235828588
    //   64 * PI^2 = 631.6546816698021; 147 * ln(10)^2 = 779.3790222403247;
    //   2500 * (631.6546816698021 + 779.3790222403247) = 3527584.2597753173
    //   spread = sqrt(3567348.4956039053) = 1888.742569966565
    //   exponent = (1500 - 1700) * PI / 1888.742569966565 = -0.33266499135936917
    //   10000 / (1 + 10^-0.33266499135936917) = 6826.526933984385; round = 6827; / 100 = 68.27
    //   1300/50 mirrors it: exponent +0.33266..., 3173.473...; round = 3173; / 100 = 31.73
    assert_eq!(glixare(1700.0, 50.0), 68.27);
    assert_eq!(glixare(1300.0, 50.0), 31.73);
    let x = glixare(1612.345678, 87.0);
    assert_eq!((x * 100.0).round() / 100.0, x);
}

#[test]
fn provisional_is_rd_strictly_above_provisional_rd() {
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"at","rating":1600,"rd":100}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"above","rating":1600,"rd":100.000001}
"#;
    let (t, roster) = run(text, &[]);
    let at = standing(&t, &roster, "at").display.unwrap();
    assert!(!at.provisional);
    assert_eq!(at.glixare, Some(glixare(1600.0, 100.0)));
    let above = standing(&t, &roster, "above").display.unwrap();
    assert!(above.provisional);
    assert_eq!(above.glixare, None);
}

#[test]
fn queue_pairs_through_the_projectors_values() {
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"me","rating":1500,"rd":60}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"strong","rating":1900,"rd":60}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"near","rating":1580,"rd":60}
"#;
    let (t, roster) = run(text, &[]);
    let at = Timestamp::parse("2026-03-03T10:00:00Z").unwrap();
    let me = t.values_at(roster.get("me").unwrap(), at).unwrap();
    // Two midnights since 06:00: RD^2 = 3600 + 0.75 * 400 + 400 = 4300.
    close(me.rd, 4300f64.sqrt(), 1e-12);
    let waiting: Vec<(PlayerId, f64, f64)> = ["strong", "near"]
        .iter()
        .map(|n| {
            let id = roster.get(n).unwrap();
            let v = t.values_at(id, at).unwrap();
            (id, v.rating, v.rd)
        })
        .collect();
    let choice = pair((me.rating, me.rd), &waiting);
    assert_eq!(choice.opponent.map(|c| c.player), roster.get("near"));
    assert!(!choice.candidates[0].in_band, "1900 is beyond the 15%..85% band");
    // expectation() is the same WinProb with the same virtual midnights.
    close(
        t.expectation(roster.get("me").unwrap(), roster.get("near").unwrap(), at),
        choice.candidates[1].win_prob,
        0.0,
    );
    assert_eq!(t.expectation(PlayerId(0), PlayerId(99), at), 0.5);
}

#[test]
fn multi_seat_matches_battle_every_pair_of_sides_in_seat_order() {
    let text = r#"
{"type":"PlayerJoined","at":"2026-05-01T18:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-05-01T18:00:00Z","player":"b"}
{"type":"PlayerJoined","at":"2026-05-01T18:00:00Z","player":"c"}
{"type":"PlayerJoined","at":"2026-05-01T18:00:00Z","player":"d"}
{"type":"MatchResult","at":"2026-05-01T19:00:00Z","id":"t","seats":[{"player":"a","score":3,"team":"x"},{"player":"b","score":5,"team":"y"},{"player":"c","score":3,"team":"x"},{"player":"d","score":3}]}
"#;
    let (t, roster, trace) = run_traced(text, &[]);
    let sections: Vec<&str> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            TraceEntry::Section(s) if s.starts_with("UpdatePlayer") => Some(s.as_str()),
            _ => None,
        })
        .collect();
    // a-c are team-mates: pairs (a,b) (a,d) (b,c) (b,d) (c,d), each both ways.
    assert_eq!(
        sections,
        [
            "UpdatePlayer(#0, #1)",
            "UpdatePlayer(#1, #0)",
            "UpdatePlayer(#0, #3)",
            "UpdatePlayer(#3, #0)",
            "UpdatePlayer(#1, #2)",
            "UpdatePlayer(#2, #1)",
            "UpdatePlayer(#1, #3)",
            "UpdatePlayer(#3, #1)",
            "UpdatePlayer(#2, #3)",
            "UpdatePlayer(#3, #2)",
        ]
    );
    // a vs d is a draw (3 = 3): Win = 0.5 both ways.
    close(crate::quantity(&trace, "UpdatePlayer(#0, #3)", 0, "Win"), 0.5, 0.0);
    close(crate::quantity(&trace, "UpdatePlayer(#0, #1)", 0, "Win"), 0.0, 0.0);
    for name in ["a", "b", "c", "d"] {
        assert_eq!(standing(&t, &roster, name).games, 1);
    }
}

#[test]
fn flags_for_auditors() {
    // p = 0.35: an even battle has PMERIT = P = 0.35, so 2 * PMERIT - 1 = -0.3 < 0 and the winner
    // loses rating (the loser gains).
    let text = r#"
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"a","rating":1500,"rd":80}
{"type":"PlayerJoined","at":"2026-03-01T06:00:00Z","player":"b","rating":1500,"rd":80}
{"type":"MatchResult","at":"2026-03-01T07:00:00Z","id":"m1","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"MatchResult","at":"2026-03-12T07:00:00Z","id":"m2","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
"#;
    let (t, roster, trace) = run_traced(text, &[("p", "0.35")]);
    let first = flags(&trace, "UpdatePlayer(#0, #1)", 0);
    assert!(first.contains(&"negative-merit-weight"), "{first:?}");
    assert!(first.contains(&"winner-lost-rating"), "{first:?}");
    assert!(!first.contains(&"provisional-opponent"), "{first:?}");
    assert!(flags(&trace, "UpdatePlayer(#1, #0)", 0).contains(&"loser-gained-rating"));
    assert!(standing(&t, &roster, "a").rating < 1500.0);
    // Eleven days later: long-idle-gap on catching up.
    assert!(flags(&trace, "Midnights(#0)", 0).contains(&"long-idle-gap"));
    // With the default P no such flags.
    let (_, _, trace) = run_traced(text, &[]);
    let first = flags(&trace, "UpdatePlayer(#0, #1)", 0);
    assert!(!first.contains(&"negative-merit-weight") && !first.contains(&"winner-lost-rating"));
}

#[test]
fn checkpoint_restores_the_same_projection() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/club.jsonl"))
            .unwrap();
    let all = events(&text);
    let (whole, _) = run(&text, &[]);
    // Fold half, checkpoint, restore into a new projector, fold the rest.
    let voided = ladder_projector::voided_ids(&all);
    let mut feeder = ladder_projector::Feeder::new();
    let mut first = tgr(&[]);
    let half = all.len() / 2;
    for (i, e) in all[..half].iter().enumerate() {
        feeder.feed(i as u64 + 1, e, &|id| voided.contains(id), &mut [&mut first], None).unwrap();
    }
    let mut second = Tgr::restore(first.config().clone(), first.state().clone()).unwrap();
    for (i, e) in all[half..].iter().enumerate() {
        feeder
            .feed((half + i) as u64 + 1, e, &|id| voided.contains(id), &mut [&mut second], None)
            .unwrap();
    }
    assert_eq!(second.standings(), whole.standings());
}

/// What `explain` asks TGR through the `Projector` trait: no rating periods, and the reason a
/// rating change turned around, with the trace's numbers.
#[test]
fn explain_reads_no_period_and_the_merit_reason_from_the_projector() {
    let t = tgr(&[("p", "0.35")]);
    assert_eq!(t.rating_period(Timestamp(0)), None);
    assert_eq!(t.period_change(&|_| Some(1.0)), None);
    let q = |name: &str| match name {
        "XD" => Some(0.5),
        "PMERIT" | "P" => Some(0.35),
        _ => None,
    };
    for code in ["winner-lost-rating", "loser-gained-rating", "negative-merit-weight"] {
        let why = t.flag_reason(code, "kuwait", &q).unwrap();
        assert!(why.starts_with("the result's surprise XD = |Win - WinProb| = 0.500000"), "{why}");
        assert!(why.contains("2 PMERIT - 1 = -0.300000 is negative"), "{why}");
    }
    assert_eq!(t.flag_reason("rd-at-cap", "kuwait", &q), None);
}
