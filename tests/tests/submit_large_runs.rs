//! Large runs on the submit page: a partial run against a paper-scale dataset drawn a page at a time, any turn found, and the browser's frames while reading and drawing.
//!
//! The workload is `scripts/bench/paper-scale-gen.py`'s: chains of five turns copied from
//! the shipped dataset, submissions real networkx modules, a partial bundle (the dataset's
//! first turns only), so the page has a row for every turn of the dataset and most of a
//! long run's chains can have no submission at all.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use fantoccini::{Client, Locator};
use serde_json::Value;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;
use wheelwright_tests::{
    Chromedriver, Scheme, Server, assert_fits, screenshot, wait_for, workspace_root,
};

/// What `paper-scale-gen.py` wrote: the dataset's folder, the bundle's, its own summary.
struct Workload {
    dataset: PathBuf,
    bundle: PathBuf,
    summary: Value,
}

/// Generates a dataset of `turns` turns and a bundle of its first `bundle_turns` under
/// `out`, `share` of the turns with a real trajectory (`auto`: what fits an upload).
fn generate(
    out: &Path,
    turns: usize,
    bundle_turns: usize,
    share: &str,
) -> anyhow::Result<Workload> {
    // The shipped dataset's wheel, downloaded the first time (a fresh machine may run this
    // test before any other has fetched it).
    let wheel = wheelwright_server::dataset::pypi::wheel(
        &wheelwright_core::reporeuse::dataset::PypiRepository {
            pypi: "networkx".to_owned(),
            version: "3.4.2".to_owned(),
            import: "networkx".to_owned(),
        },
        &wheelwright_server::dataset::default_cache_dir(),
        Path::new("python3"),
    )?;
    let root = workspace_root();
    let shared = root.join("../shared/data/real");
    if !shared.is_dir() {
        // A user's clone: the generator takes the trajectories vendored in the repository.
        eprintln!(
            "{} is absent: using the 12 vendored trajectories",
            shared.display()
        );
    }
    let output = std::process::Command::new("python3")
        .arg(root.join("scripts/bench/paper-scale-gen.py"))
        .args(["--repo", &root.to_string_lossy()])
        .args(["--wheel", &wheel.to_string_lossy()])
        .args(["--shared", &shared.to_string_lossy()])
        .args(["--turns", &turns.to_string()])
        .args(["--bundle-turns", &bundle_turns.to_string()])
        .args(["--trajectory-share", share, "--limits", "upload"])
        .args(["--out", &out.to_string_lossy()])
        .output()
        .context("python3 runs scripts/bench/paper-scale-gen.py")?;
    if !output.status.success() {
        bail!(
            "paper-scale-gen.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(Workload {
        dataset: out.join("dataset"),
        bundle: out.join("bundle"),
        summary: serde_json::from_slice(&output.stdout)?,
    })
}

