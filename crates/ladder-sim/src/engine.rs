//! The discrete-event simulation behind [`crate::simulate`].
//!
//! Future happenings (a player entering the queue, a wait running out, a game ending, a late
//! joiner's date) sit in one calendar queue ordered by (instant, scheduling order); midnights are
//! handled between them. Each happening may emit events into a small buffer the iterator drains.
//! Per player: one [`Person`]; per instant in flight: at most one scheduled happening per player plus the
//! stale timeouts of waits that ended in a match (dropped when their instant comes).

use crate::calendar::{Calendar, Timed};
use crate::rng::{hashed_normal, Xoshiro256};
use crate::{SimParams, TrueSkill, END_OF_TIME};
use ladder_events::{Body, Event, Prior, Seat, Timestamp, NANOS_PER_DAY, NANOS_PER_SECOND};
use ladder_projector::{Config, PlayerId};
use ladder_tgr::formulas::{day_frac, midnights};
use ladder_tgr::{pair, update_player, Constants, Player, QUEUE_WAIT_SECONDS};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// The queueing rate is divided by the share of queue entries that found an opponent, but never by
/// less than this: a ladder whose players cannot fit each other queues at most 100 times as often.
const MIN_SUCCESS: f64 = 0.01;

/// Keys that separate the counter-based draws of the hidden skills.
const KEY_INITIAL: u64 = 1;
const KEY_DRIFT: u64 = 2;

/// Where a joined player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Not joined yet.
    Absent,
    /// Between queue entries (an `Arrive` is scheduled, or nothing once all matches started).
    Away,
    /// In the queue; the wait with this ticket runs out at the scheduled `Timeout`.
    Waiting,
    /// In a game (an `End` is scheduled).
    Playing,
}

/// One player's state: the hidden skill, TGR's view of them, and where they are.
#[derive(Clone, Debug)]
struct Person {
    status: Status,
    /// Numbers the player's waits, so a `Timeout` of a wait that ended in a match is recognised.
    ticket: u32,
    /// The hidden skill on day `skill_day`.
    skill: f64,
    skill_day: i64,
    initial_skill: f64,
    joined: i64,
    matches: u64,
    /// The current active spell ends here (nanoseconds); later queue entries wait for an idle spell.
    active_until: i64,
}

/// TGR's values of a player as the projector holds them after the player's last event (seed
/// 000's `Player`), and the UTC day they are caught up to. Kept apart from [`Person`]: the queue
/// scan reads only these, and 32 bytes a player stay in cache where a whole `Person` would not.
#[derive(Clone, Copy, Debug)]
struct Estimate {
    values: Player,
    day: i64,
}

/// A scheduled happening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum What {
    /// The player enters the queue.
    Arrive(u32),
    /// The player's wait with this ticket runs out.
    Timeout(u32, u32),
    /// The game between the two players ends; it lasted this many seconds.
    End(u32, u32, u32),
    /// The date of the next late joiner.
    Join,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    at: i64,
    seq: u64,
    what: What,
}

impl Timed for Pending {
    fn at(&self) -> i64 {
        self.at
    }
}

/// A simulated ladder: an iterator over its [`Event`]s, in the order the ledger takes them.
///
/// The stream ends with the `matches`-th `MatchResult`, after every player has joined. A ladder
/// that could not play its matches before [`END_OF_TIME`] (a handful of players whose ratings no
/// longer fit each other's band, say) ends at the last event before it, with fewer matches; the
/// parameters [`crate::simulate`] accepts make that a corner case, and [`Simulation::matches`]
/// tells.
#[derive(Clone, Debug)]
pub struct Simulation {
    p: SimParams,
    k: Constants,
    initial_rating: f64,
    initial_rd: f64,
    rng: Xoshiro256,
    /// Digits in the largest player number: names are zero-padded to it.
    width: usize,
    people: Vec<Person>,
    /// TGR's view of each player, by player index.
    est: Vec<Estimate>,
    queue: Calendar<Pending>,
    seq: u64,
    /// The queue, in order of entry.
    waiting: Vec<u32>,
    /// Scratch for [`pair`]'s input.
    candidates: Vec<(PlayerId, f64, f64)>,
    out: VecDeque<Event>,
    /// The instant of the happening being processed.
    now: i64,
    /// The UTC day whose midnight was passed last.
    day: i64,
    /// The instant of the last event generated.
    last_at: i64,
    started: u64,
    finished: u64,
    timeouts: u64,
    entries: u64,
    initial: u32,
    next_joiner: u32,
    base_rate: f64,
    id_prefix: String,
    ended: bool,
}

