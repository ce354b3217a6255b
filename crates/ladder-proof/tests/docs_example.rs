//! docs/proofs.md's worked example is what the code computes: head, root, both proofs, the key
//! and the signed checkpoint are recomputed from the page's export and compared with the page.

use ladder_proof::note::{Checkpoint, SignerKey, VerifierKey};
use ladder_proof::{
    consistency_proof, hex, inclusion_proof, root, ConsistencyProof, InclusionProof, MemTree, Proof,
};

/// The fenced block after `<!-- example: NAME -->` in docs/proofs.md, with its final newline.
fn block(name: &str) -> String {
    let page = include_str!("../../../docs/proofs.md");
    let marker = format!("<!-- example: {name} -->\n");
    let at = page.find(&marker).unwrap_or_else(|| panic!("no example {name:?}")) + marker.len();
    let body = page[at..].split_once('\n').unwrap().1;
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_worked_example_is_what_the_code_computes() {
    let export = block("export");
    let lines: Vec<&str> = export.lines().collect();
    assert_eq!(lines.len(), 5);
    let mut t = MemTree::from_leaves(&lines);

    let mut h = [0u8; 32];
    for l in &lines {
        let mut input = h.to_vec();
        input.extend_from_slice(l.as_bytes());
        h = *blake3::hash(&input).as_bytes();
    }
    assert_eq!(block("audit"), format!("head 5:{}\nroot {}\n", hex(&h), hex(&t.root())));

    let inclusion = Proof::Inclusion(InclusionProof {
        index: 2,
        size: 5,
        leaf: lines[2].into(),
        root: t.root(),
        path: inclusion_proof(2, 5, &mut t).unwrap(),
    });
    assert_eq!(block("inclusion").trim_end(), inclusion.to_json());
    let leaves = t.leaf_hashes().to_vec();
    let n01 = ladder_proof::node_hash(&leaves[0], &leaves[1]);
    assert_eq!(
        Proof::from_json(&block("inclusion")).unwrap(),
        inclusion,
        "the page's proof parses to the computed one"
    );
    let Proof::Inclusion(ip) = &inclusion else { unreachable!() };
    assert_eq!(ip.path, vec![leaves[3], n01, leaves[4]], "the page says [l3, node(l0, l1), l4]");
    inclusion.check().unwrap();

    let consistency = Proof::Consistency(ConsistencyProof {
        from: 3,
        to: 5,
        old_root: root(3, &mut t).unwrap(),
        new_root: t.root(),
        path: consistency_proof(3, 5, &mut t).unwrap(),
    });
    assert_eq!(block("consistency").trim_end(), consistency.to_json());
    consistency.check().unwrap();

    let key = SignerKey::parse(&block("signer-key")).unwrap();
    assert_eq!(
        key.to_text(),
        SignerKey::from_seed("example.org/ladder", [7; 32]).unwrap().to_text()
    );
    let verifier = VerifierKey::parse(&block("verifier-key")).unwrap();
    assert_eq!(verifier, key.verifier());
    let cp = Checkpoint { origin: "example.org/ladder".into(), size: 5, root: t.root() };
    assert_eq!(block("checkpoint"), cp.sign(&key).unwrap());
    assert_eq!(Checkpoint::open(&block("checkpoint"), &[verifier]).unwrap(), cp);
}

#[test]
fn the_quoted_error_message_is_the_real_one() {
    let mut v: serde_json::Value = serde_json::from_str(&block("inclusion")).unwrap();
    v["path"][1] = format!("3a6fG{}", "0".repeat(59)).into();
    assert_eq!(
        Proof::from_json(&v.to_string()).unwrap_err().to_string(),
        "inclusion proof: field path[1]: character 5 is 'G', not a lowercase hex digit (0-9, a-f)"
    );
}
