//! Predictive scoring (`--score`, docs/outputs.md).
//!
//! Every two-seat MatchResult after the first `warmup` is predicted from the ratings just before
//! it, with the algorithm's own expectation (`Projector::expectation`). A draw counts as half a
//! win. Log loss uses the natural logarithm with p clipped to [1e-15, 1 - 1e-15]; accuracy counts
//! a draw, or a prediction of exactly 0.5, as half right; calibration has ten equal bins of p,
//! taken on the favourite's side: a match enters as (p, y) when p >= 0.5 and as (1 - p, 1 - y)
//! otherwise (at exactly 0.5 neither seat is the favourite: it enters with outcome one half), so
//! which seat a file lists first (the winner, the home team) does not matter.

/// Where p is clipped for the log loss.
pub const CLIP: f64 = 1e-15;
/// Number of calibration bins.
pub const BINS: usize = 10;

/// One calibration bin: favourites' predictions with `lo <= p < hi` (the last bin includes 1).
/// Seen from the favourite's side, only the bins from 0.5 up fill.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bin {
    /// Predictions in the bin.
    pub n: u64,
    /// Sum of the favourites' p.
    pub sum_p: f64,
    /// Sum of the favourites' outcomes (1, 0.5 or 0).
    pub sum_y: f64,
}

/// Running prediction scores of one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Two-seat matches not scored yet before scoring starts.
    pub warmup: u64,
    /// Two-seat matches seen (scored or in the warm-up).
    pub seen: u64,
    /// Matches scored.
    pub matches: u64,
    /// Sum of log losses.
    pub sum_log_loss: f64,
    /// Sum of squared errors.
    pub sum_brier: f64,
    /// Sum of accuracy credits (1, 0.5, 0).
    pub sum_accuracy: f64,
    /// The ten calibration bins.
    pub bins: [Bin; BINS],
}

impl Score {
    /// A score that skips the first `warmup` two-seat matches.
    pub fn new(warmup: u64) -> Score {
        Score {
            warmup,
            seen: 0,
            matches: 0,
            sum_log_loss: 0.0,
            sum_brier: 0.0,
            sum_accuracy: 0.0,
            bins: [Bin::default(); BINS],
        }
    }

    /// Records one two-seat match: `p` the predicted chance that the first seat wins, `y` its
    /// outcome (1 win, 0.5 draw, 0 loss).
    pub fn record(&mut self, p: f64, y: f64) {
        if !self.counts() {
            return;
        }
        let pc = p.clamp(CLIP, 1.0 - CLIP);
        let ln = ladder_projector::math::ln;
        // y ln(p) + (1 - y) ln(1 - p). For a win or a loss one term is 0 times a negative
        // finite logarithm (p is clipped inside (0, 1)), which is -0, and adding -0 leaves the
        // other term's bits as they are: so that logarithm is not taken.
        self.sum_log_loss -= if y == 1.0 {
            ln(pc)
        } else if y == 0.0 {
            ln(1.0 - pc)
        } else {
            y * ln(pc) + (1.0 - y) * ln(1.0 - pc)
        };
        self.rest(p, y);
    }

    /// [`Score::record`] of one match in each of several configurations: `scores[l]` records
    /// `p[l]` unless `skip(l)` (a configuration that has failed). The same bits as recording
    /// each alone: a win's or a loss's one logarithm is taken for four configurations at once
    /// ([`ladder_projector::math::ln4`], bit for bit [`ladder_projector::math::ln`]), a draw's
    /// two by [`Score::record`] itself.
    pub fn record_each(scores: &mut [Score], p: &[f64], y: f64, skip: impl Fn(usize) -> bool) {
        use ladder_projector::math::{ln4, LANES};
        if y != 1.0 && y != 0.0 {
            for (l, (s, &p)) in scores.iter_mut().zip(p).enumerate() {
                if !skip(l) {
                    s.record(p, y);
                }
            }
            return;
        }
        for (l, (scores, p)) in scores.chunks_mut(LANES).zip(p.chunks(LANES)).enumerate() {
            // `record`'s logarithm of each counted lane: ln(p) for a win, ln(1 - p) for a
            // loss, p clipped; 1 (filler) for the others.
            let mut x = [1.0; LANES];
            let mut counted = [false; LANES];
            for (i, (s, &p)) in scores.iter_mut().zip(p).enumerate() {
                if !skip(l * LANES + i) && s.counts() {
                    counted[i] = true;
                    let pc = p.clamp(CLIP, 1.0 - CLIP);
                    x[i] = if y == 1.0 { pc } else { 1.0 - pc };
                }
            }
            let logs = ln4(x);
            for (i, (s, &p)) in scores.iter_mut().zip(p).enumerate() {
                if counted[i] {
                    s.sum_log_loss -= logs[i];
                    s.rest(p, y);
                }
            }
        }
    }

