#!/usr/bin/env python3
"""Independent check of a ladder, the Python twin of the ladder-audit crate (docs/proofs.md).

    python3 docs/audit-check.py EXPORT.jsonl [PROOF.json]

EXPORT is `ladder log --format jsonl` output: one event per line; the line without its newline
is the event's leaf. Prints
    head N:HEX   the chain: h_0 = 32 zero bytes, h_n = blake3(h_(n-1) || line_n)
    root HEX     the Merkle tree (RFC 6962 2.1, SHA-256) over all the lines
With a proof (`ladder prove --format json`) it also checks that the proof is exactly the one
RFC 6962 defines for these lines. Exit 0 if all holds, 1 otherwise.

Needs Python 3 and its standard library alone: the tree is SHA-256 (hashlib), and the chain's
BLAKE3 is written out below from the BLAKE3 specification ("BLAKE3: one function, fast
everywhere", section 2), since hashlib has no BLAKE3. It is slow (about 4,000 events a second),
which is fine for a check and is why ladder's own code uses the blake3 crate.
"""
import hashlib
import json
import struct
import sys

# --- BLAKE3 (the hash function only: 32-byte output, no key, no derive mode) -----------------

IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
CHUNK_START, CHUNK_END, PARENT, ROOT = 1, 2, 4, 8
BLOCK, CHUNK = 64, 1024
M32 = 0xFFFFFFFF


def g(s, a, b, c, d, x, y):
    s[a] = (s[a] + s[b] + x) & M32
    s[d] = ((s[d] ^ s[a]) >> 16 | (s[d] ^ s[a]) << 16) & M32
    s[c] = (s[c] + s[d]) & M32
    s[b] = ((s[b] ^ s[c]) >> 12 | (s[b] ^ s[c]) << 20) & M32
    s[a] = (s[a] + s[b] + y) & M32
    s[d] = ((s[d] ^ s[a]) >> 8 | (s[d] ^ s[a]) << 24) & M32
    s[c] = (s[c] + s[d]) & M32
    s[b] = ((s[b] ^ s[c]) >> 7 | (s[b] ^ s[c]) << 25) & M32


def compress(cv, block, counter, length, flags):
    """The compression function: 8 chaining words out (the first half of the output)."""
    m = list(struct.unpack("<16I", block.ljust(BLOCK, b"\0")))
    s = list(cv) + list(IV[:4]) + [counter & M32, counter >> 32, length, flags]
    for r in range(7):
        g(s, 0, 4, 8, 12, m[0], m[1])
        g(s, 1, 5, 9, 13, m[2], m[3])
        g(s, 2, 6, 10, 14, m[4], m[5])
        g(s, 3, 7, 11, 15, m[6], m[7])
        g(s, 0, 5, 10, 15, m[8], m[9])
        g(s, 1, 6, 11, 12, m[10], m[11])
        g(s, 2, 7, 8, 13, m[12], m[13])
        g(s, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[i] for i in PERMUTATION]
    return [s[i] ^ s[i + 8] for i in range(8)]


def chunk_cv(data, counter, root):
    """The chaining value of one chunk (at most 1,024 bytes) at chunk index `counter`."""
    blocks = [data[i:i + BLOCK] for i in range(0, len(data), BLOCK)] or [b""]
    cv = IV
    for i, b in enumerate(blocks):
        flags = CHUNK_START if i == 0 else 0
        if i == len(blocks) - 1:
            flags |= CHUNK_END | (ROOT if root else 0)
        cv = compress(cv, b, counter, len(b), flags)
    return cv


