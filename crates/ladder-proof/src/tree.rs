//! The RFC 6962 tree hash and proof generation over a source of perfect-subtree hashes.

use sha2::{Digest, Sha256};

/// A SHA-256 hash: leaf, node or root.
pub type Hash = [u8; 32];

/// The hash of a leaf: `SHA-256(0x00 || leaf)` (RFC 6962 section 2.1).
pub fn leaf_hash(leaf: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(leaf);
    h.finalize().into()
}

/// The hash of an interior node: `SHA-256(0x01 || left || right)` (RFC 6962 section 2.1).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut buf = [0u8; 65];
    buf[0] = 0x01;
    buf[1..33].copy_from_slice(left);
    buf[33..].copy_from_slice(right);
    Sha256::digest(buf).into()
}

/// The root of the empty tree: `SHA-256("")` (RFC 6962 section 2.1: `MTH({}) = SHA-256()`).
pub fn empty_root() -> Hash {
    Sha256::digest(b"").into()
}

/// The root of a perfect tree over `leaves` (leaf hashes; the length must be a power of two,
/// otherwise this is the RFC 6962 root of the list all the same, computed the same way).
///
/// This is how a store recomputes the small subtrees it does not keep, from the leaf hashes of
/// one block. The empty list gives [`empty_root`].
pub fn perfect_root(leaves: &[Hash]) -> Hash {
    // A frontier on the stack: no allocation, as this runs for every small subtree a proof needs.
    let mut stack = [[0u8; 32]; 64];
    let mut depth = 0;
    for (i, leaf) in leaves.iter().enumerate() {
        let mut h = *leaf;
        let mut n = i;
        while n & 1 == 1 {
            depth -= 1;
            h = node_hash(&stack[depth], &h);
            n >>= 1;
        }
        stack[depth] = h;
        depth += 1;
    }
    match depth {
        0 => empty_root(),
        _ => stack[..depth - 1]
            .iter()
            .rev()
            .fold(stack[depth - 1], |acc, left| node_hash(left, &acc)),
    }
}

/// A source of perfect-subtree hashes: the only thing [`root`], [`inclusion_proof`] and
/// [`consistency_proof`] read, so a store can serve them in O(log n) reads.
pub trait Subtrees {
    /// Why a hash could not be read (a storage error, a subtree the source does not hold).
    type Error;
    /// The hash of the perfect subtree over leaves [index << level, (index + 1) << level).
    /// Level 0 is the leaf hash itself.
    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, Self::Error>;
}

/// Why a root or proof could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProveError<E> {
    /// An inclusion proof of a leaf the tree does not have.
    #[error(
        "leaf index {index} is outside a tree of {size} leaves (indexes run from 0 to size - 1)"
    )]
    IndexOutOfRange {
        /// The leaf asked for (0-based).
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// A consistency proof from a larger tree to a smaller one.
    #[error("a consistency proof goes from a smaller tree to a larger one; from {from} > to {to}")]
    FromAfterTo {
        /// The old size.
        from: u64,
        /// The new size.
        to: u64,
    },
    /// RFC 6962 defines no consistency proof from the empty tree (every tree extends it).
    #[error("no consistency proof from an empty tree (from = 0): every tree extends it")]
    FromZero,
    /// The source could not give a subtree hash.
    #[error("reading a subtree hash: {0}")]
    Source(E),
}

/// The largest power of two strictly below `n` (n >= 2).
fn split(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1u64 << (63 - (n - 1).leading_zeros())
}

