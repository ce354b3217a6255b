//! The independent checker against ladder-proof on random exports: the same root, every proof
//! ladder-proof makes is accepted, and changed proofs or lines are refused.

mod common;

use ladder_proof::{
    consistency_proof, inclusion_proof, root, ConsistencyProof, InclusionProof, MemTree, Proof,
};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn audit(dir: &Path, lines: &[String], proof: Option<&str>) -> Out {
    let export = dir.join("export.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&export, text).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ladder-audit"));
    cmd.arg(&export);
    if let Some(p) = proof {
        std::fs::write(dir.join("proof.json"), p).unwrap();
        cmd.arg(dir.join("proof.json"));
    }
    let out = cmd.output().unwrap();
    Out {
        ok: out.status.success(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The chain of `docs/spec.md`, written out here: h_0 = 0^32, h_n = blake3(h_(n-1) || line_n).
fn chain(lines: &[String]) -> String {
    let mut h = [0u8; 32];
    for l in lines {
        let mut input = h.to_vec();
        input.extend_from_slice(l.as_bytes());
        h = *blake3::hash(&input).as_bytes();
    }
    format!("{}:{}", lines.len(), ladder_proof::hex(&h))
}

fn line() -> impl Strategy<Value = String> {
    // JSON-ish lines with the characters a proof must escape: quotes, backslashes, tabs,
    // control characters, and non-ASCII names.
    "[a-z\"\\\\\t\u{1}é漢😀 ]{1,40}"
        .prop_map(|s| format!(r#"{{"type":"PlayerJoined","player":"{s}"}}"#))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn agrees_with_ladder_proof(lines in proptest::collection::vec(line(), 1..200), pick in any::<u64>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut t = MemTree::from_leaves(&lines);
        let n = lines.len() as u64;
        let out = audit(dir.path(), &lines, None);
        prop_assert!(out.ok, "{}", out.stderr);
        let want = format!("head {}\nroot {}\n", chain(&lines), ladder_proof::hex(&t.root()));
        prop_assert_eq!(&out.stdout, &want);

        let size = 1 + pick % n;
        let index = (pick >> 20) % size;
        let proof = Proof::Inclusion(InclusionProof {
            index,
            size,
            leaf: lines[index as usize].clone(),
            root: root(size, &mut t).unwrap(),
            path: inclusion_proof(index, size, &mut t).unwrap(),
        });
        let out = audit(dir.path(), &lines, Some(&proof.to_json()));
        prop_assert!(out.ok, "{}", out.stderr);
        let ok_line = format!("proof ok: inclusion of event {} in the first {size} events\n", index + 1);
        prop_assert!(out.stdout.ends_with(&ok_line), "{}", out.stdout);
        // The same proof with another leaf, index or size is refused.
        let Proof::Inclusion(ip) = &proof else { unreachable!() };
        let mut other = ip.clone();
        other.leaf.push(' ');
        prop_assert!(!audit(dir.path(), &lines, Some(&Proof::Inclusion(other).to_json())).ok);
        let mut other = ip.clone();
        other.size = (size % n) + 1;
        if other.size != size && other.index < other.size {
            prop_assert!(!audit(dir.path(), &lines, Some(&Proof::Inclusion(other).to_json())).ok);
        }

        if n >= 2 {
            let from = 1 + pick % (n - 1);
            let c = Proof::Consistency(ConsistencyProof {
                from,
                to: n,
                old_root: root(from, &mut t).unwrap(),
                new_root: t.root(),
                path: consistency_proof(from, n, &mut t).unwrap(),
            });
            let out = audit(dir.path(), &lines, Some(&c.to_json()));
            prop_assert!(out.ok, "{}", out.stderr);
            // A rewritten line: the proof no longer matches the export.
            let mut forged = lines.clone();
            forged[(pick % from) as usize].push('!');
            let out = audit(dir.path(), &forged, Some(&c.to_json()));
            prop_assert!(!out.ok);
            prop_assert!(out.stderr.contains("proof FAILED: old_root"), "{}", out.stderr);
        }
    }
}

#[test]
fn reads_escapes_and_pretty_printed_proofs() {
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![r#"{"player":"é 😀"}"#.to_string(), "two".to_string()];
    let mut t = MemTree::from_leaves(&lines);
    let p = inclusion_proof(0, 2, &mut t).unwrap();
    // The leaf written with \u escapes (a surrogate pair for the emoji), spread over lines.
    let proof = format!(
        "{{\n  \"kind\": \"inclusion\",\n  \"index\": 0,\n  \"size\": 2,\n  \"leaf\": \"{{\\\"player\\\":\\\"\\u00e9 \\ud83d\\ude00\\\"}}\",\n  \"root\": \"{}\",\n  \"path\": [ \"{}\" ]\n}}\n",
        ladder_proof::hex(&t.root()),
        ladder_proof::hex(&p[0])
    );
    let out = audit(dir.path(), &lines, Some(&proof));
    assert!(out.ok, "{}", out.stderr);
}

#[test]
fn names_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..5).map(|i| format!("line {i}")).collect();
    let cases = [
        (r#"{"kind":"inclusion","index":5,"size":5}"#, "index 5, size 5"),
        (r#"{"kind":"exclusion"}"#, "unknown proof kind"),
        (r#"{"kind":"inclusion","index":1,"size":5,"leaf":"line 2"}"#, "leaf is not line 2"),
        (r#"{"kind":"consistency","from":0,"to":5}"#, "need 0 < from"),
        (r#"{"kind":"inclusion" "index":1}"#, "expected ','"),
        (r#"{"kind":"inclusion","index":-1}"#, "bad value"),
        (r#"{"kind":"inclusion","index":1,"index":2}"#, "field \"index\" is given twice"),
    ];
    for (proof, want) in cases {
        let out = audit(dir.path(), &lines, Some(proof));
        assert!(!out.ok);
        assert!(out.stderr.contains(want), "{want:?} not in {}", out.stderr);
    }
    let out = audit(dir.path(), &["a".into(), String::new(), "b".into()], None);
    assert!(!out.ok);
    assert!(out.stderr.contains("line 2 is empty"), "{}", out.stderr);
    // The empty export: h_0 and the empty tree's root SHA-256(""), the digest FIPS 180-4's
    // examples and every SHA-256 implementation give for the empty message.
    let out = audit(dir.path(), &[], None);
    assert_eq!(
        out.stdout,
        format!(
            "head 0:{}\nroot e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
            "0".repeat(64)
        )
    );
}

/// docs/audit-check.py, the Python twin (standard library alone), prints the same as this
/// crate's binary. Needs `python3` (under CI=true it fails without it).
#[test]
fn the_python_twin_agrees() {
    let twin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/audit-check.py");
    if !common::python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"type":"PlayerJoined","player":"p{i} é\t\"q\""}}"#))
        .collect();
    let mut t = MemTree::from_leaves(&lines);
    let proofs = [
        Proof::Inclusion(InclusionProof {
            index: 17,
            size: 200,
            leaf: lines[17].clone(),
            root: root(200, &mut t).unwrap(),
            path: inclusion_proof(17, 200, &mut t).unwrap(),
        }),
        Proof::Consistency(ConsistencyProof {
            from: 77,
            to: 300,
            old_root: root(77, &mut t).unwrap(),
            new_root: t.root(),
            path: consistency_proof(77, 300, &mut t).unwrap(),
        }),
    ];
    // The twin on the export and proof that `audit` last wrote.
    let python = || {
        Command::new("python3")
            .arg(&twin)
            .arg(dir.path().join("export.jsonl"))
            .arg(dir.path().join("proof.json"))
            .output()
            .unwrap()
    };
    for proof in proofs {
        let rust = audit(dir.path(), &lines, Some(&proof.to_json()));
        let py = python();
        assert!(rust.ok && py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
        assert_eq!(String::from_utf8(py.stdout).unwrap(), rust.stdout);
        // A field given twice: both refuse, naming it.
        let twice = proof.to_json().replacen('{', r#"{"path":[],"#, 1);
        let rust = audit(dir.path(), &lines, Some(&twice));
        let py = python();
        assert!(!rust.ok && rust.stderr.contains("\"path\" is given twice"), "{}", rust.stderr);
        let py_err = String::from_utf8_lossy(&py.stderr);
        assert!(!py.status.success() && py_err.contains("'path' is given twice"), "{py_err}");
    }
}

/// The Python twin's own BLAKE3 (written from the specification, since hashlib has none) gives the
/// blake3 crate's hash at every length that matters to its tree: empty, one block, block and chunk
/// boundaries, several chunks, and the longest chain input (32 + 65,535 bytes).
#[test]
fn the_python_twins_blake3_is_the_blake3_crates() {
    let twin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/audit-check.py");
    if !common::python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lengths =
        [0usize, 1, 3, 63, 64, 65, 127, 128, 1023, 1024, 1025, 2048, 2049, 3073, 5000, 8193, 65567];
    let mut cmd = Command::new("python3");
    cmd.arg(&twin).arg("--blake3");
    let mut want = String::new();
    for (i, &n) in lengths.iter().enumerate() {
        let bytes: Vec<u8> = (0..n).map(|j| (j * 31 + i * 7 + j / 251) as u8).collect();
        let file = dir.path().join(format!("in{i}"));
        std::fs::write(&file, &bytes).unwrap();
        cmd.arg(&file);
        want.push_str(&format!("{}\n", blake3::hash(&bytes).to_hex()));
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
}
