//! Appending: every rule of `docs/events.md` checked against the stored history
//! plus the earlier events of the batch, written beyond the head as it goes, committed by writing
//! the head.
//!
//! Order of the checks for one input event (duplicates first, as `docs/events.md` asks):
//! 1. a parse error (an `Err` item) is a violation as it is;
//! 2. duplicates: an `id` stored (or earlier in the batch) with the same content is a duplicate,
//!    with other content an `id-conflict`; a PlayerJoined with the same content (`at` and body) as
//!    the player's join, and a MidnightTick for a date already ticked, are duplicates; an event
//!    without an id (MatchResult, QueueTimeout, MatchVoided) is a duplicate when it has the
//!    content of a stored event without an id at the same instant, counted: the batch's k-th such
//!    copy is a duplicate when at least k are stored (see [`Twins`]);
//! 3. the rules an event satisfies alone ([`Event::check`]);
//! 4. `future-instant` (with [`AppendOptions::not_after`]), `time-order`, `tick-first`,
//!    `join-once`, `joined-first` (unless auto-join), then `void-names-match` and `void-once`.
//!
//! "Content" is `at` and the body: the id is the key the content is filed under.

use crate::block::{self, key, Builder};
use crate::index::{self, Bloom, Fact, FpTable, Names, FACTS_FORMAT};
use crate::ledger::{
    head_bytes, is_small_block, is_small_facts, Ledger, FACTS_CHUNK_BYTES, META_HEAD,
};
use crate::recent::META_IDS_THROUGH;
use crate::runs::{self, Runs};
use crate::store::Tree;
use crate::tree;
use crate::{AppendError, AppendOptions, AppendReport, Head, LogError};
use ladder_events::{
    codec, json, Body, Checked, Event, Prior, Rule, Timestamp, Violation, MAX_EVENT_LINE_BYTES,
};
use ladder_proof::Frontier;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// Input events an append reads ahead of the one it checks, prefetching the players' slots of
/// the name table ([`Names::touch`]): with 100,000 players each lookup is a cache miss, and a
/// prefetch this many events early lets the misses of several events overlap instead of following
/// one another, while the touched slots are still cached when read (docs/PERFORMANCE.md, "Import:
/// the ledger's thread").
const LOOKAHEAD: usize = 16;

/// Batch id fingerprints are written to the on-disk index (as a run) when this many are pending.
pub(crate) const ID_SPILL: usize = 1 << 20;

/// A batch without a Bloom filter builds one once its lookups have read a bucket for every
/// `BLOOM_AFTER` entries on disk (and at least 1,024 buckets): building it reads every entry
/// once, and a bucket read costs about as much as reading that many entries in a row, so the
/// lookups never cost much more than the filter would have (the ski-rental rule). A small append
/// into a large ledger reads its few buckets and never builds one.
const BLOOM_AFTER: u64 = 64;

enum Fail {
    Invalid(Violation),
    Storage(LogError),
}

impl From<LogError> for Fail {
    fn from(e: LogError) -> Fail {
        Fail::Storage(e)
    }
}

/// The kinds whose id-less copies are matched against stored ones ([`Twins`]); joins and ticks
/// have their own duplicate rules.
fn twin_kind(body: &Body) -> bool {
    matches!(body, Body::MatchResult { .. } | Body::QueueTimeout { .. } | Body::MatchVoided { .. })
}

fn same_content(a: &Event, b: &Event) -> bool {
    a.at == b.at && a.body == b.body
}

/// The state of an append in progress: everything beyond the committed head.
struct Batch {
    opts: AppendOptions,
    next_seq: u64,
    prev: [u8; 32],
    builder: Builder,
    /// Blocks written beyond the base head: (first, count, bytes).
    written: Vec<(u64, u32, usize)>,
    /// Facts chunks written beyond the base head: (key, bytes).
    facts_written: Vec<(u64, usize)>,
    facts: Vec<u8>,
    facts_first: u64,
    /// The last event's instant and whether it is a MidnightTick.
    last: Option<(Timestamp, bool)>,
    new_players: Names,
    new_voids: HashMap<String, u64>,
    new_ticks: HashMap<i64, u64>,
    /// Id fingerprint → seq, for ids of this batch not yet in the on-disk index.
    ids: FpTable,
    /// The fingerprint of the id of the input event [`Batch::offer`] is writing, computed once
    /// for its checks; taken by [`Batch::write_lined`].
    id_fp: Option<u64>,
    /// The leaf hash of the input event [`Batch::offer`] is writing, when its caller computed it
    /// ([`Prepared::new`]); taken by [`Batch::write_lined`].
    leaf: Option<[u8; 32]>,
    /// Fingerprint collisions within `ids` (different ids, same fingerprint).
    ids_overflow: Vec<(u64, u64)>,
    /// True once the on-disk index may hold ids of this batch or of committed events.
    ids_on_disk: bool,
    /// Ids this batch has written to the on-disk index.
    ids_spilled: u64,
    /// The runs of the on-disk index.
    runs: Runs,
    /// Every fingerprint in the on-disk index, once a spill has read all runs (or the lookups
    /// without it have read as many buckets as [`BLOOM_AFTER`] allows): an id it refuses is not
    /// on disk, so no bucket is read. `None` until then.
    bloom: Option<Bloom>,
    /// Buckets read by lookups while there was no Bloom filter.
    probes: u64,
    /// The last stored block read, for reading stored events.
    cache: Option<block::Indexed>,
    encoded: Vec<u8>,
    /// The canonical JSON line of the event being written: its leaf bytes, what the chain hashes.
    line: Vec<u8>,
    /// The canonical JSON line of the input event being checked, written once at step 2 (its
    /// length is a rule) and moved into `line` when the event itself is written.
    checked_line: Vec<u8>,
    /// The Merkle tree over the leaves through the last event written.
    frontier: Frontier,
    /// Keys of the stored subtree hashes this batch wrote beyond the base head.
    nodes_written: Vec<[u8; 9]>,
    report: AppendReport,
    /// The head before this batch, and the instant of its last event.
    base_seq: u64,
    base_last_at: Option<Timestamp>,
    /// The stored id-less events at one instant, for the duplicate rule of id-less events.
    twins: Option<Twins>,
    /// Input events offered so far.
    offered: usize,
    /// True for [`Ledger::replicate`]: every input event is stored as it is, or the batch refused.
    replicate: bool,
    /// (seq, input index) at each input event written whose index is not the previous one's
    /// plus its seq's distance (after inserted joins and ticks, duplicates, skipped events): the
    /// input index of any written input event, to name the earlier event of a conflict.
    inputs: Vec<(u64, usize)>,
    /// Events written, kept to be handed back ([`Ledger::append_returning`]) instead of dropped;
    /// `None` when nobody takes them.
    spent: Option<Vec<Event>>,
    /// True when the batch left its ids out of the on-disk index, for the ledger's memory
    /// ([`Ledger::defer_id_index`]); false when its final spill wrote them (and the ledger's
    /// deferred ones) to the index.
    deferred: bool,
    /// True when every input event is [`Checked`]: step 2 does not check its own rules again.
    checked: bool,
    /// The thread that inserts this batch's sealed blocks into the store, in a bulk append
    /// ([`Ledger::append_returning`]); `None` otherwise (or once stopped), and blocks are
    /// inserted by [`Batch::seal`] itself.
    blocks: Option<BlockWriter>,
    /// How many of `written` the block writer is known to have inserted (at its last wait).
    synced: usize,
    /// The leaf hash and line of every event written, for the caller
    /// ([`Ledger::hand_out_leaves`]); `None` when nobody asked for them.
    new_leaves: Option<NewLeaves>,
    /// True while the batch holds the ledger's id filter ([`crate::index::IdFilter`]) and must
    /// give it back; false once it lent it to the append staged on top of it ([`Below`]).
    owns_filter: bool,
    /// Whether the store holds the mark of where the on-disk id index ends
    /// ([`crate::recent`]): the ledger's own flag, or true on top of an append that wrote it.
    ids_keyed: bool,
    /// For an append staged on top of one being made durable ([`Ledger::stage_after`]): its
    /// store writes, held in memory until [`Ledger::resume`]; `None` otherwise.
    held: Option<HeldWrites>,
    /// For an append staged on top of one being made durable: what that one wrote, for the
    /// lookups (its joins, voids, ticks and ids, which the ledger's memory does not show yet).
    below: Option<Box<Overlay>>,
    /// The thread that hashes this batch's leaves and grows its Merkle tree, in a large staged
    /// group ([`TreeFeed`]); `None` otherwise (or once finished), and [`Batch::write_lined`]
    /// does it itself.
    tree: Option<TreeFeed>,
    /// Set when the batch, staged on top of another, would have had to write its ids to the
    /// on-disk index (a spill): it is then not kept, and is staged again once the append below
    /// it is published ([`Ledger::stage_after`] answers `None`).
    not_now: bool,
}

/// The store writes of an append staged on top of one being made durable, in the order made.
#[derive(Default)]
struct HeldWrites {
    /// Sealed blocks: (first seq, bytes).
    blocks: Vec<(u64, Vec<u8>)>,
    /// Any other write: (tree, key, value).
    other: Vec<(Tree, Vec<u8>, Vec<u8>)>,
}

/// What an append being made durable wrote that the ledger's memory does not show yet, for the
/// lookups of the append staged on top of it.
struct Overlay {
    players: Names,
    voids: HashMap<String, u64>,
    ticks: HashMap<i64, u64>,
    ids: FpTable,
    ids_overflow: Vec<(u64, u64)>,
}

/// The leaf hashes and canonical JSON lines of the events one append wrote, in order from
/// [`NewLeaves::first`] ([`Ledger::hand_out_leaves`], [`Durable::take_leaves`]): what a tile of
/// the log is made of, as the append computed them for the Merkle tree it stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewLeaves {
    first: u64,
    hashes: Vec<[u8; 32]>,
    /// Every line, one after the other; `ends[i]` is where line `i` ends.
    lines: Vec<u8>,
    ends: Vec<usize>,
}

impl NewLeaves {
    /// The seq of the first event.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when the append wrote no event.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The leaf hashes, the first one event `first`'s.
    pub fn hashes(&self) -> &[[u8; 32]] {
        &self.hashes
    }

    /// The canonical JSON line (no newline) of the `i`-th event, from 0.
    pub fn line(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.lines.get(start..end)
    }

    /// Appends `more` when it starts right after these events (true), or leaves both as they
    /// are (false).
    pub fn extend(&mut self, more: NewLeaves) -> bool {
        if self.is_empty() {
            *self = more;
            return true;
        }
        if more.first != self.first + self.len() as u64 {
            return false;
        }
        let base = self.lines.len();
        self.hashes.extend_from_slice(&more.hashes);
        self.lines.extend_from_slice(&more.lines);
        self.ends.extend(more.ends.iter().map(|e| e + base));
        true
    }

    /// Forgets the events before seq `seq` (all of them when `seq` is past the last).
    pub fn drop_before(&mut self, seq: u64) {
        let n = usize::try_from(seq.saturating_sub(self.first)).unwrap_or(usize::MAX);
        if n == 0 {
            return;
        }
        if n >= self.len() {
            *self = NewLeaves { first: seq, ..NewLeaves::default() };
            return;
        }
        let cut = self.ends[n - 1];
        self.hashes.drain(..n);
        self.lines.drain(..cut);
        self.ends.drain(..n);
        for e in &mut self.ends {
            *e -= cut;
        }
        self.first = seq;
    }
}

/// Leaves sent to the tree's thread at a time ([`TreeFeed`]): a tile's worth, one wake-up each.
const LEAVES_PER_HANDOVER: usize = 256;

/// A hand-over of leaves to the tree's thread: for each event its leaf hash when the caller
/// computed it, and its canonical line, one after the other (`ends[i]` is where line `i` ends).
#[derive(Default)]
struct LeafChunk {
    leaves: Vec<Option<[u8; 32]>>,
    lines: Vec<u8>,
    ends: Vec<usize>,
}

/// What the tree's thread hands back when the batch finishes ([`TreeFeed::finish`]).
struct Grown {
    frontier: Frontier,
    /// The leaves and lines for the caller ([`Ledger::hand_out_leaves`]), when kept.
    leaves: Option<NewLeaves>,
    /// The completed subtrees at [`tree::TILE_LEVEL`] and above: (node key, hash).
    nodes: Vec<([u8; 9], [u8; 32])>,
}

/// What the ledger's thread sends the tree's thread.
enum ToTree {
    Leaves(LeafChunk),
    Finish(SyncSender<Grown>),
}

/// The sending side of a large staged group's tree thread: the leaf hash of each event
/// (SHA-256 of its canonical line, RFC 6962; a sixth of the ledger's thread in a server's
/// 1,000-event requests, docs/PERFORMANCE.md, "Serving") is computed and pushed into the
/// Merkle tree's frontier there, while the ledger's thread goes on checking, chaining and
/// encoding the next events. Nothing in a batch reads the tree before it ends: its frontier
/// and completed subtrees come back at [`TreeFeed::finish`], and are written then (in the same
/// flush as before: every write of a batch comes before its head record). Dropping the feed
/// ends the thread.
struct TreeFeed {
    to_tree: SyncSender<ToTree>,
    chunk: LeafChunk,
}

impl TreeFeed {
    /// Starts the tree's thread (`ladder-tree`) on `scope` with `batch`'s frontier (and its
    /// leaves for the caller, when kept); `None` when no thread could be started (the batch
    /// then grows the tree itself).
    fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        batch: &Batch,
    ) -> Option<TreeFeed> {
        let (to_tree, from_ledger) = std::sync::mpsc::sync_channel(HANDOVERS_IN_FLIGHT);
        let frontier = batch.frontier.clone();
        let leaves = batch.new_leaves.clone();
        std::thread::Builder::new()
            .name("ladder-tree".into())
            .spawn_scoped(scope, move || grow_tree(frontier, leaves, from_ledger))
            .ok()?;
        Some(TreeFeed { to_tree, chunk: LeafChunk::default() })
    }

    /// Sends an event's leaf (or its line, for the thread to hash).
    fn push(&mut self, leaf: Option<[u8; 32]>, line: &[u8]) -> Result<(), LogError> {
        self.chunk.leaves.push(leaf);
        self.chunk.lines.extend_from_slice(line);
        self.chunk.ends.push(self.chunk.lines.len());
        if self.chunk.leaves.len() >= LEAVES_PER_HANDOVER {
            let chunk = std::mem::take(&mut self.chunk);
            self.to_tree.send(ToTree::Leaves(chunk)).map_err(|_| tree_gone())?;
        }
        Ok(())
    }

    /// Sends what is left and takes the tree back.
    fn finish(mut self) -> Result<Grown, LogError> {
        let chunk = std::mem::take(&mut self.chunk);
        if !chunk.leaves.is_empty() {
            self.to_tree.send(ToTree::Leaves(chunk)).map_err(|_| tree_gone())?;
        }
        let (reply, grown) = std::sync::mpsc::sync_channel(1);
        self.to_tree.send(ToTree::Finish(reply)).map_err(|_| tree_gone())?;
        grown.recv().map_err(|_| tree_gone())
    }
}

