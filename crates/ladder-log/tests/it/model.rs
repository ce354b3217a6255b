//! The model test (sled's `prop_tree_matches_btreemap` style): random appends (valid and invalid,
//! with every option), reads and restarts of a sled ledger, compared after every step with a plain
//! `Vec` of events and a second, deliberately naive implementation of the append rules.

use ladder_events::{Body, Event, Prior, Rule, Seat, Team, Timestamp, Violation, NANOS_PER_DAY};
use ladder_log::{chain_hash, AppendError, AppendOptions, Ledger, LogError, GENESIS};
use proptest::prelude::*;
use std::path::Path;

#[derive(Clone, Debug)]
enum Op {
    Append(Vec<Result<Event, Violation>>, AppendOptions),
    Reopen,
    Read(u64),
    /// The last Append again (a re-import), or a Reopen if there was none.
    Again,
}

const PLAYERS: [&str; 4] = ["ann", "bo", "cy", "di"];
const IDS: [&str; 5] = ["i0", "i1", "i2", "i3", "i4"];
const DAY0: i64 = 20_513; // 2026-03-01

fn instant() -> impl Strategy<Value = Timestamp> {
    let offsets = [0, 1, 6 * 3600 * 1_000_000_000, NANOS_PER_DAY / 2, NANOS_PER_DAY - 1];
    (0i64..6, proptest::sample::select(offsets.to_vec()))
        .prop_map(|(d, off)| Timestamp((DAY0 + d) * NANOS_PER_DAY + off))
}

fn id() -> impl Strategy<Value = Option<String>> {
    prop_oneof![2 => Just(None), 3 => proptest::sample::select(IDS.to_vec()).prop_map(|s| Some(s.to_string()))]
}

fn player() -> impl Strategy<Value = String> {
    proptest::sample::select(PLAYERS.to_vec()).prop_map(str::to_string)
}

fn body() -> impl Strategy<Value = Body> {
    prop_oneof![
        3 => (player(), proptest::option::of(prop_oneof![Just(1400.0), Just(1600.0)])).prop_map(
            |(player, rating)| Body::PlayerJoined { player, prior: Prior { rating, ..Prior::default() } }
        ),
        5 => (player(), player(), 0u8..3, any::<bool>()).prop_map(|(a, b, s, team)| Body::MatchResult {
            seats: vec![
                Seat { player: a, score: f64::from(s) / 2.0, team: team.then_some(Team::Int(1)), seconds: None, home: false },
                Seat { player: b, score: 1.0 - f64::from(s) / 2.0, team: None, seconds: Some(60.0), home: false },
            ],
        }),
        2 => Just(Body::MidnightTick),
        1 => player().prop_map(|player| Body::QueueTimeout { player }),
        2 => proptest::sample::select(IDS.to_vec())
            .prop_map(|m| Body::MatchVoided { match_id: m.to_string(), reason: "r".into() }),
    ]
}

fn item() -> impl Strategy<Value = Result<Event, Violation>> {
    prop_oneof![
        20 => (instant(), id(), body(), any::<bool>()).prop_map(|(mut at, id, body, snap)| {
            // Ticks mostly at midnight, so that they can be valid.
            if matches!(body, Body::MidnightTick) && snap {
                at = Timestamp(at.day() * NANOS_PER_DAY);
            }
            Ok(Event { at, id, body })
        }),
        1 => Just(Err(Violation::new(Rule::Syntax, "not json"))),
    ]
}

fn batch() -> impl Strategy<Value = Vec<Result<Event, Violation>>> {
    (proptest::collection::vec(item(), 0..12), any::<bool>()).prop_map(|(mut items, sorted)| {
        if sorted {
            items.sort_by_key(|i| i.as_ref().map(|e| e.at).unwrap_or(Timestamp(0)));
        }
        items
    })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (batch(), any::<(bool, bool)>(), proptest::bool::weighted(0.7), proptest::option::weighted(0.2, instant())).prop_map(|(b, (auto_join, ticks), skip_invalid, not_after)| {
            Op::Append(b, AppendOptions { auto_join, ticks, skip_invalid, not_after })
        }),
        1 => Just(Op::Reopen),
        2 => Just(Op::Again),
        1 => (0u64..40).prop_map(Op::Read),
    ]
}

