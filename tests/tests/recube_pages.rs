//! ReCUBE's pages end to end: from the leaderboard to a dataset's instances, an instance's page (its neighbourhood drawn as the API lays it out, its labelled tests, the four views with links into the repository's source), and a link followed; an uploaded run's page, its hidden tests run from the page in the sandbox, and an instance page showing the run's file; screenshots in both themes at 1280 and 390 px.

/// The hand-worked ReCUBE run the server's tests use (every instance but two passes everything).
#[path = "../../server/tests/common/recube.rs"]
#[allow(unreachable_pub)] // Public for the server's tests, which share it.
mod recube;

use std::time::Duration;

use fantoccini::Locator;
use serde_json::{Value, json};
use wheelwright_core::api::{RecubeDatasetDetail, RecubeInstanceDetail};
use wheelwright_tests::{Chromedriver, Scheme, Server, api, assert_fits, screenshot, wait_for};

const DATASET: &str = "/recube/datasets/recube-pypi/1";
const INSTANCE: &str = "/recube/datasets/recube-pypi/1/instances/click-parser";

/// What the instance page shows: drawn nodes (label, role, link) and edges, the tests
/// (kind, name), the callers' links.
const INSTANCE_SHOWN: &str = "return {
  nodes: [...document.querySelectorAll('#neighbourhood svg text.node')].map(t => [
    t.textContent.trim(),
    t.classList[1],
    t.closest('a') ? t.closest('a').getAttribute('href') : null,
  ]),
  edges: document.querySelectorAll('#neighbourhood svg g.edge line').length,
  undrawn: [...document.querySelectorAll('#neighbourhood svg text.node')]
    .filter(t => t.getBBox().width === 0).map(t => t.textContent),
  tests: [...document.querySelectorAll('#recube-tests tbody tr')].map(r => [
    r.cells[0].textContent.trim(), r.cells[1].textContent.trim(),
  ]),
  callers: [...document.querySelectorAll('#view-callers a')].map(a => a.getAttribute('href')),
};";

fn source_link(path: &str) -> String {
    format!(
        "{DATASET}/repositories/click/source?path={}",
        path.replace('/', "%2F")
    )
}

/// What [`INSTANCE_SHOWN`] must read, from the API's page.
fn expected(page: &RecubeInstanceDetail) -> anyhow::Result<Value> {
    let nodes: Vec<Value> = page
        .neighbourhood
        .nodes
        .iter()
        .map(|n| {
            let role = serde_json::to_value(n.role)?;
            let link = match (&n.path, role.as_str()) {
                (Some(path), Some(r)) if r != "target" => Some(source_link(path)),
                _ => None,
            };
            anyhow::Ok(json!([n.label, role, link]))
        })
        .collect::<Result<_, _>>()?;
    let mut tests: Vec<(String, String)> = page
        .tests
        .iter()
        .map(|t| {
            Ok((
                serde_json::to_value(t.kind)?
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
                t.name.clone(),
            ))
        })
        .collect::<Result<_, serde_json::Error>>()?;
    // External first, as the page orders them (stable within a kind).
    tests.sort_by_key(|(kind, _)| kind != "external");
    let callers: Vec<String> = page
        .context
        .callers
        .iter()
        .map(|c| source_link(&c.path))
        .collect();
    Ok(json!({
        "nodes": nodes,
        "edges": page.neighbourhood.edges.len(),
        "undrawn": [],
        "tests": tests,
        "callers": callers,
    }))
}

