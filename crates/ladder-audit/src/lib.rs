//! The arithmetic of `ladder-audit`, with no input or output of its own: the chain head (blake3)
//! and the Merkle tree (RFC 6962 2.1, with SHA-256 as RFC 6962 defines it) over the lines of a
//! `ladder log --format jsonl` export, and the check of a proof against them. It depends on
//! nothing but blake3 and sha2, so a skeptic can read all of it; `main.rs` reads the files and
//! prints. docs/proofs.md.

use sha2::{Digest, Sha256};

/// A 32-byte hash: blake3 in the chain, SHA-256 in the tree.
pub type Hash = [u8; 32];

fn leaf(line: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(line);
    h.finalize().into()
}

fn node(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The largest power of two strictly below n (n >= 2).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

/// MTH(D[n]), RFC 6962 2.1, over leaf hashes.
fn mth(d: &[Hash]) -> Hash {
    match d.len() {
        0 => Sha256::digest(b"").into(),
        1 => d[0],
        n => node(&mth(&d[..split(n)]), &mth(&d[split(n)..])),
    }
}

/// PATH(m, D[n]), RFC 6962 2.1.1: the inclusion proof of leaf m.
fn path(m: usize, d: &[Hash]) -> Vec<Hash> {
    if d.len() <= 1 {
        return vec![];
    }
    let k = split(d.len());
    let (mut p, sibling) =
        if m < k { (path(m, &d[..k]), mth(&d[k..])) } else { (path(m - k, &d[k..]), mth(&d[..k])) };
    p.push(sibling);
    p
}

/// SUBPROOF(m, D[n], b), RFC 6962 2.1.2: PROOF(m, D[n]) is SUBPROOF(m, D[n], true).
fn subproof(m: usize, d: &[Hash], b: bool) -> Vec<Hash> {
    if m == d.len() {
        return if b { vec![] } else { vec![mth(d)] };
    }
    let k = split(d.len());
    let (mut p, sibling) = if m <= k {
        (subproof(m, &d[..k], b), mth(&d[k..]))
    } else {
        (subproof(m - k, &d[k..], false), mth(&d[..k]))
    };
    p.push(sibling);
    p
}

fn hex(h: &Hash) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// A JSON value of the kinds a proof holds: strings, whole numbers, lists.
#[derive(Debug, PartialEq)]
enum Val {
    Str(String),
    Num(usize),
    List(Vec<Val>),
}

struct Parser {
    c: Vec<char>,
    i: usize,
}

impl Parser {
    fn peek(&mut self) -> Option<char> {
        while self.c.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
        self.c.get(self.i).copied()
    }
    fn eat(&mut self, want: char) -> Result<(), String> {
        if self.peek() != Some(want) {
            return Err(format!("expected {want:?} at character {}", self.i));
        }
        self.i += 1;
        Ok(())
    }
    fn next(&mut self) -> Result<char, String> {
        self.i += 1;
        self.c.get(self.i - 1).copied().ok_or("unexpected end of the proof".into())
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let digits: String = (0..4).map(|_| self.next()).collect::<Result<_, _>>()?;
        u32::from_str_radix(&digits, 16).map_err(|_| format!("bad \\u escape {digits:?}"))
    }
    /// Items up to `close`, separated by commas; objects give (key, value) pairs.
    fn items(&mut self, close: char) -> Result<Vec<(String, Val)>, String> {
        let mut items = vec![];
        while self.peek() != Some(close) {
            if !items.is_empty() {
                self.eat(',')?;
            }
            let first = self.value()?;
            match (close, first) {
                ('}', Val::Str(key)) => {
                    // Strict, as ladder's own reader: a field named twice is refused, never read
                    // as one of its two values.
                    if items.iter().any(|(k, _)| *k == key) {
                        return Err(format!("field {key:?} is given twice"));
                    }
                    self.eat(':')?;
                    items.push((key, self.value()?));
                }
                (']', v) => items.push((String::new(), v)),
                _ => return Err(format!("a field name is not a string at character {}", self.i)),
            }
        }
        self.eat(close).map(|()| items)
    }
    fn value(&mut self) -> Result<Val, String> {
        match self.peek() {
            Some('"') => self.i += 1,
            Some('[') => {
                self.i += 1;
                return Ok(Val::List(self.items(']')?.into_iter().map(|(_, v)| v).collect()));
            }
            _ => {
                let start = self.i;
                while self.c.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let digits: String = self.c[start..self.i].iter().collect();
                return digits
                    .parse()
                    .map(Val::Num)
                    .map_err(|_| format!("bad value at character {start}"));
            }
        }
        let mut out = String::new();
        loop {
            let c = match self.next()? {
                '"' => return Ok(Val::Str(out)),
                '\\' => match self.next()? {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'u' => {
                        let mut u = self.hex4()?;
                        if (0xD800..0xDC00).contains(&u)
                            && self.next()? == '\\'
                            && self.next()? == 'u'
                        {
                            u = 0x10000 + ((u - 0xD800) << 10) + (self.hex4()? & 0x3FF);
                        }
                        char::from_u32(u).ok_or(format!("bad \\u escape {u:x}"))?
                    }
                    c => c, // \" \\ \/
                },
                c => c,
            };
            out.push(c);
        }
    }
}

/// Checks a proof against the export: it must be exactly what RFC 6962 defines for its lines.
fn check_proof(text: &str, lines: &[&[u8]], d: &[Hash]) -> Result<String, String> {
    let mut p = Parser { c: text.trim().chars().collect(), i: 0 };
    p.eat('{')?;
    let fields = p.items('}')?;
    if p.i != p.c.len() {
        return Err("text after the proof object".into());
    }
    let get = |k: &str| {
        fields.iter().find(|(f, _)| f == k).map(|(_, v)| v).ok_or(format!("no field {k:?}"))
    };
    let num = |k: &str| match get(k)? {
        Val::Num(n) => Ok(*n),
        _ => Err(format!("{k} is not a whole number")),
    };
    let same = |k: &str, want: Vec<Hash>| {
        let got = match get(k)? {
            Val::List(items) => items.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>(),
            v => vec![format!("{v:?}")],
        };
        let want: Vec<String> = want.iter().map(|h| format!("{:?}", Val::Str(hex(h)))).collect();
        match got == want {
            true => Ok(()),
            false => Err(format!("{k}: the proof has {got:?}, these lines give {want:?}")),
        }
    };
    match get("kind")? {
        Val::Str(k) if k == "inclusion" => {
            let (index, size) = (num("index")?, num("size")?);
            if index >= size || size > d.len() {
                return Err(format!(
                    "index {index}, size {size}: the export has {} lines",
                    d.len()
                ));
            }
            if !matches!(get("leaf")?, Val::Str(l) if l.as_bytes() == lines[index]) {
                return Err(format!("leaf is not line {} of the export", index + 1));
            }
            same("root", vec![mth(&d[..size])])?;
            same("path", path(index, &d[..size]))?;
            Ok(format!("inclusion of event {} in the first {size} events", index + 1))
        }
        Val::Str(k) if k == "consistency" => {
            let (from, to) = (num("from")?, num("to")?);
            if from == 0 || from > to || to > d.len() {
                return Err(format!("from {from}, to {to}: need 0 < from <= to <= {}", d.len()));
            }
            same("old_root", vec![mth(&d[..from])])?;
            same("new_root", vec![mth(&d[..to])])?;
            same("path", subproof(from, &d[..to], true))?;
            Ok(format!("the first {from} events are unchanged in the first {to}"))
        }
        other => Err(format!("unknown proof kind {other:?}")),
    }
}

/// The lines of an export (its bytes): one event per line, the last newline optional. The error
/// names the first empty line.
pub fn lines(export: &[u8]) -> Result<Vec<&[u8]>, String> {
    let body = export.strip_suffix(b"\n").unwrap_or(export);
    let lines: Vec<&[u8]> =
        if body.is_empty() { vec![] } else { body.split(|b| *b == b'\n').collect() };
    match lines.iter().position(|l| l.is_empty()) {
        Some(n) => Err(format!("line {} is empty; an export has one event per line", n + 1)),
        None => Ok(lines),
    }
}

/// Audits an export's [`lines`] and, when given, a proof (its text): `head N:HEX` and `root HEX`
/// lines, then `proof ok: ...` when the proof is exactly the one RFC 6962 defines for these
/// lines. The error names the part of the proof that differs, after the head and root lines.
pub fn audit(lines: &[&[u8]], proof: Option<&str>) -> Result<String, String> {
    let mut head = [0u8; 32];
    for line in lines {
        head = *blake3::Hasher::new().update(&head).update(line).finalize().as_bytes();
    }
    let d: Vec<Hash> = lines.iter().map(|l| leaf(l)).collect();
    let mut out = format!("head {}:{}\nroot {}\n", lines.len(), hex(&head), hex(&mth(&d)));
    if let Some(text) = proof {
        let what = check_proof(text, lines, &d).map_err(|e| format!("{out}proof FAILED: {e}"))?;
        out.push_str(&format!("proof ok: {what}\n"));
    }
    Ok(out)
}