/// A directory's files as (path relative to it, bytes).
fn files_of(root: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)?
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((relative, std::fs::read(&path)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The bundle folder as one JSON Lines file at `path`, each trajectory as its JSON value
/// in compact form (not as an escaped string: the file stays within an upload's limits).
fn write_jsonl(bundle: &Path, path: &Path) -> anyhow::Result<u64> {
    use std::io::Write;
    let bundle = RepoReuseBundle::from_files(files_of(bundle)?)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        out,
        "{}",
        serde_json::json!({ "metadata": bundle.metadata })
    )?;
    for (id, prediction) in &bundle.predictions {
        let trajectory = match &prediction.trajectory {
            Some(text) => serde_json::from_str::<Value>(text)?,
            None => Value::Null,
        };
        let mut line =
            serde_json::json!({ "instance_id": id.to_string(), "files": prediction.files });
        if !trajectory.is_null() {
            line["trajectory"] = trajectory;
        }
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// Gives `path` to the page's bundle file input, as choosing it in the dialog does.
async fn choose(client: &Client, path: &Path) -> anyhow::Result<()> {
    client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css("#bundle-file"))
        .await?
        .send_keys(&path.to_string_lossy())
        .await?;
    Ok(())
}

/// The text of `selector`, once it exists.
async fn text_of(client: &Client, selector: &str, wait: Duration) -> anyhow::Result<String> {
    let element = client
        .wait()
        .at_most(wait)
        .for_element(Locator::Css(selector))
        .await
        .with_context(|| format!("waiting for {selector}"))?;
    Ok(element.text().await?)
}

/// Waits until `#turns-shown` reads `text`.
async fn shown(client: &Client, text: &str) -> anyhow::Result<()> {
    wait_for(
        client,
        "const e = document.querySelector('#turns-shown'); return e ? e.textContent : null;",
        &Value::from(text),
        Duration::from_secs(10),
    )
    .await
}

/// Finds turn `turn` of `chain` with the table's finder; returns the marked row's
/// (chain, turn).
async fn find(client: &Client, chain: &str, turn: usize) -> anyhow::Result<(String, String)> {
    for (input, value) in [
        ("#find-chain", chain.to_owned()),
        ("#find-turn", turn.to_string()),
    ] {
        let field = client.find(Locator::Css(input)).await?;
        field.clear().await?;
        field.send_keys(&value).await?;
    }
    client.find(Locator::Css("#find-go")).await?.click().await?;
    let row = client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#turns tr.turn-row.found"))
        .await?;
    Ok((
        row.attr("data-chain").await?.unwrap_or_default(),
        row.attr("data-turn").await?.unwrap_or_default(),
    ))
}

/// The number of turn rows the table draws.
async fn rows_drawn(client: &Client) -> anyhow::Result<i64> {
    client
        .execute(
            "return document.querySelectorAll('#turns tr.turn-row').length;",
            vec![],
        )
        .await?
        .as_i64()
        .context("a count")
}

#[tokio::test]
async fn a_partial_run_against_a_large_dataset_is_drawn_a_page_at_a_time_and_any_turn_is_found()
-> anyhow::Result<()> {
    let test =
        "a_partial_run_against_a_large_dataset_is_drawn_a_page_at_a_time_and_any_turn_is_found";
    let work = tempfile::tempdir()?;
    // 60 chains of 5 turns; the bundle gives the first 30 (150 turns, no trajectories).
    let load = generate(&work.path().join("g"), 300, 150, "0")?;
    let jsonl = work.path().join("partial-run.jsonl");
    write_jsonl(&load.bundle, &jsonl)?;
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(load.dataset.join("dataset.json"))?)?;
    let chains: Vec<String> = serde_json::from_value(manifest["chains"].clone())?;
    let server = Server::start_with_datasets(&work.path().join("g")).await?;
    let driver = Chromedriver::start()?;
    let result = async {
        for scheme in [Scheme::Light, Scheme::Dark] {
            let profile = tempfile::tempdir()?;
            let client = driver.browser_with(profile.path(), scheme).await?;
            let round = async {
                let suffix = if scheme == Scheme::Dark { "-dark" } else { "" };
                client.goto(&server.url("/submit")).await?;
                choose(&client, &jsonl).await?;
                text_of(&client, "#local-state", Duration::from_secs(120)).await?;
                // 150 turn rows and one for the 30 chains without a submission: two pages.
                shown(&client, "Turns 1–100 of 300").await?;
                assert_eq!(rows_drawn(&client).await?, 100);
                client
                    .execute(
                        "document.querySelector('#turn-pages').previousElementSibling.scrollIntoView();",
                        vec![],
                    )
                    .await?;
                screenshot(&client, test, &format!("turn-pages{suffix}.png")).await?;

                // A turn beyond the first page, found by chain and number.
                let (chain, turn) = find(&client, &chains[24], 3).await?;
                assert_eq!((chain.as_str(), turn.as_str()), (chains[24].as_str(), "3"));
                shown(
                    &client,
                    "Turns 101–300 of 300 (150 without a submission in one row)",
                )
                .await?;
                let summary = text_of(&client, ".unsubmitted-row", Duration::from_secs(5)).await?;
                assert!(
                    summary.starts_with("30 chains (150 turns) with no submission: chains")
                        && summary.contains(&chains[30])
                        && summary.contains(&chains[59]),
                    "{summary}"
                );
                screenshot(&client, test, &format!("turn-pages-found{suffix}.png")).await?;
                client
                    .execute(
                        "document.querySelector('.unsubmitted-row').scrollIntoView({block: 'center'});",
                        vec![],
                    )
                    .await?;
                screenshot(&client, test, &format!("turn-pages-summary{suffix}.png")).await?;
                client.set_window_size(390, 900).await?;
                assert_fits(&client, 390).await?;
                screenshot(&client, test, &format!("turn-pages-found-390{suffix}.png")).await?;
                client.set_window_size(1280, 1000).await?;

                // A turn of a chain without a submission: its chains are listed in full.
                let (chain, turn) = find(&client, &chains[59], 5).await?;
                assert_eq!((chain.as_str(), turn.as_str()), (chains[59].as_str(), "5"));
                shown(&client, "Turns 201–300 of 300").await?;
                assert_eq!(rows_drawn(&client).await?, 100);
                // A turn the run does not have is named, not silently ignored.
                client
                    .find(Locator::Css("#find-turn"))
                    .await?
                    .clear()
                    .await?;
                client
                    .find(Locator::Css("#find-turn"))
                    .await?
                    .send_keys("6")
                    .await?;
                client.find(Locator::Css("#find-go")).await?.click().await?;
                let error = text_of(&client, "#find-error", Duration::from_secs(5)).await?;
                assert!(error.contains("no turn 6"), "{error}");

                // Back to the summary, and paging by the buttons.
                client
                    .find(Locator::Css("#list-unsubmitted"))
                    .await?
                    .click()
                    .await?;
                shown(&client, "Turns 1–100 of 300").await?;
                client
                    .find(Locator::Css("#turns-next-below"))
                    .await?
                    .click()
                    .await?;
                shown(
                    &client,
                    "Turns 101–300 of 300 (150 without a submission in one row)",
                )
                .await?;
                assert_eq!(rows_drawn(&client).await?, 50);
                client
                    .find(Locator::Css("#turns-first"))
                    .await?
                    .click()
                    .await?;
                shown(&client, "Turns 1–100 of 300").await?;
                // A row's case is the browser's own result, as on a one-page table.
                client
                    .find(Locator::Css("#turns-last"))
                    .await?
                    .click()
                    .await?;
                let link = client
                    .find(Locator::Css(&format!(
                        "#turns tr.turn-row[data-chain='{}'][data-turn='2'] a.case-link",
                        chains[25]
                    )))
                    .await?;
                link.click().await?;
                text_of(&client, "#targets", Duration::from_secs(30)).await?;
                assert_eq!(
                    client.current_url().await?.path(),
                    format!("/submit/{}/2", chains[25])
                );
                anyhow::Ok(())
            }
            .await;
            client.close().await?;
            round?;
        }
        anyhow::Ok(())
    }
    .await;
    server.stop().await?;
    result
}

/// Installed in the page before a bundle is chosen: records the gap between
/// consecutive animation frames (the longest, by the stage the page showed when the frame
/// came), long tasks (`PerformanceObserver`), and the largest JavaScript heap seen (the
/// wasm memory, which only grows, the page gives at the end).
const FRAME_RECORDER: &str = r#"
const r = { gaps: {}, over200: 0, frames: 0, longTasks: [], heap: 0, stages: [] };
window.__frames = r;
const stage = () => {
  if (document.querySelector('#turns-shown')) return 'drawn';
  if (document.querySelector('#local-state')) return 'drawing';
  const s = document.querySelector('#stage');
  const t = s ? s.textContent : '';
  if (t.startsWith('Reading')) return 'reading';
  if (t.startsWith('Fetching')) return 'fetching';
  if (t.startsWith('Indexing')) return 'indexing';
  if (t.startsWith('Scoring')) return 'scoring';
  return t ? 'other: ' + t.slice(0, 40) : 'idle';
};
let last = performance.now();
let lastStage = stage();
r.stages.push([lastStage, last]);
const frame = (now) => {
  const s = stage();
  const gap = now - last;
  r.frames += 1;
  if (gap > 200) r.over200 += 1;
  if (!(s in r.gaps) || gap > r.gaps[s][0]) r.gaps[s] = [gap, lastStage];
  if (s !== lastStage) { r.stages.push([s, now]); lastStage = s; }
  last = now;
  if (performance.memory) r.heap = Math.max(r.heap, performance.memory.usedJSHeapSize);
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) r.longTasks.push([e.startTime, e.duration, stage()]);
}).observe({ type: 'longtask', buffered: false });
"#;

