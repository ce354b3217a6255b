//! Integration tests of ZoneStats: hand-calculated games, the zero-sum property, fixture snapshots.

mod fixtures;
mod hand;
mod props;
