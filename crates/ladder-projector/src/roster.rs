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
/// The hash table (foldhash, fixed seed) holds each id with a copy of its name when the name has
/// at most 19 bytes, so a lookup of such a name reads one table entry and compares bytes
/// already there, instead of following the id to the arena: with 100,000 players, the table, the
/// ends and the arena are each bigger than the cache, and those two extra misses were most of a
/// replay's reading time. Longer names are compared in the arena. 100,000 players take about
/// 5 MB.
#[derive(Clone, Default)]
pub struct Roster {
    arena: String,
    ends: Vec<usize>,
    table: hashbrown::HashTable<Slot>,
    hasher: foldhash::fast::FixedState,
}

/// Names of at most this many bytes are kept in the roster's hash table itself.
pub(crate) const INLINE: usize = 19;

/// A table entry: the id, and the name when it is short (`len` <= [`INLINE`]); `len` is
/// [`LONG`] for a longer name, which is compared in the arena.
#[derive(Clone, Copy)]
struct Slot {
    id: u32,
    len: u8,
    name: [u8; INLINE],
}

const LONG: u8 = u8::MAX;

impl Slot {
    fn new(id: u32, name: &str) -> Slot {
        let mut slot = Slot { id, len: LONG, name: [0; INLINE] };
        if name.len() <= INLINE {
            slot.len = name.len() as u8;
            slot.name[..name.len()].copy_from_slice(name.as_bytes());
        }
        slot
    }

    /// True when this entry is `name` (the arena is read only for long names).
    #[inline]
    fn is(&self, name: &str, arena: &str, ends: &[usize]) -> bool {
        let n = name.len();
        if n <= INLINE {
            usize::from(self.len) == n && self.name[..n] == *name.as_bytes()
        } else {
            self.len == LONG && slice(arena, ends, self.id as usize) == name
        }
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

impl Roster {
    /// An empty roster.
    pub fn new() -> Roster {
        Roster::default()
    }

    #[inline]
    fn name_at(&self, i: usize) -> &str {
        slice(&self.arena, &self.ends, i)
    }

    /// The id of `name`, assigning the next one if it is new.
    pub fn intern(&mut self, name: &str) -> PlayerId {
        let Roster { arena, ends, table, hasher } = self;
        let hash = hasher.hash_one(name);
        if let Some(slot) = table.find(hash, |slot| slot.is(name, arena, ends)) {
            return PlayerId(slot.id);
        }
        let id = u32::try_from(ends.len()).expect("fewer than 2^32 players");
        arena.push_str(name);
        ends.push(arena.len());
        table.insert_unique(hash, Slot::new(id, name), |slot| {
            hasher.hash_one(slice(arena, ends, slot.id as usize))
        });
        PlayerId(id)
    }

    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<PlayerId> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |slot| slot.is(name, &self.arena, &self.ends))
            .map(|slot| PlayerId(slot.id))
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
        for n in
            ["p1", "p10", "p100", "é", "e\u{301}", "", "nineteen-bytes-name", "twenty-bytes-name!!"]
        {
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
}
