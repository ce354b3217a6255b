//! The ledger as a C2SP transparency log outside the program: `publish` writes it as a static
//! tlog-tiles tree, `mirror` copies a published log into a ledger, checking every byte against
//! the signed checkpoint and, from the second run on, against the checkpoint mirrored before.
//!
//! The tile bytes come from [`ladder_proof::tiles::tile_bytes`] over [`LedgerTiles`] (the
//! ledger as a [`ladder_proof::tiles::TileSource`]), the one function a server of the same
//! paths would also call. This crate holds the IO (files, HTTP through [`ureq`]) that
//! ladder-proof must not, and ladder-log's only use here is its public reading API and
//! [`ladder_log::Ledger::replicate`]; only ladder-cli parses arguments and prints.
#![deny(missing_docs)]

mod fetch;
mod ledger_tiles;
mod mirror;
mod publish;

pub use fetch::{open_source, DirSource, Fetch, FetchError, HttpSource};
pub use ledger_tiles::LedgerTiles;
pub use mirror::{mirror, mirror_state_dir, MirrorError, MirrorReport};
pub use publish::{publish, PublishError, PublishReport};
