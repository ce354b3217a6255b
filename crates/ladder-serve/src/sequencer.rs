//! The one writer. Requests wait in a bounded queue; the sequencer thread takes every request
//! waiting (up to [`MAX_GROUP_EVENTS`] events), stamps the events that came without `at`, and
//! appends them all in one ledger append ([`ladder_log::Ledger::stage`], then commit and
//! publish: see `commit_group`): one durable flush for the whole group, the way
//! sunlight and tessera sequence entries. Only then is each request answered. A request whose
//! events break a rule is answered with its refusal and taken out of the group, and the rest is
//! appended again (each request is all or nothing, as an import is).

use crate::Shared;
use ladder_events::{Body, Checked, Event, Rule, Timestamp, Violation};
use ladder_log::{AppendError, AppendOptions, Head};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A group of this many events or more is staged with a thread of its own for the store's
/// block inserts ([`ladder_log::Ledger::stage_checked`]); a smaller one is not worth the
/// thread.
pub const BULK_EVENTS: usize = 1024;

/// A group holds at most this many events (more requests wait for the next group).
pub const MAX_GROUP_EVENTS: usize = 200_000;

/// One event of a request, and whether the sequencer stamps its `at`.
#[derive(Clone, Debug)]
pub struct Posted {
    /// The event (its `at` is a placeholder when `stamp` is set).
    pub event: Event,
    /// True when the line had no `at`: the sequencer's clock gives it.
    pub stamp: bool,
    /// Its line in the request body, from 1 (blank lines count).
    pub line: usize,
}

/// One request waiting to be sequenced.
pub struct Job {
    /// Its events, in body order.
    pub events: Vec<Posted>,
    /// `?auto_join=true`.
    pub auto_join: bool,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Reply>,
}

impl Job {
    /// Answers the request with `outcome`, handing its events back with it ([`Reply`]).
    fn answer(self, outcome: Outcome) {
        let _ = self.reply.send(Reply { outcome, events: self.events });
    }
}

/// The answer to a request: what became of it, and its events handed back, so that they are
/// freed by the handler that made them and not by the sequencer (freeing the events of a
/// group of 1,000-event requests took the sequencer about as long as publishing it).
pub struct Reply {
    /// What became of the request.
    pub outcome: Outcome,
    /// Its events, for the handler to drop.
    pub events: Vec<Posted>,
}

/// What became of a request.
#[derive(Debug)]
pub enum Outcome {
    /// Stored (durable) or found stored already.
    Done(Appended),
    /// Line `line` (from 1) of the body breaks `violation`'s rule: nothing of it was stored.
    Refused {
        /// The line, from 1.
        line: usize,
        /// The rule and what broke it.
        violation: Violation,
    },
    /// The storage failed; nothing of the request is known to be stored. `confirmed` is false
    /// when the failure struck at the commit point (the ledger refuses writes until reopened).
    Storage {
        /// The error, as text.
        message: String,
    },
}

/// The answer to a stored request (contract: `appended`, `duplicates`, `first`, `last`, `head`,
/// `size`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appended {
    /// Events written for this request, joins inserted by `auto_join` included.
    pub appended: u64,
    /// Its events found stored already.
    pub duplicates: u64,
    /// The first and last sequence numbers written for it (none when all were duplicates).
    pub first: Option<u64>,
    /// See `first`.
    pub last: Option<u64>,
    /// The ledger's head after the group holding it.
    pub head: Head,
}

/// The longest a group waits for the requests it expects ([`Gather`]): a bound on the latency
/// the wait adds, whatever the disk.
pub const MAX_GATHER: Duration = Duration::from_millis(1);

