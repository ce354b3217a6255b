//! `fixtures/golden-events.bin` pins today's stored form of events forever: it must decode to the
//! events built here, and they must encode to its bytes. The file is each event's
//! `ladder_events::codec` bytes behind a u32 little-endian length.
//!
//! It was generated once with `LADDER_WRITE_GOLDEN=1 cargo test -p ladder-events --test it golden`.
//! Never regenerate it to make this test pass: a change of the stored form is a new format or
//! schema byte in `codec.rs`, and these bytes must keep decoding.

use ladder_events::{codec, Body, Event, Prior, Seat, Team, Timestamp};
use std::path::PathBuf;

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/golden-events.bin")
}

fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("a test instant")
}

fn seat(player: &str, score: f64, team: Option<Team>, seconds: Option<f64>) -> Seat {
    Seat { player: player.into(), score, team, seconds, home: false }
}

/// One event per variant and option: ids present and absent, priors full, partial and empty, teams
/// as integers (negative too), text and none, seconds present and absent, nanoseconds, an instant
/// before 1970, names and reasons beyond ASCII.
fn expected() -> Vec<Event> {
    vec![
        Event {
            at: at("2026-03-01T09:00:00Z"),
            id: None,
            body: Body::PlayerJoined { player: "alice".into(), prior: Prior::default() },
        },
        Event {
            at: at("2026-03-01T09:05:00.123456789Z"),
            id: Some("join-bob".into()),
            body: Body::PlayerJoined {
                player: "bob".into(),
                prior: Prior { rating: Some(1712.5), rd: Some(80.25), volatility: Some(0.059) },
            },
        },
        Event {
            at: at("1969-12-31T23:59:59Z"),
            id: None,
            body: Body::PlayerJoined {
                player: "Zoë 🎲".into(),
                prior: Prior { rating: Some(-3.0), rd: None, volatility: None },
            },
        },
        Event {
            at: at("2026-03-01T12:00:00Z"),
            id: Some("m-1".into()),
            body: Body::MatchResult {
                seats: vec![seat("alice", 1.0, None, None), seat("bob", 0.0, None, None)],
            },
        },
        Event {
            at: at("2026-03-01T13:00:00+02:00"),
            id: None,
            body: Body::MatchResult {
                seats: vec![
                    seat("alice", 40.0, Some(Team::Text("red".into())), Some(1800.0)),
                    seat("bob", 35.5, Some(Team::Int(-4)), None),
                    seat("Zoë 🎲", 0.5, Some(Team::Int(1)), Some(0.25)),
                    seat("dan", 35.5, Some(Team::Text("1".into())), None),
                ],
            },
        },
        Event {
            at: at("2026-03-01T15:00:00Z"),
            id: Some("q-1".into()),
            body: Body::QueueTimeout { player: "bob".into() },
        },
        Event { at: at("2026-03-02"), id: None, body: Body::MidnightTick },
        Event { at: at("2026-03-03"), id: Some("tick-03-03".into()), body: Body::MidnightTick },
        Event {
            at: at("2026-03-03T10:00:00Z"),
            id: Some("v-1".into()),
            body: Body::MatchVoided {
                match_id: "m-1".into(),
                reason: "played on the wrong account — sorry".into(),
            },
        },
        Event {
            at: at("2262-04-11T23:47:16.854775807Z"),
            id: None,
            body: Body::MatchVoided { match_id: "m-2".into(), reason: String::new() },
        },
    ]
}

fn encode_all(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        let bytes = codec::encode(e);
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    out
}

#[test]
fn golden_events_decode_to_the_same_events_forever() {
    let events = expected();
    if std::env::var_os("LADDER_WRITE_GOLDEN").is_some() {
        std::fs::write(path(), encode_all(&events)).expect("the golden file writes");
    }
    let file = std::fs::read(path()).unwrap_or_else(|e| {
        panic!("{} is missing ({e}); generate it once with LADDER_WRITE_GOLDEN=1", path().display())
    });
    let mut rest = &file[..];
    let mut decoded = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest.split_at(4);
        let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
        let (bytes, tail) = tail.split_at(len);
        decoded.push(codec::decode(bytes).expect("a golden event decodes"));
        rest = tail;
    }
    assert_eq!(decoded, events, "the stored form changed meaning");
    assert_eq!(
        file,
        encode_all(&events),
        "today's encoder writes other bytes than the golden file"
    );
    // Every variant and option is covered.
    let kinds: std::collections::BTreeSet<_> = events.iter().map(|e| e.body.type_name()).collect();
    assert_eq!(kinds.len(), 5);
}
