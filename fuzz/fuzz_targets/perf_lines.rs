//! libFuzzer target: see `fuzz/checks/perf.rs` for what an input means and what must hold.
#![no_main]

#[path = "../checks/perf.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::perf_lines(data));
