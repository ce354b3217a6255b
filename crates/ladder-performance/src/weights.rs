//! The variants: which weights `k_i` the games get, and which fictitious games are added.

use crate::solve::Term;
use ladder_projector::math;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The Arimaa text, p3: "k(i+1) = 0.98*k(i), and k(1) = 1, and game 1 is the newest".
pub const DECAY: f64 = 0.98;

/// The Arimaa text, p2: "The fictitious game is given a weight of 0.1".
pub const FICTITIOUS_WEIGHT: f64 = 0.1;

/// p7/p8 (our reading, `docs/algorithms/performance.md`): the most weight all the games against
/// one opponent can carry together. `sqrt(25)`: p4 gives an opponent `N` games of weight
/// `1/sqrt(N)`, `sqrt(N)` in all; p7 lets that grow only up to 5.
pub const OPPONENT_WEIGHT_CAP: f64 = 5.0;

/// A performance-rating variant of the Arimaa text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Variant {
    /// All weights 1.
    P1,
    /// p1 plus a fictitious draw against a 0-rated player with weight 0.1.
    P2,
    /// p2 with weights `0.98^(i-1)`, game 1 the newest.
    P3,
    /// p3 with each weight divided by `sqrt(N)`, N the games against that opponent.
    P4,
    /// Per-opponent decay, capped per-opponent scaling, decay by unique opponents since,
    /// plus p2's fictitious draw.
    P7,
    /// p7 with two fictitious draws against a 1500-rated player.
    P8,
}

impl Variant {
    /// Every variant, in order.
    pub const ALL: [Variant; 6] =
        [Variant::P1, Variant::P2, Variant::P3, Variant::P4, Variant::P7, Variant::P8];

    /// The names accepted on the command line and in `variant=`.
    pub const NAMES: [&'static str; 6] = ["p1", "p2", "p3", "p4", "p7", "p8"];

    /// `p1` ... `p8`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::P1 => "p1",
            Variant::P2 => "p2",
            Variant::P3 => "p3",
            Variant::P4 => "p4",
            Variant::P7 => "p7",
            Variant::P8 => "p8",
        }
    }

    /// The fictitious games this variant adds (the Arimaa text, p2 and p8).
    pub fn fictitious(self) -> &'static [Term] {
        const ZERO: Term = Term { w: 0.5, r: 0.0, k: FICTITIOUS_WEIGHT };
        const AVERAGE: Term = Term { w: 0.5, r: 1500.0, k: FICTITIOUS_WEIGHT };
        match self {
            Variant::P1 => &[],
            Variant::P2 | Variant::P3 | Variant::P4 | Variant::P7 => &[ZERO],
            Variant::P8 => &[AVERAGE, AVERAGE],
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a performance variant; valid: p1, p2, p3, p4, p7, p8")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// One game as the weighting sees it: result, opponent's rating, and the opponent as a dense
/// index (games against the same index are against the same player).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// 1, 0.5 or 0.
    pub w: f64,
    /// The opponent's rating for this game.
    pub r: f64,
    /// The opponent, densely numbered from 0.
    pub opp: u32,
}

/// Computes the terms of the performance equation for `variant`.
///
/// `newest_first` are the games, newest first; `counts[j]` is the number of games against opponent
/// `j` (all of them, including any not passed because their weight had decayed away). Games whose
/// weight is below `floor` are left out (0 keeps every game), and the scan stops as soon as every
/// older game is certain to be below it. `seen` is scratch space. The fictitious games are appended.
pub fn terms<'a>(
    variant: Variant,
    newest_first: impl Iterator<Item = &'a Entry>,
    counts: &[u32],
    floor: f64,
    seen: &mut Vec<u32>,
    out: &mut Vec<Term>,
) {
    out.clear();
    match variant {
        // The Arimaa text, p1: "Uses k1 to kN all equal 1."
        Variant::P1 | Variant::P2 => {
            out.extend(newest_first.map(|e| Term { w: e.w, r: e.r, k: 1.0 }))
        }
        // The Arimaa text, p3: k(1) = 1, k(i+1) = 0.98 k(i).
        // The Arimaa text, p4: "A factor of 1/sqrt(N) is used to decrease the games; where N is the
        // number of games with the same player."
        Variant::P3 | Variant::P4 => {
            let mut k = 1.0;
            for e in newest_first {
                if k < floor {
                    break;
                }
                let n =
                    if variant == Variant::P4 { f64::from(counts[e.opp as usize]) } else { 1.0 };
                out.push(Term { w: e.w, r: e.r, k: k / n.sqrt() });
                k *= DECAY;
            }
        }
        Variant::P7 | Variant::P8 => p7_terms(newest_first, counts, floor, seen, out),
    }
    out.extend_from_slice(variant.fictitious());
}

