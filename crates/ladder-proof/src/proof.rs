//! The JSON form of proofs, as `ladder prove --format json` prints them (docs/proofs.md).

use crate::hex::{hex, parse_hex_hash};
use crate::tree::{leaf_hash, Hash};
use crate::verify::{verify_consistency, verify_inclusion, VerifyError};
use serde::de::Error as _;
use serde_json::{Map, Value};

/// An inclusion proof: leaf `index` (0-based; event `index + 1`) is in the tree of the first
/// `size` leaves, whose root is `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InclusionProof {
    /// The leaf's position, 0-based.
    pub index: u64,
    /// The tree size.
    pub size: u64,
    /// The leaf bytes: the event's canonical JSON line, without its newline.
    pub leaf: String,
    /// The tree's root.
    pub root: Hash,
    /// The audit path, leaf first.
    pub path: Vec<Hash>,
}

/// A consistency proof: the tree of the first `from` leaves (root `old_root`) is a prefix of the
/// tree of the first `to` leaves (root `new_root`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsistencyProof {
    /// The old size.
    pub from: u64,
    /// The new size.
    pub to: u64,
    /// The old tree's root.
    pub old_root: Hash,
    /// The new tree's root.
    pub new_root: Hash,
    /// The proof hashes.
    pub path: Vec<Hash>,
}

/// Either proof, as the JSON's `kind` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// `"kind":"inclusion"`.
    Inclusion(InclusionProof),
    /// `"kind":"consistency"`.
    Consistency(ConsistencyProof),
}

/// Why a proof's JSON was refused: names the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofFormatError {
    /// Not JSON at all.
    #[error("proof is not valid JSON: {0}")]
    Syntax(String),
    /// JSON, but not an object.
    #[error("proof must be a JSON object with a \"kind\" field")]
    NotObject,
    /// `kind` is neither `inclusion` nor `consistency`.
    #[error("proof kind {0:?} is unknown: expected \"inclusion\" or \"consistency\"")]
    UnknownKind(String),
    /// A field is missing.
    #[error("{kind} proof: missing field {field:?}")]
    Missing {
        /// The proof kind.
        kind: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A field this kind of proof does not have.
    #[error("{kind} proof: unknown field {field:?}")]
    Unknown {
        /// The proof kind.
        kind: &'static str,
        /// The field.
        field: String,
    },
    /// A field with a bad value.
    #[error("{kind} proof: field {field}: {problem}")]
    Field {
        /// The proof kind.
        kind: &'static str,
        /// The field, e.g. `path[3]`.
        field: String,
        /// What is wrong.
        problem: String,
    },
}

struct Fields<'a> {
    kind: &'static str,
    map: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn get(&self, field: &'static str) -> Result<&Value, ProofFormatError> {
        self.map.get(field).ok_or(ProofFormatError::Missing { kind: self.kind, field })
    }

    fn bad(&self, field: impl Into<String>, problem: impl Into<String>) -> ProofFormatError {
        ProofFormatError::Field { kind: self.kind, field: field.into(), problem: problem.into() }
    }

    fn only(&self, allowed: &[&str]) -> Result<(), ProofFormatError> {
        match self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(ProofFormatError::Unknown { kind: self.kind, field: k.clone() }),
            None => Ok(()),
        }
    }

    fn uint(&self, field: &'static str) -> Result<u64, ProofFormatError> {
        let v = self.get(field)?;
        v.as_u64().ok_or_else(|| self.bad(field, format!("expected a whole number >= 0, got {v}")))
    }

    fn hash(&self, field: &'static str) -> Result<Hash, ProofFormatError> {
        let v = self.get(field)?;
        let s =
            v.as_str().ok_or_else(|| self.bad(field, format!("expected a hex string, got {v}")))?;
        parse_hex_hash(s).map_err(|e| self.bad(field, e))
    }

    fn path(&self) -> Result<Vec<Hash>, ProofFormatError> {
        let v = self.get("path")?;
        let items = v.as_array().ok_or_else(|| {
            self.bad("path", format!("expected an array of hex strings, got {v}"))
        })?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let field = format!("path[{i}]");
                let s = item.as_str().ok_or_else(|| {
                    self.bad(&field, format!("expected a hex string, got {item}"))
                })?;
                parse_hex_hash(s).map_err(|e| self.bad(&field, e))
            })
            .collect()
    }
}

