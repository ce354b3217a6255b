//! The fast replay: reading and folding at the same time, and several configurations in one pass.
//!
//! One thread reads the history in place and packs events into chunks of steps, a second interns
//! their names (once, however many configurations), and the configurations are split into groups,
//! each folding on its own thread while the others prepare the next chunks. Every projector still sees every step in order, so the
//! result is bit-identical to [`crate::replay`] (a test checks it).

use crate::activity::Activity;
use crate::registry::Algo;
use crate::score::{outcome, Score, Scores};
use crate::{FoldedHistory, History, ReplayError, Replayed, Until};
use ladder_events::codec::{self, BodyView, EventView};
use ladder_events::folded::{FoldedBody, Item as FoldedItem};
use ladder_events::{Prior, Timestamp};
use ladder_glicko::{Glicko2, Glicko2Lanes};
use ladder_projector::{
    sides_into, Algorithm, Home, Input, Period, PlayerId, ProjectError, Projector, Roster, SeatIn,
    Step,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Events per chunk: large enough that handing a chunk over costs little, small enough that a
/// chunk stays in cache.
const CHUNK: usize = 8192;

/// Chunks read ahead of the slowest group: enough to ride out a slow block read, few enough that
/// memory stays small.
const QUEUE: usize = 4;

/// A step's input as a chunk holds it: 12 bytes, so an [`Item`] is 32 (a join's prior, 48 bytes,
/// waits in [`Chunk::priors`], and a match's seats in [`Chunk::seats`]), where it was 72 with the
/// prior inline: less for the reader to write and the folds to read (docs/PERFORMANCE.md, "The
/// 1M replay's fixed costs", round five).
#[derive(Clone, Copy)]
enum Owned {
    /// The player, and where the prior is in [`Chunk::priors`].
    Joined(PlayerId, u32),
    /// The seats `a..b` of [`Chunk::seats`]. A chunk holds at most [`CHUNK`] events of fewer
    /// than 2^16 seats each, so its seats are numbered in a `u32`.
    Match(u32, u32),
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
    /// A name the reader already gave this id (a folded read): interned only, so the roster
    /// knows it.
    Known(PlayerId),
}

/// A run of steps. The reader fills it with every player name written out (`names`, ending at
/// each `refs` offset) and placeholder ids; [`Chunk::resolve`] then interns the names and writes
/// the ids where `refs` says, so the reader never waits on the roster.
struct Chunk {
    items: Vec<Item>,
    seats: Vec<SeatIn>,
    /// The priors of the chunk's joins, in order.
    priors: Vec<Prior>,
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
            priors: Vec::new(),
            names: String::with_capacity(16 * CHUNK),
            refs: Vec::with_capacity(2 * CHUNK),
        }
    }

    /// `self` emptied, its room kept, to be filled again.
    fn cleared(mut self) -> Chunk {
        self.items.clear();
        self.seats.clear();
        self.priors.clear();
        self.names.clear();
        self.refs.clear();
        self
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
                Owned::Joined(UNRESOLVED, self.prior(prior))
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
                        home: seat.home,
                    });
                }
                Owned::Match(start as u32, self.seats.len() as u32)
            }
        };
        self.items.push(Item { seq, at: event.at, input });
    }

    /// Keeps a join's prior in [`Chunk::priors`]; its place there.
    fn prior(&mut self, prior: Prior) -> u32 {
        self.priors.push(prior);
        // At most CHUNK joins a chunk.
        (self.priors.len() - 1) as u32
    }

    /// Notes when each seat of the chunk's matches played (after [`Chunk::resolve`]).
    fn note(&self, activity: &mut Activity) {
        for item in &self.items {
            if let Owned::Match(a, b) = item.input {
                for seat in &self.seats[a as usize..b as usize] {
                    activity.played(seat.player, item.at);
                }
            }
        }
    }

    /// Interns every name in order (so ids are handed out in order of first appearance, as
    /// [`crate::replay`] does) and writes the ids into the steps. Each run of [`TOUCH`] names is
    /// touched first ([`Roster::touch`]), so the roster's cache misses overlap.
    fn resolve(&mut self, roster: &mut Roster) -> Result<(), String> {
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
                    Slot::Known(given) if given != id => {
                        return Err(format!(
                            "the folded form names {:?} twice (as players {} and {})",
                            roster.name(id),
                            id.0,
                            given.0
                        ));
                    }
                    Slot::Known(_) => {}
                }
            }
        }
        Ok(())
    }

    /// The step of `item` alone ([`Chunk::step`] without the prediction).
    #[inline]
    fn step_only(&self, item: &Item) -> Step<'_> {
        let input = match item.input {
            Owned::Joined(player, p) => Input::Joined { player, prior: self.priors[p as usize] },
            Owned::Match(a, b) => Input::Match { seats: &self.seats[a as usize..b as usize] },
            Owned::Tick => Input::Tick,
            Owned::Timeout(player) => Input::Timeout { player },
        };
        Step { seq: item.seq, at: item.at, input }
    }

    /// The step of `item`, and the two-seat prediction it asks for.
    #[inline]
    fn step(&self, item: &Item) -> (Step<'_>, Option<(PlayerId, PlayerId, f64, Home)>) {
        let (input, predict) = match item.input {
            Owned::Joined(player, p) => {
                (Input::Joined { player, prior: self.priors[p as usize] }, None)
            }
            Owned::Match(a, b) => {
                let seats = &self.seats[a as usize..b as usize];
                // A two-seat match is predicted before it is applied.
                let predict = match seats {
                    [x, y] => Some((x.player, y.player, outcome(x.score, y.score), Home::of(x, y))),
                    _ => None,
                };
                (Input::Match { seats }, predict)
            }
            Owned::Tick => (Input::Tick, None),
            Owned::Timeout(player) => (Input::Timeout { player }, None),
        };
        (Step { seq: item.seq, at: item.at, input }, predict)
    }

    /// The seats of the match `ahead` items after item `k`, if it is one.
    #[inline]
    fn seats_ahead(&self, k: usize, ahead: usize) -> &[SeatIn] {
        match self.items.get(k + ahead).map(|i| i.input) {
            Some(Owned::Match(a, b)) => &self.seats[a as usize..b as usize],
            _ => &[],
        }
    }

    /// [`Chunk::fold`] into Glicko-2 lanes: the same steps and predictions, every lane at once.
    /// The players of the step [`AHEAD`] on are prefetched, and half that far ahead, once the
    /// player's record (which says where the slot is) has arrived, their open-period slots, or
    /// their values when they have no slot yet ([`Glicko2Lanes::prefetch_slots`]).
    fn fold_lanes(
        &self,
        lanes: &mut Glicko2Lanes,
        mut scores: Option<&mut Scores>,
        buf: &mut Vec<f64>,
    ) -> Result<(), ProjectError> {
        for (k, item) in self.items.iter().enumerate() {
            self.seats_ahead(k, AHEAD).iter().for_each(|s| lanes.prefetch(s.player));
            self.seats_ahead(k, AHEAD / 2).iter().for_each(|s| lanes.prefetch_slots(s.player));
            let (step, predict) = self.step(item);
            if let (Some((a, b, y, home)), Some(scores)) = (predict, scores.as_deref_mut()) {
                lanes.expectations(item.seq, a, b, item.at, home, buf)?;
                if lanes.any_failed() {
                    // A failed lane's score is left where it stopped (its configuration failed).
                    scores.record_except(buf, y, |l| lanes.has_failed(l));
                } else {
                    scores.record(buf, y);
                }
            }
            lanes.apply(&step)?;
        }
        Ok(())
    }

    /// [`Chunk::fold`] where each projector may fail on its own: a projector that cannot apply a
    /// step records its error in `failed` and takes no further step; the others go on. An error
    /// only once every projector of the group has failed.
    fn fold_each(
        &self,
        projectors: &mut [&mut (dyn Projector + Send)],
        scores: &mut [Score],
        failed: &mut [Option<ProjectError>],
    ) -> Result<(), ProjectError> {
        self.fold_steps(projectors, scores, Some(&mut *failed))?;
        if failed.iter().all(Option::is_some) {
            if let Some(e) = failed.iter().flatten().min_by_key(|e| e.seq) {
                return Err(e.clone());
            }
        }
        Ok(())
    }

    /// Folds the chunk into each projector, stopping at the first error.
    fn fold(
        &self,
        projectors: &mut [&mut (dyn Projector + Send)],
        scores: &mut [Score],
    ) -> Result<(), ProjectError> {
        self.fold_steps(projectors, scores, None)
    }

    /// [`Chunk::fold_steps`] for one projector that scores nothing: each step applied in turn
    /// (the players of the step [`AHEAD`] on prefetched), with no prediction worked out and no
    /// score or failure looked up per step; the first error returns.
    fn fold_one(&self, p: &mut (dyn Projector + Send)) -> Result<(), ProjectError> {
        for (k, item) in self.items.iter().enumerate() {
            self.seats_ahead(k, AHEAD).iter().for_each(|s| p.prefetch(s.player));
            p.apply(&self.step_only(item), None)?;
        }
        Ok(())
    }

    /// The steps of [`Chunk::fold`] and [`Chunk::fold_each`]: each step scored (when it is
    /// predicted) and applied to each projector. Without `failed` the first error returns; with
    /// it, a projector's error is recorded there and that projector skipped from then on.
    fn fold_steps(
        &self,
        projectors: &mut [&mut (dyn Projector + Send)],
        scores: &mut [Score],
        mut failed: Option<&mut [Option<ProjectError>]>,
    ) -> Result<(), ProjectError> {
        if let ([p], true) = (&mut *projectors, scores.is_empty()) {
            // One configuration, nothing scored: `ladder replay`'s fold.
            if failed.as_deref().is_some_and(|f| f[0].is_some()) {
                return Ok(());
            }
            return match (self.fold_one(&mut **p), failed) {
                (Err(e), Some(failed)) => {
                    failed[0] = Some(e);
                    Ok(())
                }
                (r, _) => r,
            };
        }
        for (k, item) in self.items.iter().enumerate() {
            // The players of the step AHEAD steps on are read now, so their records are in the
            // cache when that step comes (Projector::prefetch).
            if let Some(Owned::Match(a, b)) = self.items.get(k + AHEAD).map(|i| i.input) {
                for seat in &self.seats[a as usize..b as usize] {
                    projectors.iter().for_each(|p| p.prefetch(seat.player));
                }
            }
            let (step, predict) = self.step(item);
            for (i, p) in projectors.iter_mut().enumerate() {
                if failed.as_deref().is_some_and(|f| f[i].is_some()) {
                    continue;
                }
                if let (Some((a, b, y, home)), Some(s)) = (predict, scores.get_mut(i)) {
                    s.record(p.expectation_at(a, b, item.at, home), y);
                }
                if let Err(e) = p.apply(&step, None) {
                    match failed.as_deref_mut() {
                        Some(failed) => failed[i] = Some(e),
                        None => return Err(e),
                    }
                }
            }
        }
        Ok(())
    }
}

