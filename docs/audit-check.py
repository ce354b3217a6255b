#!/usr/bin/env python3
"""Independent check of a ladder, the Python twin of the ladder-audit crate (docs/proofs.md).

    python3 docs/audit-check.py EXPORT.jsonl [PROOF.json]

EXPORT is `ladder log --format jsonl` output: one event per line; the line without its newline
is the event's leaf. Prints
    head N:HEX   the chain: h_0 = 32 zero bytes, h_n = blake3(h_(n-1) || line_n)
    root HEX     the Merkle tree (RFC 6962 2.1, blake3 for SHA-256) over all the lines
With a proof (`ladder prove --format json`) it also checks that the proof is exactly the one
RFC 6962 defines for these lines. Exit 0 if all holds, 1 otherwise.
Needs only the `blake3` package from PyPI (pip install blake3) and the standard library.
"""
import json
import sys

from blake3 import blake3


def leaf(line):
    return blake3(b"\x00" + line).digest()


def node(left, right):
    return blake3(b"\x01" + left + right).digest()


def split(n):
    """The largest power of two strictly below n (n >= 2)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(d):
    """MTH(D[n]), RFC 6962 2.1, over leaf hashes."""
    if len(d) == 0:
        return blake3(b"").digest()
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
        head = blake3(head + line).digest()
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