/// The error of a tree thread gone without answering (it cannot happen while the batch holds
/// its feed, unless the thread died).
fn tree_gone() -> LogError {
    LogError::Storage {
        context: "while hashing the append's leaves".to_string(),
        source: std::io::Error::other("the tree's thread stopped"),
    }
}

/// The tree's thread: hashes each leaf not hashed yet, pushes it into `frontier`, keeps the
/// completed subtrees at [`tree::TILE_LEVEL`] and above and (when kept) the leaves and lines,
/// until the batch asks for them back or drops its feed.
fn grow_tree(mut frontier: Frontier, mut kept: Option<NewLeaves>, from: Receiver<ToTree>) {
    let mut nodes = Vec::new();
    while let Ok(message) = from.recv() {
        match message {
            ToTree::Leaves(chunk) => {
                let mut start = 0;
                for (leaf, &end) in chunk.leaves.iter().zip(&chunk.ends) {
                    let line = &chunk.lines[start..end];
                    start = end;
                    let leaf = leaf.unwrap_or_else(|| ladder_proof::leaf_hash(line));
                    if let Some(out) = &mut kept {
                        out.hashes.push(leaf);
                        out.lines.extend_from_slice(line);
                        out.ends.push(out.lines.len());
                    }
                    frontier.push(leaf, |level, index, h| {
                        if level >= tree::TILE_LEVEL {
                            nodes.push((tree::node_key(level, index), h));
                        }
                    });
                }
            }
            ToTree::Finish(reply) => {
                let _ = reply.send(Grown { frontier, leaves: kept, nodes });
                return;
            }
        }
    }
}

/// What the ledger's thread sends the block writer ([`BlockWriter`]).
enum ToWriter {
    /// Insert these sealed blocks, in order (each its first seq, its bytes).
    Blocks(Vec<(u64, Vec<u8>)>),
    /// Answer once every block sent before is inserted (or the writer has failed).
    Sync(SyncSender<()>),
}

/// The sending side of a bulk append's block writer: sealed blocks go to a thread of their own,
/// which inserts them into the store in order while the ledger's thread checks and hashes the
/// next events (sled's insert of a 6 KB block, its node splits and log copies, was about a
/// seventh of that thread's time: docs/PERFORMANCE.md, "Import: a shorter critical path"). A read
/// of a block this batch sealed first waits for the writer ([`Batch::read_event`]), and every
/// path that ends the batch stops it before anything else ([`Batch::stop_blocks`]), so the store
/// holds exactly what the single-threaded append would have written, when it would matter.
///
/// Blocks go over in hand-overs of [`BLOCKS_PER_HANDOVER`]: a hand-over to a writer waiting for
/// work wakes it (a futex call on each side), and one a block cost the ledger's thread about a
/// tenth of its time (docs/PERFORMANCE.md, "Import: fewer hand-overs, hashes off the ledger's
/// thread").
struct BlockWriter {
    to_writer: SyncSender<ToWriter>,
    /// The writer's first failure; it inserts nothing after one.
    failed: Arc<Mutex<Option<LogError>>>,
    /// Sealed blocks not yet handed over (fewer than [`BLOCKS_PER_HANDOVER`]).
    pending: Vec<(u64, Vec<u8>)>,
}

/// Sealed blocks handed to the writer at a time: few wake-ups, and about 50 KB (8 blocks of about
/// 6 KB) held back at most.
const BLOCKS_PER_HANDOVER: usize = 8;

/// Hand-overs in flight to the writer: enough to keep it busy, few enough to bound memory (32
/// blocks, about 200 KB).
const HANDOVERS_IN_FLIGHT: usize = 4;

/// The error of a block writer that is gone without saying why (it cannot happen while the
/// batch holds its sender, unless the writer's thread died).
fn writer_gone() -> LogError {
    LogError::Storage {
        context: "while writing the append's blocks".to_string(),
        source: std::io::Error::other("the block writer stopped"),
    }
}

impl BlockWriter {
    /// Starts the writer on `scope`, inserting into `store`.
    fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        store: &'scope dyn crate::store::Store,
    ) -> BlockWriter {
        let (to_writer, from_ledger) = std::sync::mpsc::sync_channel(HANDOVERS_IN_FLIGHT);
        let failed = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&failed);
        scope.spawn(move || write_blocks(store, from_ledger, &slot));
        BlockWriter { to_writer, failed, pending: Vec::with_capacity(BLOCKS_PER_HANDOVER) }
    }

    /// The writer's failure, taken (reported once).
    fn failure(&self) -> Result<(), LogError> {
        match self.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Hands a sealed block over (with the next ones, [`BLOCKS_PER_HANDOVER`] at a time); refused
    /// with the writer's failure once it has one.
    fn send(&mut self, first: u64, bytes: Vec<u8>) -> Result<(), LogError> {
        self.failure()?;
        self.pending.push((first, bytes));
        if self.pending.len() < BLOCKS_PER_HANDOVER {
            return Ok(());
        }
        self.hand_over()
    }

    /// Hands the blocks not yet handed over to the writer.
    fn hand_over(&mut self) -> Result<(), LogError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let blocks = std::mem::replace(&mut self.pending, Vec::with_capacity(BLOCKS_PER_HANDOVER));
        self.to_writer.send(ToWriter::Blocks(blocks)).map_err(|_| writer_gone())
    }

    /// Waits until every block sent so far is in the store; the writer's failure if it had one.
    fn sync(&mut self) -> Result<(), LogError> {
        self.hand_over()?;
        let (ack, acked) = std::sync::mpsc::sync_channel(1);
        self.to_writer.send(ToWriter::Sync(ack)).map_err(|_| writer_gone())?;
        acked.recv().map_err(|_| writer_gone())?;
        self.failure()
    }
}

/// The block writer's loop: inserts each block in the order sent until the sender is dropped;
/// after a failure it inserts nothing more (the ledger's thread takes the failure at its next
/// hand-over or wait, and the batch is aborted).
fn write_blocks(
    store: &dyn crate::store::Store,
    from_ledger: Receiver<ToWriter>,
    failed: &Mutex<Option<LogError>>,
) {
    let mut ok = true;
    for message in from_ledger {
        match message {
            ToWriter::Blocks(blocks) => {
                for (first, bytes) in blocks {
                    if !ok {
                        break;
                    }
                    if let Err(e) = store.insert(Tree::Events, &key(first), &bytes) {
                        ok = false;
                        *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    }
                }
            }
            ToWriter::Sync(ack) => {
                let _ = ack.send(());
            }
        }
    }
}

/// The stored events without an id at one instant (excluding joins and ticks, which have their
/// own duplicate rules), by encoded content, with how many of each the batch has not yet matched.
///
/// An input event without an id at an instant no later than the stored history's last is a
/// duplicate when a stored event at the same instant has its content and no id, and each stored
/// event is matched once: a batch holding two equal results at one instant skips both only when
/// two are stored. So re-importing a file appends nothing, whatever its instants, and two equal
/// results at one instant in one batch are both stored. The window only moves forward: an
/// input event earlier than the window's instant is not looked up (it is out of time order
/// unless it is a duplicate by id, join or tick).
struct Twins {
    at: Timestamp,
    /// The first stored seq after the events at `at`.
    next: u64,
    counts: HashMap<Vec<u8>, u32>,
}

/// An event for the bulk append ([`Ledger::append_returning`]), checked on its own
/// ([`Checked`]) and, when made from its canonical line ([`Prepared::new`]), with the two hashes
/// that depend on the event alone: its id's fingerprint (for the idempotency index) and its leaf
/// hash in the Merkle tree (SHA-256 of its canonical line, RFC 6962). Made on the thread that
/// parses the event, they leave the ledger's thread, which bounds an import, with the chain hash
/// and the rules against the history (docs/PERFORMANCE.md, "Import: fewer hand-overs, hashes
/// off the ledger's thread").
#[derive(Debug)]
pub struct Prepared {
    event: Event,
    /// The id's fingerprint (`None` without an id) and the leaf hash, when computed.
    hashes: Option<(Option<u64>, [u8; 32])>,
}

impl Prepared {
    /// The event of `lined` with its id's fingerprint and its leaf hash, computed here from its
    /// canonical line.
    pub fn new(lined: json::Lined<'_>) -> Prepared {
        let leaf = ladder_proof::leaf_hash(lined.line());
        let event = lined.into_checked().into_event();
        let fp = event.id.as_deref().map(index::fingerprint);
        Prepared { event, hashes: Some((fp, leaf)) }
    }

    /// The event.
    pub fn event(&self) -> &Event {
        &self.event
    }
}

/// An input item read ahead ([`LOOKAHEAD`]) with its id's fingerprint, when it has an id, and
/// its leaf hash when the caller computed it.
type Ahead = (Result<Event, Violation>, Option<u64>, Option<[u8; 32]>);

impl Prepared {
    /// An event of the plain append: its own rules are checked by the append, and its hashes
    /// computed there.
    fn unhashed(event: Event) -> Prepared {
        Prepared { event, hashes: None }
    }
}

impl From<Checked> for Prepared {
    /// A checked event whose hashes the append computes itself, on its own thread.
    fn from(checked: Checked) -> Prepared {
        Prepared { event: checked.into_event(), hashes: None }
    }
}

impl Ledger {
    /// Appends a stream of events atomically after checking every append rule against the stored
    /// history and the batch's earlier events. Input items are indexed from 0 in input order;
    /// parse errors arrive as `Err` and count as violations.
    ///
    /// Without [`AppendOptions::skip_invalid`], the first violation refuses the whole batch
    /// ([`AppendError::Refused`]) and nothing of it is stored. On success the batch is durable
    /// (flushed) before this returns. Memory holds the block being filled, the batch's new joins,
    /// voids and ticks, and at most a million id fingerprints, never the batch itself.
    pub fn append<I>(
        &mut self,
        events: I,
        opts: &AppendOptions,
    ) -> Result<AppendReport, AppendError>
    where
        I: IntoIterator<Item = Result<Event, Violation>>,
    {
        self.append_inner(events, opts, None::<fn(Event)>)
    }

    /// [`Ledger::append`], handing each event it has written to `spent` once it is done with it,
    /// instead of dropping it: the same rules, the same bytes stored, the same report. A caller
    /// whose events were allocated on another thread sends them back there to be freed, which
    /// costs the appending thread less than freeing another thread's memory (what makes
    /// `ladder import` faster; docs/PERFORMANCE.md, "Where an import's time goes").
    ///
    /// It is the bulk append: its events come [`Checked`] (their own rules are not checked
    /// again), as [`Prepared`] ones when their hashes were computed by the caller, and a thread
    /// of its own inserts the sealed blocks into the store while this one goes on
    /// ([`BlockWriter`]).
    pub fn append_returning<I, P, F>(
        &mut self,
        events: I,
        opts: &AppendOptions,
        spent: F,
    ) -> Result<AppendReport, AppendError>
    where
        I: IntoIterator<Item = Result<P, Violation>>,
        P: Into<Prepared>,
        F: FnMut(Event),
    {
        self.prepare_append()?;
        let events = events.into_iter().map(|item| item.map(Into::into));
        let durable =
            std::thread::scope(|scope| self.stage_inner(events, opts, Some(spent), Some(scope)))?
                .commit()?;
        self.publish(durable)
    }

    fn append_inner<I, F>(
        &mut self,
        events: I,
        opts: &AppendOptions,
        spent: Option<F>,
    ) -> Result<AppendReport, AppendError>
    where
        I: IntoIterator<Item = Result<Event, Violation>>,
        F: FnMut(Event),
    {
        self.prepare_append()?;
        let events = events.into_iter().map(|item| item.map(Prepared::unhashed));
        let durable = self.stage_inner(events, opts, spent, None)?.commit()?;
        self.publish(durable)
    }

