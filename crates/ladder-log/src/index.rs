//! The ledger's indexes: the on-disk idempotency index and the facts kept in memory.
//!
//! **Ids.** An id's fingerprint is the first 8 bytes of `blake3(id)` (little-endian `u64`). The
//! `ids` tree holds sorted runs (`runs.rs`), each split into buckets by the fingerprint's top bits
//! (at most [`ID_BUCKETS`], 14 bits; run 0, the layout before runs, is keyed by those 14 bits as a
//! big-endian `u16`); a bucket is a format byte and then 16-byte entries
//! `(fingerprint u64 LE, seq u64 LE)` sorted by fingerprint. A hit is only a candidate: the ledger reads the event at that seq and compares ids,
//! so a fingerprint collision or an entry left behind by a refused or crashed append (a seq beyond
//! the head, or reused by a later event) is never taken for a match. That makes the index
//! write-only-forward: nothing has to be undone on refusal or after a crash.
//!
//! **Facts.** Joins (player name → seq), voids (match id → seq of the MatchVoided) and ticks (UTC day
//! → seq) are few next to the events, so they live in memory, read from chunks in the `facts` tree
//! keyed by the seq of their first fact. Opening checks every chunk and loads voids and ticks; the
//! joins (a ladder's largest index, which a replay never asks) become a map on first use. A chunk is a format byte and then entries:
//! ```text
//! 1  seq u64 LE  len u16 LE  name bytes        PlayerJoined
//! 2  seq u64 LE  len u16 LE  match id bytes    MatchVoided
//! 3  seq u64 LE  day i64 LE                    MidnightTick
//! ```

use crate::LogError;

/// Number of buckets of a run of the id index of a million-id spill and of run 0 (2^14): a run
/// of 30 million ids has about 1,800 entries (29 KB) a bucket, one of a million about 60 (1 KB).
pub const ID_BUCKETS: usize = 1 << 14;
/// Format byte of a bucket value.
pub(crate) const ID_FORMAT: u8 = 1;
/// Bytes of one bucket entry: fingerprint and seq, `u64` little-endian each.
pub(crate) const ENTRY: usize = 16;

/// The fingerprint of an id.
pub fn fingerprint(id: &str) -> u64 {
    let h = blake3::hash(id.as_bytes());
    let b = h.as_bytes();
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// The `ids` tree key of the bucket of run 0 (the layout before runs) holding `fp`.
#[cfg(test)]
pub fn bucket_key(fp: u64) -> [u8; 2] {
    ((fp >> 50) as u16).to_be_bytes()
}

fn entries<'a>(key: &[u8], value: &'a [u8]) -> Result<&'a [u8], LogError> {
    let corrupt =
        |detail: String| LogError::Corrupt { place: format!("id bucket {key:02x?}"), detail };
    match value.split_first() {
        Some((&ID_FORMAT, rest)) if rest.len() % ENTRY == 0 => Ok(rest),
        Some((&ID_FORMAT, rest)) => {
            Err(corrupt(format!("{} bytes of entries, not a multiple of {ENTRY}", rest.len())))
        }
        Some((f, _)) => Err(corrupt(format!("unknown format {f}"))),
        None => Err(corrupt("empty".into())),
    }
}

fn entry(e: &[u8]) -> (u64, u64) {
    let mut fp = [0; 8];
    let mut seq = [0; 8];
    fp.copy_from_slice(&e[..8]);
    seq.copy_from_slice(&e[8..16]);
    (u64::from_le_bytes(fp), u64::from_le_bytes(seq))
}

/// The entries `(fingerprint, seq)` of a stored bucket, in order.
pub(crate) fn entries_of<'a>(
    key: &[u8],
    value: &'a [u8],
) -> Result<impl Iterator<Item = (u64, u64)> + 'a, LogError> {
    Ok(entries(key, value)?.chunks_exact(ENTRY).map(entry))
}

