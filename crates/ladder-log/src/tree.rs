//! The Merkle tree the ledger keeps over its leaves (RFC 6962 section 2.1 with blake3): what is
//! stored, and the frontier an append grows.
//!
//! A leaf is an event's canonical JSON line ([`ladder_events::json::write_line`]). Only the hashes of
//! perfect subtrees of [`TILE_LEVEL`] and above (256 leaves and more) are stored, in the `nodes`
//! tree under [`node_key`]: about one 32-byte hash for every 128 events, well under 1% of a ledger.
//! Anything smaller is recomputed from the at most 255 events of one tile, so every proof costs
//! O(log n) reads (the tiles of Trillian and of the C2SP tlog-tiles layout, with one tile height).

use crate::store::{Store, Tree};
use crate::LogError;

/// The lowest level of stored subtree hashes: 2^8 = 256 leaves.
pub const TILE_LEVEL: u32 = 8;

/// One hash of the tree.
pub type Hash = [u8; 32];

/// `blake3(0x00 || leaf)`: the hash of one leaf (RFC 6962 section 2.1, blake3 for SHA-256).
pub fn leaf_hash(leaf: &[u8]) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(&[0]);
    h.update(leaf);
    *h.finalize().as_bytes()
}

/// `blake3(0x01 || left || right)`: the hash of an inner node.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut buf = [0u8; 65];
    buf[0] = 1;
    buf[1..33].copy_from_slice(left);
    buf[33..].copy_from_slice(right);
    *blake3::hash(&buf).as_bytes()
}

/// The root of the empty tree: `blake3("")`.
pub fn empty_root() -> Hash {
    *blake3::hash(b"").as_bytes()
}

/// The key of the perfect subtree at `level` with `index` (leaves `index << level` up to, not
/// including, `(index + 1) << level`): the level byte, then the index big-endian, so a scan reads
/// one level in index order.
pub fn node_key(level: u32, index: u64) -> [u8; 9] {
    let mut k = [0u8; 9];
    k[0] = level as u8;
    k[1..].copy_from_slice(&index.to_be_bytes());
    k
}

/// The level and index a stored node key names.
pub fn parse_node_key(key: &[u8]) -> Option<(u32, u64)> {
    let (&level, index) = key.split_first()?;
    Some((u32::from(level), u64::from_be_bytes(index.try_into().ok()?)))
}

/// The compact state of an append-only tree: the roots of the perfect subtrees of the binary
/// decomposition of its size, largest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// (level, hash), levels strictly decreasing.
    stack: Vec<(u32, Hash)>,
}

impl Frontier {
    /// The frontier of the empty tree.
    pub fn new() -> Frontier {
        Frontier::default()
    }

    /// Adds a leaf hash; `completed(level, index, hash)` hears of every perfect subtree the leaf
    /// completes, the leaf itself (level 0) first.
    pub fn push(&mut self, leaf: Hash, mut completed: impl FnMut(u32, u64, &Hash)) {
        let mut level = 0;
        let mut hash = leaf;
        completed(0, self.size, &hash);
        while let Some(&(l, left)) = self.stack.last() {
            if l != level {
                break;
            }
            self.stack.pop();
            hash = node_hash(&left, &hash);
            level += 1;
            completed(level, self.size >> level, &hash);
        }
        self.stack.push((level, hash));
        self.size += 1;
    }

    /// The root: the perfect subtrees folded from the right (RFC 6962's MTH).
    pub fn root(&self) -> Hash {
        let mut it = self.stack.iter().rev();
        let Some(&(_, mut acc)) = it.next() else { return empty_root() };
        for (_, left) in it {
            acc = node_hash(left, &acc);
        }
        acc
    }

    /// The frontier of a tree of `size` leaves, from its stored subtrees of [`TILE_LEVEL`] and
    /// above and the leaf hashes of its last, partial tile (`tail`, fewer than 256).
    pub(crate) fn restore(
        size: u64,
        store: &dyn Store,
        tail: impl IntoIterator<Item = Hash>,
    ) -> Result<Frontier, LogError> {
        let mut f = Frontier::default();
        for level in (TILE_LEVEL..64).rev() {
            if size & (1 << level) != 0 {
                let index = (size >> level) - 1;
                let hash = stored_node(store, level, index)?;
                f.stack.push((level, hash));
                f.size += 1 << level;
            }
        }
        for leaf in tail {
            f.push(leaf, |_, _, _| {});
        }
        if f.size != size {
            return Err(LogError::Corrupt {
                place: "the Merkle tree".into(),
                detail: format!("its last tile gave {} leaves, the head says {size}", f.size),
            });
        }
        Ok(f)
    }
}

/// The stored hash of the perfect subtree (`level`, `index`), `level` at least [`TILE_LEVEL`].
pub(crate) fn stored_node(store: &dyn Store, level: u32, index: u64) -> Result<Hash, LogError> {
    let v = store.get(Tree::Nodes, &node_key(level, index))?.ok_or_else(|| LogError::Corrupt {
        place: "the Merkle tree".into(),
        detail: format!("the node at level {level}, index {index} is missing"),
    })?;
    <Hash>::try_from(&v[..]).map_err(|_| LogError::Corrupt {
        place: "the Merkle tree".into(),
        detail: format!("the node at level {level}, index {index} has {} bytes, not 32", v.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(i: u8) -> Hash {
        leaf_hash(&[i])
    }

    /// RFC 6962's MTH, written from its definition: split at the largest power of two below n.
    fn mth(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                // The largest power of two below n.
                let k = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
                node_hash(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    #[test]
    fn hand_worked_roots() {
        let (a, b, c, d, e) = (l(0), l(1), l(2), l(3), l(4));
        let mut f = Frontier::new();
        assert_eq!(f.root(), *blake3::hash(b"").as_bytes());
        f.push(a, |_, _, _| {});
        assert_eq!(f.root(), a);
        f.push(b, |_, _, _| {});
        assert_eq!(f.root(), node_hash(&a, &b));
        f.push(c, |_, _, _| {});
        assert_eq!(f.root(), node_hash(&node_hash(&a, &b), &c));
        f.push(d, |_, _, _| {});
        let abcd = node_hash(&node_hash(&a, &b), &node_hash(&c, &d));
        assert_eq!(f.root(), abcd);
        f.push(e, |_, _, _| {});
        assert_eq!(f.root(), node_hash(&abcd, &e));
        assert_eq!(leaf_hash(b"x"), *blake3::hash(b"\x00x").as_bytes());
    }

    #[test]
    fn frontier_matches_the_definition_and_reports_every_perfect_subtree() {
        let leaves: Vec<Hash> = (0..300u32).map(|i| leaf_hash(&i.to_le_bytes())).collect();
        let mut f = Frontier::new();
        let mut seen = Vec::new();
        for (n, leaf) in leaves.iter().enumerate() {
            f.push(*leaf, |level, index, h| seen.push((level, index, *h)));
            assert_eq!(f.root(), mth(&leaves[..=n]), "size {}", n + 1);
        }
        for &(level, index, h) in &seen {
            let span = 1usize << level;
            let start = index as usize * span;
            assert_eq!(h, mth(&leaves[start..start + span]), "level {level} index {index}");
        }
        // Every perfect subtree inside 300 leaves, once: 300 + 150 + 75 + 37 + 18 + 9 + 4 + 2 + 1.
        assert_eq!(seen.len(), 300 + 150 + 75 + 37 + 18 + 9 + 4 + 2 + 1);
    }
}
