//! Each chart parses as SVG with the elements its documentation promises for a small input.

use crate::{bands, count, heatmap, line, parse, series, texts, DAY, JAN_1, TRICKY};
use ladder_plot::{rating_bands, sweep_heatmap, sweep_line, Series};

/// Asserts the element counts of `svg`: `(path, rect, text, circle)`.
fn check_counts(svg: &str, expected: (usize, usize, usize, usize)) {
    let doc = parse(svg);
    let got =
        (count(&doc, "path"), count(&doc, "rect"), count(&doc, "text"), count(&doc, "circle"));
    assert_eq!(got, expected, "(path, rect, text, circle) of\n{svg}");
}

#[test]
fn line_elements() {
    // Paths: the line and two baselines. Rects: background, frame. Circles: 4 points and the
    // best ring. Texts: title, 2 axis titles, x ticks 10..40 by 5 (7), y ticks 0.63..0.70 by 0.01
    // (8: a tenth of the span is kept free under the lowest point), 2 baseline labels, the best label.
    check_counts(&line(), (3, 2, 21, 5));
    let svg = line();
    let doc = parse(&svg);
    let t = texts(&doc);
    assert_eq!(t[0], "Log loss by k");
    assert!(t.contains(&"best: k = 20, log loss 0.6400".to_owned()), "{t:?}");
    assert!(t.contains(&"always 0.5: 0.6931".to_owned()), "{t:?}");
    assert!(t.contains(&format!("{TRICKY}: 0.6800")), "{t:?}");
    for tick in ["10", "15", "40", "0.63", "0.70"] {
        assert!(t.contains(&tick.to_owned()), "no tick {tick} in {t:?}");
    }
}

#[test]
fn heatmap_elements() {
    // Rects: background, 6 cells, the best outline, the legend bar, the hatch pattern's tile.
    // Path: the hatch. Texts: title, 2 axis titles, 3 + 2 axis labels, 5 cell values, legend
    // title, legend ticks 0.63..0.67 by 0.01 (5).
    check_counts(&heatmap(), (1, 10, 19, 0));
    let svg = heatmap();
    let doc = parse(&svg);
    let t = texts(&doc);
    for cell in ["0.6600", "0.6400", "0.6500", "0.6700", "0.6300"] {
        assert!(t.contains(&cell.to_owned()), "no cell {cell} in {t:?}");
    }
    // The outline sits exactly on the best cell: the one whose text is 0.6300.
    let rects: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("rect")).collect();
    let outline = rects.iter().find(|r| r.attribute("stroke-width") == Some("3")).unwrap();
    let best =
        doc.descendants().find(|n| n.has_tag_name("text") && n.text() == Some("0.6300")).unwrap();
    let (x, w) = (attr(outline, "x"), attr(outline, "width"));
    let (y, h) = (attr(outline, "y"), attr(outline, "height"));
    assert!((attr(&best, "x") - (x + w / 2.0)).abs() < 0.01);
    assert!(attr(&best, "y") > y && attr(&best, "y") < y + h);
    // The best cell is the lowest value, so it has the brightest colour of the scale.
    let cell = rects.iter().find(|r| {
        attr(r, "x") == x && attr(r, "y") == y && r.attribute("stroke-width") == Some("1")
    });
    assert_eq!(cell.unwrap().attribute("fill"), Some("#fde725"));
}

fn attr(node: &roxmltree::Node, name: &str) -> f64 {
    node.attribute(name).unwrap().parse().unwrap()
}

#[test]
fn bands_elements() {
    // Paths: the first series' two-point band, its one-point bar and its line; the second's line.
    // Rects: background, frame, one swatch (only the first series has deviations). Texts: title,
    // 2 axis titles, x ticks every 12 hours over 3 days (7), y ticks 800..2200 by 200 (8), 3
    // legend rows.
    check_counts(&bands(), (4, 3, 21, 0));
    let svg = bands();
    let doc = parse(&svg);
    let t = texts(&doc);
    // Title, x tick labels, y tick labels, axis titles, legend.
    assert_eq!(t[16..18], ["time (UTC)", "rating"]);
    assert_eq!(t[8..16], ["800", "1000", "1200", "1400", "1600", "1800", "2000", "2200"]);
    assert_eq!(
        t[1..8],
        [
            "01-01 00:00",
            "01-01 12:00",
            "01-02 00:00",
            "01-02 12:00",
            "01-03 00:00",
            "01-03 12:00",
            "01-04 00:00"
        ]
    );
    assert_eq!(t[t.len() - 3..], [TRICKY, "Łukasz 李", "nobody (no data)"]);
}

