//! The folded form: a history laid out for folding, derived from the stored events.
//!
//! A replay spends most of its time outside the rating arithmetic: reading the stored events,
//! decoding them and looking every player name up (docs/PERFORMANCE.md, "What limits the
//! replay"). The folded form does that work once: every player is interned when first seen, in
//! order of first appearance over the whole history, and every event becomes a short record of
//! fixed-width fields naming players by that number. A name is written once, in a [`Item::Name`]
//! record just before the first event that names it.
//!
//! It is derived data, never a source of truth: ladder-log writes it beside the chain, bound to
//! the head it was built through and to a checksum, and rebuilds it when it no longer matches
//! (docs/spec.md, "The folded form"). This module only encodes and decodes records, with no IO;
//! decoding bounds-checks everything, so damaged bytes are an error, never a panic.
//!
//! Records, little-endian, each opening with a tag byte:
//!
//! | tag | record | fields after the tag |
//! |---|---|---|
//! | 0 | name | length `u32`, UTF-8 bytes |
//! | 1 | PlayerJoined | at `i64`, player `u32`, flags `u8` (bit 0 rating, 1 rd, 2 volatility), each given quantity `f64` |
//! | 2 | MatchResult | at `i64`, seats `u16`, then per seat: player `u32`, side `u32`, flags `u8` (bit 0 home, bit 1 seconds), score `f64`, seconds `f64` if given |
//! | 3 | MidnightTick | at `i64` |
//! | 4 | QueueTimeout | at `i64`, player `u32` |
//! | 5 | MatchVoided | at `i64` (which match it voids is kept beside the records, by sequence number) |
//! | 6 | a plain two-seat MatchResult | at `i64`, first seat's player `u32`, second seat's player `u32`, flags `u8`, the seats' seconds `f64` if given |
//!
//! Tag 6 is the common match in 18 or 26 bytes instead of tag 2's 45 or 61: two seats on two
//! sides (sides 0 and 1), scores exactly 1 and 0, 0 and 1, or 0.5 and 0.5, and either no
//! `seconds` or the same `seconds` on both seats (scores and seconds compared bit for bit, so
//! `-0.0` takes tag 2). Its flags: bits 0 and 1 the scores (0: 1 and 0, 1: 0 and 1, 2: 0.5 and
//! 0.5), bit 2 the first seat at home, bit 3 the second, bit 4 the seconds given. It reads back
//! as the same seats tag 2 would give. Every other match takes tag 2.
//!
//! Every stored event has exactly one record, in sequence order, so an event's sequence number
//! is its position among the event records.

use crate::codec::{BodyView, EventView};
use crate::{Prior, Timestamp};
use std::collections::HashMap;

const NAME: u8 = 0;
const JOINED: u8 = 1;
const MATCH: u8 = 2;
const TICK: u8 = 3;
const TIMEOUT: u8 = 4;
const VOIDED: u8 = 5;
const MATCH2: u8 = 6;

/// The scores of tag 6's outcomes, by the flags' bits 0 and 1.
const OUTCOMES: [(f64, f64); 3] = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)];

/// Why bytes are not folded records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FoldedError {
    /// A record ends past the bytes.
    #[error("folded record at byte {at} is cut short")]
    Truncated {
        /// Where the record starts.
        at: usize,
    },
    /// A tag no record has.
    #[error("folded record at byte {at} has unknown tag {tag}")]
    Tag {
        /// Where the record starts.
        at: usize,
        /// The tag read.
        tag: u8,
    },
    /// A plain two-seat match's flags that name no outcome.
    #[error("folded record at byte {at} has flags {flags:#04x}, which name no outcome")]
    Flags {
        /// Where the record starts.
        at: usize,
        /// The flags read.
        flags: u8,
    },
    /// A name that is not UTF-8.
    #[error("folded name at byte {at} is not UTF-8")]
    Name {
        /// Where the record starts.
        at: usize,
    },
}

