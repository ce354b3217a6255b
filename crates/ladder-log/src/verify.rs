//! `verify`: everything the ledger stores, recomputed from its events, on every core.
//!
//! One thread scans the blocks in order and hands them out in numbered jobs of a few dozen
//! blocks; workers (one per core the machine has) each take a job and, for every record, check
//! the block layout and gapless sequence numbers, read the event in place, check the facts index
//! (joins, voids, ticks) against it, write its canonical JSON line (the leaf bytes), and check its
//! chain hash against the stored one: `blake3(stored hash before it || line)`, the hash before the
//! first record being the one its block names. Every input is known once the block is read, so
//! the block's chain hashes are computed together, in the CPU's SIMD lanes ([`ChainMany`]), and
//! then compared in order. The worker also hashes each leaf (SHA-256) and
//! the tree inside its job: the job's leaves cut into the largest aligned perfect subtrees of at
//! most a tile (256 leaves, whose 255 inner nodes are most of the tree's hashing), each reduced
//! to its root. This thread takes the jobs in their order, checks that each block names the last
//! hash of the block before it (so the chain is whole), and joins the jobs' subtree roots into
//! the Merkle tree ([`Frontier::push_subtree`]), comparing every node from a tile up with its
//! stored subtree hash: about one node hash in 128 is left to it, so it keeps pace with the
//! workers instead of holding them up. Then the id index is checked (every event with an id is
//! found under it) and every checkpoint (its own hash, and that the head it was computed at is
//! in the chain).
//!
//! The first failure in sequence order is reported, whichever worker met it first, as one pass
//! checking each event in turn would: the same first bad event on every run. At most
//! [`IN_FLIGHT`] jobs are out at once, so memory does not grow with the ledger.

use crate::block::{self, Block};
use crate::chain_many::ChainMany;
use crate::index;
use crate::ledger::Ledger;
use crate::store::{Store, Tree, Value};
use crate::tree;
use crate::{Head, LogError, VerifyError, GENESIS};
use ladder_events::codec::{self, BodyView, EventView};
use ladder_events::json;
use ladder_proof::{perfect_root, Frontier, Hash};
use std::collections::BTreeMap;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;

/// Blocks in one job (about 2,000 events).
const JOB_BLOCKS: usize = 32;
/// Jobs out at once (scanned, being checked, or waiting for their turn).
const IN_FLIGHT: usize = 16;

/// One job: its number and its blocks in order, or the storage error that ended the scan.
struct Job {
    number: usize,
    blocks: Vec<Result<(Value, Value), LogError>>,
}

/// What a worker found in one block.
struct Checked {
    first: u64,
    /// The previous hash the block names.
    prev: [u8; 32],
    /// The stored chain hash of every record checked (through the first bad one, excluded).
    hashes: Vec<[u8; 32]>,
    /// The first bad record (or the block's own failure), and why.
    failure: Option<(u64, String)>,
    /// Facts seen: joins, voids, ticks.
    facts: (usize, usize, usize),
    /// (seq, id fingerprint) of every event with an id.
    ids: Vec<(u64, u64)>,
}

/// What a worker found in one job.
struct Done {
    /// Its blocks in order.
    blocks: Vec<Checked>,
    /// A block that does not parse, or a storage error, after the blocks before it.
    broken: Option<String>,
    /// The leaf hash of every record checked, block after block (each block's as many as its
    /// `hashes`).
    leaves: Vec<Hash>,
    /// The tree over the job's leaves: see [`Pieces`].
    pieces: Pieces,
}

/// The leaves of a job's blocks that follow one another (each block starting where the one
/// before it ends, naming its last chain hash, and the one before it whole), as aligned perfect
/// subtrees of at most [`tree::TILE_LEVEL`] levels, each by its root: what this thread would
/// compute pushing those leaves one by one, bar the nodes from a tile up.
#[derive(Default)]
struct Pieces {
    /// The tree index of the first leaf covered (its seq less one).
    start: u64,
    /// How many leaves are covered.
    count: u64,
    /// (level, root) of each subtree, left to right.
    roots: Vec<(u32, Hash)>,
}

