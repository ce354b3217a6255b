//! Integration tests of the simulator: one test binary, one module per area.

mod counts;
mod determinism;
mod queue;
mod rules;

use ladder_events::Event;
use ladder_sim::{simulate, SimParams, TrueSkill};

/// The whole stream of `params` and the truth at its end.
pub fn run(params: &SimParams) -> (Vec<Event>, Vec<TrueSkill>) {
    let mut sim = simulate(params).expect("valid parameters");
    let events: Vec<Event> = sim.by_ref().collect();
    let truth = sim.truth();
    (events, truth)
}

/// A spread of ladders: tiny, small, idle-free, all-at-once, late-start, drawish.
pub fn ladders() -> Vec<SimParams> {
    let mut v = vec![
        SimParams::new(2, 40, 1),
        SimParams::new(3, 200, 2),
        SimParams::new(10, 1_000, 3),
        SimParams::new(60, 5_000, 4),
        SimParams::new(500, 20_000, 5),
    ];
    let mut p = SimParams::new(40, 3_000, 6);
    p.idle_days = 0.0;
    p.draw_rate = 0.0;
    p.join_window = 0.0;
    v.push(p);
    let mut p = SimParams::new(30, 2_000, 7);
    p.initial_share = 1.0;
    p.draw_rate = 0.5;
    p.drift_sd = 0.0;
    p.start = ladder_events::Timestamp::parse("1969-12-30T17:45:12.5Z").unwrap();
    v.push(p);
    let mut p = SimParams::new(200, 4_000, 8);
    p.join_window = 1.0;
    p.days = 20.0;
    p.game_seconds = (60, 60);
    v.push(p);
    v
}