// ---- The model: the rules again, by linear scans over a Vec. ----

fn is_tick(e: &Event) -> bool {
    matches!(e.body, Body::MidnightTick)
}

fn join_of<'a>(all: &'a [Event], p: &str) -> Option<&'a Event> {
    all.iter().find(|x| matches!(&x.body, Body::PlayerJoined { player, .. } if player == p))
}

/// What a batch remembers for the duplicate rule of id-less events: the events stored before it,
/// the instant of the window (it only moves forward), and the stored events already matched.
struct Twins<'a> {
    base: &'a [Event],
    window: Option<Timestamp>,
    matched: Vec<usize>,
}

fn twin_kind(e: &Event) -> bool {
    matches!(
        e.body,
        Body::MatchResult { .. } | Body::QueueTimeout { .. } | Body::MatchVoided { .. }
    )
}

fn step(
    all: &mut Vec<Event>,
    e: Event,
    opts: AppendOptions,
    dups: &mut u64,
    twins: &mut Twins<'_>,
) -> Result<(), Rule> {
    if let Some(s) = all.iter().find(|x| e.id.is_some() && x.id == e.id) {
        if s.at == e.at && s.body == e.body {
            *dups += 1;
            return Ok(());
        }
        return Err(Rule::IdConflict);
    }
    let base_last = twins.base.last().map(|l| l.at);
    if e.id.is_none()
        && twin_kind(&e)
        && base_last.is_some_and(|l| e.at <= l)
        && twins.window.is_none_or(|w| w <= e.at)
    {
        twins.window = Some(e.at);
        let twin = (0..twins.base.len()).find(|&i| {
            let x = &twins.base[i];
            x.id.is_none() && x.at == e.at && x.body == e.body && !twins.matched.contains(&i)
        });
        if let Some(i) = twin {
            twins.matched.push(i);
            *dups += 1;
            return Ok(());
        }
    }
    let mut joined_twice = false;
    if let Body::PlayerJoined { player, .. } = &e.body {
        if let Some(j) = join_of(all, player) {
            if j.at == e.at && j.body == e.body {
                *dups += 1;
                return Ok(());
            }
            joined_twice = true;
        }
    }
    if is_tick(&e)
        && e.at.is_midnight()
        && all.iter().any(|x| is_tick(x) && x.at.day() == e.at.day())
    {
        *dups += 1;
        return Ok(());
    }
    e.check().map_err(|v| v.rule)?;
    if let Some(bound) = opts.not_after {
        if e.at > bound {
            return Err(Rule::FutureInstant);
        }
    }
    let last = all.last().map(|l| (l.at, is_tick(l)));
    if let Some((at, tick)) = last {
        if e.at < at {
            return Err(Rule::TimeOrder);
        }
        if is_tick(&e) && e.at == at && !tick {
            return Err(Rule::TickOrder);
        }
    }
    if joined_twice {
        return Err(Rule::JoinedTwice);
    }
    let mut missing = Vec::new();
    if matches!(e.body, Body::MatchResult { .. } | Body::QueueTimeout { .. }) {
        for p in e.players() {
            if join_of(all, p).is_none() {
                if !opts.auto_join {
                    return Err(Rule::UnknownPlayer);
                }
                missing.push(p.to_string());
            }
        }
    }
    if let Body::MatchVoided { match_id, .. } = &e.body {
        let target = all.iter().find(|x| x.id.as_deref() == Some(match_id.as_str()));
        if !matches!(target, Some(Event { body: Body::MatchResult { .. }, .. })) {
            return Err(Rule::VoidTarget);
        }
        if all
            .iter()
            .any(|x| matches!(&x.body, Body::MatchVoided { match_id: m, .. } if m == match_id))
        {
            return Err(Rule::VoidRepeated);
        }
    }
    if let (true, Some((at, _))) = (opts.ticks, last) {
        let end = if is_tick(&e) { e.at.day() - 1 } else { e.at.day() };
        for day in at.day() + 1..=end {
            if !all.iter().any(|x| is_tick(x) && x.at.day() == day) {
                all.push(Event {
                    at: Timestamp(day * NANOS_PER_DAY),
                    id: None,
                    body: Body::MidnightTick,
                });
            }
        }
    }
    for player in missing {
        all.push(Event {
            at: e.at,
            id: None,
            body: Body::PlayerJoined { player, prior: Prior::default() },
        });
    }
    all.push(e);
    Ok(())
}

