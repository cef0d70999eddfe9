//! Throughput of making SchrodingerRepo views (MB/s): level 2, level 3 and both, of real library code, and recovering the unchanged view.
//!
//! The repository is packages of this machine's Python standard library (json, email,
//! logging, http, urllib, asyncio; tests excluded). Run with
//! `cargo bench -p wheelwright-core --bench views`; results are in `docs/performance.md`.

#![allow(clippy::print_stderr)] // The bench reports its input's size on standard error.

use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/real.rs"]
mod real;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wheelwright_core::schrodinger::view::{make_view, recover};

fn views(c: &mut Criterion) {
    let files = real::stdlib_packages(&["json", "email", "logging", "http", "urllib", "asyncio"]);
    let bytes: usize = files.values().map(String::len).sum();
    eprintln!(
        "{} files, {:.2} MB of the standard library",
        files.len(),
        bytes as f64 / 1e6
    );
    let mut group = c.benchmark_group("view");
    group.throughput(Throughput::Bytes(bytes as u64));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, levels) in [
        ("level 2", &[2u8][..]),
        ("level 3", &[3]),
        ("levels 2,3", &[2, 3]),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| make_view(black_box(&files), levels, 7).unwrap())
        });
    }
    let view = make_view(&files, &[2, 3], 7).unwrap();
    group.bench_function("recover levels 2,3", |b| {
        b.iter(|| recover(black_box(&files), &view.files, &view.bundle))
    });
    group.finish();
}

criterion_group!(benches, views);
criterion_main!(benches);
