//! The `event_decoder` fuzz target's corpus and regressions, replayed through the same check the
//! fuzzer runs (`fuzz/checks/events.rs`; docs/fuzzing.md).

#[path = "../../../../fuzz/checks/events.rs"]
mod checks;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn event_decoder_inputs_decode_or_refuse_without_panicking() {
    replay::replay("event_decoder", checks::event_decoder);
}