/// The browser benchmark of a large run on `/submit` (`scripts/bench/browser-large-run`,
/// numbers in `docs/performance.md`, "Browser: a large run"): a dataset of 3,000 turns and
/// bundles of its first 750 and 2,000 turns, as much of them with real trajectories as an
/// upload allows, each dropped as JSON Lines into a fresh page; prints the longest gap
/// between animation frames by stage, the long tasks over 200 ms, and the largest heap.
#[tokio::test]
#[ignore = "a benchmark: scripts/bench/browser-large-run runs it"]
async fn bench_a_large_run_in_the_browser() -> anyhow::Result<()> {
    let sizes: Vec<usize> = std::env::var("BENCH_BUNDLE_TURNS")
        .unwrap_or_else(|_| "750 2000".to_owned())
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let work = tempfile::tempdir()?;
    let mut loads = Vec::new();
    for &n in &sizes {
        let load = generate(&work.path().join(format!("g{n}")), 3000, n, "auto")?;
        let jsonl = work.path().join(format!("run-{n}.jsonl"));
        let bytes = write_jsonl(&load.bundle, &jsonl)?;
        println!(
            "{n} turns: {} with trajectories, {:.1} MiB of JSON Lines",
            load.summary["trajectories"],
            bytes as f64 / f64::from(1 << 20)
        );
        std::fs::remove_dir_all(&load.bundle)?;
        loads.push((n, load, jsonl));
    }
    // One dataset serves every size (the generator writes the same one each time).
    let datasets = loads
        .first()
        .and_then(|(_, load, _)| load.dataset.parent())
        .context("a size")?
        .to_owned();
    let server = Server::start_with_datasets(&datasets).await?;
    let driver = Chromedriver::start()?;
    let mut failed = None;
    for (n, _, jsonl) in &loads {
        let profile = tempfile::tempdir()?;
        let client = driver.browser(profile.path()).await?;
        let round = async {
            client.goto(&server.url("/submit")).await?;
            text_of(&client, "#bundle-file", Duration::from_secs(30)).await?;
            client.execute(FRAME_RECORDER, vec![]).await?;
            choose(&client, jsonl).await?;
            text_of(&client, "#turns-shown", Duration::from_secs(900)).await?;
            // A second for the last frames to be counted.
            tokio::time::sleep(Duration::from_secs(1)).await;
            let mut frames = client.execute("return window.__frames;", vec![]).await?;
            frames["wasm"] = client
                .execute(
                    "return +document.querySelector('#turn-pages').dataset.wasmMemoryBytes;",
                    vec![],
                )
                .await?;
            let state = client
                .execute(
                    "const d = document.querySelector('#local-state').dataset;
                     return {fetch: +d.fetchMs, index: +d.indexMs, score: +d.scoreMs,
                             slowest_chain: +d.slowestChainMs, turns: +d.turns};",
                    vec![],
                )
                .await?;
            anyhow::Ok((frames, state))
        }
        .await;
        client.close().await?;
        match round {
            Ok((frames, state)) => report(*n, &frames, &state),
            Err(e) => {
                println!("{n} turns: failed: {e:#}");
                failed = Some(e);
            }
        }
    }
    server.stop().await?;
    failed.map_or(Ok(()), Err)
}

