//! The stored form of a block of events, and the chain hash.
//!
//! ```text
//! byte 0        format   1
//! bytes 1..5    count    u32 LE, at least 1
//! bytes 5..37   prev     the chain hash of the event before the block's first (zeros for seq 1)
//! then `count` records:
//!   u32 LE len, 32-byte chain hash of this event, `len` bytes of ladder_events::codec output
//!   (the chain hash is taken over the event's canonical JSON line, not these bytes: [`chain_hash`])
//! ```
//!
//! The block's sled key is the sequence number of its first event, big-endian, so key order is
//! sequence order and the event with sequence number `s` is in the last block with key <= `s`.
//! Every read is bounds-checked: corrupt bytes are [`LogError::Corrupt`], never a panic.

use crate::LogError;

/// Format byte of today's blocks.
pub const BLOCK_FORMAT: u8 = 1;
/// Bytes before the first record.
pub const HEADER_LEN: usize = 1 + 4 + 32;
/// Bytes of a record before its event bytes.
pub const RECORD_HEADER_LEN: usize = 4 + 32;
/// A block is sealed (no longer grown) at this many events...
pub const MAX_BLOCK_EVENTS: usize = 4096;
/// ...or at this many bytes, whichever comes first. Small enough that a sled leaf of up to 17
/// blocks stays under sled's blob threshold and every block read counts in its cache (ADR 0001,
/// "Reading without keeping"); ledgers written with 64 KB blocks still read.
pub const MAX_BLOCK_BYTES: usize = 6 << 10;

/// The chain hash of the ledger before its first event.
pub const GENESIS: [u8; 32] = [0; 32];

/// The chain hash of an event: `blake3(prev_hash || bytes)`, where `prev_hash` is the previous
/// event's chain hash (32 zero bytes before seq 1) and `bytes` the event's leaf bytes: its
/// canonical JSON line without the newline (ledger format 3; format 2, which only `upgrade.rs`
/// reads, passed the codec bytes here). The previous hash has a fixed length, so the
/// concatenation is unambiguous without a length prefix.
pub fn chain_hash(prev: &[u8; 32], bytes: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(prev);
    h.update(bytes);
    *h.finalize().as_bytes()
}

/// The sled key of a sequence number.
pub fn key(seq: u64) -> [u8; 8] {
    seq.to_be_bytes()
}

/// The sequence number of a sled key, if it is one.
pub fn seq_of_key(key: &[u8]) -> Option<u64> {
    <[u8; 8]>::try_from(key).ok().map(u64::from_be_bytes)
}

/// A block being written: its header is filled in by [`Builder::finish`].
#[derive(Debug)]
pub struct Builder {
    /// Sequence number of the first event.
    pub first: u64,
    /// Events so far.
    pub count: usize,
    buf: Vec<u8>,
    /// Offset of each record in `buf`.
    offsets: Vec<u32>,
}

impl Builder {
    /// An empty block starting at `first`, after chain hash `prev`.
    pub fn new(first: u64, prev: [u8; 32]) -> Builder {
        let mut buf = Vec::with_capacity(64 << 10);
        buf.push(BLOCK_FORMAT);
        buf.extend_from_slice(&[0; 4]);
        buf.extend_from_slice(&prev);
        Builder { first, count: 0, buf, offsets: Vec::new() }
    }

    /// Empties the block for reuse, to start at `first` after chain hash `prev`: the same as
    /// [`Builder::new`], keeping the memory already allocated (an append fills a block every few
    /// dozen events, and allocating each anew showed in its profile).
    pub fn reset(&mut self, first: u64, prev: [u8; 32]) {
        self.buf.clear();
        self.buf.push(BLOCK_FORMAT);
        self.buf.extend_from_slice(&[0; 4]);
        self.buf.extend_from_slice(&prev);
        self.offsets.clear();
        self.first = first;
        self.count = 0;
    }

