//! Reading the stored form without copying: [`view`] borrows names and ids from the encoded bytes
//! instead of allocating a `String` per name and a `Vec` per match, which is what a replay of
//! millions of events wants (the owned [`decode`](super::decode) spent most of its time in
//! `malloc`, `free` and `memcpy`).
//!
//! It reads format 1, schemas 1 and 2 (schema 2 is schema 1 followed by the seats' home flags;
//! bincode 1.3, varint integers, little endian) by hand, byte for byte
//! as bincode's derive would: the same varint forms (one byte below 251, then 251/252/253 for a
//! u16/u32/u64 that follows), zigzag for signed integers, one byte 0/1 for an `Option`, a varint
//! variant index for an enum, a varint length before a string or a sequence, f64 as 8 bytes, and no
//! trailing bytes. It accepts exactly the bytes [`decode`](super::decode) accepts, with the same
//! event (a property test checks both on encoded events and on damaged bytes). On any failure it
//! asks [`decode`](super::decode) for the error, so messages are bincode's in both paths.

use super::{
    check_homes, decode, DecodeError, FORMAT_BINCODE1, MAX_EVENT_BYTES, SCHEMA_V1, SCHEMA_V2_HOME,
};
use crate::{Body, Event, Prior, Seat, Team, Timestamp};

/// An event read in place from its stored bytes: [`Event`] with borrowed strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventView<'a> {
    /// When it happened, in UTC.
    pub at: Timestamp,
    /// The caller's idempotency key.
    pub id: Option<&'a str>,
    /// What happened.
    pub body: BodyView<'a>,
}

/// [`Body`] with borrowed strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyView<'a> {
    /// [`Body::PlayerJoined`].
    PlayerJoined {
        /// The player's name.
        player: &'a str,
        /// The prior, if any quantity was given.
        prior: Prior,
    },
    /// [`Body::MatchResult`].
    MatchResult {
        /// The seats in the order written.
        seats: SeatsView<'a>,
    },
    /// [`Body::MidnightTick`].
    MidnightTick,
    /// [`Body::QueueTimeout`].
    QueueTimeout {
        /// Who waited.
        player: &'a str,
    },
    /// [`Body::MatchVoided`].
    MatchVoided {
        /// The voided match's id.
        match_id: &'a str,
        /// Why.
        reason: &'a str,
    },
}

/// The seats of a [`BodyView::MatchResult`], all checked by [`view`]. The first two are kept as
/// read (most matches have two seats); any others are read again from the bytes on each
/// iteration, so a view has a fixed size and needs no allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatsView<'a> {
    first: [SeatView<'a>; 2],
    /// The bytes of the seats after the first two.
    rest: &'a [u8],
    len: usize,
    /// One flag byte per seat (schema 2), or empty: no seat is at home.
    homes: &'a [u8],
}

/// [`Seat`] with borrowed strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatView<'a> {
    /// Who sat here.
    pub player: &'a str,
    /// Points scored.
    pub score: f64,
    /// The seat's team, if any.
    pub team: Option<TeamView<'a>>,
    /// Time in the game in seconds.
    pub seconds: Option<f64>,
    /// The seat is at home ([`Seat::home`]).
    pub home: bool,
}

/// [`Team`] with a borrowed string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TeamView<'a> {
    /// [`Team::Int`].
    Int(i64),
    /// [`Team::Text`].
    Text(&'a str),
}

/// Reads the stored form of one event in place. Accepts exactly what [`decode`] accepts.
pub fn view(bytes: &[u8]) -> Result<EventView<'_>, DecodeError> {
    match bytes {
        [FORMAT_BINCODE1, SCHEMA_V1, payload @ ..] if payload.len() <= MAX_EVENT_BYTES => {
            let mut r = Reader(payload);
            match r.event() {
                Some(event) if r.0.is_empty() => Ok(event),
                _ => Err(refusal(bytes)),
            }
        }
        [FORMAT_BINCODE1, SCHEMA_V2_HOME, payload @ ..] if payload.len() <= MAX_EVENT_BYTES => {
            let mut r = Reader(payload);
            match r.event() {
                Some(EventView { at, id, body: BodyView::MatchResult { mut seats } })
                    if check_homes(seats.len, r.0).is_ok() =>
                {
                    seats.homes = r.0;
                    for (i, seat) in seats.first.iter_mut().enumerate().take(seats.len) {
                        seat.home = r.0[i] == 1;
                    }
                    Ok(EventView { at, id, body: BodyView::MatchResult { seats } })
                }
                _ => Err(refusal(bytes)),
            }
        }
        _ => Err(refusal(bytes)),
    }
}