type Outcome = Result<(u64, u64, Vec<(usize, Rule)>), (usize, Rule)>;

/// The model's append: the new stored events, or the refusal.
fn model_append(
    stored: &mut Vec<Event>,
    items: &[Result<Event, Violation>],
    opts: AppendOptions,
) -> Outcome {
    let mut all = stored.clone();
    let (mut dups, mut skipped) = (0, Vec::new());
    let mut twins = Twins { base: stored, window: None, matched: Vec::new() };
    for (i, item) in items.iter().enumerate() {
        let r = match item {
            Err(v) => Err(v.rule),
            Ok(e) => step(&mut all, e.clone(), opts, &mut dups, &mut twins),
        };
        if let Err(rule) = r {
            if !opts.skip_invalid {
                return Err((i, rule));
            }
            skipped.push((i, rule));
        }
    }
    let appended = (all.len() - stored.len()) as u64;
    *stored = all;
    Ok((appended, dups, skipped))
}

fn open(path: &Path) -> Ledger {
    let start = std::time::Instant::now();
    loop {
        match Ledger::open(path) {
            Err(LogError::Locked { .. }) if start.elapsed().as_secs() < 5 => {}
            other => return other.expect("the ledger opens"),
        }
    }
}

fn check_same(ledger: &Ledger, model: &[Event]) {
    let stored: Vec<Event> = ledger.events(1).map(|e| e.expect("reads").event).collect();
    assert_eq!(stored, model);
    let mut h = GENESIS;
    for e in model {
        // The chain is over each event's canonical JSON line (docs/proofs.md).
        h = chain_hash(&h, ladder_events::json::to_line(e).as_bytes());
    }
    assert_eq!(ledger.head().seq, model.len() as u64);
    assert_eq!(ledger.head().hash, h);
    assert_eq!(ledger.verify(Some(ledger.head())).expect("verifies"), ledger.head());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn ledger_matches_a_vec_model(ops in proptest::collection::vec(op(), 1..20)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger");
        let mut ledger = open(&path);
        let mut model: Vec<Event> = Vec::new();
        let mut last = None;
        let ops: Vec<Op> = ops
            .into_iter()
            .map(|op| match op {
                Op::Again => last.clone().unwrap_or(Op::Reopen),
                Op::Append(..) => {
                    last = Some(op.clone());
                    op
                }
                other => other,
            })
            .collect();
        for op in ops {
            match op {
                Op::Append(items, opts) => {
                    let expected = model_append(&mut model, &items, opts);
                    let got = ledger.append(items, &opts);
                    match (got, expected) {
                        (Ok(r), Ok((appended, dups, skipped))) => {
                            let rules: Vec<_> = r.skipped.iter().map(|(i, v)| (*i, v.rule)).collect();
                            prop_assert_eq!((r.appended, r.duplicates, rules), (appended, dups, skipped));
                            prop_assert_eq!(r.head, ledger.head());
                        }
                        (Err(AppendError::Refused { index, violation }), Err((i, rule))) => {
                            prop_assert_eq!((index, violation.rule), (i, rule));
                        }
                        (got, expected) => prop_assert!(false, "ledger {:?}, model {:?}", got, expected),
                    }
                }
                Op::Reopen => {
                    drop(ledger);
                    ledger = open(&path);
                }
                Op::Read(from) => {
                    let got: Vec<Event> = ledger.events(from).map(|e| e.unwrap().event).collect();
                    let skip = (from.max(1) as usize - 1).min(model.len());
                    prop_assert_eq!(&got[..], &model[skip..]);
                }
                Op::Again => unreachable!("replaced by the last append above"),
            }
            check_same(&ledger, &model);
        }
    }
}