/// The RFC 6962 hash of the `n >= 1` leaves from `start`, where `start` is a multiple of the
/// largest power of two in `n` (true of every range the RFC recursion visits): the fold, from the
/// right, of the perfect subtrees of `n`'s binary decomposition.
fn range_root<S: Subtrees + ?Sized>(src: &mut S, start: u64, n: u64) -> Result<Hash, S::Error> {
    debug_assert!(n >= 1);
    let mut parts = [[0u8; 32]; 64];
    let mut count = 0;
    let mut pos = start;
    for level in (0..64u32).rev() {
        let width = 1u64 << level;
        if n & width != 0 {
            debug_assert_eq!(pos % width, 0, "range [{start}, +{n}) is not aligned");
            parts[count] = src.subtree(level, pos >> level)?;
            pos += width;
            count += 1;
        }
    }
    let mut acc = parts[count - 1];
    for part in parts[..count - 1].iter().rev() {
        acc = node_hash(part, &acc);
    }
    Ok(acc)
}

/// The root of the tree of the first `size` leaves (MTH, RFC 6962 2.1).
pub fn root<S: Subtrees + ?Sized>(size: u64, src: &mut S) -> Result<Hash, ProveError<S::Error>> {
    if size == 0 {
        return Ok(empty_root());
    }
    range_root(src, 0, size).map_err(ProveError::Source)
}

/// The audit path of leaf `index` (0-based) in the tree of the first `size` leaves
/// (PATH, RFC 6962 2.1.1): sibling hashes from the leaf up to the root.
pub fn inclusion_proof<S: Subtrees + ?Sized>(
    index: u64,
    size: u64,
    src: &mut S,
) -> Result<Vec<Hash>, ProveError<S::Error>> {
    if index >= size {
        return Err(ProveError::IndexOutOfRange { index, size });
    }
    // Walk down from the root, collecting the sibling at each split; the path is leaf-first.
    let mut path = Vec::with_capacity(64);
    let (mut m, mut start, mut n) = (index, 0u64, size);
    while n > 1 {
        let k = split(n);
        if m < k {
            path.push(range_root(src, start + k, n - k).map_err(ProveError::Source)?);
            n = k;
        } else {
            path.push(range_root(src, start, k).map_err(ProveError::Source)?);
            m -= k;
            start += k;
            n -= k;
        }
    }
    path.reverse();
    Ok(path)
}

/// The consistency proof between the trees of the first `from` and the first `to` leaves
/// (PROOF and SUBPROOF, RFC 6962 2.1.2). Empty when `from == to`.
pub fn consistency_proof<S: Subtrees + ?Sized>(
    from: u64,
    to: u64,
    src: &mut S,
) -> Result<Vec<Hash>, ProveError<S::Error>> {
    if from > to {
        return Err(ProveError::FromAfterTo { from, to });
    }
    if from == 0 {
        return Err(ProveError::FromZero);
    }
    let mut proof = Vec::with_capacity(64);
    // SUBPROOF(m, D[start..start + n], b), unrolled: each step appends one hash after the
    // subproof of a smaller range, so collect top-down and reverse.
    let (mut m, mut start, mut n, mut whole) = (from, 0u64, to, true);
    while m != n {
        let k = split(n);
        if m <= k {
            proof.push(range_root(src, start + k, n - k).map_err(ProveError::Source)?);
            n = k;
        } else {
            proof.push(range_root(src, start, k).map_err(ProveError::Source)?);
            m -= k;
            start += k;
            n -= k;
            whole = false;
        }
    }
    if !whole {
        proof.push(range_root(src, start, n).map_err(ProveError::Source)?);
    }
    proof.reverse();
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_the_largest_power_of_two_below() {
        assert_eq!(split(2), 1);
        assert_eq!(split(3), 2);
        assert_eq!(split(4), 2);
        assert_eq!(split(5), 4);
        assert_eq!(split(8), 4);
        assert_eq!(split(9), 8);
        assert_eq!(split(u64::MAX), 1 << 63);
    }

    #[test]
    fn hashes_are_the_rfc_6962_prefixed_sha256() {
        // Known SHA-256 digests, independent of the functions: SHA-256("") from FIPS 180-4's
        // examples, and the RFC 6962 leaf hash of the empty entry, SHA-256(0x00), as published
        // with Certificate Transparency's test vectors.
        assert_eq!(
            crate::hex(&empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            crate::hex(&leaf_hash(b"")),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
    }
}
