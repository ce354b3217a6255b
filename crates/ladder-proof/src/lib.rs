//! Proofs that anyone can check without ladder: an RFC 6962 Merkle tree with SHA-256, its
//! inclusion and consistency proofs, and signed tree heads.
//!
//! The tree is exactly RFC 6962 section 2.1 ("Certificate Transparency"), so its roots, proofs and
//! checkpoints are those of every C2SP tlog tool: the empty tree hashes to `SHA-256("")`, a leaf to
//! `SHA-256(0x00 || leaf)`, a node to `SHA-256(0x01 || left || right)`, and a tree of `n` leaves
//! splits at the largest power of two below `n` (`tests/tessera.rs` reproduces every root and
//! checkpoint of transparency-dev/tessera's test log). docs/proofs.md gives the exact bytes with a worked example.
//!
//! - [`Subtrees`] is where the hashes come from: any store that can hand out the hash of a
//!   *perfect* subtree (2^level leaves, aligned) can serve [`root`], [`inclusion_proof`] and
//!   [`consistency_proof`] in O(log n) reads, because every range the RFC recursion visits splits
//!   into perfect subtrees.
//! - [`verify_inclusion`] and [`verify_consistency`] are the RFC 9162 verification algorithms
//!   (sections 2.1.3.2 and 2.1.4.2); they need only the proof.
//! - [`Frontier`] is the compact state of an append-only tree (one hash per set bit of its size);
//!   [`Frontier::push`] reports every perfect subtree an append completes, so a store can keep the
//!   ones it wants. [`MemTree`] keeps every leaf hash in memory and implements [`Subtrees`].
//! - [`Proof`] is the JSON form of both proofs (`ladder prove --format json`), checkable alone.
//! - [`tiles`]: the tree as C2SP tlog-tiles: tile paths, and the bytes of any hash tile or entry
//!   bundle from a [`tiles::TileSource`]; [`tiles::TileTree`] reads a tree back from its tiles.
//! - [`tlog_proof`]: C2SP tlog-proof, an inclusion proof with its signed checkpoint in one text.
//! - [`note`]: C2SP tlog-checkpoint notes and C2SP signed notes with Ed25519, in the text forms
//!   of Go's `golang.org/x/mod/sumdb/note` package.
//!
//! **Architecture invariant:** pure. No IO, no clock, no randomness: key generation takes its
//! seed bytes from the caller.

mod frontier;
mod hex;
mod memtree;
pub mod note;
mod proof;
pub mod tiles;
pub mod tlog_proof;
mod tree;
mod verify;

pub use frontier::{Frontier, FrontierError};
pub use hex::{hex, parse_hex_hash};
pub use memtree::{MemTree, MemTreeError, STORED_LEVEL};
pub use proof::{ConsistencyProof, InclusionProof, Proof, ProofFormatError};
pub use tree::{
    consistency_proof, empty_root, inclusion_proof, leaf_hash, node_hash, perfect_root, root, Hash,
    ProveError, Subtrees,
};
pub use verify::{
    consistency_path_len, inclusion_path_len, verify_consistency, verify_inclusion, VerifyError,
};
