//! Time to build the callable map (RepoReuse's pipeline, step 1) of networkx 3.4.2's wheel: indexing, call resolution and candidates.
//!
//! The wheel is read from the cache `wheelwright dataset map --repo networkx==3.4.2` fills
//! (`$WHEELWRIGHT_CACHE_DIR`, default `~/.cache/wheelwright`, under
//! `pypi/networkx-3.4.2/`); the bench says so and stops when it is not there. Run with
//! `cargo bench -p wheelwright-core --bench callable_map`; results are in
//! `docs/performance.md`, "Core: the callable map".

#![allow(clippy::print_stderr)] // The bench reports its input's size on standard error.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::reporeuse::callable_map::CallableMap;

/// The `.py` files of the cached networkx 3.4.2 wheel, by their path in it.
fn networkx() -> Option<BTreeMap<String, String>> {
    let cache = std::env::var_os("WHEELWRIGHT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/wheelwright"))
        })?;
    let dir = cache.join("pypi/networkx-3.4.2");
    let wheel = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))?;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(wheel).ok()?).ok()?;
    let mut files = BTreeMap::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).ok()?;
        if entry.is_file() && entry.name().ends_with(".py") {
            let name = entry.name().to_owned();
            let mut text = String::new();
            entry.read_to_string(&mut text).ok()?;
            files.insert(name, text);
        }
    }
    Some(files)
}

fn bench(c: &mut Criterion) {
    let Some(files) = networkx() else {
        eprintln!(
            "the networkx 3.4.2 wheel is not cached; run `wheelwright dataset map --repo networkx==3.4.2` once first"
        );
        return;
    };
    let bytes: usize = files.values().map(String::len).sum();
    let map = CallableMap::build(
        files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        &IndexOptions::default(),
    );
    eprintln!(
        "networkx 3.4.2: {} .py files, {bytes} bytes; map counts {:?}",
        files.len(),
        map.counts
    );
    let mut group = c.benchmark_group("core");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("callable_map_networkx", |b| {
        b.iter(|| {
            black_box(CallableMap::build(
                files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
                &IndexOptions::default(),
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
