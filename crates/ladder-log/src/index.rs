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

/// A ledger's Bloom filter over its idempotency index, kept between appends.
///
/// Invariant: `bloom`, when present, holds every fingerprint in the on-disk index (it may hold
/// more: those of a refused append's spills, which stay on disk as leftovers, or of a commit
/// that failed). An append takes it at its start, adds every fingerprint before writing it, and
/// gives it back when it is published or refused; an append that fails otherwise drops it,
/// and a later one builds it again.
#[derive(Default)]
pub struct IdFilter {
    /// The filter, once an append built it.
    pub bloom: Option<Bloom>,
    /// Buckets read by lookups, in this and earlier appends, while there was no filter.
    pub probes: u64,
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

    /// Prefetches the block [`Bloom::may_contain`] will read for `fp` (both its cache lines, when
    /// it straddles two): a filter of tens of megabytes misses the cache on every lookup, and an
    /// append asks it a few events ahead ([`crate::append`]'s lookahead) so the misses overlap
    /// (docs/PERFORMANCE.md, "Import: fewer hand-overs, hashes off the ledger's thread"). Changes
    /// nothing.
    pub fn touch(&self, fp: u64) {
        let base = self.block(fp);
        if let (Some(first), Some(last)) = (self.words.get(base), self.words.get(base + 7)) {
            ladder_projector::prefetch(first);
            ladder_projector::prefetch(last);
        }
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

/// Id fingerprints → seq, for the ids of a batch not yet in the on-disk index: open addressing
/// with linear probing over 16-byte slots (fingerprint, seq), at most half full. A fingerprint is
/// already 8 bytes of a blake3 hash, uniform and not chosen by whoever wrote the ids, so it is its
/// own hash; seq 0 (never an event's) marks an empty slot. With up to a million pending ids the
/// table is far bigger than the core's cache, and a lookup is a cache miss: unlike a
/// `HashMap`'s, this table's slot is known from the fingerprint alone, so [`FpTable::touch`] can
/// prefetch it a few events before the lookup (docs/PERFORMANCE.md, "Import: the ledger's
/// thread").
#[derive(Clone, Debug, Default)]
pub struct FpTable {
    /// A power of two in length (or empty).
    slots: Vec<(u64, u64)>,
    len: usize,
}

impl FpTable {
    /// The seq stored for `fp`.
    #[inline]
    pub fn get(&self, fp: u64) -> Option<u64> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = fp as usize & mask;
        loop {
            let (f, seq) = self.slots[i];
            if seq == 0 {
                return None;
            }
            if f == fp {
                return Some(seq);
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `seq` (not 0) for `fp` and returns true, or returns false, storing nothing, when
    /// `fp` holds a seq already.
    pub fn insert_new(&mut self, fp: u64, seq: u64) -> bool {
        debug_assert!(seq != 0, "seq 0 marks an empty slot");
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = fp as usize & mask;
        loop {
            let (f, stored) = self.slots[i];
            if stored == 0 {
                self.slots[i] = (fp, seq);
                self.len += 1;
                return true;
            }
            if f == fp {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (at least 1,024 slots) and puts every entry back.
    #[cold]
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); len]);
        let mask = len - 1;
        for (fp, seq) in old.into_iter().filter(|e| e.1 != 0) {
            let mut i = fp as usize & mask;
            while self.slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (fp, seq);
        }
    }

    /// Prefetches the slot where a lookup of `fp` starts ([`ladder_projector::prefetch`]).
    /// Changes nothing.
    #[inline]
    pub fn touch(&self, fp: u64) {
        if !self.slots.is_empty() {
            ladder_projector::prefetch(&self.slots[fp as usize & (self.slots.len() - 1)]);
        }
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Every entry, in no particular order, leaving the table empty (its memory kept).
    pub fn drain(&mut self) -> Vec<(u64, u64)> {
        let out: Vec<(u64, u64)> = self.slots.iter().copied().filter(|e| e.1 != 0).collect();
        if !out.is_empty() {
            self.slots.fill((0, 0));
        }
        self.len = 0;
        out
    }
}

/// Player names → seq of their PlayerJoined, for the checks of every match (two lookups per
/// two-player match). The names are interned by a [`ladder_projector::Roster`] (open addressing,
/// a fixed-seed foldhash, 32-byte slots holding a short name itself), and `seqs` holds each
/// interned name's seq by its dense id. A lookup of a short name reads one slot of the table and
/// one `u64` of `seqs`: with 100,000 players the table is bigger than the core's cache, and the
/// SipHash table this replaced read two places of it (its control bytes, then its bucket), each a
/// cache miss, and hashed with SipHash: together 11% of an import's CPU (docs/PERFORMANCE.md,
/// "Import: the ledger's thread"). [`Names::touch`] lets the appending thread prefetch the slots
/// of the events it will check next, so their misses overlap.
#[derive(Clone, Debug, Default)]
pub struct Names {
    roster: ladder_projector::Roster,
    /// The seq of each interned name, by its roster id.
    seqs: Vec<u64>,
}

impl Names {
    /// The seq stored for `name`.
    #[inline]
    pub fn get(&self, name: &str) -> Option<u64> {
        let id = self.roster.get(name)?;
        self.seqs.get(id.index()).copied()
    }

    /// Stores `seq` for `name` (replacing any seq stored for it).
    pub fn insert(&mut self, name: &str, seq: u64) {
        let id = self.roster.intern(name).index();
        if id == self.seqs.len() {
            self.seqs.push(seq);
        } else if let Some(stored) = self.seqs.get_mut(id) {
            *stored = seq;
        }
    }

    /// Prefetches where a lookup of `name` starts ([`ladder_projector::Roster::touch`]). Changes
    /// nothing: a hint that a lookup of `name` comes soon.
    #[inline]
    pub fn touch(&self, name: &str) {
        self.roster.touch(name);
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.seqs.len()
    }

    /// Adds every entry of `other` (replacing the seq of a name both hold).
    pub fn extend(&mut self, other: Names) {
        for (id, seq) in other.seqs.into_iter().enumerate() {
            self.insert(other.roster.name(ladder_projector::PlayerId(id as u32)), seq);
        }
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
        // The prefetch of a lookup's block reaches the first and the last block, and changes
        // no answer.
        for fp in fps.iter().copied().chain([0, u64::MAX]) {
            b.touch(fp);
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
    fn the_fingerprint_table_finds_what_it_holds_and_refuses_a_second_seq() {
        let mut t = FpTable::default();
        assert_eq!((t.get(5), t.len()), (None, 0));
        t.touch(5);
        // Fingerprints that share their low bits (one home slot), and many spread ones.
        let same_home: Vec<u64> = (1..=40u64).map(|k| (k << 40) | 7).collect();
        for (i, &fp) in same_home.iter().enumerate() {
            assert!(t.insert_new(fp, i as u64 + 1));
        }
        let spread: Vec<u64> = (0..5_000u64).map(|i| fingerprint(&format!("m-{i}"))).collect();
        for (i, &fp) in spread.iter().enumerate() {
            assert!(t.insert_new(fp, 100 + i as u64), "m-{i}");
        }
        assert_eq!(t.len(), 5_040);
        for (i, &fp) in same_home.iter().enumerate() {
            assert_eq!(t.get(fp), Some(i as u64 + 1));
        }
        for (i, &fp) in spread.iter().enumerate() {
            assert_eq!(t.get(fp), Some(100 + i as u64));
        }
        // A second seq for a held fingerprint is refused and changes nothing; fingerprint 0 is
        // an ordinary key.
        assert!(!t.insert_new(same_home[3], 999));
        assert_eq!(t.get(same_home[3]), Some(4));
        assert_eq!(t.get(0), None);
        assert!(t.insert_new(0, 77));
        assert_eq!(t.get(0), Some(77));
        // Draining gives every entry once and leaves it empty, ready to be filled again.
        let mut all = t.drain();
        all.sort_unstable();
        let mut want: Vec<(u64, u64)> =
            same_home.iter().enumerate().map(|(i, &f)| (f, i as u64 + 1)).collect();
        want.extend(spread.iter().enumerate().map(|(i, &f)| (f, 100 + i as u64)));
        want.push((0, 77));
        want.sort_unstable();
        assert_eq!(all, want);
        assert_eq!((t.len(), t.get(spread[0]), t.get(0)), (0, None, None));
        assert!(t.insert_new(spread[0], 1));
        assert_eq!(t.get(spread[0]), Some(1));
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
        assert_eq!(n.len(), 4);
        // Extending keeps both sides' names; a name in both takes the added seq.
        let mut other = Names::default();
        other.insert("p1", 10);
        other.insert("q", 11);
        n.extend(other);
        assert_eq!(
            (n.get("p1"), n.get("q"), n.get(&long), n.len()),
            (Some(10), Some(11), Some(4), 5)
        );
        // Many names, as an import of 100,000 players, each found with its own seq.
        let mut many = Names::default();
        for i in 0..20_000u64 {
            many.insert(&format!("p{i:06}"), 3 * i + 1);
        }
        for i in 0..20_000u64 {
            assert_eq!(many.get(&format!("p{i:06}")), Some(3 * i + 1));
        }
        assert_eq!(many.get("p020000"), None);
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
