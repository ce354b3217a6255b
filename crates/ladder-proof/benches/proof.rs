//! Speed of the proof library: appending leaves to a [`Frontier`] (the ledger does this once per
//! imported event), proof generation over a 10M-leaf [`MemTree`] (the same split as the ledger:
//! subtrees of 256 leaves and more are looked up, smaller ones recomputed from leaf hashes), and
//! verification; and the blake3 hashing every event costs a ledger, on a typical line.
//!
//! `cargo bench -p ladder-proof --bench proof` (criterion: `proof/push/1m` with throughput in
//! leaves, then `inclusion`, `consistency`, `verify_inclusion`, `verify_consistency` on the big
//! tree; `proof/per_event/...`: the chain hash, the leaf hash and one node hash of a
//! two-seat match line of the simulated ladder, 176 bytes, alone and together).
//! `LADDER_PROOF_BENCH_LEAVES=N` changes the big tree's size (default 10,000,000; it holds
//! 32 bytes per leaf in memory).

use criterion::{BatchSize, Criterion, Throughput};
use ladder_proof::{
    consistency_proof, inclusion_proof, leaf_hash, root, verify_consistency, verify_inclusion,
    Frontier, Hash, MemTree,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// xorshift64: seeded positions, the same on every run.
fn positions(n: u64, count: usize) -> Vec<u64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        })
        .collect()
}

fn main() {
    let leaves: Vec<Hash> = (0..1_000_000u64).map(|i| leaf_hash(&i.to_le_bytes())).collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let mut g = c.benchmark_group("proof");
    g.throughput(Throughput::Elements(leaves.len() as u64));
    g.bench_function("push/1m", |b| {
        b.iter(|| {
            let mut f = Frontier::new();
            let mut kept = 0u64;
            for l in &leaves {
                f.push(*l, |level, _, _| kept += u64::from(level >= 8));
            }
            black_box((f.root(), kept))
        })
    });
    // What format 4 hashes for each event (docs/proofs.md): the chain, blake3(h_(n-1) || line),
    // 4 compressions of 64 bytes for this line; the leaf, SHA-256(0x00 || line), 3 blocks of 64
    // bytes; and about one node, SHA-256(0x01 || left || right), 2 blocks.
    let line: &[u8] = br#"{"type":"MatchResult","at":"2020-03-17T12:18:11Z","id":"s1-m143473","seats":[{"player":"p044388","score":1.0,"seconds":481.0},{"player":"p054277","score":0.0,"seconds":481.0}]}"#;
    let prev = [7u8; 32];
    let chain = |line: &[u8]| {
        let mut h = blake3::Hasher::new();
        h.update(&prev);
        h.update(line);
        *h.finalize().as_bytes()
    };
    g.throughput(Throughput::Elements(1));
    g.bench_function("per_event/chain", |b| b.iter(|| chain(black_box(line))));
    g.bench_function("per_event/leaf", |b| b.iter(|| leaf_hash(black_box(line))));
    g.bench_function("per_event/node", |b| {
        b.iter(|| ladder_proof::node_hash(black_box(&prev), black_box(&prev)))
    });
    g.bench_function("per_event/all", |b| {
        b.iter(|| {
            let c = chain(black_box(line));
            let l = leaf_hash(black_box(line));
            ladder_proof::node_hash(&c, &l)
        })
    });
    g.finish();

    let n: u64 = std::env::var("LADDER_PROOF_BENCH_LEAVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let t = Instant::now();
    let mut tree = MemTree::new();
    for i in 0..n {
        tree.push_hash(leaf_hash(&i.to_le_bytes()));
    }
    let built = t.elapsed().as_secs_f64();
    println!(
        "built a {n}-leaf MemTree in {built:.2} s ({:.2}M leaves/s, leaf hashing included)",
        n as f64 / built / 1e6
    );

    let size = tree.len();
    let top = root(size, &mut tree).expect("root");
    let at = positions(size, 1024);
    let mut g = c.benchmark_group("proof");
    g.throughput(Throughput::Elements(1));
    let mut k = 0usize;
    g.bench_function("inclusion/10m", |b| {
        b.iter(|| {
            k = (k + 1) % at.len();
            black_box(inclusion_proof(at[k], size, &mut tree).expect("proof"))
        })
    });
    g.bench_function("consistency/10m", |b| {
        b.iter(|| {
            k = (k + 1) % at.len();
            black_box(consistency_proof(at[k].max(1), size, &mut tree).expect("proof"))
        })
    });
    let proofs: Vec<(u64, Vec<Hash>)> =
        at.iter().map(|&i| (i, inclusion_proof(i, size, &mut tree).expect("proof"))).collect();
    g.bench_function("verify_inclusion/10m", |b| {
        b.iter_batched(
            || {
                k = (k + 1) % proofs.len();
                k
            },
            |k| {
                let (i, path) = &proofs[k];
                let leaf = tree.leaf_hashes()[*i as usize];
                verify_inclusion(*i, size, &leaf, path, &top).expect("verifies")
            },
            BatchSize::SmallInput,
        )
    });
    let olds: Vec<(u64, Hash, Vec<Hash>)> = at
        .iter()
        .take(64)
        .map(|&i| {
            let from = i.max(1);
            let old = root(from, &mut tree).expect("root");
            (from, old, consistency_proof(from, size, &mut tree).expect("proof"))
        })
        .collect();
    g.bench_function("verify_consistency/10m", |b| {
        b.iter(|| {
            k = (k + 1) % olds.len();
            let (from, old, path) = &olds[k];
            verify_consistency(*from, size, old, &top, path).expect("verifies")
        })
    });
    g.finish();
    c.final_summary();
}
