//! SchrodingerRepo's run actions end to end: from the published results to the page, a real run's folder (twelve gemini-3-pro trajectories and their SWE-bench reports) read in the browser with nothing sent, its numbers those core reads from the same folder, a baseline's files added and the shift drawn, a folder without a run refused; screenshots in both themes at 1280 and 390 px.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::{Client, Locator};
use serde_json::{Value, json};
use wheelwright_core::metric::format_thousands;
use wheelwright_core::schrodinger::action_mix::CATEGORIES;
use wheelwright_core::schrodinger::run_actions::{RunActions, RunReader};
use wheelwright_tests::{
    Chromedriver, Scheme, Server, api_requests, assert_fits, screenshot, wait_for, workspace_root,
};

/// The vendored real run.
fn real_run() -> PathBuf {
    workspace_root().join("core/tests/fixtures/real/gemini-3-pro")
}

/// A small hand-made run (two instances, a summary report), as the baseline.
fn small_run() -> PathBuf {
    workspace_root().join("core/tests/fixtures/schrodinger/runs/summary")
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("a run folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The run core reads from `dir`, as the command line reads it.
fn read(dir: &Path) -> RunActions {
    let mut reader = RunReader::new();
    for path in files_under(dir) {
        let name = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        reader.add(&name, &std::fs::read(&path).unwrap());
    }
    reader.finish()
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}%"))
}

/// What the page shows of the run: its summary row and its bar of each category.
const SHOWN: &str = "const row = document.querySelector('#actions-summary tr[data-side=run]');
if (!row) { return null; }
return {
  summary: Object.fromEntries([...row.querySelectorAll('td[data-column]')].map(c => [c.dataset.column, c.textContent.trim()])),
  mix: Object.fromEntries([...document.querySelectorAll('#action-mix .bar-row')].map(r => [r.dataset.category, r.querySelector('.series-0 .bar-value').textContent])),
};";

/// What [`SHOWN`] must read for `run`.
fn expected(run: &RunActions) -> Value {
    let mix: serde_json::Map<String, Value> = CATEGORIES
        .iter()
        .map(|c| {
            (
                c.name().to_owned(),
                json!(percent(run.mix.shares[c].value())),
            )
        })
        .collect();
    json!({
        "summary": {
            "instances": run.instances.len().to_string(),
            "resolved": run.resolved.to_string(),
            "pass_at_1": percent(run.pass_at_1.value()),
            "mean_actions": format!("{:.1}", run.mix.mean_actions.value().unwrap()),
            "input_tokens": format_thousands(run.tokens.input.value().unwrap()),
            "output_tokens": format_thousands(run.tokens.output.value().unwrap()),
        },
        "mix": mix,
    })
}

/// Gives `paths` to the page's file input `input` once it is there, as choosing them in
/// the dialog does.
async fn choose(client: &Client, input: &str, paths: &[PathBuf]) -> anyhow::Result<()> {
    let paths: Vec<String> = paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css(input))
        .await?
        .send_keys(&paths.join("\n"))
        .await?;
    Ok(())
}

/// Reads the real run and the small baseline into the page, and waits for the shift.
async fn read_both(client: &Client, run: &RunActions) -> anyhow::Result<()> {
    choose(client, "#run-folder", &[real_run()]).await?;
    wait_for(client, SHOWN, &expected(run), Duration::from_secs(60)).await?;
    choose(client, "#baseline-files", &files_under(&small_run())).await?;
    client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css("#actions-shift"))
        .await?;
    Ok(())
}

#[tokio::test]
async fn a_real_run_is_read_in_the_browser_and_shifts_against_its_baseline() -> anyhow::Result<()> {
    let test = "a_real_run_is_read_in_the_browser_and_shifts_against_its_baseline";
    let run = read(&real_run());
    let baseline = read(&small_run());
    assert_eq!((run.instances.len(), run.resolved), (12, 4));
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        // From the published results to the page.
        client.goto(&server.url("/published/schrodinger")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#actions-link"))
            .await?
            .click()
            .await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#run-folder"))
            .await?;
        screenshot(&client, test, "actions-empty.png").await?;
        client
            .execute("performance.clearResourceTimings();", vec![])
            .await?;

        // A folder without a run: refused, saying what to pick.
        let empty = tempfile::tempdir()?;
        std::fs::write(empty.path().join("notes.txt"), "no run here")?;
        choose(&client, "#run-folder", &[empty.path().to_owned()]).await?;
        let error = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#run-error"))
            .await?
            .text()
            .await?;
        assert!(error.contains("no .json or .json.gz file"), "{error}");

        // The real run, then the baseline: the numbers core reads, and nothing sent.
        read_both(&client, &run).await?;
        assert_eq!(api_requests(&client).await?, Vec::<String>::new());
        let shift = client
            .find(Locator::Css("#actions-shift"))
            .await?
            .text()
            .await?;
        let change = run.pass_at_1.value().unwrap() - baseline.pass_at_1.value().unwrap();
        assert!(
            shift.contains(&format!("Pass@1 {change:+.1} points")),
            "{shift}"
        );
        let bars = client
            .execute(
                "return document.querySelectorAll('#additional-actions .bar-row').length;",
                vec![],
            )
            .await?;
        assert_eq!(bars, json!(CATEGORIES.len()));
        screenshot(&client, test, "actions.png").await?;

        client.set_window_size(390, 844).await?;
        screenshot(&client, test, "actions-390.png").await?;
        assert_fits(&client, 390).await?;
        client
            .execute(
                "document.getElementById('action-mix').scrollIntoView();",
                vec![],
            )
            .await?;
        screenshot(&client, test, "actions-charts-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;

    let dark_profile = tempfile::tempdir()?;
    let dark = driver
        .browser_with(dark_profile.path(), Scheme::Dark)
        .await?;
    let dark_result = async {
        dark.goto(&server.url("/schrodinger/actions")).await?;
        read_both(&dark, &run).await?;
        screenshot(&dark, test, "actions-dark.png").await?;
        dark.set_window_size(390, 844).await?;
        screenshot(&dark, test, "actions-dark-390.png").await?;
        assert_fits(&dark, 390).await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}
