//! Lowercase hex, the form every hash takes in ladder's output.

use crate::Hash;

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes` (64 digits for a hash): the workspace's one hex encoder. blake3's own
/// `Hash::to_hex` covers blake3 hashes only; this one also takes the ledger's keys and the
/// SHA-256 and Ed25519 bytes of checkpoints, so the CLI, the log and the proofs print hex alike.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Parses exactly 64 lowercase hex digits; the error says what is wrong with the text.
pub fn parse_hex_hash(text: &str) -> Result<Hash, String> {
    if text.len() != 64 {
        return Err(format!("expected 64 lowercase hex digits, got {} characters", text.len()));
    }
    let mut out = [0u8; 32];
    let bytes = text.as_bytes();
    for (i, o) in out.iter_mut().enumerate() {
        let hi = digit(bytes[2 * i], 2 * i)?;
        let lo = digit(bytes[2 * i + 1], 2 * i + 1)?;
        *o = (hi << 4) | lo;
    }
    Ok(out)
}

fn digit(c: u8, at: usize) -> Result<u8, String> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err(format!(
            "character {} is {:?}, not a lowercase hex digit (0-9, a-f)",
            at + 1,
            c as char
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_bad_text() {
        let h: Hash = std::array::from_fn(|i| (i * 37 + 5) as u8);
        assert_eq!(parse_hex_hash(&hex(&h)), Ok(h));
        assert_eq!(hex(&[0xab; 32]), "ab".repeat(32));
        assert!(parse_hex_hash(&"AB".repeat(32)).unwrap_err().contains("character 1"));
        assert!(parse_hex_hash(&"ab".repeat(31)).unwrap_err().contains("62 characters"));
        assert!(parse_hex_hash(&format!("{}g", "a".repeat(63))).unwrap_err().contains("64"));
    }
}
