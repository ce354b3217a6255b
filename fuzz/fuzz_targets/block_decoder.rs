//! libFuzzer target: see `fuzz/checks/block.rs` for what an input means and what must hold.
#![no_main]

#[path = "../checks/block.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::block_decoder(data));