/// What a fold thread is handed: the next chunk, or (once, after the last chunk, to a fold that
/// has not stopped) the end of the history read, with the last sequence number read.
enum Feed<'c> {
    Chunk(&'c Chunk),
    End { through: u64 },
}

/// One fold thread's work: folds a chunk into its group of configurations; at the end, whatever
/// the fold does once the history is read (settling a sweep's lanes on this thread, so that no
/// core waits on the others' tails).
type Fold<'a> = Box<dyn FnMut(Feed<'_>) -> Result<(), ProjectError> + Send + 'a>;

/// What the reader and interner leave once every chunk is folded.
struct Read {
    read: Result<(), ReplayError>,
    roster: Roster,
    activity: Activity,
    through: u64,
    head: [u8; 32],
}

/// Whether a batch stops at the first error of any configuration (a replay, which reports it),
/// or lets each configuration fail on its own while the others go on (a sweep, which ranks the
/// others and marks the failed ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The first failure in history order ends the replay.
    FirstError,
    /// Each configuration stops at its own failure; reading ends once every one has.
    Each,
    /// As `Each`, for a caller that reads only the scores and failures: Glicko-2 lanes are settled
    /// where they are and their projectors given back fresh, so their states are never copied
    /// out (at 64 configurations that copy doubled a sweep's memory).
    Scores,
}

