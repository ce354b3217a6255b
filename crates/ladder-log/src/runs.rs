//! The idempotency index on disk as sorted runs (an LSM-shaped layout; the design and its
//! figures are in `docs/adr/0001-ledger-storage.md`, "The idempotency index").
//!
//! A **run** is a set of `(fingerprint, seq)` entries split into `2^bits` buckets by the
//! fingerprint's top bits; each bucket is one key of the `ids` tree whose value is the bucket
//! format of [`crate::index`] (a format byte, then 16-byte entries sorted by fingerprint). Since
//! the bucket number is the fingerprint's top bits and keys are big-endian, a run read bucket by
//! bucket is one sorted sequence.
//!
//! - Run 0 is the layout written before runs existed: keys of 2 bytes (the bucket, `u16`
//!   big-endian, 14 bits). A ledger without a directory is read as run 0 alone, so it needs no
//!   migration.
//! - Run `r >= 1` has keys of 7 bytes: `R`, `r` (`u32` big-endian), the bucket (`u16`
//!   big-endian).
//! - The **directory** (key `runs`) lists the live runs (number, bucket bits, entries) and the
//!   runs being deleted, and the next run number.
//!
//! A spill of a long batch writes its pending entries as a new run instead of rewriting every
//! bucket; runs of one size class (`floor(log4(entries))`) are merged once there are
//! [`FAN_IN`] of them, so an entry is rewritten once per class it climbs: a batch of N ids writes
//! O(N log N) bytes, not O(N^2 / spill). A small addition goes into the newest run in place (only
//! the buckets it touches) while that run averages at most one entry per bucket, so one-event
//! appends stay cheap.
//!
//! Crash safety: a hit is only a candidate (the ledger reads the event behind it), so an entry
//! left over by a refused or crashed batch is harmless, and adding entries never needs undoing.
//! A merge writes its output under a fresh run number, flushes, then records it in the directory
//! (the sources marked for deletion) and flushes again, and only then deletes the sources: at any
//! crash every committed entry is in a live run. Keys under a run number the directory has not
//! recorded yet (a crash while writing that run) are cleared before that number is used.

use crate::index::{self, ID_BUCKETS};
use crate::store::{Store, Tree};
use crate::LogError;

/// The key of the run directory in the `ids` tree.
pub(crate) const DIRECTORY_KEY: &[u8] = b"runs";
/// The first byte of the keys of runs 1 and later.
const RUN_PREFIX: u8 = b'R';
const DIRECTORY_FORMAT: u8 = 1;
/// Runs of one size class are merged once there are this many of them.
pub(crate) const FAN_IN: usize = 4;
/// A commit merges its smallest runs when more than this many are live (and the merge costs at
/// most [`COMMIT_MERGE_FACTOR`] times the batch's ids), so that later appends, which read one
/// bucket per run for each id until their own first spill, read few.
pub(crate) const COMMIT_RUNS: usize = 4;
/// See [`COMMIT_RUNS`].
const COMMIT_MERGE_FACTOR: u64 = 2;
/// Bucket bits of run 0, the layout before runs.
const LEGACY_BITS: u8 = 14;
/// The most bucket bits a run has ([`ID_BUCKETS`] buckets).
pub(crate) const MAX_BITS: u8 = LEGACY_BITS;
const RECORD: usize = 14;

/// One run of the index: its number, bucket bits and entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// 0 for the layout before runs; otherwise the run's key prefix.
    pub number: u32,
    /// The run has `2^bits` buckets.
    pub bits: u8,
    /// Entries stored (for run 0 of a ledger without a directory, an upper bound: the events).
    pub count: u64,
}

/// The `ids` tree key of one bucket of a run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunKey {
    bytes: [u8; 7],
    len: u8,
}

impl std::ops::Deref for RunKey {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl Run {
    /// The bucket of `fp`: its top `bits` bits.
    pub fn bucket_of(&self, fp: u64) -> u32 {
        if self.bits == 0 {
            0
        } else {
            (fp >> (64 - u32::from(self.bits))) as u32
        }
    }

    /// Number of buckets.
    pub fn buckets(&self) -> u32 {
        1 << self.bits
    }

