//! Interning of player names into dense ids.

use std::collections::HashMap;

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
#[derive(Clone, Debug, Default)]
pub struct Roster {
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, PlayerId>,
}

impl Roster {
    /// An empty roster.
    pub fn new() -> Roster {
        Roster::default()
    }

    /// The id of `name`, assigning the next one if it is new.
    pub fn intern(&mut self, name: &str) -> PlayerId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = PlayerId(u32::try_from(self.names.len()).expect("fewer than 2^32 players"));
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<PlayerId> {
        self.ids.get(name).copied()
    }

    /// The name of `id`. Panics on an id this roster did not hand out.
    pub fn name(&self, id: PlayerId) -> &str {
        &self.names[id.index()]
    }

    /// How many players were interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no player was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
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
}
