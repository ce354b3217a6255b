//! The event model of ladder: the only serialized boundary of the project.
//!
//! A ladder's history is a sequence of [`Event`]s. This crate defines them, checks the rules that a
//! single event must satisfy on its own ([`Event::check`]), reads and writes their JSON Lines form
//! ([`json`], `docs/events.md`) and encodes them for storage ([`codec`]).
//!
//! Design decisions:
//! - Instants are [`Timestamp`]s, integer nanoseconds since the Unix epoch in UTC. That is what the
//!   event format allows (years 1677 to 2262) and what bincode stores without a string round trip.
//! - The stored form is bincode behind a two-byte header of our own (format, schema), and the codec
//!   lives in one module so that a change of format is one change.
//! - Rules that need the history (time order, joined players, duplicate ids) are not checked here but
//!   by the log, which owns the history; both report a [`Rule`] so messages name the same rules.
#![deny(missing_docs)]

pub mod codec;
pub mod folded;
pub mod json;
mod model;
mod rules;
mod time;

pub use model::{Body, Event, Prior, Seat, Team};
pub use rules::{
    is_invisible, Checked, Rule, Violation, MAX_EVENT_LINE_BYTES, MAX_ID_BYTES, MAX_LINE_BYTES,
    MAX_NAME_CHARS, MAX_REASON_CHARS, MAX_SEATS,
};
pub use time::{Timestamp, TimestampError, NANOS_PER_DAY, NANOS_PER_SECOND};