/// How long the next group waits, and for how many requests: group commit with a bounded delay,
/// as PostgreSQL's `commit_delay` and `commit_siblings` and MySQL's
/// `binlog_group_commit_sync_delay` do it, sized from what the sequencer saw.
///
/// Clients that append one request after another come back soon after their answer; with
/// many of them, the requests of those answered by one group arrive while the next group's
/// flush runs, so a sequencer that always takes only what is waiting settles into two halves
/// of the clients taking turns, each half a flush of its own. After a group, the requests it
/// answered and those already waiting are the ones expected next ([`Gather::expect`]); the
/// next group waits for that many, at most half the last flush's time (a wait that doubles a
/// group may cost half a flush and saves a whole one) and at most [`MAX_GATHER`]. With one
/// client, or when every expected request is waiting, it does not wait at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gather {
    /// Requests the next group waits for.
    pub requests: usize,
    /// How long it waits for them at most.
    pub wait: Duration,
}

impl Gather {
    /// What the group after one that answered `answered` requests, with `waiting` more already
    /// queued when it was done, waits for, given that its flush took `flush`.
    pub fn expect(answered: usize, waiting: usize, flush: Duration) -> Gather {
        Gather { requests: answered + waiting, wait: (flush / 2).min(MAX_GATHER) }
    }
}

/// Runs until every sender is gone or the stop job comes (the server stopped taking requests):
/// each group is durable and answered before its requests' answers go out, and every group
/// taken is committed (or refused) before this returns, so every acknowledged event is on disk
/// then.
///
/// Groups of [`crate::Limits::pipeline_events`] events or more (none by default) are
/// pipelined: while a group's syncs run ([`ladder_log::Staged::commit_meanwhile`]),
/// the next group is gathered and staged on top of it ([`ladder_log::Ledger::stage_after`]:
/// checked, hashed and encoded, its writes held in memory), then written and committed once
/// the group below is published ([`ladder_log::Ledger::resume`]). If the syncs below fail,
/// neither group is acknowledged. A group the ledger cannot stage that way (one that would
/// write the id index, or one refused) is staged again, the plain way, after the group below
/// is published.
pub fn run(shared: Arc<Shared>, rx: Receiver<Job>) {
    let mut queue = Queue { rx, backlog: std::collections::VecDeque::new(), stop: false };
    let mut gather = Gather::default();
    // The next group, gathered (and maybe staged on top of the last) while the last one synced.
    let mut carried: Option<Next> = None;
    loop {
        let next = match carried.take() {
            Some(next) => next,
            None => {
                // After the stop job, the requests put back are still committed.
                let Some(jobs) = queue.group(&shared, gather) else { return };
                Next { jobs, held: None }
            }
        };
        let answered = next.jobs.len();

        let (flush, then) = commit_group(&shared, &mut queue, next, gather);
        carried = then;
        gather = Gather::expect(answered, shared.waiting(), flush);
    }
}

/// The sequencer's queue: the channel, requests taken from it but left for a later group
/// (`backlog`), and whether the stop job came.
struct Queue {
    rx: Receiver<Job>,
    backlog: std::collections::VecDeque<Job>,
    stop: bool,
}

impl Queue {
    /// The next request without waiting: the backlog's first, or the channel's.
    fn try_take(&mut self, shared: &Shared) -> Option<Job> {
        if let Some(j) = self.backlog.pop_front() {
            return Some(j);
        }
        if self.stop {
            return None;
        }
        match self.rx.try_recv() {
            Ok(j) => self.taken(shared, j),
            Err(_) => None,
        }
    }

    /// The next request, waiting at most `wait` for one.
    fn take_within(&mut self, shared: &Shared, wait: Duration) -> Option<Job> {
        if let Some(j) = self.try_take(shared) {
            return Some(j);
        }
        if self.stop || wait.is_zero() {
            return None;
        }
        match self.rx.recv_timeout(wait) {
            Ok(j) => self.taken(shared, j),
            Err(_) => None,
        }
    }

