//! The stored form of an event: a two-byte header of our own, then bincode.
//!
//! ```text
//! byte 0   format   1 = bincode 1.3 (varint integers, little endian), the only one so far
//! byte 1   schema   1 = the types of this crate as of the first release
//! byte 2.. payload
//! ```
//!
//! A later format or schema gets a new number and a decoder arm here; old bytes stay readable
//! because the header says how to read them. `fixtures/golden-events.bin` pins today's bytes.
//! Moving to postcard or wincode is a change to this module only.

use crate::Event;
use bincode::Options;

mod view;
pub use view::{view, BodyView, EventView, SeatIter, SeatView, SeatsView, TeamView};

/// Format byte of bincode 1.3 with varint integers.
pub const FORMAT_BINCODE1: u8 = 1;
/// Schema byte of today's types.
pub const SCHEMA_V1: u8 = 1;
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
    out.push(SCHEMA_V1);
    options().serialize_into(&mut *out, event).expect("events always encode");
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
        (format, schema) => Err(DecodeError::UnknownVersion { format, schema }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_line;

    /// A match with every optional seat field, for the codec's tests.
    pub(super) const TEAM_MATCH: &str = r#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","id":"m-1","seats":[{"player":"alice","score":1,"team":"x","seconds":3.5},{"player":"bob","score":0,"team":-4}]}"#;

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