/// One seat of a folded match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FoldedSeat {
    /// The player's number in the folded form (order of first appearance over the history).
    pub player: u32,
    /// The seat's side: seats of one team share it ([`crate::Event::sides`]).
    pub side: u32,
    /// Points scored.
    pub score: f64,
    /// Time in the game in seconds, if given.
    pub seconds: Option<f64>,
    /// The seat is at home.
    pub home: bool,
}

/// An event as the folded form keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FoldedBody<'a> {
    /// A PlayerJoined.
    Joined {
        /// The player's number.
        player: u32,
        /// The prior given, if any.
        prior: Prior,
    },
    /// A MatchResult, its seats in the order written.
    Match {
        /// The seats.
        seats: FoldedSeats<'a>,
    },
    /// A MidnightTick.
    Tick,
    /// A QueueTimeout.
    Timeout {
        /// Who waited.
        player: u32,
    },
    /// A MatchVoided.
    Voided,
}

/// The seats of a folded match, checked when the record was read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FoldedSeats<'a> {
    repr: Seats<'a>,
}

/// How a record holds its seats.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Seats<'a> {
    /// Tag 2: `len` seats of the general layout.
    General { bytes: &'a [u8], len: usize },
    /// Tag 6: two players, the flags, and both seats' seconds.
    Two { a: u32, b: u32, flags: u8, seconds: Option<f64> },
}

impl<'a> FoldedSeats<'a> {
    /// How many seats.
    pub fn len(&self) -> usize {
        match self.repr {
            Seats::General { len, .. } => len,
            Seats::Two { .. } => 2,
        }
    }

    /// True when the match has no seat (never stored: the append rules refuse it).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The seats in order.
    pub fn iter(&self) -> SeatIter<'a> {
        SeatIter { repr: self.repr, next: 0 }
    }
}

/// The seats of a [`FoldedSeats`], in order.
pub struct SeatIter<'a> {
    repr: Seats<'a>,
    next: usize,
}

impl Iterator for SeatIter<'_> {
    type Item = FoldedSeat;

    #[inline]
    fn next(&mut self) -> Option<FoldedSeat> {
        match &mut self.repr {
            Seats::Two { a, b, flags, seconds } => {
                let (player, side) = match self.next {
                    0 => (*a, 0),
                    1 => (*b, 1),
                    _ => return None,
                };
                // Checked when read: bits 0 and 1 are 0, 1 or 2.
                let (x, y) = OUTCOMES[usize::from(*flags & 3).min(2)];
                let score = if side == 0 { x } else { y };
                let home = *flags & (4 << side) != 0;
                self.next += 1;
                Some(FoldedSeat { player, side, score, seconds: *seconds, home })
            }
            Seats::General { bytes, len } => {
                if self.next >= *len {
                    return None;
                }
                self.next += 1;
                let rest = *bytes;
                // The record was checked whole when read, so every read here is in bounds.
                let player = u32::from_le_bytes(rest[0..4].try_into().unwrap_or_default());
                let side = u32::from_le_bytes(rest[4..8].try_into().unwrap_or_default());
                let flags = rest[8];
                let score = f64::from_le_bytes(rest[9..17].try_into().unwrap_or_default());
                let (seconds, n) = if flags & 2 != 0 {
                    (Some(f64::from_le_bytes(rest[17..25].try_into().unwrap_or_default())), 25)
                } else {
                    (None, 17)
                };
                *bytes = &rest[n..];
                Some(FoldedSeat { player, side, score, seconds, home: flags & 1 != 0 })
            }
        }
    }
}

/// A folded record: a name's first appearance, or an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item<'a> {
    /// The next player number goes to this name.
    Name(&'a str),
    /// The next event, in sequence order.
    Event {
        /// When it happened.
        at: Timestamp,
        /// What happened.
        body: FoldedBody<'a>,
    },
}

