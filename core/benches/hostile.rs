//! Hostile inputs: time grows linearly with the input, up to the per-file budget, and stays
//! flat beyond it.
//!
//! - one line of `a=1;` (the densest valid Python) at doubling sizes up to the budget, and
//!   at 1 MB and 10 MB (over it): outlined (`/api/v1/analyze`) and analysed as a submission;
//! - `f(f(...))` nested at doubling depths up to the budget, and 100,000 and 1,000,000 deep;
//! - lambdas nested at doubling depths (scopes as deep, every use resolved through them);
//! - a trajectory whose actions read lines 1..4294967295 of files, at doubling numbers of
//!   actions, and one read of ever longer ranges (flat: a range costs one entry).
//!
//! Run with `cargo bench -p wheelwright-core --bench hostile`; results are in
//! `docs/performance.md` ("Core: hostile inputs").

#![allow(clippy::print_stderr)] // The bench reports what each input was on standard error.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use wheelwright_core::outline;
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::python::references::analyse_submission;
use wheelwright_core::trajectory::{
    InterpretOptions, TrajectorySummary, interpret_trajectory, parse_trajectory_value,
};
use wheelwright_core::workspace::Workspace;

fn one_line(bytes: usize) -> String {
    "a=1;".repeat(bytes / 4)
}

fn nested_calls(depth: usize) -> String {
    format!(
        "def g():\n    {}{}\n",
        "f(".repeat(depth),
        ")".repeat(depth)
    )
}

fn nested_lambdas(depth: usize) -> String {
    // Every name used in the innermost lambda is resolved through all the scopes.
    format!(
        "x = {}({})\n",
        "lambda a: ".repeat(depth),
        "b, ".repeat(depth / 4)
    )
}

fn describe(name: &str, source: &str) {
    let outline = outline::outline(source);
    let over = outline
        .diagnostics
        .iter()
        .any(|d| d.message.contains("too large"));
    eprintln!(
        "{name}: {} bytes, {}",
        source.len(),
        if over {
            "over the budget"
        } else {
            "within the budget"
        }
    );
}

fn group<'c>(
    c: &'c mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group
}

fn sources(c: &mut Criterion) {
    let empty = RepoIndex::build(&Workspace::new(), &IndexOptions::default());
    let inputs: [(&str, Vec<(String, String)>); 3] = [
        (
            "one_line",
            [9_375, 18_750, 37_500, 75_000, 1_000_000, 10_000_000]
                .map(|bytes| (bytes.to_string(), one_line(bytes)))
                .to_vec(),
        ),
        (
            "nested_calls",
            [3_750, 7_500, 15_000, 30_000, 100_000, 1_000_000]
                .map(|depth| (depth.to_string(), nested_calls(depth)))
                .to_vec(),
        ),
        (
            "nested_lambdas",
            [2_500, 5_000, 10_000, 20_000]
                .map(|depth| (depth.to_string(), nested_lambdas(depth)))
                .to_vec(),
        ),
    ];
    for (kind, cases) in &inputs {
        for (size, source) in cases {
            describe(&format!("{kind}/{size}"), source);
        }
        let mut outlines = group(c, &format!("hostile/{kind}/outline"));
        for (size, source) in cases {
            outlines.throughput(Throughput::Bytes(source.len() as u64));
            outlines.bench_with_input(BenchmarkId::from_parameter(size), source, |b, s| {
                b.iter(|| outline::outline(black_box(s)))
            });
        }
        outlines.finish();
        let mut submissions = group(c, &format!("hostile/{kind}/submission"));
        for (size, source) in cases {
            submissions.throughput(Throughput::Bytes(source.len() as u64));
            submissions.bench_with_input(BenchmarkId::from_parameter(size), source, |b, s| {
                b.iter(|| analyse_submission(&empty, "pkg/sub.py", Some(black_box(s))))
            });
        }
        submissions.finish();
    }
}

fn trajectories(c: &mut Criterion) {
    let mut workspace = Workspace::new();
    for i in 0..1_000 {
        workspace.insert(&format!("pkg/m{i}.py"), "x = 1\n".repeat(200));
    }
    let options = InterpretOptions::new(Some(&workspace));
    // Each action reads lines 1..4294967295 of a file, in the workspace or not, by tool
    // and by sed.
    let reads = |n: usize| {
        let actions: Vec<_> = (0..n)
            .map(|i| match i % 3 {
                0 => json!({"kind": "read", "path": format!("pkg/m{}.py", i % 1000), "offset": 1, "limit": 4_294_967_295u64}),
                1 => json!({"kind": "read", "path": format!("new/n{i}.py"), "offset": 1, "limit": 4_294_967_295u64}),
                _ => json!({"kind": "bash", "command": format!("sed -n '1,4294967295p' pkg/m{}.py new/s{i}.py", i % 1000)}),
            })
            .collect();
        parse_trajectory_value(&json!({"format": "generic-1", "actions": actions})).unwrap()
    };
    let mut group_reads = group(c, "hostile/huge_range_reads");
    for n in [1_000, 2_000, 4_000, 8_000] {
        let trajectory = reads(n);
        let summary = TrajectorySummary::of(&trajectory, &options);
        eprintln!("huge_range_reads/{n}: {} lines shown", summary.lines);
        group_reads.throughput(Throughput::Elements(n as u64));
        group_reads.bench_with_input(BenchmarkId::from_parameter(n), &trajectory, |b, t| {
            b.iter(|| {
                let actions = interpret_trajectory(black_box(t), &options);
                TrajectorySummary::new(&actions, 0)
            })
        });
    }
    group_reads.finish();
    // One read of a file the workspace lacks: its range's length changes nothing.
    let mut group_range = group(c, "hostile/one_range_read");
    for limit in [1_000u64, 1_000_000, 1_000_000_000, 4_294_967_295] {
        let trajectory = parse_trajectory_value(&json!({"format": "generic-1", "actions": [
            {"kind": "read", "path": "new.py", "offset": 1, "limit": limit}
        ]}))
        .unwrap();
        group_range.bench_with_input(BenchmarkId::from_parameter(limit), &trajectory, |b, t| {
            b.iter(|| {
                let actions = interpret_trajectory(black_box(t), &options);
                TrajectorySummary::new(&actions, 0)
            })
        });
    }
    group_range.finish();
}

criterion_group!(benches, sources, trajectories);
criterion_main!(benches);