impl Proof {
    /// Parses a proof's JSON, refusing unknown kinds and fields, bad hex and wrong lengths.
    pub fn from_json(text: &str) -> Result<Proof, ProofFormatError> {
        let value: Strict =
            serde_json::from_str(text).map_err(|e| ProofFormatError::Syntax(e.to_string()))?;
        Proof::from_value(&value.0)
    }

    fn from_value(value: &Value) -> Result<Proof, ProofFormatError> {
        let map = value.as_object().ok_or(ProofFormatError::NotObject)?;
        let kind = match map.get("kind") {
            None => return Err(ProofFormatError::NotObject),
            Some(Value::String(k)) => k.as_str(),
            Some(other) => return Err(ProofFormatError::UnknownKind(other.to_string())),
        };
        match kind {
            "inclusion" => {
                let f = Fields { kind: "inclusion", map };
                f.only(&["kind", "index", "size", "leaf", "root", "path"])?;
                let leaf = f.get("leaf")?;
                let leaf = leaf
                    .as_str()
                    .ok_or_else(|| {
                        f.bad("leaf", format!("expected the event's line as a string, got {leaf}"))
                    })?
                    .to_owned();
                Ok(Proof::Inclusion(InclusionProof {
                    index: f.uint("index")?,
                    size: f.uint("size")?,
                    leaf,
                    root: f.hash("root")?,
                    path: f.path()?,
                }))
            }
            "consistency" => {
                let f = Fields { kind: "consistency", map };
                f.only(&["kind", "from", "to", "old_root", "new_root", "path"])?;
                Ok(Proof::Consistency(ConsistencyProof {
                    from: f.uint("from")?,
                    to: f.uint("to")?,
                    old_root: f.hash("old_root")?,
                    new_root: f.hash("new_root")?,
                    path: f.path()?,
                }))
            }
            other => Err(ProofFormatError::UnknownKind(other.to_owned())),
        }
    }

    /// The JSON text on one line, fields in `docs/spec.md`'s order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .expect("a proof is strings, numbers and arrays: it always serializes")
    }

    /// Verifies the proof alone (an inclusion proof's leaf hash is recomputed from `leaf`).
    pub fn check(&self) -> Result<(), VerifyError> {
        match self {
            Proof::Inclusion(p) => {
                verify_inclusion(p.index, p.size, &leaf_hash(p.leaf.as_bytes()), &p.path, &p.root)
            }
            Proof::Consistency(p) => {
                verify_consistency(p.from, p.to, &p.old_root, &p.new_root, &p.path)
            }
        }
    }

    /// The tree this proof ends in: (size, root); for a consistency proof, the new tree.
    pub fn tree_head(&self) -> (u64, Hash) {
        match self {
            Proof::Inclusion(p) => (p.size, p.root),
            Proof::Consistency(p) => (p.to, p.new_root),
        }
    }
}

#[derive(serde::Serialize)]
struct InclusionOut<'a> {
    kind: &'static str,
    index: u64,
    size: u64,
    leaf: &'a str,
    root: String,
    path: Vec<String>,
}

#[derive(serde::Serialize)]
struct ConsistencyOut {
    kind: &'static str,
    from: u64,
    to: u64,
    old_root: String,
    new_root: String,
    path: Vec<String>,
}

impl serde::Serialize for Proof {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let path = |p: &[Hash]| p.iter().map(|h| hex(h)).collect::<Vec<_>>();
        match self {
            Proof::Inclusion(p) => InclusionOut {
                kind: "inclusion",
                index: p.index,
                size: p.size,
                leaf: &p.leaf,
                root: hex(&p.root),
                path: path(&p.path),
            }
            .serialize(s),
            Proof::Consistency(p) => ConsistencyOut {
                kind: "consistency",
                from: p.from,
                to: p.to,
                old_root: hex(&p.old_root),
                new_root: hex(&p.new_root),
                path: path(&p.path),
            }
            .serialize(s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Proof {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Proof, D::Error> {
        let value = Strict::deserialize(d)?;
        Proof::from_value(&value.0).map_err(D::Error::custom)
    }
}

/// A JSON value read strictly: an object that names a field twice is refused, at any depth.
/// (`serde_json::Value` keeps the last of the two, so `{"index":0,...,"index":5}` would be read
/// as a proof of another event than the one a reader of its first field sees.)
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so every parsed float is a number.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(A::Error::custom(format!(
                    "field {key:?} is given twice (each field appears once)"
                )));
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}
