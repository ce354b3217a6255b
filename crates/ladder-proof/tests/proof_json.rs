//! The proof JSON of `docs/spec.md`: field order, lowercase hex, strict parsing, `check()`.

use ladder_proof::{
    consistency_proof, hex, inclusion_proof, ConsistencyProof, InclusionProof, MemTree, Proof,
    ProofFormatError, VerifyError,
};

const LINES: [&str; 5] = [
    r#"{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"ann"}"#,
    r#"{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"bob"}"#,
    r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"g1","seats":[{"player":"ann","score":1},{"player":"bob","score":0}]}"#,
    r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#,
    r#"{"type":"MatchResult","at":"2026-03-02T10:00:00Z","id":"g2","seats":[{"player":"ann","score":0},{"player":"bob","score":1}]}"#,
];

fn inclusion(index: u64, size: u64) -> Proof {
    let mut t = MemTree::from_leaves(LINES);
    let path = inclusion_proof(index, size, &mut t).unwrap();
    let root = ladder_proof::root(size, &mut t).unwrap();
    Proof::Inclusion(InclusionProof { index, size, leaf: LINES[index as usize].into(), root, path })
}

#[test]
fn inclusion_json_is_the_documented_one_and_round_trips() {
    let p = inclusion(2, 5);
    let json = p.to_json();
    let Proof::Inclusion(ip) = &p else { unreachable!() };
    let want = format!(
        r#"{{"kind":"inclusion","index":2,"size":5,"leaf":{},"root":"{}","path":["{}","{}","{}"]}}"#,
        serde_json::to_string(LINES[2]).unwrap(),
        hex(&ip.root),
        hex(&ip.path[0]),
        hex(&ip.path[1]),
        hex(&ip.path[2]),
    );
    assert_eq!(json, want);
    assert_eq!(Proof::from_json(&json).unwrap(), p);
    let via_serde: Proof = serde_json::from_str(&json).unwrap();
    assert_eq!(via_serde, p);
    p.check().unwrap();
    assert_eq!(p.tree_head(), (5, ip.root));
}

#[test]
fn consistency_json_is_the_documented_one_and_round_trips() {
    let mut t = MemTree::from_leaves(LINES);
    let path = consistency_proof(3, 5, &mut t).unwrap();
    let old_root = ladder_proof::root(3, &mut t).unwrap();
    let p =
        Proof::Consistency(ConsistencyProof { from: 3, to: 5, old_root, new_root: t.root(), path });
    let json = p.to_json();
    assert!(json.starts_with(r#"{"kind":"consistency","from":3,"to":5,"old_root":""#), "{json}");
    assert_eq!(Proof::from_json(&json).unwrap(), p);
    p.check().unwrap();
}

#[test]
fn check_recomputes_the_leaf_hash_from_the_line() {
    let Proof::Inclusion(mut ip) = inclusion(2, 5) else { unreachable!() };
    ip.leaf = ip.leaf.replace(r#""score":1"#, r#""score":0"#);
    assert!(matches!(Proof::Inclusion(ip.clone()).check(), Err(VerifyError::RootMismatch { .. })));
    ip.leaf = LINES[2].to_string() + "\n";
    assert!(Proof::Inclusion(ip).check().is_err(), "the leaf is the line without its newline");
}

#[test]
fn bad_json_is_refused_with_the_field_named() {
    let good = inclusion(2, 5).to_json();
    let v: serde_json::Value = serde_json::from_str(&good).unwrap();
    let with = |field: &str, value: serde_json::Value| {
        let mut v = v.clone();
        v[field] = value;
        Proof::from_json(&v.to_string()).unwrap_err().to_string()
    };
    let root = v["root"].as_str().unwrap().to_string();
    let cases = [
        (with("kind", "exclusion".into()), "proof kind \"exclusion\" is unknown"),
        (with("root", root.to_uppercase().into()), "field root: character"),
        (with("root", root[..62].into()), "field root: expected 64 lowercase hex digits, got 62"),
        (with("root", format!("{root}00").into()), "got 66 characters"),
        (with("index", (-1).into()), "field index: expected a whole number >= 0, got -1"),
        (with("size", 2.5.into()), "field size"),
        (with("leaf", 7.into()), "field leaf"),
        (with("path", "ab".into()), "field path: expected an array"),
        (with("path", serde_json::json!([root, "zz"])), "field path[1]"),
        (with("extra", 1.into()), "unknown field \"extra\""),
    ];
    for (got, want) in cases {
        assert!(got.contains(want), "{got:?} should contain {want:?}");
    }
    let mut missing = v.clone();
    missing.as_object_mut().unwrap().remove("size");
    assert_eq!(
        Proof::from_json(&missing.to_string()).unwrap_err(),
        ProofFormatError::Missing { kind: "inclusion", field: "size" }
    );
    assert!(matches!(Proof::from_json("{"), Err(ProofFormatError::Syntax(_))));
    // A field given twice is refused, not read as its last value (serde_json's Value would keep
    // `"index":4` here, a proof of event 5 where the first field says event 3).
    let twice = good.replacen('{', r#"{"index":4,"#, 1);
    let e = Proof::from_json(&twice).unwrap_err();
    assert!(matches!(e, ProofFormatError::Syntax(_)), "{e}");
    assert!(e.to_string().contains(r#"field "index" is given twice"#), "{e}");
    assert!(serde_json::from_str::<Proof>(&twice).is_err());
    let kind_twice = good.replacen('{', r#"{"kind":"consistency","#, 1);
    assert!(Proof::from_json(&kind_twice).unwrap_err().to_string().contains("given twice"));
    assert!(matches!(Proof::from_json("[1]"), Err(ProofFormatError::NotObject)));
    assert!(serde_json::from_str::<Proof>(r#"{"kind":"x"}"#)
        .unwrap_err()
        .to_string()
        .contains("unknown"));
}
