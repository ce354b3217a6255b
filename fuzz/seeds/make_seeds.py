#!/usr/bin/env python3
"""Writes the hand-made seed inputs of every fuzz target into fuzz/corpus/<target>/.

Seeds come from fixtures/ and the formats' documented examples, cut small (a few KB at most) so
the fuzzer mutates structure rather than bulk. `cargo fuzz cmin` renames every input it keeps to
its SHA-1, so run this again after it (from anywhere): it writes the seeds back under their
names and removes the unnamed copies of them.
"""
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def out(target, name, data):
    d = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)
    for other in os.listdir(d):
        path = os.path.join(d, other)
        if not other.startswith("seed-"):
            with open(path, "rb") as f:
                same = f.read() == data
            if same:
                os.remove(path)


def fixture(*parts):
    with open(os.path.join(ROOT, "fixtures", *parts), "rb") as f:
        return f.read()


# event_decoder: each stored event of the golden file (u32 LE length prefixes).
golden = fixture("golden-events.bin")
i = n = 0
while i < len(golden):
    (length,) = struct.unpack_from("<I", golden, i)
    out("event_decoder", f"golden-{n}", golden[i + 4 : i + 4 + length])
    i += 4 + length
    n += 1

# jsonl_import: the small fixtures whole, the start of club.jsonl, and refused lines.
out("jsonl_import", "glickman", fixture("glickman.jsonl"))
out("jsonl_import", "teams", fixture("teams.jsonl"))
out("jsonl_import", "club-head", b"".join(fixture("club.jsonl").splitlines(True)[:25]))
out(
    "jsonl_import",
    "refused",
    '{"type":"MidnightTick","at":"2026-03-02T01:00:00+01:00"}\n'
    '\n  \r\n'
    '{"type":"Resign","at":"2026-03-01"}\n'
    '{"type":"MidnightTick","at":"2026-03-01","plyer":"x"}\n'
    '{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1,"team":1.5},{"player":"b","score":0}]}\n'
    '{"type":"PlayerJoined","at":"2026-03-01","player":"a","rd":0}\n'
    '{"type":"MatchVoided","at":"2026-03-02T10:00:00Z","match":"m-1","reason":"wrong account"}\n'
    '{"type":"QueueTimeout","at":"2026-03-01T15:00:00.5Z","player":"bob"}\n'
    '{"type":"Midn',
)

# jsonl_import: the input rules of docs/events.md (byte order mark, lone carriage returns, an
# unknown type, a leap second, invisible and blank names).
out(
    "jsonl_import",
    "bom",
    b'\xef\xbb\xbf{"type":"PlayerJoined","at":"2026-03-01","player":"a"}\n'
    b'\xef\xbb\xbf{"type":"MidnightTick","at":"2026-03-02"}\n',
)
out(
    "jsonl_import",
    "lone-cr",
    '{"type":"MidnightTick","at":"2026-03-02"}\r{"type":"MidnightTick","at":"2026-03-03"}\r\n',
)
out(
    "jsonl_import",
    "type-and-leap-second",
    '{"type":"Bogus"}\n{"type":"PlayerJoined","at":"2016-12-31T23:59:60Z","player":"a"}\n',
)
out(
    "jsonl_import",
    "invisible-names",
    '{"type":"PlayerJoined","at":"2026-03-01","player":"a\u202eb"}\n'
    '{"type":"PlayerJoined","at":"2026-03-01","player":"\u200b"}\n'
    '{"type":"PlayerJoined","at":"2026-03-01","player":"  "}\n',
)