    /// Appends an event's bytes and chain hash.
    pub fn push(&mut self, hash: &[u8; 32], bytes: &[u8]) {
        self.offsets.push(self.buf.len() as u32);
        self.buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(hash);
        self.buf.extend_from_slice(bytes);
        self.count += 1;
    }

    /// True when the block should be sealed.
    pub fn is_full(&self) -> bool {
        self.count >= MAX_BLOCK_EVENTS || self.buf.len() >= MAX_BLOCK_BYTES
    }

    /// The bytes of the event at `seq`, if it is in this block.
    pub fn get(&self, seq: u64) -> Option<&[u8]> {
        let i = usize::try_from(seq.checked_sub(self.first)?).ok()?;
        let at = *self.offsets.get(i)? as usize;
        let len = u32::from_le_bytes(self.buf[at..at + 4].try_into().ok()?) as usize;
        let start = at + RECORD_HEADER_LEN;
        Some(&self.buf[start..start + len])
    }

    /// The stored bytes of the block.
    pub fn finish(&mut self) -> &[u8] {
        self.buf[1..5].copy_from_slice(&(self.count as u32).to_le_bytes());
        &self.buf
    }
}

/// A parsed block header over borrowed bytes.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    /// Sequence number of the first event (from the key).
    pub first: u64,
    /// Number of events.
    pub count: u32,
    /// Chain hash before the first event.
    pub prev: [u8; 32],
    bytes: &'a [u8],
}

fn corrupt(first: u64, detail: impl Into<String>) -> LogError {
    LogError::Corrupt { place: format!("the block starting at seq {first}"), detail: detail.into() }
}

impl<'a> Block<'a> {
    /// Parses the header of the block stored under `key`.
    pub fn parse(key: &[u8], bytes: &'a [u8]) -> Result<Block<'a>, LogError> {
        let first = seq_of_key(key).ok_or_else(|| LogError::Corrupt {
            place: "the events tree".into(),
            detail: format!("a key of {} bytes, not 8", key.len()),
        })?;
        if bytes.len() < HEADER_LEN {
            return Err(corrupt(first, format!("{} bytes, shorter than a header", bytes.len())));
        }
        if bytes[0] != BLOCK_FORMAT {
            return Err(corrupt(first, format!("unknown block format {}", bytes[0])));
        }
        let count = u32::from_le_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
        if count == 0 {
            return Err(corrupt(first, "an empty block"));
        }
        // Every record takes at least its header: a count the bytes cannot hold is damage, and
        // is refused before anything is sized by it.
        let room = (bytes.len() - HEADER_LEN) / RECORD_HEADER_LEN;
        if count as usize > room {
            return Err(corrupt(
                first,
                format!(
                    "it says {count} events, but its {} bytes hold at most {room}",
                    bytes.len()
                ),
            ));
        }
        // Sequence numbers start at 1, and the block's last one must be a u64 (a damaged key
        // near u64::MAX would otherwise overflow while its records are numbered: found by the
        // block_decoder fuzz target, fuzz/regressions/block_decoder/).
        if first == 0 || first.checked_add(u64::from(count) - 1).is_none() {
            return Err(corrupt(
                first,
                format!("a block of {count} events cannot start at seq {first}"),
            ));
        }
        let mut prev = [0; 32];
        prev.copy_from_slice(&bytes[5..HEADER_LEN]);
        Ok(Block { first, count, prev, bytes })
    }

    /// Sequence number of the last event.
    pub fn last(&self) -> u64 {
        self.first + u64::from(self.count) - 1
    }

    /// The records in order: (seq, stored chain hash, event bytes).
    pub fn records(&self) -> Records<'a> {
        Records {
            first: self.first,
            seq: self.first,
            left: self.count,
            rest: &self.bytes[HEADER_LEN..],
        }
    }

    /// The bytes after the header (the records), for merging blocks.
    pub fn body(&self) -> &'a [u8] {
        &self.bytes[HEADER_LEN..]
    }
}

/// A record of a block: (seq, stored chain hash, event bytes).
pub type Record<'a> = (u64, &'a [u8; 32], &'a [u8]);