impl Simulation {
    pub(crate) fn new(p: SimParams) -> Simulation {
        // TGR with its default constants (docs/spec.md), from the crate's own table.
        let config = Config::new(ladder_tgr::ALGORITHM, ladder_tgr::PARAMS, &[])
            .expect("TGR's defaults are valid");
        let k = Constants {
            sc: config.number("sc"),
            p: config.number("p"),
            rd_max: config.number("rd_max"),
        };
        let width = p.players.to_string().len();
        let absent = Person {
            status: Status::Absent,
            ticket: 0,
            skill: 0.0,
            skill_day: 0,
            initial_skill: 0.0,
            joined: 0,
            matches: 0,
            active_until: 0,
        };
        let start = p.start.0;
        let mut sim = Simulation {
            k,
            initial_rating: config.number("initial_rating"),
            initial_rd: config.number("initial_rd"),
            rng: Xoshiro256::new(p.seed),
            width,
            people: vec![absent; p.players as usize],
            est: vec![
                Estimate { values: Player { rating: 0.0, rd: 1.0, time: 0.0 }, day: 0 };
                p.players as usize
            ],
            queue: Calendar::new(start),
            seq: 0,
            waiting: Vec::new(),
            candidates: Vec::new(),
            out: VecDeque::new(),
            now: start,
            day: start.div_euclid(NANOS_PER_DAY),
            last_at: start,
            started: 0,
            finished: 0,
            timeouts: 0,
            entries: 0,
            initial: p.initial_players(),
            next_joiner: 0,
            base_rate: p.queue_rate(),
            id_prefix: format!("s{}-", p.seed),
            ended: false,
            p,
        };
        for i in 0..sim.initial {
            sim.join(i);
        }
        sim.joins_by_matches();
        sim.schedule_join();
        sim
    }

    /// Matches recorded so far.
    pub fn matches(&self) -> u64 {
        self.finished
    }

