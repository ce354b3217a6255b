//! Log loss against one constant's value.

use crate::colour::PALETTE;
use crate::svg::{self, axes, compact, no_data, path_data, usable, Anchor, Doc, Frame, Tick};
use crate::ticks::nice_ticks;

/// Colours of baselines: the palette after the data's blue and the best point's vermillion,
/// without yellow (too faint for a thin dashed line on white).
const BASELINE_COLOURS: [&str; 5] = [PALETTE[2], PALETTE[3], PALETTE[4], PALETTE[5], PALETTE[6]];

/// A line chart of log loss (y) against the value of the constant `constant` (x).
///
/// `points` are `(value, log loss)` pairs in any order; they are drawn sorted by value, joined by a
/// line, each with a dot. The point with the lowest log loss (the first by value on a tie) is
/// circled and labelled. Each of `baselines` is a dashed horizontal line labelled with its name
/// and value, for comparisons such as Elo's best K or "always 0.5" (ln 2 ≈ 0.6931).
///
/// Points with a NaN or infinite coordinate, and baselines with such a value, are left out. With no
/// point left the chart says "no data". The y axis spans the points and the baselines.
///
/// Elements, for `n >= 2` points and `b` baselines: `<path>` 1 + b, `<circle>` n + 1, `<rect>` 2
/// (background, plot frame), `<text>` 4 + b + the tick labels of both axes.
///
/// ```
/// let svg = ladder_plot::sweep_line("k", &[(16.0, 0.66), (32.0, 0.64), (48.0, 0.65)], &[
///     ("always 0.5", std::f64::consts::LN_2),
/// ]);
/// assert!(svg.contains("best: k = 32, log loss 0.6400"));
/// ```
pub fn sweep_line(constant: &str, points: &[(f64, f64)], baselines: &[(&str, f64)]) -> String {
    let title = format!("Log loss by {constant}");
    let mut pts: Vec<(f64, f64)> =
        points.iter().copied().filter(|&(v, l)| usable(v) && usable(l)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let base: Vec<(&str, f64)> = baselines.iter().copied().filter(|&(_, v)| usable(v)).collect();
    let Some(&best) = pts.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
        return no_data(&title);
    };

    let (x_lo, x_hi) = min_max(pts.iter().map(|p| p.0));
    let (y_lo, y_hi) = min_max(pts.iter().map(|p| p.1).chain(base.iter().map(|b| b.1)));
    // Room under the lowest point for the best point's label: a tenth of the data's span.
    let y_lo = y_lo - (y_hi - y_lo) * 0.1;
    let (xt, yt) = (nice_ticks(x_lo, x_hi, 8), nice_ticks(y_lo, y_hi, 8));
    let f = Frame {
        left: 80.0,
        top: 50.0,
        width: svg::WIDTH - 80.0 - 30.0,
        height: svg::HEIGHT - 50.0 - 70.0,
        x_domain: (xt.lo(), xt.hi()),
        y_domain: (yt.lo(), yt.hi()),
    };

    let mut doc = Doc::new(&title);
    axes(&mut doc, &f, &Tick::numeric(&xt), &Tick::numeric(&yt), constant, "log loss");
    let decimals = 4.max(yt.decimals() + 1);
    for (i, (name, v)) in base.iter().enumerate() {
        let colour = BASELINE_COLOURS[i % BASELINE_COLOURS.len()];
        let y = f.y(*v);
        doc.path(
            &path_data(&[(f.left, y), (f.left + f.width, y)]),
            &format!(
                "fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\""
            ),
        );
        doc.text(
            f.left + f.width - 6.0,
            y - 5.0,
            Anchor::End,
            12.0,
            &format!("fill=\"{colour}\""),
            &format!("{name}: {v:.decimals$}"),
        );
    }

    let blue = PALETTE[0];
    let pixels: Vec<(f64, f64)> = pts.iter().map(|&(v, l)| (f.x(v), f.y(l))).collect();
    if pixels.len() >= 2 {
        doc.path(
            &path_data(&pixels),
            &format!(
                "fill=\"none\" stroke=\"{blue}\" stroke-width=\"2\" stroke-linejoin=\"round\""
            ),
        );
    }
    for &p in &pixels {
        doc.circle(p, 3.0, &format!("fill=\"{blue}\""));
    }

    let vermillion = PALETTE[1];
    let (bx, by) = (f.x(best.0), f.y(best.1));
    doc.circle(
        (bx, by),
        7.0,
        &format!("fill=\"none\" stroke=\"{vermillion}\" stroke-width=\"2.5\""),
    );
    // The best point is the lowest, so its label goes under it, where no data is, when there is
    // room above the x axis; else over it. It grows away from the nearer side.
    let ly = if f.top + f.height - by >= 24.0 { by + 22.0 } else { by - 14.0 };
    let (lx, anchor) = if bx < f.left + f.width / 2.0 {
        (bx - 4.0, Anchor::Start)
    } else {
        (bx + 4.0, Anchor::End)
    };
    doc.text(
        lx,
        ly,
        anchor,
        12.0,
        &format!("fill=\"{vermillion}\" font-weight=\"bold\""),
        &format!("best: {constant} = {}, log loss {:.decimals$}", compact(best.0), best.1),
    );
    doc.finish()
}

/// Smallest and largest of a non-empty sequence of usable values.
pub(crate) fn min_max(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
}
