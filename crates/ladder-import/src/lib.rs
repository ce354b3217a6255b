//! Turning outside histories into [`ladder_events::Event`]s, before the log sees them.
//!
//! Two sources, both streaming what they can:
//! - [`jsonl`]: JSON Lines (`docs/events.md`), read line by line so a file of any size
//!   imports in constant memory; each line becomes `Ok(event)` or `Err(violation)`, tagged with its
//!   line number, and the log decides whether a bad line refuses the batch or is skipped.
//! - [`csv`]: a header row mapped to events by `--columns` or by the tennis preset
//!   (`docs/events.md`, CSV). CSV rows must be sorted by date across files before appending, so these are read
//!   whole; they are compact rows, not events, until the sort is done.
//!
//! This crate decides nothing about the history (joins, order, duplicates): that is the log's job.
#![deny(missing_docs)]

pub mod csv;
pub mod jsonl;

use std::fmt;

/// Where an input event came from, for messages: `FILE:LINE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file as the user named it (`-` for standard input).
    pub file: std::sync::Arc<str>,
    /// 1-based line number.
    pub line: u64,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