/// Whether a replay notes each player's last game ([`Activity`], what a leaderboard's
/// `--active-within` reads) or only the instant of the last event: a store to a random place in
/// a table of every player for each seat, so a replay whose caller never reads it
/// ([`replay_algos_each_without_activity`]) leaves it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Notes {
    /// Each player's last game, and the last event.
    Activity,
    /// Only the last event.
    LastEvent,
}

/// The pipeline of [`replay_parallel`] with the folds given: each of `folds` runs on its own
/// thread and sees every chunk in order until it returns an error. Reading stops at the first
/// fold's error with [`Mode::FirstError`], once every fold has stopped with [`Mode::Each`].
/// Returns what was read and each fold's result.
fn pipeline(
    history: &dyn History,
    until: Until,
    folds: Vec<Fold<'_>>,
    mode: Mode,
    notes: Notes,
) -> (Read, Vec<Result<(), ProjectError>>) {
    let stopped = AtomicUsize::new(0);
    let folding = folds.len();
    // The last sequence number read, set once reading is done and before the folds' queues
    // close, so a fold that sees its queue end finds it here.
    let finished = OnceLock::new();
    let (read, end, (roster, activity), folds) = std::thread::scope(|s| {
        let mut queues = Vec::new();
        let mut handles = Vec::new();
        // Chunks every fold is done with come back to the reader to be filled again: a fresh
        // chunk is a megabyte and more of new pages, each a page fault when first written.
        let (recycle, recycled) = std::sync::mpsc::channel::<Chunk>();
        for mut fold in folds {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Arc<Chunk>>(QUEUE);
            queues.push(tx);
            let stopped = &stopped;
            let finished = &finished;
            let recycle = recycle.clone();
            handles.push(s.spawn(move || {
                for chunk in rx {
                    if let Err(e) = fold(Feed::Chunk(&chunk)) {
                        stopped.fetch_add(1, Ordering::Relaxed);
                        return Err(e);
                    }
                    // The last fold to finish a chunk hands it back.
                    if let Some(chunk) = Arc::into_inner(chunk) {
                        let _ = recycle.send(chunk);
                    }
                }
                // The queue ends only after reading set `finished` (unless the reader panicked:
                // then nothing is finished here, and the panic passes on below).
                match finished.get() {
                    Some(&through) => fold(Feed::End { through }),
                    None => Ok(()),
                }
            }));
        }
        drop(recycle);
        // The folded form says how many players it names: the roster is made that size at
        // once, on the interner's thread, instead of doubling (and moving every name) 14 times.
        let folded = history.folded();
        let players = folded.as_ref().map_or(0, |f| f.players());
        let (to_interner, interner_rx) = std::sync::mpsc::sync_channel::<Chunk>(QUEUE);
        let interner = s.spawn(move || {
            let mut roster = Roster::with_capacity(players);
            let mut activity = Activity::new();
            let mut named = Ok(());
            for mut chunk in interner_rx {
                if let Err(e) = chunk.resolve(&mut roster) {
                    // Damage the checksum did not catch: the read fails with it below.
                    named = named.and(Err(e));
                }
                if notes == Notes::Activity {
                    chunk.note(&mut activity);
                }
                let chunk = Arc::new(chunk);
                // The last queue takes this thread's reference, so only folds hold the chunk.
                if let Some((last, rest)) = queues.split_last() {
                    for q in rest {
                        // A group that stopped at an error has dropped its end; the others go on.
                        let _ = q.send(Arc::clone(&chunk));
                    }
                    let _ = last.send(chunk);
                }
            }
            (roster, activity, named)
        });
        let mut send = |chunk: &mut Chunk| {
            let next = recycled.try_recv().map_or_else(|_| Chunk::new(), Chunk::cleared);
            // The interner has hung up only if it panicked; joining it says so below.
            let _ = to_interner.send(std::mem::replace(chunk, next));
            let stopped = stopped.load(Ordering::Relaxed);
            match mode {
                Mode::FirstError => stopped == 0,
                Mode::Each | Mode::Scores => stopped < folding,
            }
        };
        let mut end = End { through: 0, head: [0; 32], last_at: None };
        let read = match folded {
            Some(mut folded) => read_folded(&mut *folded, until, &mut end, &mut send),
            None => read_records(history, until, &mut end, &mut send),
        };
        let _ = finished.set(end.through);
        drop(to_interner);
        let (roster, mut activity, named) = join(interner);
        let read = read.and(named.map_err(|e| ReplayError::History(e.into())));
        if let Some(at) = end.last_at {
            activity.event(at);
        }
        let roster = (roster, activity);
        let folds: Vec<Result<(), ProjectError>> = handles.into_iter().map(join).collect();
        (read, end, roster, folds)
    });
    (Read { read, roster, activity, through: end.through, head: end.head }, folds)
}

