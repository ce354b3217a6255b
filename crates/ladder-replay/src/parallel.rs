//! The fast replay: reading and folding at the same time, and several configurations in one pass.
//!
//! One thread reads the history in place and packs events into chunks of steps, a second interns
//! their names (once, however many configurations), and the configurations are split into groups,
//! each folding on its own thread while the others prepare the next chunks. Every projector still sees every step in order, so the
//! result is bit-identical to [`crate::replay`] (a test checks it).

use crate::activity::Activity;
use crate::score::{outcome, Score};
use crate::{History, ReplayError, Replayed, Until};
use ladder_events::codec::{self, BodyView, EventView};
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    sides_into, Input, PlayerId, ProjectError, Projector, Roster, SeatIn, Step,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Events per chunk: large enough that handing a chunk over costs little, small enough that a
/// chunk stays in cache.
const CHUNK: usize = 8192;

/// Chunks read ahead of the slowest group: enough to ride out a slow block read, few enough that
/// memory stays small.
const QUEUE: usize = 4;

#[derive(Clone, Copy)]
enum Owned {
    Joined(PlayerId, Prior),
    Match(usize, usize),
    Tick,
    Timeout(PlayerId),
}

struct Item {
    seq: u64,
    at: Timestamp,
    input: Owned,
}

/// Which player field a name in [`Chunk::names`] fills in.
#[derive(Clone, Copy)]
enum Slot {
    /// `seats[i].player`.
    Seat(usize),
    /// The player of `items[i]` (a join or a timeout).
    Item(usize),
}

/// A run of steps. The reader fills it with every player name written out (`names`, ending at
/// each `refs` offset) and placeholder ids; [`Chunk::resolve`] then interns the names and writes
/// the ids where `refs` says, so the reader never waits on the roster.
struct Chunk {
    items: Vec<Item>,
    seats: Vec<SeatIn>,
    names: String,
    refs: Vec<(usize, Slot)>,
}

/// How many steps ahead a fold reads the players' records ([`Projector::prefetch`]): far enough
/// for the memory reads to arrive, near enough that they are still cached when used.
const AHEAD: usize = 16;

/// The id a step holds until [`Chunk::resolve`] writes the real one.
const UNRESOLVED: PlayerId = PlayerId(u32::MAX);

/// Names touched at a time before they are interned: enough cache misses in flight to overlap,
/// few enough that the touched slots are still in the cache when they are read.
const TOUCH: usize = 64;

impl Chunk {
    /// An empty chunk with room for [`CHUNK`] two-seat matches, so filling it does not reallocate.
    fn new() -> Chunk {
        Chunk {
            items: Vec::with_capacity(CHUNK),
            seats: Vec::with_capacity(2 * CHUNK),
            names: String::with_capacity(16 * CHUNK),
            refs: Vec::with_capacity(2 * CHUNK),
        }
    }

    fn name(&mut self, name: &str, slot: Slot) {
        self.names.push_str(name);
        self.refs.push((self.names.len(), slot));
    }

    /// Adds the step of `event` (sequence number `seq`), unless projectors skip it: a MatchVoided,
    /// or a MatchResult whose id satisfies `is_voided` (as [`ladder_projector::Feeder::step`]).
    fn push(
        &mut self,
        seq: u64,
        event: &EventView<'_>,
        is_voided: &dyn Fn(&str) -> bool,
        sides: &mut Vec<u32>,
    ) {
        let input = match event.body {
            BodyView::PlayerJoined { player, prior } => {
                self.name(player, Slot::Item(self.items.len()));
                Owned::Joined(UNRESOLVED, prior)
            }
            BodyView::QueueTimeout { player } => {
                self.name(player, Slot::Item(self.items.len()));
                Owned::Timeout(UNRESOLVED)
            }
            BodyView::MidnightTick => Owned::Tick,
            BodyView::MatchVoided { .. } => return,
            BodyView::MatchResult { seats } => {
                if event.id.is_some_and(is_voided) {
                    return;
                }
                sides_into(seats.iter(), sides);
                let start = self.seats.len();
                for (seat, &side) in seats.iter().zip(sides.iter()) {
                    self.name(seat.player, Slot::Seat(self.seats.len()));
                    self.seats.push(SeatIn {
                        player: UNRESOLVED,
                        score: seat.score,
                        side,
                        seconds: seat.seconds,
                    });
                }
                Owned::Match(start, self.seats.len())
            }
        };
        self.items.push(Item { seq, at: event.at, input });
    }

