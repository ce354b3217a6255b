//! docs/ARCHITECTURE.md's code map against the manifests: every crate under `crates/` is listed
//! with exactly the `[dependencies]` of its `Cargo.toml`, and only below the ladder crates it
//! depends on.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The names in the `[dependencies]` table of a manifest (`name.workspace = true`, `name = ...`).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['.', '=', ' ']).next().unwrap_or_default();
            out.insert(name.to_string());
        }
    }
    out
}

/// The code map's entries in order: a crate and its dependencies (lines that start with spaces
/// continue the entry above).
fn code_map() -> Vec<(String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let section = doc.split("## Code map").nth(1).expect("a code map");
    let block = section.split("```\n").nth(1).expect("a code block");
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        if line.starts_with(' ') {
            entries.last_mut().expect("an entry to continue").1.push_str(line);
        } else if let Some((name, rest)) = line.split_once(' ') {
            entries.push((name.to_string(), rest.to_string()));
        } else {
            panic!("a code map line without dependencies: {line:?}");
        }
    }
    entries
        .into_iter()
        .map(|(name, rest)| {
            let deps =
                rest.split([',', ';', ' ']).filter(|d| !d.is_empty()).map(str::to_string).collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_code_map_lists_every_crate_with_its_manifests_dependencies_in_order() {
    let map = code_map();
    let mut crates: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    crates.sort();
    let mut listed: Vec<String> = map.iter().map(|(name, _)| name.clone()).collect();
    listed.sort();
    assert_eq!(listed, crates, "the code map lists each crate once");
    for (i, (name, deps)) in map.iter().enumerate() {
        let manifest =
            std::fs::read_to_string(root().join("crates").join(name).join("Cargo.toml")).unwrap();
        assert_eq!(*deps, dependencies(&manifest), "{name}'s dependencies");
        for dep in deps.iter().filter(|d| d.starts_with("ladder-")) {
            assert!(
                map[..i].iter().any(|(above, _)| above == dep),
                "{name} depends on {dep}, which is not listed above it"
            );
        }
    }
}

/// Every `pub enum ...Error` under `crates/*/src`, as `crate/file: Name`, whose attributes (the
/// lines just above it) lack `#[non_exhaustive]`.
fn exhaustive_error_enums() -> Vec<String> {
    let mut found = Vec::new();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub enum ") else { continue };
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            if !name.ends_with("Error") {
                continue;
            }
            let attributes =
                lines[..i].iter().rev().take_while(|l| l.trim_start().starts_with("#["));
            if !attributes.into_iter().any(|l| l.contains("non_exhaustive")) {
                let shown = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                found.push(format!("{shown}: {name}"));
            }
        }
    }
    found
}

#[test]
fn every_library_error_enum_is_non_exhaustive_as_the_document_says() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    assert!(doc.contains("One thiserror enum per library boundary, `#[non_exhaustive]`"));
    assert_eq!(exhaustive_error_enums(), Vec::<String>::new());
}
