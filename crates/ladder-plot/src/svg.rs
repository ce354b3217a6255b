//! The SVG writer every chart shares: escaping, fixed-decimal numbers, the document frame, and
//! the axes of the two x/y charts.

use crate::ticks::Ticks;

/// Canvas width in pixels.
pub(crate) const WIDTH: f64 = 800.0;
/// Canvas height in pixels.
pub(crate) const HEIGHT: f64 = 500.0;

/// Largest magnitude a data value may have; beyond it a value is treated like NaN. Log losses and
/// ratings are nowhere near, and the bound keeps every sum and difference finite and exact enough.
pub(crate) const LIMIT: f64 = 1e12;

/// Whether `v` is a value to draw: finite and within ±[`LIMIT`].
pub(crate) fn usable(v: f64) -> bool {
    v.is_finite() && v.abs() <= LIMIT
}

/// Text for XML 1.0 character data or a double-quoted attribute value.
///
/// The five markup characters become entities; tab, newline and carriage return become spaces
/// (a label is one line); characters XML 1.0 forbids even as references (C0 controls, U+FFFE,
/// U+FFFF) become U+FFFD. Everything else, non-ASCII included, is kept as UTF-8.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'.. => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// At most `max` characters of `s`, the last replaced by an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A coordinate or length with two decimals. Never `NaN`, `inf` or `-0.00`: a non-finite value is
/// written as 0 and a finite one is clamped to ±1e6, so no input can make the SVG invalid.
pub(crate) fn num(v: f64) -> String {
    let v = if v.is_finite() { v.clamp(-1e6, 1e6) } else { 0.0 };
    let s = format!("{v:.2}");
    if s == "-0.00" {
        "0.00".to_owned()
    } else {
        s
    }
}

/// A data value as a short, exact-enough label: up to six decimals with trailing zeros removed,
/// scientific notation for very small or very large magnitudes, and `NaN`, `inf`, `-inf` spelt
/// out (they are escaped like any text, so they cannot break the document).
pub(crate) fn compact(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    if v != 0.0 && (v.abs() < 1e-4 || v.abs() >= 1e9) {
        let s = format!("{v:.3e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exp}", trim_zeros(mantissa));
    }
    let s = trim_zeros(&format!("{v:.6}")).to_owned();
    if s == "-0" {
        "0".to_owned()
    } else {
        s
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `M x y L x y …` through `points`.
pub(crate) fn path_data(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        if i > 0 {
            d.push(' ');
        }
        d.push_str(if i == 0 { "M" } else { "L" });
        d.push_str(&num(*x));
        d.push(' ');
        d.push_str(&num(*y));
    }
    d
}

/// Horizontal anchoring of a `<text>`.
#[derive(Clone, Copy)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An SVG document being written. Attribute strings passed in (`attrs`) are the chart's own
/// constants and numbers; every piece of caller text goes through [`escape`].
pub(crate) struct Doc {
    out: String,
}

impl Doc {
    /// The XML declaration, the `<svg>` root, an accessible `<title>`, a white background
    /// `<rect>` and the visible title `<text>`.
    pub(crate) fn new(title: &str) -> Doc {
        let (w, h) = (format!("{WIDTH:.0}"), format!("{HEIGHT:.0}"));
        let mut out = String::new();
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" \
             font-size=\"12\">\n"
        ));
        out.push_str(&format!("<title>{}</title>\n", escape(title)));
        out.push_str(&format!(
            "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n"
        ));
        let mut doc = Doc { out };
        doc.text(WIDTH / 2.0, 26.0, Anchor::Middle, 16.0, "font-weight=\"bold\"", title);
        doc
    }

    /// Appends markup written by the chart itself (definitions, groups).
    pub(crate) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A `<text>` at (x, y) whose content is `content`, escaped.
    pub(crate) fn text(
        &mut self,
        x: f64,
        y: f64,
        anchor: Anchor,
        size: f64,
        attrs: &str,
        content: &str,
    ) {
        let sep = if attrs.is_empty() { "" } else { " " };
        self.out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\"{sep}{attrs}>{}</text>\n",
            num(x),
            num(y),
            anchor.as_str(),
            num(size),
            escape(content)
        ));
    }

    /// A `<line>` from (x1, y1) to (x2, y2).
    pub(crate) fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), attrs: &str) {
        self.out.push_str(&format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {attrs}/>\n",
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        ));
    }

    /// A `<rect>`.
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        self.out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {attrs}/>\n",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0))
        ));
    }

    /// A `<path>` with data `d` (from [`path_data`] or built from [`num`]s).
    pub(crate) fn path(&mut self, d: &str, attrs: &str) {
        self.out.push_str(&format!("<path d=\"{d}\" {attrs}/>\n"));
    }

    /// A `<circle>`.
    pub(crate) fn circle(&mut self, (cx, cy): (f64, f64), r: f64, attrs: &str) {
        self.out.push_str(&format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {attrs}/>\n",
            num(cx),
            num(cy),
            num(r)
        ));
    }

    /// Closes the root and returns the document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// The document for a chart with nothing to draw: its title and "no data" in the middle.