    /// A request received: counted out of the waiting ones, or the stop job noted.
    fn taken(&mut self, shared: &Shared, j: Job) -> Option<Job> {
        // A job without events is the stop signal ([`crate::Service::stop`]): the handler
        // refuses an empty body, so no request is one.
        if j.events.is_empty() {
            self.stop = true;
            return None;
        }
        shared.waiting.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        Some(j)
    }

    /// Puts a request back, first in line.
    fn put_back(&mut self, j: Job) {
        self.backlog.push_front(j);
    }

    /// The next group when none is in flight: waits for its first request (`None` once every
    /// sender is gone or the stop job came), then takes every request waiting, and waits for
    /// those `gather` expects.
    fn group(&mut self, shared: &Shared, gather: Gather) -> Option<Vec<Job>> {
        let first = match self.try_take(shared) {
            Some(j) => j,
            None if self.stop => return None,
            None => match self.rx.recv() {
                Ok(j) => self.taken(shared, j)?,
                Err(_) => return None,
            },
        };
        let until = Instant::now() + gather.wait;
        let mut jobs = vec![first];
        self.fill(shared, &mut jobs, gather.requests, || {
            until.saturating_duration_since(Instant::now())
        });
        Some(jobs)
    }

    /// Adds requests to `jobs` (all with the first one's `auto_join`: another is left for a
    /// later group), up to [`MAX_GROUP_EVENTS`] events: every one waiting, and, while fewer
    /// than `expected` are taken, those arriving within `wait()`.
    fn fill(
        &mut self,
        shared: &Shared,
        jobs: &mut Vec<Job>,
        expected: usize,
        wait: impl Fn() -> Duration,
    ) {
        let auto_join = jobs.first().is_some_and(|j| j.auto_join);
        let mut events: usize = jobs.iter().map(|j| j.events.len()).sum();
        while events < MAX_GROUP_EVENTS {
            let j = match self.try_take(shared) {
                Some(j) => j,
                None if jobs.len() < expected => match self.take_within(shared, wait()) {
                    Some(j) => j,
                    None => break,
                },
                None => break,
            };
            if j.auto_join != auto_join {
                self.put_back(j);
                break;
            }
            events += j.events.len();
            jobs.push(j);
        }
    }
}

/// A group to commit next, and what was staged of it on top of the group before
/// ([`ladder_log::Held`]), if anything.
struct Next {
    jobs: Vec<Job>,
    held: Option<ladder_log::Held>,
}

/// Gives every event posted without `at` the sequencer's instant: the clock, but never before
/// an event already in the log or earlier in the group, so concurrent clients never break the
/// time order. A retry of a stamped event (its `id` stored) is found when the append refuses it
/// as an id conflict ([`restamp`]), not looked up here: a lookup per event would cost every
/// append what only a retry needs.
fn stamp(shared: &Shared, jobs: &mut [Job], last_at: Option<Timestamp>) {
    let now = (shared.clock)();
    let mut running = last_at.map_or(now, |t| t.max(now));
    for job in jobs.iter_mut() {
        for p in job.events.iter_mut() {
            if p.stamp {
                p.event.at = running;
            } else {
                running = running.max(p.event.at);
            }
        }
    }
}

/// A stamped event refused as an id conflict may be a retry of one stored earlier (its `at`
/// was the clock's then): it takes the stored event's instant, once, so that it is a duplicate
/// if it is the same event, and a conflict still if it is not. True when it was re-stamped.
fn restamp(ledger: &ladder_log::Ledger, p: &mut Posted) -> bool {
    if !p.stamp {
        return false;
    }
    let stored = p.event.id.as_deref().and_then(|id| {
        let seq = ledger.seq_of_id(id).ok().flatten()?;
        Some(ledger.get(seq).ok().flatten()?.event.at)
    });
    p.stamp = false;
    match stored {
        Some(at) => {
            p.event.at = at;
            true
        }
        None => false,
    }
}

/// Answers every request of a group with the storage failure `message`.
fn fail_all(jobs: Vec<Job>, message: &str) {
    for job in jobs {
        job.answer(Outcome::Storage { message: message.to_string() });
    }
}