/// Reads folded records from bytes holding whole records.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    fn take(&mut self, start: usize, n: usize) -> Result<&'a [u8], FoldedError> {
        let end = self.pos.checked_add(n).ok_or(FoldedError::Truncated { at: start })?;
        let out = self.bytes.get(self.pos..end).ok_or(FoldedError::Truncated { at: start })?;
        self.pos = end;
        Ok(out)
    }

    fn u8(&mut self, start: usize) -> Result<u8, FoldedError> {
        Ok(self.take(start, 1)?[0])
    }

    fn u32(&mut self, start: usize) -> Result<u32, FoldedError> {
        let b = self.take(start, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, start: usize) -> Result<u64, FoldedError> {
        let b = self.take(start, 8)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    fn f64(&mut self, start: usize) -> Result<f64, FoldedError> {
        Ok(f64::from_bits(self.u64(start)?))
    }

    fn at(&mut self, start: usize) -> Result<Timestamp, FoldedError> {
        Ok(Timestamp(self.u64(start)? as i64))
    }

    fn item(&mut self) -> Result<Item<'a>, FoldedError> {
        let start = self.pos;
        let tag = self.u8(start)?;
        let body = match tag {
            NAME => {
                let len = self.u32(start)? as usize;
                let bytes = self.take(start, len)?;
                let name =
                    std::str::from_utf8(bytes).map_err(|_| FoldedError::Name { at: start })?;
                return Ok(Item::Name(name));
            }
            JOINED => {
                let at = self.at(start)?;
                let player = self.u32(start)?;
                let flags = self.u8(start)?;
                let mut quantity = |bit: u8| -> Result<Option<f64>, FoldedError> {
                    if flags & bit != 0 {
                        Ok(Some(self.f64(start)?))
                    } else {
                        Ok(None)
                    }
                };
                let rating = quantity(1)?;
                let rd = quantity(2)?;
                let volatility = quantity(4)?;
                (at, FoldedBody::Joined { player, prior: Prior { rating, rd, volatility } })
            }
            MATCH => {
                let at = self.at(start)?;
                let b = self.take(start, 2)?;
                let len = u16::from_le_bytes([b[0], b[1]]) as usize;
                let from = self.pos;
                for _ in 0..len {
                    self.take(start, 8)?;
                    let flags = self.u8(start)?;
                    self.take(start, if flags & 2 != 0 { 16 } else { 8 })?;
                }
                let seats = Seats::General { bytes: &self.bytes[from..self.pos], len };
                (at, FoldedBody::Match { seats: FoldedSeats { repr: seats } })
            }
            MATCH2 => {
                let at = self.at(start)?;
                let a = self.u32(start)?;
                let b = self.u32(start)?;
                let flags = self.u8(start)?;
                if flags & 3 == 3 || flags >> 5 != 0 {
                    return Err(FoldedError::Flags { at: start, flags });
                }
                let seconds = if flags & 16 != 0 { Some(self.f64(start)?) } else { None };
                let seats = Seats::Two { a, b, flags, seconds };
                (at, FoldedBody::Match { seats: FoldedSeats { repr: seats } })
            }
            TICK => (self.at(start)?, FoldedBody::Tick),
            TIMEOUT => {
                let at = self.at(start)?;
                (at, FoldedBody::Timeout { player: self.u32(start)? })
            }
            VOIDED => (self.at(start)?, FoldedBody::Voided),
            tag => return Err(FoldedError::Tag { at: start, tag }),
        };
        Ok(Item::Event { at: body.0, body: body.1 })
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Item<'a>, FoldedError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let item = self.item();
        if item.is_err() {
            // Nothing after a bad record can be read: stop.
            self.pos = self.bytes.len();
        }
        Some(item)
    }
}

/// Writes folded records, numbering players in order of first appearance.
#[derive(Default)]
pub struct Encoder {
    names: HashMap<Box<str>, u32>,
    out: Vec<u8>,
    sides: Vec<u32>,
}

