//! Integration tests of ladder-glicko: one binary, one module per area.

mod common;
mod config;
mod differential;
mod fast_path;
mod glickman;
mod periods;
mod props;
mod snapshots;
