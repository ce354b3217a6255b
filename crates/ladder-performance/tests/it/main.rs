//! Integration tests of ladder-performance: every printed number of the Arimaa text, the tools, the
//! projector on hand-made and fixture ladders, and what the projector's weight floor changes.

mod fixtures;
mod floor;
mod fuzz_corpus;
mod projector;
mod seed;
mod tools;
