//! The `block_decoder` fuzz target's corpus and regressions, replayed through the same check the
//! fuzzer runs (`fuzz/checks/block.rs`; docs/fuzzing.md).

#[path = "../../../../fuzz/checks/block.rs"]
mod checks;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn block_decoder_inputs_decode_or_refuse_without_panicking() {
    assert!(replay::replay("block_decoder", checks::block_decoder) >= 5);
}
