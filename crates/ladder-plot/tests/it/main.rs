//! Integration tests of ladder-plot: XML structure, snapshots, and a browser render.

mod render;
mod snapshots;
mod structure;

use ladder_plot::Series;
use std::f64::consts::LN_2;

/// A name with every markup character and a quote.
pub const TRICKY: &str = "A&B <\"x\">";

/// 2024-01-01T00:00:00Z in UTC nanoseconds.
pub const JAN_1: i64 = 1_704_067_200 * 1_000_000_000;
/// One day in nanoseconds.
pub const DAY: i64 = 86_400_000_000_000;

/// Four points of a sweep over k, the best at k = 20, and two baselines.
pub fn line() -> String {
    ladder_plot::sweep_line(
        "k",
        &[(10.0, 0.66), (20.0, 0.64), (30.0, 0.65), (40.0, 0.67)],
        &[("always 0.5", LN_2), (TRICKY, 0.68)],
    )
}

/// A 3 × 2 grid with one missing cell; the best, 0.63, is at x = 3, y = 20.
pub fn heatmap() -> String {
    ladder_plot::sweep_heatmap(
        "tau",
        &[1.0, 2.0, 3.0],
        "rd_max",
        &[10.0, 20.0],
        &[vec![0.66, 0.64, 0.65], vec![0.67, f64::NAN, 0.63]],
    )
}

/// Three series: one with a two-point band run and a one-point run, one without deviations, one
/// with nothing drawable.
pub fn series() -> Vec<Series> {
    vec![
        Series {
            name: TRICKY.to_owned(),
            points: vec![
                (JAN_1, 1500.0, Some(300.0)),
                (JAN_1 + DAY, 1550.0, Some(250.0)),
                (JAN_1 + 2 * DAY, 1520.0, None),
                (JAN_1 + 3 * DAY, 1530.0, Some(200.0)),
            ],
        },
        Series {
            name: "Łukasz 李".to_owned(),
            points: vec![(JAN_1 + DAY, 1450.0, None), (JAN_1 + 3 * DAY, 1480.0, None)],
        },
        Series { name: "nobody".to_owned(), points: vec![(JAN_1, f64::NAN, Some(100.0))] },
    ]
}

/// The rating chart of [`series`].
pub fn bands() -> String {
    ladder_plot::rating_bands(&series())
}

/// Parses `svg` as XML and checks the root: an `<svg>` in the SVG namespace with a width, a
/// height and a viewBox matching them.
pub fn parse(svg: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let (w, h) = (root.attribute("width").unwrap(), root.attribute("height").unwrap());
    assert_eq!(root.attribute("viewBox"), Some(format!("0 0 {w} {h}").as_str()));
    assert_eq!(root.attribute("version"), Some("1.1"));
    // No number in any attribute may be NaN or infinite.
    for node in doc.descendants().filter(|n| n.is_element()) {
        for a in node.attributes() {
            let v = a.value().to_ascii_lowercase();
            assert!(
                !v.contains("nan") && !v.contains("inf"),
                "{}={:?} in {svg}",
                a.name(),
                a.value()
            );
        }
    }
    doc
}

/// How many elements named `name` the document has.
pub fn count(doc: &roxmltree::Document, name: &str) -> usize {
    doc.descendants().filter(|n| n.has_tag_name(name)).count()
}

/// The content of every `<text>`, in document order.
pub fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_owned())
        .collect()
}
