//! `verify`: everything the ledger stores, recomputed from its events, on every core.
//!
//! One thread scans the blocks in order and hands them out in numbered jobs of a few dozen
//! blocks; workers (one per core the machine has) each take a job and, for every record, check
//! the block layout and gapless sequence numbers, read the event in place, check the facts index
//! (joins, voids, ticks) against it, write its canonical JSON line (the leaf bytes), and check its
//! chain hash against the stored one: `blake3(stored hash before it || line)`, the hash before the
//! first record being the one its block names. Each job's leaf hashes (SHA-256) come back to this
//! thread, which takes the jobs in their order, checks that each block names the last hash of the
//! block before it (so the chain is whole), and grows the Merkle tree, comparing it with its
//! stored subtree hashes. Then the id index is checked (every event with an id is found under it)
//! and every checkpoint (its own hash, and that the head it was computed at is in the chain).
//!
//! The first failure in sequence order is reported, whichever worker met it first, as one pass
//! checking each event in turn would: the same first bad event on every run. At most
//! [`IN_FLIGHT`] jobs are out at once, so memory does not grow with the ledger.

use crate::block::{self, Block};
use crate::index;
use crate::ledger::Ledger;
use crate::store::{Tree, Value};
use crate::tree;
use crate::{Head, LogError, VerifyError, GENESIS};
use ladder_events::codec::{self, BodyView, EventView};
use ladder_events::json;
use ladder_proof::Frontier;
use std::collections::{BTreeMap, HashMap};
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
    /// The leaf hash of every record checked.
    leaves: Vec<[u8; 32]>,
    /// The first bad record (or the block's own failure), and why.
    failure: Option<(u64, String)>,
    /// Facts seen: joins, voids, ticks.
    facts: (usize, usize, usize),
    /// (seq, id fingerprint) of every event with an id.
    ids: Vec<(u64, u64)>,
}

/// What a worker found in one job: its blocks in order, or where the scan failed.
enum Done {
    Blocks(Vec<Checked>),
    /// A block that does not parse, or a storage error, after the blocks before it.
    Broken(Vec<Checked>, String),
}

/// What the reading learned besides the chain and the tree: the id fingerprint of every event
/// that has one, by seq.
#[derive(Default)]
struct Ids {
    fps: Vec<u64>,
    has_id: Vec<bool>,
}

impl Ids {
    fn add(&mut self, seq: u64, fp: u64) {
        let at = seq as usize;
        if self.fps.len() <= at {
            self.fps.resize(at + 1, 0);
            self.has_id.resize(at + 1, false);
        }
        self.fps[at] = fp;
        self.has_id[at] = true;
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
            self.check_in_order(done_rx, token_tx, expect, &checkpoints, &mut ids)
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

    /// A worker's part: every block of a job checked on its own (see the module documentation).
    fn check_job(&self, blocks: Vec<Result<(Value, Value), LogError>>) -> Done {
        let head = self.head.seq;
        let mut out = Vec::with_capacity(blocks.len());
        let mut line = Vec::with_capacity(512);
        for entry in blocks {
            let (k, v) = match entry {
                Ok(e) => e,
                Err(e) => return Done::Broken(out, e.to_string()),
            };
            let b = match Block::parse(&k, &v) {
                Ok(b) => b,
                Err(e) => return Done::Broken(out, e.to_string()),
            };
            let mut c = Checked {
                first: b.first,
                prev: b.prev,
                hashes: Vec::with_capacity(b.count as usize),
                leaves: Vec::with_capacity(b.count as usize),
                failure: None,
                facts: (0, 0, 0),
                ids: Vec::new(),
            };
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
                line.clear();
                json::write_view_line(&event, &mut line);
                if block::chain_hash(&prev, &line) != *stored {
                    c.failure = Some((
                        seq,
                        "its chain hash does not match its JSON line and the previous hash".into(),
                    ));
                    break;
                }
                if let Err(why) = self.check_fact(seq, &event, &mut c.facts) {
                    c.failure = Some((seq, why));
                    break;
                }
                if let Some(id) = event.id {
                    c.ids.push((seq, index::fingerprint(id)));
                }
                c.leaves.push(ladder_proof::leaf_hash(&line));
                c.hashes.push(*stored);
                prev = *stored;
            }
            if c.failure.is_none() && !rest.is_empty() {
                c.failure = Some((b.last(), "bytes after the block's last record".into()));
            }
            out.push(c);
        }
        Done::Blocks(out)
    }

