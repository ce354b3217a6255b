//! Integration tests of ladder-glicko: one binary, one module per area.

mod common;
mod glickman;
