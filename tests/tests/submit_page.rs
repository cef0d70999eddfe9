//! Submitting a run from the page: each spelling of a bundle (a folder, a zip, JSON Lines)
//! read and scored in the browser with nothing sent, then submitted; the server's scores
//! agree with the browser's, the run appears, its hidden tests are queued; a broken bundle
//! is refused in the page, naming the entry, with no request made. A run made by `wheelwright
//! run` (a scripted agent over the whole dataset) is accepted as it comes.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use fantoccini::{Client, Locator};
use serde_json::Value;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;
use wheelwright_tests::{
    Chromedriver, Server, api, api_requests, screenshot, wait_for, workspace_root,
};

/// The shipped dataset's reference solutions as an agent's run, every turn with a real
/// trajectory (the twelve vendored Gemini 3 Pro ones, cycled).
fn bundle() -> anyhow::Result<RepoReuseBundle> {
    let dataset = wheelwright_server::dataset::load_dir(
        &workspace_root().join("datasets/reporeuse-networkx"),
    )?;
    let mut bundle = RepoReuseBundle::reference(&dataset);
    bundle.metadata.model = "submit-page-model".to_owned();
    bundle.metadata.harness = "mini-SWE-agent".to_owned();
    bundle.metadata.memory = "interface".to_owned();
    bundle.metadata.notes = Some("Submitted from the page by the end-to-end test.".to_owned());
    let dir = workspace_root().join("core/tests/fixtures/real/gemini-3-pro");
    let mut trajectories = Vec::new();
    // The trajectories only: their reports are in `logs/` beside them.
    let mut paths: Vec<_> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()?;
    paths.retain(|p| p.to_string_lossy().ends_with(".traj.json.gz"));
    paths.sort();
    for path in paths {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&path)?),
            &mut text,
        )?;
        trajectories.push(text);
    }
    for (i, prediction) in bundle.predictions.values_mut().enumerate() {
        prediction.trajectory = Some(trajectories[i % trajectories.len()].clone());
    }
    Ok(bundle)
}

/// Writes `bundle` as a folder, a zip of that folder and JSON Lines under `dir`.
fn spellings(bundle: &RepoReuseBundle, dir: &Path) -> anyhow::Result<[std::path::PathBuf; 3]> {
    use std::io::Write;
    let folder = dir.join("my-run");
    let zip_path = dir.join("my-run.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path)?);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in bundle.to_files() {
        let file = folder.join(&path);
        std::fs::create_dir_all(file.parent().context("a parent")?)?;
        std::fs::write(&file, &bytes)?;
        zip.start_file(format!("my-run/{path}"), options)?;
        zip.write_all(&bytes)?;
    }
    zip.finish()?;
    let jsonl = dir.join("my-run.jsonl");
    std::fs::write(&jsonl, bundle.to_jsonl())?;
    Ok([folder, zip_path, jsonl])
}

/// Gives `path` to the page's file input `input` (as choosing it in the dialog does).
async fn choose(client: &Client, input: &str, path: &Path) -> anyhow::Result<()> {
    client
        .find(Locator::Css(input))
        .await?
        .send_keys(&path.to_string_lossy())
        .await?;
    Ok(())
}

/// Waits until `selector` exists, and returns its text.
async fn text_of(client: &Client, selector: &str) -> anyhow::Result<String> {
    let element = client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(selector))
        .await
        .with_context(|| format!("waiting for {selector}"))?;
    Ok(element.text().await?)
}

/// Waits until the page shows a row for each of the dataset's 20 turns.
async fn all_turns_shown(client: &Client) -> anyhow::Result<()> {
    wait_for(
        client,
        "return document.querySelectorAll('#turns tr.turn-row').length;",
        &Value::from(20),
        Duration::from_secs(10),
    )
    .await
}

/// Presses "Submit to the server", checks that the server's scores are the page's, and
/// returns the link to the stored run.
async fn submit(client: &Client) -> anyhow::Result<String> {
    client
        .find(Locator::Css("#submit-run"))
        .await?
        .click()
        .await?;
    let verdict = text_of(client, "#server-agrees").await?;
    assert!(verdict.contains("identical"), "{verdict}");
    client
        .find(Locator::Css("#stored-run"))
        .await?
        .attr("href")
        .await?
        .context("a link to the stored run")
}

