//! The compact state of an append-only tree: one perfect-subtree root per set bit of its size.

use crate::tree::{empty_root, node_hash, Hash, Subtrees};

/// The version byte of [`Frontier::to_bytes`].
const VERSION: u8 = 1;
/// Bytes of the checksum that ends [`Frontier::to_bytes`].
const CHECKSUM: usize = 8;
/// Sizes at or above this are refused by [`Frontier::from_bytes`], so `push` can never overflow.
const MAX_SIZE: u64 = 1 << 62;

/// The compact state of an append-only RFC 6962 tree: the roots of the perfect subtrees of the
/// binary decomposition of its size, largest (leftmost) first. Enough to append and to give the
/// root; 32 bytes per set bit of the size.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frontier {
    size: u64,
    /// `nodes[i]` is the root of the i-th perfect subtree from the left: one per set bit of
    /// `size`, from the highest bit down.
    nodes: Vec<Hash>,
}

/// Why stored frontier bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontierError {
    /// Too short to hold the header.
    #[error("stored tree frontier: {len} bytes, too short for its 9-byte header and checksum")]
    Truncated {
        /// The length found.
        len: usize,
    },
    /// A version this code does not know.
    #[error("stored tree frontier: version {found}, this ladder reads version {VERSION}")]
    Version {
        /// The version byte found.
        found: u8,
    },
    /// A size no real tree reaches (the bytes are damaged).
    #[error("stored tree frontier: size {size} is not a plausible tree size (damaged bytes)")]
    Size {
        /// The size found.
        size: u64,
    },
    /// The length does not match the size (one hash per set bit).
    #[error("stored tree frontier: {len} bytes, a tree of {size} leaves needs {expected}")]
    Length {
        /// The length found.
        len: usize,
        /// The size in the header.
        size: u64,
        /// The length that size needs.
        expected: usize,
    },
    /// The checksum does not match: the bytes were damaged.
    #[error("stored tree frontier: checksum mismatch (damaged bytes)")]
    Checksum,
    /// [`Frontier::push_subtree`] of a subtree that does not start at a multiple of its width
    /// (or would take the tree beyond 2^62 leaves).
    #[error("a perfect subtree of level {level} cannot be appended to a tree of {size} leaves")]
    Misaligned {
        /// The tree's size.
        size: u64,
        /// The subtree's level.
        level: u32,
    },
}

impl Frontier {
    /// The empty tree.
    pub fn new() -> Frontier {
        Frontier { size: 0, nodes: Vec::with_capacity(64) }
    }

    /// Rebuilds the frontier of the first `size` leaves from a subtree source
    /// (one read per set bit of `size`).
    pub fn from_subtrees<S: Subtrees + ?Sized>(
        size: u64,
        src: &mut S,
    ) -> Result<Frontier, S::Error> {
        let mut nodes = Vec::with_capacity(64);
        let mut pos = 0u64;
        for level in (0..64u32).rev() {
            if size & (1u64 << level) != 0 {
                nodes.push(src.subtree(level, pos >> level)?);
                pos += 1u64 << level;
            }
        }
        Ok(Frontier { size, nodes })
    }

    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The perfect-subtree roots, largest (leftmost) first: one per set bit of the size.
    pub fn nodes(&self) -> &[Hash] {
        &self.nodes
    }

    /// Appends a leaf hash. `on_complete(level, index, hash)` is called for every perfect
    /// subtree the append completes, smallest first: the leaf itself (level 0, index = its
    /// position), then each subtree of 2^level leaves `[index << level, (index + 1) << level)`
    /// that this leaf closes.
    pub fn push(&mut self, leaf: Hash, mut on_complete: impl FnMut(u32, u64, Hash)) {
        let index = self.size;
        on_complete(0, index, leaf);
        let mut h = leaf;
        let mut level = 0u32;
        // Each trailing one bit of the old size is a subtree of that level waiting for its
        // right half, which the new leaf just completed.
        while (index >> level) & 1 == 1 {
            let left = self.nodes.pop().unwrap_or(h);
            h = node_hash(&left, &h);
            level += 1;
            on_complete(level, index >> level, h);
        }
        self.nodes.push(h);
        self.size = index + 1;
    }

