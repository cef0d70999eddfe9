//! ReCUBE's pages end to end: from the leaderboard to a dataset's instances, an instance's page (its neighbourhood drawn as the API lays it out, its labelled tests, the four views with links into the repository's source), and a link followed; screenshots in both themes at 1280 and 390 px.

use std::time::Duration;

use fantoccini::Locator;
use serde_json::{Value, json};
use wheelwright_core::api::{RecubeDatasetDetail, RecubeInstanceDetail};
use wheelwright_tests::{Chromedriver, Scheme, Server, api, screenshot, wait_for};

const DATASET: &str = "/recube/datasets/recube-pypi/0";
const INSTANCE: &str = "/recube/datasets/recube-pypi/0/instances/click-parser";

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
