//! The integration tests of ladder-ttt: one binary.

mod incremental;
mod projector;
mod reference;
mod revert;