    /// Notes when each seat of the chunk's matches played (after [`Chunk::resolve`]).
    fn note(&self, activity: &mut Activity) {
        for item in &self.items {
            if let Owned::Match(a, b) = item.input {
                for seat in &self.seats[a..b] {
                    activity.played(seat.player, item.at);
                }
            }
        }
    }

    /// Interns every name in order (so ids are handed out in order of first appearance, as
    /// [`crate::replay`] does) and writes the ids into the steps. Each run of [`TOUCH`] names is
    /// touched first ([`Roster::touch`]), so the roster's cache misses overlap.
    fn resolve(&mut self, roster: &mut Roster) {
        let mut start = 0;
        for run in self.refs.chunks(TOUCH) {
            let mut from = start;
            for &(end, _) in run {
                roster.touch(&self.names[from..end]);
                from = end;
            }
            for &(end, slot) in run {
                let id = roster.intern(&self.names[start..end]);
                start = end;
                match slot {
                    Slot::Seat(i) => self.seats[i].player = id,
                    Slot::Item(i) => {
                        if let Owned::Joined(p, _) | Owned::Timeout(p) = &mut self.items[i].input {
                            *p = id;
                        }
                    }
                }
            }
        }
    }

    fn fold(
        &self,
        projectors: &mut [&mut (dyn Projector + Send)],
        scores: &mut [Score],
    ) -> Result<(), ProjectError> {
        for (k, item) in self.items.iter().enumerate() {
            // The players of the step AHEAD steps on are read now, so their records are in the
            // cache when that step comes (Projector::prefetch).
            if let Some(Owned::Match(a, b)) = self.items.get(k + AHEAD).map(|i| i.input) {
                for seat in &self.seats[a..b] {
                    projectors.iter().for_each(|p| p.prefetch(seat.player));
                }
            }
            let (input, predict) = match item.input {
                Owned::Joined(player, prior) => (Input::Joined { player, prior }, None),
                Owned::Match(a, b) => {
                    let seats = &self.seats[a..b];
                    // A two-seat match is predicted before it is applied.
                    let predict = match seats {
                        [x, y] => Some((x.player, y.player, outcome(x.score, y.score))),
                        _ => None,
                    };
                    (Input::Match { seats }, predict)
                }
                Owned::Tick => (Input::Tick, None),
                Owned::Timeout(player) => (Input::Timeout { player }, None),
            };
            let step = Step { seq: item.seq, at: item.at, input };
            for (i, p) in projectors.iter_mut().enumerate() {
                if let (Some((a, b, y)), Some(s)) = (predict, scores.get_mut(i)) {
                    s.record(p.expectation(a, b, item.at), y);
                }
                p.apply(&step, None)?;
            }
        }
        Ok(())
    }
}