/// The error [`decode`] gives for bytes [`view`] refused.
#[cold]
fn refusal(bytes: &[u8]) -> DecodeError {
    match decode(bytes) {
        Err(e) => e,
        // Unreachable while the two readers agree (the property tests check they do); say so
        // rather than hide it.
        Ok(_) => DecodeError::Payload(Box::new(bincode::ErrorKind::Custom(
            "the in-place reader refused bytes the decoder accepts (a bug in ladder)".into(),
        ))),
    }
}

impl<'a> SeatsView<'a> {
    /// How many seats.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none (never, for a stored event: a match has two or more seats).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The seats, in the order written.
    pub fn iter(&self) -> SeatIter<'a> {
        SeatIter { seats: *self, next: 0, reader: Reader(self.rest) }
    }
}

impl<'a> IntoIterator for SeatsView<'a> {
    type Item = SeatView<'a>;
    type IntoIter = SeatIter<'a>;
    fn into_iter(self) -> SeatIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`SeatsView`].
#[derive(Clone, Debug)]
pub struct SeatIter<'a> {
    seats: SeatsView<'a>,
    next: usize,
    reader: Reader<'a>,
}

impl<'a> Iterator for SeatIter<'a> {
    type Item = SeatView<'a>;

    #[inline]
    fn next(&mut self) -> Option<SeatView<'a>> {
        let i = self.next;
        if i >= self.seats.len {
            return None;
        }
        self.next += 1;
        if let Some(&seat) = self.seats.first.get(i) {
            return Some(seat);
        }
        // The bytes were read once by `view`, so this cannot fail; if it somehow did, the
        // iteration ends rather than inventing a seat.
        let seat = self.reader.seat();
        if seat.is_none() {
            self.next = self.seats.len;
        }
        seat.map(|seat| SeatView { home: self.seats.homes.get(i) == Some(&1), ..seat })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.seats.len - self.next;
        (left, Some(left))
    }
}

impl EventView<'_> {
    /// The owned event (what [`decode`] returns for the same bytes).
    pub fn to_event(&self) -> Event {
        let body = match self.body {
            BodyView::PlayerJoined { player, prior } => {
                Body::PlayerJoined { player: player.into(), prior }
            }
            BodyView::MatchResult { seats } => Body::MatchResult {
                seats: seats
                    .iter()
                    .map(|s| Seat {
                        player: s.player.into(),
                        score: s.score,
                        team: s.team.map(|t| match t {
                            TeamView::Int(n) => Team::Int(n),
                            TeamView::Text(s) => Team::Text(s.into()),
                        }),
                        seconds: s.seconds,
                        home: s.home,
                    })
                    .collect(),
            },
            BodyView::MidnightTick => Body::MidnightTick,
            BodyView::QueueTimeout { player } => Body::QueueTimeout { player: player.into() },
            BodyView::MatchVoided { match_id, reason } => {
                Body::MatchVoided { match_id: match_id.into(), reason: reason.into() }
            }
        };
        Event { at: self.at, id: self.id.map(str::to_owned), body }
    }
}

impl Seat {
    /// This seat as a [`SeatView`], so code written for stored bytes also reads owned events.
    pub fn as_view(&self) -> SeatView<'_> {
        SeatView {
            player: &self.player,
            score: self.score,
            team: self.team.as_ref().map(Team::as_view),
            seconds: self.seconds,
            home: self.home,
        }
    }
}

impl Team {
    /// This team as a [`TeamView`] (equal views exactly when the teams are equal).
    pub fn as_view(&self) -> TeamView<'_> {
        match self {
            Team::Int(n) => TeamView::Int(*n),
            Team::Text(s) => TeamView::Text(s),
        }
    }
}

