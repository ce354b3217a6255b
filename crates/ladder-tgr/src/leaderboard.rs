//! Seed 000's leaderboard: established players ranked by GLIXARE, provisional players apart
//! ("Ratings cannot feature in the ladder leaderboard until they are not provisional (or,
//! alternatively, are placed at the very bottom of the leaderboard)").

use ladder_projector::{Roster, Standing};

/// One ranked row.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked<'a> {
    /// 1-based rank; players with equal GLIXARE share a rank (1, 2, 2, 4).
    pub rank: usize,
    /// The standing ranked.
    pub standing: &'a Standing,
    /// Its GLIXARE percentage (2 decimals, as displayed).
    pub glixare: f64,
}

/// The leaderboard: established players ranked, provisional ones listed apart.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaderboard<'a> {
    /// Non-provisional players by GLIXARE, highest first; equal GLIXARE by name (bytes).
    pub ranked: Vec<Ranked<'a>>,
    /// Provisional players (and standings without a TGR display), by name (bytes): no order of
    /// merit is implied, as the seed keeps them off the ranking.
    pub provisional: Vec<&'a Standing>,
}

/// Ranks `standings` (from [`crate::Tgr`]'s `standings()`) for display. Pure: no state.
///
/// Ranked by the displayed GLIXARE, descending; players who display the same percentage share a rank
/// and are listed by name in byte order (the contract's order for every sorted list), via `roster`.
pub fn leaderboard<'a>(standings: &'a [Standing], roster: &Roster) -> Leaderboard<'a> {
    let name = |s: &Standing| roster.name(s.player).as_bytes();
    let mut ranked = Vec::new();
    let mut provisional = Vec::new();
    for s in standings {
        match s.display.and_then(|d| if d.provisional { None } else { d.glixare }) {
            Some(glixare) => ranked.push(Ranked { rank: 0, standing: s, glixare }),
            None => provisional.push(s),
        }
    }
    ranked.sort_by(|a, b| {
        b.glixare.total_cmp(&a.glixare).then_with(|| name(a.standing).cmp(name(b.standing)))
    });
    for i in 0..ranked.len() {
        ranked[i].rank = if i > 0 && ranked[i].glixare == ranked[i - 1].glixare {
            ranked[i - 1].rank
        } else {
            i + 1
        };
    }
    provisional.sort_by(|a, b| name(a).cmp(name(b)));
    Leaderboard { ranked, provisional }
}
