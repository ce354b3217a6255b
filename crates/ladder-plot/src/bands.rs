//! Ratings over time with their uncertainty.

use crate::colour::{DASHES, PALETTE};
use crate::line::min_max;
use crate::svg::{self, axes, no_data, path_data, truncate, usable, Anchor, Doc, Frame, Tick};
use crate::ticks::{nice_ticks, time_ticks};

/// One player's rating history, as one line of [`rating_bands`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// The player's name, shown in the legend (any text: it is escaped).
    pub name: String,
    /// `(instant in UTC nanoseconds, rating, rating deviation)`, one per rating change, in any
    /// order (drawn sorted by instant). The deviation is `None` for algorithms without one.
    pub points: Vec<(i64, f64, Option<f64>)>,
}

/// Legend rows that fit beside the plot; past them the legend ends with "+N more".
const LEGEND_ROWS: usize = 18;

/// A line chart of ratings over time, one line per series, each in a band of rating ± 2 RD where
/// the series has a deviation: [`rating_chart`] titled "Ratings over time", with no subtitle.
pub fn rating_bands(series: &[Series]) -> String {
    rating_chart("Ratings over time", "", "RD", series)
}

/// A line chart of ratings over time, one line per series, each in a band of rating ± 2
/// deviations where the series has a deviation; `band` names the quantity the deviation is (the
/// field it comes from: "RD" for a rating deviation, "sigma" for Weng-Lin's and TTT's).
///
/// The title is `heading`, followed by "(bands: ±2 `band`)" only when some series has a deviation
/// to draw; `subtitle` (say, the algorithm and its constants), when not empty, is a smaller line
/// under it (cut to 120 characters). Points at one instant are one point, the last given: a
/// player who joins and plays at the same instant starts at the rating after the game, not with a
/// vertical jump from the initial rating.
///
/// Colours follow the Okabe–Ito palette in series order; series past the eighth reuse it with a
/// dash pattern. The band is translucent so overlapping players stay visible; a lone point with a
/// deviation gets a vertical bar, a lone point a dot. The time axis has calendar ticks (years,
/// months, Mondays, days, hours, …) labelled in UTC. The legend names every series in order
/// (cut to 22 characters, at most 18 rows, then "+N more"); a series with nothing to draw says
/// "(no data)".
///
/// A point whose rating is NaN or infinite is left out; a deviation that is NaN, infinite or
/// negative counts as absent. With no point left at all the chart says "no data".
///
/// Elements: `<path>` per series one per band run (consecutive points with a deviation) plus one
/// line when it has two points or more; `<rect>` 2 (background, plot frame) + one band swatch
/// per legend row whose series has a deviation; `<text>` 3 (+1 for a subtitle) + the tick labels of both axes + the legend rows (+1 for "+N more").
///
/// ```
/// use ladder_plot::{rating_bands, Series};
/// let day = 86_400_000_000_000;
/// let svg = rating_bands(&[Series {
///     name: "Ann & Bo".into(),
///     points: vec![(0, 1500.0, Some(350.0)), (day, 1540.0, Some(300.0))],
/// }]);
/// assert!(svg.contains("Ann &amp; Bo"));
/// ```
pub fn rating_chart(heading: &str, subtitle: &str, band: &str, series: &[Series]) -> String {
    // Per series: usable points sorted by instant (the last of an instant kept), with the
    // deviation kept only where usable.
    let cleaned: Vec<Vec<(i64, f64, Option<f64>)>> = series
        .iter()
        .map(|s| {
            let mut pts: Vec<(i64, f64, Option<f64>)> = s
                .points
                .iter()
                .filter(|p| usable(p.1))
                .map(|&(t, r, rd)| {
                    let rd = rd.filter(|&d| usable(d) && d >= 0.0 && usable(r + 2.0 * d));
                    (t, r, rd)
                })
                .collect();
            pts.sort_by_key(|p| p.0);
            let mut last_of_instant: Vec<(i64, f64, Option<f64>)> = Vec::with_capacity(pts.len());
            for p in pts {
                match last_of_instant.last_mut() {
                    Some(q) if q.0 == p.0 => *q = p,
                    _ => last_of_instant.push(p),
                }
            }
            last_of_instant
        })
        .collect();
    let all = || cleaned.iter().flatten();
    let title = if all().any(|p| p.2.is_some()) {
        format!("{heading} (bands: ±2 {band})")
    } else {
        heading.to_owned()
    };
    if all().next().is_none() {
        return no_data(&title);
    }

    let t_lo = all().map(|p| p.0).min().unwrap_or(0);
    let t_hi = all().map(|p| p.0).max().unwrap_or(0);
    // A single instant is shown as the day around it.
    let half_day = 43_200_000_000_000;
    let (t_lo, t_hi) = if t_lo == t_hi {
        (t_lo.saturating_sub(half_day), t_hi.saturating_add(half_day))
    } else {
        (t_lo, t_hi)
    };
    let span = (i128::from(t_hi) - i128::from(t_lo)) as f64;
    let offset = |t: i64| (i128::from(t) - i128::from(t_lo)) as f64;

    let (y_lo, y_hi) = min_max(all().flat_map(|&(_, r, rd)| {
        let d = 2.0 * rd.unwrap_or(0.0);
        [r - d, r + d]
    }));
    let yt = nice_ticks(y_lo, y_hi, 8);
    let f = Frame {
        left: 70.0,
        top: 50.0,
        width: svg::WIDTH - 70.0 - 200.0,
        height: svg::HEIGHT - 50.0 - 70.0,
        x_domain: (0.0, span),
        y_domain: (yt.lo(), yt.hi()),
    };
    let xt: Vec<Tick> = time_ticks(t_lo, t_hi, 7)
        .into_iter()
        .map(|(t, label)| Tick { at: offset(t), label })
        .collect();

    let mut doc = Doc::new(&title);
    if !subtitle.is_empty() {
        doc.text(svg::WIDTH / 2.0, 43.0, Anchor::Middle, 11.0, "", &truncate(subtitle, 120));
    }
    axes(&mut doc, &f, &xt, &Tick::numeric(&yt), "time (UTC)", "rating");
    let style = |i: usize| {
        let colour = PALETTE[i % PALETTE.len()];
        let dash = DASHES[(i / PALETTE.len()) % DASHES.len()];
        let dash =
            if dash.is_empty() { String::new() } else { format!(" stroke-dasharray=\"{dash}\"") };
        (colour, dash)
    };

    // Bands first, so that every line is drawn over every band.
    for (i, pts) in cleaned.iter().enumerate() {
        let (colour, _) = style(i);
        for run in pts.split(|p| p.2.is_none()).filter(|run| !run.is_empty()) {
            let edge = |sign: f64, p: &(i64, f64, Option<f64>)| {
                (f.x(offset(p.0)), f.y(p.1 + sign * 2.0 * p.2.unwrap_or(0.0)))
            };
            if run.len() == 1 {
                let d = path_data(&[edge(1.0, &run[0]), edge(-1.0, &run[0])]);
                let attrs = format!(
                    "fill=\"none\" stroke=\"{colour}\" stroke-opacity=\"0.35\" stroke-width=\"4\""
                );
                doc.path(&d, &attrs);
            } else {
                let outline: Vec<(f64, f64)> = run
                    .iter()
                    .map(|p| edge(1.0, p))
                    .chain(run.iter().rev().map(|p| edge(-1.0, p)))
                    .collect();
                let d = format!("{} Z", path_data(&outline));
                doc.path(&d, &format!("fill=\"{colour}\" fill-opacity=\"0.18\" stroke=\"none\""));
            }
        }
    }
    for (i, pts) in cleaned.iter().enumerate() {
        let (colour, dash) = style(i);
        let line: Vec<(f64, f64)> = pts.iter().map(|p| (f.x(offset(p.0)), f.y(p.1))).collect();
        match line.as_slice() {
            [] => {}
            [p] => doc.circle(*p, 3.5, &format!("fill=\"{colour}\"")),
            _ => doc.path(
                &path_data(&line),
                &format!("fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" stroke-linejoin=\"round\"{dash}"),
            ),
        }
    }

    let lx = f.left + f.width + 20.0;
    let shown = if series.len() > LEGEND_ROWS { LEGEND_ROWS - 1 } else { series.len() };
    for (i, s) in series.iter().take(shown).enumerate() {
        let (colour, dash) = style(i);
        let y = f.top + 10.0 + i as f64 * 20.0;
        if cleaned[i].iter().any(|p| p.2.is_some()) {
            let swatch = format!("fill=\"{colour}\" fill-opacity=\"0.18\" stroke=\"none\"");
            doc.rect(lx, y - 6.0, 24.0, 12.0, &swatch);
        }
        doc.line((lx, y), (lx + 24.0, y), &format!("stroke=\"{colour}\" stroke-width=\"2\"{dash}"));
        let mut name = truncate(&s.name, 22);
        if cleaned[i].is_empty() {
            name.push_str(" (no data)");
        }
        doc.text(lx + 30.0, y + 4.0, Anchor::Start, 12.0, "", &name);
    }
    if shown < series.len() {
        let y = f.top + 10.0 + shown as f64 * 20.0;
        doc.text(
            lx + 30.0,
            y + 4.0,
            Anchor::Start,
            12.0,
            "",
            &format!("+{} more", series.len() - shown),
        );
    }
    doc.finish()
}
