//! The integration tests of ladder-ttt: one binary.

mod reference;
