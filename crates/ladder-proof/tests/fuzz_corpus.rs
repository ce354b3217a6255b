//! The `proof_inputs` fuzz target's corpus and regressions, replayed through the same check the
//! fuzzer runs (`fuzz/checks/proof.rs`; docs/fuzzing.md).

#[path = "../../../fuzz/checks/proof.rs"]
mod checks;
#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn proof_inputs_parse_or_refuse_without_panicking() {
    let n = replay::replay("proof_inputs", checks::proof_inputs);
    assert!(n >= 7, "the seeds of fuzz/seeds/make_seeds.py are committed");
}
