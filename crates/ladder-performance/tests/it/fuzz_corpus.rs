//! The `perf_lines` fuzz target's corpus and regressions, replayed through the same check the
//! fuzzer runs (`fuzz/checks/perf.rs`; docs/fuzzing.md).

#[path = "../../../../fuzz/checks/perf.rs"]
mod checks;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn perf_inputs_rate_or_refuse_without_panicking() {
    replay::replay("perf_lines", checks::perf_lines);
}
