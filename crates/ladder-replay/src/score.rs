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

/// Lanes a [`Scores`] block holds side by side. Two blocks take their logarithms together
/// ([`ladder_projector::math::ln_n`] of eight, which keeps the floating-point units busier than
/// four at a time), a last odd block alone; blocks of four rather than eight leave no padding
/// lanes when a fold thread holds four configurations (docs/PERFORMANCE.md, branch `score8`).
const BLOCK: usize = 4;

/// The first calibration bin the favourite's side can fill: the favourite's p is at least 0.5,
/// so p times [`BINS`] is at least 5.
const FIRST_FAVOURED: usize = BINS / 2;

/// How many calibration bins the favourite's side can fill.
const FAVOURED: usize = BINS - FIRST_FAVOURED;

/// [`BLOCK`] lanes' running scores, each sum of the lanes side by side.
#[derive(Clone, Debug)]
struct Block {
    /// Each lane's warm-up.
    warmup: [u64; BLOCK],
    /// Each lane's matches seen, when [`Scores::common`] is `None`.
    seen: [u64; BLOCK],
    /// Each lane's matches scored, when [`Scores::common`] is `None`.
    matches: [u64; BLOCK],
    sum_log_loss: [f64; BLOCK],
    sum_brier: [f64; BLOCK],
    sum_accuracy: [f64; BLOCK],
    /// `n[b][i]`: lane `i`'s predictions in bin [`FIRST_FAVOURED`] + `b`.
    n: [[u64; BLOCK]; FAVOURED],
    /// `sum_p[b][i]`: the sum of lane `i`'s favourites' p in bin [`FIRST_FAVOURED`] + `b`.
    sum_p: [[f64; BLOCK]; FAVOURED],
    /// `sum_y[b][i]`: the sum of lane `i`'s favourites' outcomes in bin [`FIRST_FAVOURED`] + `b`.
    sum_y: [[f64; BLOCK]; FAVOURED],
}

/// The seen and scored matches of every lane, while they are the same in all.
#[derive(Clone, Copy, Debug)]
struct Counts {
    warmup: u64,
    seen: u64,
    matches: u64,
}

/// The running prediction scores of several configurations that predict the same matches (the
/// lanes of a sweep), as a structure of arrays: each sum of [`Score`] holds its lanes side by
/// side in blocks of four ([`BLOCK`]), so one match is recorded in every lane with whole vectors and no
/// branch per lane. [`Scores::into_scores`] gives each lane's [`Score`], bit for bit the one
/// [`Score::record`] of each lane's matches alone builds: each lane's sums take the same
/// operations on the same values, in the same (game) order.
///
/// A lane that a match does not count in (a skipped lane, or one still in its warm-up) adds +0
/// to each sum, which leaves every sum's bits as they are: a sum starts at +0 and, with +0
/// added, never becomes -0 (the one value +0 would change). The calibration bins are one array
/// of lanes per bin, each lane adding its favourite's p and outcome to the bin it falls in and
/// +0 to the others; only bins 5 to 9 can fill on the favourite's side.
///
/// Invariants: `blocks` holds `k` lanes (rounded up to a multiple of [`BLOCK`], the rest padding whose
/// values mean nothing); while `common` is `Some`, every lane has its warm-up and its seen and
/// scored matches, and the blocks' own `seen` and `matches` mean nothing.
#[derive(Clone, Debug)]
pub struct Scores {
    k: usize,
    /// Every lane's warm-up and counts while all lanes share them (no lane skipped yet).
    common: Option<Counts>,
    blocks: Vec<Block>,
}

