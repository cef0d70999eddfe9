//! Throughput of storing a run's texts (deflating them in 1 MiB parts, MB/s) and of reading them back (a turn case's one part, a whole run for re-scoring).
//!
//! The run is [`TURNS`] turns, each leaving one real Python module of this machine's
//! standard library (found with `python3`) and one of the real mini-SWE-agent
//! trajectories of `shared/data/real/` (all 70 when `../shared` is beside the repository,
//! else the 12 vendored in `core/tests/fixtures/real/`, which the bench says on standard
//! error), in turn: about 100 MB of text, near what a stored run may hold ([`STORE_LIMITS`]). Run with `cargo bench -p wheelwright-server --bench
//! storage`; results are in `docs/performance.md`.

#![allow(clippy::print_stderr)] // The bench reports its inputs' sizes on standard error.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "../../core/tests/common/real.rs"]
mod real;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wheelwright_core::bundle::{DatasetRef, Metadata, Prediction};
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, TurnId};
use wheelwright_server::store::run_files::{PART_BYTES, STORE_LIMITS, inflate, pack, split};

const TURNS: usize = 600;

/// The `.py` files directly in `dir`, sorted by name.
fn modules(dir: &Path) -> Vec<String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

fn run() -> RepoReuseBundle {
    let sources = modules(&real::stdlib());
    let trajectories = real::bench_texts();
    assert!(!sources.is_empty() && !trajectories.is_empty());
    let turns = (0..TURNS)
        .map(|i| {
            let files = BTreeMap::from([(
                format!("solutions/m{i}.py"),
                sources[i % sources.len()].clone(),
            )]);
            let trajectory = Some(trajectories[i % trajectories.len()].clone());
            (
                TurnId::new(format!("c{}", i / 5), i % 5 + 1),
                Prediction { files, trajectory },
            )
        })
        .collect();
    RepoReuseBundle {
        metadata: Metadata {
            model: "bench".to_owned(),
            harness: "mini-SWE-agent".to_owned(),
            memory: "interface".to_owned(),
            date: "2026-12-01".to_owned(),
            dataset: DatasetRef {
                name: "bench".to_owned(),
                version: "1".to_owned(),
            },
            cost_usd: None,
            scaffold_version: None,
            notes: None,
        },
        predictions: turns,
    }
}

fn bench(c: &mut Criterion) {
    let bundle = run();
    let raw = wheelwright_server::store::run_files::raw_bytes(&bundle);
    let packed = pack(&bundle, STORE_LIMITS).expect("within the limits");
    eprintln!(
        "run: {TURNS} turns, {raw} bytes of text, {} deflated ({:.1}x), {} parts",
        packed.stored_bytes,
        raw as f64 / packed.stored_bytes as f64,
        packed.texts.iter().map(|t| t.parts.len()).sum::<usize>()
    );
    let mut group = c.benchmark_group("storage");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(raw));
    group.bench_function("pack a 600-turn run", |b| {
        b.iter(|| pack(black_box(&bundle), STORE_LIMITS).unwrap())
    });
    group.bench_function("inflate every part of the run", |b| {
        b.iter(|| {
            packed
                .texts
                .iter()
                .flat_map(|t| &t.parts)
                .map(|p| inflate("deflate", black_box(p), usize::MAX).unwrap().len())
                .sum::<usize>()
        })
    });
    // The turn case's read: the first part of the largest trajectory, 1 MiB at most.
    let largest = bundle
        .predictions
        .values()
        .filter_map(|t| t.trajectory.as_deref())
        .max_by_key(|t| t.len())
        .unwrap();
    let first =
        wheelwright_server::store::run_files::deflate(split(largest).next().unwrap().as_bytes());
    let shown = split(largest).next().unwrap().len();
    eprintln!(
        "largest trajectory {} bytes, first part {shown} bytes",
        largest.len()
    );
    group.throughput(Throughput::Bytes(shown as u64));
    group.bench_function("inflate a turn case's first part", |b| {
        b.iter(|| inflate("deflate", black_box(&first), PART_BYTES).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
