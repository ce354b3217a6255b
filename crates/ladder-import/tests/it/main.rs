//! Integration tests of ladder-import: the committed fuzz inputs of the JSON Lines and CSV
//! importers.

mod fuzz_corpus;
