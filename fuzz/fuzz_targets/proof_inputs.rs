//! libFuzzer target: see `fuzz/checks/proof.rs` for what an input means and what must hold.
#![no_main]

#[path = "../checks/proof.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::proof_inputs(data));