impl Scores {
    /// Scores of `warmups.len()` lanes, lane `l` skipping the first `warmups[l]` two-seat
    /// matches (as [`Score::new`]).
    pub fn new(warmups: &[u64]) -> Scores {
        let common = match warmups {
            [w, rest @ ..] if rest.iter().all(|r| r == w) => {
                Some(Counts { warmup: *w, seen: 0, matches: 0 })
            }
            _ => None,
        };
        let blocks = warmups
            .chunks(BLOCK)
            .map(|w| {
                let mut warmup = [u64::MAX; BLOCK];
                warmup[..w.len()].copy_from_slice(w);
                Block {
                    warmup,
                    seen: [0; BLOCK],
                    matches: [0; BLOCK],
                    sum_log_loss: [0.0; BLOCK],
                    sum_brier: [0.0; BLOCK],
                    sum_accuracy: [0.0; BLOCK],
                    n: [[0; BLOCK]; FAVOURED],
                    sum_p: [[0.0; BLOCK]; FAVOURED],
                    sum_y: [[0.0; BLOCK]; FAVOURED],
                }
            })
            .collect();
        Scores { k: warmups.len(), common, blocks }
    }

    /// How many lanes.
    pub fn len(&self) -> usize {
        self.k
    }

    /// Whether there are no lanes.
    pub fn is_empty(&self) -> bool {
        self.k == 0
    }

    /// Records one two-seat match in every lane: lane `l`'s [`Score::record`] of `p[l]` and `y`
    /// (`p` holds one prediction per lane).
    pub fn record(&mut self, p: &[f64], y: f64) {
        debug_assert_eq!(p.len(), self.k);
        match &mut self.common {
            Some(c) => {
                c.seen += 1;
                if c.seen <= c.warmup {
                    return;
                }
                c.matches += 1;
                self.add(p, y, |_| [true; BLOCK]);
            }
            None => self.add(p, y, |b| {
                let mut counted = [false; BLOCK];
                for (i, c) in counted.iter_mut().enumerate() {
                    b.seen[i] += 1;
                    *c = b.seen[i] > b.warmup[i];
                    b.matches[i] += u64::from(*c);
                }
                counted
            }),
        }
    }

    /// [`Scores::record`] in every lane but those that `skip` (lane `l` is skipped when
    /// `skip(l)`: its score is left as it is, as when a configuration has failed).
    pub fn record_except(&mut self, p: &[f64], y: f64, skip: impl Fn(usize) -> bool) {
        let skipped: Vec<bool> =
            (0..self.blocks.len() * BLOCK).map(|l| l < self.k && skip(l)).collect();
        if !skipped.iter().any(|&s| s) {
            return self.record(p, y);
        }
        self.split();
        let mut skipped = skipped.chunks_exact(BLOCK);
        self.add(p, y, |b| {
            let mut counted = [false; BLOCK];
            let skip = skipped.next().unwrap_or(&[true; BLOCK]);
            for (i, c) in counted.iter_mut().enumerate() {
                if !skip[i] {
                    b.seen[i] += 1;
                    *c = b.seen[i] > b.warmup[i];
                    b.matches[i] += u64::from(*c);
                }
            }
            counted
        });
    }

    /// Gives each lane its own counts, from the common ones (a lane is about to be skipped).
    fn split(&mut self) {
        if let Some(c) = self.common.take() {
            for b in &mut self.blocks {
                b.seen = [c.seen; BLOCK];
                b.matches = [c.matches; BLOCK];
            }
        }
    }

    /// Adds one match to each block's lanes that `count` (which also counts the match in the
    /// block's lanes when they keep their own counts) says are scored.
    #[inline(always)]
    fn add(&mut self, p: &[f64], y: f64, mut count: impl FnMut(&mut Block) -> [bool; BLOCK]) {
        let (whole, rest) = p.as_chunks::<BLOCK>();
        let mut last = [0.5; BLOCK];
        last[..rest.len()].copy_from_slice(rest);
        let tail = (!rest.is_empty()).then_some(&last);
        let mut blocks = self.blocks.iter_mut().zip(whole.iter().chain(tail));
        loop {
            match (blocks.next(), blocks.next()) {
                (Some((b0, p0)), Some((b1, p1))) => {
                    let (c0, c1) = (count(b0).map(mask), count(b1).map(mask));
                    let (pc0, pc1) = (clipped(p0, &c0), clipped(p1, &c1));
                    let both: [f64; 2 * BLOCK] =
                        std::array::from_fn(|i| if i < BLOCK { pc0[i] } else { pc1[i - BLOCK] });
                    let term = log_terms(both, y);
                    let t0: [f64; BLOCK] = std::array::from_fn(|i| term[i]);
                    let t1: [f64; BLOCK] = std::array::from_fn(|i| term[BLOCK + i]);
                    add_block(b0, p0, y, &c0, &t0);
                    add_block(b1, p1, y, &c1, &t1);
                }
                (Some((b, p)), None) => {
                    let c = count(b).map(mask);
                    add_block(b, p, y, &c, &log_terms(clipped(p, &c), y));
                }
                _ => break,
            }
        }
    }