impl Pieces {
    /// Cuts `leaves`, the leaves from tree index `start` on, into the largest aligned perfect
    /// subtrees of at most [`tree::TILE_LEVEL`] levels.
    fn of(start: u64, leaves: &[Hash]) -> Pieces {
        let end = start + leaves.len() as u64;
        let mut roots = Vec::with_capacity(leaves.len() / 256 + 2 * tree::TILE_LEVEL as usize);
        let mut pos = start;
        while pos < end {
            let level = pos.trailing_zeros().min((end - pos).ilog2()).min(tree::TILE_LEVEL);
            let at = (pos - start) as usize;
            roots.push((level, perfect_root(&leaves[at..at + (1usize << level)])));
            pos += 1u64 << level;
        }
        Pieces { start, count: leaves.len() as u64, roots }
    }
}

/// What the reading learned besides the chain and the tree: the id fingerprint of every event
/// that has one, by seq.
#[derive(Default)]
struct Ids {
    fps: Vec<u64>,
    /// One bit per seq: the event has an id (a bitmap small enough to stay in the cache while
    /// `check_ids` looks up seqs in random order).
    has_id: Vec<u64>,
}

impl Ids {
    fn add(&mut self, seq: u64, fp: u64) {
        let at = seq as usize;
        if self.fps.len() <= at {
            self.fps.resize(at + 1, 0);
            self.has_id.resize(at / 64 + 1, 0);
        }
        self.fps[at] = fp;
        self.has_id[at / 64] |= 1 << (at % 64);
    }

    /// True when `at` is an event's seq with an id of fingerprint `fp`.
    fn is(&self, at: usize, fp: u64) -> bool {
        self.fps.get(at) == Some(&fp) && self.has_id[at / 64] & (1 << (at % 64)) != 0
    }
}

impl Ledger {
    /// Recomputes everything stored from the events: the chain from seq 1 (each event's chain hash
    /// over its canonical JSON line), the Merkle tree's stored subtree hashes, the facts and id
    /// indexes, and every replay checkpoint's own hash and head. `Ok(head)` when all agree, else
    /// the first bad sequence number (or the index or checkpoint that disagrees). With `expect`,
    /// also fails when the ledger does not hold that head (its seq is beyond the head, or its hash
    /// is not the chain hash at its seq), which is how a chain cut at its tail is detected. Uses
    /// every core the machine has; the answer does not depend on how many.
    pub fn verify(&self, expect: Option<Head>) -> Result<Head, VerifyError> {
        // The players index, which opening leaves for its first use: the facts are checked
        // against it below.
        let players = self.players()?.len();
        let checkpoints = self.checkpoint_heads()?;
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut ids = Ids::default();
        let (job_tx, job_rx) = sync_channel::<Job>(IN_FLIGHT);
        let job_rx = Mutex::new(job_rx);
        let head = std::thread::scope(|scope| {
            let (done_tx, done_rx) = sync_channel::<(usize, Done)>(IN_FLIGHT);
            let (token_tx, token_rx) = sync_channel::<()>(IN_FLIGHT);
            for _ in 0..IN_FLIGHT {
                let _ = token_tx.send(());
            }
            scope.spawn(move || self.scan_jobs(job_tx, token_rx));
            let job_rx = &job_rx;
            for _ in 0..workers {
                let done_tx = done_tx.clone();
                scope.spawn(move || loop {
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok(job) = job else { return };
                    let done = self.check_job(job.blocks);
                    if done_tx.send((job.number, done)).is_err() {
                        return;
                    }
                });
            }
            drop(done_tx);
            // Owns the receiving ends: returning drops them, which ends the other threads.
            self.check_in_order(done_rx, token_tx, expect, &checkpoints, players, &mut ids)
        })?;
        self.check_ids(&ids)?;
        if expect.is_none() {
            self.mark_verified();
        }
        Ok(head)
    }

