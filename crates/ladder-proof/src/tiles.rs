//! The tree as C2SP tlog-tiles (<https://c2sp.org/tlog-tiles>, the version of 2024 with entry
//! bundles under `tile/entries/`): which tiles a tree of a given size has, their paths, and the
//! bytes of any tile, hash tile or entry bundle, from a [`TileSource`]. Pure: the caller reads and
//! writes the bytes (`ladder publish` writes files, a server would answer requests), so the same
//! function produces them everywhere and the two cannot drift.
//!
//! - The `n`-th hash tile at level `l` holds, for `i` from 0 to its width - 1, the RFC 6962
//!   hash of the perfect subtree over leaves `[(n * 256 + i) * 256^l, (n * 256 + i + 1) * 256^l)`:
//!   in [`Subtrees`] terms, `subtree(8 * l, n * 256 + i)`. A full tile is 256 hashes (8,192 bytes).
//! - A tree of size `s` has, at level `l`, `s / 256^l` such hashes: full tiles of 256, then a
//!   partial tile of `(s / 256^l) mod 256` hashes when that is not 0 (C2SP: "empty tiles MUST NOT
//!   be served").
//! - The `n`-th entry bundle holds the entries of the `n`-th level-0 tile, each prefixed by its
//!   length as a big-endian `u16` (so an entry is at most 65,535 bytes).
//! - Paths: `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`, `<N>` in groups of three digits,
//!   every group but the last prefixed with `x` (1234067 is `x001/x234/067`).

use crate::tree::{perfect_root, Hash, Subtrees};
use std::collections::HashMap;
use std::fmt;

/// Levels of the tree one tile spans: tiles are 2^8 = 256 hashes wide.
pub const TILE_HEIGHT: u32 = 8;
/// Hashes in a full tile, entries in a full bundle.
pub const TILE_WIDTH: u32 = 1 << TILE_HEIGHT;
/// The longest entry an entry bundle can hold: its length prefix is a `u16`.
pub const MAX_ENTRY_BYTES: usize = u16::MAX as usize;
/// The highest tile level a path may name (C2SP: 0 to 63).
const MAX_LEVEL: u8 = 63;

/// What a tile holds: hashes of one level, or entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TileKind {
    /// A hash tile of this level (0: leaf hashes).
    Hashes(u8),
    /// An entry bundle (the entries of the level-0 tile of the same index).
    Entries,
}

/// One tile: its kind, its index within its level, and its width (1 to 256; 256 is full).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    /// Hashes of a level, or entries.
    pub kind: TileKind,
    /// The index within the level (`N`).
    pub index: u64,
    /// Hashes or entries held, 1 to [`TILE_WIDTH`].
    pub width: u32,
}