#[tokio::test]
async fn an_instance_page_draws_its_neighbourhood_and_links_into_the_source() -> anyhow::Result<()>
{
    let test = "an_instance_page_draws_its_neighbourhood_and_links_into_the_source";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let dataset: RecubeDatasetDetail =
        serde_json::from_value(api(&server, &format!("/api/v1{DATASET}")).await?)?;
    let page: RecubeInstanceDetail =
        serde_json::from_value(api(&server, &format!("/api/v1{INSTANCE}")).await?)?;
    let want = expected(&page)?;
    let result = async {
        // From ReCUBE's leaderboard to the dataset's instances.
        client.goto(&server.url("/leaderboard/recube")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#recube-datasets a"))
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            "return [...document.querySelectorAll('#recube-instances tbody tr td:first-child')].map(c => c.textContent.trim());",
            &json!(dataset.instances.iter().map(|i| i.id.clone()).collect::<Vec<_>>()),
            Duration::from_secs(30),
        )
        .await?;
        screenshot(&client, test, "dataset.png").await?;

        client.goto(&server.url(INSTANCE)).await?;
        wait_for(&client, INSTANCE_SHOWN, &want, Duration::from_secs(30)).await?;
        // click/parser.py has callers: the drawing is not empty, and the diff is there.
        assert!(page.context.callers.len() >= 3, "{:?}", page.context.callers);
        let diff = client.find(Locator::Css("#diff-summary")).await?.text().await?;
        assert!(diff.contains("lines"), "{diff}");
        screenshot(&client, test, "instance.png").await?;
        for (section, name) in [
            ("neighbourhood-section", "instance-top.png"),
            ("view-module", "instance-views.png"),
            ("recube-tests", "instance-tests.png"),
        ] {
            client
                .execute(
                    "document.getElementById(arguments[0]).scrollIntoView();",
                    vec![json!(section)],
                )
                .await?;
            screenshot(&client, test, name).await?;
        }

        // A caller's link opens its file in the repository's source.
        let first = &page.context.callers[0].path;
        client
            .find(Locator::Css("#view-callers a"))
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            "const h = document.querySelector('.source-page h1 code'); return h ? h.textContent : null;",
            &json!(first),
            Duration::from_secs(30),
        )
        .await?;

        client.set_window_size(390, 844).await?;
        client.goto(&server.url(INSTANCE)).await?;
        wait_for(&client, INSTANCE_SHOWN, &want, Duration::from_secs(30)).await?;
        screenshot(&client, test, "instance-390.png").await?;
        assert_fits(&client, 390).await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;

    let dark_profile = tempfile::tempdir()?;
    let dark = driver
        .browser_with(dark_profile.path(), Scheme::Dark)
        .await?;
    let dark_result = async {
        dark.goto(&server.url(INSTANCE)).await?;
        wait_for(&dark, INSTANCE_SHOWN, &want, Duration::from_secs(30)).await?;
        screenshot(&dark, test, "instance-dark.png").await?;
        dark.set_window_size(390, 844).await?;
        dark.goto(&server.url(DATASET)).await?;
        dark.wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#recube-instances tbody tr"))
            .await?;
        screenshot(&dark, test, "dataset-dark-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}

/// What the run page shows: each instance's state and tests, and the six rates.
const RUN_SHOWN: &str = "return {
  states: [...document.querySelectorAll('#recube-instances tbody tr')].map(r => [
    r.dataset.instance, r.cells[1].textContent.trim(), r.cells[2].textContent.trim(),
  ]),
  spr: (document.querySelector('#recube-rates td[data-column=spr]') || {}).textContent,
  apr: (document.querySelector('#recube-rates td[data-column=apr]') || {}).textContent,
};";

/// What [`RUN_SHOWN`] reads of the hand-worked run, before and after its tests.
fn run_shown(dataset: &RecubeDatasetDetail, tested: bool, rate: f64) -> Value {
    let states: Vec<Value> = dataset
        .instances
        .iter()
        .map(|i| {
            let total = i.external_tests + i.internal_tests;
            let (state, tests) = match (i.id.as_str(), tested) {
                ("click-parser", _) => ("no file", format!("0/{total}")),
                (_, false) => ("not tested", "—".to_owned()),
                ("packaging-version", true) => ("tested", format!("0/{total}")),
                (_, true) => ("tested", format!("{total}/{total}")),
            };
            json!([i.id, state, tests])
        })
        .collect();
    // Every instance but two passes, as the page rounds it.
    let rate = if tested {
        format!("{rate:.1}")
    } else {
        "—".to_owned()
    };
    json!({"states": states, "spr": rate, "apr": rate})
}

#[tokio::test]
async fn a_run_is_tested_from_its_page_and_an_instance_shows_its_file_needs_bwrap()
-> anyhow::Result<()> {
    let test = "a_run_is_tested_from_its_page_and_an_instance_shows_its_file";
    let server = Server::start().await?;
    let d = wheelwright_server::dataset::recube::load_recube_dir(&recube::dataset_dir())?;
    let rate = recube::all_but_two(&d);
    let dataset: RecubeDatasetDetail =
        serde_json::from_value(api(&server, &format!("/api/v1{DATASET}")).await?)?;
    let stored: Value = reqwest::Client::new()
        .post(server.url("/api/v1/recube/runs"))
        .header("Content-Type", "application/x-ndjson")
        .body(recube::bundle(&d).to_jsonl())
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let id = stored["summary"]["id"].as_i64().unwrap_or_default();
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        // The verified row links to the run's page.
        client.goto(&server.url("/leaderboard/recube")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css(&format!("a.run-link[href='/recube/runs/{id}']")))
            .await?
            .click()
            .await?;
        wait_for(&client, RUN_SHOWN, &run_shown(&dataset, false, rate), Duration::from_secs(30)).await?;
        screenshot(&client, test, "run-untested.png").await?;

        // Its hidden tests run from the page; the rates appear when they end.
        client.find(Locator::Css("#run-tests")).await?.click().await?;
        wait_for(&client, RUN_SHOWN, &run_shown(&dataset, true, rate), Duration::from_secs(600)).await?;
        let state = client.find(Locator::Css("#test-state")).await?.text().await?;
        assert_eq!(state, "done");
        let turn = client.find(Locator::Css("#test-turn")).await?.text().await?;
        let n = dataset.instances.len();
        assert_eq!(turn, format!("Instance {n} of {n}"));
        screenshot(&client, test, "run-tested.png").await?;

        // The masked file it left: every test fails, and the diff shows what is missing.
        client
            .find(Locator::Css("tr[data-instance='packaging-version'] a"))
            .await?
            .click()
            .await?;
        let verdict = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#submission-verdict"))
            .await?
            .text()
            .await?;
        assert!(verdict.starts_with("0 of "), "{verdict}");
        let outcomes = client
            .execute(
                "return [...document.querySelectorAll('#submission-tests tbody tr td:nth-child(3)')].map(c => c.textContent.trim());",
                vec![],
            )
            .await?;
        let outcomes = outcomes.as_array().cloned().unwrap_or_default();
        assert!(!outcomes.is_empty());
        assert!(outcomes.iter().all(|o| o != "passed" && o != "not run"), "{outcomes:?}");
        client
            .execute("document.getElementById('submission').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "instance-submission.png").await?;

        // An instance the run left no file for says so.
        client
            .goto(&server.url(&format!("{DATASET}/instances/click-parser?run={id}")))
            .await?;
        let verdict = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#submission-verdict"))
            .await?
            .text()
            .await?;
        assert!(verdict.contains("left no file"), "{verdict}");

        client.set_window_size(390, 844).await?;
        client.goto(&server.url(&format!("/recube/runs/{id}"))).await?;
        wait_for(&client, RUN_SHOWN, &run_shown(&dataset, true, rate), Duration::from_secs(30)).await?;
        screenshot(&client, test, "run-390.png").await?;
        let width = client
            .execute("return document.documentElement.scrollWidth;", vec![])
            .await?;
        assert!(width.as_i64().is_some_and(|w| w <= 390), "page width {width}");
        anyhow::Ok(())
    }
    .await;
    client.close().await?;

    let dark_profile = tempfile::tempdir()?;
    let dark = driver
        .browser_with(dark_profile.path(), Scheme::Dark)
        .await?;
    let dark_result = async {
        dark.goto(&server.url(&format!("/recube/runs/{id}")))
            .await?;
        wait_for(
            &dark,
            RUN_SHOWN,
            &run_shown(&dataset, true, rate),
            Duration::from_secs(30),
        )
        .await?;
        screenshot(&dark, test, "run-dark.png").await?;
        dark.set_window_size(390, 844).await?;
        dark.goto(&server.url(&format!("{DATASET}/instances/packaging-version?run={id}")))
            .await?;
        dark.wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#submission-verdict"))
            .await?;
        dark.execute(
            "document.getElementById('submission').scrollIntoView();",
            vec![],
        )
        .await?;
        screenshot(&dark, test, "instance-submission-dark-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}
