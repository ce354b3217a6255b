//! Replaying a history through projectors, and the canonical form of the result.
//!
//! - [`registry`]: algorithm names (docs/spec.md) to constant tables and constructors.
//! - [`History`]: what a replay reads — events in sequence order with their chain hashes, and the
//!   void index. The ledger implements it in the CLI; tests implement it in memory. This crate
//!   therefore needs no disk and no sled.
//! - [`replay`]: the streaming driver. Memory grows with players, not events: each event is
//!   decoded, folded into every projector, and dropped.
//! - [`Snapshot`]: the replay output of docs/outputs.md with its blake3 digest, as JSON, YAML
//!   and a table, byte-stable so snapshot tests and `git diff` show exactly what changed.
#![deny(missing_docs)]

mod activity;
pub mod by_day;
pub mod checkpoint;
pub mod diff;
mod driver;
mod output;
mod parallel;
pub mod registry;
pub mod score;
pub mod tune;

pub use activity::Activity;
pub use by_day::{replay_by_day, PredictFrom};
pub use driver::{
    replay, FoldedHistory, History, HistoryEvent, Options, RawRecord, ReplayError, Replayed,
    Stepped, Until, VisitFolded, VisitRecords,
};
pub use output::write_replay_json;
pub use output::{
    leaderboard, left_out_line, put_fields, BoardRules, Leaderboard, LeftOut, Ranked, Row,
    Snapshot, DEFAULT_ACTIVE_WITHIN, DEFAULT_MIN_GAMES,
};
/// The cores this process may use ([`std::thread::available_parallelism`]; 1 when unknown),
/// asked once: each ask reads the process's cgroup files again.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

pub use parallel::{
    replay_algos, replay_algos_each, replay_algos_each_without_activity, replay_algos_scores,
    replay_parallel, EachReplayed,
};