/// A path that is not a tile path of C2SP tlog-tiles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path:?} is not a tlog-tiles path: {problem}")]
pub struct TilePathError {
    /// The path given.
    pub path: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Tile bytes that do not have the form their tile requires.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TileFormatError {
    /// A hash tile whose length is not 32 times its width.
    #[error("tile {path}: {len} bytes, a tile of {width} hashes has {expected}")]
    HashTileLength {
        /// The tile's path.
        path: String,
        /// The bytes found.
        len: usize,
        /// The tile's width.
        width: u32,
        /// 32 times the width.
        expected: usize,
    },
    /// An entry bundle that ends inside an entry, holds another number of entries than its
    /// width, or has bytes after its last entry.
    #[error("entry bundle {path}: {problem}")]
    Bundle {
        /// The bundle's path.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

/// Why the bytes of a tile could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TileError<E> {
    /// An entry longer than a bundle's 16-bit length prefix can say.
    #[error("entry {index} is {len} bytes, longer than the 65,535 an entry bundle can hold")]
    EntryTooLong {
        /// The entry's index (0-based).
        index: u64,
        /// Its length.
        len: usize,
    },
    /// The source could not give a hash or an entry.
    #[error("{0}")]
    Source(E),
}

/// `n` as the `<N>` of a tile path: groups of three digits, all but the last prefixed with `x`.
pub fn index_path(n: u64) -> String {
    let mut groups = Vec::new();
    let mut rest = n;
    loop {
        groups.push(rest % 1000);
        rest /= 1000;
        if rest == 0 {
            break;
        }
    }
    let mut out = String::with_capacity(4 * groups.len());
    for (i, g) in groups.iter().rev().enumerate() {
        if i + 1 < groups.len() {
            out.push_str(&format!("x{g:03}/"));
        } else {
            out.push_str(&format!("{g:03}"));
        }
    }
    out
}

impl Tile {
    /// A hash tile.
    pub fn hashes(level: u8, index: u64, width: u32) -> Tile {
        Tile { kind: TileKind::Hashes(level), index, width }
    }

    /// An entry bundle.
    pub fn entries(index: u64, width: u32) -> Tile {
        Tile { kind: TileKind::Entries, index, width }
    }

    /// True for a tile of 256 hashes or entries: immutable once the tree has it.
    pub fn is_full(&self) -> bool {
        self.width == TILE_WIDTH
    }

    /// The tile's path under a log's prefix, exactly as C2SP tlog-tiles spells it.
    pub fn path(&self) -> String {
        let level = match self.kind {
            TileKind::Hashes(l) => l.to_string(),
            TileKind::Entries => "entries".to_owned(),
        };
        let mut p = format!("tile/{level}/{}", index_path(self.index));
        if !self.is_full() {
            p.push_str(&format!(".p/{}", self.width));
        }
        p
    }

    /// Parses a tile path (without the log's prefix), refusing every spelling C2SP does not
    /// allow (leading zeros in a level or width, a missing `x`, a width of 0 or 256).
    pub fn parse_path(path: &str) -> Result<Tile, TilePathError> {
        let bad = |problem: &str| TilePathError { path: path.to_owned(), problem: problem.into() };
        let rest = path.strip_prefix("tile/").ok_or_else(|| bad("it does not start with tile/"))?;
        let (level, rest) = rest.split_once('/').ok_or_else(|| bad("no index after the level"))?;
        let kind = if level == "entries" {
            TileKind::Entries
        } else {
            let ok = !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit())
                && (level == "0" || !level.starts_with('0'));
            let l: u8 = level.parse().ok().filter(|l| ok && *l <= MAX_LEVEL).ok_or_else(|| {
                bad("the level is not a number from 0 to 63 without leading zeros")
            })?;
            TileKind::Hashes(l)
        };
        let (index_part, width) = match rest.split_once(".p/") {
            Some((i, w)) => {
                let ok =
                    !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) && !w.starts_with('0');
                let w: u32 = w.parse().ok().filter(|w| ok && *w < TILE_WIDTH).ok_or_else(|| {
                    bad("the width is not a number from 1 to 255 without leading zeros")
                })?;
                (i, w)
            }
            None => (rest, TILE_WIDTH),
        };
        let groups: Vec<&str> = index_part.split('/').collect();
        let mut index: u64 = 0;
        for (i, g) in groups.iter().enumerate() {
            let digits = if i + 1 < groups.len() {
                g.strip_prefix('x')
                    .ok_or_else(|| bad("an index group before the last lacks its x"))?
            } else {
                g
            };
            if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("an index group is not three digits"));
            }
            let d: u64 = digits.parse().map_err(|_| bad("an index group is not three digits"))?;
            index = index
                .checked_mul(1000)
                .and_then(|x| x.checked_add(d))
                .ok_or_else(|| bad("the index is too large"))?;
        }
        let tile = Tile { kind, index, width };
        if tile.path() != path {
            return Err(bad("it is not the canonical spelling of its tile"));
        }
        Ok(tile)
    }

    /// The level of a hash tile, 0 for an entry bundle (which pairs with the level-0 tile).
    fn level(&self) -> u32 {
        match self.kind {
            TileKind::Hashes(l) => u32::from(l),
            TileKind::Entries => 0,
        }
    }

    /// The leaves (entries, 0-based) the tile's hashes or entries span: `[start, end)`.
    pub fn leaves(&self) -> std::ops::Range<u64> {
        let shift = TILE_HEIGHT * self.level();
        let first = self.index.saturating_mul(u64::from(TILE_WIDTH));
        let start = first.checked_shl(shift).unwrap_or(u64::MAX);
        let end =
            first.saturating_add(u64::from(self.width)).checked_shl(shift).unwrap_or(u64::MAX);
        start..end
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path())
    }
}