    /// The scanning thread: the blocks through the head, in order, in numbered jobs, each sent
    /// once a token says fewer than [`IN_FLIGHT`] are out. Stops at a storage error (sent in
    /// place of the next block) or when the checking side hangs up.
    fn scan_jobs(&self, jobs: std::sync::mpsc::SyncSender<Job>, tokens: Receiver<()>) {
        let head = self.head.seq;
        let mut blocks = Vec::with_capacity(JOB_BLOCKS);
        let mut number = 0;
        let mut send = |blocks: Vec<_>| -> bool {
            if tokens.recv().is_err() {
                return false;
            }
            let ok = jobs.send(Job { number, blocks }).is_ok();
            number += 1;
            ok
        };
        for entry in self.store.scan(Tree::Events, &[]) {
            let stop = entry.is_err();
            if let Ok((k, _)) = &entry {
                if block::seq_of_key(k).is_some_and(|first| first > head) {
                    break;
                }
            }
            blocks.push(entry);
            if stop {
                break;
            }
            if blocks.len() == JOB_BLOCKS
                && !send(std::mem::replace(&mut blocks, Vec::with_capacity(JOB_BLOCKS)))
            {
                return;
            }
        }
        if !blocks.is_empty() {
            send(blocks);
        }
    }

    /// A worker's part: every block of a job checked on its own (see the module documentation),
    /// then the tree over the job's leaves that follow one another.
    fn check_job(&self, blocks: Vec<Result<(Value, Value), LogError>>) -> Done {
        let head = self.head.seq;
        let mut out: Vec<Checked> = Vec::with_capacity(blocks.len());
        let mut leaves: Vec<Hash> = Vec::with_capacity(blocks.len() * 64);
        let mut broken = None;
        // How many of `leaves` follow one another from the job's first block (see [`Pieces`]).
        let mut joined: Option<usize> = None;
        let mut chain = ChainMany::new();
        let mut computed: Vec<[u8; 32]> = Vec::with_capacity(128);
        for entry in blocks {
            let (k, v) = match entry {
                Ok(e) => e,
                Err(e) => {
                    broken = Some(e.to_string());
                    break;
                }
            };
            let b = match Block::parse(&k, &v) {
                Ok(b) => b,
                Err(e) => {
                    broken = Some(e.to_string());
                    break;
                }
            };
            let follows = match out.last() {
                None => true,
                Some(before) => {
                    before.failure.is_none()
                        && before.first + before.hashes.len() as u64 == b.first
                        && before.hashes.last() == Some(&b.prev)
                }
            };
            if !follows && joined.is_none() {
                joined = Some(leaves.len());
            }
            let mut c = Checked {
                first: b.first,
                prev: b.prev,
                hashes: Vec::with_capacity(b.count as usize),
                failure: None,
                facts: (0, 0, 0),
                ids: Vec::new(),
            };
            let block_leaves = leaves.len();
            // Every record's line goes into `chain`, whose chain hashes are computed together
            // once the block is read: the first that differs from its stored hash comes before
            // any other failure at or after its record (the record whose facts are wrong
            // included: its chain hash is checked first), as checking record by record would.
            chain.clear();
            let mut prev = b.prev;
            let mut rest = b.body();
            for i in 0..b.count {
                let seq = b.first + u64::from(i);
                if seq > head {
                    c.failure = Some((seq, format!("stored beyond the head {head}")));
                    break;
                }
                let (stored, bytes, r) = match block::read_record(b.first, seq, rest) {
                    Ok(r) => r,
                    Err(e) => {
                        c.failure = Some((seq, e.to_string()));
                        break;
                    }
                };
                rest = r;
                let event = match codec::view(bytes) {
                    Ok(e) => e,
                    Err(e) => {
                        c.failure = Some((seq, format!("its bytes do not decode: {e}")));
                        break;
                    }
                };
                let line = chain.push(&prev, |buf| json::write_view_line(&event, buf));
                let leaf = ladder_proof::leaf_hash(line);
                c.hashes.push(*stored);
                if let Err(why) = self.check_fact(seq, &event, &mut c.facts) {
                    c.failure = Some((seq, why));
                    break;
                }
                if let Some(id) = event.id {
                    c.ids.push((seq, index::fingerprint(id)));
                }
                leaves.push(leaf);
                prev = *stored;
            }
            chain.hashes(&mut computed);
            if let Some(at) = computed.iter().zip(&c.hashes).position(|(h, s)| h != s) {
                c.failure = Some((
                    b.first + at as u64,
                    "its chain hash does not match its JSON line and the previous hash".into(),
                ));
                c.hashes.truncate(at);
                leaves.truncate(block_leaves + at);
            } else if c.failure.is_some() && c.hashes.len() > leaves.len() - block_leaves {
                // The record whose facts are wrong: its stored hash was kept for the comparison.
                c.hashes.pop();
            }
            if c.failure.is_none() && !rest.is_empty() {
                c.failure = Some((b.last(), "bytes after the block's last record".into()));
            }
            out.push(c);
        }
        let start = out.first().map_or(0, |c| c.first.saturating_sub(1));
        let joined = joined.unwrap_or(leaves.len());
        let pieces = Pieces::of(start, &leaves[..joined]);
        Done { blocks: out, broken, leaves, pieces }
    }

