//! The ledger seen by the replay driver, and one event explained as a value.
//!
//! Two programs replay a ledger and explain its events: `ladder` and `ladder serve`. What they
//! share lives here, below both, so the two cannot drift: [`LedgerHistory`] is the ledger as a
//! replay's `History` and `CheckpointStore` (with a [`Progress`] hook the CLI fills with its bars
//! and the server leaves empty), and [`explain()`] builds an [`Explanation`] of one event (the
//! standings before and after it, the algorithm's arithmetic, the rating period a match waits
//! in with this game's effect and the whole period's told apart, the flags with their reasons,
//! the event's place in the chain and the tree). `ladder explain` renders the value as a table
//! and as JSON ([`Explanation::to_json`]); `ladder serve` answers the same JSON and renders the
//! match page from it. Building it reads the ledger and nothing else: no clock, no printing.
#![deny(missing_docs)]

mod account;
mod explain;
mod history;

pub use account::{account, Account};
pub use explain::{
    change_labels, explain, named, standing_json, vs_config, Explanation, Flag, Period,
    PeriodChange, Request, Seat, Step, Told,
};
pub use history::{LedgerHistory, Progress};

/// Why an event could not be explained.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// A sequence number outside the ledger.
    #[error("there is no event {seq}: the ledger holds events 1 to {head}")]
    NoEvent {
        /// The number asked for.
        seq: u64,
        /// The head's.
        head: u64,
    },
    /// `--player` names someone the event neither names nor changes.
    #[error(
        "event {seq} does not name {player:?} and changes nothing of theirs under {algorithm}; \
         it names: {names}"
    )]
    NotNamed {
        /// The event.
        seq: u64,
        /// The player asked for.
        player: String,
        /// The algorithm.
        algorithm: &'static str,
        /// The players the event names, comma-separated.
        names: String,
    },
    /// An event the head covers is not stored (a damaged ledger).
    #[error("event {0} is missing")]
    Missing(u64),
    /// A replay failed.
    #[error("replaying {config} through event {seq}")]
    Replay {
        /// The configuration replayed.
        config: String,
        /// How far.
        seq: u64,
        /// Why.
        #[source]
        source: ladder_replay::ReplayError,
    },
    /// No event closes the period a match waits in (a damaged history).
    #[error("found no event that closes {algorithm} period {index}")]
    NoClose {
        /// The algorithm.
        algorithm: &'static str,
        /// The period's index.
        index: i64,
    },
    /// A projector could not be built.
    #[error(transparent)]
    Build(#[from] ladder_replay::ReplayError),
    /// The period at the head could not be closed.
    #[error(transparent)]
    Project(#[from] ladder_projector::ProjectError),
    /// Reading the ledger failed.
    #[error(transparent)]
    Log(#[from] ladder_log::LogError),
}