/// Prints what the page recorded for a run of `n` turns.
fn report(n: usize, frames: &Value, state: &Value) {
    println!("{n} turns of 3,000: {state}");
    let stages = frames["stages"].as_array().cloned().unwrap_or_default();
    let times: Vec<String> = stages
        .windows(2)
        .filter_map(|w| {
            Some(format!(
                "{} {:.0} ms",
                w[0][0].as_str()?,
                w[1][1].as_f64()? - w[0][1].as_f64()?
            ))
        })
        .collect();
    println!("  stages: {}", times.join(", "));
    if let Some(gaps) = frames["gaps"].as_object() {
        for (stage, gap) in gaps {
            println!(
                "  longest frame gap while {stage}: {:.0} ms (the frame before: {})",
                gap[0].as_f64().unwrap_or(f64::NAN),
                gap[1].as_str().unwrap_or("?")
            );
        }
    }
    let long: Vec<String> = frames["longTasks"]
        .as_array()
        .map(|tasks| {
            tasks
                .iter()
                .filter(|t| t[1].as_f64().is_some_and(|d| d > 200.0))
                .map(|t| format!("{:.0} ms ({})", t[1].as_f64().unwrap_or(0.0), t[2]))
                .collect()
        })
        .unwrap_or_default();
    let longest = frames["longTasks"]
        .as_array()
        .and_then(|tasks| tasks.iter().filter_map(|t| t[1].as_f64()).reduce(f64::max))
        .unwrap_or(0.0);
    println!(
        "  frames: {}, gaps over 200 ms: {}; longest long task {longest:.0} ms; over 200 ms: [{}]",
        frames["frames"],
        frames["over200"],
        long.join(", ")
    );
    let mib = |v: &Value| v.as_f64().unwrap_or(0.0) / f64::from(1 << 20);
    println!(
        "  largest JS heap (usedJSHeapSize): {:.0} MiB; wasm memory once scored: {:.0} MiB",
        mib(&frames["heap"]),
        mib(&frames["wasm"])
    );
}