    /// Counts one two-seat match; whether it is scored (past the warm-up).
    #[inline]
    fn counts(&mut self) -> bool {
        self.seen += 1;
        if self.seen <= self.warmup {
            return false;
        }
        self.matches += 1;
        true
    }

    /// What [`Score::record`] adds besides the log loss: Brier, accuracy and calibration.
    #[inline]
    fn rest(&mut self, p: f64, y: f64) {
        self.sum_brier += (p - y) * (p - y);
        self.sum_accuracy += if y == 0.5 || p == 0.5 {
            0.5
        } else if (p > 0.5) == (y == 1.0) {
            1.0
        } else {
            0.0
        };
        // The favourite's side: the seat given p >= 0.5. At exactly 0.5 neither seat is the
        // favourite, so the match enters with the mean of both seats' outcomes, one half.
        let (fp, fy) = match p {
            p if p > 0.5 => (p, y),
            p if p < 0.5 => (1.0 - p, 1.0 - y),
            _ => (0.5, 0.5),
        };
        // fp is at least 0.5 (never NaN: a NaN p takes the last arm), so truncating fp * BINS
        // toward zero is its floor (without libm's `floor`, a call on x86-64's baseline).
        let bin = ((fp * BINS as f64) as usize).min(BINS - 1);
        let b = &mut self.bins[bin];
        b.n += 1;
        b.sum_p += fp;
        b.sum_y += fy;
    }

    /// Mean log loss (natural log), `None` before any match is scored.
    pub fn log_loss(&self) -> Option<f64> {
        (self.matches > 0).then(|| self.sum_log_loss / self.matches as f64)
    }

    /// Mean Brier score.
    pub fn brier(&self) -> Option<f64> {
        (self.matches > 0).then(|| self.sum_brier / self.matches as f64)
    }

    /// Share of matches predicted right (draws and p = 0.5 count half).
    pub fn accuracy(&self) -> Option<f64> {
        (self.matches > 0).then(|| self.sum_accuracy / self.matches as f64)
    }
}