    /// Queue timeouts recorded so far.
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }

    /// The parameters.
    pub fn params(&self) -> &SimParams {
        &self.p
    }

    /// The hidden skill of every player who has joined, in name order, as of the last event
    /// generated (all of them once the iterator is exhausted). Reading it draws nothing from the
    /// stream, so it may be called at any point without changing the events that follow.
    pub fn truth(&self) -> Vec<TrueSkill> {
        let day = self.last_at.div_euclid(NANOS_PER_DAY);
        self.people
            .iter()
            .enumerate()
            .filter(|(_, p)| p.status != Status::Absent)
            .map(|(i, p)| TrueSkill {
                player: self.name(i as u32),
                skill: self.skill_at(i as u32, day),
                initial: p.initial_skill,
                joined: Timestamp(p.joined),
                matches: p.matches,
                at: Timestamp(self.last_at),
            })
            .collect()
    }

    /// Runs happenings until an event is buffered or the ladder is over.
    fn fill(&mut self) {
        while self.out.is_empty() && !self.ended {
            if self.finished == self.p.matches {
                self.ended = true;
                break;
            }
            let Some(&next) = self.queue.peek() else {
                self.ended = true;
                break;
            };
            if next.at > END_OF_TIME.0 {
                self.ended = true;
                break;
            }
            let midnight = (self.day + 1) * NANOS_PER_DAY;
            if next.at >= midnight {
                // Everything still pending is at or after this midnight, and the ladder is not
                // over, so an event follows the tick.
                self.midnight(midnight);
                continue;
            }
            self.queue.pop();
            self.now = next.at;
            match next.what {
                What::Arrive(i) => self.arrive(i),
                What::Timeout(i, ticket) => self.timeout(i, ticket),
                What::End(a, b, seconds) => self.end(a, b, seconds),
                What::Join => {
                    while self.next_joiner < self.p.players
                        && self.join_date(self.next_joiner) <= self.now
                    {
                        self.join(self.next_joiner);
                    }
                    self.schedule_join();
                }
            }
        }
    }

    fn push(&mut self, at: i64, what: What) {
        self.seq += 1;
        self.queue.push(Pending { at, seq: self.seq, what });
    }

    fn emit(&mut self, id: Option<String>, body: Body) {
        self.last_at = self.now;
        self.out.push_back(Event { at: Timestamp(self.now), id, body });
    }

    /// Player `i`'s name, `p` and the number from 1, zero-padded to one width. Written on demand
    /// rather than kept: with a million players, reading a stored name costs two cache misses,
    /// writing it a few digits.
    fn name(&self, i: u32) -> String {
        let mut digits = [b'0'; 10];
        let mut n = i + 1;
        let mut k = digits.len();
        while n > 0 {
            k -= 1;
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let mut name = String::with_capacity(self.width + 1);
        name.push('p');
        let first = digits.len() - self.width.max(digits.len() - k);
        name.push_str(std::str::from_utf8(&digits[first..]).expect("ASCII digits"));
        name
    }

    fn id(&self, kind: char, n: u64) -> String {
        let mut id = String::with_capacity(self.id_prefix.len() + 12);
        id.push_str(&self.id_prefix);
        id.push(kind);
        write!(id, "{n}").expect("writing to a String cannot fail");
        id
    }

    // ---- joining ------------------------------------------------------------------------------

    /// Joins player `i` (the next joiner) now.
    fn join(&mut self, i: u32) {
        debug_assert_eq!(i, self.next_joiner);
        self.next_joiner += 1;
        let day = self.now.div_euclid(NANOS_PER_DAY);
        let skill = self.p.skill_mean
            + self.p.skill_sd * hashed_normal(&[self.p.seed, KEY_INITIAL, u64::from(i)]);
        let active = self.rng.exponential_seconds(self.p.active_days * 86_400.0);
        let now = self.now;
        let person = &mut self.people[i as usize];
        // TGR text, new player: NewPlayer.Rating = 1500; NewPlayer.RD = 350; NewPlayer.Time =
        // DayFrac(); (TGR's initial_rating and initial_rd).
        self.est[i as usize] = Estimate {
            values: Player {
                rating: self.initial_rating,
                rd: self.initial_rd,
                time: day_frac(now.rem_euclid(NANOS_PER_DAY)),
            },
            day,
        };
        person.skill = skill;
        person.skill_day = day;
        person.initial_skill = skill;
        person.joined = now;
        person.status = Status::Away;
        person.active_until = now.saturating_add(active.saturating_mul(NANOS_PER_SECOND));
        let id = self.id('j', u64::from(i) + 1);
        let player = self.name(i);
        self.emit(Some(id), Body::PlayerJoined { player, prior: Prior::default() });
        self.schedule_arrival(i);
    }

    /// The number of started matches at which late joiner `i` joins.
    fn join_threshold(&self, i: u32) -> u64 {
        let late = f64::from(self.p.players - self.initial);
        let k = f64::from(i - self.initial + 1);
        (k * self.p.join_window * self.p.matches as f64 / late).ceil() as u64
    }

    /// The instant at which late joiner `i` joins, if the matches have not brought them in before.
    fn join_date(&self, i: u32) -> i64 {
        let late = f64::from(self.p.players - self.initial);
        let k = f64::from(i - self.initial + 1);
        let seconds = (k * self.p.join_window * self.p.days * 86_400.0 / late).round() as i64;
        self.p.start.0 + seconds * NANOS_PER_SECOND
    }

    fn joins_by_matches(&mut self) {
        while self.next_joiner < self.p.players
            && self.started >= self.join_threshold(self.next_joiner)
        {
            self.join(self.next_joiner);
        }
    }

    /// Keeps one `Join` in the queue for the next late joiner's date.
    fn schedule_join(&mut self) {
        if self.next_joiner < self.p.players {
            let at = self.join_date(self.next_joiner).max(self.now);
            self.push(at, What::Join);
        }
    }

    // ---- queueing -----------------------------------------------------------------------------

    /// Schedules player `i`'s next queue entry after a gap, or after an idle spell if the active
    /// one ends first. Nothing once every match has started.
    fn schedule_arrival(&mut self, i: u32) {
        self.people[i as usize].status = Status::Away;
        if self.started >= self.p.matches || self.base_rate <= 0.0 {
            return;
        }
        let found = (2 * self.started + 1) as f64 / (self.entries + 1) as f64;
        let rate = self.base_rate / found.clamp(MIN_SUCCESS, 1.0);
        let gap = self.rng.exponential_seconds(86_400.0 / rate);
        let mut at = self.now.saturating_add(gap.saturating_mul(NANOS_PER_SECOND));
        let until = self.people[i as usize].active_until;
        if at > until {
            // The active spell ended before the next entry: an idle spell, then a new active one.
            let idle = self.rng.exponential_seconds(self.p.idle_days * 86_400.0);
            let active = self.rng.exponential_seconds(self.p.active_days * 86_400.0);
            at = until.max(self.now).saturating_add(idle.saturating_mul(NANOS_PER_SECOND));
            self.people[i as usize].active_until =
                at.saturating_add(active.saturating_mul(NANOS_PER_SECOND));
        }
        self.push(at, What::Arrive(i));
    }

    /// Player `i`'s TGR values on `day`, pending midnights applied on the side
    /// (`Tgr::values_at`).
    fn values_at(&self, i: u32, day: i64) -> Player {
        let e = self.est[i as usize];
        if day > e.day {
            Player { rating: e.values.rating, rd: self.pending_rd(e, day), time: 0.0 }
        } else {
            e.values
        }
    }

    fn pending_rd(&self, e: Estimate, day: i64) -> f64 {
        // TGR text, midnight: Player.RD = min(sqrt(Player.RD^2 + PTime * SC^2), 350), for every
        // midnight since the player's last update at once (the projector's lazy midnights).
        midnights(e.values.rd, e.values.time, day - e.day, &self.k)
    }

    /// Applies player `i`'s pending midnights (`Tgr`'s `touch`).
    fn catch_up(&mut self, i: u32, day: i64) {
        let values = self.values_at(i, day);
        let e = &mut self.est[i as usize];
        e.values = values;
        e.day = e.day.max(day);
    }

    /// The TGR text's queue scan for player `i` against the waiting players (all but `skip`): the
    /// index in `waiting` of the opponent [`pair`] chooses.
    fn scan(&mut self, i: u32, skip: Option<usize>) -> Option<usize> {
        let day = self.now.div_euclid(NANOS_PER_DAY);
        let me = self.values_at(i, day);
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        for (n, &w) in self.waiting.iter().enumerate() {
            if Some(n) != skip {
                let v = self.values_at(w, day);
                candidates.push((PlayerId(w), v.rating, v.rd));
            }
        }
        let choice = pair((me.rating, me.rd), &candidates);
        self.candidates = candidates;
        let opponent = choice.opponent?.player.0;
        self.waiting.iter().position(|&w| w == opponent)
    }

    /// Player `i` enters the queue now.
    fn arrive(&mut self, i: u32) {
        self.entries += 1;
        if self.started >= self.p.matches {
            self.people[i as usize].status = Status::Away;
            return;
        }
        match self.scan(i, None) {
            Some(n) => {
                let opponent = self.waiting.remove(n);
                self.start_match(i, opponent);
            }
            None => {
                self.waiting.push(i);
                let p = &mut self.people[i as usize];
                p.status = Status::Waiting;
                p.ticket = p.ticket.wrapping_add(1);
                let ticket = p.ticket;
                self.push(
                    self.now + QUEUE_WAIT_SECONDS * NANOS_PER_SECOND,
                    What::Timeout(i, ticket),
                );
            }
        }
    }

    /// Player `i`'s wait with `ticket` ran out: a `QueueTimeout` if they are still waiting.
    fn timeout(&mut self, i: u32, ticket: u32) {
        let p = &self.people[i as usize];
        if p.status != Status::Waiting || p.ticket != ticket {
            return; // that wait ended in a match
        }
        if let Some(n) = self.waiting.iter().position(|&w| w == i) {
            self.waiting.remove(n);
        }
        let day = self.now.div_euclid(NANOS_PER_DAY);
        self.catch_up(i, day);
        // TGR text, queue: If P = 0.35 then { Player.Time = DayFrac(); ... }
        self.est[i as usize].values.time = day_frac(self.now.rem_euclid(NANOS_PER_DAY));
        self.timeouts += 1;
        let id = self.id('t', self.timeouts);
        let player = self.name(i);
        self.emit(Some(id), Body::QueueTimeout { player });
        self.schedule_arrival(i);
    }

    /// A midnight passes: the tick, then the waiting players scan each other again, since every
    /// RD just grew (the seed's waiting players scan continuously).
    fn midnight(&mut self, at: i64) {
        self.now = at;
        self.day += 1;
        self.emit(None, Body::MidnightTick);
        let mut n = 0;
        while n < self.waiting.len() && self.started < self.p.matches {
            match self.scan(self.waiting[n], Some(n)) {
                Some(m) => {
                    let (a, b) = (self.waiting[n], self.waiting[m]);
                    self.waiting.remove(n.max(m));
                    self.waiting.remove(n.min(m));
                    self.start_match(a, b);
                }
                None => n += 1,
            }
        }
    }

    // ---- games --------------------------------------------------------------------------------

    fn start_match(&mut self, a: u32, b: u32) {
        self.people[a as usize].status = Status::Playing;
        self.people[b as usize].status = Status::Playing;
        self.started += 1;
        let (lo, hi) = self.p.game_seconds;
        let seconds = self.rng.between(u64::from(lo), u64::from(hi)) as u32;
        self.push(self.now + i64::from(seconds) * NANOS_PER_SECOND, What::End(a, b, seconds));
        self.joins_by_matches();
    }

    /// Player `i`'s hidden skill on `day`: the random walk's steps since `skill_day` at once.
    fn skill_at(&self, i: u32, day: i64) -> f64 {
        let p = &self.people[i as usize];
        if day <= p.skill_day {
            return p.skill;
        }
        let days = (day - p.skill_day) as u64;
        let z = hashed_normal(&[self.p.seed, KEY_DRIFT, u64::from(i), p.skill_day as u64, days]);
        p.skill + self.p.drift_sd * (days as f64).sqrt() * z
    }

    fn end(&mut self, a: u32, b: u32, seconds: u32) {
        let day = self.now.div_euclid(NANOS_PER_DAY);
        for i in [a, b] {
            let s = self.skill_at(i, day);
            let p = &mut self.people[i as usize];
            p.skill = s;
            p.skill_day = p.skill_day.max(day);
        }
        let (sa, sb) = (self.people[a as usize].skill, self.people[b as usize].skill);
        let win = if self.rng.uniform() < self.p.draw_rate {
            0.5
        } else {
            let p_first = 1.0 / (1.0 + ladder_projector::math::pow(10.0, (sb - sa) / 400.0));
            if self.rng.uniform() < p_first {
                1.0
            } else {
                0.0
            }
        };
        // TGR's battle, as the projector does it: pending midnights, then the TGR text's
        // UpdatePlayer(Player1,Player2,Time,Win); UpdatePlayer(Player2,Player1,Time,1-Win); with
        // the second call seeing the first's result (order=as-written).
        self.catch_up(a, day);
        self.catch_up(b, day);
        let time = day_frac(self.now.rem_euclid(NANOS_PER_DAY));
        let (a0, b0) = (self.est[a as usize].values, self.est[b as usize].values);
        if let Ok(ua) = update_player(a0, b0, time, win, &self.k) {
            if let Ok(ub) = update_player(b0, ua.after, time, 1.0 - win, &self.k) {
                self.est[a as usize].values = ua.after;
                self.est[b as usize].values = ub.after;
            }
            // Otherwise (PE rounding to 0 or 1, ratings thousands of points apart, which the
            // band excludes) the projector would refuse the match; the estimates stay.
        }
        self.finished += 1;
        self.people[a as usize].matches += 1;
        self.people[b as usize].matches += 1;
        let seat = |player: String, score: f64| Seat {
            player,
            score,
            team: None,
            seconds: Some(f64::from(seconds)),
            home: false,
        };
        let seats = vec![seat(self.name(a), win), seat(self.name(b), 1.0 - win)];
        let id = self.id('m', self.finished);
        self.emit(Some(id), Body::MatchResult { seats });
        if self.finished < self.p.matches {
            self.schedule_arrival(a);
            self.schedule_arrival(b);
        }
    }
}

impl Iterator for Simulation {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        if self.out.is_empty() {
            self.fill();
        }
        self.out.pop_front()
    }
}
