//! Integration tests of ladder-events: the committed fuzz inputs of the stored-event decoder,
//! and the golden encoded events.

mod fuzz_corpus;
mod golden;