/// The seqs stored with fingerprint `fp` in a bucket.
pub fn lookup(key: &[u8], value: &[u8], fp: u64) -> Result<Vec<u64>, LogError> {
    let rest = entries(key, value)?;
    let n = rest.len() / ENTRY;
    // First entry with fingerprint >= fp.
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if entry(&rest[mid * ENTRY..]).0 < fp {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut out = Vec::new();
    while lo < n {
        let (f, seq) = entry(&rest[lo * ENTRY..]);
        if f != fp {
            break;
        }
        out.push(seq);
        lo += 1;
    }
    Ok(out)
}

/// A bucket with `new` entries (sorted) merged into the `old` stored bucket; exact repeats kept once.
pub fn merge_bucket(
    key: &[u8],
    old: Option<&[u8]>,
    new: &[(u64, u64)],
) -> Result<Vec<u8>, LogError> {
    let old = match old {
        Some(v) => entries(key, v)?,
        None => &[],
    };
    let mut out = Vec::with_capacity(1 + old.len() + new.len() * ENTRY);
    out.push(ID_FORMAT);
    let mut a = old.chunks_exact(ENTRY).map(entry).peekable();
    let mut b = new.iter().copied().peekable();
    let mut last = None;
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => {
                if x <= y {
                    a.next()
                } else {
                    b.next()
                }
            }
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        if let Some(e) = next {
            if last != Some(e) {
                out.extend_from_slice(&e.0.to_le_bytes());
                out.extend_from_slice(&e.1.to_le_bytes());
                last = Some(e);
            }
        }
    }
    Ok(out)
}

/// A blocked Bloom filter of id fingerprints: "certainly not in the index" or "maybe". An append
/// that has spilled ids to disk asks it before reading a bucket, so a new id (nearly every id of
/// a long import) costs no read. Each fingerprint sets [`BLOOM_K`] bits inside one 512-bit block
/// (one cache line); the fingerprint is already a uniform hash, so the block is chosen by its top
/// bits and the bits by its low 63 bits, 9 at a time.
#[derive(Clone, Debug)]
pub struct Bloom {
    words: Vec<u64>,
    blocks: u64,
    len: usize,
    capacity: usize,
}

/// Bits a [`Bloom`] sets per fingerprint.
pub const BLOOM_K: u32 = 7;
/// Bits per fingerprint a [`Bloom`] has at its capacity (about 1% false positives).
pub const BLOOM_BITS_PER_ID: usize = 10;

impl Bloom {
    /// An empty filter for up to `capacity` fingerprints at [`BLOOM_BITS_PER_ID`] bits each.
    pub fn with_capacity(capacity: usize) -> Bloom {
        let blocks = (capacity.max(1) * BLOOM_BITS_PER_ID).div_ceil(512);
        Bloom { words: vec![0; blocks * 8], blocks: blocks as u64, len: 0, capacity }
    }

    fn block(&self, fp: u64) -> usize {
        (((fp as u128) * (self.blocks as u128)) >> 64) as usize * 8
    }

    /// Adds a fingerprint.
    pub fn insert(&mut self, fp: u64) {
        let base = self.block(fp);
        for i in 0..BLOOM_K {
            let bit = (fp >> (9 * i)) & 511;
            self.words[base + (bit >> 6) as usize] |= 1 << (bit & 63);
        }
        self.len += 1;
    }

    /// False when `fp` was certainly never added.
    pub fn may_contain(&self, fp: u64) -> bool {
        let base = self.block(fp);
        (0..BLOOM_K).all(|i| {
            let bit = (fp >> (9 * i)) & 511;
            self.words[base + (bit >> 6) as usize] & (1 << (bit & 63)) != 0
        })
    }

    /// True when `more` fingerprints would take it over its capacity.
    pub fn would_overflow(&self, more: usize) -> bool {
        self.len.saturating_add(more) > self.capacity
    }
}

/// The fingerprints of a stored bucket, in order.
pub fn fingerprints<'a>(
    key: &[u8],
    value: &'a [u8],
) -> Result<impl Iterator<Item = u64> + 'a, LogError> {
    Ok(entries(key, value)?.chunks_exact(ENTRY).map(|e| entry(e).0))
}

/// The hasher of maps keyed by id fingerprints: a fingerprint is already 8 bytes of a blake3
/// hash, uniform and not chosen by whoever wrote the ids, so it is its own hash (SipHash on top of
/// it was a few percent of a long import).
#[derive(Clone, Copy, Debug, Default)]
pub struct FpHasher(u64);

impl std::hash::Hasher for FpHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by `FpMap`; any other input is still mixed in.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, fp: u64) {
        self.0 = fp;
    }
}

/// A map keyed by id fingerprints.
pub type FpMap<V> = std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<FpHasher>>;

/// Player names → seq of their PlayerJoined, for the checks of every match (two lookups per
/// two-player match). Names of up to [`NAME_INLINE`] bytes (all usual ones) are kept inside the
/// hash table's entries, so a lookup compares bytes already in the cache line it probed, instead
/// of following a pointer to a name allocated elsewhere (a cache miss per lookup with 100,000
/// players: the largest cost of an import's checks before).
#[derive(Clone, Debug, Default)]
pub struct Names(std::collections::HashMap<NameKey, u64>);

