//! Interning of player names into dense ids.

use std::hash::BuildHasher;

/// A player's dense index, assigned in order of first appearance (0, 1, 2, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlayerId(pub u32);

impl PlayerId {
    /// The id as an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Names to ids and back. One roster serves every projector of a replay, so names are hashed once
/// per event however many configurations are folded.
///
/// Names sit end to end in one arena (`ends[i]` is where name `i` ends), for [`Roster::name`].
/// Lookups go through an open-addressing table (foldhash with a fixed seed, linear probing, at
/// most half full) of 32-byte slots, each holding a 32-bit hash tag, the id and, for a name of
/// at most 23 bytes, the name itself. So a lookup of a short name reads one slot, one cache line,
/// and compares bytes already there: with 100,000 players the table is bigger than the core's
/// cache, and each extra dependent read (a separate control-byte array, then the arena) was a
/// cache miss per seat, most of a replay's reading time. Longer names are compared in the arena.
/// 100,000 players take about 9 MB.
#[derive(Clone, Default)]
pub struct Roster {
    arena: String,
    ends: Vec<usize>,
    /// A power of two in length (or empty), at most half full.
    slots: Vec<Slot>,
    hasher: foldhash::fast::FixedState,
}

/// Names of at most this many bytes are kept in the roster's table itself.
const INLINE: usize = 23;

/// One entry of the table. `tag` is the top 32 bits of the name's hash with the lowest bit set, so
/// 0 marks an empty slot; `len` is the name's length, or [`LONG`] for a name compared in the
/// arena.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Slot {
    tag: u32,
    id: u32,
    len: u8,
    name: [u8; INLINE],
}

const LONG: u8 = u8::MAX;

impl Slot {
    fn new(tag: u32, id: u32, name: &str) -> Slot {
        let mut slot = Slot { tag, id, len: LONG, name: [0; INLINE] };
        if name.len() <= INLINE {
            slot.len = name.len() as u8;
            slot.name[..name.len()].copy_from_slice(name.as_bytes());
        }
        slot
    }
}

impl std::fmt::Debug for Roster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..self.ends.len()).map(|i| self.name_at(i))).finish()
    }
}

/// Name `i` of an arena with these ends.
#[inline]
fn slice<'a>(arena: &'a str, ends: &[usize], i: usize) -> &'a str {
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &arena[start..ends[i]]
}

/// Where a lookup ended: the id found, or the empty slot where the name would go.
enum Probe {
    Found(u32),
    Vacant(usize),
}

impl Roster {
    /// An empty roster.
    pub fn new() -> Roster {
        Roster::default()
    }

    /// An empty roster with room for `players` names: its table is made once, at the size
    /// [`Roster::intern`] would grow it to by doubling for that many, so interning them moves
    /// nothing. The same ids and lookups as [`Roster::new`] (a test checks it); more names than
    /// `players` grow it as usual.
    pub fn with_capacity(players: usize) -> Roster {
        let mut roster = Roster::new();
        if players > 0 {
            // At most half full, as `intern` keeps it.
            let len = players.saturating_mul(2).checked_next_power_of_two().unwrap_or(16).max(16);
            roster.slots = vec![Slot::default(); len];
            roster.ends.reserve(players);
        }
        roster
    }

    #[inline]
    fn name_at(&self, i: usize) -> &str {
        slice(&self.arena, &self.ends, i)
    }

    /// The hash of `name` split into its tag (never 0) and its home slot.
    #[inline]
    fn hash(&self, name: &str) -> (u32, usize) {
        let h = self.hasher.hash_one(name);
        (((h >> 32) as u32) | 1, h as usize)
    }