/// The append options of a group.
fn options(shared: &Shared, auto_join: bool) -> AppendOptions {
    AppendOptions {
        auto_join,
        ticks: false,
        skip_invalid: false,
        not_after: Some(Timestamp((shared.clock)().0.saturating_add(ladder_events::NANOS_PER_DAY))),
    }
}

/// True when a group of `jobs` is staged with the bulk path ([`ladder_log::Ledger::stage_checked`]):
/// large enough, and its events were checked when their lines were parsed, while stamping
/// changed only the `at` of events whose own rules do not read it (a tick's does: a group holding
/// a tick to stamp takes the plain way), so checking them again refuses none.
fn bulk(jobs: &[Job]) -> bool {
    let offered: usize = jobs.iter().map(|j| j.events.len()).sum();
    offered >= BULK_EVENTS
        && !jobs
            .iter()
            .flat_map(|j| &j.events)
            .any(|p| p.stamp && matches!(p.event.body, Body::MidnightTick))
}

/// Each request's events, in order, as one input.
fn events(jobs: &[Job]) -> impl Iterator<Item = Event> + '_ {
    jobs.iter().flat_map(|j| j.events.iter().map(|p| p.event.clone()))
}

/// Commits one group in three steps, so that reads never wait for the disk:
/// 1. **stage** ([`ladder_log::Ledger::stage`]) under the ledger's *shared* lock: every rule
///    checked and the events written beyond the head, which no read sees (or, for a group
///    staged while the group before synced, [`ladder_log::Ledger::resume`]: its held writes
///    written);
/// 2. **commit** ([`ladder_log::Staged::commit_meanwhile`]), still shared: the flush and the
///    syncs that make the group durable, while the next group is gathered and staged on top
///    of this one (its writes held in memory);
/// 3. **publish** ([`ladder_log::Ledger::publish`]) under the exclusive lock, taken only when no
///    read holds the ledger ([`Shared::publish`]): the head moves, in memory alone; then each
///    request is answered.
///
/// Reads go on through steps 1 and 2 (what [`Shared::hold_next_commit`] pauses between) and wait
/// for no step: the exclusive lock is never queued for while a read holds the ledger.
///
/// Returns how long the group's commit took (for [`Gather::expect`]), and the next group when
/// one was gathered meanwhile.
fn commit_group(
    shared: &Shared,
    queue: &mut Queue,
    next: Next,
    gather: Gather,
) -> (Duration, Option<Next>) {
    let Next { mut jobs, held } = next;
    let auto_join = jobs.first().is_some_and(|j| j.auto_join);
    // The layout work an append does first (merging the log's small trailing blocks) needs the
    // ledger to itself; it is memory and sled's cache, and rare (once per several groups), so
    // the ledger is taken exclusively only when there is some.
    if shared.read_ledger().wants_prepare() {
        if let Err(e) = shared.exclusive(|l| l.prepare_append()) {
            fail_all(jobs, &e.to_string());
            return (Duration::ZERO, None);
        }
    }
    let ledger = shared.read_ledger();
    let head = ledger.head();
    let base = head.seq;
    let staged = match held.and_then(|h| ledger.resume(h).ok()) {
        Some(staged) => {
            shared.pipelined.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            staged
        }
        None => {
            let last_at =
                if base == 0 { None } else { ledger.get(base).ok().flatten().map(|e| e.event.at) };
            stamp(shared, &mut jobs, last_at);
            match stage_plain(shared, &ledger, &mut jobs, auto_join) {
                Some(staged) => staged,
                None => return (Duration::ZERO, None),
            }
        }
    };
    let offered: usize = jobs.iter().map(|j| j.events.len()).sum();
    shared.pause_if_held();
    let t = Instant::now();
    let mut following: Vec<Job> = Vec::new();
    let pipelined = offered >= shared.limits.pipeline_events;
    let meanwhile = |below: Option<ladder_log::Below>| {
        let below = below?;
        // Gather the next group while the syncs run: what is waiting, and those expected
        // until the syncs are done.
        let first = queue.try_take(shared).or_else(|| {
            while !below.is_synced() {
                if let Some(j) = queue.take_within(shared, POLL) {
                    return Some(j);
                }
                if queue.stop {
                    break;
                }
            }
            None
        })?;
        following.push(first);
        // Those answered after the group before this one's come back now (`gather`).
        let expected = gather.requests.max(1);
        queue.fill(shared, &mut following, expected, || {
            if below.is_synced() {
                Duration::ZERO
            } else {
                POLL
            }
        });
        stamp(shared, &mut following, below.last_at());
        let opts = options(shared, following[0].auto_join);
        let staged = if bulk(&following) {
            ledger.stage_after_checked(Some(below), events(&following).map(Checked::new), &opts)
        } else {
            ledger.stage_after(Some(below), events(&following).map(Ok), &opts)
        };
        staged.ok().flatten()
    };
    let (durable, held) =
        if pipelined { staged.commit_meanwhile(meanwhile) } else { (staged.commit(), None) };
    let flush = t.elapsed();
    drop(ledger);
    let then = (!following.is_empty()).then_some(());
    let mut durable = match durable {
        Ok(d) => d,
        Err(e) => {
            // Neither this group nor the one staged on it is acknowledged.
            let message = e.to_string();
            fail_all(jobs, &message);
            fail_all(following, &message);
            return (flush, None);
        }
    };
    // Handed before the head moves, so the filler has them when it sees the tiles full (it
    // writes no tile the ledger does not hold whole).
    if let Some(leaves) = durable.take_leaves() {
        shared.leaves.hand(leaves);
    }
    let report = match shared.publish(durable) {
        Ok(r) => r,
        Err(e) => {
            let message = e.to_string();
            fail_all(jobs, &message);
            fail_all(following, &message);
            return (flush, None);
        }
    };
    let answers = if report.appended == offered as u64 && report.auto_joined == 0 {
        // Every event written, in order, none inserted: no need to read them back.
        consecutive(base, &jobs, report.head)
    } else {
        attribute(&shared.read_ledger(), base, &jobs, auto_join, report.head)
    };
    shared.committed(report.head);
    for (job, a) in jobs.into_iter().zip(answers) {
        job.answer(Outcome::Done(a));
    }
    (flush, then.map(|()| Next { jobs: following, held }))
}