/// The hash tiles and entry bundles a tree of `size` leaves has at `level` (for the bundles,
/// those of level 0): full ones from index `from` on, then its partial one, if any.
fn level_tiles(size: u64, level: u32, from: u64, kind: TileKind, out: &mut Vec<Tile>) {
    let count = size.checked_shr(TILE_HEIGHT * level).unwrap_or(0);
    let full = count / u64::from(TILE_WIDTH);
    out.extend((from..full).map(|index| Tile { kind, index, width: TILE_WIDTH }));
    let width = (count % u64::from(TILE_WIDTH)) as u32;
    if width > 0 {
        out.push(Tile { kind, index: full, width });
    }
}

/// Every tile a tree of `size` leaves has (C2SP tlog-tiles "Partial Tiles"): at each level, its
/// full tiles and its partial tile, and the entry bundles beside level 0. A tree of 70,000 has
/// 273 full level-0 tiles and one of width 112, one full level-1 tile and one of width 17, and a
/// level-2 tile of width 1 (the specification's example), plus 274 entry bundles.
pub fn tiles_of(size: u64) -> Vec<Tile> {
    tiles_added(0, size)
}

/// The tiles a tree of `new` leaves has that a tree of `old` leaves (`old <= new`) did not: the
/// full tiles completed since, and the partial tiles of `new` that differ from `old`'s. What a
/// publisher writes when its tree grows from `old` to `new`: never a full tile already written.
pub fn tiles_added(old: u64, new: u64) -> Vec<Tile> {
    let mut out = Vec::new();
    let old = old.min(new);
    let mut level = 0u32;
    while new.checked_shr(TILE_HEIGHT * level).unwrap_or(0) > 0 {
        let old_count = old.checked_shr(TILE_HEIGHT * level).unwrap_or(0);
        let old_full = old_count / u64::from(TILE_WIDTH);
        let mut at_level = Vec::new();
        level_tiles(new, level, old_full, TileKind::Hashes(level as u8), &mut at_level);
        let old_partial = (old_count % u64::from(TILE_WIDTH)) as u32;
        // The partial tile `old` had is not new when `new` has the same one.
        at_level.retain(|t| !(t.index == old_full && t.width == old_partial));
        if level == 0 {
            let bundles: Vec<Tile> =
                at_level.iter().map(|t| Tile { kind: TileKind::Entries, ..*t }).collect();
            out.extend(bundles);
        }
        out.extend(at_level);
        level += 1;
    }
    out
}

/// The bytes of hash tile (`level`, `index`, `width`): the 32-byte hashes
/// `subtree(8 * level, index * 256 + i)` for `i` from 0 to `width - 1`, concatenated.
pub fn hash_tile<S: Subtrees + ?Sized>(
    level: u8,
    index: u64,
    width: u32,
    src: &mut S,
) -> Result<Vec<u8>, S::Error> {
    let mut out = Vec::with_capacity(32 * width as usize);
    let first = index * u64::from(TILE_WIDTH);
    for i in 0..u64::from(width) {
        out.extend_from_slice(&src.subtree(TILE_HEIGHT * u32::from(level), first + i)?);
    }
    Ok(out)
}

/// Appends one entry to an entry bundle: its length as a big-endian `u16`, then its bytes.
/// `index` (0-based) only names the entry in the error.
pub fn push_entry<E>(bundle: &mut Vec<u8>, index: u64, entry: &[u8]) -> Result<(), TileError<E>> {
    let len = u16::try_from(entry.len())
        .map_err(|_| TileError::EntryTooLong { index, len: entry.len() })?;
    bundle.extend_from_slice(&len.to_be_bytes());
    bundle.extend_from_slice(entry);
    Ok(())
}