#[test]
fn names_are_escaped() {
    let escaped = "A&amp;B &lt;&quot;x&quot;&gt;";
    let line = sweep_line(TRICKY, &[(1.0, 0.6)], &[(TRICKY, 0.7)]);
    let heat = sweep_heatmap(TRICKY, &[1.0], TRICKY, &[2.0], &[vec![0.6]]);
    for svg in [line, heat, bands()] {
        assert!(svg.contains(escaped), "{svg}");
        let doc = parse(&svg);
        assert!(texts(&doc).iter().any(|t| t.contains(TRICKY)), "{svg}");
        // The accessible title holds the same text.
        let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap();
        assert!(title.text().unwrap().starts_with(if svg.contains("Ratings") {
            "Ratings"
        } else {
            "Log loss"
        }));
    }
    // Characters XML cannot carry at all still give a parsable document.
    let doc_svg = sweep_line("a\u{0}b\u{1b}\u{fffe}", &[(1.0, 0.6)], &[]);
    let doc = parse(&doc_svg);
    assert_eq!(texts(&doc)[0], "Log loss by a\u{fffd}b\u{fffd}\u{fffd}");
}

#[test]
fn output_is_deterministic_and_independent_of_input_order() {
    assert_eq!(line(), line());
    assert_eq!(heatmap(), heatmap());
    assert_eq!(bands(), bands());
    let shuffled = sweep_line(
        "k",
        &[(30.0, 0.65), (10.0, 0.66), (40.0, 0.67), (20.0, 0.64)],
        &[("always 0.5", std::f64::consts::LN_2), (TRICKY, 0.68)],
    );
    assert_eq!(shuffled, line());
    let mut reversed = series();
    for s in &mut reversed {
        s.points.reverse();
    }
    assert_eq!(rating_bands(&reversed), bands());
}

fn says_no_data(svg: &str) {
    let doc = parse(svg);
    assert_eq!(texts(&doc).last().map(String::as_str), Some("no data"), "{svg}");
    assert_eq!(count(&doc, "path") + count(&doc, "circle") + count(&doc, "line"), 0, "{svg}");
}

#[test]
fn empty_inputs_say_no_data() {
    says_no_data(&sweep_line("k", &[], &[]));
    says_no_data(&sweep_line("k", &[], &[("always 0.5", 0.69)]));
    says_no_data(&sweep_heatmap("a", &[], "b", &[1.0], &[vec![0.6]]));
    says_no_data(&sweep_heatmap("a", &[1.0], "b", &[], &[]));
    says_no_data(&sweep_heatmap("a", &[1.0, 2.0], "b", &[1.0], &[]));
    says_no_data(&rating_bands(&[]));
    says_no_data(&rating_bands(&[Series { name: "x".into(), points: vec![] }]));
}

#[test]
fn nan_and_infinity_are_left_out() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    says_no_data(&sweep_line("k", &[(nan, 0.6), (1.0, nan), (inf, 0.6), (1.0, -inf)], &[]));
    says_no_data(&sweep_heatmap("a", &[1.0], "b", &[1.0], &[vec![nan]]));
    says_no_data(&rating_bands(&[Series {
        name: "x".into(),
        points: vec![(0, nan, Some(1.0)), (1, inf, None)],
    }]));

    // A finite point among non-finite ones, and non-finite baselines: one point, one ring.
    let svg =
        sweep_line("k", &[(nan, 0.6), (2.0, 0.61), (inf, inf)], &[("bad", nan), ("worse", -inf)]);
    let doc = parse(&svg);
    assert_eq!((count(&doc, "path"), count(&doc, "circle")), (0, 2));

    // Non-finite axis values of a heat map are labels, not coordinates.
    let svg = sweep_heatmap("a", &[nan, inf], "b", &[-inf], &[vec![0.6, inf]]);
    let t = texts(&parse(&svg));
    assert!(t.contains(&"NaN".to_owned()) && t.contains(&"-inf".to_owned()), "{t:?}");

    // A deviation that is NaN, infinite or negative is no deviation; a huge rating is left out.
    let svg = rating_bands(&[Series {
        name: "x".into(),
        points: vec![
            (JAN_1, 1500.0, Some(nan)),
            (JAN_1 + DAY, 1510.0, Some(-5.0)),
            (JAN_1 + 2 * DAY, 1e300, Some(50.0)),
            (JAN_1 + 3 * DAY, 1520.0, Some(inf)),
        ],
    }]);
    let doc = parse(&svg);
    assert_eq!((count(&doc, "path"), count(&doc, "rect")), (1, 2), "{svg}");
}

