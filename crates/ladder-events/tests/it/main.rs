//! Integration tests of ladder-events: the committed fuzz inputs of the stored-event decoder.

mod fuzz_corpus;