    /// The key of bucket `bucket`.
    pub fn key(&self, bucket: u32) -> RunKey {
        let b = (bucket as u16).to_be_bytes();
        let mut bytes = [0; 7];
        if self.number == 0 {
            bytes[..2].copy_from_slice(&b);
            return RunKey { bytes, len: 2 };
        }
        bytes[0] = RUN_PREFIX;
        bytes[1..5].copy_from_slice(&self.number.to_be_bytes());
        bytes[5..].copy_from_slice(&b);
        RunKey { bytes, len: 7 }
    }

    /// The seqs stored with fingerprint `fp` in this run.
    pub fn lookup(&self, store: &dyn Store, fp: u64) -> Result<Vec<u64>, LogError> {
        let key = self.key(self.bucket_of(fp));
        match store.get(Tree::Ids, &key)? {
            Some(v) => index::lookup(&key, &v, fp),
            None => Ok(Vec::new()),
        }
    }

    /// Size class for merging: `floor(log4(count))`.
    fn class(&self) -> u32 {
        self.count.max(1).ilog2() / 2
    }

    /// The key prefix every bucket of run `number >= 1` starts with (`R`, the number).
    fn prefix(&self) -> Option<[u8; 5]> {
        (self.number != 0).then(|| {
            let mut p = [RUN_PREFIX, 0, 0, 0, 0];
            p[1..].copy_from_slice(&self.number.to_be_bytes());
            p
        })
    }