#[test]
fn extreme_but_finite_inputs_stay_valid() {
    parse(&sweep_line("k", &[(-1e12, 0.0), (1e12, 1e-300), (0.0, 5e-324)], &[]));
    parse(&sweep_line("k", &[(1.0, 0.6)], &[]));
    parse(&sweep_heatmap("a", &[1.0; 200], "b", &[1.0; 150], &vec![vec![0.5; 200]; 150]));
    // One instant at the ends of the representable range.
    parse(&rating_bands(&[Series { name: "x".into(), points: vec![(i64::MIN, 1.0, None)] }]));
    parse(&rating_bands(&[Series {
        name: "x".into(),
        points: vec![(i64::MIN, 1.0, None), (i64::MAX, 2.0, Some(1.0))],
    }]));
    // Many series: the legend ends with "+N more", dashes mark the second trip round the palette.
    let many: Vec<Series> = (0..30)
        .map(|i| Series {
            name: format!("player {i}"),
            points: vec![(0, f64::from(i), None), (DAY, f64::from(i) + 1.0, None)],
        })
        .collect();
    let svg = rating_bands(&many);
    let t = texts(&parse(&svg));
    assert_eq!(t.last().map(String::as_str), Some("+13 more"));
    assert!(svg.contains("stroke-dasharray=\"6 3\""));
}

#[test]
fn the_title_names_a_band_only_where_one_is_drawn_and_a_subtitle_is_shown() {
    use ladder_plot::rating_chart;
    let day = 86_400_000_000_000;
    let without_rd =
        [Series { name: "a".into(), points: vec![(0, 1500.0, None), (day, 1510.0, None)] }];
    let svg =
        rating_chart("elo ratings over time", "elo k=20 initial_rating=1500", "RD", &without_rd);
    let doc = parse(&svg);
    assert_eq!(texts(&doc)[0], "elo ratings over time");
    assert_eq!(texts(&doc)[1], "elo k=20 initial_rating=1500");
    assert!(!svg.contains("RD"), "{svg}");
    let with_rd = [Series { name: "a".into(), points: vec![(0, 1500.0, Some(350.0))] }];
    let doc_svg = rating_chart("glicko ratings over time", "", "RD", &with_rd);
    assert_eq!(texts(&parse(&doc_svg))[0], "glicko ratings over time (bands: ±2 RD)");
    // A band of sigma (Weng-Lin, TTT) is named by its field, never called RD.
    let svg = rating_chart("weng-lin ratings over time", "", "sigma", &with_rd);
    assert_eq!(texts(&parse(&svg))[0], "weng-lin ratings over time (bands: ±2 sigma)");
    assert!(!svg.contains("RD"), "{svg}");
}

#[test]
fn points_at_one_instant_are_one_point_the_last_given() {
    let day = 86_400_000_000_000;
    // A join at 1500 and a game at the same instant, then a game a day later: drawn as the two
    // ratings after the games, not as a vertical jump from 1500.
    let joined_and_played = [Series {
        name: "a".into(),
        points: vec![(0, 1500.0, None), (0, 1520.0, None), (day, 1530.0, None)],
    }];
    let played =
        [Series { name: "a".into(), points: vec![(0, 1520.0, None), (day, 1530.0, None)] }];
    assert_eq!(rating_bands(&joined_and_played), rating_bands(&played));
}