impl Encoder {
    /// An encoder that has seen no player.
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// How many players have a number.
    pub fn players(&self) -> usize {
        self.names.len()
    }

    /// The bytes written since the last [`Encoder::take`].
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    /// The bytes written since the last call, leaving the encoder's numbering as it is.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// The player number of `name`, writing its name record first when it is new.
    fn player(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        // Fewer than 2^32 players: each has a PlayerJoined, and a ledger holds fewer events.
        let id = self.names.len() as u32;
        self.names.insert(name.into(), id);
        self.out.push(NAME);
        self.out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        self.out.extend_from_slice(name.as_bytes());
        id
    }

    /// Appends the record of the next event.
    pub fn push(&mut self, event: &EventView<'_>) {
        let at = event.at.0.to_le_bytes();
        match event.body {
            BodyView::PlayerJoined { player, prior } => {
                let id = self.player(player);
                self.out.push(JOINED);
                self.out.extend_from_slice(&at);
                self.out.extend_from_slice(&id.to_le_bytes());
                let given = [prior.rating, prior.rd, prior.volatility];
                let flags = given
                    .iter()
                    .enumerate()
                    .fold(0u8, |f, (i, q)| f | (u8::from(q.is_some()) << i));
                self.out.push(flags);
                for q in given.into_iter().flatten() {
                    self.out.extend_from_slice(&q.to_bits().to_le_bytes());
                }
            }
            BodyView::MatchResult { seats } => {
                // Sides as Event::sides numbers them: a seat shares the side of the first earlier
                // seat of its team, and any other seat opens a new one.
                self.sides.clear();
                let mut next = 0u32;
                let all: Vec<_> = seats.iter().collect();
                for (i, seat) in all.iter().enumerate() {
                    let shared = seat.team.and_then(|t| {
                        all[..i].iter().position(|s| s.team == Some(t)).map(|j| self.sides[j])
                    });
                    self.sides.push(shared.unwrap_or_else(|| {
                        next += 1;
                        next - 1
                    }));
                }
                let ids: Vec<u32> = all.iter().map(|s| self.player(s.player)).collect();
                if let Some(flags) = plain_two(&all, &self.sides) {
                    self.out.push(MATCH2);
                    self.out.extend_from_slice(&at);
                    self.out.extend_from_slice(&ids[0].to_le_bytes());
                    self.out.extend_from_slice(&ids[1].to_le_bytes());
                    self.out.push(flags);
                    if let Some(s) = all[0].seconds {
                        self.out.extend_from_slice(&s.to_bits().to_le_bytes());
                    }
                    return;
                }
                self.out.push(MATCH);
                self.out.extend_from_slice(&at);
                // The append rules bound a match's seats far below 2^16.
                self.out.extend_from_slice(&(all.len() as u16).to_le_bytes());
                for ((seat, id), side) in all.iter().zip(ids).zip(&self.sides) {
                    self.out.extend_from_slice(&id.to_le_bytes());
                    self.out.extend_from_slice(&side.to_le_bytes());
                    let flags = u8::from(seat.home) | (u8::from(seat.seconds.is_some()) << 1);
                    self.out.push(flags);
                    self.out.extend_from_slice(&seat.score.to_bits().to_le_bytes());
                    if let Some(s) = seat.seconds {
                        self.out.extend_from_slice(&s.to_bits().to_le_bytes());
                    }
                }
            }
            BodyView::MidnightTick => {
                self.out.push(TICK);
                self.out.extend_from_slice(&at);
            }
            BodyView::QueueTimeout { player } => {
                let id = self.player(player);
                self.out.push(TIMEOUT);
                self.out.extend_from_slice(&at);
                self.out.extend_from_slice(&id.to_le_bytes());
            }
            BodyView::MatchVoided { .. } => {
                self.out.push(VOIDED);
                self.out.extend_from_slice(&at);
            }
        }
    }
}