/// A cursor over the payload. Every read returns `None` on malformed or missing bytes.
#[derive(Clone, Debug)]
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// bincode's `VarintEncoding::deserialize_varint`.
    fn varint(&mut self) -> Option<u64> {
        match self.byte()? {
            b @ 0..=250 => Some(u64::from(b)),
            251 => Some(u64::from(u16::from_le_bytes(self.array()?))),
            252 => Some(u64::from(u32::from_le_bytes(self.array()?))),
            253 => Some(u64::from_le_bytes(self.array()?)),
            _ => None,
        }
    }

    /// A zigzag varint, as bincode stores an i64.
    fn i64(&mut self) -> Option<i64> {
        let n = self.varint()?;
        Some(if n % 2 == 0 { (n / 2) as i64 } else { !(n / 2) as i64 })
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.array()?))
    }

    /// An enum's variant index (a varint that must fit a u32).
    fn variant(&mut self) -> Option<u64> {
        self.varint().filter(|&v| v <= u64::from(u32::MAX))
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.varint()?).ok()
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).ok()
    }

    /// An `Option` tag (one literal byte) and, when 1, the value.
    fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.byte()? {
            0 => Some(None),
            1 => value(self).map(Some),
            _ => None,
        }
    }

    fn event(&mut self) -> Option<EventView<'a>> {
        let at = Timestamp(self.i64()?);
        let id = self.option(Self::str)?;
        let body = match self.variant()? {
            0 => {
                let player = self.str()?;
                let rating = self.option(Self::f64)?;
                let rd = self.option(Self::f64)?;
                let volatility = self.option(Self::f64)?;
                BodyView::PlayerJoined { player, prior: Prior { rating, rd, volatility } }
            }
            1 => {
                let len = self.len()?;
                let none =
                    SeatView { player: "", score: 0.0, team: None, seconds: None, home: false };
                let mut first = [none; 2];
                for seat in first.iter_mut().take(len) {
                    *seat = self.seat()?;
                }
                let rest = self.0;
                for _ in 2..len {
                    self.seat()?;
                }
                let used = rest.len() - self.0.len();
                BodyView::MatchResult {
                    seats: SeatsView { first, rest: &rest[..used], len, homes: &[] },
                }
            }
            2 => BodyView::MidnightTick,
            3 => BodyView::QueueTimeout { player: self.str()? },
            4 => BodyView::MatchVoided { match_id: self.str()?, reason: self.str()? },
            _ => return None,
        };
        Some(EventView { at, id, body })
    }

    fn seat(&mut self) -> Option<SeatView<'a>> {
        let player = self.str()?;
        let score = self.f64()?;
        let team = self.option(|r| match r.variant()? {
            0 => r.i64().map(TeamView::Int),
            1 => r.str().map(TeamView::Text),
            _ => None,
        })?;
        let seconds = self.option(Self::f64)?;
        Some(SeatView { player, score, team, seconds, home: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode;
    use crate::json::parse_line;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,8}",
            ".{0,300}", // long enough for every varint length form below 64 KB
            Just(String::new()),
        ]
    }

    fn team() -> impl Strategy<Value = Option<Team>> {
        prop_oneof![
            Just(None),
            any::<i64>().prop_map(|n| Some(Team::Int(n))),
            text().prop_map(|s| Some(Team::Text(s))),
        ]
    }

    fn seat() -> impl Strategy<Value = Seat> {
        (text(), any::<f64>(), team(), proptest::option::of(any::<f64>()), any::<bool>()).prop_map(
            |(player, score, team, seconds, home)| Seat { player, score, team, seconds, home },
        )
    }

    fn body() -> impl Strategy<Value = Body> {
        let f = || proptest::option::of(any::<f64>());
        prop_oneof![
            (text(), f(), f(), f()).prop_map(|(player, rating, rd, volatility)| {
                Body::PlayerJoined { player, prior: Prior { rating, rd, volatility } }
            }),
            proptest::collection::vec(seat(), 0..6).prop_map(|seats| Body::MatchResult { seats }),
            Just(Body::MidnightTick),
            text().prop_map(|player| Body::QueueTimeout { player }),
            (text(), text()).prop_map(|(match_id, reason)| Body::MatchVoided { match_id, reason }),
        ]
    }

    fn event() -> impl Strategy<Value = Event> {
        (any::<i64>(), proptest::option::of(text()), body()).prop_map(|(at, id, body)| Event {
            at: Timestamp(at),
            id,
            body,
        })
    }

    /// Bitwise equality, so NaN scores compare equal to themselves.
    fn same(a: &Event, b: &Event) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn view_reads_what_encode_wrote(e in event()) {
            let bytes = encode(&e);
            let v = view(&bytes).expect("encoded bytes view");
            prop_assert!(same(&v.to_event(), &e));
            prop_assert!(same(&decode(&bytes).unwrap(), &e));
        }

        /// The canonical line (the leaf bytes the ledger hashes) is the same from either form.
        #[test]
        fn a_view_writes_the_line_its_event_writes(e in event()) {
            let bytes = encode(&e);
            let v = view(&bytes).expect("encoded bytes view");
            let (mut owned, mut viewed) = (Vec::new(), Vec::new());
            crate::json::write_line(&e, &mut owned);
            crate::json::write_view_line(&v, &mut viewed);
            prop_assert_eq!(owned, viewed);
        }

        /// Damaged bytes: flipped, cut, extended. The two readers agree on every one.
        #[test]
        fn view_agrees_with_decode_on_damaged_bytes(
            e in event(),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut in any::<prop::sample::Index>(),
            extra in proptest::collection::vec(any::<u8>(), 0..3),
            how in 0..3u8,
        ) {
            let mut bytes = encode(&e);
            for (i, b) in flips {
                let i = i.index(bytes.len());
                bytes[i] = b;
            }
            match how {
                0 => bytes.truncate(cut.index(bytes.len() + 1)),
                1 => bytes.extend(extra),
                _ => {}
            }
            match (view(&bytes), decode(&bytes)) {
                (Ok(v), Ok(d)) => prop_assert!(same(&v.to_event(), &d)),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (v, d) => prop_assert!(false, "view {:?} but decode {:?}", v.map(|v| v.to_event()), d),
            }
        }

        #[test]
        fn view_agrees_with_decode_on_any_bytes(
            mut bytes in proptest::collection::vec(any::<u8>(), 0..40),
            header in any::<bool>(),
        ) {
            if header && bytes.len() >= 2 {
                bytes[0] = FORMAT_BINCODE1;
                bytes[1] = if bytes[1] % 2 == 0 { SCHEMA_V1 } else { SCHEMA_V2_HOME };
            }
            prop_assert_eq!(view(&bytes).is_ok(), decode(&bytes).is_ok());
        }
    }

    #[test]
    fn every_varint_form_and_the_u128_marker() {
        // 251, 252 and 253 introduce a u16, u32 and u64; 254 (u128) and 255 are refused by both.
        for len in [0usize, 250, 251, 300, 70_000] {
            let name = "n".repeat(len.max(1));
            let e = Event {
                at: Timestamp(i64::MIN),
                id: Some("x".repeat(len)),
                body: Body::QueueTimeout { player: name },
            };
            let bytes = encode(&e);
            assert!(same(&view(&bytes).unwrap().to_event(), &e), "len {len}");
        }
        // at = 0, id = None, variant 254 / 255.
        for marker in [254u8, 255] {
            let bytes = [FORMAT_BINCODE1, SCHEMA_V1, 0, 0, marker];
            assert!(view(&bytes).is_err() && decode(&bytes).is_err());
        }
    }

    #[test]
    fn seats_read_in_order_with_teams_and_seconds() {
        let e = parse_line(crate::codec::tests::TEAM_MATCH).unwrap();
        let bytes = encode(&e);
        let v = view(&bytes).unwrap();
        assert_eq!(v.id, Some("m-1"));
        let BodyView::MatchResult { seats } = v.body else { panic!("a match") };
        let seats: Vec<SeatView<'_>> = seats.iter().collect();
        assert_eq!(
            seats,
            vec![
                SeatView {
                    player: "alice",
                    score: 1.0,
                    team: Some(TeamView::Text("x")),
                    seconds: Some(3.5),
                    home: false,
                },
                SeatView {
                    player: "bob",
                    score: 0.0,
                    team: Some(TeamView::Int(-4)),
                    seconds: None,
                    home: false,
                },
            ]
        );
    }
}
