//! What one fuzz input means for the stored-block decoder (`ladder_log::decode_block`): the first
//! 8 bytes (or fewer) are the block's sled key, the rest its stored value.
//!
//! Shared, through `#[path]`, by the libFuzzer target `fuzz/fuzz_targets/block_decoder.rs` and by
//! the corpus replay test of `ladder-log`, so CI replays exactly what the fuzzer ran.

/// Decodes `data` as a stored block. Must not panic, and must not trust a count or a length the
/// bytes cannot hold: the records it returns fit in the value, numbered from the key's seq.
pub fn block_decoder(data: &[u8]) {
    let (key, value) = data.split_at(data.len().min(8));
    match ladder_log::decode_block(key, value) {
        Ok(records) => {
            assert!(!records.is_empty(), "a block holds at least one record");
            let first = u64::from_be_bytes(key.try_into().expect("a block's key is 8 bytes"));
            let mut total = 37;
            for (i, (seq, _, bytes)) in records.iter().enumerate() {
                assert_eq!(*seq, first + i as u64, "records are numbered from the key");
                total += 36 + bytes.len();
            }
            assert_eq!(total, value.len(), "the records are exactly the block's bytes");
        }
        Err(e) => assert!(!e.to_string().is_empty(), "a refusal says why"),
    }
}
