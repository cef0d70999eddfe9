//! Throughput of reading a SchrodingerRepo run (MB/s): every trajectory and report of the real gemini-3-pro run through `RunReader`, to its Pass@1, action mix and tokens.
//!
//! The run is the 70 real mini-SWE-agent trajectories of `../shared` with their SWE-bench
//! reports when present, else the twelve vendored ones. Run with
//! `cargo bench -p wheelwright-core --bench actions`; results are in `docs/performance.md`.

#![allow(clippy::print_stderr)] // The bench reports its input's size on standard error.

use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/real.rs"]
mod real;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wheelwright_core::schrodinger::run_actions::RunReader;

fn actions(c: &mut Criterion) {
    let files = real::run_files();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    eprintln!("{} files, {:.2} MB", files.len(), bytes as f64 / 1e6);
    let mut group = c.benchmark_group("run_actions");
    group.throughput(Throughput::Bytes(bytes as u64));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("read_run", |b| {
        b.iter(|| {
            let mut reader = RunReader::new();
            for (name, bytes) in &files {
                reader.add(name, bytes);
            }
            black_box(reader.finish())
        });
    });
    group.finish();
}

criterion_group!(benches, actions);
criterion_main!(benches);