/// How often the gathering of the next group looks whether the syncs below are done.
const POLL: Duration = Duration::from_micros(50);

/// Stages `jobs` the plain way ([`ladder_log::Ledger::stage`], or `stage_checked` for a large
/// group) on the ledger's head: a request whose events break a rule is answered with its
/// refusal and taken out, and the rest staged again; a stamped event refused as an id conflict
/// may be a retry and takes the stored event's instant ([`restamp`]). `None` when nothing is
/// left to commit (every request answered).
fn stage_plain<'l>(
    shared: &Shared,
    ledger: &'l ladder_log::Ledger,
    jobs: &mut Vec<Job>,
    auto_join: bool,
) -> Option<ladder_log::Staged<'l>> {
    loop {
        if jobs.is_empty() {
            return None;
        }
        let mut starts = Vec::with_capacity(jobs.len());
        let mut offered = 0usize;
        for j in jobs.iter() {
            starts.push(offered);
            offered += j.events.len();
        }
        let opts = options(shared, auto_join);
        let staged = if bulk(jobs) {
            ledger.stage_checked(events(jobs).map(Checked::new), &opts)
        } else {
            ledger.stage(events(jobs).map(Ok), &opts)
        };
        match staged {
            Ok(staged) => return Some(staged),
            Err(AppendError::Refused { index, violation }) => {
                let j = starts.partition_point(|&s| s <= index).saturating_sub(1);
                if is_conflict(&violation) {
                    if let Some(p) = jobs[j].events.get_mut(index - starts[j]) {
                        // The sequencer is the ledger's one writer: the id index is its to read.
                        if restamp(ledger, p) {
                            continue;
                        }
                    }
                }
                let job = jobs.remove(j);
                let line =
                    job.events.get(index - starts[j]).map_or(index - starts[j] + 1, |p| p.line);
                job.answer(Outcome::Refused { line, violation });
            }
            Err(e) => {
                fail_all(std::mem::take(jobs), &e.to_string());
                return None;
            }
        }
    }
}

