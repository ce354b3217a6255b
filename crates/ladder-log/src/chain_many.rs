//! Many chain hashes at once, in the CPU's SIMD lanes: what `verify` needs, where every record's
//! previous hash is already stored, so the chain hashes of a block's records do not wait on one
//! another.
//!
//! A chain hash is `blake3(prev || line)` ([`crate::chain_hash`]); for the lines of a ledger
//! (most 80 to 200 bytes) the input is one BLAKE3 chunk of two to five 64-byte blocks, compressed
//! one after the other. Hashed one input at a time, each compression uses one lane of the CPU's
//! vector unit. The BLAKE3 paper ("BLAKE3: one function, fast everywhere", section 5.3, "SIMD")
//! describes the other way the reference implementation hashes many chunks: the same block of
//! 4, 8 or 16 inputs at once, one input a lane. The blake3 crate does this in `hash_many`, which
//! it exports in its `platform` module (hidden from its documentation, for its benchmarks; hence
//! the exact version pinned in the workspace's manifest). Here every input's blocks but the last
//! go through `hash_many` (the chunk's first block flagged `CHUNK_START`, none `CHUNK_END`,
//! giving the chunk's chaining value so far), and the last block, which may be partial, is
//! compressed alone with `CHUNK_END | ROOT`, as BLAKE3's own chunk state does ("BLAKE3",
//! section 2.2, "Compression function", and 2.5, "Chunk chaining"). Inputs longer than one chunk
//! (1,024 bytes) are hashed by the crate's `Hasher`. The result is the same 32 bytes as
//! [`crate::chain_hash`], tested against it on every length from 33 to 1,100 bytes and on random
//! inputs.

use blake3::platform::Platform;
use blake3::IncrementCounter;

/// BLAKE3's block, in bytes ("BLAKE3", section 2.1).
const BLOCK_LEN: usize = 64;
/// BLAKE3's chunk, in bytes ("BLAKE3", section 2.1).
const CHUNK_LEN: usize = 1024;
/// Blocks in a chunk.
const CHUNK_BLOCKS: usize = CHUNK_LEN / BLOCK_LEN;
/// Domain flags ("BLAKE3", table 3).
const CHUNK_START: u8 = 1;
const CHUNK_END: u8 = 1 << 1;
const ROOT: u8 = 1 << 3;
/// BLAKE3's IV: SHA-256's ("BLAKE3", section 2.2, table 1).
const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];
/// Inputs given to one `hash_many` call: the widest lanes there are (AVX-512's sixteen).
const LANES: usize = 16;

/// Inputs `prev || line` laid end to end, and their chain hashes computed together.
pub(crate) struct ChainMany {
    platform: Platform,
    /// The inputs, each `prev || line`.
    buf: Vec<u8>,
    /// (start in `buf`, length) of each input.
    inputs: Vec<(usize, usize)>,
    /// The indexes of the inputs by their number of blocks before the last (0 to 15).
    by_blocks: [Vec<usize>; CHUNK_BLOCKS],
}

impl ChainMany {
    /// No inputs.
    pub(crate) fn new() -> ChainMany {
        ChainMany {
            platform: Platform::detect(),
            buf: Vec::with_capacity(16 << 10),
            inputs: Vec::with_capacity(128),
            by_blocks: Default::default(),
        }
    }

