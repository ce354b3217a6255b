//! Log loss over a grid of two constants.

use crate::colour::viridis;
use crate::line::min_max;
use crate::svg::{self, compact, no_data, num, usable, Anchor, Doc};
use crate::ticks::nice_ticks;

/// Fill of a cell with no value: light grey, hatched.
const MISSING: &str = "<defs><pattern id=\"missing\" width=\"8\" height=\"8\" \
patternUnits=\"userSpaceOnUse\"><rect x=\"0\" y=\"0\" width=\"8\" height=\"8\" fill=\"#eeeeee\"/>\
<path d=\"M0 8 L8 0\" stroke=\"#bbbbbb\" stroke-width=\"1\"/></pattern></defs>";

/// A heat map of log loss over the grid `xs` × `ys` of the constants named `x` and `y`.
///
/// `values[yi][xi]` is the log loss at `(xs[xi], ys[yi])`; a NaN or infinite value, or one missing
/// because a row is short or `values` has fewer rows than `ys`, is a missing cell, drawn hatched
/// grey. Columns follow `xs` left to right and rows follow `ys` bottom to top, each labelled with
/// its value as given (the axes are categorical: any spacing, any order).
///
/// Colour follows viridis, yellow for the lowest log loss and dark purple for the highest, over the
/// range of the values present; a legend bar shows the scale with nice ticks. Each cell prints its
/// value, with enough decimals to show differences of a hundredth of the range (3 to 6), unless the cell is too small to hold it.
/// The best cell (lowest value, the first in row-major order on a tie) is outlined in black.
///
/// With `xs` or `ys` empty, or no finite value, the chart says "no data".
///
/// Elements for an `nx` × `ny` grid with every cell present and large enough: `<rect>` nx·ny + 3
/// (background, cells, best outline, legend bar), `<text>` 4 + nx + ny + nx·ny + the legend ticks,
/// no `<path>`. A missing cell adds a hatch pattern (one `<rect>`, one `<path>`) and prints nothing.
///
/// ```
/// let svg = ladder_plot::sweep_heatmap("k", &[16.0, 32.0], "scale", &[1.0, 2.0], &[
///     vec![0.66, 0.64],
///     vec![0.65, f64::NAN],
/// ]);
/// assert!(svg.contains(">0.6400</text>"));
/// ```
pub fn sweep_heatmap(x: &str, xs: &[f64], y: &str, ys: &[f64], values: &[Vec<f64>]) -> String {
    let title = format!("Log loss by {x} and {y}");
    let cell = |xi: usize, yi: usize| -> Option<f64> {
        values.get(yi).and_then(|row| row.get(xi)).copied().filter(|&v| usable(v))
    };
    let present: Vec<(usize, usize, f64)> = (0..ys.len())
        .flat_map(|yi| (0..xs.len()).map(move |xi| (xi, yi)))
        .filter_map(|(xi, yi)| cell(xi, yi).map(|v| (xi, yi, v)))
        .collect();
    // Row-major order, so `min_by` (which keeps the first of equals) picks the first best.
    let Some(&(best_x, best_y, _)) = present.iter().min_by(|a, b| a.2.total_cmp(&b.2)) else {
        return no_data(&title);
    };
    let (lo, hi) = min_max(present.iter().map(|c| c.2));
    let ticks = nice_ticks(lo, hi, 6);
    // The colour domain is the data's range, or the ticks' when every value is the same.
    let (c_lo, c_hi) = if hi > lo { (lo, hi) } else { (ticks.lo(), ticks.hi()) };
    // Worst (highest) is 0 on the ramp, dark; best (lowest) is 1, yellow.
    let ramp = |v: f64| viridis((c_hi - v) / (c_hi - c_lo));
    let decimals =
        if hi > lo { (2 - (hi - lo).log10().floor() as i64).clamp(3, 6) as usize } else { 4 };

    let (left, top) = (90.0, 50.0);
    let (width, height) = (svg::WIDTH - left - 130.0, svg::HEIGHT - top - 80.0);
    let (nx, ny) = (xs.len(), ys.len());
    let (cw, ch) = (width / nx as f64, height / ny as f64);
    let col_x = |xi: usize| left + xi as f64 * cw;
    let row_y = |yi: usize| top + height - (yi + 1) as f64 * ch;

    let mut doc = Doc::new(&title);
    if present.len() < nx * ny {
        doc.raw(MISSING);
    }
    for yi in 0..ny {
        for xi in 0..nx {
            let (cx, cy) = (col_x(xi), row_y(yi));
            let Some(v) = cell(xi, yi) else {
                doc.rect(
                    cx,
                    cy,
                    cw,
                    ch,
                    "fill=\"url(#missing)\" stroke=\"#ffffff\" stroke-width=\"1\"",
                );
                continue;
            };
            let (fill, dark_text) = ramp(v);
            doc.rect(
                cx,
                cy,
                cw,
                ch,
                &format!("fill=\"{fill}\" stroke=\"#ffffff\" stroke-width=\"1\""),
            );
            let label = format!("{v:.decimals$}");
            let size = 12f64.min(ch * 0.45).min(cw / (label.len() as f64 * 0.62));
            if size >= 7.0 {
                let colour = if dark_text { "#000000" } else { "#ffffff" };
                doc.text(
                    cx + cw / 2.0,
                    cy + ch / 2.0 + size * 0.35,
                    Anchor::Middle,
                    size,
                    &format!("fill=\"{colour}\""),
                    &label,
                );
            }
        }
    }
    doc.rect(
        col_x(best_x),
        row_y(best_y),
        cw,
        ch,
        "fill=\"none\" stroke=\"#000000\" stroke-width=\"3\"",
    );

    // Axis labels, thinned so that neighbours do not overlap.
    let x_labels: Vec<String> = xs.iter().map(|&v| compact(v)).collect();
    let widest = x_labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64 * 7.0 + 8.0;
    let every = (widest / cw).ceil().max(1.0) as usize;
    for (xi, label) in x_labels.iter().enumerate().filter(|(i, _)| i % every == 0) {
        doc.text(col_x(xi) + cw / 2.0, top + height + 18.0, Anchor::Middle, 12.0, "", label);
    }
    let every = (16.0 / ch).ceil().max(1.0) as usize;
    for (yi, &v) in ys.iter().enumerate().filter(|(i, _)| i % every == 0) {
        doc.text(left - 8.0, row_y(yi) + ch / 2.0 + 4.0, Anchor::End, 12.0, "", &compact(v));
    }
    doc.text(left + width / 2.0, top + height + 42.0, Anchor::Middle, 13.0, "", x);
    let (yx, yy) = (18.0, top + height / 2.0);
    let rotate = format!("transform=\"rotate(-90 {} {})\"", num(yx), num(yy));
    doc.text(yx, yy, Anchor::Middle, 13.0, &rotate, y);

    // The legend: a vertical bar, highest value at the top, with the ticks inside the domain.
    let (bx, bw) = (svg::WIDTH - 100.0, 18.0);
    let mut gradient =
        String::from("<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">");
    for i in 0..=8 {
        let offset = f64::from(i) / 8.0;
        gradient.push_str(&format!(
            "<stop offset=\"{}\" stop-color=\"{}\"/>",
            num(offset),
            viridis(offset).0
        ));
    }
    gradient.push_str("</linearGradient></defs>");
    doc.raw(&gradient);
    doc.rect(bx, top, bw, height, "fill=\"url(#scale)\" stroke=\"#333333\" stroke-width=\"1\"");
    doc.text(bx + bw / 2.0, top - 8.0, Anchor::Middle, 12.0, "", "log loss");
    for &t in ticks.values.iter().filter(|&&t| (c_lo..=c_hi).contains(&t)) {
        let ty = top + (c_hi - t) / (c_hi - c_lo) * height;
        doc.line((bx + bw, ty), (bx + bw + 4.0, ty), "stroke=\"#333333\" stroke-width=\"1\"");
        doc.text(bx + bw + 7.0, ty + 4.0, Anchor::Start, 11.0, "", &ticks.label(t));
    }
    doc.finish()
}
