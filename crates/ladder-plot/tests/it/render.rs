//! Renders each chart in headless Chromium and checks the screenshot is a drawn chart, not a blank
//! page. Without `/usr/bin/chromium` the same charts get the XML checks instead, and the test says
//! so on stderr; under `CI=true` (where `.ci/run` installs Chromium) it fails instead.
//!
//! Set `LADDER_PLOT_PNG_DIR` to keep the screenshots for a look, and `LADDER_CHROMIUM` to use
//! another browser binary (or a missing path, to see the fallback).

use crate::{bands, count, heatmap, line, parse};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The browser: `LADDER_CHROMIUM`, else `/usr/bin/chromium`.
fn chromium() -> PathBuf {
    std::env::var_os("LADDER_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// One chart and a colour its data must show: the line's blue, the best heat-map cell's viridis
/// yellow, the first series' blue.
fn charts() -> [(&'static str, String, [u8; 3]); 3] {
    [
        ("sweep-line", line(), [0x00, 0x72, 0xb2]),
        ("sweep-heatmap", heatmap(), [0xfd, 0xe7, 0x25]),
        ("rating-bands", bands(), [0x00, 0x72, 0xb2]),
    ]
}

#[test]
fn charts_render_in_a_browser() {
    let chromium = chromium();
    if !chromium.exists() {
        let path = chromium.display();
        // CI installs Chromium (.ci/run), so there a missing browser is a failure, not a skip.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{path} is missing and CI=true: .ci/run installs Debian's chromium"
        );
        eprintln!("{path} not found: checking the charts' XML structure instead of rendering them");
        for (name, svg, _) in charts() {
            let doc = parse(&svg);
            let drawn = count(&doc, "path") + count(&doc, "rect") + count(&doc, "circle");
            assert!(drawn >= 3, "{name} draws only {drawn} shapes");
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, svg, colour) in charts() {
        let svg_path = dir.path().join(format!("{name}.svg"));
        let png_path = dir.path().join(format!("{name}.png"));
        std::fs::write(&svg_path, &svg).unwrap();
        screenshot(&chromium, &svg_path, &png_path, dir.path());
        let bytes = std::fs::read(&png_path).unwrap();
        if let Some(keep) = std::env::var_os("LADDER_PLOT_PNG_DIR") {
            std::fs::write(Path::new(&keep).join(format!("{name}.png")), &bytes).unwrap();
        }
        let (width, height, pixels) = decode(&bytes);
        assert_eq!((width, height), (800, 600), "{name}");
        let ink = pixels.iter().filter(|p| p.iter().any(|&c| c < 235)).count();
        let data = pixels.iter().filter(|p| close(**p, colour)).count();
        eprintln!("{name}: {ink} non-white pixels, {data} of the data colour");
        // A blank page has none; axes and labels alone a few thousand; the charts here far more.
        assert!(ink > 10_000, "{name}: only {ink} non-white pixels");
        assert!(data > 200, "{name}: only {data} pixels of {colour:02x?}");
    }
}

/// Screenshots `svg` into `png` with `chromium` with a fresh profile under `scratch`, waiting at most two minutes.
fn screenshot(chromium: &Path, svg: &Path, png: &Path, scratch: &Path) {
    let profile = tempfile::tempdir_in(scratch).unwrap();
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=800,600")
        .arg(format!("file://{}", svg.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} exists but does not start: {e}", chromium.display()));
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(
                status.success() && png.exists(),
                "{} failed on {}: {status}",
                chromium.display(),
                svg.display()
            );
            return;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{} took over two minutes on {}", chromium.display(), svg.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Width, height and RGB pixels of a PNG.
fn decode(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let samples = info.color_type.samples();
    assert!(samples >= 3, "a colour screenshot, not {:?}", info.color_type);
    let pixels =
        buf[..info.buffer_size()].chunks_exact(samples).map(|p| [p[0], p[1], p[2]]).collect();
    (info.width, info.height, pixels)
}

fn close(p: [u8; 3], c: [u8; 3]) -> bool {
    p.iter().zip(c).all(|(&a, b)| a.abs_diff(b) <= 12)
}

#[test]
fn no_data_renders_without_ink_beyond_its_text() {
    // The fallback's structure check is meaningful only if an empty chart draws nothing.
    let doc_svg = ladder_plot::sweep_line("k", &[], &[]);
    let doc = parse(&doc_svg);
    assert_eq!((count(&doc, "path"), count(&doc, "rect"), count(&doc, "circle")), (0, 1, 0));
}