/// Where a reader of the history got to.
struct End {
    /// The last sequence number read into a chunk, and its chain hash (0 and zeros for none).
    through: u64,
    head: [u8; 32],
    /// The instant of the last event read.
    last_at: Option<Timestamp>,
}

/// The reader of the stored events: each read in place, packed into chunks with its names written
/// out for the interner, handed to `send` (which leaves an empty chunk in its place and says
/// whether to go on).
fn read_records(
    history: &dyn History,
    until: Until,
    end: &mut End,
    send: &mut dyn FnMut(&mut Chunk) -> bool,
) -> Result<(), ReplayError> {
    let any_voids = !history.voids().is_empty();
    let is_voided = |id: &str| {
        any_voids && history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at))
    };
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
            end.through = r.seq;
            end.head = *r.hash;
            end.last_at = Some(event.at);
            if chunk.items.len() == CHUNK && !send(&mut chunk) {
                return Ok(false);
            }
        }
        Ok(true)
    });
    if !chunk.items.is_empty() {
        send(&mut chunk);
    }
    read
}

/// The folded form's names as a reader meets them, and the id each has in this replay.
#[derive(Default)]
struct FoldedNames {
    /// Every name so far, end to end: name `g` ends at `ends[g]`.
    arena: String,
    ends: Vec<usize>,
    /// The id of folded player `g` in this replay ([`UNRESOLVED`] until a step names it).
    ids: Vec<PlayerId>,
    /// The next id to hand out.
    next: u32,
    /// No match of the replay is voided, so steps name players in the folded form's own order
    /// of first appearance and its numbers are this replay's ids: `ids` is not needed.
    same: bool,
}