    /// This thread's part: the jobs in their order (each returns a token once taken), the chain
    /// joined across blocks, the tree grown and compared, the facts counted; the first failure in
    /// sequence order.
    fn check_in_order(
        &self,
        done: Receiver<(usize, Done)>,
        tokens: std::sync::mpsc::SyncSender<()>,
        expect: Option<Head>,
        checkpoints: &[(Vec<u8>, Head)],
        ids: &mut Ids,
    ) -> Result<Head, VerifyError> {
        let broken = |seq: u64, reason: String| Err(VerifyError::Broken { seq, reason });
        let head = self.head;
        let mut prev = GENESIS;
        let mut next = 1u64;
        let mut frontier = Frontier::new();
        let mut facts = (0usize, 0usize, 0usize);
        let mut at_expected = expect.filter(|e| e.seq == 0).map(|_| GENESIS);
        let mut at_checkpoint: HashMap<u64, [u8; 32]> =
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
            let (blocks, scan_failure) = match job {
                Done::Blocks(b) => (b, None),
                Done::Broken(b, why) => (b, Some(why)),
            };
            for c in blocks {
                if c.first != next {
                    let why = if c.first > next {
                        format!("missing: the next stored block starts at seq {}", c.first)
                    } else {
                        format!("a block starting at seq {} overlaps the one before", c.first)
                    };
                    return broken(next, why);
                }
                if c.prev != prev {
                    return broken(next, "its block names a different previous hash".into());
                }
                for (i, (leaf, stored)) in c.leaves.iter().zip(&c.hashes).enumerate() {
                    let seq = c.first + i as u64;
                    let mut bad_node = None;
                    frontier.push(*leaf, |level, index, node| {
                        if level >= tree::TILE_LEVEL && bad_node.is_none() {
                            bad_node = match tree::stored_node(&*self.store, level, index) {
                                Ok(s) if s == node => None,
                                Ok(_) => Some(format!(
                                    "the Merkle tree's stored hash of level {level}, index \
                                     {index} does not match the events"
                                )),
                                Err(e) => Some(e.to_string()),
                            };
                        }
                    });
                    if let Some(reason) = bad_node {
                        return broken(seq, reason);
                    }
                    if expect.is_some_and(|e| e.seq == seq) {
                        at_expected = Some(*stored);
                    }
                    if let Some(slot) = at_checkpoint.get_mut(&seq) {
                        *slot = *stored;
                    }
                    prev = *stored;
                    next = seq + 1;
                }
                if let Some((seq, why)) = c.failure {
                    return broken(seq, why);
                }
                facts.0 += c.facts.0;
                facts.1 += c.facts.1;
                facts.2 += c.facts.2;
                for (seq, fp) in c.ids {
                    ids.add(seq, fp);
                }
            }
            if let Some(why) = scan_failure {
                return broken(next, why);
            }
        }
        if next <= head.seq {
            return broken(next, format!("missing: the head says {}", head.seq));
        }
        if prev != head.hash {
            return broken(head.seq, "the head record names a different hash".into());
        }
        let (joins, voids, ticks) = facts;
        if joins != self.players.len() || voids != self.voids.len() || ticks != self.ticks.len() {
            let why = format!(
                "the facts index lists {} joins, {} voids and {} ticks; the events hold {joins}, \
                 {voids} and {ticks}",
                self.players.len(),
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

    /// Checks one event against the facts index loaded at open; counts the facts seen.
    fn check_fact(
        &self,
        seq: u64,
        event: &EventView<'_>,
        (joins, voids, ticks): &mut (usize, usize, usize),
    ) -> Result<(), String> {
        let (what, indexed) = match event.body {
            BodyView::PlayerJoined { player, .. } => {
                *joins += 1;
                (format!("the join of {player:?}"), self.players.get(player))
            }
            BodyView::MatchVoided { match_id, .. } => {
                *voids += 1;
                (format!("the void of match {match_id:?}"), self.voids.get(match_id).copied())
            }
            BodyView::MidnightTick => {
                *ticks += 1;
                (format!("the midnight of {}", event.at), self.ticks.get(&event.at.day()).copied())
            }
            _ => return Ok(()),
        };
        if indexed == Some(seq) {
            return Ok(());
        }
        Err(match indexed {
            Some(other) => format!("the facts index files {what} at seq {other}, not here"),
            None => format!("the facts index does not list {what}"),
        })
    }

    /// Every event with an id is filed under it in the id index (entries left by refused appends
    /// may name other seqs: those are never trusted without reading the event, so they are fine).
    fn check_ids(&self, ids: &Ids) -> Result<(), VerifyError> {
        let mut found = vec![false; ids.fps.len()];
        let runs = crate::runs::Runs::load(&*self.store, self.head.seq)?;
        runs.for_each_entry(&*self.store, |fp, seq| {
            if let Ok(at) = usize::try_from(seq) {
                if ids.has_id.get(at) == Some(&true) && ids.fps[at] == fp {
                    found[at] = true;
                }
            }
        })?;
        match (0..found.len()).find(|&at| ids.has_id[at] && !found[at]) {
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