    /// This thread's part: the jobs in their order (each returns a token once taken), the chain
    /// joined across blocks, the tree grown from the jobs' subtrees and compared, the facts
    /// counted; the first failure in sequence order.
    fn check_in_order(
        &self,
        done: Receiver<(usize, Done)>,
        tokens: std::sync::mpsc::SyncSender<()>,
        expect: Option<Head>,
        checkpoints: &[(Vec<u8>, Head)],
        players: usize,
        ids: &mut Ids,
    ) -> Result<Head, VerifyError> {
        let broken = |seq: u64, reason: String| Err(VerifyError::Broken { seq, reason });
        let head = self.head;
        let mut prev = GENESIS;
        let mut next = 1u64;
        let mut frontier = Frontier::new();
        let mut facts = (0usize, 0usize, 0usize);
        let mut at_expected = expect.filter(|e| e.seq == 0).map(|_| GENESIS);
        let mut at_checkpoint: BTreeMap<u64, [u8; 32]> =
            checkpoints.iter().map(|(_, h)| (h.seq, GENESIS)).collect();
        let mut waiting: BTreeMap<usize, Done> = BTreeMap::new();
        let mut turn = 0usize;
        loop {
            let job = match waiting.remove(&turn) {
                Some(job) => job,
                None => match done.recv() {
                    Ok((number, job)) if number == turn => job,
                    Ok((number, job)) => {
                        waiting.insert(number, job);
                        continue;
                    }
                    // Every job is in: the scan ended.
                    Err(_) => break,
                },
            };
            turn += 1;
            let _ = tokens.send(());
            // The blocks' own order first: the chain joined, up to the first failure, which
            // comes after every leaf taken (all of them before its seq).
            let job_start = next;
            let mut failure = None;
            for c in &job.blocks {
                if c.first != next {
                    let why = if c.first > next {
                        format!("missing: the next stored block starts at seq {}", c.first)
                    } else {
                        format!("a block starting at seq {} overlaps the one before", c.first)
                    };
                    failure = Some((next, why));
                    break;
                }
                if c.prev != prev {
                    failure = Some((next, "its block names a different previous hash".into()));
                    break;
                }
                let end = c.first + c.hashes.len() as u64;
                if let Some(e) = expect.filter(|e| (c.first..end).contains(&e.seq)) {
                    at_expected = Some(c.hashes[(e.seq - c.first) as usize]);
                }
                for (seq, slot) in at_checkpoint.range_mut(c.first..end) {
                    *slot = c.hashes[(seq - c.first) as usize];
                }
                if let Some(last) = c.hashes.last() {
                    prev = *last;
                }
                next = end;
                if let Some(f) = &c.failure {
                    failure = Some(f.clone());
                    break;
                }
                facts.0 += c.facts.0;
                facts.1 += c.facts.1;
                facts.2 += c.facts.2;
                for &(seq, fp) in &c.ids {
                    ids.add(seq, fp);
                }
            }
            if failure.is_none() {
                if let Some(why) = job.broken {
                    failure = Some((next, why));
                }
            }
            // Then the tree over the leaves taken, from the job's subtrees when they are exactly
            // those leaves (the usual case), else leaf by leaf.
            let taken = next - job_start;
            let mut bad_node = None;
            if job.pieces.start + 1 == job_start && job.pieces.count == taken {
                for &(level, root) in &job.pieces.roots {
                    let pushed = frontier.push_subtree(level, root, |level, index, node| {
                        self.compare_node(level, index, node, &mut bad_node)
                    });
                    if let Err(e) = pushed {
                        return broken(job_start, e.to_string());
                    }
                    if bad_node.is_some() {
                        break;
                    }
                }
            } else {
                for leaf in job.leaves.get(..taken as usize).unwrap_or(&[]) {
                    frontier.push(*leaf, |level, index, node| {
                        self.compare_node(level, index, node, &mut bad_node)
                    });
                    if bad_node.is_some() {
                        break;
                    }
                }
            }
            if let Some((seq, reason)) = bad_node {
                return broken(seq, reason);
            }
            if frontier.size() + 1 != next {
                return broken(frontier.size() + 1, "its leaf hash was not computed".into());
            }
            if let Some((seq, why)) = failure {
                return broken(seq, why);
            }
        }
        if next <= head.seq {
            return broken(next, format!("missing: the head says {}", head.seq));
        }
        if prev != head.hash {
            return broken(head.seq, "the head record names a different hash".into());
        }
        let (joins, voids, ticks) = facts;
        if joins != players || voids != self.voids.len() || ticks != self.ticks.len() {
            let why = format!(
                "the facts index lists {} joins, {} voids and {} ticks; the events hold {joins}, \
                 {voids} and {ticks}",
                players,
                self.voids.len(),
                self.ticks.len()
            );
            return broken(head.seq, why);
        }
        for (key, at) in checkpoints {
            if at.seq > head.seq || at_checkpoint.get(&at.seq) != Some(&at.hash) {
                return Err(VerifyError::Index {
                    what: format!("the checkpoint {}", ladder_proof::hex(key)),
                    detail: format!("it was computed at {at}, which is not in the chain"),
                });
            }
        }
        if let Some(e) = expect {
            if at_expected != Some(e.hash) {
                return Err(VerifyError::HeadMissing { expected: e, actual: head });
            }
        }
        Ok(head)
    }

