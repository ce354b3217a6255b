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
/// Names sit end to end in one arena (`ends[i]` is where name `i` ends), and the hash table holds
/// bare ids: a lookup hashes the name (foldhash, fixed seed) and compares it with at most the few
/// arena names whose hash tags match, so 100,000 players take about 1.5 MB in three allocations.
#[derive(Clone, Default)]
pub struct Roster {
    arena: String,
    ends: Vec<usize>,
    table: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::FixedState,
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
        if let Some(&id) = table.find(hash, |&id| slice(arena, ends, id as usize) == name) {
            return PlayerId(id);
        }
        let id = u32::try_from(ends.len()).expect("fewer than 2^32 players");
        arena.push_str(name);
        ends.push(arena.len());
        table.insert_unique(hash, id, |&id| hasher.hash_one(slice(arena, ends, id as usize)));
        PlayerId(id)
    }

    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<PlayerId> {
        let hash = self.hasher.hash_one(name);
        self.table.find(hash, |&id| self.name_at(id as usize) == name).map(|&id| PlayerId(id))
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
        for n in ["p1", "p10", "p100", "é", "e\u{301}"] {
            let id = r.intern(n);
            assert_eq!(r.name(id), n);
        }
        assert_eq!(r.get("nobody"), None);
    }
}