/// The overall row as the page shows it: column -> text.
async fn page_overall(client: &Client) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            "return Object.fromEntries([...document.querySelectorAll('#overall td[data-column]')]
               .map(c => [c.dataset.column, c.textContent.trim()]));",
            vec![],
        )
        .await?)
}

#[tokio::test]
async fn a_bundle_is_scored_in_the_browser_then_submitted_and_the_server_agrees()
-> anyhow::Result<()> {
    let test = "a_bundle_is_scored_in_the_browser_then_submitted_and_the_server_agrees";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let files = tempfile::tempdir()?;
    let bundle = bundle()?;
    let [folder, zip, jsonl] = spellings(&bundle, files.path())?;
    // A bundle whose second line names one file twice.
    let broken = files.path().join("broken.jsonl");
    let first = bundle
        .to_jsonl()
        .lines()
        .next()
        .context("metadata")?
        .to_owned();
    std::fs::write(
        &broken,
        format!(
            "{first}\n{{\"instance_id\": \"road-audit/turn-1\", \"files\": {{\"a.py\": \"1\", \"a.py\": \"2\"}}}}\n"
        ),
    )?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let runs_before = api(&server, "/api/v1/runs").await?["total"].clone();
        client.goto(&server.url("/")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::LinkText("Submit"))
            .await?
            .click()
            .await?;
        text_of(&client, "#bundle-file").await?;
        screenshot(&client, test, "submit-empty.png").await?;

        // A broken bundle: the page names the turn and what is wrong, and asks nothing.
        choose(&client, "#bundle-file", &broken).await?;
        let error = text_of(&client, "#bundle-error").await?;
        assert!(
            error.contains("line 2") && error.contains("\"a.py\" twice"),
            "the message names the entry and what is wrong: {error}"
        );
        assert_eq!(api_requests(&client).await?, Vec::<String>::new());
        screenshot(&client, test, "submit-broken.png").await?;

        // Each spelling: scored in the browser with nothing sent but the dataset's kit.
        let mut stored: Option<String> = None;
        for (n, (input, path)) in [
            ("#bundle-folder", &folder),
            ("#bundle-file", &zip),
            ("#bundle-file", &jsonl),
        ]
        .into_iter()
        .enumerate()
        {
            // Only what this spelling makes the page ask for counts.
            client
                .execute("performance.clearResourceTimings();", vec![])
                .await?;
            choose(&client, input, path).await?;
            wait_for(
                &client,
                "return document.querySelector('#local-state') !== null && document.querySelector('#server-agrees') === null;",
                &Value::Bool(true),
                Duration::from_secs(60),
            )
            .await?;
            let state = text_of(&client, "#local-state").await?;
            assert!(
                state.contains("Scored in your browser, not submitted"),
                "{state}"
            );
            let requests = api_requests(&client).await?;
            // Nothing about runs: the page asked for the dataset's kit and saved index at
            // most (the closed progress stream of the previous submission is recorded when
            // it closes).
            assert!(
                requests.iter().all(|r| r.ends_with("/scoring")
                    || r.ends_with("/scoring/index")
                    || r.starts_with("/api/v1/jobs/")),
                "nothing but the dataset's kit and index was asked for: {requests:?}"
            );
            // The page loaded the server's saved index rather than parsing the repository.
            let index = client
                .execute(
                    "return document.querySelector('#local-state').dataset.index;",
                    vec![],
                )
                .await?;
            assert_eq!(index, "saved", "{state}");
            // Nothing stored by scoring in the browser: the runs are the baselines and the
            // one this test submitted first.
            let expected = runs_before.as_i64().context("a count")? + i64::from(stored.is_some());
            assert_eq!(api(&server, "/api/v1/runs").await?["total"], expected);
            all_turns_shown(&client).await?;
            eprintln!("{}: {state}", path.display());
            if n == 0 {
                screenshot(&client, test, "submit-scored.png").await?;
                // A turn's case, from the browser's own result.
                client
                    .find(Locator::Css(
                        "#turns tr.turn-row[data-chain='road-audit'][data-turn='2'] a.case-link",
                    ))
                    .await?
                    .click()
                    .await?;
                text_of(&client, "#targets").await?;
                assert_eq!(client.current_url().await?.path(), "/submit/road-audit/2");
                text_of(&client, "#steps").await?;
                screenshot(&client, test, "submit-case.png").await?;
                client.back().await?;
                text_of(&client, "#local-state").await?;
            }
            let local = page_overall(&client).await?;

            // Submitted: the server scores it again and agrees; the first spelling is
            // stored, the others are the same bundle, stored before.
            let link = submit(&client).await?;
            match &stored {
                None => {
                    assert!(
                        text_of(&client, "#submit-state")
                            .await?
                            .starts_with("Stored as")
                    );
                    stored = Some(link.clone());
                }
                Some(first) => {
                    assert_eq!(&link, first);
                    assert!(
                        text_of(&client, "#submit-state")
                            .await?
                            .contains("stored before")
                    );
                }
            }
            text_of(&client, "#test-progress").await?;
            let id = link.trim_start_matches("/runs/");
            let run = api(&server, &format!("/api/v1/runs/{id}")).await?;
            assert_eq!(run["model"], "submit-page-model");
            assert_eq!(run["origin"], "verified");
            // The page's overall row, scored here, is the stored run's.
            for (column, text) in local.as_object().context("overall")? {
                let score = &run["overall"][column];
                if let Some(value) = score["value"].as_f64() {
                    assert!(
                        text.as_str().is_some_and(|t| t
                            .parse::<f64>()
                            .is_ok_and(|v| (v - value).abs() < 0.051)),
                        "{column}: the page shows {text}, the server stored {score}"
                    );
                }
            }
            if n == 0 {
                screenshot(&client, test, "submit-submitted.png").await?;
                client.set_window_size(390, 900).await?;
                screenshot(&client, test, "submit-submitted-390.png").await?;
                client.set_window_size(1280, 1000).await?;
            }
        }
        let link = stored.context("a stored run")?;
        client.goto(&server.url(&link)).await?;
        text_of(&client, "#overall").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// `wheelwright run` of the scripted agent (`server/tests/fixtures/run/scripted-agent.sh`)
/// over the shipped dataset into `dir`: every turn's reference solution but road-audit's
/// second, where it writes nothing. The path of the run's `run.jsonl.gz`.
async fn driven_run(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    use clap::Parser;
    let dataset = workspace_root().join("datasets/reporeuse-networkx");
    let answers = dir.join("answers");
    for chain in [
        "road-audit",
        "social-circles",
        "build-graph",
        "pipeline-capacity",
    ] {
        std::fs::create_dir_all(answers.join(chain))?;
        for t in 1..=5 {
            if (chain, t) != ("road-audit", 2) {
                std::fs::copy(
                    dataset.join(format!("chains/{chain}/turn-{t}/reference.py")),
                    answers.join(format!("{chain}/turn-{t}.py")),
                )?;
            }
        }
    }
    let agent = format!(
        "SCRIPTED_AGENT_LOG='{}' SCRIPTED_AGENT_ANSWERS='{}' '{}'",
        dir.join("agent.log").display(),
        answers.display(),
        workspace_root()
            .join("server/tests/fixtures/run/scripted-agent.sh")
            .display()
    );
    let out = dir.join("run");
    let cli = wheelwright_server::cli::Cli::try_parse_from([
        "wheelwright",
        "run",
        "--dataset",
        &dataset.to_string_lossy(),
        "--agent",
        &agent,
        "--out",
        &out.to_string_lossy(),
        "--model",
        "scripted-agent-model",
        "--harness",
        "scripted-agent",
        "--memory",
        "interface",
        "--jobs",
        "2",
    ])?;
    wheelwright_server::cli::execute(cli).await?;
    Ok(out.join("run.jsonl.gz"))
}

#[tokio::test]
async fn a_run_made_by_wheelwright_run_is_accepted_as_it_comes() -> anyhow::Result<()> {
    let test = "a_run_made_by_wheelwright_run_is_accepted_as_it_comes";
    let files = tempfile::tempdir()?;
    let run = driven_run(files.path()).await?;
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/submit")).await?;
        text_of(&client, "#bundle-file").await?;
        choose(&client, "#bundle-file", &run).await?;
        let state = text_of(&client, "#local-state").await?;
        assert!(
            state.contains("Scored in your browser, not submitted"),
            "{state}"
        );
        all_turns_shown(&client).await?;
        let local = page_overall(&client).await?;
        screenshot(&client, test, "submit-driven-run.png").await?;
        let link = submit(&client).await?;
        let id = link.trim_start_matches("/runs/");
        let stored = api(&server, &format!("/api/v1/runs/{id}")).await?;
        assert_eq!(stored["model"], "scripted-agent-model");
        assert_eq!(stored["origin"], "verified");
        // The turn the agent left no file in is a missing submission, not a lost turn.
        let turns = api(&server, &format!("/api/v1/runs/{id}/turns?limit=100")).await?;
        assert_eq!(turns["total"], 20);
        let missing: Vec<String> = turns["items"]
            .as_array()
            .context("turns")?
            .iter()
            .filter(|t| t["submission"] == "missing")
            .map(|t| format!("{}/{}", t["chain"].as_str().unwrap_or("?"), t["turn"]))
            .collect();
        assert_eq!(missing, ["road-audit/2"]);
        assert_eq!(
            local["reuse_repo"],
            Value::from("95.0"),
            "the page's overall reuse_repo: {local}"
        );
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// The paper-scale run the server's tests make (`server/tests/common/paper_scale.rs`).
#[path = "../../server/tests/common/paper_scale.rs"]
mod paper_scale;

/// A generated 750-turn run (twice a paper run, every other turn with a real trajectory: a
/// paper run's 375 trajectories) dropped into the page as a `.jsonl`: scored in the
/// browser, sent gzip-compressed within the upload limit, and the server's scores, stored
/// and read back, are the browser's to the last bit (the page compares every turn's row,
/// the run's row and its series exactly).
#[tokio::test]
async fn a_750_turn_run_is_scored_in_the_browser_and_the_server_agrees_to_the_last_bit()
-> anyhow::Result<()> {
    let test = "a_750_turn_run_is_scored_in_the_browser_and_the_server_agrees_to_the_last_bit";
    let dir = tempfile::tempdir()?;
    let datasets = dir.path().join("datasets");
    let dataset = datasets.join("paper-scale-networkx");
    let turns = paper_scale::write_dataset(&dataset, paper_scale::CHAINS);
    assert_eq!(turns.len(), 750);
    let jsonl = dir.path().join("run.jsonl");
    std::fs::write(&jsonl, paper_scale::write_bundle(&dataset, &turns, 2))?;
    let size = std::fs::metadata(&jsonl)?.len();
    eprintln!("the 750-turn run with 375 trajectories: {size} bytes of JSON Lines");
    let server = Server::start_with_datasets(&datasets).await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/submit")).await?;
        text_of(&client, "#bundle-file").await?;
        choose(&client, "#bundle-file", &jsonl).await?;
        let state = text_of(&client, "#local-state[data-total-ms]").await?;
        assert!(state.contains("750 turns scored and shown"), "{state}");
        screenshot(&client, test, "submit-750-scored.png").await?;
        let href = submit(&client).await?;
        assert!(href.starts_with("/runs/"), "{href}");
        screenshot(&client, test, "submit-750-agrees.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// A bundle over a limit is refused before it is read whole or scored, with the limit and
/// how to split the run, and nothing asked of the server: a `.jsonl.gz` one byte over the
/// 96 MiB an upload may be (it is sent as it is, so its size alone decides).
#[tokio::test]
async fn a_bundle_over_the_upload_limit_is_refused_before_scoring() -> anyhow::Result<()> {
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let files = tempfile::tempdir()?;
    let big = files.path().join("big.jsonl.gz");
    // gzip's magic number, then zeros.
    let mut bytes = vec![0u8; usize::try_from(wheelwright_core::bundle::UPLOAD_BYTES)? + 1];
    bytes[..2].copy_from_slice(&[0x1f, 0x8b]);
    std::fs::write(&big, bytes)?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/submit")).await?;
        text_of(&client, "#bundle-file").await?;
        client
            .execute("performance.clearResourceTimings();", vec![])
            .await?;
        choose(&client, "#bundle-file", &big).await?;
        let error = text_of(&client, "#bundle-error").await?;
        for words in [
            "100663297 bytes as sent",
            "larger than the upload limit of 100663296 bytes",
            "bundles of whole chains",
        ] {
            assert!(error.contains(words), "{words:?} in {error}");
        }
        assert_eq!(api_requests(&client).await?, Vec::<String>::new());
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The browser benchmark of `/submit` (`scripts/bench/browser-scoring`, numbers in
/// `docs/performance.md`): the shipped dataset's 20-turn reference run with real
/// trajectories, dropped into a fresh page `ROUNDS` times (a new browser profile each time,
/// so the dataset is fetched cold). What the page measured itself (`#local-state`'s data):
/// fetching the scoring kit and saved index, loading the index (or, `built`, indexing the
/// repository in wasm), scoring the run as the user waits for it (from the start of
/// scoring to the view shown: the frames between chains and building the view included),
/// the scorer's own work of it (`compute`), from the drop to the view shown (`total`), the
/// slowest chain.
#[tokio::test]
#[ignore = "a benchmark: scripts/bench/browser-scoring runs it"]
async fn bench_scoring_in_the_browser() -> anyhow::Result<()> {
    const ROUNDS: usize = 7;
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let files = tempfile::tempdir()?;
    let [_, _, jsonl] = spellings(&bundle()?, files.path())?;
    let mut measured: Vec<Value> = Vec::new();
    for _ in 0..ROUNDS {
        let profile = tempfile::tempdir()?;
        let client = driver.browser(profile.path()).await?;
        let round = async {
            client.goto(&server.url("/submit")).await?;
            client
                .wait()
                .at_most(Duration::from_secs(30))
                .for_element(Locator::Css("#bundle-file"))
                .await?;
            choose(&client, "#bundle-file", &jsonl).await?;
            // The waits are measured once the view is shown, a frame after it appears.
            text_of(&client, "#local-state[data-total-ms]").await?;
            let numbers = client
                .execute(
                    "const d = document.querySelector('#local-state').dataset;
                     return {fetch: +d.fetchMs, index: +d.indexMs, score: +d.scoreMs,
                             compute: +d.computeMs, total: +d.totalMs,
                             slowest_chain: +d.slowestChainMs, turns: +d.turns, how: d.index};",
                    vec![],
                )
                .await?;
            anyhow::Ok(numbers)
        }
        .await;
        client.close().await?;
        measured.push(round?);
    }
    server.stop().await?;
    let column =
        |key: &str| -> Vec<f64> { measured.iter().filter_map(|m| m[key].as_f64()).collect() };
    for key in [
        "fetch",
        "index",
        "score",
        "compute",
        "total",
        "slowest_chain",
    ] {
        let values = column(key);
        let all: Vec<String> = values.iter().map(|v| format!("{v:.0}")).collect();
        println!(
            "{key:>13}: median {:.0} ms  (all: {})",
            median(values.clone()),
            all.join(", ")
        );
    }
    let fetch_and_index: Vec<f64> = measured
        .iter()
        .filter_map(|m| Some(m["fetch"].as_f64()? + m["index"].as_f64()?))
        .collect();
    println!("fetch + index: median {:.0} ms", median(fetch_and_index));
    println!("turns scored: {}", measured[0]["turns"]);
    let how: Vec<&str> = measured.iter().filter_map(|m| m["how"].as_str()).collect();
    println!("index (saved: loaded from the server's; built: parsed here): {how:?}");
    Ok(())
}