    /// Appends the `2^level` leaves whose perfect subtree has root `hash` at once, as that many
    /// [`Frontier::push`]es of them would: the tree's size must be a multiple of `2^level` (the
    /// subtree is then aligned, and its root is a node of the tree). `on_complete(level, index,
    /// hash)` is called for the subtree itself and for every larger perfect subtree it closes,
    /// smallest first (not for the subtrees inside it, which the caller computed). This is how a
    /// caller that hashes leaves in parallel (ladder's `verify`) joins the pieces in order.
    /// A misaligned subtree, or one that would take the size to 2^62 leaves or more, is refused
    /// and the frontier is unchanged.
    pub fn push_subtree(
        &mut self,
        level: u32,
        hash: Hash,
        mut on_complete: impl FnMut(u32, u64, Hash),
    ) -> Result<(), FrontierError> {
        let width = 1u64.checked_shl(level).filter(|w| *w < MAX_SIZE);
        let Some(width) =
            width.filter(|w| self.size.is_multiple_of(*w) && self.size + w < MAX_SIZE)
        else {
            return Err(FrontierError::Misaligned { size: self.size, level });
        };
        let index = self.size >> level;
        on_complete(level, index, hash);
        let mut h = hash;
        let mut up = 0u32;
        // As in `push`: each trailing one bit of the old size (in units of the subtree) is a
        // subtree of that height waiting for its right half.
        while (index >> up) & 1 == 1 {
            let left = self.nodes.pop().unwrap_or(h);
            h = node_hash(&left, &h);
            up += 1;
            on_complete(level + up, index >> up, h);
        }
        self.nodes.push(h);
        self.size += width;
        Ok(())
    }

    /// The root of the tree (RFC 6962 MTH); [`empty_root`] when empty.
    pub fn root(&self) -> Hash {
        let Some((last, rest)) = self.nodes.split_last() else {
            return empty_root();
        };
        rest.iter().rev().fold(*last, |acc, left| node_hash(left, &acc))
    }

    /// The stored form: version byte 1, the size as 8 little-endian bytes, the node hashes,
    /// then the first 8 bytes of blake3 of everything before them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(9 + 32 * self.nodes.len() + CHECKSUM);
        out.push(VERSION);
        out.extend_from_slice(&self.size.to_le_bytes());
        for n in &self.nodes {
            out.extend_from_slice(n);
        }
        let sum = blake3::hash(&out);
        out.extend_from_slice(&sum.as_bytes()[..CHECKSUM]);
        out
    }

    /// Reads [`Frontier::to_bytes`]; damaged bytes are an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Frontier, FrontierError> {
        if bytes.len() < 9 + CHECKSUM {
            return Err(FrontierError::Truncated { len: bytes.len() });
        }
        if bytes[0] != VERSION {
            return Err(FrontierError::Version { found: bytes[0] });
        }
        let mut size_bytes = [0u8; 8];
        size_bytes.copy_from_slice(&bytes[1..9]);
        let size = u64::from_le_bytes(size_bytes);
        if size >= MAX_SIZE {
            return Err(FrontierError::Size { size });
        }
        let count = size.count_ones() as usize;
        let expected = 9 + 32 * count + CHECKSUM;
        if bytes.len() != expected {
            return Err(FrontierError::Length { len: bytes.len(), size, expected });
        }
        let (body, sum) = bytes.split_at(expected - CHECKSUM);
        if blake3::hash(body).as_bytes()[..CHECKSUM] != *sum {
            return Err(FrontierError::Checksum);
        }
        let nodes = body[9..]
            .chunks_exact(32)
            .map(|c| {
                let mut h = [0u8; 32];
                h.copy_from_slice(c);
                h
            })
            .collect();
        Ok(Frontier { size, nodes })
    }
}