# csv_import: first byte = mode (see fuzz/checks/import.rs).
tennis = fixture("tennis", "atp_matches_2019_slice.csv").decode().splitlines(True)
out("csv_import", "tennis-head", b"\x00" + "".join(tennis[:12]).encode())
out(
    "csv_import",
    "tennis-small",
    "\x01tourney_id,tourney_date,match_num,winner_id,winner_name,loser_id,loser_name,score,round\n"
    "T1,20190107,300,1,Ann,2,Bea,6-4 6-4,F\n"
    "T1,20190107,200,1,Ann,3,Cy,6-1 6-1,SF\n"
    "T1,20190107,201,2,Bea,4,Cy,W/O,SF\n"
    "T1,20190107,100,4,Cy,5,Dee,,QF\n"
    "T0,20190101,1,3,Cy,1,Ann,6-0 RET,R32\n"
    "T0,20190101,2,6,Eve,6,Eve,6-0,R32\n",
)
out("csv_import", "winner-loser", "\x02date,w,l\n2020-01-01,a,b\n20200102,b,a\nbad,a,b\n2020-01-03,a,a\n")
out(
    "csv_import",
    "scores",
    "\x03date,home,away,hs,as\n2020-01-02,A,B,2,2\n20200101,C,D,3,1\n2020-01-02,E,F,0,x\n",
)
out(
    "csv_import",
    "score-a-id",
    '\x84d;x;y;s;key\n2020-01-01;A;B;0.5;k1\n2020-01-01;A;B;2;k2\n"2020-01-02";"A ""q""";B;1;\n',
)
football = fixture("football", "results-2014-2018.csv").decode().splitlines(True)
out(
    "csv_import",
    "football-columns",
    "\x05at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score\n"
    + "".join(football[:12]),
)
out("csv_import", "bad-columns", "\x06at=date,colour=c\ndate,c\n")
out("csv_import", "row-not-utf8", b"\x02date,w,l\n2020-01-01,\xff,b\n2020-01-02,a,b\n")
out("csv_import", "header-twice", "\x02date,w,l,w\n2020-01-01,a,b,c\n")
out("csv_import", "bom-invisible-blank", "\x02\ufeffdate,w,l\n2020-01-01,a\u200b,b\n2020-01-02, ,b\n")

# perf_lines: first byte = variant (mod 6) and --extra (bit 7).
out("perf_lines", "example", "\x83+1500 abc 3\n-1620 def\n=1610 abc\n")
out("perf_lines", "one-win", "\x00" + "+1000\n" * 20)
out("perf_lines", "mixed", "\x85+2400\n-2600 x 1.5\n\n=1800 y 0\n+1500 x\n")
out("perf_lines", "refused", "\x02+1500\n*1500 abc\n")

# proof_inputs: first byte = the parser (mod 8): 0 proof JSON, 1 checkpoint text, 2 signed note,
# 3 key text, 4 stored frontier bytes, 5 tile path, 6 entry bundle (then its width - 1),
# 7 tlog-proof. The examples of docs/proofs.md and of C2SP tlog-tiles, and tessera's test log.
with open(os.path.join(ROOT, "docs", "proofs.md"), encoding="utf-8") as f:
    page = f.read()


def example(name):
    body = page.split("<!-- example: %s -->\n" % name, 1)[1].split("\n", 1)[1]
    return body.split("```", 1)[0]


out("proof_inputs", "inclusion", "\x00" + example("inclusion"))
out("proof_inputs", "consistency", "\x00" + example("consistency"))
note = example("checkpoint")
out("proof_inputs", "checkpoint-text", "\x01" + note.split("\n\n", 1)[0] + "\n")
out("proof_inputs", "signed-note", "\x02" + note)
out("proof_inputs", "verifier-key", "\x03" + example("verifier-key"))
out("proof_inputs", "signer-key", "\x03" + example("signer-key"))
# A frontier of 5 leaves: version 1, size 5 (LE), two hashes, 8 checksum bytes (the checksum is
# left wrong: the fuzzer finds its way past it from the parse error paths).
out("proof_inputs", "frontier", b"\x04\x01" + struct.pack("<Q", 5) + bytes(range(64)) + bytes(8))
out("proof_inputs", "tile-path", "\x05tile/0/x001/x234/067.p/8")
out("proof_inputs", "entry-bundle", b"\x06\x01" + b"\x00\x03one\x00\x03two")
# A tlog-proof of tessera's first entry in its checkpoint of size 1 (an empty audit path).
with open(os.path.join(ROOT, "fixtures", "conformance", "tessera-log", "checkpoint.1"), encoding="utf-8") as f:
    tessera_note = f.read()
out("proof_inputs", "tlog-proof", "\x07c2sp.org/tlog-proof@v1\nextra b25l\nindex 0\n\n" + tessera_note)
