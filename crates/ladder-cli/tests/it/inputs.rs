//! What `import` and `append` do with hostile or repeated input (issue 15): bounded lines,
//! unreadable inputs, re-imports, repeated appends, future instants, and the smaller refusals.

use crate::support::{fixture, Env, Run};

fn hint(stderr: &str) -> &str {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint:\n{stderr}"))
}

fn stored(e: &Env) -> usize {
    e.ok(&["log", "--format", "jsonl"]).lines().count()
}

fn refused(r: &Run, what: &str) {
    assert_eq!(r.code, 1, "{what}: {}", r.stderr);
    assert!(r.stdout.is_empty(), "{what}: {}", r.stdout);
}

#[test]
fn an_endless_line_is_refused_with_its_line_number() {
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01", "join", "alice"]);
    // /dev/zero has no line end: the import stops after 1 MiB of it.
    let r = e.run(&["import", "/dev/zero"], b"");
    refused(&r, "/dev/zero");
    assert!(r.stderr.contains("/dev/zero:1: rule line-length"), "{}", r.stderr);
    // A 2 MiB line between good ones: refused by line, and skipped under --skip-invalid (the
    // next line is read).
    let mut text =
        b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"bob\"}\n".to_vec();
    text.extend(std::iter::repeat_n(b' ', 2 << 20));
    text.extend_from_slice(
        b"\n{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"carol\"}\n",
    );
    let file = e.file("long.jsonl", &text);
    let r = e.run(&["import", file.to_str().unwrap()], b"");
    refused(&r, "long line");
    assert!(r.stderr.contains("long.jsonl:2: rule line-length"), "{}", r.stderr);
    assert_eq!(stored(&e), 1);
    let out = e.ok(&["import", "--skip-invalid", file.to_str().unwrap()]);
    assert!(out.contains("skipped") && out.contains("long.jsonl:2: rule line-length"), "{out}");
    assert!(out.contains("appended 2 events"), "{out}");
}

#[test]
fn an_unreadable_input_fails_the_whole_import() {
    let e = Env::new();
    let good = e.file(
        "good.jsonl",
        b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"bob\"}\n",
    );
    let dir = e.dir.path().join("adir");
    std::fs::create_dir(&dir).unwrap();
    for skip in [false, true] {
        let mut args = vec!["import"];
        if skip {
            args.push("--skip-invalid");
        }
        args.extend([good.to_str().unwrap(), dir.to_str().unwrap()]);
        let r = e.run(&args, b"");
        refused(&r, "a directory");
        assert!(
            r.stderr.contains("is a directory") && r.stderr.contains("nothing was imported"),
            "{}",
            r.stderr
        );
        // Not even the ledger was created: the inputs are opened first.
        assert!(!e.ledger().exists());
        // A file that does not exist, the same.
        let r = e.run(&["import", "--skip-invalid", good.to_str().unwrap(), "missing.jsonl"], b"");
        refused(&r, "a missing file");
        assert!(r.stderr.contains("cannot read missing.jsonl"), "{}", r.stderr);
        assert!(!e.ledger().exists());
    }
}

