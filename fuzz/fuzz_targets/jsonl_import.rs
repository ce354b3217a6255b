//! libFuzzer target: see `fuzz/checks/import.rs` for what an input means and what must hold.
#![no_main]

#[path = "../checks/import.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::jsonl_import(data));
