//! `wheelwright score`: a run bundle scored against a dataset (RepoReuse) on this machine, with a progress bar and, on request, where the time went.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use wheelwright_core::budget::Cancel;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::present::chart::{TurnSeries, turn_charts};
use wheelwright_core::present::plot::{Frame, line_svg};
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, check_made_on};
use wheelwright_core::reporeuse::metrics::run::COLUMNS;
use wheelwright_core::reporeuse::scoring::{Phase, Progress, RunReport, ScoreError, score_chains};

use super::io::{emit, print_report, read_dataset};

/// Where the time of `wheelwright score` went, in seconds (`--timings`).
#[derive(Clone, Copy, Debug, serde::Serialize)]
struct Timings {
    /// Opening the bundle (listing and counting its entries, reading its metadata) and
    /// reading the dataset (with its repository).
    read: f64,
    /// Indexing the repositories (W0).
    index: f64,
    /// Reading the bundle's turns and scoring them (code and trajectories): the next chain
    /// is read while one is scored.
    score: f64,
    /// Aggregating the chains into the overall row and series.
    aggregate: f64,
    /// All of it, from the start of reading to the report.
    total: f64,
}

/// The `--json --timings` output: the report with its timings beside.
#[derive(serde::Serialize)]
struct TimedReport<'a> {
    #[serde(flatten)]
    report: &'a RunReport,
    timings: Timings,
}

/// `wheelwright score RUN --dataset DIR`: the run scored, its report as tables or JSON, with
/// `--timings` where the time went and with `--plots` its per-turn charts as SVG files.
pub(super) fn run(
    run: &Path,
    dataset: &Path,
    workdir: Option<&str>,
    json: bool,
    timings: bool,
    plots: Option<&Path>,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let unusable = || format!("{} is not a usable run bundle", run.display());
    // Opened (listed, counted, its metadata read) before the dataset is loaded: the bundle's
    // own errors (not a bundle, a FIFO, too large) come at once. Its turns are read while
    // the chains are scored, a chain at a time, so a paper-size run is never held whole.
    let (metadata, turns) =
        crate::bundle::stream_path(run, COMMAND_LINE_LIMITS).with_context(unusable)?;
    let (manifest, files) = read_dataset(dataset, workdir)?;
    check_made_on(&metadata, &manifest)
        .with_context(|| format!("{} does not fit the dataset", run.display()))?;
    let dataset = manifest.to_score_dataset(files);
    let read = Instant::now();
    let total = dataset.turn_count();
    let bar = if total >= PROGRESS_MIN_TURNS && std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("scoring {bar:40} {pos}/{len} turns, {eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    // Core has no clock: the phases are timed where its progress reports change phase.
    let (mut indexed, mut scored) = (None, None);
    let chains = RepoReuseBundle::chains(&manifest, turns);
    let report = score_chains(
        &dataset,
        chains,
        &mut |p: Progress| {
            match p.phase {
                Phase::Scoring => {
                    indexed.get_or_insert_with(Instant::now);
                }
                Phase::Aggregating => {
                    scored.get_or_insert_with(Instant::now);
                }
            }
            bar.set_position(p.turns_done as u64);
        },
        &Cancel::never(),
    );
    let done = Instant::now();
    bar.finish_and_clear();
    let report = match report {
        Ok(report) => report,
        Err(ScoreError::Bundle(e)) => return Err(anyhow::Error::new(e).context(unusable())),
        Err(e) => return Err(e.into()),
    };
    if let Some(dir) = plots {
        let written = write_plots(dir, &metadata.model, &report)?;
        eprintln!("plots: {} charts in {}", written.len(), dir.display());
    }
    if !timings {
        return emit(json, &report, print_report);
    }
    let indexed = indexed.unwrap_or(done);
    let scored = scored.unwrap_or(done);
    let timings = Timings {
        read: (read - start).as_secs_f64(),
        index: (indexed - read).as_secs_f64(),
        score: (scored - indexed).as_secs_f64(),
        aggregate: (done - scored).as_secs_f64(),
        total: (done - start).as_secs_f64(),
    };
    eprintln!(
        "timings: read {:.3} s, index {:.3} s, score {:.3} s, aggregate {:.3} s, total {:.3} s",
        timings.read, timings.index, timings.score, timings.aggregate, timings.total
    );
    let timed = TimedReport {
        report: &report,
        timings,
    };
    emit(json, &timed, |out, timed| print_report(out, timed.report))
}

/// The run page's per-turn charts of `report` as SVG files in `dir` (made if missing), one
/// per column with a value, named `turns-COLUMN.svg`, the series named after the `model`;
/// returns their paths.
fn write_plots(dir: &Path, model: &str, report: &RunReport) -> anyhow::Result<Vec<PathBuf>> {
    /// A file's plot area: bigger than a page's, which the browser scales to fit.
    const SIZE: (u32, u32) = (640, 360);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let series: TurnSeries = COLUMNS
        .iter()
        .filter_map(|c| Some(((*c).to_owned(), report.series.get(c)?.clone())))
        .collect();
    turn_charts(&COLUMNS, &[(model.to_owned(), series)])
        .iter()
        .map(|chart| {
            let path = dir.join(format!("turns-{}.svg", chart.metric));
            let svg = line_svg(chart, SIZE, Frame::File)?;
            std::fs::write(&path, svg)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(path)
        })
        .collect()
}

/// Inputs with fewer turns than this score too fast to need a progress bar.
const PROGRESS_MIN_TURNS: usize = 200;
