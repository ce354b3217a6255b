//! libFuzzer target: see `fuzz/checks/events.rs` for what an input means and what must hold.
#![no_main]

#[path = "../checks/events.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::event_decoder(data));