/// Tag 6's flags for `seats` on `sides`, when the match is a plain two-seat one (see the
/// module's table); `None` when it takes tag 2.
fn plain_two(seats: &[crate::codec::SeatView<'_>], sides: &[u32]) -> Option<u8> {
    let [x, y] = seats else { return None };
    if sides != [0, 1] || x.seconds.map(f64::to_bits) != y.seconds.map(f64::to_bits) {
        return None;
    }
    let bits = (x.score.to_bits(), y.score.to_bits());
    let outcome = OUTCOMES.iter().position(|(a, b)| (a.to_bits(), b.to_bits()) == bits)?;
    Some(
        outcome as u8
            | u8::from(x.home) << 2
            | u8::from(y.home) << 3
            | u8::from(x.seconds.is_some()) << 4,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{codec, json};

    /// Every record decodes to what was encoded, names in order of first appearance.
    #[test]
    fn round_trip_of_every_kind() {
        let lines = [
            r#"{"type":"PlayerJoined","at":"2024-01-01T00:00:00Z","player":"ann","rating":1600.5,"volatility":0.07}"#,
            r#"{"type":"PlayerJoined","at":"2024-01-01T00:00:01Z","player":"bob"}"#,
            r#"{"type":"PlayerJoined","at":"2024-01-01T00:00:01Z","player":"cy"}"#,
            r#"{"type":"MatchResult","at":"2024-01-01T00:01:00Z","id":"m1","seats":[{"player":"bob","score":1,"seconds":61.5,"home":true},{"player":"ann","score":0}]}"#,
            r#"{"type":"MatchResult","at":"2024-01-01T00:02:00Z","seats":[{"player":"ann","score":1,"team":"x"},{"player":"bob","score":0,"team":"y"},{"player":"cy","score":1,"team":"x"}]}"#,
            r#"{"type":"QueueTimeout","at":"2024-01-01T00:03:00Z","player":"cy"}"#,
            r#"{"type":"MatchVoided","at":"2024-01-01T00:04:00Z","match":"m1","reason":"r"}"#,
            r#"{"type":"MidnightTick","at":"2024-01-02T00:00:00Z"}"#,
        ];
        let events: Vec<crate::Event> =
            lines.iter().map(|l| json::parse_line(l).expect("a valid line")).collect();
        let mut enc = Encoder::new();
        for e in &events {
            let bytes = codec::encode(e);
            enc.push(&codec::view(&bytes).expect("encoded bytes read back"));
        }
        assert_eq!(enc.players(), 3);
        let bytes = enc.take();
        let items: Vec<Item<'_>> =
            Reader::new(&bytes).collect::<Result<_, _>>().expect("encoded records read back");
        let mut names = Vec::new();
        let mut got = Vec::new();
        for item in items {
            match item {
                Item::Name(n) => names.push(n),
                Item::Event { at, body } => got.push((at, body)),
            }
        }
        assert_eq!(names, ["ann", "bob", "cy"]);
        assert_eq!(got.len(), events.len());
        for ((at, _), e) in got.iter().zip(&events) {
            assert_eq!(*at, e.at);
        }
        assert_eq!(
            got[0].1,
            FoldedBody::Joined {
                player: 0,
                prior: Prior { rating: Some(1600.5), rd: None, volatility: Some(0.07) }
            }
        );
        let FoldedBody::Match { seats } = got[3].1 else { panic!("a match: {:?}", got[3].1) };
        let seats: Vec<FoldedSeat> = seats.iter().collect();
        assert_eq!(
            seats,
            [
                FoldedSeat { player: 1, side: 0, score: 1.0, seconds: Some(61.5), home: true },
                FoldedSeat { player: 0, side: 1, score: 0.0, seconds: None, home: false },
            ]
        );
        let FoldedBody::Match { seats } = got[4].1 else { panic!("a match: {:?}", got[4].1) };
        // Sides as Event::sides gives them for the same seats.
        let crate::Body::MatchResult { seats: stored } = &events[4].body else { panic!() };
        let sides: Vec<u32> = seats.iter().map(|s| s.side).collect();
        assert_eq!(sides, crate::Event::sides(stored));
        assert_eq!(sides, [0, 1, 0]);
        assert_eq!(got[5].1, FoldedBody::Timeout { player: 2 });
        assert_eq!(got[6].1, FoldedBody::Voided);
        assert_eq!(got[7].1, FoldedBody::Tick);
    }

    /// Every cut of valid records, and every flipped tag, is an error or fewer records, never a
    /// panic.
    #[test]
    fn damaged_bytes_are_errors() {
        let line = r#"{"type":"MatchResult","at":"2024-01-01T00:01:00Z","seats":[{"player":"bob","score":1,"seconds":2},{"player":"ann","score":0}]}"#;
        let bytes = codec::encode(&json::parse_line(line).expect("a valid line"));
        let mut enc = Encoder::new();
        enc.push(&codec::view(&bytes).expect("encoded bytes read back"));
        let good = enc.take();
        for cut in 1..good.len() {
            let items: Vec<_> = Reader::new(&good[..cut]).collect();
            // The two name records ("bob", "ann": a tag, a length, three bytes) end at 8 and 16;
            // a cut anywhere else cuts a record.
            let whole = cut == 8 || cut == 16;
            assert_eq!(items.iter().all(Result::is_ok), whole, "cut at {cut}: {items:?}");
        }
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[i] ^= 1 << bit;
                // Any outcome but a panic.
                let _ = Reader::new(&bad).count();
            }
        }
        let items: Vec<_> = Reader::new(&[9]).collect();
        assert_eq!(items, [Err(FoldedError::Tag { at: 0, tag: 9 })]);
    }

    /// The seats a record reads back as, with the record's tag.
    fn seats_of(line: &str) -> (u8, Vec<FoldedSeat>) {
        let bytes = codec::encode(&json::parse_line(line).expect("a valid line"));
        let mut enc = Encoder::new();
        enc.push(&codec::view(&bytes).expect("encoded bytes read back"));
        let out = enc.take();
        let mut tag = None;
        let mut seats = Vec::new();
        let mut at = 0;
        for item in Reader::new(&out) {
            match item.expect("encoded records read back") {
                Item::Name(n) => at += 5 + n.len(),
                Item::Event { body: FoldedBody::Match { seats: s }, .. } => {
                    tag = Some(out[at]);
                    seats = s.iter().collect();
                    assert_eq!(s.len(), seats.len());
                }
                other => panic!("a match: {other:?}"),
            }
        }
        (tag.expect("a match record"), seats)
    }

    /// A plain two-seat match takes tag 6 and reads back as the seats tag 2 gives; any other
    /// match (a score not exactly 1, 0 or 0.5 as the outcome needs, `-0.0`, seconds, a team
    /// shared, three seats) takes tag 2.
    #[test]
    fn plain_two_seat_matches_take_the_short_record_and_read_back_the_same() {
        let seat = |p: &str, score: &str, extra: &str| {
            format!(r#"{{"player":"{p}","score":{score}{extra}}}"#)
        };
        let line = |a: String, b: String| {
            format!(r#"{{"type":"MatchResult","at":"2024-01-01T00:01:00Z","seats":[{a},{b}]}}"#)
        };
        let plain = |a: &str, b: &str, ha: bool, hb: bool| FoldedSeats {
            repr: Seats::Two {
                a: 0,
                b: 1,
                flags: OUTCOMES
                    .iter()
                    .position(|o| (o.0.to_string(), o.1.to_string()) == (a.into(), b.into()))
                    .map(|o| o as u8 | u8::from(ha) << 2 | u8::from(hb) << 3)
                    .expect("an outcome"),
                seconds: None,
            },
        };
        for (a, b) in [("1", "0"), ("0", "1"), ("0.5", "0.5")] {
            for (ha, hb) in [(false, false), (true, false), (false, true)] {
                let home = |h: bool| if h { r#","home":true"# } else { "" };
                let (tag, seats) = seats_of(&line(seat("x", a, home(ha)), seat("y", b, home(hb))));
                assert_eq!(tag, MATCH2, "{a} {b} {ha} {hb}");
                let expected = [
                    FoldedSeat {
                        player: 0,
                        side: 0,
                        score: a.parse().unwrap(),
                        seconds: None,
                        home: ha,
                    },
                    FoldedSeat {
                        player: 1,
                        side: 1,
                        score: b.parse().unwrap(),
                        seconds: None,
                        home: hb,
                    },
                ];
                assert_eq!(seats, expected);
                assert_eq!(plain(a, b, ha, hb).iter().collect::<Vec<_>>(), expected);
            }
        }
        for (x, y, tag) in [
            (seat("x", "1", ""), seat("y", "0.5", ""), MATCH),
            (seat("x", "2", ""), seat("y", "0", ""), MATCH),
            (seat("x", "1", ""), seat("y", "-0.0", ""), MATCH),
            (seat("x", "0.5", r#","seconds":60"#), seat("y", "0.5", ""), MATCH),
            (seat("x", "1", r#","seconds":60"#), seat("y", "0", r#","seconds":61"#), MATCH),
            // The same seconds on both seats (a whole game): the short record with them.
            (seat("x", "1", r#","seconds":60.5"#), seat("y", "0", r#","seconds":60.5"#), MATCH2),
            (
                seat("x", "0.5", r#","seconds":60,"home":true"#),
                seat("y", "0.5", r#","seconds":60"#),
                MATCH2,
            ),
            // Teams 1 and 2 are two sides, 0 and 1: the short record holds them.
            (seat("x", "1", r#","team":1"#), seat("y", "0", r#","team":2"#), MATCH2),
        ] {
            let text = line(x, y);
            let (got, seats) = seats_of(&text);
            assert_eq!(got, tag, "{text}");
            let event = json::parse_line(&text).expect("a valid line");
            let crate::Body::MatchResult { seats: stored } = &event.body else { panic!() };
            let scores: Vec<u64> = seats.iter().map(|s| s.score.to_bits()).collect();
            let want: Vec<u64> = stored.iter().map(|s| s.score.to_bits()).collect();
            assert_eq!(scores, want, "{text}");
            let seconds: Vec<Option<f64>> = seats.iter().map(|s| s.seconds).collect();
            assert_eq!(seconds, stored.iter().map(|s| s.seconds).collect::<Vec<_>>(), "{text}");
            let sides: Vec<u32> = seats.iter().map(|s| s.side).collect();
            assert_eq!(sides, crate::Event::sides(stored), "{text}");
        }
        let three = line(seat("x", "1", ""), seat("y", "0", ""))
            .replace(r#"}]}"#, r#"},{"player":"z","score":0}]}"#);
        assert_eq!(seats_of(&three).0, MATCH);
        // Every cut of the short record is an error; flags naming no outcome are refused.
        let mut rec = vec![MATCH2];
        rec.extend_from_slice(&[0; 16]);
        rec.push(16);
        rec.extend_from_slice(&60f64.to_bits().to_le_bytes());
        assert!(Reader::new(&rec).all(|i| i.is_ok()));
        for cut in 1..rec.len() {
            assert_eq!(
                Reader::new(&rec[..cut]).collect::<Vec<_>>(),
                [Err(FoldedError::Truncated { at: 0 })]
            );
        }
        for flags in [3u8, 0x20, 0x80] {
            rec[17] = flags;
            assert_eq!(
                Reader::new(&rec).collect::<Vec<_>>(),
                [Err(FoldedError::Flags { at: 0, flags })]
            );
        }
    }
}