/// A source of everything a tile holds: perfect-subtree hashes, and the entries themselves.
pub trait TileSource: Subtrees {
    /// Hands the leaf bytes of entries `start..end` (0-based) to `visit`, in order.
    fn entries(
        &mut self,
        start: u64,
        end: u64,
        visit: &mut dyn FnMut(&[u8]),
    ) -> Result<(), Self::Error>;
}

/// The bytes of any tile: a hash tile ([`hash_tile`]) or an entry bundle (each entry of the
/// level-0 tile of the same index, length-prefixed). What `ladder publish` writes at
/// [`Tile::path`], and what a server answers a request for that path with.
pub fn tile_bytes<S: TileSource + ?Sized>(
    tile: &Tile,
    src: &mut S,
) -> Result<Vec<u8>, TileError<S::Error>> {
    match tile.kind {
        TileKind::Hashes(level) => {
            hash_tile(level, tile.index, tile.width, src).map_err(TileError::Source)
        }
        TileKind::Entries => {
            let range = tile.leaves();
            let mut out = Vec::new();
            let mut index = range.start;
            let mut too_long = None;
            src.entries(range.start, range.end, &mut |entry| {
                if too_long.is_none() {
                    if let Err(e) = push_entry::<()>(&mut out, index, entry) {
                        too_long = Some(e);
                    }
                }
                index += 1;
            })
            .map_err(TileError::Source)?;
            match too_long {
                Some(TileError::EntryTooLong { index, len }) => {
                    Err(TileError::EntryTooLong { index, len })
                }
                _ => Ok(out),
            }
        }
    }
}

/// The hashes of a hash tile's bytes, checking the length against the width.
pub fn read_hash_tile(tile: &Tile, bytes: &[u8]) -> Result<Vec<Hash>, TileFormatError> {
    let expected = 32 * tile.width as usize;
    if bytes.len() != expected {
        return Err(TileFormatError::HashTileLength {
            path: tile.path(),
            len: bytes.len(),
            width: tile.width,
            expected,
        });
    }
    Ok(bytes
        .chunks_exact(32)
        .map(|c| {
            let mut h = [0u8; 32];
            h.copy_from_slice(c);
            h
        })
        .collect())
}

/// The entries of an entry bundle's bytes: exactly `tile.width` length-prefixed entries and
/// nothing after them.
pub fn read_entry_bundle<'a>(
    tile: &Tile,
    bytes: &'a [u8],
) -> Result<Vec<&'a [u8]>, TileFormatError> {
    let bad = |problem: String| TileFormatError::Bundle { path: tile.path(), problem };
    let mut out = Vec::with_capacity(tile.width as usize);
    let mut rest = bytes;
    while !rest.is_empty() {
        if out.len() == tile.width as usize {
            return Err(bad(format!("{} bytes after its {} entries", rest.len(), tile.width)));
        }
        let Some((len, tail)) = rest.split_first_chunk::<2>() else {
            return Err(bad(format!("entry {} ends inside its length prefix", out.len())));
        };
        let len = usize::from(u16::from_be_bytes(*len));
        if tail.len() < len {
            return Err(bad(format!(
                "entry {} says {len} bytes, and {} are left",
                out.len(),
                tail.len()
            )));
        }
        out.push(&tail[..len]);
        rest = &tail[len..];
    }
    if out.len() != tile.width as usize {
        return Err(bad(format!("{} entries, its width is {}", out.len(), tile.width)));
    }
    Ok(out)
}

/// Why a [`TileTree`] could not give a subtree hash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TileReadError<E> {
    /// Fetching a tile failed.
    #[error("{0}")]
    Fetch(E),
    /// A fetched tile does not have its tile's form.
    #[error(transparent)]
    Format(TileFormatError),
    /// A subtree the tree of this size does not hold complete.
    #[error("the subtree at level {level}, index {index} is not complete in a tree of {size}")]
    Beyond {
        /// Its level.
        level: u32,
        /// Its index.
        index: u64,
        /// The tree size.
        size: u64,
    },
}

