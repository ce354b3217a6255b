//! Colours: the Okabe–Ito palette for lines and a viridis ramp for the heat map. Both stay
//! distinguishable under the common colour-vision deficiencies, and viridis is monotone in
//! lightness, so the heat map also reads in greyscale.

/// Okabe & Ito (2008), "Color Universal Design", in the order lines take them: the strong colours
/// first, yellow (weak on white) last.
pub const PALETTE: [&str; 8] = [
    "#0072B2", // blue
    "#D55E00", // vermillion
    "#009E73", // bluish green
    "#CC79A7", // reddish purple
    "#E69F00", // orange
    "#56B4E9", // sky blue
    "#000000", // black
    "#F0E442", // yellow
];

/// Stroke dash patterns for series past the eighth: each trip round the palette takes the next.
pub(crate) const DASHES: [&str; 3] = ["", "6 3", "2 3"];

/// Viridis (matplotlib, van der Walt & Smith) sampled at nine evenly spaced points.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2d, 0x7b),
    (0x3b, 0x52, 0x8b),
    (0x2c, 0x72, 0x8e),
    (0x21, 0x91, 0x8c),
    (0x28, 0xae, 0x80),
    (0x5e, 0xc9, 0x62),
    (0xad, 0xdc, 0x30),
    (0xfd, 0xe7, 0x25),
];

/// The viridis colour at `t` in [0, 1] (dark purple at 0, yellow at 1; clamped; NaN is 0), and
/// whether text on it should be black (true) or white.
pub(crate) fn viridis(t: f64) -> (String, bool) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    let (r, g, bl) = (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2));
    // Rec. 709 luma of the sRGB values: good enough to choose black or white text.
    let luma = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(bl);
    (format!("#{r:02x}{g:02x}{bl:02x}"), luma > 128.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_text_contrast() {
        assert_eq!(viridis(0.0), ("#440154".to_owned(), false));
        assert_eq!(viridis(1.0), ("#fde725".to_owned(), true));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(viridis(7.0), viridis(1.0));
        assert_eq!(viridis(0.5).0, "#21918c");
    }
}
