//! `ladder-audit EXPORT.jsonl [PROOF.json]`: an independent check of a ladder, depending on
//! nothing but blake3 and sha2. EXPORT is `ladder log --format jsonl` output: one event per line, and the
//! line without its newline is the event's leaf. Prints
//!   head N:HEX   the chain: h_0 = 32 zero bytes, h_n = blake3(h_(n-1) || line_n)
//!   root HEX     the Merkle tree (RFC 6962 2.1, SHA-256) over all the lines
//! With a proof (`ladder prove --format json`) it also checks that the proof is exactly the one
//! RFC 6962 defines for these lines. Exit 0 if all holds, 1 otherwise. docs/proofs.md.
//!
//! This file is the program's edge (arguments, files, output); the arithmetic is in `lib.rs`.

fn run(args: &[String]) -> Result<String, String> {
    let ([export] | [export, _]) = args else {
        return Err("usage: ladder-audit EXPORT.jsonl [PROOF.json]".into());
    };
    let bytes = std::fs::read(export).map_err(|e| format!("{export}: {e}"))?;
    let proof = match args {
        [_, proof] => Some(std::fs::read_to_string(proof).map_err(|e| format!("{proof}: {e}"))?),
        _ => None,
    };
    let lines = ladder_audit::lines(&bytes).map_err(|e| format!("{export}: {e}"))?;
    ladder_audit::audit(&lines, proof.as_deref())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(out) => {
            print!("{out}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::from(1)
        }
    }
}