/// A tree of a known size read from its hash tiles, as a [`Subtrees`] source: each tile fetched
/// once through `fetch` (which gives the tile's bytes) and kept, so [`crate::root`],
/// [`crate::inclusion_proof`] and [`crate::consistency_proof`] run over published tiles alone.
/// A subtree of level `8l + r` is the root of `2^r` consecutive hashes of one level-`l` tile.
pub struct TileTree<F, E>
where
    F: FnMut(&Tile) -> Result<Vec<u8>, E>,
{
    size: u64,
    fetch: F,
    tiles: HashMap<Tile, Vec<Hash>>,
}

impl<F, E> TileTree<F, E>
where
    F: FnMut(&Tile) -> Result<Vec<u8>, E>,
{
    /// The tree of `size` leaves whose tiles `fetch` gives.
    pub fn new(size: u64, fetch: F) -> TileTree<F, E> {
        TileTree { size, fetch, tiles: HashMap::new() }
    }

    /// The tree size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The hashes of hash tile (`level`, `index`) as the tree of this size has it (its width
    /// follows from the size), fetched once.
    pub fn tile(&mut self, level: u8, index: u64) -> Result<&[Hash], TileReadError<E>> {
        let count = self.size.checked_shr(TILE_HEIGHT * u32::from(level)).unwrap_or(0);
        let first = index.saturating_mul(u64::from(TILE_WIDTH));
        if first >= count {
            return Err(TileReadError::Beyond {
                level: TILE_HEIGHT * u32::from(level),
                index: first,
                size: self.size,
            });
        }
        let width = (count - first).min(u64::from(TILE_WIDTH)) as u32;
        let tile = Tile::hashes(level, index, width);
        if !self.tiles.contains_key(&tile) {
            let bytes = (self.fetch)(&tile).map_err(TileReadError::Fetch)?;
            let hashes = read_hash_tile(&tile, &bytes).map_err(TileReadError::Format)?;
            self.tiles.insert(tile, hashes);
        }
        Ok(self.tiles.get(&tile).map(Vec::as_slice).unwrap_or(&[]))
    }
}