    /// Lane `l`'s score (`l` below [`Scores::len`]).
    fn score(&self, l: usize) -> Score {
        let (b, i) = (&self.blocks[l / BLOCK], l % BLOCK);
        let (warmup, seen, matches) = match self.common {
            Some(c) => (c.warmup, c.seen, c.matches),
            None => (b.warmup[i], b.seen[i], b.matches[i]),
        };
        let mut bins = [Bin::default(); BINS];
        for (f, bin) in bins[FIRST_FAVOURED..].iter_mut().enumerate() {
            *bin = Bin { n: b.n[f][i], sum_p: b.sum_p[f][i], sum_y: b.sum_y[f][i] };
        }
        Score {
            warmup,
            seen,
            matches,
            sum_log_loss: b.sum_log_loss[i],
            sum_brier: b.sum_brier[i],
            sum_accuracy: b.sum_accuracy[i],
            bins,
        }
    }

    /// Every lane's [`Score`], in lane order.
    pub fn into_scores(self) -> Vec<Score> {
        (0..self.k).map(|l| self.score(l)).collect()
    }
}

/// All ones when `b`, else all zeros: a lane's mask.
#[inline(always)]
fn mask(b: bool) -> u64 {
    u64::from(b).wrapping_neg()
}

/// `x` where `m` is all ones, +0 where it is all zeros.
#[inline(always)]
fn kept(x: f64, m: u64) -> f64 {
    f64::from_bits(x.to_bits() & m)
}