    /// Finds `name`, or the slot to put it in. The table must not be empty.
    #[inline]
    fn probe(&self, name: &str, tag: u32, home: usize) -> Probe {
        let mask = self.slots.len() - 1;
        let mut i = home & mask;
        // A short name zero-padded to the slot's width, so that it is compared with a slot's as
        // two fixed-size arrays (a few vector instructions, not a call to memcmp).
        let short = (name.len() <= INLINE).then(|| {
            let mut padded = [0u8; INLINE];
            padded[..name.len()].copy_from_slice(name.as_bytes());
            padded
        });
        loop {
            let slot = &self.slots[i];
            if slot.tag == 0 {
                return Probe::Vacant(i);
            }
            if slot.tag == tag {
                let same = match &short {
                    Some(padded) => usize::from(slot.len) == name.len() && slot.name == *padded,
                    None => slot.len == LONG && self.name_at(slot.id as usize) == name,
                };
                if same {
                    return Probe::Found(slot.id);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `name`, assigning the next one if it is new.
    pub fn intern(&mut self, name: &str) -> PlayerId {
        if 2 * (self.ends.len() + 1) > self.slots.len() {
            self.grow();
        }
        let (tag, home) = self.hash(name);
        match self.probe(name, tag, home) {
            Probe::Found(id) => PlayerId(id),
            Probe::Vacant(i) => {
                let id = u32::try_from(self.ends.len()).expect("fewer than 2^32 players");
                self.arena.push_str(name);
                self.ends.push(self.arena.len());
                self.slots[i] = Slot::new(tag, id, name);
                PlayerId(id)
            }
        }
    }

    /// Doubles the table (at least 16 slots) and puts every name back.
    #[cold]
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); len]);
        let mask = len - 1;
        for slot in old.into_iter().filter(|s| s.tag != 0) {
            let (_, home) = self.hash(self.name_at(slot.id as usize));
            let mut i = home & mask;
            while self.slots[i].tag != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    /// Prefetches the slot where a lookup of `name` starts ([`crate::prefetch`]), so that a
    /// lookup soon after finds it in the cache. A replay touches the names of a few dozen events
    /// before interning them, so their cache misses (with 100,000 players, each a trip to
    /// memory) overlap instead of following one another. Changes nothing.
    #[inline]
    pub fn touch(&self, name: &str) {
        if !self.slots.is_empty() {
            let (_, home) = self.hash(name);
            crate::prefetch(&self.slots[home & (self.slots.len() - 1)]);
        }
    }

    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<PlayerId> {
        if self.slots.is_empty() {
            return None;
        }
        let (tag, home) = self.hash(name);
        match self.probe(name, tag, home) {
            Probe::Found(id) => Some(PlayerId(id)),
            Probe::Vacant(_) => None,
        }
    }

    /// The name of `id`. Panics on an id this roster did not hand out.
    pub fn name(&self, id: PlayerId) -> &str {
        self.name_at(id.index())
    }

    /// How many players were interned.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no player was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_stable() {
        let mut r = Roster::new();
        assert_eq!(r.intern("b"), PlayerId(0));
        assert_eq!(r.intern("a"), PlayerId(1));
        assert_eq!(r.intern("b"), PlayerId(0));
        assert_eq!(r.name(PlayerId(1)), "a");
        assert_eq!(r.get("c"), None);
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn many_names_round_trip() {
        let mut r = Roster::new();
        let names: Vec<String> = (0..10_000).map(|i| format!("p{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(r.intern(n), PlayerId(i as u32));
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(r.get(n), Some(PlayerId(i as u32)));
            assert_eq!(r.intern(n), PlayerId(i as u32));
            assert_eq!(r.name(PlayerId(i as u32)), n);
        }
        // Names that are prefixes of each other, empty-adjacent and non-ASCII stay distinct.
        for n in [
            "p1",
            "p10",
            "p100",
            "é",
            "e\u{301}",
            "",
            "twenty-three-bytes-name",
            "twenty-four-bytes-name!!",
        ] {
            let id = r.intern(n);
            assert_eq!(r.name(id), n);
            assert_eq!(r.get(n), Some(id));
        }
        // Long names (compared in the arena) beside short ones with the same prefix.
        let long = "a-name-longer-than-the-inline-part";
        let short = &long[..INLINE];
        let (l, s) = (r.intern(long), r.intern(short));
        assert_ne!(l, s);
        assert_eq!((r.get(long), r.get(short)), (Some(l), Some(s)));
        assert_eq!((r.name(l), r.name(s)), (long, short));
        assert_eq!(r.get("nobody"), None);
    }

    proptest::proptest! {
        /// Against a plain map: the same ids for the same names, in order of first appearance,
        /// across table growth, short and long names, and names that share long prefixes.
        #[test]
        fn interning_matches_a_plain_map(
            names in proptest::collection::vec("[ab]{0,3}|x{20,26}[ab]?|.{1,30}", 1..400),
        ) {
            let mut r = Roster::new();
            // Sized for fewer, as many, or more names than come: the same ids either way.
            let mut sized: Vec<Roster> =
                [0, 1, names.len() / 2, names.len(), 3 * names.len()].map(Roster::with_capacity).into();
            let mut model = std::collections::HashMap::new();
            for n in &names {
                let next = model.len() as u32;
                let want = *model.entry(n.clone()).or_insert(next);
                proptest::prop_assert_eq!(r.intern(n), PlayerId(want));
                for s in &mut sized {
                    proptest::prop_assert_eq!(s.intern(n), PlayerId(want));
                }
            }
            for s in &sized {
                proptest::prop_assert_eq!(s.len(), model.len());
                for (n, &id) in &model {
                    proptest::prop_assert_eq!(s.get(n), Some(PlayerId(id)));
                }
            }
            proptest::prop_assert_eq!(r.len(), model.len());
            for (n, &id) in &model {
                proptest::prop_assert_eq!(r.get(n), Some(PlayerId(id)));
                proptest::prop_assert_eq!(r.name(PlayerId(id)), n.as_str());
            }
            proptest::prop_assert_eq!(r.get("not-a-name-of-the-strategy-above-at-all-0"), None);
        }
    }
}