/// Bytes of a name stored inline in [`Names`].
pub const NAME_INLINE: usize = 22;

#[derive(Clone, Debug, PartialEq, Eq)]
enum NameKey {
    Inline(u8, [u8; NAME_INLINE]),
    Heap(Box<str>),
}

impl std::hash::Hash for NameKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The name's bytes only (not the padding): one short write to SipHash. Equal keys have
        // equal bytes, since a name's length decides its variant.
        let bytes = match self {
            NameKey::Inline(len, bytes) => &bytes[..usize::from(*len)],
            NameKey::Heap(name) => name.as_bytes(),
        };
        state.write(bytes);
    }
}

impl NameKey {
    fn new(name: &str) -> NameKey {
        let bytes = name.as_bytes();
        if bytes.len() <= NAME_INLINE {
            let mut inline = [0; NAME_INLINE];
            inline[..bytes.len()].copy_from_slice(bytes);
            NameKey::Inline(bytes.len() as u8, inline)
        } else {
            NameKey::Heap(name.into())
        }
    }
}

impl Names {
    /// The seq stored for `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.get(&NameKey::new(name)).copied()
    }

    /// Stores `seq` for `name`.
    pub fn insert(&mut self, name: &str, seq: u64) {
        self.0.insert(NameKey::new(name), seq);
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds every entry of `other`.
    pub fn extend(&mut self, other: Names) {
        self.0.extend(other.0);
    }
}

/// A fact the ledger keeps in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// A player joined at `seq`.
    Join {
        /// Seq of the PlayerJoined.
        seq: u64,
        /// The player.
        player: String,
    },
    /// Match `match_id` was voided at `seq`.
    Void {
        /// Seq of the MatchVoided.
        seq: u64,
        /// The voided MatchResult's id.
        match_id: String,
    },
    /// UTC day `day` was ticked at `seq`.
    Tick {
        /// Seq of the MidnightTick.
        seq: u64,
        /// The UTC day number.
        day: i64,
    },
}

/// Format byte of a facts chunk.
pub const FACTS_FORMAT: u8 = 1;

impl Fact {
    /// Appends the stored form to a chunk (which starts with [`FACTS_FORMAT`]).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let (tag, seq, text) = match self {
            Fact::Join { seq, player } => (1u8, *seq, player.as_bytes()),
            Fact::Void { seq, match_id } => (2, *seq, match_id.as_bytes()),
            Fact::Tick { seq, day } => {
                out.push(3);
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&day.to_le_bytes());
                return;
            }
        };
        out.push(tag);
        out.extend_from_slice(&seq.to_le_bytes());
        // Names are at most 128 scalar values (512 bytes), ids at most 256 bytes.
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        out.extend_from_slice(text);
    }
}

