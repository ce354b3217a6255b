//! The stored form of an event: a two-byte header of our own, then bincode.
//!
//! ```text
//! byte 0   format   1 = bincode 1.3 (varint integers, little endian), the only one so far
//! byte 1   schema   1 = the types of this crate as of the first release
//!                   2 = schema 1's payload, then one byte per seat (0 or 1): `home`
//! byte 2.. payload
//! ```
//!
//! An event is written in schema 2 only when some seat is at home, so every event without a home
//! seat keeps the bytes it had before `home` existed, and schema 1 bytes decode with `home`
//! false. A schema 2 event is a MatchResult with exactly one flag byte per seat and at least one
//! flag set: there is one stored form per event.
//!
//! A later format or schema gets a new number and a decoder arm here; old bytes stay readable
//! because the header says how to read them. `fixtures/golden-events.bin` pins today's bytes.
//! Moving to postcard or wincode is a change to this module only.

use crate::{Body, Event};
use bincode::Options;

mod view;
pub use view::{view, BodyView, EventView, SeatIter, SeatView, SeatsView, TeamView};

/// Format byte of bincode 1.3 with varint integers.
pub const FORMAT_BINCODE1: u8 = 1;
/// Schema byte of the first release's types (no seat at home).
pub const SCHEMA_V1: u8 = 1;
/// Schema byte of a MatchResult with a seat at home: schema 1's payload, then the seats' flags.
pub const SCHEMA_V2_HOME: u8 = 2;
/// Largest encoded event we decode (a guard against corrupt length prefixes).
pub const MAX_EVENT_BYTES: usize = 1 << 20;

/// Why bytes are not an event.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Fewer than the two header bytes.
    #[error("encoded event is {0} bytes, shorter than its 2-byte header")]
    Truncated(usize),
    /// A header this version does not know.
    #[error("unknown event encoding: format {format}, schema {schema}")]
    UnknownVersion {
        /// The format byte found.
        format: u8,
        /// The schema byte found.
        schema: u8,
    },
    /// The payload does not decode.
    #[error("event payload does not decode: {0}")]
    Payload(#[from] bincode::Error),
    /// The home flags of a schema 2 event are missing, malformed or all clear.
    #[error("event home flags do not decode: {0}")]
    Home(&'static str),
}

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian()
        .with_limit(MAX_EVENT_BYTES as u64)
        .reject_trailing_bytes()
}

/// Appends the stored form of `event` to `out`.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    out.push(FORMAT_BINCODE1);
    let home = event.has_home();
    out.push(if home { SCHEMA_V2_HOME } else { SCHEMA_V1 });
    options().serialize_into(&mut *out, event).expect("events always encode");
    if let (true, Body::MatchResult { seats }) = (home, &event.body) {
        out.extend(seats.iter().map(|s| u8::from(s.home)));
    }
}

/// The stored form of `event`.
pub fn encode(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    encode_into(event, &mut out);
    out
}

/// Decodes the stored form of one event.
pub fn decode(bytes: &[u8]) -> Result<Event, DecodeError> {
    if bytes.len() < 2 {
        return Err(DecodeError::Truncated(bytes.len()));
    }
    match (bytes[0], bytes[1]) {
        (FORMAT_BINCODE1, SCHEMA_V1) => Ok(options().deserialize(&bytes[2..])?),
        (FORMAT_BINCODE1, SCHEMA_V2_HOME) => {
            let mut rest = &bytes[2..];
            if rest.len() > MAX_EVENT_BYTES {
                // The flags count toward the limit too, as the in-place reader counts them.
                return Err(DecodeError::Payload(Box::new(bincode::ErrorKind::SizeLimit)));
            }
            let mut event: Event = options().allow_trailing_bytes().deserialize_from(&mut rest)?;
            let Body::MatchResult { seats } = &mut event.body else {
                return Err(DecodeError::Home("schema 2 is for a MatchResult only"));
            };
            set_homes(seats, rest)?;
            Ok(event)
        }
        (format, schema) => Err(DecodeError::UnknownVersion { format, schema }),
    }
}

/// Sets each seat's `home` from its flag byte: exactly one byte per seat, each 0 or 1, at least
/// one 1 (otherwise the event is stored in schema 1).
fn set_homes(seats: &mut [crate::Seat], flags: &[u8]) -> Result<(), DecodeError> {
    check_homes(seats.len(), flags)?;
    for (seat, &flag) in seats.iter_mut().zip(flags) {
        seat.home = flag == 1;
    }
    Ok(())
}

/// The checks of [`set_homes`], shared with the in-place reader.
pub(crate) fn check_homes(seats: usize, flags: &[u8]) -> Result<(), DecodeError> {
    if flags.len() != seats {
        return Err(DecodeError::Home("not one flag byte per seat"));
    }
    if flags.iter().any(|&f| f > 1) {
        return Err(DecodeError::Home("a flag byte is neither 0 nor 1"));
    }
    if !flags.contains(&1) {
        return Err(DecodeError::Home("no seat is at home"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_line;

    /// A match with every optional seat field, for the codec's tests.
    pub(super) const TEAM_MATCH: &str = r#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","id":"m-1","seats":[{"player":"alice","score":1,"team":"x","seconds":3.5},{"player":"bob","score":0,"team":-4}]}"#;

    /// Schema 2 is schema 1's bytes with the header's schema byte 2 and one flag byte per seat
    /// after them; without a home seat an event keeps schema 1's bytes exactly.
    #[test]
    fn a_home_seat_is_schema_two_with_flags_after_schema_one() {
        let plain = parse_line(TEAM_MATCH).unwrap();
        let mut home = plain.clone();
        let Body::MatchResult { seats } = &mut home.body else { panic!("a match") };
        seats[1].home = true;
        let (a, b) = (encode(&plain), encode(&home));
        assert_eq!(a[..2], [FORMAT_BINCODE1, SCHEMA_V1]);
        assert_eq!(b[..2], [FORMAT_BINCODE1, SCHEMA_V2_HOME]);
        assert_eq!(b[2..b.len() - 2], a[2..]);
        assert_eq!(b[b.len() - 2..], [0, 1]);
        assert_eq!(decode(&b).unwrap(), home);
        assert_eq!(decode(&a).unwrap(), plain);
        // One stored form per event: all flags clear, a flag of 2, a missing or extra flag, and
        // schema 2 on another kind of event are refused.
        for flags in [&[0u8, 0][..], &[0, 2], &[1], &[0, 1, 0]] {
            let mut bad = b[..b.len() - 2].to_vec();
            bad.extend_from_slice(flags);
            assert!(matches!(decode(&bad), Err(DecodeError::Home(_))), "{flags:?}");
            assert!(view(&bad).is_err(), "{flags:?}");
        }
        let tick = parse_line(r#"{"type":"MidnightTick","at":"2026-03-02"}"#).unwrap();
        let mut bad = encode(&tick);
        bad[1] = SCHEMA_V2_HOME;
        assert!(matches!(decode(&bad), Err(DecodeError::Home(_))));
    }

    #[test]
    fn round_trips_and_refuses_garbage() {
        let e = parse_line(TEAM_MATCH).unwrap();
        let bytes = encode(&e);
        assert_eq!(decode(&bytes).unwrap(), e);
        assert!(matches!(decode(&bytes[..1]), Err(DecodeError::Truncated(1))));
        assert!(matches!(
            decode(&[9, 1, 0]),
            Err(DecodeError::UnknownVersion { format: 9, schema: 1 })
        ));
        for cut in 2..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "prefix of {cut} bytes decoded");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(decode(&long).is_err(), "trailing bytes are refused");
    }
}