#[test]
fn importing_the_same_file_again_appends_nothing() {
    let e = Env::new();
    // club.jsonl has no ids; its last events share one instant with others.
    let club = fixture("club.jsonl");
    let club = club.to_str().unwrap();
    let first = e.ok(&["import", club]);
    let n = stored(&e);
    let lines = std::fs::read_to_string(fixture("club.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert!(first.starts_with(&format!("appended {lines} events")), "{first}");
    assert_eq!(n, lines);
    for _ in 0..3 {
        let again = e.ok(&["import", club]);
        assert!(again.starts_with(&format!("appended 0 events; {lines} duplicates")), "{again}");
        assert_eq!(stored(&e), n);
    }
    // Two id-less results at the last instant, imported three times: stored twice, once.
    let two = "{\"type\":\"MatchResult\",\"at\":\"2026-04-01T10:00:00Z\",\"seats\":[{\"player\":\"alice\",\"score\":1},{\"player\":\"bob\",\"score\":0}]}\n";
    let file = e.file("two.jsonl", format!("{two}{two}").as_bytes());
    let out = e.ok(&["import", file.to_str().unwrap()]);
    assert!(out.starts_with("appended 2 events"), "{out}");
    for _ in 0..3 {
        let out = e.ok(&["import", file.to_str().unwrap()]);
        assert!(out.starts_with("appended 0 events; 2 duplicates"), "{out}");
    }
    assert_eq!(stored(&e), n + 2);
}

#[test]
fn repeating_an_append_with_an_id_is_harmless() {
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01", "join", "alice"]);
    e.ok(&["append", "--at", "2026-03-01", "join", "bob"]);
    let first = e.ok(&["append", "match", "alice", "bob", "--score", "1-0", "--id", "t1"]);
    assert!(first.starts_with("appended "), "{first}");
    for _ in 0..2 {
        let again = e.ok(&["append", "match", "alice", "bob", "--score", "1-0", "--id", "t1"]);
        assert!(again.starts_with("already stored at seq 3: "), "{again}");
        assert!(again.contains("nothing appended"), "{again}");
    }
    let json = e.ok(&[
        "append", "--format", "json", "match", "alice", "bob", "--score", "1-0", "--id", "t1",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["appended"].as_u64(), v["duplicates"].as_u64(), v["seq"].as_u64()),
        (Some(0), Some(1), Some(3))
    );
    assert_eq!(stored(&e), 3);
    // Another result under the same id is a conflict naming the stored seq, and the hint never
    // suggests storing it again under another id as if it were new.
    let r = e.run(&["append", "match", "alice", "bob", "--score", "0-1", "--id", "t1"], b"");
    refused(&r, "other content");
    assert!(
        r.stderr.contains("rule id-conflict") && r.stderr.contains("stored at seq 3"),
        "{}",
        r.stderr
    );
    let h = hint(&r.stderr);
    assert!(!h.contains("give this event its own id"), "{h}");
    assert!(h.contains("nothing needs doing") && h.contains("void it"), "{h}");
    assert_eq!(stored(&e), 3);
}

#[test]
fn future_instants_need_allow_future() {
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01", "join", "alice"]);
    let r = e.run(&["append", "--at", "2262-01-01", "join", "bob"], b"");
    refused(&r, "append in 2262");
    assert!(r.stderr.contains("rule future-instant"), "{}", r.stderr);
    assert!(hint(&r.stderr).contains("--allow-future"), "{}", r.stderr);
    let file = e.file(
        "future.jsonl",
        b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"carol\"}\n{\"type\":\"PlayerJoined\",\"at\":\"2200-01-01\",\"player\":\"dave\"}\n",
    );
    let r = e.run(&["import", file.to_str().unwrap()], b"");
    refused(&r, "import of 2200");
    assert!(r.stderr.contains("future.jsonl:2: rule future-instant"), "{}", r.stderr);
    assert_eq!(stored(&e), 1);
    e.ok(&["import", "--allow-future", file.to_str().unwrap()]);
    e.ok(&["append", "--allow-future", "--at", "2262-01-01", "join", "bob"]);
    assert_eq!(stored(&e), 4);
    // Now is accepted without the option.
    let now = Env::new();
    now.ok(&["append", "join", "erin"]);
}

#[test]
fn a_conflict_within_one_import_names_the_earlier_line() {
    let e = Env::new();
    let text = "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01\",\"player\":\"a\"}\n\
{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01\",\"player\":\"b\"}\n\
\n\
{\"type\":\"MatchResult\",\"at\":\"2026-03-01T10:00:00Z\",\"id\":\"m1\",\"seats\":[{\"player\":\"a\",\"score\":1},{\"player\":\"b\",\"score\":0}]}\n\
{\"type\":\"MatchResult\",\"at\":\"2026-03-01T11:00:00Z\",\"id\":\"m1\",\"seats\":[{\"player\":\"b\",\"score\":1},{\"player\":\"a\",\"score\":0}]}\n";
    let file = e.file("batch.jsonl", text.as_bytes());
    let r = e.run(&["import", file.to_str().unwrap()], b"");
    refused(&r, "conflict within the batch");
    assert!(r.stderr.contains("batch.jsonl:5: rule id-conflict"), "{}", r.stderr);
    assert!(r.stderr.contains("(the earlier event is at "), "{}", r.stderr);
    assert!(r.stderr.contains("batch.jsonl:4)"), "{}", r.stderr);
    assert!(!r.stderr.contains("stored at seq"), "{}", r.stderr);
}

#[test]
fn a_byte_order_mark_and_smaller_refusals_name_line_and_rule() {
    let e = Env::new();
    let bom = e.file(
        "bom.jsonl",
        b"\xEF\xBB\xBF{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01\",\"player\":\"a\"}\n",
    );
    let out = e.ok(&["import", bom.to_str().unwrap()]);
    assert!(out.starts_with("appended 1 event"), "{out}");
    let cases: [(&str, &[u8], &str); 4] = [
        ("bogus.jsonl", b"{\"type\":\"Bogus\"}\n", "bogus.jsonl:1: rule unknown-type"),
        (
            "cr.jsonl",
            b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"b\"}\r{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"c\"}\r",
            "cr.jsonl:1: rule syntax: a carriage return",
        ),
        ("leap.jsonl", b"{\"type\":\"MidnightTick\",\"at\":\"2016-12-31T23:59:60Z\"}\n", "leap.jsonl:1: rule timestamp"),
        (
            "bidi.jsonl",
            "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-02\",\"player\":\"ab\u{202e}c\"}\n".as_bytes(),
            "bidi.jsonl:1: rule player-name: `player` contains the invisible character U+202E",
        ),
    ];
    for (name, bytes, message) in cases {
        let f = e.file(name, bytes);
        let r = e.run(&["import", f.to_str().unwrap()], b"");
        refused(&r, name);
        assert!(r.stderr.contains(message), "{name}: {}", r.stderr);
    }
    let r = e.run(&["append", "--at", "2026-03-02", "join", "   "], b"");
    refused(&r, "a blank name");
    assert!(
        r.stderr.contains("rule player-name: `player` is only white space (U+0020)"),
        "{}",
        r.stderr
    );
    assert_eq!(stored(&e), 1);
}

#[test]
fn csv_rows_that_are_not_utf8_are_refused_or_skipped_and_repeated_headers_refused() {
    let e = Env::new();
    let cols = "at=d,winner=w,loser=l";
    let bad = e.file("bad.csv", b"d,w,l\n2020-01-01,a,b\n2020-01-02,\xff,b\n2020-01-03,b,a\n");
    let r = e.run(&["import", "--auto-join", "--columns", cols, bad.to_str().unwrap()], b"");
    refused(&r, "non-UTF-8 row");
    assert!(
        r.stderr.contains("bad.csv:3: rule syntax: field 2 (\"w\") is not UTF-8"),
        "{}",
        r.stderr
    );
    assert!(!e.ledger().exists() || stored(&e) == 0);
    let out = e.ok(&[
        "import",
        "--auto-join",
        "--skip-invalid",
        "--columns",
        cols,
        bad.to_str().unwrap(),
    ]);
    assert!(out.contains("bad.csv:3: rule syntax"), "{out}");
    assert!(out.contains("1 invalid line skipped"), "{out}");
    assert_eq!(stored(&e), 4, "two joins and two results");
    let twice = e.file("twice.csv", b"d,w,l,w\n2020-01-04,a,b,c\n");
    let r = e.run(&["import", "--auto-join", "--columns", cols, twice.to_str().unwrap()], b"");
    refused(&r, "a repeated header");
    assert!(r.stderr.contains("twice.csv: the header names column \"w\" twice"), "{}", r.stderr);
    assert_eq!(stored(&e), 4);
}

/// An import parses on every core and appends in input order: a file of many parse chunks
/// (1,024 lines each) stores the same events, so the same head (sequence number and chain hash)
/// and the same tree root, as one thread appending the same lines in order through the library.
#[test]
fn an_import_on_every_core_stores_what_one_thread_appends() {
    let e = Env::new();
    let sim = e.ok(&["sim", "--players", "300", "--matches", "6000", "--seed", "11"]);
    let lines = sim.lines().count();
    assert!(lines > 6 * 1024, "{lines} lines: several chunks");
    let file = e.file("sim.jsonl", sim.as_bytes());
    e.ok(&["import", file.to_str().unwrap()]);
    let parallel = ladder_log::Ledger::open(e.ledger()).unwrap();

    let one = e.dir.path().join("one.db");
    let mut ledger = ladder_log::Ledger::open(&one).unwrap();
    let items = ladder_import::jsonl::JsonLines::new(sim.as_bytes(), "sim.jsonl").map(|(_, x)| x);
    ledger.append(items, &ladder_log::AppendOptions::default()).unwrap();

    assert_eq!(parallel.head(), ledger.head());
    assert_eq!(parallel.head().seq, lines as u64);
    let root = |l: &ladder_log::Ledger| l.root().unwrap();
    assert_eq!(root(&parallel), root(&ledger));
}

/// Refusals come back in input order whatever thread parsed them: with bad lines in the fourth
/// and sixth chunks, the import names the first and stores nothing; under --skip-invalid it
/// reports both, in order, and stores every other line.
#[test]
fn an_import_on_every_core_refuses_the_first_bad_line() {
    let e = Env::new();
    let sim = e.ok(&["sim", "--players", "300", "--matches", "6000", "--seed", "12"]);
    let mut lines: Vec<&str> = sim.lines().collect();
    lines[3500] = "{\"type\":\"Nope\",\"at\":\"2026-03-02\"}";
    lines[5500] = "not json";
    let file = e.file("bad.jsonl", (lines.join("\n") + "\n").as_bytes());
    let r = e.run(&["import", file.to_str().unwrap()], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("bad.jsonl:3501"), "{}", r.stderr);
    assert!(r.stderr.contains("nothing was imported"), "{}", r.stderr);
    assert!(!r.stderr.contains("bad.jsonl:5501"), "{}", r.stderr);

    let out = e.ok(&["import", "--skip-invalid", file.to_str().unwrap()]);
    let (first, second) = (out.find("bad.jsonl:3501"), out.find("bad.jsonl:5501"));
    assert!(first.is_some() && second.is_some() && first < second, "{out}");
    let ledger = ladder_log::Ledger::open(e.ledger()).unwrap();
    assert_eq!(ledger.head().seq, lines.len() as u64 - 2);
}