    /// Compares a node of the tree just computed with its stored hash (from a tile up); the
    /// first that differs, or cannot be read, is kept in `bad` with the seq of the event that
    /// completes it.
    fn compare_node(&self, level: u32, index: u64, node: Hash, bad: &mut Option<(u64, String)>) {
        if level < tree::TILE_LEVEL || bad.is_some() {
            return;
        }
        let seq = (index + 1) << level;
        *bad = match tree::stored_node(&*self.store, level, index) {
            Ok(s) if s == node => None,
            Ok(_) => Some((
                seq,
                format!(
                    "the Merkle tree's stored hash of level {level}, index {index} does not match \
                     the events"
                ),
            )),
            Err(e) => Some((seq, e.to_string())),
        };
    }

    /// Checks one event against the facts index loaded at open; counts the facts seen.
    fn check_fact(
        &self,
        seq: u64,
        event: &EventView<'_>,
        (joins, voids, ticks): &mut (usize, usize, usize),
    ) -> Result<(), String> {
        // The description is written only for a failure: joins are a tenth of a ladder's events.
        let indexed = match event.body {
            BodyView::PlayerJoined { player, .. } => {
                *joins += 1;
                // `verify` loaded the index before any check.
                self.players.get().and_then(|p| p.get(player))
            }
            BodyView::MatchVoided { match_id, .. } => {
                *voids += 1;
                self.voids.get(match_id).copied()
            }
            BodyView::MidnightTick => {
                *ticks += 1;
                self.ticks.get(&event.at.day()).copied()
            }
            _ => return Ok(()),
        };
        if indexed == Some(seq) {
            return Ok(());
        }
        let what = match event.body {
            BodyView::PlayerJoined { player, .. } => format!("the join of {player:?}"),
            BodyView::MatchVoided { match_id, .. } => format!("the void of match {match_id:?}"),
            _ => format!("the midnight of {}", event.at),
        };
        Err(match indexed {
            Some(other) => format!("the facts index files {what} at seq {other}, not here"),
            None => format!("the facts index does not list {what}"),
        })
    }

