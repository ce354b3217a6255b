//! ZoneStats is zero-sum (the ZoneStats text: "if playerA gains 5 rating points in a game vs.
//! playerB, then playerB must lose 5 points in the same game"), before and after equation 6's
//! scale.

use ladder_zonestats::{rate_game, Constants, GameSeat};
use proptest::prelude::*;

fn seat() -> impl Strategy<Value = GameSeat> {
    (
        0.0f64..3000.0,
        -50.0f64..200.0,
        0u32..4,
        prop_oneof![Just(None), (1.0f64..7200.0).prop_map(Some)],
    )
        .prop_map(|(rating, score, side, seconds)| GameSeat { rating, score, side, seconds })
}

proptest! {
    #[test]
    fn adjustments_of_a_game_sum_to_zero(
        seats in prop::collection::vec(seat(), 2..9),
        t in 10.0f64..500.0,
        game_mult in 0.1f64..10.0,
        max_game_length in 1.0f64..120.0,
    ) {
        let k = Constants { t, game_mult, max_game_length, initial_rating: 500.0 };
        let g = rate_game(&k, &seats);
        let magnitude: f64 = g.seats.iter().map(|s| s.rating_offset.abs()).sum::<f64>() + 1.0;
        let raw: f64 = g.seats.iter().map(|s| s.rating_offset).sum();
        let fin: f64 = g.seats.iter().map(|s| s.final_offset).sum();
        prop_assert!(raw.abs() <= 1e-12 * magnitude, "raw offsets sum to {}", raw);
        prop_assert!(fin.abs() <= 1e-12 * magnitude, "final offsets sum to {}", fin);
        // Equation 4 from the pairs: each seat's offset is what it gained as the first seat of a
        // pair minus what its opponents gained as first seats against it.
        for (i, s) in g.seats.iter().enumerate() {
            let from_pairs: f64 = g
                .pairs
                .iter()
                .map(|p| if p.a == i { p.adjustment } else if p.b == i { -p.adjustment } else { 0.0 })
                .sum();
            prop_assert!((from_pairs - s.rating_offset).abs() <= 1e-9 * magnitude);
        }
        prop_assert!(g.scale > 0.0 && g.scale <= 1.0);
        // After equation 6 the highest mover moves at most GAME_MULT points per minute.
        if let Some(h) = g.highest_seat {
            let s = &g.seats[h];
            prop_assert!(s.final_offset.abs() <= game_mult * s.minutes * (1.0 + 1e-12));
        }
        // Team-mates are never compared.
        for p in &g.pairs {
            prop_assert!(seats[p.a].side != seats[p.b].side);
        }
    }
}

/// A replay keeps no pair of a match (only a trace asks for them): its memory for a 1,000-seat
/// match is the 1,000 seats' audits, where the pairs would be 499,500 entries. The seats come out
/// the same either way.
#[test]
fn a_thousand_seat_match_is_rated_in_memory_linear_in_its_seats() {
    let k = Constants::default();
    let seats: Vec<GameSeat> = (0..1000)
        .map(|i| GameSeat {
            rating: 400.0 + f64::from(i % 17) * 13.0,
            score: f64::from(i % 7),
            side: i,
            seconds: None,
        })
        .collect();
    let lean = ladder_zonestats::rate_game_keeping(&k, &seats, false);
    assert_eq!(lean.pairs.capacity(), 0, "no pair is kept");
    assert_eq!(lean.seats.len(), 1000);
    let full = rate_game(&k, &seats);
    assert_eq!(full.pairs.len(), 1000 * 999 / 2);
    assert_eq!(lean.seats, full.seats);
    assert_eq!((lean.scale, lean.highest_seat), (full.scale, full.highest_seat));
}