    /// Removes every bucket of the run (for a run `>= 1`, the stored ones, found by one scan).
    fn delete(&self, store: &dyn Store) -> Result<(), LogError> {
        if let Some(prefix) = self.prefix() {
            let keys: Vec<Vec<u8>> = store
                .scan(Tree::Ids, &prefix)
                .take_while(|e| e.as_ref().map_or(true, |(k, _)| k.starts_with(&prefix)))
                .map(|e| e.map(|(k, _)| k.to_vec()))
                .collect::<Result<_, _>>()?;
            for k in keys {
                store.remove(Tree::Ids, &k)?;
            }
            return Ok(());
        }
        for b in 0..self.buckets() {
            store.remove(Tree::Ids, &self.key(b))?;
        }
        Ok(())
    }
}

/// The stored buckets under a run's key prefix, in key order.
type Buckets<'a> = Box<dyn Iterator<Item = Result<crate::store::Entry, LogError>> + 'a>;

/// Every entry of a run in order: for a run `>= 1`, its stored buckets by one scan of its key
/// prefix (a bucket nothing fell into is not stored, and costs nothing); for run 0, bucket by
/// bucket.
struct Reader<'a> {
    store: &'a dyn Store,
    run: Run,
    next_bucket: u32,
    entries: Vec<(u64, u64)>,
    pos: usize,
    scan: Option<(Buckets<'a>, [u8; 5])>,
}

impl<'a> Reader<'a> {
    fn new(store: &'a dyn Store, run: Run) -> Reader<'a> {
        let scan = run.prefix().map(|p| (store.scan(Tree::Ids, &p), p));
        Reader { store, run, next_bucket: 0, entries: Vec::new(), pos: 0, scan }
    }

    fn peek(&mut self) -> Result<Option<(u64, u64)>, LogError> {
        if let Some((buckets, prefix)) = self.scan.as_mut() {
            while self.pos == self.entries.len() {
                let Some(next) = buckets.next() else { return Ok(None) };
                let (key, value) = next?;
                if !key.starts_with(prefix) {
                    return Ok(None);
                }
                self.entries.clear();
                self.pos = 0;
                self.entries.extend(index::entries_of(&key, &value)?);
            }
            return Ok(Some(self.entries[self.pos]));
        }
        while self.pos == self.entries.len() {
            if self.next_bucket == self.run.buckets() {
                return Ok(None);
            }
            let key = self.run.key(self.next_bucket);
            self.next_bucket += 1;
            self.entries.clear();
            self.pos = 0;
            if let Some(v) = self.store.get(Tree::Ids, &key)? {
                self.entries.extend(index::entries_of(&key, &v)?);
            }
        }
        Ok(Some(self.entries[self.pos]))
    }
}

/// Writes a run's buckets in order from sorted entries, counting them.
struct Writer<'a> {
    store: &'a dyn Store,
    run: Run,
    bucket: u32,
    buf: Vec<u8>,
}

impl<'a> Writer<'a> {
    fn new(store: &'a dyn Store, run: Run) -> Writer<'a> {
        Writer { store, run, bucket: 0, buf: vec![index::ID_FORMAT] }
    }

    fn push(&mut self, fp: u64, seq: u64) -> Result<(), LogError> {
        let b = self.run.bucket_of(fp);
        if b != self.bucket {
            self.write_bucket()?;
            self.bucket = b;
        }
        self.buf.extend_from_slice(&fp.to_le_bytes());
        self.buf.extend_from_slice(&seq.to_le_bytes());
        self.run.count += 1;
        Ok(())
    }

    fn write_bucket(&mut self) -> Result<(), LogError> {
        if self.buf.len() > 1 {
            self.store.insert(Tree::Ids, &self.run.key(self.bucket), &self.buf)?;
            self.buf.truncate(1);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Run, LogError> {
        self.write_bucket()?;
        Ok(self.run)
    }
}

/// The run directory: the live runs (oldest first), the runs being deleted, the next number.
#[derive(Clone, Debug, Default)]
pub(crate) struct Runs {
    next: u32,
    /// Live runs, oldest first.
    pub live: Vec<Run>,
    /// Runs recorded as merged into a live run whose keys may still be stored.
    garbage: Vec<Run>,
    /// The number of the run of the last confirmed hit, tried first by the next lookup: the ids
    /// of a re-imported file come in the order they were written, and so mostly from one run.
    last_hit: std::cell::Cell<Option<u32>>,
}

impl Runs {
    /// Reads the directory. Without one, the index is run 0 (the layout before runs) if any
    /// 2-byte key is stored, its entries estimated by `events` (an upper bound on its ids).
    pub fn load(store: &dyn Store, events: u64) -> Result<Runs, LogError> {
        let Some(v) = store.get(Tree::Ids, DIRECTORY_KEY)? else {
            let legacy = match store.scan(Tree::Ids, &[]).next().transpose()? {
                Some((k, _)) => k.len() == 2,
                None => false,
            };
            let live = if legacy {
                vec![Run { number: 0, bits: LEGACY_BITS, count: events }]
            } else {
                Vec::new()
            };
            return Ok(Runs { next: 1, live, ..Runs::default() });
        };
        Runs::decode(&v)
    }

    fn decode(v: &[u8]) -> Result<Runs, LogError> {
        let corrupt =
            |detail: String| LogError::Corrupt { place: "the id run directory".into(), detail };
        let Some((&DIRECTORY_FORMAT, rest)) = v.split_first() else {
            return Err(corrupt("unknown format or empty".into()));
        };
        if rest.len() < 4 || (rest.len() - 4) % RECORD != 0 {
            return Err(corrupt(format!("{} bytes", v.len())));
        }
        let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mut runs = Runs { next: u32_at(rest), ..Runs::default() };
        for r in rest[4..].chunks_exact(RECORD) {
            let mut count = [0; 8];
            count.copy_from_slice(&r[6..14]);
            let run = Run { number: u32_at(r), bits: r[4], count: u64::from_le_bytes(count) };
            if run.bits > MAX_BITS || (run.number >= runs.next) {
                return Err(corrupt(format!("run {} with {} bucket bits", run.number, run.bits)));
            }
            match r[5] {
                0 => runs.live.push(run),
                1 => runs.garbage.push(run),
                s => return Err(corrupt(format!("run {} in state {s}", run.number))),
            }
        }
        Ok(runs)
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = vec![DIRECTORY_FORMAT];
        out.extend_from_slice(&self.next.to_le_bytes());
        for (runs, state) in [(&self.live, 0u8), (&self.garbage, 1)] {
            for r in runs {
                out.extend_from_slice(&r.number.to_le_bytes());
                out.push(r.bits);
                out.push(state);
                out.extend_from_slice(&r.count.to_le_bytes());
            }
        }
        out
    }

    fn save(&self, store: &dyn Store) -> Result<(), LogError> {
        store.insert(Tree::Ids, DIRECTORY_KEY, &self.encode())
    }

    /// Total entries of the live runs.
    pub fn entries(&self) -> u64 {
        self.live.iter().map(|r| r.count).sum()
    }

    /// Calls `f` with each seq stored under `fp`, the run of the last confirmed hit first, then
    /// the largest runs first (where most entries are), until `f` returns `true` (a confirmed
    /// hit). Returns whether it did.
    pub fn find(
        &self,
        store: &dyn Store,
        fp: u64,
        mut f: impl FnMut(u64) -> Result<bool, LogError>,
    ) -> Result<bool, LogError> {
        let mut order: Vec<&Run> = self.live.iter().collect();
        let last = self.last_hit.get();
        order.sort_by_key(|r| (Some(r.number) != last, std::cmp::Reverse(r.count)));
        for run in order {
            for seq in run.lookup(store, fp)? {
                if f(seq)? {
                    self.last_hit.set(Some(run.number));
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Calls `f` with every fingerprint of every live run.
    pub fn for_each_fp(&self, store: &dyn Store, mut f: impl FnMut(u64)) -> Result<(), LogError> {
        for run in &self.live {
            if let Some(prefix) = run.prefix() {
                // One scan of the run's stored buckets (see [`Reader`]).
                for e in store.scan(Tree::Ids, &prefix) {
                    let (key, v) = e?;
                    if !key.starts_with(&prefix) {
                        break;
                    }
                    index::fingerprints(&key, &v)?.for_each(&mut f);
                }
                continue;
            }
            for b in 0..run.buckets() {
                let key = run.key(b);
                if let Some(v) = store.get(Tree::Ids, &key)? {
                    index::fingerprints(&key, &v)?.for_each(&mut f);
                }
            }
        }
        Ok(())
    }

    /// Deletes the runs the directory lists as merged (left by a crash during a merge).
    pub fn collect_garbage(&mut self, store: &dyn Store) -> Result<(), LogError> {
        if self.garbage.is_empty() {
            return Ok(());
        }
        for run in &self.garbage {
            run.delete(store)?;
        }
        self.garbage.clear();
        self.save(store)
    }

    /// A fresh run number, with any keys a crash left under it removed.
    fn fresh(&mut self, store: &dyn Store, bits: u8) -> Result<Run, LogError> {
        let run = Run { number: self.next, bits, count: 0 };
        let prefix = &run.key(0)[..5];
        let stale: Vec<_> = store
            .scan(Tree::Ids, prefix)
            .take_while(|e| e.as_ref().map_or(true, |(k, _)| k.starts_with(prefix)))
            .map(|e| e.map(|(k, _)| k))
            .collect::<Result<_, _>>()?;
        for k in stale {
            store.remove(Tree::Ids, &k)?;
        }
        self.next = self.next.checked_add(1).ok_or_else(|| LogError::Corrupt {
            place: "the id run directory".into(),
            detail: "no run numbers left".into(),
        })?;
        Ok(run)
    }

    /// Adds sorted entries (of seqs below `keep_below`) to the index: into the newest run in place
    /// when it stays at most one entry per bucket on average (so the buckets rewritten are about
    /// as small as the entries added), else as a new run of `bits` bucket bits; then merges every
    /// size class that has [`FAN_IN`] runs. Entries with seqs at or beyond `keep_below` found
    /// while merging are leftovers of a refused or crashed append and are dropped.
    pub fn add(
        &mut self,
        store: &dyn Store,
        entries: &[(u64, u64)],
        bits: u8,
        keep_below: u64,
    ) -> Result<(), LogError> {
        if entries.is_empty() {
            return Ok(());
        }
        let n = entries.len() as u64;
        match self.live.last_mut() {
            Some(newest) if newest.count + n <= u64::from(newest.buckets()) => {
                add_in_place(store, newest, entries)?;
            }
            _ => {
                let mut w = Writer::new(store, self.fresh(store, bits)?);
                for &(fp, seq) in entries {
                    w.push(fp, seq)?;
                }
                self.live.push(w.finish()?);
            }
        }
        self.save(store)?;
        self.merge_full_classes(store, bits, keep_below)
    }

    /// The smallest size class with [`FAN_IN`] runs or more.
    fn full_class(&self) -> Option<u32> {
        let mut classes: Vec<u32> = self.live.iter().map(Run::class).collect();
        classes.sort_unstable();
        classes.windows(FAN_IN).find(|w| w[0] == w[FAN_IN - 1]).map(|w| w[0])
    }

    /// At a commit that added `batch` ids: when more than [`COMMIT_RUNS`] runs are live, merges
    /// the smallest ones into one (leaving [`COMMIT_RUNS`]), if that rewrites at most
    /// [`COMMIT_MERGE_FACTOR`] times `batch` entries.
    pub fn settle(
        &mut self,
        store: &dyn Store,
        batch: u64,
        bits: u8,
        keep_below: u64,
    ) -> Result<(), LogError> {
        if self.live.len() <= COMMIT_RUNS {
            return Ok(());
        }
        let mut order: Vec<usize> = (0..self.live.len()).collect();
        order.sort_by_key(|&i| self.live[i].count);
        let which = &order[..self.live.len() - COMMIT_RUNS + 1];
        let cost: u64 = which.iter().map(|&i| self.live[i].count).sum();
        if cost <= batch.saturating_mul(COMMIT_MERGE_FACTOR) {
            let mut which = which.to_vec();
            which.sort_unstable();
            self.merge(store, &which, bits, keep_below)?;
            self.merge_full_classes(store, bits, keep_below)?;
        }
        Ok(())
    }

    /// Merges every size class that has [`FAN_IN`] runs, smallest first.
    fn merge_full_classes(
        &mut self,
        store: &dyn Store,
        bits: u8,
        keep_below: u64,
    ) -> Result<(), LogError> {
        while let Some(class) = self.full_class() {
            let which: Vec<usize> =
                (0..self.live.len()).filter(|&i| self.live[i].class() == class).collect();
            self.merge(store, &which, bits, keep_below)?;
        }
        Ok(())
    }

    /// Merges the live runs at `which` (indexes, ascending) into one new run of at most `bits`
    /// bucket bits, about 64 entries a bucket as a spill's run ([`bits_for_spill`]), in the
    /// place of the newest of them. Crash-safe as the module documentation says.
    ///
    /// Fewer buckets than `bits` for a small merge: each bucket is a key of the store, and
    /// writing (then one day deleting) 16,384 keys for the 64,000 ids of four runs filled in
    /// place cost most of a server's appends (docs/PERFORMANCE.md, "Serving").
    fn merge(
        &mut self,
        store: &dyn Store,
        which: &[usize],
        bits: u8,
        keep_below: u64,
    ) -> Result<(), LogError> {
        let sources: Vec<Run> = which.iter().map(|&i| self.live[i]).collect();
        let total: u64 = sources.iter().map(|r| r.count).sum();
        let bits = bits.min(bits_for_spill(usize::try_from(total).unwrap_or(usize::MAX)));
        let out = merge_runs(store, &sources, self.fresh(store, bits)?, keep_below)?;
        // The output is durable before the directory names it and drops the sources.
        store.flush()?;
        let at = which[which.len() - 1];
        self.live[at] = out;
        for &i in which.iter().rev().skip(1) {
            self.live.remove(i);
        }
        self.garbage.extend(sources);
        self.save(store)?;
        // The directory is durable before the sources' keys go.
        store.flush()?;
        self.collect_garbage(store)
    }
}

/// Merges `entries` (sorted) into the buckets of `run` they fall in; exact repeats kept once.
fn add_in_place(store: &dyn Store, run: &mut Run, entries: &[(u64, u64)]) -> Result<(), LogError> {
    let mut rest = entries;
    while let Some(&(fp, _)) = rest.first() {
        let bucket = run.bucket_of(fp);
        let n = rest.iter().take_while(|e| run.bucket_of(e.0) == bucket).count();
        let (these, after) = rest.split_at(n);
        rest = after;
        let key = run.key(bucket);
        let old = store.get(Tree::Ids, &key)?;
        let old_len = old.as_deref().map_or(0, |v| v.len().saturating_sub(1) / index::ENTRY);
        let merged = index::merge_bucket(&key, old.as_deref(), these)?;
        run.count = run.count - old_len as u64 + ((merged.len() - 1) / index::ENTRY) as u64;
        store.insert(Tree::Ids, &key, &merged)?;
    }
    Ok(())
}

/// Writes the sorted union of `sources` as run `out`, dropping exact repeats, seq 0 and seqs at
/// or beyond `keep_below`. Holds one bucket per source and one output bucket in memory.
fn merge_runs(
    store: &dyn Store,
    sources: &[Run],
    out: Run,
    keep_below: u64,
) -> Result<Run, LogError> {
    let mut readers: Vec<Reader<'_>> = sources.iter().map(|&r| Reader::new(store, r)).collect();
    let mut w = Writer::new(store, out);
    let mut last = None;
    loop {
        let mut best: Option<(usize, (u64, u64))> = None;
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(e) = r.peek()? {
                if best.is_none_or(|(_, b)| e < b) {
                    best = Some((i, e));
                }
            }
        }
        let Some((i, e)) = best else { break };
        readers[i].pos += 1;
        if last == Some(e) || e.1 == 0 || e.1 >= keep_below {
            continue;
        }
        last = Some(e);
        w.push(e.0, e.1)?;
    }
    w.finish()
}

/// Bucket bits of the runs an append writes, for spills of `spill` ids: about 64 entries per
/// bucket in a run of one spill, at most [`MAX_BITS`] (a million-id spill: 14 bits, the layout
/// of run 0).
pub(crate) fn bits_for_spill(spill: usize) -> u8 {
    let per_bucket = (spill / 64).max(1);
    (per_bucket.ilog2() as u8).min(MAX_BITS)
}

const _: () = assert!(1 << MAX_BITS == ID_BUCKETS);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemStore;

    /// Distinct fingerprints spread over the whole range (a fixed odd multiplier).
    fn fp(i: u64) -> u64 {
        i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    fn sorted(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
        v.sort_unstable();
        v
    }

    /// Every entry of the live runs, in run order then key order.
    fn all(runs: &Runs, store: &dyn Store) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for &run in &runs.live {
            let mut r = Reader::new(store, run);
            while let Some(e) = r.peek().unwrap() {
                out.push(e);
                r.pos += 1;
            }
        }
        out
    }

    fn seqs(runs: &Runs, store: &dyn Store, f: u64) -> Vec<u64> {
        let mut out = Vec::new();
        runs.find(store, f, |s| {
            out.push(s);
            Ok(false)
        })
        .unwrap();
        out.sort_unstable();
        out
    }

    #[test]
    fn entries_of_several_runs_are_all_found() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        assert!(runs.live.is_empty());
        // Three additions of 100 entries, 2 bucket bits: each is a new run (100 > 4 buckets).
        for k in 0..3u64 {
            let e = sorted((0..100).map(|i| (fp(k * 100 + i), k * 100 + i + 1)).collect());
            runs.add(&store, &e, 2, u64::MAX).unwrap();
        }
        assert_eq!(runs.live.len(), 3);
        let loaded = Runs::load(&store, 0).unwrap();
        let fields = |r: &Runs| (r.next, r.live.clone(), r.garbage.clone());
        assert_eq!(fields(&loaded), fields(&runs), "the directory round-trips");
        for i in 0..300 {
            assert_eq!(seqs(&runs, &store, fp(i)), vec![i + 1]);
        }
        assert!(seqs(&runs, &store, fp(300)).is_empty());
    }

    #[test]
    fn a_fingerprint_in_an_older_and_a_later_run_yields_both() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        let shared = fp(7);
        runs.add(&store, &sorted(vec![(shared, 3), (fp(1), 1), (fp(2), 2)]), 0, u64::MAX).unwrap();
        runs.add(&store, &sorted(vec![(shared, 9), (fp(4), 8)]), 0, u64::MAX).unwrap();
        assert_eq!(runs.live.len(), 2, "the newest run had one bucket: no room in place");
        assert_eq!(seqs(&runs, &store, shared), vec![3, 9]);
        // A confirmed hit stops the search: the callback decides.
        let mut calls = 0;
        let hit = runs
            .find(&store, shared, |_| {
                calls += 1;
                Ok(true)
            })
            .unwrap();
        assert!(hit);
        assert_eq!(calls, 1);
        // The largest run is read first, until a hit in another makes that one first.
        let first = |runs: &Runs, f: u64| {
            let mut seen = None;
            runs.find(&store, f, |s| {
                seen = Some(s);
                Ok(true)
            })
            .unwrap();
            seen
        };
        assert_eq!(first(&runs, shared), Some(3));
        assert_eq!(first(&runs, fp(4)), Some(8));
        assert_eq!(first(&runs, shared), Some(9));
    }

    /// A merge of small runs writes about 64 entries a bucket, not the runs' bucket count: four
    /// runs of 14 bits (16,384 buckets each) holding 100 entries each merge into a run of 2 bits
    /// (400 / 64 rounded down to a power of two: 4 buckets); every entry is found, and the
    /// sources' keys are gone (found by a scan of each source's prefix).
    #[test]
    fn a_merge_of_small_runs_writes_few_buckets() {
        let store = MemStore::new();
        let mut runs = Runs { next: 1, ..Runs::default() };
        let mut expected = Vec::new();
        for r in 0..4u64 {
            let entries = sorted((0..100).map(|i| (fp(r * 1000 + i), 1 + r * 100 + i)).collect());
            let mut w = Writer::new(&store, runs.fresh(&store, 14).unwrap());
            for &(f, s) in &entries {
                w.push(f, s).unwrap();
            }
            runs.live.push(w.finish().unwrap());
            expected.extend(entries);
        }
        runs.merge(&store, &[0, 1, 2, 3], 14, u64::MAX).unwrap();
        assert_eq!(runs.live.len(), 1);
        assert_eq!((runs.live[0].bits, runs.live[0].count), (2, 400));
        let keys: Vec<_> = store.scan(Tree::Ids, &[]).map(|e| e.unwrap().0.to_vec()).collect();
        // The directory and the new run's 4 buckets, nothing of the sources.
        assert_eq!(keys.len(), 1 + 4, "{keys:?}");
        assert_eq!(all(&runs, &store), sorted(expected.clone()));
        for &(f, s) in &expected {
            assert_eq!(seqs(&runs, &store, f), vec![s]);
        }
    }

    #[test]
    fn merges_keep_order_and_every_entry() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        let mut expect = Vec::new();
        // 16 runs of 64 entries with 3 bucket bits: four runs of class 3 (64 = 4^3) merge into
        // one of class 4 (256), and four of those into one of class 5 (1,024): one run at the end.
        for k in 0..16u64 {
            let e: Vec<_> = sorted((0..64).map(|i| (fp(k * 64 + i), k * 64 + i + 1)).collect());
            expect.extend_from_slice(&e);
            runs.add(&store, &e, 3, u64::MAX).unwrap();
            assert!(runs.full_class().is_none(), "after add {k}: {:?}", runs.live);
        }
        assert_eq!(runs.live.len(), 1);
        assert_eq!(runs.live[0].count, 1024);
        let got = all(&runs, &store);
        assert_eq!(got, sorted(expect), "one sorted run holding every entry");
        // The merged sources' keys are gone: the tree holds the directory and 8 buckets.
        let keys = store.scan(Tree::Ids, &[]).count();
        assert_eq!(keys, 1 + 8);
    }

    #[test]
    fn merges_drop_exact_repeats_and_leftovers_beyond_the_written() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        for _ in 0..3 {
            runs.add(&store, &[(fp(1), 1), (fp(2), 50)], 0, u64::MAX).unwrap();
        }
        assert_eq!(runs.live.len(), 3);
        // The fourth run of class 0 merges them; seq 50 is at `keep_below` and dropped.
        runs.add(&store, &[(fp(3), 2)], 0, 50).unwrap();
        assert_eq!(runs.live.len(), 1);
        assert_eq!(all(&runs, &store), sorted(vec![(fp(1), 1), (fp(3), 2)]));
    }

    #[test]
    fn small_additions_go_into_the_newest_run_in_place() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        runs.add(&store, &[(fp(1), 1)], 4, u64::MAX).unwrap();
        runs.add(&store, &[(fp(2), 2)], 4, u64::MAX).unwrap();
        runs.add(&store, &sorted(vec![(fp(3), 3), (fp(4), 4)]), 4, u64::MAX).unwrap();
        assert_eq!(runs.live.len(), 1, "16 buckets hold 4 entries in place");
        assert_eq!(runs.live[0].count, 4);
        for i in 1..=4 {
            assert_eq!(seqs(&runs, &store, fp(i)), vec![i]);
        }
    }

