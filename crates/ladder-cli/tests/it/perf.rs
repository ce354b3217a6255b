//! The Arimaa text's tables from the command line: `ladder rep ARGS | ladder perf --variant V`.

use crate::support::Env;

#[test]
fn every_seed_003_table_from_the_command_line() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/seed003-tables.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let e = Env::new();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut f = line.split('\t');
        let (variant, seed) = (f.next().unwrap(), f.next().unwrap());
        let mut args = vec!["rep"];
        args.extend(f);
        let lines = e.ok(&args);
        let r = e.run(&["perf", "--variant", variant], lines.as_bytes());
        assert_eq!(r.code, 0, "{line}: {}", r.stderr);
        assert_eq!(
            r.stdout.lines().next(),
            Some(seed),
            "rep {:?} | perf --variant {variant}",
            &args[1..]
        );
        checked += 1;
    }
    assert_eq!(checked, 78);
}

#[test]
fn perf_says_when_no_finite_rating_exists() {
    let e = Env::new();
    let wins = e.ok(&["rep", "+1000", "20"]);
    let r = e.run(&["perf", "--variant", "p1"], wins.as_bytes());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no finite rating exists"), "{}", r.stderr);
    let r = e.run(&["perf", "--variant", "p4", "--extra"], wins.as_bytes());
    assert_eq!(r.stdout.lines().next(), Some("1746"));
    assert!(r.stdout.contains("+/-") && r.stdout.contains("ra "), "{}", r.stdout);
    // The Arimaa text: "If a '-' appears as one of the arguments, it will copy the standard input
    // to standard output before continuing with the processing of the rest of the arguments."
    // Arguments may start with `-` (a loss).
    let r = e.run(&["rep", "+1000", "1", "-", "-1500 y", "2"], b"=1200 x\n");
    assert_eq!(r.stdout, "+1000\n=1200 x\n-1500 y\n-1500 y\n", "{}", r.stderr);
}