def subtree_cv(data, counter, root):
    """A subtree's chaining value: the left part holds the largest power of two of chunks that
    leaves at least one byte for the right."""
    if len(data) <= CHUNK:
        return chunk_cv(data, counter, root)
    k = CHUNK
    while k * 2 < len(data):
        k *= 2
    left = subtree_cv(data[:k], counter, False)
    right = subtree_cv(data[k:], counter + k // CHUNK, False)
    block = struct.pack("<16I", *(left + right))
    return compress(IV, block, 0, BLOCK, PARENT | (ROOT if root else 0))


def blake3(data):
    return struct.pack("<8I", *subtree_cv(data, 0, True))


# --- RFC 6962 section 2.1 with SHA-256 --------------------------------------------------------


def sha256(data):
    return hashlib.sha256(data).digest()


def leaf(line):
    return sha256(b"\x00" + line)


def node(left, right):
    return sha256(b"\x01" + left + right)


def split(n):
    """The largest power of two strictly below n (n >= 2)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(d):
    """MTH(D[n]), RFC 6962 2.1, over leaf hashes."""
    if len(d) == 0:
        return sha256(b"")
    if len(d) == 1:
        return d[0]
    k = split(len(d))
    return node(mth(d[:k]), mth(d[k:]))


def path(m, d):
    """PATH(m, D[n]), RFC 6962 2.1.1."""
    if len(d) <= 1:
        return []
    k = split(len(d))
    if m < k:
        return path(m, d[:k]) + [mth(d[k:])]
    return path(m - k, d[k:]) + [mth(d[:k])]


def subproof(m, d, b):
    """SUBPROOF(m, D[n], b), RFC 6962 2.1.2."""
    if m == len(d):
        return [] if b else [mth(d)]
    k = split(len(d))
    if m <= k:
        return subproof(m, d[:k], b) + [mth(d[k:])]
    return subproof(m - k, d[k:], False) + [mth(d[:k])]


def check_proof(proof, lines, d):
    def num(k):
        v = proof[k]
        if type(v) is not int or v < 0:
            raise ValueError(f"{k} is not a whole number")
        return v

    def same(k, want):
        got = proof[k] if isinstance(proof[k], list) else [proof[k]]
        want = [h.hex() for h in want]
        if got != want:
            raise ValueError(f"{k}: the proof has {got}, these lines give {want}")

    kind = proof["kind"]
    if kind == "inclusion":
        index, size = num("index"), num("size")
        if index >= size or size > len(d):
            raise ValueError(f"index {index}, size {size}: the export has {len(d)} lines")
        if not isinstance(proof["leaf"], str) or proof["leaf"].encode() != lines[index]:
            raise ValueError(f"leaf is not line {index + 1} of the export")
        same("root", [mth(d[:size])])
        same("path", path(index, d[:size]))
        return f"inclusion of event {index + 1} in the first {size} events"
    if kind == "consistency":
        frm, to = num("from"), num("to")
        if frm == 0 or frm > to or to > len(d):
            raise ValueError(f"from {frm}, to {to}: need 0 < from <= to <= {len(d)}")
        same("old_root", [mth(d[:frm])])
        same("new_root", [mth(d[:to])])
        same("path", subproof(frm, d[:to], True))
        return f"the first {frm} events are unchanged in the first {to}"
    raise ValueError(f"unknown proof kind {kind!r}")


def unique_fields(pairs):
    """A JSON object whose fields are each given once (json's default keeps the last of two)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"field {key!r} is given twice")
        out[key] = value
    return out


def main(args):
    if args[:1] == ["--blake3"]:
        # What the tests compare with the blake3 crate: the hex BLAKE3 of each file's bytes.
        for name in args[1:]:
            print(blake3(open(name, "rb").read()).hex())
        return
    if len(args) not in (1, 2):
        sys.exit("usage: audit-check.py EXPORT.jsonl [PROOF.json]")
    data = open(args[0], "rb").read()
    if data.endswith(b"\n"):
        data = data[:-1]
    lines = data.split(b"\n") if data else []
    for n, line in enumerate(lines):
        if not line:
            sys.exit(f"{args[0]}: line {n + 1} is empty; an export has one event per line")
    head = bytes(32)
    for line in lines:
        head = blake3(head + line)
    d = [leaf(line) for line in lines]
    out = f"head {len(lines)}:{head.hex()}\nroot {mth(d).hex()}\n"
    if len(args) == 2:
        try:
            proof = json.load(open(args[1], encoding="utf-8"), object_pairs_hook=unique_fields)
            what = check_proof(proof, lines, d)
        except (ValueError, KeyError, TypeError) as e:
            why = f"no field {e}" if isinstance(e, KeyError) else str(e)
            sys.stderr.write(f"{out}proof FAILED: {why}\n")
            sys.exit(1)
        out += f"proof ok: {what}\n"
    sys.stdout.write(out)


if __name__ == "__main__":
    main(sys.argv[1:])