impl<F, E> Subtrees for TileTree<F, E>
where
    F: FnMut(&Tile) -> Result<Vec<u8>, E>,
{
    type Error = TileReadError<E>;

    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, TileReadError<E>> {
        let size = self.size;
        let beyond = TileReadError::Beyond { level, index, size };
        let end = index.checked_add(1).and_then(|e| e.checked_shl(level));
        if level >= 64 || end.is_none_or(|e| e > size || e == 0) {
            return Err(beyond);
        }
        let (tile_level, r) = (level / TILE_HEIGHT, level % TILE_HEIGHT);
        // The 2^r hashes of level 8 * tile_level under this subtree, all in one tile.
        let first = index << r;
        let tile_index = first / u64::from(TILE_WIDTH);
        let offset = (first % u64::from(TILE_WIDTH)) as usize;
        let hashes = self.tile(tile_level as u8, tile_index)?;
        match hashes.get(offset..offset + (1usize << r)) {
            Some(span) => Ok(perfect_root(span)),
            None => Err(beyond),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_are_the_specifications() {
        // C2SP tlog-tiles: "index 1234067 will be encoded as x001/x234/067".
        assert_eq!(index_path(1234067), "x001/x234/067");
        assert_eq!(index_path(0), "000");
        assert_eq!(index_path(999), "999");
        assert_eq!(index_path(1000), "x001/000");
        assert_eq!(Tile::hashes(0, 1234067, 256).path(), "tile/0/x001/x234/067");
        assert_eq!(Tile::hashes(3, 5, 17).path(), "tile/3/005.p/17");
        assert_eq!(Tile::entries(1234067, 8).path(), "tile/entries/x001/x234/067.p/8");
    }

    #[test]
    fn paths_parse_back_and_bad_spellings_are_refused() {
        for t in [
            Tile::hashes(0, 0, 1),
            Tile::hashes(63, u64::MAX / 256, 256),
            Tile::entries(1234067, 255),
            Tile::hashes(2, 1000, 256),
        ] {
            assert_eq!(Tile::parse_path(&t.path()), Ok(t), "{t}");
        }
        for bad in [
            "tile/0/0",
            "tile/00/000",
            "tile/64/000",
            "tile/0/001/234",
            "tile/0/x001",
            "tile/0/000.p/0",
            "tile/0/000.p/256",
            "tile/0/000.p/07",
            "tile/entries/000.p/",
            "tile/0/x000/001",
            "tiles/0/000",
            "tile/0/000/",
        ] {
            assert!(Tile::parse_path(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn the_specifications_example_tree_of_70000() {
        // C2SP tlog-tiles, "Partial Tiles": "a tree of size 70,000 will be represented by 273
        // full level 0 tiles, one partial level 0 tile of width 112, one full level 1 tile, one
        // partial level 1 tile of width 17, and one partial level 2 tile of width 1".
        let tiles = tiles_of(70_000);
        let count = |f: &dyn Fn(&Tile) -> bool| tiles.iter().filter(|t| f(t)).count();
        assert_eq!(count(&|t| t.kind == TileKind::Hashes(0) && t.is_full()), 273);
        assert!(tiles.contains(&Tile::hashes(0, 273, 112)));
        assert_eq!(count(&|t| t.kind == TileKind::Hashes(1) && t.is_full()), 1);
        assert!(tiles.contains(&Tile::hashes(1, 1, 17)));
        assert!(tiles.contains(&Tile::hashes(2, 0, 1)));
        assert_eq!(count(&|t| t.kind == TileKind::Hashes(2)), 1);
        assert_eq!(count(&|t| t.kind == TileKind::Entries), 274);
        assert_eq!(tiles.len(), 273 + 1 + 1 + 1 + 1 + 274);
        // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1
        // tile of width 1".
        assert_eq!(
            tiles_of(256),
            vec![Tile::entries(0, 256), Tile::hashes(0, 0, 256), Tile::hashes(1, 0, 1)]
        );
        assert!(tiles_of(0).is_empty());
    }

    #[test]
    fn tiles_added_are_the_difference_and_never_an_old_full_tile() {
        for (old, new) in [(0, 1), (1, 2), (255, 256), (256, 257), (300, 70_000), (65_536, 65_537)]
        {
            let before = tiles_of(old);
            let after = tiles_of(new);
            let added = tiles_added(old, new);
            let expected: Vec<Tile> =
                after.iter().filter(|t| !before.contains(t)).copied().collect();
            let mut a = added.clone();
            let mut e = expected.clone();
            a.sort();
            e.sort();
            assert_eq!(a, e, "{old} -> {new}");
        }
        assert!(tiles_added(500, 500).is_empty());
        // The largest sizes, eight levels deep, without overflow: only level 0 changes.
        let last = u64::MAX / 256;
        assert_eq!(
            tiles_added(u64::MAX - 1, u64::MAX),
            vec![Tile::entries(last, 255), Tile::hashes(0, last, 255)]
        );
    }

    #[test]
    fn bundles_round_trip_and_refuse_damage() {
        let tile = Tile::entries(0, 2);
        let mut b = Vec::new();
        push_entry::<()>(&mut b, 0, b"one").unwrap();
        push_entry::<()>(&mut b, 1, b"").unwrap();
        assert_eq!(b, [0, 3, b'o', b'n', b'e', 0, 0]);
        assert_eq!(read_entry_bundle(&tile, &b).unwrap(), vec![&b"one"[..], &b""[..]]);
        assert!(read_entry_bundle(&tile, &b[..4]).is_err());
        assert!(read_entry_bundle(&Tile::entries(0, 3), &b).is_err());
        assert!(read_entry_bundle(&Tile::entries(0, 1), &b).is_err());
        let long = vec![b'a'; MAX_ENTRY_BYTES + 1];
        assert_eq!(
            push_entry::<()>(&mut Vec::new(), 9, &long),
            Err(TileError::EntryTooLong { index: 9, len: MAX_ENTRY_BYTES + 1 })
        );
        assert!(push_entry::<()>(&mut Vec::new(), 9, &long[1..]).is_ok());
    }
}