    /// The layout work an append does first, which needs the ledger to itself: the trailing
    /// small blocks and facts chunks are merged once there are enough of them (content is
    /// unchanged). [`Ledger::stage`] works without it, but the tail then keeps growing.
    pub fn prepare_append(&mut self) -> Result<(), AppendError> {
        if self.poisoned.load(Ordering::Acquire) {
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        if self.writing.load(Ordering::Acquire) {
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        self.check_before_writing()?;
        self.merge_tail()?;
        Ok(())
    }

    /// True when [`Ledger::prepare_append`] has work to do (the tail has enough small pieces to
    /// merge): a caller that must take the ledger exclusively for it can skip that otherwise.
    pub fn wants_prepare(&self) -> bool {
        self.tail_wants_merge()
    }

    /// The first half of [`Ledger::append`], through a shared reference: every rule checked and
    /// the events written beyond the head, where no read of this handle sees them (every read
    /// stops at [`Ledger::head`], which does not move), nothing durable yet. [`Staged::commit`]
    /// then makes it durable, and [`Ledger::publish`] shows it to readers; dropping the staged
    /// append instead removes what it wrote. So readers sharing the ledger (behind a
    /// `RwLock`) read on while an append is checked and flushed, and wait only for the
    /// publish, which touches memory alone (`ladder serve`; docs/serve.md).
    ///
    /// One append at a time: while one is staged or durable and not yet published, another
    /// is refused ([`LogError::Poisoned`], as is every append after a commit that failed or a
    /// durable append that was dropped unpublished: the handle must be opened again). While a
    /// stage runs, the idempotency index may be merged under readers of this handle, so
    /// [`Ledger::seq_of_id`] and [`Ledger::match_seq`] belong to the writer meanwhile.
    pub fn stage<I>(&self, events: I, opts: &AppendOptions) -> Result<Staged<'_>, AppendError>
    where
        I: IntoIterator<Item = Result<Event, Violation>>,
    {
        let events = events.into_iter().map(|item| item.map(Prepared::unhashed));
        self.stage_inner(events, opts, None::<fn(Event)>, None)
    }

    /// [`Ledger::stage`] for events already [`Checked`] (their own rules are not checked
    /// again), with a thread of its own inserting the sealed blocks into the store while this
    /// one goes on, as [`Ledger::append_returning`] does; the thread is stopped before this
    /// returns, whatever the outcome, so the staged append is the one [`Ledger::stage`] would
    /// make, with the same rules, bytes and report (`stage_checked_stores_what_stage_stores`).
    /// Worth a thread for a large group (`ladder serve` uses it from 1,024 events); the same
    /// one-append-at-a-time rule holds.
    pub fn stage_checked<I>(
        &self,
        events: I,
        opts: &AppendOptions,
    ) -> Result<Staged<'_>, AppendError>
    where
        I: IntoIterator<Item = Result<Checked, Violation>>,
    {
        let events = events.into_iter().map(|item| item.map(Prepared::from));
        std::thread::scope(|scope| {
            self.stage_inner_with(events, opts, None::<fn(Event)>, Some(scope), true)
        })
    }

    /// Stages `events`. With `bulk` (a scope to run the block writer on), the events are
    /// [`Checked`] ones (made [`Prepared`]), and a [`BlockWriter`] inserts the sealed blocks; it
    /// is stopped before this returns, whatever the outcome.
    fn stage_inner<'l: 'scope, 'scope, I, F>(
        &'l self,
        events: I,
        opts: &AppendOptions,
        spent: Option<F>,
        bulk: Option<&'scope std::thread::Scope<'scope, '_>>,
    ) -> Result<Staged<'l>, AppendError>
    where
        I: IntoIterator<Item = Result<Prepared, Violation>>,
        F: FnMut(Event),
    {
        self.stage_inner_with(events, opts, spent, bulk, false)
    }

    /// [`Ledger::stage_inner`]; with `tree` (and a scope), a thread of its own also hashes the
    /// leaves and grows the Merkle tree ([`TreeFeed`]).
    fn stage_inner_with<'l: 'scope, 'scope, I, F>(
        &'l self,
        events: I,
        opts: &AppendOptions,
        mut spent: Option<F>,
        bulk: Option<&'scope std::thread::Scope<'scope, '_>>,
        tree: bool,
    ) -> Result<Staged<'l>, AppendError>
    where
        I: IntoIterator<Item = Result<Prepared, Violation>>,
        F: FnMut(Event),
    {
        if self.poisoned.load(Ordering::Acquire) {
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        if self.writing.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_err()
        {
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        // From here every return goes through `Staged`, whose drop removes what was written and
        // lets the next append in.
        let mut staged = Staged { ledger: self, batch: None, committed: false };
        self.check_before_writing()?;
        let mut batch = Batch::new(self, *opts)?;
        if spent.is_some() {
            batch.spent = Some(Vec::new());
        }
        if let Some(scope) = bulk {
            batch.checked = true;
            batch.blocks = Some(BlockWriter::start(scope, &*self.store));
            if tree {
                batch.tree = TreeFeed::start(scope, &batch);
            }
        }
        match self.feed(&mut batch, events, opts, &mut spent) {
            Ok(()) => {}
            Err((index, Fail::Invalid(violation))) => {
                staged.batch = Some(batch);
                staged.abort()?;
                return Err(AppendError::Refused { index, violation });
            }
            Err((_, Fail::Storage(e))) => {
                // Best effort: what is beyond the head is discarded at the next open anyway.
                staged.batch = Some(batch);
                let _ = staged.abort();
                return Err(AppendError::Storage(e));
            }
        }
        batch.finish_writes(self, &mut staged)?;
        staged.batch = Some(batch);
        Ok(staged)
    }

    /// Offers every input item to `batch` in order, reading [`LOOKAHEAD`] items ahead to
    /// prefetch what their checks read; skips what `opts` lets it skip. The first item that
    /// fails otherwise ends it: its input index and the failure.
    fn feed<I, F>(
        &self,
        batch: &mut Batch,
        events: I,
        opts: &AppendOptions,
        spent: &mut Option<F>,
    ) -> Result<(), (usize, Fail)>
    where
        I: IntoIterator<Item = Result<Prepared, Violation>>,
        F: FnMut(Event),
    {
        let mut items = events.into_iter();
        let mut ahead: VecDeque<Ahead> = VecDeque::with_capacity(LOOKAHEAD);
        let mut ended = false;
        for index in 0.. {
            // Read ahead up to LOOKAHEAD items, never past a refused one (it is checked first, and
            // the input after it may not come soon), prefetching the players each will look up.
            while !ended && ahead.len() < LOOKAHEAD && ahead.back().is_none_or(|i| i.0.is_ok()) {
                match items.next() {
                    Some(Ok(Prepared { event, hashes })) => {
                        let item = Ok(event);
                        let (fp, leaf) = match hashes {
                            Some((fp, leaf)) => (batch.touch(self, &item, Some(fp)), Some(leaf)),
                            None => (batch.touch(self, &item, None), None),
                        };
                        ahead.push_back((item, fp, leaf));
                    }
                    Some(Err(v)) => ahead.push_back((Err(v), None, None)),
                    None => ended = true,
                }
            }
            let Some((item, fp, leaf)) = ahead.pop_front() else { break };
            let offered = batch.offer(self, item, fp, leaf);
            if let (Some(take), Some(done)) = (spent.as_mut(), batch.spent.as_mut()) {
                for event in done.drain(..) {
                    take(event);
                }
            }
            match offered {
                Ok(()) => {}
                // An unreadable input is never skipped: what it did not deliver is unknown.
                Err(Fail::Invalid(v)) if opts.skip_invalid && v.rule.skippable() => {
                    batch.report.skipped.push((index, v))
                }
                Err(fail) => return Err((index, fail)),
            }
        }
        Ok(())
    }

    /// Stages `events` on top of `below`, an append being made durable
    /// ([`Staged::commit_meanwhile`]), so that the next group's checks, hashes and bytes are
    /// made while the previous group's syncs run. Every rule is checked against the stored
    /// history, that append's events and this input's earlier ones, as [`Ledger::stage`] does,
    /// but **nothing is written**: the blocks, facts and tree nodes are held in memory
    /// ([`Held`]) and written by [`Ledger::resume`], after the append below is durable and
    /// published. So a crash, or a failure of the syncs below, finds nothing of this input
    /// anywhere but in memory, and the ledger's crash argument is the one-append-at-a-time one
    /// (docs/GUARANTEES.md, promise 3).
    ///
    /// `Ok(None)`: not staged now, because the input would write the idempotency index (a spill
    /// of ids: [`Ledger::defer_id_index`]), or the append below wrote nothing or wrote the
    /// index itself; stage it with [`Ledger::stage`] once the append below is published. A
    /// refusal is [`AppendError::Refused`], as from [`Ledger::stage`]; either way nothing was
    /// written.
    pub fn stage_after<I>(
        &self,
        below: Option<Below>,
        events: I,
        opts: &AppendOptions,
    ) -> Result<Option<Held>, AppendError>
    where
        I: IntoIterator<Item = Result<Event, Violation>>,
    {
        let events = events.into_iter().map(|item| item.map(Prepared::unhashed));
        self.stage_above(below, events, opts, false, None)
    }

    /// [`Ledger::stage_after`] for events already [`Checked`] (their own rules are not checked
    /// again), as [`Ledger::stage_checked`] is to [`Ledger::stage`].
    pub fn stage_after_checked<I>(
        &self,
        below: Option<Below>,
        events: I,
        opts: &AppendOptions,
    ) -> Result<Option<Held>, AppendError>
    where
        I: IntoIterator<Item = Result<Checked, Violation>>,
    {
        let events = events.into_iter().map(|item| item.map(Prepared::from));
        std::thread::scope(|scope| self.stage_above(below, events, opts, true, Some(scope)))
    }

    fn stage_above<'scope, I>(
        &'scope self,
        below: Option<Below>,
        events: I,
        opts: &AppendOptions,
        checked: bool,
        tree: Option<&'scope std::thread::Scope<'scope, '_>>,
    ) -> Result<Option<Held>, AppendError>
    where
        I: IntoIterator<Item = Result<Prepared, Violation>>,
    {
        let Some(below) = below else { return Ok(None) };
        let base = below.head;
        let mut batch = Batch::above(self, below, *opts)?;
        if self.poisoned.load(Ordering::Acquire) {
            batch.give_back_filter(self);
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        batch.checked = checked;
        if let Some(scope) = tree {
            batch.tree = TreeFeed::start(scope, &batch);
        }
        let fed = self.feed(&mut batch, events, opts, &mut None::<fn(Event)>);
        let finished = fed.and_then(|()| {
            if batch.report.appended == 0 {
                return Ok(());
            }
            let mut finish = || {
                batch.seal(self)?;
                batch.finish_tree(self)?;
                batch.write_facts(self)?;
                batch.spill_ids(self, false)
            };
            finish().map_err(|e| (0, Fail::Storage(e)))
        });
        // The tree's thread ends with its feed (taken back already when the batch finished).
        batch.tree = None;
        match finished {
            Ok(()) if !batch.not_now => Ok(Some(Held { base, batch })),
            Ok(()) => {
                batch.give_back_filter(self);
                Ok(None)
            }
            Err((index, fail)) => {
                batch.give_back_filter(self);
                Err(match fail {
                    Fail::Invalid(violation) => AppendError::Refused { index, violation },
                    Fail::Storage(e) => AppendError::Storage(e),
                })
            }
        }
    }

    /// Turns an append staged on top of another ([`Ledger::stage_after`]) into a staged append
    /// of this ledger once that other one is published: its held writes are written beyond the
    /// head, as [`Ledger::stage`] would have written them, and it is then committed and
    /// published like any staged append. Refused ([`LogError::Poisoned`], nothing written) when
    /// the head is not the one it was staged on (the append below was not published: its
    /// commit failed) or another append is staged; a failed write is removed again as a
    /// failed stage's is.
    pub fn resume(&self, held: Held) -> Result<Staged<'_>, AppendError> {
        let Held { base, mut batch } = held;
        if self.poisoned.load(Ordering::Acquire) || base != self.head {
            batch.give_back_filter(self);
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        if self.writing.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_err()
        {
            batch.give_back_filter(self);
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        let mut staged = Staged { ledger: self, batch: None, committed: false };
        let applied = batch.apply_held(self);
        staged.batch = Some(batch);
        if let Err(e) = applied {
            let _ = staged.abort();
            return Err(AppendError::Storage(e));
        }
        Ok(staged)
    }

    /// Shows a durable append to readers: the head moves to it, with the in-memory indexes
    /// (players, voids, ticks, the tree's frontier). Memory only; the next append may start.
    /// Refused ([`LogError::Poisoned`]) for an append staged on a head that is no longer this
    /// handle's.
    pub fn publish(&mut self, durable: Durable) -> Result<AppendReport, AppendError> {
        let Durable { base, report, batch } = durable;
        let Some(batch) = batch else {
            // Nothing was written: the head stays (and the next append was let in already).
            return Ok(report);
        };
        if base != self.head {
            self.poisoned.store(true, Ordering::Release);
            return Err(AppendError::Storage(LogError::Poisoned));
        }
        let report = batch.publish(self);
        self.writing.store(false, Ordering::Release);
        Ok(report)
    }

    /// Appends events copied from another ledger's log (what `ladder mirror` does), so that this
    /// ledger stores exactly them, in order: every rule of [`Ledger::append`] is checked, without
    /// its options, but nothing is skipped. An event that `append` would skip as a duplicate of a
    /// stored one with the same id, the same join or the same date's tick refuses the batch
    /// (such a log is not a ladder history); one without an id that equals a stored event at
    /// its instant is stored, as the log being copied stored it (two equal results at one instant
    /// in one batch are both kept, and a copy may cut its batches elsewhere).
    pub fn replicate<I>(&mut self, events: I) -> Result<AppendReport, AppendError>
    where
        I: IntoIterator<Item = Result<Event, Violation>>,
    {
        self.prepare_append()?;
        self.writing.store(true, Ordering::Release);
        let mut staged = Staged { ledger: self, batch: None, committed: false };
        let mut batch = Batch::new(self, AppendOptions::default())?;
        batch.replicate = true;
        for (index, item) in events.into_iter().enumerate() {
            // The rule a skipped duplicate of this event breaks here.
            let rule = match item.as_ref().map(|e| (&e.id, &e.body)) {
                Ok((None, Body::PlayerJoined { .. })) => Rule::JoinedTwice,
                Ok((None, Body::MidnightTick)) => Rule::TickRepeated,
                _ => Rule::IdConflict,
            };
            let refused = match batch.offer(self, item, None, None) {
                Ok(()) if batch.report.duplicates > 0 => Some(Violation::new(
                    rule,
                    "a copy of this event (the same id, join or date's tick) is stored already, \
                     and a ladder history never holds one twice"
                        .to_string(),
                )),
                Ok(()) => None,
                Err(Fail::Invalid(v)) => Some(v),
                Err(Fail::Storage(e)) => {
                    staged.batch = Some(batch);
                    let _ = staged.abort();
                    return Err(AppendError::Storage(e));
                }
            };
            if let Some(violation) = refused {
                staged.batch = Some(batch);
                staged.abort()?;
                return Err(AppendError::Refused { index, violation });
            }
        }
        batch.finish_writes(self, &mut staged)?;
        staged.batch = Some(batch);
        let durable = staged.commit()?;
        self.publish(durable)
    }
}

impl Batch {
    fn new(ledger: &Ledger, opts: AppendOptions) -> Result<Batch, LogError> {
        let base = ledger.head;
        let last = if base.seq == 0 {
            None
        } else {
            let e =
                ledger.get(base.seq)?.ok_or(LogError::Missing { seq: base.seq, head: base.seq })?;
            Some((e.event.at, matches!(e.event.body, Body::MidnightTick)))
        };
        let mut runs = Runs::load(&*ledger.store, base.seq)?;
        runs.collect_garbage(&*ledger.store)?;
        // The players index, before anything is written (opening leaves it for its first use).
        ledger.players()?;
        let frontier = ledger.frontier()?;
        // The id filter kept by the ledger (the last step: nothing fails after it, so it is
        // given back or dropped with the batch).
        let filter =
            std::mem::take(&mut *ledger.id_filter.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(Batch::starting(
            ledger,
            opts,
            Start {
                head: base,
                last,
                frontier,
                // An empty ledger has no ids on disk that could be real (only leftovers).
                ids_on_disk: base.seq > 0 && !runs.live.is_empty(),
                runs,
                bloom: filter.bloom,
                probes: filter.probes,
                ids_keyed: ledger.recent.keyed,
                below: None,
            },
        ))
    }

    /// A batch staged on top of `below`, an append being made durable: it starts at its head,
    /// with its tree, its last instant, the id index and filter it lent, and what it wrote for
    /// the lookups; every store write is held ([`HeldWrites`]).
    fn above(ledger: &Ledger, below: Below, opts: AppendOptions) -> Result<Batch, LogError> {
        ledger.players()?;
        let Below {
            head,
            last,
            frontier,
            overlay,
            runs,
            bloom,
            probes,
            ids_on_disk,
            ids_keyed,
            ..
        } = below;
        Ok(Batch::starting(
            ledger,
            opts,
            Start {
                head,
                last,
                frontier,
                runs,
                bloom,
                probes,
                ids_on_disk,
                ids_keyed,
                below: Some(overlay),
            },
        ))
    }

    /// The one constructor behind [`Batch::new`] and [`Batch::above`]: a batch that starts at
    /// `start.head`, nothing written yet. With an overlay below it, every store write is held.
    fn starting(ledger: &Ledger, opts: AppendOptions, start: Start) -> Batch {
        let Start { head, last, frontier, runs, bloom, probes, ids_on_disk, ids_keyed, below } =
            start;
        Batch {
            opts,
            next_seq: head.seq + 1,
            prev: head.hash,
            builder: Builder::new(head.seq + 1, head.hash),
            written: Vec::new(),
            facts_written: Vec::new(),
            facts: vec![FACTS_FORMAT],
            facts_first: 0,
            last,
            new_players: Names::default(),
            new_voids: HashMap::new(),
            new_ticks: HashMap::new(),
            ids: FpTable::default(),
            id_fp: None,
            leaf: None,
            ids_overflow: Vec::new(),
            ids_on_disk,
            ids_spilled: 0,
            runs,
            bloom,
            probes,
            cache: None,
            encoded: Vec::with_capacity(256),
            line: Vec::with_capacity(256),
            checked_line: Vec::with_capacity(256),
            frontier,
            nodes_written: Vec::new(),
            report: AppendReport { head, ..AppendReport::default() },
            base_seq: head.seq,
            base_last_at: last.map(|(at, _)| at),
            twins: None,
            offered: 0,
            replicate: false,
            inputs: Vec::new(),
            spent: None,
            deferred: false,
            checked: false,
            blocks: None,
            synced: 0,
            new_leaves: ledger
                .hand_leaves
                .then(|| NewLeaves { first: head.seq + 1, ..NewLeaves::default() }),
            owns_filter: true,
            ids_keyed,
            held: below.as_ref().map(|_| HeldWrites::default()),
            below,
            tree: None,
            not_now: false,
        }
    }

    /// Lends what the append staged on top of this one needs ([`Below`]): the id index's runs
    /// and the filter move to it (this batch no longer gives the filter back), the rest is
    /// copied. Called once this batch's writes are done.
    fn lend(&mut self) -> Below {
        self.owns_filter = false;
        let (mut players, mut voids, mut ticks) =
            (self.new_players.clone(), self.new_voids.clone(), self.new_ticks.clone());
        let (mut ids, mut ids_overflow) = (self.ids.clone(), self.ids_overflow.clone());
        if let Some(under) = &self.below {
            // Only while staging: a resumed batch has no overlay left.
            players.extend(under.players.clone());
            voids.extend(under.voids.clone());
            ticks.extend(under.ticks.clone());
            for (fp, seq) in under.ids.clone().drain() {
                if !ids.insert_new(fp, seq) {
                    ids_overflow.push((fp, seq));
                }
            }
            ids_overflow.extend_from_slice(&under.ids_overflow);
        }
        Below {
            head: self.head(),
            last: self.last,
            frontier: self.frontier.clone(),
            overlay: Box::new(Overlay { players, voids, ticks, ids, ids_overflow }),
            runs: std::mem::take(&mut self.runs),
            bloom: self.bloom.take(),
            probes: self.probes,
            ids_on_disk: self.ids_on_disk,
            ids_keyed: self.ids_keyed || self.deferred,
            synced: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// Writes what a batch staged on top of another held ([`Ledger::resume`]), once that one is
    /// published, and drops its overlay: it is then a batch like any other.
    fn apply_held(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        self.below = None;
        let Some(held) = self.held.take() else { return Ok(()) };
        for (first, bytes) in &held.blocks {
            ledger.store.insert(Tree::Events, &key(*first), bytes)?;
        }
        for (tree, k, v) in &held.other {
            ledger.store.insert(*tree, k, v)?;
        }
        Ok(())
    }

    /// Writes `value` under `k` in `tree`, or holds it ([`HeldWrites`]).
    fn put(&mut self, ledger: &Ledger, tree: Tree, k: &[u8], value: &[u8]) -> Result<(), LogError> {
        match &mut self.held {
            Some(held) => {
                held.other.push((tree, k.to_vec(), value.to_vec()));
                Ok(())
            }
            None => ledger.store.insert(tree, k, value),
        }
    }

    /// Prefetches the table slots the checks of `item` will read (its id's among the batch's ids,
    /// [`FpTable::touch`], and in the Bloom filter, [`Bloom::touch`], and the players of a match
    /// or a timeout, [`Names::touch`]), a few items before it is checked. Changes nothing.
    /// Returns the fingerprint of the item's id: `known` when the caller computed it (`Some`,
    /// of `None` without an id), computed here otherwise.
    fn touch(
        &self,
        ledger: &Ledger,
        item: &Result<Event, Violation>,
        known: Option<Option<u64>>,
    ) -> Option<u64> {
        let event = item.as_ref().ok()?;
        let fp = known.unwrap_or_else(|| event.id.as_deref().map(index::fingerprint));
        if let Some(fp) = fp {
            self.ids.touch(fp);
            if let Some(bloom) = &self.bloom {
                bloom.touch(fp);
            }
        }
        if matches!(event.body, Body::MatchResult { .. } | Body::QueueTimeout { .. }) {
            // `Batch::new` built the stored players' index before any item is checked.
            let stored = ledger.players.get();
            for p in event.players() {
                self.new_players.touch(p);
                if let Some(stored) = stored {
                    stored.touch(p);
                }
            }
        }
        fp
    }

    /// The bytes of event `seq` (stored, or written by this batch).
    fn read_event(&mut self, ledger: &Ledger, seq: u64) -> Result<Event, LogError> {
        let decode =
            |bytes: &[u8]| codec::decode(bytes).map_err(|source| LogError::Decode { seq, source });
        if seq >= self.builder.first {
            let bytes =
                self.builder.get(seq).ok_or(LogError::Missing { seq, head: self.next_seq - 1 })?;
            return decode(bytes);
        }
        if let Some(bytes) = self.cache.as_ref().and_then(|b| b.get(seq)) {
            return decode(bytes);
        }
        // In a block this batch sealed and holds ([`HeldWrites`]).
        if let Some(held) = &self.held {
            if seq > self.base_seq {
                let at = held.blocks.partition_point(|(first, _)| *first <= seq);
                let Some((first, bytes)) = at.checked_sub(1).map(|i| &held.blocks[i]) else {
                    return Err(LogError::Missing { seq, head: self.next_seq - 1 });
                };
                let block = block::Indexed::new(&key(*first), crate::store::Value::copy_of(bytes))?;
                let event = match block.get(seq) {
                    Some(bytes) => decode(bytes)?,
                    None => return Err(LogError::Missing { seq, head: self.next_seq - 1 }),
                };
                self.cache = Some(block);
                return Ok(event);
            }
        }
        // In a block this batch sealed after the last wait: the block writer may not have
        // inserted it yet.
        if let (Some(blocks), Some(&(unsynced, _, _))) =
            (&mut self.blocks, self.written.get(self.synced))
        {
            if seq >= unsynced {
                blocks.sync()?;
                self.synced = self.written.len();
            }
        }
        let (k, v) = ledger
            .store
            .last_at_or_before(Tree::Events, &key(seq))?
            .ok_or(LogError::Missing { seq, head: self.next_seq - 1 })?;
        let block = block::Indexed::new(&k, v)?;
        let event = match block.get(seq) {
            Some(bytes) => decode(bytes)?,
            None => return Err(LogError::Missing { seq, head: self.next_seq - 1 }),
        };
        self.cache = Some(block);
        Ok(event)
    }

    /// The seq and event stored (or written by this batch) under `id`.
    fn find_id(&mut self, ledger: &Ledger, id: &str) -> Result<Option<(u64, Event)>, LogError> {
        self.find_fp(ledger, id, index::fingerprint(id))
    }

    /// [`Self::find_id`] of an id whose fingerprint `fp` is known.
    fn find_fp(
        &mut self,
        ledger: &Ledger,
        id: &str,
        fp: u64,
    ) -> Result<Option<(u64, Event)>, LogError> {
        let mut candidates: Vec<u64> = Vec::new();
        if let Some(s) = self.ids.get(fp) {
            candidates.push(s);
            candidates.extend(self.ids_overflow.iter().filter(|e| e.0 == fp).map(|e| e.1));
        }
        // Then those of the append below this one, being made durable.
        if let Some(under) = &self.below {
            if let Some(s) = under.ids.get(fp) {
                candidates.push(s);
                candidates.extend(under.ids_overflow.iter().filter(|e| e.0 == fp).map(|e| e.1));
            }
        }
        // Then the ids of committed events not in the on-disk index yet (`crate::recent`).
        candidates.extend(ledger.recent.candidates(fp));
        for seq in candidates {
            if let Some(event) = self.confirm(ledger, seq, id)? {
                return Ok(Some((seq, event)));
            }
        }
        if !self.ids_on_disk {
            return Ok(None);
        }
        if self.bloom.is_none() {
            self.probes += self.runs.live.len() as u64;
            if self.probes.saturating_mul(BLOOM_AFTER) >= self.runs.entries().max(1 << 16) {
                self.build_bloom(ledger)?;
            }
        }
        if self.bloom.as_ref().is_some_and(|b| !b.may_contain(fp)) {
            return Ok(None);
        }
        let runs = std::mem::take(&mut self.runs);
        let mut found = None;
        let searched = runs.find(&*ledger.store, fp, |seq| {
            found = self.confirm(ledger, seq, id)?.map(|e| (seq, e));
            Ok(found.is_some())
        });
        self.runs = runs;
        searched?;
        Ok(found)
    }

    /// The event at `seq` if its id is `id`. Entries beyond what is written are leftovers of a
    /// refused or crashed append, and a fingerprint may be another id's.
    fn confirm(&mut self, ledger: &Ledger, seq: u64, id: &str) -> Result<Option<Event>, LogError> {
        if seq == 0 || seq >= self.next_seq {
            return Ok(None);
        }
        let event = self.read_event(ledger, seq)?;
        Ok((event.id.as_deref() == Some(id)).then_some(event))
    }

    fn player_seq(&self, ledger: &Ledger, player: &str) -> Option<u64> {
        // `Batch::new` loaded the index.
        self.new_players
            .get(player)
            .or_else(|| self.below.as_ref()?.players.get(player))
            .or_else(|| ledger.players.get()?.get(player))
    }

    fn ticked(&self, ledger: &Ledger, day: i64) -> bool {
        self.new_ticks.contains_key(&day)
            || self.below.as_ref().is_some_and(|b| b.ticks.contains_key(&day))
            || ledger.ticks.contains_key(&day)
    }

    /// The seq of the MatchVoided of `match_id`, if any.
    fn voided(&self, ledger: &Ledger, match_id: &str) -> Option<u64> {
        self.new_voids
            .get(match_id)
            .or_else(|| self.below.as_ref()?.voids.get(match_id))
            .or_else(|| ledger.voids.get(match_id))
            .copied()
    }

    /// The input index of the input event this batch wrote at `seq`.
    fn input_of(&self, seq: u64) -> Option<usize> {
        let at = self.inputs.partition_point(|&(s, _)| s <= seq).checked_sub(1)?;
        let (first, index) = self.inputs[at];
        Some(index + usize::try_from(seq - first).ok()?)
    }

    /// The instant of stored event `seq`.
    fn stored_at(&mut self, ledger: &Ledger, seq: u64) -> Result<Timestamp, LogError> {
        Ok(self.read_event(ledger, seq)?.at)
    }

    /// The first stored seq from `from` whose instant is at or after `at` (`base_seq + 1` if
    /// none): stored instants never decrease, so a gallop from `from` then a binary search.
    fn first_at_or_after(
        &mut self,
        ledger: &Ledger,
        from: u64,
        at: Timestamp,
    ) -> Result<u64, LogError> {
        let end = self.base_seq + 1;
        if from >= end || self.stored_at(ledger, from)? >= at {
            return Ok(from.min(end));
        }
        // Invariant: the instant at `lo` is before `at`, and `hi` is `end` or at or after it.
        let (mut lo, mut step) = (from, 1u64);
        let mut hi = loop {
            let probe = lo.saturating_add(step);
            if probe >= end {
                break end;
            }
            if self.stored_at(ledger, probe)? >= at {
                break probe;
            }
            lo = probe;
            step = step.saturating_mul(2);
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.stored_at(ledger, mid)? >= at {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(hi)
    }

    /// True when `event` (without an id) matches a stored id-less event at its instant not yet
    /// matched by this batch ([`Twins`]); that stored event is then matched.
    fn take_twin(&mut self, ledger: &Ledger, event: &Event) -> Result<bool, LogError> {
        if self.base_last_at.is_none_or(|last| event.at > last) {
            return Ok(false);
        }
        let from = match &self.twins {
            Some(t) if t.at == event.at => None,
            Some(t) if t.at > event.at => return Ok(false),
            Some(t) => Some(t.next),
            None => Some(1),
        };
        if let Some(from) = from {
            let mut seq = self.first_at_or_after(ledger, from, event.at)?;
            let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
            while seq <= self.base_seq {
                let stored = self.read_event(ledger, seq)?;
                if stored.at != event.at {
                    break;
                }
                if stored.id.is_none() && twin_kind(&stored.body) {
                    let mut bytes = Vec::new();
                    codec::encode_into(&stored, &mut bytes);
                    *counts.entry(bytes).or_default() += 1;
                }
                seq += 1;
            }
            self.twins = Some(Twins { at: event.at, next: seq, counts });
        }
        self.encoded.clear();
        codec::encode_into(event, &mut self.encoded);
        let twins = self.twins.as_mut().expect("loaded above");
        match twins.counts.get_mut(&self.encoded) {
            Some(n) if *n > 0 => {
                *n -= 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Checks and writes one input event; `fp` is its id's fingerprint and `leaf` its leaf hash
    /// when the caller computed them (computed here otherwise).
    fn offer(
        &mut self,
        ledger: &Ledger,
        item: Result<Event, Violation>,
        fp: Option<u64>,
        leaf: Option<[u8; 32]>,
    ) -> Result<(), Fail> {
        let index = self.offered;
        self.offered += 1;
        let event = item.map_err(Fail::Invalid)?;

        // 1. Duplicates and conflicts.
        let fp = event.id.as_deref().map(|id| fp.unwrap_or_else(|| index::fingerprint(id)));
        if let (Some(id), Some(fp)) = (&event.id, fp) {
            if let Some((seq, stored)) = self.find_fp(ledger, id, fp)? {
                if same_content(&stored, &event) {
                    self.report.duplicates += 1;
                    return Ok(());
                }
                if seq <= self.base_seq {
                    return Err(Fail::Invalid(Violation::new(
                        Rule::IdConflict,
                        format!("id {id:?} is stored at seq {seq} with different content"),
                    )));
                }
                // Not stored: an earlier event of this batch, which is refused with it.
                let mut v = Violation::new(
                    Rule::IdConflict,
                    format!(
                        "id {id:?} is given earlier in this input to an event with different \
                         content (nothing of this input is stored)"
                    ),
                );
                v.earlier = self.input_of(seq);
                return Err(Fail::Invalid(v));
            }
        } else if !self.replicate && twin_kind(&event.body) && self.take_twin(ledger, &event)? {
            self.report.duplicates += 1;
            return Ok(());
        }
        let mut joined_before = None;
        match &event.body {
            Body::PlayerJoined { player, .. } => {
                if let Some(seq) = self.player_seq(ledger, player) {
                    let stored = self.read_event(ledger, seq)?;
                    if same_content(&stored, &event) {
                        self.report.duplicates += 1;
                        return Ok(());
                    }
                    joined_before = Some(seq);
                }
            }
            Body::MidnightTick if event.at.is_midnight() && self.ticked(ledger, event.at.day()) => {
                self.report.duplicates += 1;
                return Ok(());
            }
            _ => {}
        }

        // 2. The rules of the event alone, and the length of its canonical line (a C2SP entry
        // bundle prefixes each entry with a 16-bit length).
        if !self.checked {
            event.check().map_err(Fail::Invalid)?;
        }
        self.checked_line.clear();
        json::write_line(&event, &mut self.checked_line);
        if self.checked_line.len() > MAX_EVENT_LINE_BYTES {
            return Err(Fail::Invalid(Violation::new(
                Rule::EventTooLong,
                format!(
                    "its canonical JSON line has {} bytes; at most {MAX_EVENT_LINE_BYTES} are \
                     allowed",
                    self.checked_line.len()
                ),
            )));
        }

        // 3. The rules of the history.
        if let Some(bound) = self.opts.not_after {
            if event.at > bound {
                return Err(Fail::Invalid(Violation::new(
                    Rule::FutureInstant,
                    format!(
                        "`at` {} is after {bound}, the latest instant this append accepts (the \
                         clock at append time plus a margin)",
                        event.at
                    ),
                )));
            }
        }
        let is_tick = matches!(event.body, Body::MidnightTick);
        if let Some((last_at, last_tick)) = self.last {
            if event.at < last_at {
                // The event it is out of order with: an earlier one of this input (named by its
                // input index, so the caller can say "sort the file"), or the ledger's last
                // stored event (the whole input is older than the ledger).
                let last_seq = self.next_seq - 1;
                let v = if last_seq > self.base_seq {
                    let mut v = Violation::new(
                        Rule::TimeOrder,
                        format!("`at` {} is before the previous event, at {last_at}", event.at),
                    );
                    v.earlier = self.input_of(last_seq);
                    v
                } else {
                    Violation::new(
                        Rule::TimeOrder,
                        format!(
                            "`at` {} is before the ledger's last stored event (seq {last_seq}, at \
                             {last_at}): the ledger only grows forward in time",
                            event.at
                        ),
                    )
                };
                return Err(Fail::Invalid(v));
            }
            if is_tick && event.at == last_at && !last_tick {
                return Err(Fail::Invalid(Violation::new(
                    Rule::TickOrder,
                    format!(
                        "the MidnightTick at {} comes after another event at that instant",
                        event.at
                    ),
                )));
            }
        }
        let mut missing: Vec<String> = Vec::new();
        match &event.body {
            Body::PlayerJoined { player, .. } => {
                if let Some(seq) = joined_before {
                    return Err(Fail::Invalid(Violation::new(
                        Rule::JoinedTwice,
                        format!("player {player:?} already joined at seq {seq}, differently"),
                    )));
                }
            }
            Body::MatchResult { .. } | Body::QueueTimeout { .. } => {
                for p in event.players() {
                    if self.player_seq(ledger, p).is_none() {
                        if !self.opts.auto_join {
                            return Err(Fail::Invalid(Violation::new(
                                Rule::UnknownPlayer,
                                format!("player {p:?} has not joined"),
                            )));
                        }
                        missing.push(p.to_string());
                    }
                }
            }
            Body::MatchVoided { match_id, .. } => {
                let target = self.find_id(ledger, match_id)?;
                match target {
                    Some((_, Event { body: Body::MatchResult { .. }, .. })) => {}
                    Some((seq, e)) => {
                        return Err(Fail::Invalid(Violation::new(
                            Rule::VoidTarget,
                            format!(
                                "`match` {match_id:?} names seq {seq}, a {}, not a MatchResult",
                                e.body.type_name()
                            ),
                        )))
                    }
                    None => {
                        return Err(Fail::Invalid(Violation::new(
                            Rule::VoidTarget,
                            format!("`match` {match_id:?} names no stored MatchResult"),
                        )))
                    }
                }
                if let Some(seq) = self.voided(ledger, match_id) {
                    return Err(Fail::Invalid(Violation::new(
                        Rule::VoidRepeated,
                        format!("match {match_id:?} was already voided at seq {seq}"),
                    )));
                }
            }
            Body::MidnightTick => {}
        }

        // 4. Valid: the inserted ticks, the inserted joins, then the event.
        if self.opts.ticks {
            if let Some((last_at, _)) = self.last {
                let end = if is_tick { event.at.day() - 1 } else { event.at.day() };
                for day in last_at.day() + 1..=end {
                    if self.ticked(ledger, day) {
                        continue;
                    }
                    let Some(at) = Timestamp::midnight_of_day(day) else { continue };
                    self.write(ledger, Event { at, id: None, body: Body::MidnightTick })?;
                    self.report.ticks_inserted += 1;
                }
            }
        }
        for player in missing {
            let join = Event {
                at: event.at,
                id: None,
                body: Body::PlayerJoined { player, prior: Prior::default() },
            };
            self.write(ledger, join)?;
            self.report.auto_joined += 1;
        }
        let seq = self.next_seq;
        if self.input_of(seq) != Some(index) {
            self.inputs.push((seq, index));
        }
        std::mem::swap(&mut self.line, &mut self.checked_line);
        self.id_fp = fp;
        self.leaf = leaf;
        self.write_lined(ledger, event)?;
        Ok(())
    }

    /// Writes a checked event: chain, block, indexes.
    fn write(&mut self, ledger: &Ledger, event: Event) -> Result<(), LogError> {
        self.line.clear();
        json::write_line(&event, &mut self.line);
        self.write_lined(ledger, event)
    }

    /// [`Self::write`] of an event whose canonical line `self.line` already holds.
    fn write_lined(&mut self, ledger: &Ledger, event: Event) -> Result<(), LogError> {
        self.encoded.clear();
        codec::encode_into(&event, &mut self.encoded);
        let hash = block::chain_hash(&self.prev, &self.line);
        let seq = self.next_seq;
        if let Some(feed) = &mut self.tree {
            feed.push(self.leaf.take(), &self.line)?;
        } else {
            let mut completed = Vec::new();
            let leaf = self.leaf.take().unwrap_or_else(|| ladder_proof::leaf_hash(&self.line));
            if let Some(out) = &mut self.new_leaves {
                out.hashes.push(leaf);
                out.lines.extend_from_slice(&self.line);
                out.ends.push(out.lines.len());
            }
            self.frontier.push(leaf, |level, index, h| {
                if level >= tree::TILE_LEVEL {
                    completed.push((tree::node_key(level, index), h));
                }
            });
            for (k, h) in completed {
                self.put(ledger, Tree::Nodes, &k, &h)?;
                self.nodes_written.push(k);
            }
        }
        self.builder.push(&hash, &self.encoded);
        self.prev = hash;
        self.next_seq += 1;
        self.report.appended += 1;
        let is_tick = matches!(event.body, Body::MidnightTick);
        self.last = Some((event.at, is_tick));
        if let Some(id) = &event.id {
            let fp = self.id_fp.take().unwrap_or_else(|| index::fingerprint(id));
            if !self.ids.insert_new(fp, seq) {
                self.ids_overflow.push((fp, seq));
            }
        }
        let fact = match &event.body {
            Body::PlayerJoined { player, .. } => {
                self.new_players.insert(player, seq);
                Some(Fact::Join { seq, player: player.clone() })
            }
            Body::MatchVoided { match_id, .. } => {
                self.new_voids.insert(match_id.clone(), seq);
                Some(Fact::Void { seq, match_id: match_id.clone() })
            }
            Body::MidnightTick => {
                self.new_ticks.insert(event.at.day(), seq);
                Some(Fact::Tick { seq, day: event.at.day() })
            }
            _ => None,
        };
        if let Some(spent) = self.spent.as_mut() {
            spent.push(event);
        }
        if let Some(f) = fact {
            if self.facts.len() == 1 {
                self.facts_first = seq;
            }
            f.encode_into(&mut self.facts);
            if self.facts.len() >= FACTS_CHUNK_BYTES {
                self.write_facts(ledger)?;
            }
        }
        if self.builder.is_full() {
            self.seal(ledger)?;
        }
        if self.ids.len() + self.ids_overflow.len() >= ledger.id_spill {
            if self.held.is_some() {
                // A spill writes the index (and may merge runs the append below still needs
                // on disk): not while it is being made durable.
                self.not_now = true;
            } else {
                self.spill_ids(ledger, true)?;
            }
        }
        Ok(())
    }

    fn seal(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        if self.builder.count == 0 {
            return Ok(());
        }
        let (first, count) = (self.builder.first, self.builder.count as u32);
        let bytes = self.builder.finish();
        let len = bytes.len();
        match (&mut self.blocks, &mut self.held) {
            (Some(blocks), _) => blocks.send(first, bytes.to_vec())?,
            (None, Some(held)) => held.blocks.push((first, bytes.to_vec())),
            (None, None) => ledger.store.insert(Tree::Events, &key(first), bytes)?,
        }
        self.written.push((first, count, len));
        self.builder.reset(self.next_seq, self.prev);
        Ok(())
    }

    /// Takes the tree back from its thread ([`TreeFeed`]), once every leaf sent is pushed: the
    /// frontier, the leaves kept for the caller, and the completed subtrees, which are written
    /// (or held) here. Nothing when the batch has no such thread.
    fn finish_tree(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        let Some(feed) = self.tree.take() else { return Ok(()) };
        let grown = feed.finish()?;
        self.frontier = grown.frontier;
        if grown.leaves.is_some() {
            self.new_leaves = grown.leaves;
        }
        for (k, h) in grown.nodes {
            self.put(ledger, Tree::Nodes, &k, &h)?;
            self.nodes_written.push(k);
        }
        Ok(())
    }

    /// Stops the block writer, if this batch has one, once every block sent is inserted: its
    /// failure if it had one. Every path that ends a batch calls it before anything else.
    fn stop_blocks(&mut self) -> Result<(), LogError> {
        // The tree's thread ends once its feed is gone (a batch that finishes takes the tree
        // back first, [`Batch::finish_tree`]).
        self.tree = None;
        match self.blocks.take() {
            Some(mut blocks) => blocks.sync(),
            None => Ok(()),
        }
    }

    fn write_facts(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        if self.facts.len() > 1 {
            let facts = std::mem::take(&mut self.facts);
            let put = self.put(ledger, Tree::Facts, &key(self.facts_first), &facts);
            self.facts = facts;
            put?;
            self.facts_written.push((self.facts_first, self.facts.len()));
            self.facts.truncate(1);
        }
        Ok(())
    }

    /// Writes the pending id fingerprints to the on-disk index (`runs.rs`: a new run, or into
    /// the newest run when that stays small, then the merges of full size classes). In the middle
    /// of a batch (`mid_batch`, more lookups to come) the Bloom filter then covers every
    /// fingerprint on disk: it is rebuilt from all runs when it is missing or would go over its
    /// capacity (sized for 1.5 times the ledger's events, an upper bound on its ids), and
    /// otherwise given the pending fingerprints. At the commit the runs are settled instead
    /// ([`Runs::settle`]: few runs for the lookups of later appends).
    fn spill_ids(&mut self, ledger: &Ledger, mid_batch: bool) -> Result<(), LogError> {
        if !mid_batch && self.defer_ids(ledger)? {
            return Ok(());
        }
        if self.held.is_some() {
            // Not while the append below is being made durable ([`Batch::not_now`]).
            self.not_now = true;
            return Ok(());
        }
        let mut pending: Vec<(u64, u64)> = self.ids.drain();
        pending.append(&mut self.ids_overflow);
        if !mid_batch {
            // The ids earlier commits left out of the index go with this batch's.
            pending.extend(ledger.recent.entries());
        }
        pending.sort_unstable();
        let store = &*ledger.store;
        let mut bits = runs::bits_for_spill(ledger.id_spill);
        if ledger.defer_ids > 0 && !mid_batch {
            // A server's spill of the ids its commits deferred stalls one group: a run of about
            // 64 ids a bucket, not the buckets of a million-id spill, is a few sled writes per
            // hundred ids (docs/PERFORMANCE.md, "Serving").
            bits = bits.min(runs::bits_for_spill(pending.len()));
        }
        // The filter is given the fingerprints before they are written (so that it holds every
        // one on disk even if the writing fails half-way), or dropped when they would take it
        // over its capacity.
        let had = self.bloom.is_some();
        let kept = match self.bloom.as_mut() {
            Some(b) if !b.would_overflow(pending.len()) => {
                for &(fp, _) in &pending {
                    b.insert(fp);
                }
                true
            }
            _ => {
                self.bloom = None;
                false
            }
        };
        if !pending.is_empty() {
            self.ids_on_disk = true;
            self.ids_spilled += pending.len() as u64;
            self.runs.add(store, &pending, bits, self.next_seq)?;
        }
        if !mid_batch {
            self.runs.settle(store, self.ids_spilled, bits, self.next_seq)?;
            if ledger.recent.keyed {
                // Written after the runs (sled keeps a prefix of the writes): every id through
                // this batch's last event is in the index now.
                let through = self.next_seq - 1;
                ledger.store.insert(Tree::Meta, META_IDS_THROUGH, &through.to_be_bytes())?;
            }
            // A filter this batch had is kept for the next append (the ledger keeps it): one
            // that would have gone over its capacity is built again, larger, from every run.
            if had && !kept {
                self.build_bloom(ledger)?;
            }
            return Ok(());
        }
        if !kept {
            self.build_bloom(ledger)?;
        }
        Ok(())
    }

    /// With deferral on ([`Ledger::defer_id_index`]): leaves this batch's ids out of the on-disk
    /// index, for the ledger's memory ([`crate::recent`]), unless the batch spilled some
    /// already or the events since the last spill would pass the limit. The store's mark of
    /// where the index ends is written first (once: it does not move until a spill), before
    /// the head record the commit flushes with it. True when deferred.
    fn defer_ids(&mut self, ledger: &Ledger) -> Result<bool, LogError> {
        let since = (self.next_seq - 1).saturating_sub(ledger.recent.through);
        if ledger.defer_ids == 0 || self.ids_spilled > 0 || since > ledger.defer_ids {
            return Ok(false);
        }
        if !self.ids_keyed {
            let through = ledger.recent.through.to_be_bytes();
            self.put(ledger, Tree::Meta, META_IDS_THROUGH, &through)?;
        }
        self.deferred = true;
        Ok(true)
    }

    /// Builds the Bloom filter from every run, for up to 1.5 times the ledger's events (an upper
    /// bound on its ids) or 1.25 times the entries on disk, whichever is more.
    fn build_bloom(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        let events = usize::try_from(self.next_seq).unwrap_or(usize::MAX);
        let entries = usize::try_from(self.runs.entries()).unwrap_or(usize::MAX);
        let capacity = events.saturating_add(events / 2).max(entries.saturating_add(entries / 4));
        let mut bloom = Bloom::with_capacity(capacity);
        self.runs.for_each_fp(&*ledger.store, |fp| bloom.insert(fp))?;
        self.bloom = Some(bloom);
        Ok(())
    }

    /// Removes what this batch wrote beyond the head. Id entries stay: they are never trusted
    /// without reading the event they name.
    fn abort_writes(&mut self, ledger: &Ledger) -> Result<(), LogError> {
        // No block may be inserted after the removals below.
        let _ = self.stop_blocks();
        for (first, _, _) in &self.written {
            ledger.store.remove(Tree::Events, &key(*first))?;
        }
        for (k, _) in &self.facts_written {
            ledger.store.remove(Tree::Facts, &key(*k))?;
        }
        for k in &self.nodes_written {
            ledger.store.remove(Tree::Nodes, k)?;
        }
        Ok(())
    }

    /// The writes that end a batch: its last block, facts chunk and ids. On failure the caller's
    /// `staged` (which does not hold the batch yet) is dropped, which lets the next append in.
    fn finish_writes(
        &mut self,
        ledger: &Ledger,
        staged: &mut Staged<'_>,
    ) -> Result<(), AppendError> {
        if self.report.appended == 0 {
            return self.stop_blocks().map_err(AppendError::Storage);
        }
        let written = (|| {
            self.seal(ledger)?;
            self.finish_tree(ledger)?;
            self.stop_blocks()?;
            self.write_facts(ledger)?;
            self.spill_ids(ledger, false)
        })();
        if let Err(e) = written {
            let _ = self.abort_writes(ledger);
            staged.batch = None;
            return Err(AppendError::Storage(e));
        }
        Ok(())
    }

    /// The head this batch ends at.
    fn head(&self) -> Head {
        Head { seq: self.next_seq - 1, hash: self.prev }
    }

    /// Makes the batch durable: the commit point, then the head file.
    fn make_durable(&self, ledger: &Ledger) -> Result<(), LogError> {
        make_durable(ledger, self.head())
    }

    /// Gives the id filter back to the ledger for the next append ([`crate::index::IdFilter`]).
    fn give_back_filter(&mut self, ledger: &Ledger) {
        if !std::mem::replace(&mut self.owns_filter, false) {
            return;
        }
        let mut kept = ledger.id_filter.lock().unwrap_or_else(|p| p.into_inner());
        kept.bloom = self.bloom.take();
        kept.probes = self.probes;
    }

    /// Shows the durable batch in the ledger's memory (the head and the in-memory indexes).
    fn publish(mut self, ledger: &mut Ledger) -> AppendReport {
        self.give_back_filter(ledger);
        let head = self.head();
        ledger.head = head;
        ledger.frontier = Some(self.frontier);
        if let Some(players) = ledger.players.get_mut() {
            players.extend(self.new_players);
        }
        ledger.voids.extend(self.new_voids);
        ledger.ticks.extend(self.new_ticks);
        if self.deferred {
            ledger.recent.keyed = true;
            for (fp, seq) in self.ids.drain().into_iter().chain(self.ids_overflow.drain(..)) {
                ledger.recent.insert(fp, seq);
            }
        } else if self.report.appended > 0 {
            // The final spill wrote every deferred id too.
            ledger.recent.clear(head.seq);
        }
        for (first, count, bytes) in self.written {
            if is_small_block(count, bytes) {
                ledger.tail_blocks.push((first, count, bytes));
            } else {
                ledger.tail_blocks.clear();
            }
        }
        for (k, bytes) in self.facts_written {
            if is_small_facts(bytes) {
                ledger.tail_facts.push((k, bytes));
            } else {
                ledger.tail_facts.clear();
            }
        }
        self.report.head = head;
        self.report
    }
}

/// Makes a batch ending at `head`, written beyond the ledger's head, durable: the commit point,
/// then the head file.
fn make_durable(ledger: &Ledger, head: Head) -> Result<(), LogError> {
    // The commit point: the head record after the batch's data, and one flush for both.
    // sled recovers its log in order, stopping at the first torn write (its crash tests check
    // that what survives is a prefix of the writes), so a head record that survives a crash
    // has every write before it with it; one that does not leaves the batch beyond the
    // recovered head, where opening discards it.
    ledger.store.insert(Tree::Meta, META_HEAD, &head_bytes(&head))?;
    ledger.store.flush()?;
    // The head file follows the commit: a crash before it is written leaves a store one batch
    // ahead of it, which the next open accepts (and records).
    if let Some(disk) = &ledger.disk {
        disk.commit(head)?;
    }
    Ok(())
}

/// An append checked and written beyond the head, not durable and not shown to readers
/// ([`Ledger::stage`]). Dropping it removes what it wrote.
pub struct Staged<'l> {
    ledger: &'l Ledger,
    /// `None` once committed or aborted.
    batch: Option<Batch>,
    /// Set by [`Staged::commit`]: the append is no longer this value's to remove.
    committed: bool,
}

impl Staged<'_> {
    /// What the append did (events appended, duplicates, inserted joins and ticks); its `head`
    /// is the head it ends at.
    pub fn report(&self) -> AppendReport {
        match &self.batch {
            Some(b) if b.report.appended > 0 => AppendReport { head: b.head(), ..b.report.clone() },
            Some(b) => AppendReport { head: self.ledger.head, ..b.report.clone() },
            None => AppendReport { head: self.ledger.head, ..AppendReport::default() },
        }
    }

    /// Makes the append durable: the head record written after its data and flushed with it,
    /// sled's log synced, and the head recorded in the head file (docs/GUARANTEES.md, promise
    /// 3). Readers of the ledger still see the old head until [`Ledger::publish`]. A failure
    /// here is [`AppendError::Unconfirmed`]: the append may or may not be durable, and the
    /// handle refuses further appends.
    pub fn commit(mut self) -> Result<Durable, AppendError> {
        let ledger = self.ledger;
        let base = ledger.head;
        let report = self.report();
        let batch = match self.batch.take() {
            Some(b) if b.report.appended > 0 => b,
            other => {
                // Nothing written: nothing to make durable, nothing to publish. The filter goes
                // back, and the next append may start (the drop of `self` lets it in).
                if let Some(mut b) = other {
                    b.give_back_filter(ledger);
                }
                return Ok(Durable { base, report, batch: None });
            }
        };
        self.committed = true;
        if let Err(e) = batch.make_durable(ledger) {
            ledger.poisoned.store(true, Ordering::Release);
            return Err(AppendError::Unconfirmed(e));
        }
        Ok(Durable { base, report, batch: Some(batch) })
    }

    /// [`Staged::commit`], with `meanwhile` run on this thread while the syncs run on another:
    /// it is given what staging the next append on top of this one needs ([`Below`], for
    /// [`Ledger::stage_after`]), or `None` when this one wrote nothing or wrote the id index
    /// (stage the next one after publishing this). The commit's outcome is only known once
    /// both are done; if it failed, the caller drops what `meanwhile` staged.
    pub fn commit_meanwhile<R>(
        mut self,
        meanwhile: impl FnOnce(Option<Below>) -> R,
    ) -> (Result<Durable, AppendError>, R) {
        let lends = self.batch.as_ref().is_some_and(|b| b.report.appended > 0 && b.deferred);
        if !lends {
            let r = meanwhile(None);
            return (self.commit(), r);
        }
        let ledger = self.ledger;
        let base = ledger.head;
        let report = self.report();
        let Some(mut batch) = self.batch.take() else {
            let r = meanwhile(None);
            return (self.commit(), r);
        };
        self.committed = true;
        let below = batch.lend();
        let done = Arc::clone(&below.synced);
        let (synced, r) = std::thread::scope(|scope| {
            let head = batch.head();
            let syncs = std::thread::Builder::new().name("ladder-commit".into()).spawn_scoped(
                scope,
                move || {
                    let synced = make_durable(ledger, head);
                    done.store(true, Ordering::Release);
                    synced
                },
            );
            match syncs {
                Ok(handle) => {
                    let r = meanwhile(Some(below));
                    let synced = match handle.join() {
                        Ok(result) => result,
                        Err(panic) => std::panic::resume_unwind(panic),
                    };
                    (synced, r)
                }
                // No thread for the syncs: they run here, the next append is staged after.
                Err(_) => {
                    let synced = batch.make_durable(ledger);
                    drop(below);
                    (synced, meanwhile(None))
                }
            }
        });
        if let Err(e) = synced {
            ledger.poisoned.store(true, Ordering::Release);
            return (Err(AppendError::Unconfirmed(e)), r);
        }
        (Ok(Durable { base, report, batch: Some(batch) }), r)
    }

    /// Removes what the staged append wrote and lets the next append in.
    fn abort(&mut self) -> Result<(), LogError> {
        let r = match self.batch.take() {
            Some(mut b) => {
                let r = b.abort_writes(self.ledger);
                // Still every fingerprint on disk: this batch's spills stay there as leftovers.
                b.give_back_filter(self.ledger);
                r
            }
            None => Ok(()),
        };
        self.ledger.writing.store(false, Ordering::Release);
        r
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.abort();
        }
    }
}

/// An append staged on top of another being made durable ([`Ledger::stage_after`]): checked,
/// hashed and encoded, its store writes held in memory. [`Ledger::resume`] writes them once the
/// append below is published. Dropping it writes nothing and removes nothing (there is
/// nothing of it in the store); the id filter it holds goes with it (the next append builds it
/// again when it needs one).
pub struct Held {
    /// The head it was staged on: the append below's.
    base: Head,
    batch: Batch,
}

impl Held {
    /// What it does (events appended, duplicates, inserted joins and ticks), and the head it
    /// ends at.
    pub fn report(&self) -> AppendReport {
        let b = &self.batch;
        let head = if b.report.appended > 0 { b.head() } else { self.base };
        AppendReport { head, ..b.report.clone() }
    }
}

/// Where a [`Batch`] starts ([`Batch::starting`]): the head and last instant it builds on, the
/// tree's frontier, the id index and filter, and the overlay of the append below when it is
/// staged on one.
struct Start {
    head: Head,
    last: Option<(Timestamp, bool)>,
    frontier: Frontier,
    runs: Runs,
    bloom: Option<Bloom>,
    probes: u64,
    ids_on_disk: bool,
    ids_keyed: bool,
    below: Option<Box<Overlay>>,
}

/// What an append being made durable lends the append staged on top of it
/// ([`Staged::commit_meanwhile`], [`Ledger::stage_after`]): its head, tree and last instant,
/// the id index and filter, and what it wrote for the lookups.
pub struct Below {
    head: Head,
    last: Option<(Timestamp, bool)>,
    frontier: Frontier,
    overlay: Box<Overlay>,
    runs: Runs,
    bloom: Option<Bloom>,
    probes: u64,
    ids_on_disk: bool,
    ids_keyed: bool,
    /// Set once the syncs of the append below returned, whatever their outcome.
    synced: Arc<std::sync::atomic::AtomicBool>,
}

impl Below {
    /// True once the syncs of the append below have returned (its outcome is then known to
    /// [`Staged::commit_meanwhile`]): a caller gathering input for the next append stops
    /// waiting for more then.
    pub fn is_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }

    /// The instant of the last event of the append below (the ledger's last, if it wrote
    /// nothing): an event stamped by the caller goes no earlier.
    pub fn last_at(&self) -> Option<Timestamp> {
        self.last.map(|(at, _)| at)
    }
}

/// An append made durable ([`Staged::commit`]) and not yet shown to the ledger's readers:
/// [`Ledger::publish`] shows it. Until then the handle takes no other append; dropping it
/// unpublished leaves the handle refusing appends until the ledger is opened again (the events
/// are durable, and the next open finds them).
pub struct Durable {
    /// The head the append was staged on.
    base: Head,
    /// What it did.
    report: AppendReport,
    /// `None` when it wrote nothing (all duplicates): nothing to publish.
    batch: Option<Batch>,
}

impl Durable {
    /// What the append did; its `head` is the head it ends at.
    pub fn report(&self) -> &AppendReport {
        &self.report
    }

    /// The leaf hashes and lines of the events it wrote, once, with
    /// [`Ledger::hand_out_leaves`] on (`None` otherwise, or when it wrote nothing).
    pub fn take_leaves(&mut self) -> Option<NewLeaves> {
        self.batch.as_mut()?.new_leaves.take().filter(|l| !l.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ladder_events::json::parse_line;

    fn at(i: usize) -> String {
        format!("2026-03-01T{:02}:{:02}:{:02}Z", i / 3600, (i / 60) % 60, i % 60)
    }

    fn result(i: usize, first_wins: bool) -> Result<Event, Violation> {
        let (sa, sb) = if first_wins { (1, 0) } else { (0, 1) };
        parse_line(&format!(
            r#"{{"type":"MatchResult","at":"{}","id":"m-{i}","seats":[{{"player":"a","score":{sa}}},{{"player":"b","score":{sb}}}]}}"#,
            at(i)
        ))
    }

    /// Spills every 64 ids, so the on-disk index, its Bloom filter (built, grown and fed) and the
    /// lookups behind it are exercised by a batch of a thousand events.
    #[test]
    fn ids_spilled_mid_batch_are_still_found() {
        let mut l = Ledger::memory();
        l.id_spill = 64;
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        let n = 1000;
        let mut batch: Vec<_> = (1..=n).map(|i| result(i, true)).collect();
        // Later in the same batch: a repeat of a spilled match (a duplicate), and a void of one.
        batch.push(result(5, true));
        batch.push(parse_line(&format!(
            r#"{{"type":"MatchVoided","at":"{}","id":"v-1","match":"m-3","reason":"test"}}"#,
            at(n)
        )));
        let r = l.append(batch, &opts).unwrap();
        assert_eq!((r.appended, r.duplicates, r.auto_joined), (n as u64 + 1 + 2, 1, 2));
        assert_eq!(l.match_seq("m-3").unwrap(), Some(3 + 2), "two joins come first");
        assert_eq!(l.seq_of_id("m-1000").unwrap(), Some(1000 + 2));

        // Again, all of it: every id is found (through the spilled index) and is a duplicate.
        let again: Vec<_> = (1..=n).map(|i| result(i, true)).collect();
        let r = l.append(again, &opts).unwrap();
        assert_eq!((r.appended, r.duplicates), (0, n as u64));

        // A stored id with other content is a conflict, even after many spills in this batch.
        let mut fresh: Vec<_> = (n + 1..=3 * n).map(|i| result(i, true)).collect();
        fresh.push(result(700, false));
        match l.append(fresh, &opts) {
            Err(AppendError::Refused { index, violation }) => {
                assert_eq!((index, violation.rule), (2 * n, Rule::IdConflict));
            }
            other => panic!("expected an id conflict, got {other:?}"),
        }
        assert_eq!(l.head().seq, n as u64 + 3, "the refused batch left nothing");
    }
}

/// Appends through a store that counts the bytes written to the `ids` tree and can fail (as a
/// crash would: every call after the chosen write fails).
#[cfg(test)]
mod spill_tests {
    use super::*;
    use crate::store::{Entry, MemStore, Store, Value, Write};
    use ladder_events::json::parse_line;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    struct Probe {
        inner: Arc<MemStore>,
        /// Bytes of keys and values inserted into the `ids` tree.
        ids_bytes: Arc<AtomicU64>,
        /// Writes (inserts, removes, batches, flushes) done.
        writes: Arc<AtomicU64>,
        /// Every call fails once this many writes are done (`u64::MAX`: never).
        crash_at: u64,
    }

    impl Probe {
        fn alive(&self) -> Result<(), LogError> {
            if self.writes.load(Ordering::SeqCst) >= self.crash_at {
                let detail = "crashed".into();
                return Err(LogError::Corrupt { place: "the test store".into(), detail });
            }
            Ok(())
        }

        fn write(&self) -> Result<(), LogError> {
            self.alive()?;
            self.writes.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    impl Store for Probe {
        fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
            self.alive()?;
            self.inner.get(tree, key)
        }
        fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
            self.write()?;
            if tree == Tree::Ids {
                self.ids_bytes.fetch_add((key.len() + value.len()) as u64, Ordering::SeqCst);
            }
            self.inner.insert(tree, key, value)
        }
        fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
            self.write()?;
            self.inner.remove(tree, key)
        }
        fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
            self.write()?;
            self.inner.apply(tree, writes)
        }
        fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
            self.alive()?;
            self.inner.last_at_or_before(tree, key)
        }
        fn scan<'a>(
            &'a self,
            tree: Tree,
            from: &[u8],
        ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
            match self.alive() {
                Ok(()) => self.inner.scan(tree, from),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        }
        fn flush(&self) -> Result<(), LogError> {
            self.write()
        }
        fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
            Ok(None)
        }
    }

    fn at(i: usize) -> String {
        format!(
            "2026-03-{:02}T{:02}:{:02}:{:02}Z",
            1 + i / 86_400,
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60
        )
    }

    /// Match `i` at second `t`.
    fn result(i: usize, t: usize) -> Result<Event, Violation> {
        parse_line(&format!(
            r#"{{"type":"MatchResult","at":"{}","id":"m-{i}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#,
            at(t)
        ))
    }

    fn opts() -> AppendOptions {
        AppendOptions { auto_join: true, ..AppendOptions::default() }
    }

    /// A ledger over `store` that crashes after `crash_at` writes, and its counters of bytes
    /// written to `ids` and of writes.
    fn ledger(
        store: &Arc<MemStore>,
        spill: usize,
        crash_at: u64,
    ) -> (Ledger, Arc<AtomicU64>, Arc<AtomicU64>) {
        let (ids_bytes, writes) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let probe = Probe {
            inner: store.clone(),
            ids_bytes: ids_bytes.clone(),
            writes: writes.clone(),
            crash_at,
        };
        let mut l = Ledger::with_store(Box::new(probe), None).unwrap();
        l.id_spill = spill;
        (l, ids_bytes, writes)
    }

    /// Bytes written to `ids` by one batch of `n` new ids into an empty ledger, spilling every
    /// `spill`; also checks the batch's index holds every id once.
    fn bytes_for(n: usize, spill: usize) -> u64 {
        let store = Arc::new(MemStore::new());
        let (mut l, bytes, _) = ledger(&store, spill, u64::MAX);
        let r = l.append((0..n).map(|i| result(i, i)), &opts()).unwrap();
        assert_eq!(r.appended, n as u64 + 2);
        let runs = Runs::load(&*l.store, l.head.seq).unwrap();
        assert_eq!(runs.entries(), n as u64, "every id once, nothing more");
        assert!(runs.live.len() <= runs::COMMIT_RUNS, "{:?}", runs.live);
        bytes.load(Ordering::SeqCst)
    }

    /// The bytes a batch writes to the index grow like N log N, not N^2.
    ///
    /// With spills of S ids, each entry is written once by its spill (a new run: the newest run
    /// has 4 buckets, too few to take 256 entries in place), then once per merge of its run: a
    /// merge joins 4 runs of one class (each of at least 4^c entries) into one of at least
    /// 4^(c+1), so an entry is merged at most log4(N / S) + 1 times, and the commit's settling
    /// rewrites at most 2 N entries. So bytes <= 16 N (4 + log4(N / S)) plus the bucket keys and
    /// format bytes (at most 8 bytes per bucket written, as many as entries at worst) and the
    /// directory (under 200 bytes per write here, at most 3 writes per spill or merge). The
    /// quadratic layout this replaced rewrote the whole index at each spill:
    /// 16 S (1 + 2 + ... + N / S) = 8 N (N / S + 1) bytes, 8 times as many at 8 N for 64 times.
    #[test]
    fn index_bytes_grow_like_n_log_n() {
        let spill = 256;
        let n = 4096;
        let small = bytes_for(n, spill);
        let large = bytes_for(8 * n, spill);
        let bound = |m: usize| {
            let log4 = ((m / spill) as f64).log(4.0);
            let spills_and_merges = 2.0 * (m / spill) as f64;
            (16.0 + 8.0) * m as f64 * (4.0 + log4) + 3.0 * 200.0 * spills_and_merges
        };
        for (m, b) in [(n, small), (8 * n, large)] {
            assert!(b >= 16 * m as u64, "every entry is written at least once: {b} bytes for {m}");
            assert!((b as f64) < bound(m), "{b} bytes for {m} ids, bound {}", bound(m));
            // The layout before runs: 8 N (N / S + 1) bytes of entries alone.
            let quadratic = 8 * m as u64 * (m / spill) as u64;
            if m == 8 * n {
                assert!(b * 4 < quadratic, "{b} bytes, the old layout {quadratic}");
            }
        }
        // N log N from N to 8 N: 8 (4 + log4(8 N / S)) / (1 + log4(N / S)) at most, 8 * 7.5 / 3
        // = 20 here (the bound over the least a batch writes, one write per entry); a quadratic
        // growth would be 64.
        let ratio = large as f64 / small as f64;
        assert!(ratio < 20.0, "from {n} to {} ids the bytes grew {ratio:.1} times", 8 * n);
    }

    /// Many spills in one batch and across batches: duplicates within the batch, across batches,
    /// a conflict found in a run written by an earlier spill, and a re-import all duplicates.
    #[test]
    fn a_batch_spilling_many_times_finds_every_duplicate() {
        let store = Arc::new(MemStore::new());
        let (mut l, _, _) = ledger(&store, 16, u64::MAX);
        let n = 3000;
        // Every 7th match repeats one from about a fifth of the batch before (many spills ago),
        // of an index that is a multiple of 7 (so itself not a repeat).
        let batch: Vec<_> = (0..n)
            .map(|t| if t % 7 == 6 { result(t * 4 / 35 * 7, t * 4 / 35 * 7) } else { result(t, t) })
            .collect();
        let dups = (0..n).filter(|t| t % 7 == 6).count() as u64;
        let r = l.append(batch.clone(), &opts()).unwrap();
        assert_eq!((r.appended, r.duplicates), ((n as u64 - dups) + 2, dups));
        for i in (0..n).filter(|t| t % 7 != 6) {
            assert!(l.seq_of_id(&format!("m-{i}")).unwrap().is_some(), "m-{i} is indexed");
        }
        // The same file again: all duplicates (the joins by content).
        let r = l.append(batch, &opts()).unwrap();
        assert_eq!((r.appended, r.duplicates), (0, n as u64));
        // A second batch without spills (as a later import shorter than a spill): its lookups
        // build the Bloom filter once they have read enough buckets, and it still finds the old
        // ids: new ids after old ones, then one old id with other content.
        l.id_spill = ID_SPILL;
        let mut next: Vec<_> = (0..n).map(|i| result(n + i, n + i)).collect();
        next.extend((0..n).step_by(13).filter(|t| t % 7 != 6).map(|i| result(i, i)));
        let r = l.append(next.clone(), &opts()).unwrap();
        assert_eq!(r.duplicates, (0..n).step_by(13).filter(|t| t % 7 != 6).count() as u64);
        let conflict = parse_line(&format!(
            r#"{{"type":"MatchResult","at":"{}","id":"m-5","seats":[{{"player":"b","score":1}},{{"player":"a","score":0}}]}}"#,
            at(3 * n)
        ));
        next.push(conflict);
        match l.append(next, &opts()) {
            Err(AppendError::Refused { violation, .. }) => {
                assert_eq!(violation.rule, Rule::IdConflict)
            }
            other => panic!("expected an id conflict, got {other:?}"),
        }
    }

    /// A crash at every few writes of a batch that spills many times (into runs, through merges)
    /// leaves an index that gives the right answers: after reopening, every committed id is found
    /// and the input appended again stores each id exactly once.
    #[test]
    fn a_crash_between_spills_leaves_a_correct_index() {
        let n = 600;
        let input: Vec<_> = (0..n).map(|i| result(i, i)).collect();
        let first: Vec<_> = input[..n / 2].to_vec();
        // The writes of the uninterrupted second append.
        let writes = {
            let store = Arc::new(MemStore::new());
            let (mut l, _, _) = ledger(&store, 16, u64::MAX);
            l.append(first.clone(), &opts()).unwrap();
            drop(l);
            let (mut l, _, writes) = ledger(&store, 16, u64::MAX);
            l.append(input.clone(), &opts()).unwrap();
            writes.load(Ordering::SeqCst)
        };
        assert!(writes > 100, "{writes} writes");
        for crash_after in (1..writes).step_by(2) {
            let store = Arc::new(MemStore::new());
            let (mut l, _, _) = ledger(&store, 16, u64::MAX);
            l.append(first.clone(), &opts()).unwrap();
            drop(l);
            let (mut l, _, _) = ledger(&store, 16, crash_after);
            assert!(l.append(input.clone(), &opts()).is_err(), "crash after {crash_after} writes");
            drop(l);
            let (mut l, _, _) = ledger(&store, 16, u64::MAX);
            let committed = l.head().seq;
            for i in 0..n {
                let seq = l.seq_of_id(&format!("m-{i}")).unwrap();
                assert_eq!(
                    seq.is_some(),
                    (i as u64 + 3) <= committed,
                    "m-{i}, crash {crash_after}"
                );
            }
            let r = l.append(input.clone(), &opts()).unwrap();
            assert_eq!(r.duplicates + r.appended, n as u64, "crash after {crash_after}");
            assert_eq!(l.head().seq, n as u64 + 2);
            let r = l.append(input.clone(), &opts()).unwrap();
            assert_eq!((r.appended, r.duplicates), (0, n as u64), "crash after {crash_after}");
        }
    }

    /// A batch without a spill builds its Bloom filter once its lookups have read a bucket for
    /// every [`BLOOM_AFTER`] entries (at least 1,024), and then still finds every stored id.
    #[test]
    fn lookups_without_a_filter_build_one_and_still_find_everything() {
        let store = Arc::new(MemStore::new());
        let (mut l, _, _) = ledger(&store, 16, u64::MAX);
        let n = 2000;
        l.append((0..n).map(|i| result(i, i)), &opts()).unwrap();
        // As a ledger just opened: no filter kept from the append above.
        *l.id_filter.lock().unwrap() = crate::index::IdFilter::default();
        let mut batch = Batch::new(&l, opts()).unwrap();
        let runs = batch.runs.live.len() as u64;
        assert!(runs >= 1 && batch.ids_on_disk);
        let before = 1024u64.div_ceil(runs);
        for i in 0..before - 1 {
            assert!(batch.find_id(&l, &format!("new-{i}")).unwrap().is_none());
        }
        assert!(batch.bloom.is_none(), "{} lookups of {runs} runs: no filter yet", before - 1);
        assert!(batch.find_id(&l, "new-last").unwrap().is_none());
        assert!(batch.bloom.is_some(), "{before} lookups of {runs} runs build the filter");
        for i in 0..n {
            let (seq, e) = batch.find_id(&l, &format!("m-{i}")).unwrap().unwrap();
            assert_eq!((seq, e.id), (i as u64 + 3, Some(format!("m-{i}"))));
        }
    }

    /// A ledger whose `ids` tree is in the layout before runs (2-byte bucket keys, no directory)
    /// finds its ids, takes a re-import as duplicates, and grows runs beside run 0.
    #[test]
    fn a_ledger_from_before_runs_opens_and_finds_its_ids() {
        let store = Arc::new(MemStore::new());
        let (mut l, _, _) = ledger(&store, 16, u64::MAX);
        let n = 500;
        l.append((0..n).map(|i| result(i, i)), &opts()).unwrap();
        drop(l);
        // Rewrite the index as the layout before runs: every id of the stored events in its
        // 14-bit bucket, then nothing else in the tree.
        let old: Vec<Vec<u8>> = store.scan(Tree::Ids, &[]).map(|e| e.unwrap().0.to_vec()).collect();
        for k in old {
            store.remove(Tree::Ids, &k).unwrap();
        }
        let mut entries: Vec<(u64, u64)> =
            (0..n).map(|i| (index::fingerprint(&format!("m-{i}")), i as u64 + 3)).collect();
        entries.sort_unstable();
        for e in &entries {
            let key = index::bucket_key(e.0);
            let v = store.get(Tree::Ids, &key).unwrap();
            let merged = index::merge_bucket(&key, v.as_deref(), &[*e]).unwrap();
            store.insert(Tree::Ids, &key, &merged).unwrap();
        }
        let (mut l, _, _) = ledger(&store, 16, u64::MAX);
        for i in 0..n {
            assert_eq!(l.seq_of_id(&format!("m-{i}")).unwrap(), Some(i as u64 + 3));
        }
        let r = l.append((0..n).map(|i| result(i, i)), &opts()).unwrap();
        assert_eq!((r.appended, r.duplicates), (0, n as u64));
        // New ids spill into run 0's buckets in place (it averages under one entry a bucket, as
        // before runs); `runs.rs` tests new runs beside run 0 and merging it. Old and new ids
        // are all found.
        let r = l.append((n..4 * n).map(|i| result(i, i)), &opts()).unwrap();
        assert_eq!(r.appended, 3 * n as u64);
        let runs = Runs::load(&*l.store, l.head.seq).unwrap();
        assert_eq!(runs.live.len(), 1);
        assert_eq!((runs.live[0].number, runs.live[0].bits), (0, 14));
        let r = l.append((0..4 * n).map(|i| result(i, i)), &opts()).unwrap();
        assert_eq!((r.appended, r.duplicates), (0, 4 * n as u64));
        for i in (0..4 * n).step_by(37) {
            assert_eq!(l.seq_of_id(&format!("m-{i}")).unwrap(), Some(i as u64 + 3));
        }
        // A format this build does not know is refused, naming it.
        drop(l);
        store.insert(Tree::Meta, crate::ledger::META_FORMAT, &[5]).unwrap();
        let probe = Probe {
            inner: store.clone(),
            ids_bytes: Arc::new(AtomicU64::new(0)),
            writes: Arc::new(AtomicU64::new(0)),
            crash_at: u64::MAX,
        };
        let refused = Ledger::with_store(Box::new(probe), None).map(drop);
        let message = refused.expect_err("format 5 is refused").to_string();
        assert!(message.contains("unknown ledger format [5]"), "{message}");
    }

    /// The filter an append built is kept for the next (no bucket is read for a new id), holds
    /// every id written since (each later append finds its duplicates through it), survives a
    /// refused append, and is built again, larger, when it would go over its capacity.
    #[test]
    fn the_filter_is_kept_from_one_append_to_the_next() {
        let store = Arc::new(MemStore::new());
        let (mut l, _, _) = ledger(&store, 16, u64::MAX);
        let n = 2000;
        l.append((0..n).map(|i| result(i, i)), &opts()).unwrap();
        assert!(l.id_filter.lock().unwrap().bloom.is_some(), "the spills built it, and it is kept");
        let mut t = n;
        for round in 0..40 {
            // New ids, then the same again: every one a duplicate, found through the filter.
            let fresh: Vec<_> = (t..t + 10).map(|i| result(i, i)).collect();
            let r = l.append(fresh.clone(), &opts()).unwrap();
            assert_eq!(r.appended, 10, "round {round}");
            let r = l.append(fresh, &opts()).unwrap();
            assert_eq!((r.appended, r.duplicates), (0, 10), "round {round}");
            if round == 20 {
                // A refused append (its spill stays on disk as a leftover) gives it back.
                let mut bad: Vec<_> = (t + 10..t + 30).map(|i| result(i, i)).collect();
                bad.push(result(0, 0).map(|mut e| {
                    e.at = ladder_events::Timestamp(0);
                    e.id = Some("late".into());
                    e
                }));
                assert!(l.append(bad, &opts()).is_err());
                assert!(l.id_filter.lock().unwrap().bloom.is_some());
            }
            t += 30;
        }
        assert!(l.id_filter.lock().unwrap().bloom.is_some(), "kept through every append");
        for i in 0..n {
            let r = l.append([result(i, i)], &opts()).unwrap();
            assert_eq!(r.duplicates, 1, "m-{i}");
        }
    }

    #[test]
    fn replicate_stores_every_event_as_given_or_refuses_the_batch() {
        let line = |s: &str| parse_line(s).unwrap();
        let join = |p: &str| {
            line(&format!(
                r#"{{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"{p}"}}"#
            ))
        };
        let game = line(
            r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}"#,
        );
        // The copied log stored the same id-less result twice at one instant (two in one batch,
        // one of them matched to a stored copy): append would skip the second, replicate keeps it.
        let mut source = Ledger::memory();
        source
            .append([Ok(join("a")), Ok(join("b")), Ok(game.clone())], &AppendOptions::default())
            .unwrap();
        source.append([Ok(game.clone()), Ok(game.clone())], &AppendOptions::default()).unwrap();
        assert_eq!(source.head().seq, 4);
        let events: Vec<Event> = source.events(1).map(|e| e.unwrap().event).collect();
        let mut copy = Ledger::memory();
        copy.replicate(events[..3].iter().cloned().map(Ok)).unwrap();
        let r = copy.replicate(events[3..].iter().cloned().map(Ok)).unwrap();
        assert_eq!((r.appended, r.duplicates), (1, 0));
        assert_eq!(copy.head(), source.head());
        assert_eq!(copy.root().unwrap(), source.root().unwrap());
        // A second copy of a join is refused (append would skip it), and nothing is stored.
        let before = copy.head();
        match copy.replicate([Ok(game.clone()), Ok(join("a"))]) {
            Err(AppendError::Refused { index: 1, violation }) => {
                assert_eq!(violation.rule, Rule::JoinedTwice)
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(copy.head(), before);
    }

    /// A store whose `fail_at`-th insert into the `events` tree fails (every other call works).
    struct FailEvents {
        inner: Arc<MemStore>,
        inserts: AtomicU64,
        fail_at: u64,
    }

    impl Store for FailEvents {
        fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
            self.inner.get(tree, key)
        }
        fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
            if tree == Tree::Events
                && self.inserts.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at
            {
                let detail = "this insert fails".into();
                return Err(LogError::Corrupt { place: "the test store".into(), detail });
            }
            self.inner.insert(tree, key, value)
        }
        fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
            self.inner.remove(tree, key)
        }
        fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
            self.inner.apply(tree, writes)
        }
        fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
            self.inner.last_at_or_before(tree, key)
        }
        fn scan<'a>(
            &'a self,
            tree: Tree,
            from: &[u8],
        ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
            self.inner.scan(tree, from)
        }
        fn flush(&self) -> Result<(), LogError> {
            self.inner.flush()
        }
        fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
            Ok(None)
        }
    }

    #[test]
    fn a_block_the_bulk_writer_fails_to_insert_refuses_the_append_and_leaves_nothing() {
        // 2,000 results take about 30 blocks, so the failing insert is one the block writer
        // does while the ledger's thread goes on (the first, the third, the twentieth), or the
        // batch's last block (sealed at the end).
        let n = 2000;
        let first = || (0..50).map(|i| result(i, i)).map(|r| r.and_then(Checked::new));
        let bulk = || (50..n).map(|i| result(i, i)).map(|r| r.and_then(Checked::new));
        let mut plain = Ledger::memory();
        plain.append(first().map(|r| r.map(Checked::into_event)), &opts()).unwrap();
        let base = (plain.head(), plain.root().unwrap());
        plain.append(bulk().map(|r| r.map(Checked::into_event)), &opts()).unwrap();
        let blocks_of_bulk = {
            let store = Arc::new(MemStore::new());
            let (mut l, _, _) = ledger(&store, ID_SPILL, u64::MAX);
            l.append(first().map(|r| r.map(Checked::into_event)), &opts()).unwrap();
            let before = store.scan(Tree::Events, &[]).count() as u64;
            l.append_returning(bulk(), &opts(), drop).unwrap();
            assert_eq!((l.head(), l.root().unwrap()), (plain.head(), plain.root().unwrap()));
            store.scan(Tree::Events, &[]).count() as u64 - before
        };
        assert!(blocks_of_bulk > 20, "{blocks_of_bulk} blocks");
        for fail_at in [1, 3, 20, blocks_of_bulk] {
            let inner = Arc::new(MemStore::new());
            let store = FailEvents { inner: inner.clone(), inserts: AtomicU64::new(0), fail_at: 0 };
            let mut l = Ledger::with_store(Box::new(store), None).unwrap();
            l.append(first().map(|r| r.map(Checked::into_event)), &opts()).unwrap();
            assert_eq!((l.head(), l.root().unwrap()), base);
            let events_before: Vec<_> =
                inner.scan(Tree::Events, &[]).map(|e| e.unwrap().0.to_vec()).collect();
            // The same ledger, its store now failing the bulk append's `fail_at`-th block.
            drop(l);
            let store = FailEvents { inner: inner.clone(), inserts: AtomicU64::new(0), fail_at };
            let mut l = Ledger::with_store(Box::new(store), None).unwrap();
            assert_eq!((l.head(), l.root().unwrap()), base);
            match l.append_returning(bulk(), &opts(), drop) {
                Err(AppendError::Storage(LogError::Corrupt { detail, .. })) => {
                    assert_eq!(detail, "this insert fails", "block {fail_at}")
                }
                other => panic!("block {fail_at}: {other:?}"),
            }
            assert_eq!((l.head(), l.root().unwrap()), base, "block {fail_at}");
            let events_after: Vec<_> =
                inner.scan(Tree::Events, &[]).map(|e| e.unwrap().0.to_vec()).collect();
            assert_eq!(events_after, events_before, "block {fail_at}: no block left behind");
        }
    }

    #[test]
    fn stage_checked_stores_what_stage_stores() {
        // 2,000 results (about 30 blocks, most inserted by the block writer), a duplicate by
        // id, auto-joined players: staged, committed and published both ways.
        let input = || {
            let mut v: Vec<Result<Event, Violation>> =
                (0..2000).map(|i| result(i, i * 40)).collect();
            v.push(result(5, 5 * 40));
            v
        };
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        // Both hand out their leaves: the bulk stage's come from its tree's thread.
        let mut plain = Ledger::memory();
        plain.hand_out_leaves(true);
        let mut durable = plain.stage(input(), &opts).unwrap().commit().unwrap();
        let want_leaves = durable.take_leaves().unwrap();
        let want = plain.publish(durable).unwrap();
        let mut bulk = Ledger::memory();
        bulk.hand_out_leaves(true);
        let checked = || input().into_iter().map(|item| item.and_then(Checked::new));
        let mut durable = bulk.stage_checked(checked(), &opts).unwrap().commit().unwrap();
        assert_eq!(durable.take_leaves().unwrap(), want_leaves);
        let got = bulk.publish(durable).unwrap();
        assert_eq!(got, want);
        assert_eq!((bulk.head(), bulk.root().unwrap()), (plain.head(), plain.root().unwrap()));
        // The stored subtrees the tree's thread completed are the plain stage's (verify
        // recomputes the tree from the events and compares every stored node).
        assert_eq!(bulk.verify(None).unwrap(), plain.head());
        let stored = |l: &Ledger| l.events(1).map(|e| e.unwrap().event).collect::<Vec<_>>();
        assert_eq!(stored(&bulk), stored(&plain));
        // A refused stage stores nothing, and the next one is let in.
        let before = (bulk.head(), bulk.root().unwrap());
        let late = vec![result(3000, 3000 * 40), result(3001, 10)];
        let late = late.into_iter().map(|item| item.and_then(Checked::new));
        assert!(matches!(
            bulk.stage_checked(late, &opts),
            Err(AppendError::Refused { index: 1, .. })
        ));
        assert_eq!((bulk.head(), bulk.root().unwrap()), before);
        let next = vec![result(3000, 3000 * 40)].into_iter().map(|i| i.and_then(Checked::new));
        let durable = bulk.stage_checked(next, &opts).unwrap().commit().unwrap();
        assert_eq!(bulk.publish(durable).unwrap().appended, 1);
    }

    #[test]
    fn append_returning_stores_what_append_stores_and_hands_back_every_event_written() {
        // Auto-joined players and inserted ticks (written by the batch itself), a duplicate by id
        // (not written), a void, and results over three days.
        let line = |s: &str| parse_line(s);
        let input = || {
            let mut v: Vec<Result<Event, Violation>> =
                (0..300).map(|i| result(i, i * 700)).collect();
            v.push(result(5, 5 * 700));
            v.push(line(&format!(
                r#"{{"type":"MatchVoided","at":"{}","match":"m-7","reason":"entered twice"}}"#,
                at(300 * 700)
            )));
            v
        };
        let opts = AppendOptions { auto_join: true, ticks: true, ..AppendOptions::default() };
        let mut plain = Ledger::memory();
        let want = plain.append(input(), &opts).unwrap();
        let mut returning = Ledger::memory();
        let mut back = Vec::new();
        let checked = || input().into_iter().map(|item| item.and_then(Checked::new));
        let got = returning.append_returning(checked(), &opts, |e| back.push(e)).unwrap();
        assert_eq!(got.appended, want.appended);
        assert_eq!((got.duplicates, got.auto_joined, got.ticks_inserted), (1, 2, 2));
        assert_eq!(
            (returning.head(), returning.root().unwrap()),
            (plain.head(), plain.root().unwrap())
        );
        // Every event written is handed back once, in seq order, as stored.
        let stored: Vec<Event> = plain.events(1).map(|e| e.unwrap().event).collect();
        assert_eq!(back, stored);
        // A refused batch stores nothing, whatever it handed back.
        let before = (returning.head(), returning.root().unwrap());
        let late = vec![result(1000, 400 * 700), result(1001, 10)];
        let late = late.into_iter().map(|item| item.and_then(Checked::new));
        assert!(returning.append_returning(late, &opts, drop).is_err());
        assert_eq!((returning.head(), returning.root().unwrap()), before);
    }

    #[test]
    fn prepared_events_store_what_append_stores() {
        // Events made with their hashes from their lines (`Prepared::new`, what `ladder import`'s
        // parsing workers do): results with ids over three days (auto-joins and ticks written by
        // the batch itself, with hashes of its own), a duplicate by id within the batch, an event
        // without an id, and a line not in canonical form (serde_json's path).
        let mut lines: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    r#"{{"type":"MatchResult","at":"{}","id":"m-{i}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#,
                    at(i * 700)
                )
            })
            .collect();
        lines.push(lines[5].clone());
        lines.push(format!(
            r#"{{ "at": "{}", "type": "MatchResult", "seats": [{{"score": 0.5, "player": "b"}}, {{"player": "a", "score": 0.5}}] }}"#,
            at(300 * 700)
        ));
        let opts = AppendOptions { auto_join: true, ticks: true, ..AppendOptions::default() };
        let mut plain = Ledger::memory();
        let want = plain.append(lines.iter().map(|l| parse_line(l)), &opts).unwrap();
        let prepared = || {
            let mut buf = Vec::new();
            lines
                .iter()
                .map(|l| json::parse_lined(l, &mut buf).map(Prepared::new))
                .collect::<Vec<_>>()
        };
        let mut bulk = Ledger::memory();
        let got = bulk.append_returning(prepared(), &opts, drop).unwrap();
        assert_eq!(
            (got.appended, got.duplicates, got.auto_joined, got.ticks_inserted),
            (want.appended, 1, 2, 2)
        );
        assert_eq!((bulk.head(), bulk.root().unwrap()), (plain.head(), plain.root().unwrap()));
        // Every leaf is the event's: an inclusion proof of each checks against the root from
        // the leaf hash of its stored canonical line.
        let root = bulk.root().unwrap();
        for seq in 1..=bulk.head().seq {
            let event = bulk.get(seq).unwrap().unwrap().event;
            let mut line = Vec::new();
            json::write_line(&event, &mut line);
            let size = bulk.head().seq;
            let proof = bulk.prove_inclusion(seq, size).unwrap();
            let leaf = ladder_proof::leaf_hash(&line);
            let checked = ladder_proof::verify_inclusion(seq - 1, size, &leaf, &proof.path, &root);
            assert!(checked.is_ok(), "seq {seq}");
        }
        // The fingerprints find the stored ids: the same input again is all duplicates (the
        // line without an id by its content), and an id given other content is refused.
        let again = bulk.append_returning(prepared(), &opts, drop).unwrap();
        assert_eq!((again.appended, again.duplicates), (0, 302));
        let mut buf = Vec::new();
        let conflict = lines[7].replace(r#""score":1"#, r#""score":0.75"#);
        let conflict = json::parse_lined(&conflict, &mut buf).map(Prepared::new);
        match bulk.append_returning([conflict], &opts, drop) {
            Err(AppendError::Refused { violation, .. }) => {
                assert_eq!(violation.rule, Rule::IdConflict)
            }
            other => panic!("{other:?}"),
        }
    }
}