/// The records of a [`Block`].
#[derive(Clone, Debug)]
pub struct Records<'a> {
    first: u64,
    seq: u64,
    left: u32,
    rest: &'a [u8],
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return if self.rest.is_empty() {
                None
            } else {
                self.rest = &[];
                Some(Err(corrupt(self.first, "bytes after its last record")))
            };
        }
        match read_record(self.first, self.seq, self.rest) {
            Ok((hash, bytes, rest)) => {
                let seq = self.seq;
                // `Block::parse` bounds the last seq by u64::MAX; after the last record (which may
                // be that seq) the next one is never used.
                self.seq = self.seq.saturating_add(1);
                self.left -= 1;
                self.rest = rest;
                Some(Ok((seq, hash, bytes)))
            }
            Err(e) => {
                self.left = 0;
                self.rest = &[];
                Some(Err(e))
            }
        }
    }
}

/// A record read by [`read_record`]: (stored chain hash, event bytes, what follows).
pub type RawRecord<'a> = (&'a [u8; 32], &'a [u8], &'a [u8]);

/// Reads the record of `seq` at the start of `rest` (in the block starting at `first`):
/// (stored chain hash, event bytes, what follows).
pub fn read_record(first: u64, seq: u64, rest: &[u8]) -> Result<RawRecord<'_>, LogError> {
    let Some((head, rest)) = rest.split_first_chunk::<RECORD_HEADER_LEN>() else {
        return Err(corrupt(first, format!("the record of seq {seq} is cut")));
    };
    let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if rest.len() < len {
        return Err(corrupt(
            first,
            format!("the record of seq {seq} says {len} bytes, {} remain", rest.len()),
        ));
    }
    let Some((_, hash)) = head.split_first_chunk::<4>() else {
        return Err(corrupt(first, "a record header without its length"));
    };
    let hash: &[u8; 32] = match hash.first_chunk::<32>() {
        Some(h) => h,
        None => return Err(corrupt(first, "a record header without its hash")),
    };
    let (bytes, rest) = rest.split_at(len);
    Ok((hash, bytes, rest))
}

/// One record of a block, copied out: (seq, stored chain hash, event bytes).
pub type OwnedRecord = (u64, [u8; 32], Vec<u8>);

/// The records of the block stored under `key`, as (seq, stored chain hash, event bytes), or why
/// the bytes are not a block: every length and count is checked against the bytes before use, so
/// damaged bytes are an error, never a panic or an allocation they size. For inspection tools and
/// for the `block_decoder` fuzz target (docs/fuzzing.md).
pub fn decode_block(key: &[u8], value: &[u8]) -> Result<Vec<OwnedRecord>, LogError> {
    let block = Block::parse(key, value)?;
    block.records().map(|r| r.map(|(seq, hash, bytes)| (seq, *hash, bytes.to_vec()))).collect()
}

/// Merges consecutive stored blocks into one: the first header, the sum of counts, the bodies.
pub fn merge<'a>(blocks: impl IntoIterator<Item = Block<'a>>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut count = 0u32;
    for b in blocks {
        if out.is_empty() {
            out.push(BLOCK_FORMAT);
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(&b.prev);
        }
        count += b.count;
        out.extend_from_slice(b.body());
    }
    if out.len() >= 5 {
        out[1..5].copy_from_slice(&count.to_le_bytes());
    }
    out
}

/// A stored block with the offset of every record, for reading events by seq in O(1).
pub struct Indexed {
    value: crate::store::Value,
    first: u64,
    /// (start, end) of each record's event bytes.
    spans: Vec<(u32, u32)>,
}

impl Indexed {
    /// Parses every record of the block stored under `key`.
    pub fn new(key: &[u8], value: crate::store::Value) -> Result<Indexed, LogError> {
        let block = Block::parse(key, &value)?;
        let base = value.as_ptr() as usize;
        let mut spans = Vec::with_capacity(block.count as usize);
        for r in block.records() {
            let (_, _, bytes) = r?;
            let start = bytes.as_ptr() as usize - base;
            spans.push((start as u32, (start + bytes.len()) as u32));
        }
        let first = block.first;
        Ok(Indexed { value, first, spans })
    }