/// One fact of a stored chunk as [`visit_facts`] reads it: names and ids borrowed from the
/// chunk, nothing allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FactRef<'a> {
    /// [`Fact::Join`].
    Join { seq: u64, player: &'a str },
    /// [`Fact::Void`].
    Void { seq: u64, match_id: &'a str },
    /// [`Fact::Tick`].
    Tick { seq: u64, day: i64 },
}

/// Decodes a stored facts chunk.
pub fn decode_facts(key: &[u8], value: &[u8]) -> Result<Vec<Fact>, LogError> {
    let mut out = Vec::new();
    visit_facts(key, value, |fact| {
        out.push(match fact {
            FactRef::Join { seq, player } => Fact::Join { seq, player: player.to_string() },
            FactRef::Void { seq, match_id } => Fact::Void { seq, match_id: match_id.to_string() },
            FactRef::Tick { seq, day } => Fact::Tick { seq, day },
        })
    })?;
    Ok(out)
}

/// Checks a whole stored facts chunk and hands each of its facts to `visit`, in order, without
/// allocating: [`decode_facts`]'s checks and errors exactly (a chunk that fails one is refused
/// whole, after `visit` saw the facts before the failure).
pub(crate) fn visit_facts<'a>(
    key: &[u8],
    value: &'a [u8],
    mut visit: impl FnMut(FactRef<'a>),
) -> Result<(), LogError> {
    let corrupt =
        |detail: String| LogError::Corrupt { place: format!("facts chunk {key:02x?}"), detail };
    let Some((&FACTS_FORMAT, mut rest)) = value.split_first() else {
        return Err(corrupt("unknown format or empty".into()));
    };
    let mut n = 0usize;
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        if rest.len() < n {
            return None;
        }
        let (a, b) = rest.split_at(n);
        *rest = b;
        Some(a)
    }
    fn u64_of(b: &[u8]) -> u64 {
        let mut a = [0; 8];
        a.copy_from_slice(b);
        u64::from_le_bytes(a)
    }
    while let Some((&tag, r)) = rest.split_first() {
        rest = r;
        let cut = || corrupt(format!("entry {n} is cut"));
        let seq = u64_of(take(&mut rest, 8).ok_or_else(cut)?);
        let fact = match tag {
            1 | 2 => {
                let len = take(&mut rest, 2).ok_or_else(cut)?;
                let len = u16::from_le_bytes([len[0], len[1]]) as usize;
                let text = take(&mut rest, len).ok_or_else(cut)?;
                let text = std::str::from_utf8(text)
                    .map_err(|_| corrupt(format!("entry {n} is not UTF-8")))?;
                if tag == 1 {
                    FactRef::Join { seq, player: text }
                } else {
                    FactRef::Void { seq, match_id: text }
                }
            }
            3 => FactRef::Tick { seq, day: u64_of(take(&mut rest, 8).ok_or_else(cut)?) as i64 },
            t => return Err(corrupt(format!("entry {n} has unknown tag {t}"))),
        };
        visit(fact);
        n += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_merge_sorted_and_look_up() {
        let k = [0, 1];
        let b = merge_bucket(&k, None, &[(5, 1), (9, 2)]).unwrap();
        let b = merge_bucket(&k, Some(&b), &[(1, 3), (5, 4), (9, 2)]).unwrap();
        assert_eq!(b.len(), 1 + 4 * 16, "the exact repeat (9, 2) is kept once");
        assert_eq!(lookup(&k, &b, 5).unwrap(), vec![1, 4]);
        assert_eq!(lookup(&k, &b, 1).unwrap(), vec![3]);
        assert_eq!(lookup(&k, &b, 9).unwrap(), vec![2]);
        assert!(lookup(&k, &b, 7).unwrap().is_empty());
        assert!(lookup(&k, &b[..20], 5).is_err());
        assert!(lookup(&k, &[], 5).is_err());
        assert!(bucket_key(u64::MAX) == [0x3f, 0xff]);
    }

    #[test]
    fn bloom_never_forgets_and_mostly_refuses() {
        let mut b = Bloom::with_capacity(10_000);
        let fps: Vec<u64> = (0..10_000u32).map(|i| fingerprint(&format!("id-{i}"))).collect();
        for &fp in &fps {
            b.insert(fp);
        }
        assert!(fps.iter().all(|&fp| b.may_contain(fp)), "no false negatives");
        assert!(!b.would_overflow(0));
        // At 10 bits per id a blocked filter with 7 bits per id lets through about 1%; 5% is a
        // bound that only a broken filter (a few bits, or one block) would exceed.
        let false_hits =
            (0..10_000u32).filter(|i| b.may_contain(fingerprint(&format!("other-{i}")))).count();
        assert!(false_hits < 500, "{false_hits} of 10,000 unknown ids passed");
        assert!(b.would_overflow(1));
    }

    #[test]
    fn names_short_and_long() {
        let long = "ä".repeat(40);
        let mut n = Names::default();
        for (i, name) in ["p1", "", "exactly twenty-two b.", &long].iter().enumerate() {
            n.insert(name, i as u64 + 1);
        }
        n.insert("p1", 9);
        assert_eq!(n.get("p1"), Some(9));
        assert_eq!(n.get(""), Some(2));
        assert_eq!(n.get("exactly twenty-two b."), Some(3));
        assert_eq!(n.get(&long), Some(4));
        assert_eq!((n.get("p"), n.get("p1\0"), n.get(&long[..78])), (None, None, None));
    }

    #[test]
    fn facts_round_trip_and_refuse_cuts() {
        let facts = vec![
            Fact::Join { seq: 1, player: "ålice".into() },
            Fact::Tick { seq: 2, day: -3 },
            Fact::Void { seq: 9, match_id: "m-1".into() },
        ];
        let mut out = vec![FACTS_FORMAT];
        for f in &facts {
            f.encode_into(&mut out);
        }
        assert_eq!(decode_facts(b"k", &out).unwrap(), facts);
        for cut in 0..out.len() {
            if cut == 1 {
                continue; // just the format byte: an empty chunk
            }
            let end_of_entry = [1 + 1 + 8 + 2 + 6, 1 + 1 + 8 + 2 + 6 + 17];
            if end_of_entry.contains(&cut) {
                continue;
            }
            assert!(decode_facts(b"k", &out[..cut]).is_err(), "cut at {cut} decoded");
        }
    }
}