    /// Forgets every input, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.inputs.clear();
    }

    /// Adds the input `prev || line`, `write` appending the line to the vector it is given (and
    /// nothing else); returns the line.
    pub(crate) fn push(&mut self, prev: &[u8; 32], write: impl FnOnce(&mut Vec<u8>)) -> &[u8] {
        let start = self.buf.len();
        self.buf.extend_from_slice(prev);
        write(&mut self.buf);
        self.inputs.push((start, self.buf.len() - start));
        &self.buf[start + prev.len()..]
    }

    /// The chain hash of every input, in their order, into `out` (emptied first).
    pub(crate) fn hashes(&mut self, out: &mut Vec<[u8; 32]>) {
        out.clear();
        out.resize(self.inputs.len(), [0; 32]);
        for group in &mut self.by_blocks {
            group.clear();
        }
        for (i, &(start, len)) in self.inputs.iter().enumerate() {
            if len > CHUNK_LEN {
                out[i] = *blake3::hash(&self.buf[start..start + len]).as_bytes();
            } else {
                // `len` is at least 32 (the previous hash): at least one block, the last.
                self.by_blocks[(len - 1) / BLOCK_LEN].push(i);
            }
        }
        let mut cvs = [0u8; 32 * LANES];
        for blocks in 0..CHUNK_BLOCKS {
            for part in self.by_blocks[blocks].chunks(LANES) {
                let cvs = &mut cvs[..32 * part.len()];
                self.prefixes(blocks, part, cvs);
                for (k, &i) in part.iter().enumerate() {
                    let (start, len) = self.inputs[i];
                    let mut cv = IV;
                    let mut flags = CHUNK_END | ROOT;
                    if blocks == 0 {
                        flags |= CHUNK_START;
                    } else {
                        for (w, b) in cv.iter_mut().zip(cvs[32 * k..32 * k + 32].chunks_exact(4)) {
                            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        }
                    }
                    let tail = &self.buf[start + blocks * BLOCK_LEN..start + len];
                    let mut block = [0u8; BLOCK_LEN];
                    block[..tail.len()].copy_from_slice(tail);
                    self.platform.compress_in_place(&mut cv, &block, tail.len() as u8, 0, flags);
                    for (b, w) in out[i].chunks_exact_mut(4).zip(cv) {
                        b.copy_from_slice(&w.to_le_bytes());
                    }
                }
            }
        }
    }

    /// The chaining values after the first `blocks` blocks of each input in `part` (at most
    /// [`LANES`]), into `cvs` (32 bytes each); nothing when `blocks` is 0.
    fn prefixes(&self, blocks: usize, part: &[usize], cvs: &mut [u8]) {
        macro_rules! by_len {
            ($($n:literal)*) => {
                match blocks {
                    $($n => self.prefixes_of::<{ $n * BLOCK_LEN }>(part, cvs),)*
                    _ => {}
                }
            };
        }
        by_len!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }

    /// [`ChainMany::prefixes`] for prefixes of `N` bytes.
    fn prefixes_of<const N: usize>(&self, part: &[usize], cvs: &mut [u8]) {
        let zero = [0u8; N];
        let mut refs = [&zero; LANES];
        for (r, &i) in refs.iter_mut().zip(part) {
            let start = self.inputs[i].0;
            // Every input in `part` is longer than `N` bytes (see `hashes`).
            if let Some(prefix) = self.buf[start..].first_chunk::<N>() {
                *r = prefix;
            }
        }
        self.platform.hash_many(
            &refs[..part.len()],
            &IV,
            0,
            IncrementCounter::No,
            0,
            CHUNK_START,
            0,
            cvs,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain_hash;

    fn check(lens: &[usize]) {
        let mut many = ChainMany::new();
        let mut want = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut byte = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        };
        for &len in lens {
            let prev: [u8; 32] = std::array::from_fn(|_| byte());
            let line: Vec<u8> = (0..len).map(|_| byte()).collect();
            let got = many.push(&prev, |buf| buf.extend_from_slice(&line));
            assert_eq!(got, &line[..]);
            want.push(chain_hash(&prev, &line));
        }
        let mut got = Vec::new();
        many.hashes(&mut got);
        assert_eq!(got, want, "{lens:?}");
    }

    /// Every line length from empty to past a chunk: one block, a full last block, a partial
    /// one, the chunk's end, and the inputs hashed whole.
    #[test]
    fn every_length_hashes_as_chain_hash_does() {
        let lens: Vec<usize> = (0..1100).collect();
        check(&lens);
        // Reused after `clear`.
        let mut many = ChainMany::new();
        many.push(&[1; 32], |b| b.extend_from_slice(b"x"));
        many.clear();
        let mut out = vec![[9; 32]];
        many.hashes(&mut out);
        assert!(out.is_empty());
    }

    /// Groups of every size around the lane count, mixed lengths in any order.
    #[test]
    fn mixed_groups_hash_as_chain_hash_does() {
        for n in [1, 2, 15, 16, 17, 31, 33, 64, 100] {
            let lens: Vec<usize> =
                (0..n).map(|i| [176, 87, 178, 51, 992, 993, 2000][i % 7]).collect();
            check(&lens);
        }
    }

    proptest::proptest! {
        #[test]
        fn random_lines_hash_as_chain_hash_does(
            lens in proptest::collection::vec(0usize..1500, 0..80),
        ) {
            check(&lens);
        }
    }
}