/// p7's weights (our reading of the Arimaa text's words, `docs/algorithms/performance.md`):
///
/// `k = cap(n) * D^(m-1) * (1 - D) / (1 - D^n) * D^u` where, for a game against opponent `j`:
/// `n` is the number of games against `j`, `m` the game's place among them (1 = newest),
/// `cap(n) = min(sqrt(n), 5)`, `u` the number of other opponents met since that game, `D = 0.98`.
/// - "reduces the impact of games played against the same player based on how old the game is in
///   the sequence of games against this player": `D^(m-1)`;
/// - "scales all the games played against a particular player based on the number of games played
///   against that player ... can only increase up to a certain fixed value": the opponent's games
///   together weigh `cap(n)`;
/// - "reduces the impact of games based on how many unique players have been played since that
///   game": `D^u`.
///
/// When every opponent is different this is p3's `0.98^(i-1)` exactly.
fn p7_terms<'a>(
    newest_first: impl Iterator<Item = &'a Entry>,
    counts: &[u32],
    floor: f64,
    seen: &mut Vec<u32>,
    out: &mut Vec<Term>,
) {
    seen.clear();
    seen.resize(counts.len(), 0);
    let mut distinct = 0u32;
    for e in newest_first {
        let j = e.opp as usize;
        // Every older game has at least `distinct - 1` other opponents since it.
        if floor > 0.0
            && OPPONENT_WEIGHT_CAP * math::powi(DECAY, distinct.saturating_sub(1) as i32) < floor
        {
            break;
        }
        let before = seen[j];
        let others_since = if before > 0 { distinct - 1 } else { distinct };
        if before == 0 {
            distinct += 1;
        }
        seen[j] = before + 1;
        let n = counts[j].max(1);
        let total = f64::from(n).sqrt().min(OPPONENT_WEIGHT_CAP);
        let normaliser = (1.0 - DECAY) / (1.0 - math::powi(DECAY, n as i32));
        let k = total
            * math::powi(DECAY, before as i32)
            * normaliser
            * math::powi(DECAY, others_since as i32);
        if k >= floor {
            out.push(Term { w: e.w, r: e.r, k });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ks(variant: Variant, entries: &[Entry]) -> Vec<f64> {
        let mut counts = vec![0u32; 8];
        for e in entries {
            counts[e.opp as usize] += 1;
        }
        let (mut seen, mut out) = (Vec::new(), Vec::new());
        terms(variant, entries.iter(), &counts, 0.0, &mut seen, &mut out);
        out.iter().map(|t| t.k).collect()
    }

    fn e(opp: u32) -> Entry {
        Entry { w: 1.0, r: 1000.0, opp }
    }

    #[test]
    fn weights_per_variant() {
        let g = [e(0), e(1), e(0)];
        assert_eq!(ks(Variant::P1, &g), vec![1.0, 1.0, 1.0]);
        assert_eq!(ks(Variant::P2, &g), vec![1.0, 1.0, 1.0, 0.1]);
        assert_eq!(ks(Variant::P3, &g), vec![1.0, 0.98, 0.98 * 0.98, 0.1]);
        let r2 = 2f64.sqrt();
        assert_eq!(ks(Variant::P4, &g), vec![1.0 / r2, 0.98, 0.98 * 0.98 / r2, 0.1]);
        // p7: opponent 0 has n = 2, total sqrt(2) split 1 : 0.98, the older one also after one
        // other opponent (1) since it; opponent 1: n = 1, one other opponent (0) since it.
        let split = (1.0 - 0.98) / (1.0 - 0.98f64 * 0.98);
        let k7 = ks(Variant::P7, &g);
        let want = [r2 * split, 0.98, r2 * 0.98 * split * 0.98, 0.1];
        for (a, b) in k7.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{k7:?}");
        }
        assert_eq!(ks(Variant::P8, &[]), vec![0.1, 0.1]);
    }

    #[test]
    fn p7_is_p3_when_every_opponent_differs() {
        let g: Vec<Entry> = (0..8).map(e).collect();
        let (a, b) = (ks(Variant::P7, &g), ks(Variant::P3, &g));
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-15, "{a:?} {b:?}");
        }
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
        assert!("p5".parse::<Variant>().is_err());
    }
}