impl FoldedNames {
    /// The next folded player's name.
    fn add(&mut self, name: &str) {
        self.arena.push_str(name);
        self.ends.push(self.arena.len());
        if !self.same {
            self.ids.push(UNRESOLVED);
        }
    }

    /// The id of folded player `g`: the next one when a step names it first, its name then
    /// written into `chunk` for the interner ([`Slot::Known`]), which builds the roster on its
    /// own thread.
    #[inline(always)]
    fn id(&mut self, g: u32, chunk: &mut Chunk) -> Result<PlayerId, ReplayError> {
        // The common case, a player already named with nothing voided, without a call.
        if self.same && g < self.next {
            return Ok(PlayerId(g));
        }
        self.id_slow(g, chunk)
    }

    /// [`FoldedNames::id`] for a player met the first time, or when something is voided.
    #[inline(never)]
    fn id_slow(&mut self, g: u32, chunk: &mut Chunk) -> Result<PlayerId, ReplayError> {
        if self.same {
            if g == self.next && (g as usize) < self.ends.len() {
                let start = if g == 0 { 0 } else { self.ends[g as usize - 1] };
                chunk.name(&self.arena[start..self.ends[g as usize]], Slot::Known(PlayerId(g)));
                self.next += 1;
                return Ok(PlayerId(g));
            }
            return Err(ReplayError::History(
                format!("the folded form names player {g} before player {}", self.next).into(),
            ));
        }
        let g = g as usize;
        let Some(slot) = self.ids.get_mut(g) else {
            return Err(ReplayError::History(
                format!("the folded form names player {g} before its name").into(),
            ));
        };
        if *slot == UNRESOLVED {
            *slot = PlayerId(self.next);
            self.next += 1;
            let start = if g == 0 { 0 } else { self.ends[g - 1] };
            chunk.name(&self.arena[start..self.ends[g]], Slot::Known(*slot));
        }
        Ok(*slot)
    }
}

