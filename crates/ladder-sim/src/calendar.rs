//! A calendar queue: the simulation's future happenings, popped in order of their keys.
//!
//! A binary heap of every pending happening holds about one entry per player (each has a queue
//! entry scheduled, often days ahead), so with 100,000 players every pop walked seventeen levels of
//! a heap far larger than the cache, and that was a third of the generation time. Here only the
//! current hour's happenings sit in a heap; the next [`HORIZON`] hours are unsorted buckets in a
//! ring, and anything later waits in a second heap until its hour comes within the horizon. The
//! order of pops is exactly the heap's: by key, and the key starts with the instant (checked
//! against a plain heap in the tests below).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The width of a bucket: one hour, in nanoseconds.
const SLOT: i64 = 3_600 * 1_000_000_000;
/// Buckets in the ring: 4096 hours, about 170 days.
const HORIZON: i64 = 4_096;

/// Something scheduled at an instant. Its `Ord` must order by [`Timed::at`] first.
pub(crate) trait Timed: Ord {
    /// The instant, in nanoseconds.
    fn at(&self) -> i64;
}

/// The queue. Invariants: `now` holds every item of a slot up to `slot`; `ring[s % HORIZON]`
/// holds the items of slot `s` for `slot < s <= slot + HORIZON`; `far` holds the later ones.
#[derive(Clone, Debug)]
pub(crate) struct Calendar<T> {
    slot: i64,
    now: BinaryHeap<Reverse<T>>,
    ring: Vec<Vec<T>>,
    in_ring: usize,
    far: BinaryHeap<Reverse<T>>,
}

fn slot_of(at: i64) -> i64 {
    at.div_euclid(SLOT)
}

impl<T: Timed> Calendar<T> {
    /// An empty queue whose current hour is the one holding `at`.
    pub(crate) fn new(at: i64) -> Calendar<T> {
        Calendar {
            slot: slot_of(at),
            now: BinaryHeap::new(),
            ring: (0..HORIZON).map(|_| Vec::new()).collect(),
            in_ring: 0,
            far: BinaryHeap::new(),
        }
    }

    /// Schedules `item`.
    pub(crate) fn push(&mut self, item: T) {
        let s = slot_of(item.at());
        if s <= self.slot {
            self.now.push(Reverse(item));
        } else if s - self.slot <= HORIZON {
            self.ring[s.rem_euclid(HORIZON) as usize].push(item);
            self.in_ring += 1;
        } else {
            self.far.push(Reverse(item));
        }
    }

    /// The first item, if any (moving the hour forward to find it).
    pub(crate) fn peek(&mut self) -> Option<&T> {
        while self.now.is_empty() {
            if self.in_ring == 0 && self.far.is_empty() {
                return None;
            }
            self.advance();
        }
        self.now.peek().map(|r| &r.0)
    }

    /// Removes and returns the first item.
    pub(crate) fn pop(&mut self) -> Option<T> {
        self.peek()?;
        self.now.pop().map(|r| r.0)
    }

    /// Moves to the next hour: its bucket becomes the heap, and the hour entering the horizon
    /// takes its items from `far`.
    fn advance(&mut self) {
        if self.in_ring == 0 {
            // Nothing within the horizon: jump to just before the first far item's hour.
            if let Some(Reverse(first)) = self.far.peek() {
                self.slot = self.slot.max(slot_of(first.at()) - 1);
            }
        }
        self.slot += 1;
        let bucket = &mut self.ring[self.slot.rem_euclid(HORIZON) as usize];
        self.in_ring -= bucket.len();
        self.now.extend(bucket.drain(..).map(Reverse));
        let edge = self.slot + HORIZON;
        while self.far.peek().is_some_and(|Reverse(x)| slot_of(x.at()) <= edge) {
            let Reverse(x) = self.far.pop().expect("peeked");
            self.push(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Xoshiro256;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct Item(i64, u64);

    impl Timed for Item {
        fn at(&self) -> i64 {
            self.0
        }
    }

    #[test]
    fn pops_in_the_order_of_a_plain_heap() {
        let mut rng = Xoshiro256::new(5);
        let start = -3 * SLOT + 17; // before the epoch too
        let mut cal = Calendar::new(start);
        let mut heap = BinaryHeap::new();
        let mut now = start;
        let mut seq = 0;
        for round in 0..20_000 {
            // Mostly near-future items, some within the horizon, some far beyond it, some at
            // the current instant.
            for _ in 0..rng.between(0, 3) {
                let ahead = match rng.between(0, 9) {
                    0 => 0,
                    1..=6 => rng.between(0, 3 * SLOT as u64) as i64,
                    7 | 8 => rng.between(0, (HORIZON * SLOT) as u64) as i64,
                    _ => rng.between(0, (5 * HORIZON * SLOT) as u64) as i64,
                };
                seq += 1;
                cal.push(Item(now + ahead, seq));
                heap.push(Reverse(Item(now + ahead, seq)));
            }
            if round % 3 != 0 {
                let a = cal.pop();
                let b = heap.pop().map(|r| r.0);
                assert_eq!(a, b);
                if let Some(x) = a {
                    assert!(x.0 >= now);
                    now = x.0;
                }
            }
        }
        while let Some(Reverse(b)) = heap.pop() {
            assert_eq!(cal.pop(), Some(b));
        }
        assert_eq!(cal.pop(), None);
    }
}