    #[test]
    fn the_layout_before_runs_is_run_zero() {
        let store = MemStore::new();
        // Two buckets written as before runs existed: 2-byte keys, 14 bits.
        let (a, b) = (fp(10), fp(11));
        for (f, s) in [(a, 4), (b, 5)] {
            let key = index::bucket_key(f);
            let v = index::merge_bucket(&key, None, &[(f, s)]).unwrap();
            store.insert(Tree::Ids, &key, &v).unwrap();
        }
        let mut runs = Runs::load(&store, 5).unwrap();
        assert_eq!(runs.live, vec![Run { number: 0, bits: 14, count: 5 }]);
        assert_eq!(seqs(&runs, &store, a), vec![4]);
        // A small addition goes into its buckets in place, as before runs.
        runs.add(&store, &[(fp(12), 6)], 0, u64::MAX).unwrap();
        assert_eq!(runs.live, vec![Run { number: 0, bits: 14, count: 6 }]);
        assert!(store.get(Tree::Ids, &index::bucket_key(fp(12))).unwrap().is_some());
        // A large one is a new run beside it (one bucket, as asked); merging the two moves run
        // 0's entries into a new run and removes its keys.
        let many = sorted((0..16_400).map(|i| (fp(100 + i), 7 + i)).collect());
        runs.add(&store, &many, 0, u64::MAX).unwrap();
        assert_eq!(runs.live.len(), 2);
        assert_eq!(runs.live[1], Run { number: 1, bits: 0, count: 16_400 });
        runs.merge(&store, &[0, 1], 2, u64::MAX).unwrap();
        assert_eq!(runs.live, vec![Run { number: 2, bits: 2, count: 3 + 16_400 }]);
        for f in [a, b, fp(12)] {
            assert!(store.get(Tree::Ids, &index::bucket_key(f)).unwrap().is_none());
        }
        assert_eq!(seqs(&runs, &store, a), vec![4]);
        assert_eq!(seqs(&runs, &store, b), vec![5]);
        assert_eq!(seqs(&runs, &store, fp(12)), vec![6]);
        assert_eq!(seqs(&runs, &store, fp(111)), vec![18]);
        assert_eq!(store.scan(Tree::Ids, &[]).count(), 1 + 4, "the directory and 4 buckets");
    }