pub use ladder_projector::outcome;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_scores() {
        // Three matches: p=0.8 won, p=0.3 drawn, p=0.5 lost; warm-up skips one before them.
        let mut s = Score::new(1);
        s.record(0.99, 1.0); // warm-up
        s.record(0.8, 1.0);
        s.record(0.3, 0.5);
        s.record(0.5, 0.0);
        assert_eq!(s.matches, 3);
        // Log loss: win at 0.8: -ln 0.8 = 0.22314355131420976;
        // draw at 0.3: -(0.5 ln 0.3 + 0.5 ln 0.7) = 0.5 * 1.2039728043259361 + 0.5 * 0.35667494393873245
        //   = 0.7803238741323343; loss at 0.5: ln 2 = 0.6931471805599453.
        let expected = (0.22314355131420976 + 0.7803238741323343 + std::f64::consts::LN_2) / 3.0;
        assert!((s.log_loss().unwrap() - expected).abs() < 1e-12);
        // Brier: 0.04 + 0.04 + 0.25 = 0.33 over 3.
        assert!((s.brier().unwrap() - 0.11).abs() < 1e-12);
        // Accuracy: 1 + 0.5 (draw) + 0.5 (p = 0.5) = 2 over 3.
        assert!((s.accuracy().unwrap() - 2.0 / 3.0).abs() < 1e-12);
        // Bins, on the favourite's side: 0.8 won -> bin 8; 0.3 drawn is the other seat's 0.7
        // drawn -> bin 7; 0.5 -> bin 5 with outcome one half (no favourite); the warm-up is not
        // binned.
        assert_eq!(
            s.bins.iter().map(|b| b.n).collect::<Vec<_>>(),
            vec![0, 0, 0, 0, 0, 1, 0, 1, 1, 0]
        );
        assert_eq!(s.bins[7].sum_y, 0.5);
        assert!((s.bins[7].sum_p - 0.7).abs() < 1e-15);
        assert_eq!(s.bins[5].sum_y, 0.5);
    }

    #[test]
    fn calibration_does_not_depend_on_which_seat_is_listed_first() {
        // The same four matches with the winner listed first, then with the loser first: the
        // second seat's chance is 1 - p and its outcome 1 - y.
        let matches = [(0.9, 1.0), (0.35, 1.0), (0.62, 0.0), (0.5, 0.5), (0.2, 0.0)];
        let mut first = Score::new(0);
        let mut flipped = Score::new(0);
        for (p, y) in matches {
            first.record(p, y);
            flipped.record(1.0 - p, 1.0 - y);
        }
        for (a, b) in first.bins.iter().zip(&flipped.bins) {
            assert_eq!(a.n, b.n);
            assert!((a.sum_p - b.sum_p).abs() < 1e-12 && (a.sum_y - b.sum_y).abs() < 1e-12);
        }
        // Favourites: 0.9 won, 0.65 lost, 0.62 lost, 0.5 drawn, 0.8 won -> bins 9, 6, 6, 5, 8.
        let n: Vec<u64> = first.bins.iter().map(|b| b.n).collect();
        assert_eq!(n, vec![0, 0, 0, 0, 0, 1, 2, 0, 1, 1]);
        assert_eq!(first.bins[6].sum_y, 0.0);
        assert_eq!(first.bins[9].sum_y, 1.0);
    }

    /// A win's and a loss's log loss, taking one logarithm, are bit for bit the two-term sum
    /// y ln(p) + (1 - y) ln(1 - p) of the definition, over 100,000 seeded p (edges included).
    #[test]
    fn one_logarithm_for_a_win_or_a_loss_is_the_two_term_sum() {
        let ln = ladder_projector::math::ln;
        let mut x = 0x5c0e_u64;
        let mut ps = vec![0.0, 1.0, CLIP, 1.0 - CLIP, 0.5, 1e-300, 1.0 - 1e-17];
        for _ in 0..100_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ps.push((x >> 11) as f64 / (1u64 << 53) as f64);
        }
        for p in ps {
            for y in [0.0, 1.0] {
                let mut s = Score::new(0);
                s.record(p, y);
                let pc = p.clamp(CLIP, 1.0 - CLIP);
                let both = y * ln(pc) + (1.0 - y) * ln(1.0 - pc);
                assert_eq!(s.sum_log_loss.to_bits(), (0.0 - both).to_bits(), "p {p}, y {y}");
            }
        }
    }

    /// `record_each` is `record` of each lane alone, to the bit: 1 to 11 lanes with different
    /// warm-ups, skipped lanes, p anywhere (edges, NaN, outside [0, 1]) and every outcome.
    #[test]
    fn record_each_is_record_lane_by_lane() {
        let mut x = 0x5c0e_0002_u64;
        let mut next = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 11
        };
        let odd = [0.0, 1.0, CLIP, 1.0 - CLIP, 0.5, 1e-300, f64::NAN, -0.25, 1.5, 1.0 - 1e-17];
        for k in 1..=11 {
            let warmups: Vec<u64> = (0..k).map(|_| next() % 4).collect();
            let mut each: Vec<Score> = warmups.iter().map(|&w| Score::new(w)).collect();
            let mut alone = each.clone();
            for _ in 0..2_000 {
                let y = [0.0, 0.5, 1.0][(next() % 3) as usize];
                let p: Vec<f64> = (0..k)
                    .map(|_| match next() % 8 {
                        0 => odd[(next() % odd.len() as u64) as usize],
                        _ => next() as f64 / (1u64 << 53) as f64,
                    })
                    .collect();
                let skipped = next() % 16;
                let skip = |l: usize| (l as u64 + skipped).is_multiple_of(5);
                Score::record_each(&mut each, &p, y, skip);
                for (l, s) in alone.iter_mut().enumerate() {
                    if !skip(l) {
                        s.record(p[l], y);
                    }
                }
            }
            for (a, b) in each.iter().zip(&alone) {
                assert_eq!(a.sum_log_loss.to_bits(), b.sum_log_loss.to_bits(), "{k} lanes");
                assert_eq!((a.seen, a.matches), (b.seen, b.matches), "{k} lanes");
                assert_eq!(a.sum_brier.to_bits(), b.sum_brier.to_bits(), "{k} lanes");
                assert_eq!(a.sum_accuracy.to_bits(), b.sum_accuracy.to_bits(), "{k} lanes");
                assert_eq!(a.bins, b.bins, "{k} lanes");
            }
        }
    }

    /// The calibration bin by truncation is libm's floor's, over p near every bin's edge.
    #[test]
    fn calibration_bins_are_floors() {
        for i in 0..=10_000 {
            for p in [i as f64 / 10_000.0, f64::from_bits((i as f64 / 10_000.0).to_bits() + 1)] {
                let mut s = Score::new(0);
                s.record(p, 1.0);
                let fp = if p > 0.5 {
                    p
                } else if p < 0.5 {
                    1.0 - p
                } else {
                    0.5
                };
                let want = ((fp * BINS as f64).floor() as usize).min(BINS - 1);
                assert_eq!(s.bins[want].n, 1, "p {p}");
            }
        }
    }

    #[test]
    fn clipping_keeps_log_loss_finite() {
        let mut s = Score::new(0);
        s.record(1.0, 0.0);
        s.record(0.0, 1.0);
        let ll = s.log_loss().unwrap();
        // Both losses are about -ln 1e-15 = 34.54 (1 - 1e-15 is not exact in binary, so the two
        // differ in the fourth decimal).
        // -ln 1e-15 = 15 ln 10 = 34.5387763949...
        assert!((ll - 34.538_776_394_910_69).abs() < 1e-3, "{ll}");
        // The top bin includes p = 1; p = 0 is the other seat's 1.
        assert_eq!(s.bins[9].n, 2);
    }
}
