//! The three charts of the small fixed inputs, byte for byte. Review a change by opening the
//! `.snap` file's SVG in a browser.

#[test]
fn sweep_line() {
    insta::assert_snapshot!(crate::line());
}

#[test]
fn sweep_heatmap() {
    insta::assert_snapshot!(crate::heatmap());
}

#[test]
fn rating_bands() {
    insta::assert_snapshot!(crate::bands());
}

#[test]
fn no_data() {
    insta::assert_snapshot!(ladder_plot::rating_bands(&[]));
}