/// `a` where `m` is all ones, `b` where it is all zeros (a selection, no arithmetic).
#[inline(always)]
fn select(m: u64, a: f64, b: f64) -> f64 {
    f64::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// Each lane's p clipped as [`Score::record`] clips it where the mask `c` is all ones; 0.5
/// where it is all zeros (a lane not scored: 0.5's logarithm, and its complement's, is a normal
/// number, `ln_n`'s usual path, and the lane's term is dropped).
#[inline(always)]
fn clipped(p: &[f64; BLOCK], c: &[u64; BLOCK]) -> [f64; BLOCK] {
    std::array::from_fn(|i| select(c[i], p[i].clamp(CLIP, 1.0 - CLIP), 0.5))
}

/// [`Score::record`]'s log-loss terms of clipped predictions `pc` with outcome `y`: a win's or a
/// loss's one logarithm, a draw's two, all `N` lanes at once.
#[inline(always)]
fn log_terms<const N: usize>(pc: [f64; N], y: f64) -> [f64; N] {
    use ladder_projector::math::ln_n;
    if y == 1.0 {
        ln_n(pc)
    } else if y == 0.0 {
        ln_n(pc.map(|pc| 1.0 - pc))
    } else {
        let (a, b) = (ln_n(pc), ln_n(pc.map(|pc| 1.0 - pc)));
        std::array::from_fn(|i| y * a[i] + (1.0 - y) * b[i])
    }
}

/// [`Score::record`] of one match in the lanes of `b` whose mask in `c` is all ones, with the
/// same operations lane by lane, `term` holding their log-loss terms ([`log_terms`]); the
/// others add +0 to every sum. Each step is one loop over the lanes with no branch in it
/// (selections by masks), so the compiler keeps the lanes in vectors.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
fn add_block(b: &mut Block, p: &[f64; BLOCK], y: f64, c: &[u64; BLOCK], term: &[f64; BLOCK]) {
    for i in 0..BLOCK {
        b.sum_log_loss[i] -= kept(term[i], c[i]);
    }
    for i in 0..BLOCK {
        b.sum_brier[i] += kept((p[i] - y) * (p[i] - y), c[i]);
    }
    // `Score::rest`'s comparisons of p, as masks.
    let above: [u64; BLOCK] = p.map(|p| mask(p > 0.5));
    let below: [u64; BLOCK] = p.map(|p| mask(p < 0.5));
    // The accuracy credit: 0.5 for a draw or p = 0.5; else 1 for the side p favours winning.
    if y == 0.5 {
        for i in 0..BLOCK {
            b.sum_accuracy[i] += kept(0.5, c[i]);
        }
    } else {
        let right = if y == 1.0 { above } else { above.map(|a| !a) };
        for i in 0..BLOCK {
            let half = mask(p[i] == 0.5);
            let credit = select(half, 0.5, kept(1.0, right[i]));
            b.sum_accuracy[i] += kept(credit, c[i]);
        }
    }
    // The favourite's side: (p, y) above one half, (1 - p, 1 - y) below, (0.5, 0.5) at it (and
    // for NaN).
    let mut fp = [0.0; BLOCK];
    let mut fy = [0.0; BLOCK];
    let (ys, ys_below) = ([y; BLOCK], [1.0 - y; BLOCK]);
    for i in 0..BLOCK {
        fp[i] = select(above[i], p[i], select(below[i], 1.0 - p[i], 0.5));
    }
    for i in 0..BLOCK {
        fy[i] = select(above[i], ys[i], select(below[i], ys_below[i], 0.5));
    }
    // The bin of each lane, as `Score::rest` takes it. The lanes predict the same match with
    // nearby constants, so their favourites' p mostly fall in one bin: then that bin's three
    // sums take the block's lanes as whole vectors, and no other bin is touched.
    // A lane's bin, min(trunc(fp * BINS), BINS - 1), never falls as fp grows, so the block's
    // lanes share a bin exactly when its least and its greatest fp * BINS do (fp is never NaN).
    // The least and greatest by halves, in vectors (no float-to-integer conversion per lane).
    let mut lo = fp.map(|fp| fp * BINS as f64);
    let mut hi = lo;
    let mut half = BLOCK / 2;
    while half > 0 {
        for i in 0..half {
            lo[i] = if lo[i + half] < lo[i] { lo[i + half] } else { lo[i] };
            hi[i] = if hi[i + half] > hi[i] { hi[i + half] } else { hi[i] };
        }
        half /= 2;
    }
    let bin = |x: f64| (x as usize).min(BINS - 1);
    if bin(lo[0]) == bin(hi[0]) {
        // fp is at least 0.5, so every bin is at least the first favoured one.
        let f = bin(lo[0]).saturating_sub(FIRST_FAVOURED);
        if let (Some(n), Some(sum_p), Some(sum_y)) =
            (b.n.get_mut(f), b.sum_p.get_mut(f), b.sum_y.get_mut(f))
        {
            for i in 0..BLOCK {
                n[i] += c[i] & 1;
                sum_p[i] += kept(fp[i], c[i]);
                sum_y[i] += kept(fy[i], c[i]);
            }
        }
        return;
    }
    add_bins(b, &fp, &fy, c);
}

/// The calibration bins' part of [`add_block`] for a block whose lanes fall in different bins:
/// each favoured bin adds each lane's favourite's p and outcome where the lane falls in it, +0
/// where it does not.
#[inline(never)]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
fn add_bins(b: &mut Block, fp: &[f64; BLOCK], fy: &[f64; BLOCK], c: &[u64; BLOCK]) {
    // fp is at least 0.5 and never NaN, so fp * BINS is at least 5 and its truncation (the
    // bin `Score::rest` takes, at most the last) is bin 5 + f exactly when it is at least
    // 5 + f and, below the last bin, less than 6 + f. at_least[f][i]: lane i's bin is 5 + f or
    // above (at_least[0] every lane, at_least[FAVOURED] none).
    let mut at_least = [[0u64; BLOCK]; FAVOURED + 1];
    at_least[0] = [!0; BLOCK];
    for f in 1..FAVOURED {
        let edge = (FIRST_FAVOURED + f) as f64;
        for i in 0..BLOCK {
            at_least[f][i] = mask(fp[i] * BINS as f64 >= edge);
        }
    }
    for f in 0..FAVOURED {
        for i in 0..BLOCK {
            let inside = c[i] & at_least[f][i] & !at_least[f + 1][i];
            b.n[f][i] += inside & 1;
            b.sum_p[f][i] += kept(fp[i], inside);
            b.sum_y[f][i] += kept(fy[i], inside);
        }
    }
}

pub use ladder_projector::outcome;

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests' seeded numbers: Knuth's MMIX linear congruential generator from `seed`, its
    /// top 53 bits each call.
    fn lcg(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 11
        }
    }

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
        let mut next = lcg(0x5c0e_u64);
        let mut ps = vec![0.0, 1.0, CLIP, 1.0 - CLIP, 0.5, 1e-300, 1.0 - 1e-17];
        for _ in 0..100_000 {
            ps.push(next() as f64 / (1u64 << 53) as f64);
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

    /// Every field of a score as bits (NaN sums compared too).
    fn bits(s: &Score) -> Vec<u64> {
        let mut v = vec![s.warmup, s.seen, s.matches];
        v.extend([s.sum_log_loss, s.sum_brier, s.sum_accuracy].map(f64::to_bits));
        for b in &s.bins {
            v.extend([b.n, b.sum_p.to_bits(), b.sum_y.to_bits()]);
        }
        v
    }

    /// [`Scores`] is [`Score::record`] of each lane alone, to the bit: 1 to 13 lanes (whole
    /// blocks and padded ones), one warm-up for all or one per lane, every lane recorded for a
    /// while and then lanes skipped (as failed configurations are), p anywhere (edges, NaN,
    /// infinities, outside [0, 1], either side of each bin's edge; the lanes of a match apart,
    /// or near each other as a sweep's are, so a block's lanes fall in one bin or in several)
    /// and every outcome (and one that is none of them, which takes the two-logarithm form).
    #[test]
    fn scores_are_record_lane_by_lane() {
        let mut next = lcg(0x5c0e_0002_u64);
        let mut odd = vec![0.0, 1.0, CLIP, 1.0 - CLIP, 0.5, 1e-300, f64::NAN, -0.25, 1.5];
        odd.extend([1.0 - 1e-17, f64::INFINITY, f64::NEG_INFINITY, -0.0, 5e-324]);
        for edge in 5..=10 {
            let e = edge as f64 / BINS as f64;
            odd.extend([e, f64::from_bits(e.to_bits() - 1), f64::from_bits(e.to_bits() + 1)]);
            odd.extend([1.0 - e, f64::from_bits((1.0 - e).to_bits() + 1)]);
        }
        for k in 1..=13 {
            for shared in [true, false] {
                let warmups: Vec<u64> =
                    (0..k).map(|_| next() % 4).map(|w| if shared { 3 } else { w }).collect();
                let mut lanes = Scores::new(&warmups);
                assert_eq!(lanes.len(), k);
                let mut alone: Vec<Score> = warmups.iter().map(|&w| Score::new(w)).collect();
                for game in 0..3_000 {
                    let y = [0.0, 0.5, 1.0, 0.0, 1.0, 0.25][(next() % 6) as usize];
                    // Half the games' lanes predict apart (most blocks' lanes in different
                    // bins), half near one p (most in one bin, some across an edge).
                    let near = next() as f64 / (1u64 << 53) as f64;
                    let apart = next().is_multiple_of(2);
                    let p: Vec<f64> = (0..k)
                        .map(|_| match next() % 8 {
                            0 => odd[(next() % odd.len() as u64) as usize],
                            _ if apart => next() as f64 / (1u64 << 53) as f64,
                            _ => near + (next() % 64) as f64 * 1e-4,
                        })
                        .collect();
                    // Every lane for the first thousand games, then a lane skipped now and then.
                    let skipped = next() % 16;
                    let skip = |l: usize| game >= 1_000 && (l as u64 + skipped).is_multiple_of(5);
                    if game < 1_000 && game % 2 == 0 {
                        lanes.record(&p, y);
                    } else {
                        lanes.record_except(&p, y, skip);
                    }
                    for (l, s) in alone.iter_mut().enumerate() {
                        if !skip(l) {
                            s.record(p[l], y);
                        }
                    }
                }
                for (l, (a, b)) in lanes.into_scores().iter().zip(&alone).enumerate() {
                    assert_eq!(bits(a), bits(b), "{k} lanes, lane {l}, shared warm-up {shared}");
                }
            }
        }
    }

    /// [`Scores`] whose lanes share a warm-up of 50 matches, with lanes failing during it, at
    /// its last match or just after it (games 0, 10, 49, 50 and 51), is [`Score::record`] of
    /// each lane alone, to the bit: 1 to 9 lanes (whole blocks of four and padded ones), a failed
    /// lane skipped from its failure on as a sweep's fold skips it (through
    /// [`Scores::record_except`] once a lane has failed, [`Scores::record`] before), the shared
    /// counts split while every lane is still in its warm-up or just out of it.
    #[test]
    fn scores_split_during_a_shared_warm_up_are_record_lane_by_lane() {
        let mut next = lcg(0x5c0e_0003_u64);
        const WARMUP: u64 = 50;
        // The game at which a lane fails (skipped from it on), or never.
        let fails = [Some(0), Some(10), Some(49), Some(50), Some(51), None];
        for k in 1..=9usize {
            for first in 0..fails.len() {
                // Lane l fails at fails[(first + l * step) % len]: each k sees several mixes,
                // lane 0 of each in turn failing at every one of the games.
                for step in [1, 2, 5] {
                    let fail: Vec<Option<u64>> =
                        (0..k).map(|l| fails[(first + l * step) % fails.len()]).collect();
                    let failed = |l: usize, game: u64| fail[l].is_some_and(|f| game >= f);
                    let mut lanes = Scores::new(&vec![WARMUP; k]);
                    let mut alone: Vec<Score> = (0..k).map(|_| Score::new(WARMUP)).collect();
                    for game in 0..200u64 {
                        let y = [0.0, 0.5, 1.0][(next() % 3) as usize];
                        let p: Vec<f64> =
                            (0..k).map(|_| next() as f64 / (1u64 << 53) as f64).collect();
                        if (0..k).any(|l| failed(l, game)) {
                            lanes.record_except(&p, y, |l| failed(l, game));
                        } else {
                            lanes.record(&p, y);
                        }
                        for (l, s) in alone.iter_mut().enumerate() {
                            if !failed(l, game) {
                                s.record(p[l], y);
                            }
                        }
                    }
                    let got = lanes.into_scores();
                    assert_eq!(got.len(), k);
                    for (l, (a, b)) in got.iter().zip(&alone).enumerate() {
                        assert_eq!(bits(a), bits(b), "{k} lanes, failures {fail:?}, lane {l}");
                    }
                }
            }
        }
    }

    /// [`Scores`] with no lane skipped keeps one count for every lane that shares a warm-up,
    /// and reads it back for each: the warm-up's matches seen, not scored.
    #[test]
    fn scores_count_the_warm_up_once_for_all_lanes() {
        let mut lanes = Scores::new(&[2; 6]);
        for (p, y) in [(0.9, 1.0), (0.2, 0.0), (0.7, 0.0)] {
            lanes.record(&[p; 6], y);
        }
        let mut alone = Score::new(2);
        for (p, y) in [(0.9, 1.0), (0.2, 0.0), (0.7, 0.0)] {
            alone.record(p, y);
        }
        for s in lanes.into_scores() {
            assert_eq!((s.seen, s.matches), (3, 1));
            // The one scored match: 0.7 lost, so -ln 0.3 and the favourite's bin 7 with 0.
            assert_eq!(bits(&s), bits(&alone));
            assert_eq!(s.bins[7].n, 1);
            assert_eq!(s.bins[7].sum_y, 0.0);
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
