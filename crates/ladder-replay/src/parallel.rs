//! The fast replay: reading and folding at the same time, and several configurations in one pass.
//!
//! One thread reads the history in place and turns events into steps (names interned once) in
//! chunks; the configurations are split into groups, each folding on its own thread while the
//! reader prepares the next chunks. Every projector still sees every step in order, so the
//! result is bit-identical to [`crate::replay`] (a test checks it).

use crate::score::{outcome, Score};
use crate::{History, ReplayError, Replayed, Until};
use ladder_events::codec;
use ladder_events::{Prior, Timestamp};
use ladder_projector::{Feeder, Input, PlayerId, ProjectError, Projector, SeatIn, Step};
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
    /// A two-seat match to predict before applying it: first seat, second seat, outcome.
    predict: Option<(PlayerId, PlayerId, f64)>,
}

struct Chunk {
    items: Vec<Item>,
    seats: Vec<SeatIn>,
}

impl Chunk {
    /// An empty chunk with room for [`CHUNK`] two-seat matches, so filling it does not reallocate.
    fn new() -> Chunk {
        Chunk { items: Vec::with_capacity(CHUNK), seats: Vec::with_capacity(2 * CHUNK) }
    }

    fn push(&mut self, step: &Step<'_>) {
        let (input, predict) = match step.input {
            Input::Joined { player, prior } => (Owned::Joined(player, prior), None),
            Input::Tick => (Owned::Tick, None),
            Input::Timeout { player } => (Owned::Timeout(player), None),
            Input::Match { seats } => {
                let start = self.seats.len();
                self.seats.extend_from_slice(seats);
                let predict = match seats {
                    [a, b] => Some((a.player, b.player, outcome(a.score, b.score))),
                    _ => None,
                };
                (Owned::Match(start, self.seats.len()), predict)
            }
        };
        self.items.push(Item { seq: step.seq, at: step.at, input, predict });
    }

    fn fold(
        &self,
        projectors: &mut [&mut (dyn Projector + Send)],
        scores: &mut [Score],
    ) -> Result<(), ProjectError> {
        for item in &self.items {
            let input = match item.input {
                Owned::Joined(player, prior) => Input::Joined { player, prior },
                Owned::Match(a, b) => Input::Match { seats: &self.seats[a..b] },
                Owned::Tick => Input::Tick,
                Owned::Timeout(player) => Input::Timeout { player },
            };
            let step = Step { seq: item.seq, at: item.at, input };
            for (i, p) in projectors.iter_mut().enumerate() {
                if let (Some((a, b, y)), Some(s)) = (item.predict, scores.get_mut(i)) {
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
/// The calling thread reads the stored bytes ([`History::records_from`]), reads each event in
/// place ([`ladder_events::codec::view`]), interns its names and packs the steps into chunks;
/// the projectors, split into up to `threads` groups, fold those chunks on their own threads at
/// the same time (a bounded queue of chunks per group). So even one projector gets two cores:
/// one reading, one folding. Every projector still sees every step in order, and a projector's
/// error at the earliest event is the one reported, so the result is that of [`crate::replay`]
/// exactly (tests check it).
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
    let mut feeder = Feeder::new();
    let (mut through, mut head) = (0, [0u8; 32]);
    let failed = AtomicBool::new(false);

    let mut score_groups: Vec<&mut [Score]> = if scores.is_empty() {
        projectors.chunks(per).map(|_| &mut [][..]).collect()
    } else {
        scores.chunks_mut(per).collect()
    };
    let (read, folds) = std::thread::scope(|s| {
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
        let send = |chunk: Chunk| {
            let chunk = Arc::new(chunk);
            for q in &queues {
                // A group that stopped at an error has dropped its end; the others go on.
                let _ = q.send(Arc::clone(&chunk));
            }
        };
        let mut chunk = Chunk::new();
        let read = history.records_from(1, &mut |run| {
            // Read the run in place, then touch every name in it before interning any, so that
            // the roster's cache misses overlap (a few dozen in flight instead of one at a time).
            let mut views = Vec::with_capacity(run.len());
            let mut undecodable = None;
            for r in run {
                match codec::view(r.bytes) {
                    Ok(v) => views.push(v),
                    Err(source) => {
                        undecodable = Some(ReplayError::Decode { seq: r.seq, source });
                        break;
                    }
                }
            }
            for v in &views {
                feeder.touch(v);
            }
            for (r, event) in run.iter().zip(&views) {
                if !until.includes(r.seq, event.at) {
                    return Ok(false);
                }
                if let Some(step) = feeder.step_view(r.seq, event, &is_voided) {
                    chunk.push(&step);
                }
                through = r.seq;
                head = *r.hash;
                if chunk.items.len() == CHUNK {
                    send(std::mem::replace(&mut chunk, Chunk::new()));
                    if failed.load(Ordering::Relaxed) {
                        return Ok(false);
                    }
                }
            }
            match undecodable {
                Some(e) => Err(e),
                None => Ok(true),
            }
        });
        if !chunk.items.is_empty() {
            send(chunk);
        }
        drop(queues);
        let folds: Vec<Result<(), ProjectError>> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect();
        (read, folds)
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
    Ok(Replayed { scores, roster: feeder.roster, through, head })
}