/// The answers when every event of the group was written, in order, and nothing inserted:
/// each request's events are the next sequence numbers after the previous request's.
fn consecutive(base: u64, jobs: &[Job], head: Head) -> Vec<Appended> {
    let mut next = base + 1;
    jobs.iter()
        .map(|job| {
            let n = job.events.len() as u64;
            let a = Appended {
                appended: n,
                duplicates: 0,
                first: (n > 0).then_some(next),
                last: (n > 0).then(|| next + n - 1),
                head,
            };
            next += n;
            a
        })
        .collect()
}

/// Which of the events written after `base` belong to which request: the written events are
/// walked in order beside the requests' events; an event equal to the next written one was
/// written, one that is not was a duplicate, and (with `auto_join`) a PlayerJoined written
/// before an event that names its player is that request's inserted join.
fn attribute(
    ledger: &ladder_log::Ledger,
    base: u64,
    jobs: &[Job],
    auto_join: bool,
    head: Head,
) -> Vec<Appended> {
    let written: Vec<Event> = ledger
        .events(base + 1)
        .take_while(|e| e.as_ref().is_ok_and(|e| e.seq <= head.seq))
        .filter_map(Result::ok)
        .map(|e| e.event)
        .collect();
    let mut cursor = 0usize;
    let mut out = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut a = Appended { appended: 0, duplicates: 0, first: None, last: None, head };
        let note = |a: &mut Appended, i: usize| {
            let seq = base + 1 + i as u64;
            a.appended += 1;
            a.first.get_or_insert(seq);
            a.last = Some(seq);
        };
        for p in &job.events {
            if auto_join {
                while let Some(Event {
                    body: Body::PlayerJoined { player, .. }, id: None, ..
                }) = written.get(cursor)
                {
                    let names_it = match &p.event.body {
                        Body::MatchResult { seats } => seats.iter().any(|s| &s.player == player),
                        Body::QueueTimeout { player: q } => q == player,
                        _ => false,
                    };
                    if !names_it || written[cursor] == p.event {
                        break;
                    }
                    note(&mut a, cursor);
                    cursor += 1;
                }
            }
            if written.get(cursor) == Some(&p.event) {
                note(&mut a, cursor);
                cursor += 1;
            } else {
                a.duplicates += 1;
            }
        }
        out.push(a);
    }
    out
}

/// The rule a refusal's HTTP status follows: a conflict of ids is 409, every other rule 400.
pub fn is_conflict(v: &Violation) -> bool {
    v.rule == Rule::IdConflict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_waits_for_the_requests_answered_and_waiting_at_most_half_a_flush() {
        // 16 answered, 16 waiting when the flush of 1.3 ms was done: wait for 32, 0.65 ms at most.
        let g = Gather::expect(16, 16, Duration::from_micros(1300));
        assert_eq!(g, Gather { requests: 32, wait: Duration::from_micros(650) });
        // A slow disk's flush: the wait is bounded whatever it took.
        assert_eq!(Gather::expect(4, 0, Duration::from_millis(30)).wait, MAX_GATHER);
        // No group before: nothing expected, no wait.
        assert_eq!(Gather::default(), Gather { requests: 0, wait: Duration::ZERO });
    }
}