    /// The bytes of event `seq`, if it is in this block.
    pub fn get(&self, seq: u64) -> Option<&[u8]> {
        let i = usize::try_from(seq.checked_sub(self.first)?).ok()?;
        let &(start, end) = self.spans.get(i)?;
        self.value.get(start as usize..end as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_builder_writes_what_a_new_one_writes() {
        let mut reused = Builder::new(1, [4; 32]);
        reused.push(&[5; 32], b"an earlier block's event");
        reused.finish();
        reused.reset(12, [6; 32]);
        let mut fresh = Builder::new(12, [6; 32]);
        for b in [&mut reused, &mut fresh] {
            b.push(&[7; 32], b"xy");
            b.push(&[8; 32], b"z");
        }
        assert_eq!((reused.first, reused.count), (12, 2));
        assert_eq!(
            (reused.get(12), reused.get(13), reused.get(11)),
            (Some(&b"xy"[..]), Some(&b"z"[..]), None)
        );
        assert_eq!(reused.finish(), fresh.finish());
    }

    #[test]
    fn builder_round_trips_and_parse_refuses_cuts() {
        let mut b = Builder::new(7, [9; 32]);
        b.push(&[1; 32], b"abc");
        b.push(&[2; 32], b"");
        b.push(&[3; 32], b"defgh");
        assert_eq!(b.get(8), Some(&b""[..]));
        assert_eq!(b.get(9), Some(&b"defgh"[..]));
        assert_eq!(b.get(10), None);
        let bytes = b.finish().to_vec();
        let block = Block::parse(&key(7), &bytes).unwrap();
        assert_eq!((block.first, block.count, block.last(), block.prev), (7, 3, 9, [9; 32]));
        let recs: Vec<_> = block.records().map(|r| r.unwrap()).collect();
        assert_eq!(recs[0], (7, &[1; 32], &b"abc"[..]));
        assert_eq!(recs[2], (9, &[3; 32], &b"defgh"[..]));
        let indexed = Indexed::new(&key(7), crate::MemStore::value(&bytes)).unwrap();
        assert_eq!(indexed.get(8), Some(&b""[..]));
        assert_eq!(indexed.get(9), Some(&b"defgh"[..]));
        assert_eq!((indexed.get(6), indexed.get(10)), (None, None));
        for cut in 0..bytes.len() {
            let ok = Block::parse(&key(7), &bytes[..cut])
                .and_then(|b| b.records().collect::<Result<Vec<_>, _>>());
            assert!(ok.is_err(), "a block cut at {cut} bytes parsed");
        }
        let mut long = bytes.clone();
        long.push(0);
        let b = Block::parse(&key(7), &long).unwrap();
        assert!(b.records().any(|r| r.is_err()), "trailing bytes are refused");
        assert!(Block::parse(&[1, 2], &bytes).is_err());
        // A count larger than the bytes can hold is refused before any allocation uses it.
        let mut huge = bytes.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = Block::parse(&key(7), &huge).unwrap_err().to_string();
        assert!(e.contains("hold at most"), "{e}");
    }

    #[test]
    fn merge_concatenates() {
        let mut a = Builder::new(1, GENESIS);
        a.push(&[1; 32], b"a");
        let mut b = Builder::new(2, [1; 32]);
        b.push(&[2; 32], b"bb");
        b.push(&[3; 32], b"ccc");
        let (a, b) = (a.finish().to_vec(), b.finish().to_vec());
        let m = merge([Block::parse(&key(1), &a).unwrap(), Block::parse(&key(2), &b).unwrap()]);
        let block = Block::parse(&key(1), &m).unwrap();
        let recs: Vec<_> = block.records().map(|r| r.unwrap().2.to_vec()).collect();
        assert_eq!(recs, vec![b"a".to_vec(), b"bb".to_vec(), b"ccc".to_vec()]);
        assert_eq!(block.prev, GENESIS);
    }
}