    /// Every event with an id is filed under it in the id index (entries left by refused appends
    /// may name other seqs: those are never trusted without reading the event, so they are fine).
    /// The index's buckets are split over every core: this runs after the chain is checked, so
    /// one thread reading them all would be verify's tail, with the other cores idle.
    fn check_ids(&self, ids: &Ids) -> Result<(), VerifyError> {
        let runs = crate::runs::Runs::load(&*self.store, self.head.seq)?;
        let parts = std::thread::available_parallelism().map_or(2, |n| n.get());
        let words = ids.has_id.len();
        let store: &dyn Store = &*self.store;
        let live = &runs.live[..];
        // One bit per seq: found under its own id. A bucket that cannot be read is reported by
        // its place in the index (run, then bucket), the first of those that fail whichever
        // thread read it, so the answer does not depend on the number of threads.
        type Failed = ((usize, u32), LogError);
        let found = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..parts)
                .map(|part| {
                    scope.spawn(move || -> Result<Vec<u64>, Failed> {
                        // Every `parts`-th bucket of every run: the runs differ in size (a merged
                        // run holds most of the entries), and each run's entries are spread
                        // evenly over its buckets, so every thread gets its share.
                        let keys = live.iter().enumerate().flat_map(|(run, r)| {
                            (0..r.buckets())
                                .skip(part)
                                .step_by(parts)
                                .map(move |b| ((run, b), r.key(b)))
                        });
                        let mut found = vec![0u64; words];
                        let mut entries = Vec::new();
                        for (at, key) in keys {
                            let read = store.get(Tree::Ids, &key).and_then(|v| {
                                entries.clear();
                                if let Some(v) = v {
                                    entries.extend(index::entries_of(&key, &v)?);
                                }
                                Ok(())
                            });
                            read.map_err(|e| (at, e))?;
                            // The seqs of a bucket come in the order of their fingerprints, so
                            // each is a miss in the cache: the one a few entries ahead is asked
                            // for while this one is compared.
                            for (i, &(fp, seq)) in entries.iter().enumerate() {
                                if let Some(&(_, ahead)) = entries.get(i + 8) {
                                    if let Some(slot) = ids.fps.get(ahead as usize) {
                                        ladder_projector::prefetch(slot);
                                    }
                                }
                                let Ok(at) = usize::try_from(seq) else { continue };
                                if ids.is(at, fp) {
                                    found[at / 64] |= 1 << (at % 64);
                                }
                            }
                        }
                        Ok(found)
                    })
                })
                .collect();
            let mut all = vec![0u64; words];
            let mut first: Option<Failed> = None;
            for h in handles {
                let part = h.join().unwrap_or_else(|_| {
                    let e = LogError::Corrupt {
                        place: "the id index".into(),
                        detail: "a thread reading it panicked".into(),
                    };
                    Err(((usize::MAX, u32::MAX), e))
                });
                match part {
                    Ok(part) => {
                        for (a, p) in all.iter_mut().zip(part) {
                            *a |= p;
                        }
                    }
                    Err(failed) => {
                        if first.as_ref().is_none_or(|f| failed.0 < f.0) {
                            first = Some(failed);
                        }
                    }
                }
            }
            match first {
                Some((_, e)) => Err(e),
                None => Ok(all),
            }
        })?;
        // Events after the index's mark have their ids in memory, read from the events
        // themselves when the ledger was opened (`crate::recent`): only those through it must
        // be in the runs.
        let through = usize::try_from(self.recent.through).unwrap_or(usize::MAX);
        let missing = ids.has_id.iter().zip(&found).enumerate().find_map(|(w, (has, found))| {
            let lost = has & !found;
            (lost != 0).then(|| w * 64 + lost.trailing_zeros() as usize)
        });
        let missing = missing.filter(|&at| at <= through);
        match missing {
            None => Ok(()),
            Some(at) => Err(VerifyError::Index {
                what: "the id index".into(),
                detail: format!(
                    "the id of event {at} is not in it, so a duplicate of that event would be \
                     appended"
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AppendOptions;
    use ladder_events::json::parse_line;
    use ladder_proof::leaf_hash;

    fn leaves(n: u64) -> Vec<Hash> {
        (0..n).map(|i| leaf_hash(&i.to_be_bytes())).collect()
    }

    /// A job's pieces, pushed after the leaves before it one by one, give the frontier of every
    /// leaf pushed one by one; and the subtrees they report from a tile up are the same.
    #[test]
    fn pieces_join_to_the_tree_of_their_leaves() {
        let all = leaves(2100);
        for (start, count) in
            [(0, 0), (0, 1), (0, 256), (0, 2100), (1, 255), (100, 1000), (255, 2), (511, 1589)]
        {
            let mut by_leaf = Frontier::new();
            let mut want = Vec::new();
            for (i, leaf) in all[..start + count].iter().enumerate() {
                by_leaf.push(*leaf, |l, x, h| {
                    if i >= start && l >= tree::TILE_LEVEL {
                        want.push((l, x, h));
                    }
                });
            }
            let mut joined = Frontier::new();
            for leaf in &all[..start] {
                joined.push(*leaf, |_, _, _| {});
            }
            let pieces = Pieces::of(start as u64, &all[start..start + count]);
            assert_eq!((pieces.start, pieces.count), (start as u64, count as u64));
            let mut got = Vec::new();
            for (level, root) in pieces.roots {
                assert!(level <= tree::TILE_LEVEL);
                joined
                    .push_subtree(level, root, |l, x, h| {
                        if l >= tree::TILE_LEVEL {
                            got.push((l, x, h));
                        }
                    })
                    .unwrap();
            }
            assert_eq!(joined, by_leaf, "start {start}, {count} leaves");
            assert_eq!(got, want, "start {start}, {count} leaves");
        }
    }

    /// A ledger of 3,000 matches (and the two joins) appended in batches of 37, so its blocks,
    /// and the jobs of a few dozen blocks, start anywhere in a tile.
    fn ledger() -> Ledger {
        let mut l = Ledger::memory();
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        let events: Vec<_> = (0..3000)
            .map(|i| {
                parse_line(&format!(
                    r#"{{"type":"MatchResult","at":"2026-03-01T{:02}:{:02}:{:02}Z","id":"m-{i}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#,
                    i / 3600,
                    (i / 60) % 60,
                    i % 60
                ))
            })
            .collect();
        for batch in events.chunks(37) {
            l.append(batch.iter().cloned(), &opts).unwrap();
        }
        l
    }

    /// A stored subtree hash that does not match the events is named at the event that completes
    /// it, the first in sequence order when several are damaged, whichever job hashed it.
    #[test]
    fn a_damaged_stored_node_is_named_at_the_event_completing_it() {
        let l = ledger();
        let head = l.verify(None).unwrap();
        assert_eq!(head.seq, 3002);
        for (damaged, seq) in [
            (vec![(8u32, 5u64)], 6 * 256),
            (vec![(9, 2), (8, 9)], 3 * 512),
            (vec![(11, 0)], 2048),
            (vec![(8, 0)], 256),
        ] {
            let l = ledger();
            for &(level, index) in &damaged {
                l.store.insert(Tree::Nodes, &tree::node_key(level, index), &[7u8; 32]).unwrap();
            }
            let (level, index) = damaged[0];
            match l.verify(None) {
                Err(VerifyError::Broken { seq: at, reason }) => {
                    assert_eq!(at, seq, "{damaged:?}: {reason}");
                    assert!(
                        reason.contains(&format!("level {level}, index {index} does not match")),
                        "{damaged:?}: {reason}"
                    );
                }
                other => panic!("{damaged:?}: {other:?}"),
            }
        }
    }

    /// Damaged id buckets read by different threads: the first in the index's order is named,
    /// whichever thread met its damage first.
    #[test]
    fn the_first_unreadable_id_bucket_is_named() {
        let l = ledger();
        let runs = crate::runs::Runs::load(&*l.store, l.head.seq).unwrap();
        let run = &runs.live[0];
        let stored: Vec<_> = (0..run.buckets())
            .map(|b| run.key(b))
            .filter(|k| l.store.get(Tree::Ids, k).unwrap().is_some())
            .collect();
        assert!(stored.len() > 4, "the index has several buckets");
        // Buckets next to one another (read by two threads when there are two) and far apart.
        for damaged in [[1, 2], [2, 1], [1, 3], [0, stored.len() - 1]] {
            let l = ledger();
            for &at in &damaged {
                l.store.insert(Tree::Ids, &stored[at], &[9, 9, 9]).unwrap();
            }
            let first = &stored[*damaged.iter().min().unwrap()];
            let place = format!("id bucket {:02x?}", &first[..]);
            match l.verify(None) {
                Err(e) => assert!(e.to_string().contains(&place), "{damaged:?}: {e}"),
                other => panic!("{damaged:?}: {other:?}"),
            }
        }
    }

    /// The test ledger with a midnight after its matches and a hundred matches on the next day
    /// after it: the midnight is at seq 3003.
    fn ledger_with_midnight() -> Ledger {
        let mut l = ledger();
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        let mut events = vec![parse_line(r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#)];
        events.extend((0..100).map(|i| {
            parse_line(&format!(
                r#"{{"type":"MatchResult","at":"2026-03-02T01:{:02}:{:02}Z","id":"n-{i}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#,
                i / 60,
                i % 60
            ))
        }));
        l.append(events, &opts).unwrap();
        l
    }

    /// Flips a byte of the stored chain hash of `seq`.
    fn damage_chain_hash(l: &Ledger, seq: u64) {
        let blocks: Vec<_> = l.store.scan(Tree::Events, &[]).map(|e| e.unwrap()).collect();
        for (k, v) in blocks {
            let b = Block::parse(&k, &v).unwrap();
            if !(b.first..=b.last()).contains(&seq) {
                continue;
            }
            let mut at = block::HEADER_LEN;
            for _ in b.first..seq {
                let len = u32::from_le_bytes(v[at..at + 4].try_into().unwrap()) as usize;
                at += block::RECORD_HEADER_LEN + len;
            }
            let mut bytes = v.to_vec();
            bytes[at + 4 + 7] ^= 0x20;
            l.store.insert(Tree::Events, &k, &bytes).unwrap();
            return;
        }
        panic!("no block holds seq {seq}");
    }

    /// The chain hashes of a block are computed together, after its records are read: the first
    /// bad record in sequence order is still the one named, a bad chain hash before a record
    /// whose facts are wrong, and at that record, coming first, as checking one record after
    /// the other would find.
    #[test]
    fn the_first_bad_record_is_named_whether_its_chain_or_its_facts_are_wrong() {
        let chain = "its chain hash does not match";
        let facts = "the facts index files the midnight of 2026-03-02T00:00:00Z at seq 7, not here";
        let l = ledger_with_midnight();
        assert_eq!(l.verify(None).unwrap().seq, 3103);
        // (chain hashes damaged, the midnight filed elsewhere, the seq and reason named)
        for (damaged, wrong_fact, seq, reason) in [
            (vec![1], false, 1, chain),
            (vec![3003], false, 3003, chain),
            (vec![3103], false, 3103, chain),
            (vec![2990, 2995], false, 2990, chain),
            (vec![], true, 3003, facts),
            (vec![3003], true, 3003, chain),
            (vec![3002], true, 3002, chain),
            (vec![3004], true, 3003, facts),
            (vec![3050, 3004], true, 3003, facts),
        ] {
            let mut l = ledger_with_midnight();
            for &at in &damaged {
                damage_chain_hash(&l, at);
            }
            if wrong_fact {
                let day = *l.ticks.keys().next().unwrap();
                l.ticks.insert(day, 7);
            }
            match l.verify(None) {
                Err(VerifyError::Broken { seq: at, reason: why }) => {
                    assert_eq!(at, seq, "{damaged:?} {wrong_fact}: {why}");
                    assert!(why.contains(reason), "{damaged:?} {wrong_fact}: {why}");
                }
                other => panic!("{damaged:?} {wrong_fact}: {other:?}"),
            }
        }
    }

    /// An id index bucket lost: verify names the first event whose id was in it, whichever
    /// thread read that part of the index.
    #[test]
    fn an_id_missing_from_the_index_is_named() {
        let l = ledger();
        let runs = crate::runs::Runs::load(&*l.store, l.head.seq).unwrap();
        let mut buckets = Vec::new();
        for run in &runs.live {
            for b in 0..run.buckets() {
                let key = run.key(b);
                if let Some(v) = l.store.get(Tree::Ids, &key).unwrap() {
                    let seqs: Vec<u64> =
                        index::entries_of(&key, &v).unwrap().map(|(_, seq)| seq).collect();
                    buckets.push((key.to_vec(), seqs));
                }
            }
        }
        assert!(buckets.len() > 2, "the index has several buckets");
        let ids: usize = buckets.iter().map(|(_, s)| s.len()).sum();
        assert_eq!(ids, 3000, "one entry per match");
        // The last bucket (read by the last thread) and one in the middle.
        for at in [buckets.len() - 1, buckets.len() / 2] {
            let l = ledger();
            let (key, seqs) = &buckets[at];
            l.store.remove(Tree::Ids, key).unwrap();
            let first = seqs.iter().min().unwrap();
            match l.verify(None) {
                Err(VerifyError::Index { detail, .. }) => {
                    assert!(detail.contains(&format!("the id of event {first} is not")), "{detail}")
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