    #[test]
    fn a_crash_after_a_merge_recorded_leaves_garbage_that_is_collected() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        for k in 0..2u64 {
            runs.add(&store, &[(fp(k), k + 1), (fp(k + 10), k + 11)], 0, u64::MAX).unwrap();
        }
        // As if a merge had recorded its output and crashed before deleting its sources: the
        // directory lists them as garbage, their keys still stored.
        let sources = runs.live.clone();
        let out = merge_runs(&store, &sources, runs.fresh(&store, 0).unwrap(), u64::MAX).unwrap();
        runs.live = vec![out];
        runs.garbage = sources.clone();
        runs.save(&store).unwrap();
        let mut loaded = Runs::load(&store, 0).unwrap();
        assert_eq!(loaded.garbage, sources);
        assert_eq!(seqs(&loaded, &store, fp(1)), vec![2], "garbage runs are not read");
        loaded.collect_garbage(&store).unwrap();
        assert!(store.get(Tree::Ids, &sources[0].key(0)).unwrap().is_none());
        assert_eq!(Runs::load(&store, 0).unwrap().garbage, vec![]);
    }

    #[test]
    fn keys_left_under_an_unrecorded_run_number_are_cleared_before_it_is_used() {
        let store = MemStore::new();
        let mut runs = Runs::load(&store, 0).unwrap();
        // A crash while writing run 1 (2 bucket bits) left bucket 3, with an entry the new run 1
        // (1 bucket bit) could not place.
        let stale = Run { number: 1, bits: 2, count: 0 };
        let v = index::merge_bucket(&stale.key(3), None, &[(u64::MAX, 9)]).unwrap();
        store.insert(Tree::Ids, &stale.key(3), &v).unwrap();
        runs.add(&store, &[(fp(1), 1), (fp(2), 2), (fp(3), 3)], 1, u64::MAX).unwrap();
        assert_eq!(runs.live[0].number, 1);
        assert!(store.get(Tree::Ids, &stale.key(3)).unwrap().is_none());
        assert!(seqs(&runs, &store, u64::MAX).is_empty());
    }

    #[test]
    fn spill_bits() {
        assert_eq!(bits_for_spill(1 << 20), 14);
        assert_eq!(bits_for_spill(64), 0);
        assert_eq!(bits_for_spill(1), 0);
        assert_eq!(bits_for_spill(4096), 6);
        assert_eq!(bits_for_spill(1 << 30), 14);
    }
}