pub(crate) fn no_data(title: &str) -> String {
    let mut doc = Doc::new(title);
    doc.text(WIDTH / 2.0, HEIGHT / 2.0, Anchor::Middle, 20.0, "fill=\"#555555\"", "no data");
    doc.finish()
}

/// The plot area of an x/y chart, in pixels, and the data domain it shows.
pub(crate) struct Frame {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
    pub(crate) x_domain: (f64, f64),
    pub(crate) y_domain: (f64, f64),
}

impl Frame {
    /// Pixel x of data value `v`.
    pub(crate) fn x(&self, v: f64) -> f64 {
        let (lo, hi) = self.x_domain;
        self.left + (v - lo) / (hi - lo) * self.width
    }

    /// Pixel y of data value `v` (up is larger).
    pub(crate) fn y(&self, v: f64) -> f64 {
        let (lo, hi) = self.y_domain;
        self.top + self.height - (v - lo) / (hi - lo) * self.height
    }

    fn bottom(&self) -> f64 {
        self.top + self.height
    }

    fn right(&self) -> f64 {
        self.left + self.width
    }
}

/// One labelled tick of an axis: its data value and its text.
pub(crate) struct Tick {
    pub(crate) at: f64,
    pub(crate) label: String,
}

impl Tick {
    /// The ticks of a numeric axis.
    pub(crate) fn numeric(ticks: &Ticks) -> Vec<Tick> {
        ticks.values.iter().map(|&v| Tick { at: v, label: ticks.label(v) }).collect()
    }
}

/// Grid lines (`<line>`), one `<text>` per tick, the two axis titles (`<text>`) and the frame
/// (`<rect>`) of an x/y chart.
pub(crate) fn axes(doc: &mut Doc, f: &Frame, x: &[Tick], y: &[Tick], x_title: &str, y_title: &str) {
    let grid = "stroke=\"#e3e3e3\" stroke-width=\"1\"";
    for t in x {
        let px = f.x(t.at);
        doc.line((px, f.top), (px, f.bottom()), grid);
    }
    for t in y {
        let py = f.y(t.at);
        doc.line((f.left, py), (f.right(), py), grid);
    }
    doc.rect(
        f.left,
        f.top,
        f.width,
        f.height,
        "fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"",
    );
    let tick = "stroke=\"#333333\" stroke-width=\"1\"";
    for t in x {
        let px = f.x(t.at);
        doc.line((px, f.bottom()), (px, f.bottom() + 5.0), tick);
        doc.text(px, f.bottom() + 19.0, Anchor::Middle, 12.0, "", &t.label);
    }
    for t in y {
        let py = f.y(t.at);
        doc.line((f.left - 5.0, py), (f.left, py), tick);
        doc.text(f.left - 8.0, py + 4.0, Anchor::End, 12.0, "", &t.label);
    }
    doc.text(f.left + f.width / 2.0, f.bottom() + 42.0, Anchor::Middle, 13.0, "", x_title);
    let (yx, yy) = (18.0, f.top + f.height / 2.0);
    doc.text(
        yx,
        yy,
        Anchor::Middle,
        13.0,
        &format!("transform=\"rotate(-90 {} {})\"", num(yx), num(yy)),
        y_title,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_markup_controls_and_keeps_unicode() {
        assert_eq!(escape(r#"A&B <"x"> 'y'"#), "A&amp;B &lt;&quot;x&quot;&gt; &apos;y&apos;");
        assert_eq!(escape("Łukasz 李\u{1F600}"), "Łukasz 李\u{1F600}");
        assert_eq!(escape("a\u{0}b\u{1B}c\td\u{FFFE}"), "a\u{FFFD}b\u{FFFD}c d\u{FFFD}");
    }

    #[test]
    fn numbers_are_fixed_and_finite() {
        assert_eq!(num(1.0), "1.00");
        assert_eq!(num(-0.001), "0.00");
        assert_eq!(num(2.345678), "2.35");
        assert_eq!(num(f64::NAN), "0.00");
        assert_eq!(num(f64::INFINITY), "0.00");
        assert_eq!(num(1e300), "1000000.00");
    }

    #[test]
    fn compact_labels() {
        assert_eq!(compact(0.1 + 0.2), "0.3");
        assert_eq!(compact(16.0), "16");
        assert_eq!(compact(-0.0), "0");
        assert_eq!(compact(0.00001234), "1.234e-5");
        assert_eq!(compact(2.5e12), "2.5e12");
        assert_eq!(compact(f64::NAN), "NaN");
        assert_eq!(compact(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn truncate_counts_chars() {
        assert_eq!(truncate("Łukasz", 10), "Łukasz");
        assert_eq!(truncate("Łukasz", 4), "Łuk…");
    }

    #[test]
    fn path_data_moves_then_lines() {
        assert_eq!(path_data(&[(0.0, 1.0), (2.5, f64::NAN)]), "M0.00 1.00 L2.50 0.00");
        assert_eq!(path_data(&[]), "");
    }
}