/// Folds the history through `until` into every projector, decoding each event once, and checks
/// that each settles at the end. With `warmup`, scores predictions as [`crate::replay`] does.
///
/// A pipeline of threads: the calling thread reads the stored bytes
/// ([`History::records_from`]), reads each event in place ([`ladder_events::codec::view`]) and
/// packs its step into a chunk with the player names written out; a second thread interns the
/// names of each chunk; and the projectors, split into up to `threads` groups, fold the chunks
/// on their own threads. Bounded queues join the stages, so every stage works at once and memory
/// stays a few chunks. Every projector still sees every step in order, names get their ids in
/// order of first appearance, and a projector's error at the earliest event is the one reported,
/// so the result is that of [`crate::replay`] exactly (tests check it).
pub fn replay_parallel(
    history: &dyn History,
    projectors: &mut [&mut (dyn Projector + Send)],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
) -> Result<Replayed, ReplayError> {
    let threads = threads.clamp(1, projectors.len().max(1));
    let mut scores: Vec<Score> = match warmup {
        Some(n) => projectors.iter().map(|_| Score::new(n)).collect(),
        None => Vec::new(),
    };
    let per = projectors.len().div_ceil(threads).max(1);
    let any_voids = !history.voids().is_empty();
    let is_voided = |id: &str| {
        any_voids && history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at))
    };
    let (mut through, mut head, mut last_at) = (0, [0u8; 32], None);
    let failed = AtomicBool::new(false);

    let mut score_groups: Vec<&mut [Score]> = if scores.is_empty() {
        projectors.chunks(per).map(|_| &mut [][..]).collect()
    } else {
        scores.chunks_mut(per).collect()
    };
    let (read, (roster, activity), folds) = std::thread::scope(|s| {
        let mut queues = Vec::new();
        let mut handles = Vec::new();
        for (ps, sc) in projectors.chunks_mut(per).zip(score_groups.iter_mut()) {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Arc<Chunk>>(QUEUE);
            queues.push(tx);
            let failed = &failed;
            handles.push(s.spawn(move || {
                for chunk in rx {
                    if let Err(e) = chunk.fold(ps, sc) {
                        failed.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                Ok(())
            }));
        }
        let (to_interner, interner_rx) = std::sync::mpsc::sync_channel::<Chunk>(QUEUE);
        let interner = s.spawn(move || {
            let mut roster = Roster::new();
            let mut activity = Activity::new();
            for mut chunk in interner_rx {
                chunk.resolve(&mut roster);
                chunk.note(&mut activity);
                let chunk = Arc::new(chunk);
                for q in &queues {
                    // A group that stopped at an error has dropped its end; the others go on.
                    let _ = q.send(Arc::clone(&chunk));
                }
            }
            (roster, activity)
        });
        let mut chunk = Chunk::new();
        let mut sides = Vec::new();
        let read = history.records_from(1, &mut |run| {
            for r in run {
                let event = codec::view(r.bytes)
                    .map_err(|source| ReplayError::Decode { seq: r.seq, source })?;
                if !until.includes(r.seq, event.at) {
                    return Ok(false);
                }
                chunk.push(r.seq, &event, &is_voided, &mut sides);
                through = r.seq;
                head = *r.hash;
                last_at = Some(event.at);
                if chunk.items.len() == CHUNK {
                    // The interner has hung up only if it panicked; joining it says so below.
                    let _ = to_interner.send(std::mem::replace(&mut chunk, Chunk::new()));
                    if failed.load(Ordering::Relaxed) {
                        return Ok(false);
                    }
                }
            }
            Ok(true)
        });
        if !chunk.items.is_empty() {
            let _ = to_interner.send(chunk);
        }
        drop(to_interner);
        let (roster, mut activity) = join(interner);
        if let Some(at) = last_at {
            activity.event(at);
        }
        let roster = (roster, activity);
        let folds: Vec<Result<(), ProjectError>> = handles.into_iter().map(join).collect();
        (read, roster, folds)
    });
    // A projector's error comes from an event before any the reader failed at (the reader had
    // already passed it), so it is the first failure in history order.
    if let Some(e) = folds.into_iter().filter_map(Result::err).min_by_key(|e| e.seq) {
        return Err(e.into());
    }
    read?;
    for p in projectors.iter() {
        p.settle(through)?;
    }
    Ok(Replayed { scores, roster, through, head, activity })
}

/// A scoped thread's result, passing its panic on.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
