//! A run scored in memory on one thread, timed beside its floors in the same process (`scripts/bench/paper-scale` runs it).
//!
//! ```text
//! cargo run --release -p wheelwright-server --example score_in_memory -- BUNDLE DATASET [ROUNDS]
//! ```
//! The bundle and the dataset are read whole first (nothing timed), then, `ROUNDS` times
//! (default 3) and alternately, on one thread: the parse floor (tree-sitter parse plus one
//! cursor walk of every submission, `syntax::parse_floor`), the scorer's own parse of them
//! (`syntax::parse`: the same parse, converted into core's tree), the JSON floor (`serde_json`
//! reading every trajectory into `IgnoredAny`), and scoring the turns (`ChainByChain`,
//! chain after chain, the repository already indexed: what "in memory, turns only" means
//! in issue 11). Prints one line of JSON with the fastest round of each and their ratios.

#![allow(clippy::print_stdout)] // The example reports on standard output.

use std::path::Path;
use std::time::Instant;

use serde::de::IgnoredAny;
use wheelwright_core::budget::Cancel;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::reporeuse::scoring::PreparedDataset;
use wheelwright_core::syntax::parse_floor;

// The allocator the `wheelwright` binary uses, so the numbers are the command line's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [bundle, dataset, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: score_in_memory BUNDLE DATASET [ROUNDS]");
    };
    let rounds: usize = rest.first().map_or(Ok(3), |r| r.parse())?;
    let bundle = wheelwright_server::bundle::read_path(Path::new(bundle), COMMAND_LINE_LIMITS)?;
    let manifest = wheelwright_server::dataset::load_dir(Path::new(dataset))?;
    let files = wheelwright_server::dataset::repository_sources(
        &manifest,
        &wheelwright_server::dataset::default_cache_dir(),
        Path::new("python3"),
    )?;
    let run = bundle.to_run(&manifest);
    let dataset = manifest.to_score_dataset(files);
    let submissions: Vec<&str> = run
        .chains
        .values()
        .flat_map(|c| &c.turns)
        .filter_map(|t| t.submission.as_deref())
        .collect();
    let trajectories: Vec<&str> = run
        .chains
        .values()
        .flat_map(|c| &c.turns)
        .filter_map(|t| t.trajectory.as_ref()?.as_str())
        .collect();
    let cancel = Cancel::never();
    let started = Instant::now();
    let prepared = PreparedDataset::new(&dataset, &cancel)?;
    let index_s = started.elapsed().as_secs_f64();

    let (mut floor_s, mut convert_s, mut json_s, mut score_s) =
        (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    let mut nodes = 0;
    for _ in 0..rounds {
        let started = Instant::now();
        nodes = submissions.iter().map(|s| parse_floor(s)).sum::<usize>();
        floor_s = floor_s.min(started.elapsed().as_secs_f64());

        let started = Instant::now();
        for text in &submissions {
            std::hint::black_box(wheelwright_core::syntax::parse(text));
        }
        convert_s = convert_s.min(started.elapsed().as_secs_f64());

        let started = Instant::now();
        for text in &trajectories {
            serde_json::from_str::<IgnoredAny>(text)?;
        }
        json_s = json_s.min(started.elapsed().as_secs_f64());

        let started = Instant::now();
        let mut scoring = prepared.chain_by_chain();
        for (id, chain) in &run.chains {
            scoring.add(id, chain, &cancel)?;
        }
        let report = scoring.finish(&cancel)?;
        score_s = score_s.min(started.elapsed().as_secs_f64());
        std::hint::black_box(report);
    }
    let bytes: usize = submissions.iter().map(|s| s.len()).sum();
    let json_bytes: usize = trajectories.iter().map(|s| s.len()).sum();
    println!(
        "{}",
        serde_json::json!({
            "turns": dataset.turn_count(),
            "submissions": submissions.len(),
            "submission_bytes": bytes,
            "nodes": nodes,
            "trajectories": trajectories.len(),
            "trajectory_bytes": json_bytes,
            "rounds": rounds,
            "index_s": round(index_s),
            "parse_floor_s": round(floor_s),
            "parse_and_convert_s": round(convert_s),
            "json_floor_s": round(json_s),
            "score_s": round(score_s),
            "score_over_parse_floor": round(score_s / floor_s),
            "score_over_both_floors": round(score_s / (floor_s + json_s)),
        })
    );
    Ok(())
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
