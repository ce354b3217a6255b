//! Several configurations in one pass, spread over the machine's cores.
//!
//! One thread reads and decodes the history and turns events into steps (names interned once)
//! in chunks; the configurations are split into groups, one per core, and each group folds the
//! chunk while the others do the same. Every projector still sees every step in order, so the
//! result is bit-identical to [`crate::replay`] (a test checks it).

use crate::score::{outcome, Score};
use crate::{History, ReplayError, Replayed, Until};
use ladder_events::{Prior, Timestamp};
use ladder_projector::{Feeder, Input, PlayerId, ProjectError, Projector, SeatIn, Step};

/// Events decoded per chunk: large enough that starting the workers costs little, small enough
/// that a chunk stays in cache.
const CHUNK: usize = 8192;

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

#[derive(Default)]
struct Chunk {
    items: Vec<Item>,
    seats: Vec<SeatIn>,
}

impl Chunk {
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

/// Folds the history through `until` into every projector, decoding each event once and spreading
/// the projectors over `threads` threads. With `warmup`, scores predictions as
/// [`crate::replay`] does.
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
    let per = projectors.len().div_ceil(threads);
    let is_voided =
        |id: &str| history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at));
    let mut feeder = Feeder::new();
    let (mut through, mut head) = (0, [0u8; 32]);
    let mut events = history.events_from(1);
    let mut done = false;
    while !done {
        let mut chunk = Chunk::default();
        while chunk.items.len() < CHUNK {
            let Some(item) = events.next() else {
                done = true;
                break;
            };
            let h = item?;
            if !until.includes(h.seq, h.event.at) {
                done = true;
                break;
            }
            if let Some(step) = feeder.step(h.seq, &h.event, &is_voided) {
                chunk.push(&step);
            }
            through = h.seq;
            head = h.hash;
        }
        if chunk.items.is_empty() {
            continue;
        }
        let mut score_groups: Vec<&mut [Score]> = if scores.is_empty() {
            projectors.chunks(per).map(|_| &mut [][..]).collect()
        } else {
            scores.chunks_mut(per).collect()
        };
        let chunk = &chunk;
        let results: Vec<Result<(), ProjectError>> = std::thread::scope(|s| {
            let mut groups = projectors.chunks_mut(per).zip(score_groups.iter_mut());
            let first = groups.next();
            let handles: Vec<_> =
                groups.map(|(ps, sc)| s.spawn(move || chunk.fold(ps, sc))).collect();
            let mut results = Vec::with_capacity(handles.len() + 1);
            if let Some((ps, sc)) = first {
                results.push(chunk.fold(ps, sc));
            }
            results.extend(handles.into_iter().map(|h| h.join().expect("a fold thread panicked")));
            results
        });
        if let Some(e) = results.into_iter().filter_map(Result::err).min_by_key(|e| e.seq) {
            return Err(e.into());
        }
    }
    for p in projectors.iter() {
        p.settle(through)?;
    }
    Ok(Replayed { scores, roster: feeder.roster, through, head })
}