/// The reader of the folded form: the same chunks as [`read_records`] makes, with the players'
/// ids written in already. Players are numbered in the folded form over the whole history; here
/// each gets the next id when a step first names it, so ids come in the same order as the
/// interner hands them out from the stored events (a voided match, or one past `--until`, names
/// nobody); the interner puts each name in the roster under the same id, on its own thread.
fn read_folded(
    folded: &mut dyn FoldedHistory,
    until: Until,
    end: &mut End,
    send: &mut dyn FnMut(&mut Chunk) -> bool,
) -> Result<(), ReplayError> {
    let mut voided: Vec<u64> = folded
        .voids()
        .into_iter()
        .filter(|&(_, seq, at)| until.includes(seq, at))
        .map(|(m, _, _)| m)
        .collect();
    voided.sort_unstable();
    let mut names = FoldedNames { same: voided.is_empty(), ..FoldedNames::default() };
    let mut chunk = Chunk::new();
    let mut seq = 0u64;
    let mut last: Option<(u64, Timestamp)> = None;
    folded.read(&mut |segment| {
        for item in ladder_events::folded::Reader::new(segment) {
            let item = item.map_err(|e| ReplayError::History(Box::new(e)))?;
            let (at, body) = match item {
                FoldedItem::Name(name) => {
                    names.add(name);
                    continue;
                }
                FoldedItem::Event { at, body } => (at, body),
            };
            seq += 1;
            if !until.includes(seq, at) {
                return Ok(false);
            }
            // As Chunk::push: a MatchVoided, and a match voided by then, are no step.
            let input = match body {
                FoldedBody::Joined { player, prior } => {
                    let player = names.id(player, &mut chunk)?;
                    Some(Owned::Joined(player, chunk.prior(prior)))
                }
                FoldedBody::Timeout { player } => {
                    Some(Owned::Timeout(names.id(player, &mut chunk)?))
                }
                FoldedBody::Tick => Some(Owned::Tick),
                FoldedBody::Voided => None,
                FoldedBody::Match { seats } => {
                    if voided.binary_search(&seq).is_ok() {
                        None
                    } else {
                        let start = chunk.seats.len();
                        for seat in seats.iter() {
                            let player = names.id(seat.player, &mut chunk)?;
                            chunk.seats.push(SeatIn {
                                player,
                                score: seat.score,
                                side: seat.side,
                                seconds: seat.seconds,
                                home: seat.home,
                            });
                        }
                        Some(Owned::Match(start as u32, chunk.seats.len() as u32))
                    }
                }
            };
            last = Some((seq, at));
            if let Some(input) = input {
                chunk.items.push(Item { seq, at, input });
            }
            if chunk.items.len() == CHUNK && !send(&mut chunk) {
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    if !chunk.items.is_empty() {
        send(&mut chunk);
    }
    if let Some((through, at)) = last {
        let (head_seq, head_hash) = folded.head();
        end.through = through;
        end.head = if through == head_seq { head_hash } else { folded.hash_at(through)? };
        end.last_at = Some(at);
    }
    Ok(())
}

/// The result of the folds once the pipeline is done: a projector's error comes from an event
/// before any the reader failed at (the reader had already passed it), so the earliest is the
/// first failure in history order.
fn outcome_of(read: Read, folds: Vec<Result<(), ProjectError>>) -> Result<Read, ReplayError> {
    if let Some(e) = folds.into_iter().filter_map(Result::err).min_by_key(|e| e.seq) {
        return Err(e.into());
    }
    let Read { read, roster, activity, through, head } = read;
    read?;
    Ok(Read { read: Ok(()), roster, activity, through, head })
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
    replay_parallel_in(
        history,
        projectors,
        until,
        warmup,
        threads,
        Mode::FirstError,
        Notes::Activity,
    )
    .map(|each| each.replayed)
}

/// [`replay_parallel`] in either [`Mode`]; with [`Mode::FirstError`] no failure is ever in
/// `failed` (it is the error returned).
fn replay_parallel_in(
    history: &dyn History,
    projectors: &mut [&mut (dyn Projector + Send)],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
    mode: Mode,
    notes: Notes,
) -> Result<EachReplayed, ReplayError> {
    let threads = threads.clamp(1, projectors.len().max(1));
    let mut scores: Vec<Score> = match warmup {
        Some(n) => projectors.iter().map(|_| Score::new(n)).collect(),
        None => Vec::new(),
    };
    let per = projectors.len().div_ceil(threads).max(1);
    let mut score_groups: Vec<&mut [Score]> = if scores.is_empty() {
        projectors.chunks(per).map(|_| &mut [][..]).collect()
    } else {
        scores.chunks_mut(per).collect()
    };
    let mut failed: Vec<Option<ProjectError>> = vec![None; projectors.len()];
    let folds: Vec<Fold<'_>> = projectors
        .chunks_mut(per)
        .zip(score_groups.iter_mut())
        .zip(failed.chunks_mut(per))
        .map(|((ps, sc), f)| match mode {
            Mode::FirstError => Box::new(move |feed: Feed<'_>| match feed {
                Feed::Chunk(chunk) => chunk.fold(ps, sc),
                Feed::End { .. } => Ok(()),
            }) as Fold<'_>,
            Mode::Each | Mode::Scores => Box::new(move |feed: Feed<'_>| match feed {
                Feed::Chunk(chunk) => chunk.fold_each(ps, sc, f),
                Feed::End { .. } => Ok(()),
            }) as Fold<'_>,
        })
        .collect();
    let (read, folds) = pipeline(history, until, folds, mode, notes);
    let read = match mode {
        Mode::FirstError => outcome_of(read, folds)?,
        Mode::Each | Mode::Scores => read_of(read)?,
    };
    settle_all(projectors.iter().map(|p| &**p as &dyn Projector), &read, &mut failed, mode)?;
    Ok(EachReplayed {
        replayed: Replayed {
            scores,
            roster: read.roster,
            through: read.through,
            head: read.head,
            activity: read.activity,
        },
        failed,
    })
}

/// What was read, once the folds of [`Mode::Each`] are done (their errors are each
/// configuration's own): an error only if reading the history failed.
fn read_of(read: Read) -> Result<Read, ReplayError> {
    let Read { read, roster, activity, through, head } = read;
    read?;
    Ok(Read { read: Ok(()), roster, activity, through, head })
}

/// Settles every projector that has not failed at the end of the history
/// ([`Projector::settle`]): with [`Mode::Each`] a projector that cannot settle fails alone.
fn settle_all<'a>(
    projectors: impl Iterator<Item = &'a dyn Projector>,
    read: &Read,
    failed: &mut [Option<ProjectError>],
    mode: Mode,
) -> Result<(), ReplayError> {
    for (p, f) in projectors.zip(failed.iter_mut()) {
        if f.is_some() {
            continue;
        }
        match (p.settle(read.through, None), mode) {
            (Ok(()), _) => {}
            (Err(e), Mode::FirstError) => return Err(e.into()),
            (Err(e), Mode::Each | Mode::Scores) => *f = Some(e),
        }
    }
    Ok(())
}

/// A batch replay in which each configuration may fail on its own ([`replay_algos_each`]).
#[derive(Debug)]
pub struct EachReplayed {
    /// What was replayed. `scores` holds one per configuration; a failed configuration's score
    /// covers only the matches before its failure and should not be reported.
    pub replayed: Replayed,
    /// One per configuration: the error at which a replay of that configuration alone stops, or
    /// `None` for one that folded the whole history.
    pub failed: Vec<Option<ProjectError>>,
}

/// [`replay_parallel`] over the registry's projectors, taking the fastest way for the batch: when
/// two or more are Glicko-2, those sharing `period` and `idle` are folded together as
/// [`Glicko2Lanes`] (one record lookup for every configuration of a game), split across up to
/// `threads` fold threads; the rest as [`replay_parallel`] folds them. The result is the same, bit
/// for bit (tests compare snapshots, digests and scores), except that when two configurations
/// fail at the same event, which one's reason is reported may differ.
pub fn replay_algos(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
) -> Result<Replayed, ReplayError> {
    replay_algos_in(history, projectors, until, warmup, threads, Mode::FirstError, Notes::Activity)
        .map(|each| each.replayed)
}

/// [`replay_algos`] for a sweep: every configuration is folded in the one pass, and one that the
/// algorithm cannot apply an event under stops alone, at the error a replay of it alone would
/// report ([`EachReplayed::failed`]), while the others fold the whole history: their results
/// are those of [`replay_algos`] given them alone, bit for bit. An error only when reading the
/// history fails. Reading stops early once every configuration has failed.
pub fn replay_algos_each(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
) -> Result<EachReplayed, ReplayError> {
    replay_algos_in(history, projectors, until, warmup, threads, Mode::Each, Notes::Activity)
}

/// [`replay_algos_each`] for a caller that never reads who played when (`ladder replay`, which
/// prints standings and scores): the same projectors, scores, failures, roster and head, bit for
/// bit, but [`Replayed::activity`] holds only the last event's instant, no player's last game
/// ([`Activity::last_played`] is `None` for everyone). Noting each seat's game is a store to a
/// random place in a table of every player, for every seat of the history.
pub fn replay_algos_each_without_activity(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
) -> Result<EachReplayed, ReplayError> {
    replay_algos_in(history, projectors, until, warmup, threads, Mode::Each, Notes::LastEvent)
}

/// [`replay_algos_each`] for a caller that reads only [`Replayed::scores`] and
/// [`EachReplayed::failed`] (a sweep, `tune`): the same scores and failures, but a Glicko-2
/// configuration's projector is given back fresh rather than holding its state, which saves
/// copying every lane's state out (memory, at 64 configurations, for as much again as the lanes),
/// and [`Replayed::activity`] holds only the last event's instant, as
/// [`replay_algos_each_without_activity`]'s does (no player's last game is noted).
pub fn replay_algos_scores(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
) -> Result<EachReplayed, ReplayError> {
    replay_algos_in(history, projectors, until, warmup, threads, Mode::Scores, Notes::LastEvent)
}

/// [`replay_algos`] in any [`Mode`].
fn replay_algos_in(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: Option<u64>,
    threads: usize,
    mode: Mode,
    notes: Notes,
) -> Result<EachReplayed, ReplayError> {
    let glicko2: Vec<usize> =
        (0..projectors.len()).filter(|&i| matches!(projectors[i], Algo::Glicko2(_))).collect();
    if glicko2.len() < 2 || glicko2.len() < projectors.len() {
        let mut refs: Vec<&mut (dyn Projector + Send)> =
            projectors.iter_mut().map(|p| p as &mut (dyn Projector + Send)).collect();
        return replay_parallel_in(history, &mut refs, until, warmup, threads, mode, notes);
    }
    let threads = threads.clamp(1, projectors.len());
    // The batch's clocks, in order of first appearance, each with its projectors' indices.
    let mut by_clock: Vec<((Period, i64), Vec<usize>)> = Vec::new();
    for (i, p) in projectors.iter().enumerate() {
        let key = (p.config().period("period"), p.config().duration("idle"));
        match by_clock.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => by_clock.push((key, vec![i])),
        }
    }
    // Lane sets: every clock's projectors, the largest sets halved until each thread has one.
    let mut sets: Vec<Vec<usize>> = by_clock.into_iter().map(|(_, v)| v).collect();
    while sets.len() < threads {
        let Some(big) = (0..sets.len()).max_by_key(|&i| sets[i].len()) else { break };
        if sets[big].len() < 2 {
            break;
        }
        let half = sets[big].len().div_ceil(2);
        let rest = sets[big].split_off(half);
        sets.insert(big + 1, rest);
    }
    let mut lanes = Vec::with_capacity(sets.len());
    for set in &sets {
        let mut taken = Vec::with_capacity(set.len());
        for &i in set {
            if let Algo::Glicko2(g) = &mut projectors[i] {
                let fresh = Glicko2::new(g.config().clone())?;
                taken.push(std::mem::replace(g, fresh));
            }
        }
        match Glicko2Lanes::new(taken) {
            Ok(l) => lanes.push(l),
            Err(back) => {
                // Not fresh (or not one clock after all): put everything back, fold one by one.
                for (&i, g) in set.iter().zip(back) {
                    projectors[i] = Algo::Glicko2(g);
                }
                for (l, set) in lanes.into_iter().zip(&sets) {
                    for (&i, g) in set.iter().zip(Glicko2Lanes::into_projectors(l)) {
                        projectors[i] = Algo::Glicko2(g);
                    }
                }
                let mut refs: Vec<&mut (dyn Projector + Send)> =
                    projectors.iter_mut().map(|p| p as &mut (dyn Projector + Send)).collect();
                return replay_parallel_in(history, &mut refs, until, warmup, threads, mode, notes);
            }
        }
    }
    // Lane sets dealt to threads in turn, each with its scores.
    let mut work: Vec<Vec<(Glicko2Lanes, Option<Scores>)>> =
        (0..threads).map(|_| Vec::new()).collect();
    for (n, l) in lanes.into_iter().enumerate() {
        let scores = warmup.map(|w| Scores::new(&vec![w; l.len()]));
        work[n % threads].push((l, scores));
    }
    let (read, results) = {
        let folds: Vec<Fold<'_>> = work
            .iter_mut()
            .filter(|w| !w.is_empty())
            .map(|w| {
                let mut buf = Vec::new();
                Box::new(move |feed: Feed<'_>| {
                    let chunk = match feed {
                        Feed::Chunk(chunk) => chunk,
                        Feed::End { through } => {
                            if mode == Mode::Scores {
                                // Settled here, each thread its own sets, and their states
                                // freed here: the main thread would otherwise settle every
                                // set and free their memory alone, with every other core idle
                                // (docs/PERFORMANCE.md, "Sweeps").
                                for (l, _) in w.iter_mut() {
                                    l.settle(through);
                                    l.free_states();
                                }
                            }
                            return Ok(());
                        }
                    };
                    for (l, sc) in w.iter_mut() {
                        if l.all_failed() {
                            continue;
                        }
                        // An error here means every lane of the set has failed; each lane's own
                        // error is kept in the set.
                        let _ = chunk.fold_lanes(l, sc.as_mut(), &mut buf);
                    }
                    if mode == Mode::FirstError {
                        // The earliest failure of any set (each set folded the whole chunk).
                        let first = w.iter().filter_map(|(l, _)| l.first_failure());
                        if let Some(e) = first.min_by_key(|e| e.seq) {
                            return Err(e.clone());
                        }
                    }
                    // The thread stops once every lane it folds has failed.
                    match w.iter().find_map(|(l, _)| l.first_failure().filter(|_| l.all_failed())) {
                        Some(e) if w.iter().all(|(l, _)| l.all_failed()) => Err(e.clone()),
                        _ => Ok(()),
                    }
                }) as Fold<'_>
            })
            .collect();
        pipeline(history, until, folds, mode, notes)
    };
    // The projectors go back to their places, with their scores, whatever happened.
    let mut scores: Vec<Option<Score>> = (0..projectors.len()).map(|_| None).collect();
    let mut failed: Vec<Option<ProjectError>> = vec![None; projectors.len()];
    let mut dealt: Vec<std::vec::IntoIter<(Glicko2Lanes, Option<Scores>)>> =
        work.into_iter().map(Vec::into_iter).collect();
    for (n, set) in sets.iter().enumerate() {
        let Some((l, sc)) = dealt[n % threads].next() else { continue };
        let mut sc = sc.map(Scores::into_scores).unwrap_or_default().into_iter();
        if mode == Mode::Scores {
            // Settled where they are (a fresh projector settles at once below): on their fold
            // thread at the end of the history, unless it had stopped (every lane failed);
            // settling again does nothing more.
            let mut l = l;
            l.settle(read.through);
            for (&i, f) in set.iter().zip(l.failures()) {
                failed[i] = f.clone();
                scores[i] = sc.next();
            }
            // The fresh projectors taken out when the lanes were made are still in place.
            continue;
        }
        for (&i, f) in set.iter().zip(l.failures()) {
            failed[i] = f.clone();
        }
        for (&i, g) in set.iter().zip(l.into_projectors()) {
            projectors[i] = Algo::Glicko2(g);
            scores[i] = sc.next();
        }
    }
    let read = match mode {
        Mode::FirstError => outcome_of(read, results)?,
        Mode::Each | Mode::Scores => read_of(read)?,
    };
    settle_all(projectors.iter().map(|p| p as &dyn Projector), &read, &mut failed, mode)?;
    Ok(EachReplayed {
        replayed: Replayed {
            scores: scores.into_iter().flatten().collect(),
            roster: read.roster,
            through: read.through,
            head: read.head,
            activity: read.activity,
        },
        failed,
    })
}

/// A scoped thread's result, passing its panic on.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
