//! A RepoReuse dataset's page end to end: the shipped networkx dataset's Table 1 computed from its files beside the paper's, its chains and turns, reached from the leaderboard, fitting a phone; screenshots in both themes at 1280 and 390 px.

use std::time::Duration;

use fantoccini::{Client, Locator};
use serde_json::{Value, json};
use wheelwright_core::reporeuse::stats::{DatasetStats, PaperStats};
use wheelwright_server::dataset::load_dir;
use wheelwright_tests::{
    Chromedriver, Scheme, Server, assert_fits, screenshot, wait_for, workspace_root,
};

/// The statistics table's rows as the browser shows them: [key, mean, range, paper].
const TABLE_ROWS: &str =
    "return [...document.querySelectorAll('#dataset-stats tbody tr')].map(r => [
   r.dataset.key,
   ...[...r.querySelectorAll('td')].map(td => td.textContent.trim()),
 ]);";

/// The chains: id, title and how many turns each lists.
const CHAINS: &str = "return [...document.querySelectorAll('section.dataset-chain')].map(s => [
   s.dataset.chain, s.querySelector('h3').textContent, s.querySelectorAll('li.dataset-turn').length,
 ]);";

/// A mean as `wheelwright dataset stats` prints it (`server/src/cli/dataset_stats.rs`).
fn printed(mean: Option<f64>) -> String {
    mean.map_or_else(|| "—".to_owned(), |m| format!("{m:.1}"))
}

/// The rows the page must show, computed from the dataset's files and the paper's file.
fn expected_rows(stats: &DatasetStats, paper: &PaperStats) -> Value {
    let mut rows = vec![json!([
        "chains",
        stats.chains.to_string(),
        "—",
        paper.tasks.to_string()
    ])];
    rows.extend(stats.rows.iter().map(|r| {
        json!([
            r.key,
            printed(r.mean),
            format!("{}–{}", r.min.unwrap(), r.max.unwrap()),
            printed(paper.mean(&r.key)),
        ])
    }));
    Value::from(rows)
}

#[tokio::test]
async fn the_dataset_page_shows_table_1_beside_the_papers_and_every_chain() -> anyhow::Result<()> {
    let test = "the_dataset_page_shows_table_1_beside_the_papers_and_every_chain";
    let files = load_dir(&workspace_root().join("datasets/reporeuse-networkx"))?;
    let stats = DatasetStats::of(&files);
    // The shipped dataset as its README describes it; every value below is computed.
    assert_eq!((stats.chains, stats.turns), (4, 20));
    let paper = PaperStats::from_published(&std::fs::read_to_string(
        workspace_root().join("data/published/reporeuse.json"),
    )?)?
    .expect("the paper's Table 1");
    let rows = expected_rows(&stats, &paper);
    let chains = Value::from(
        files
            .chains
            .iter()
            .map(|c| json!([c.manifest.id, c.manifest.title, c.turns.len()]))
            .collect::<Vec<_>>(),
    );
    let page = format!(
        "/datasets/{}/{}",
        files.manifest.name, files.manifest.version
    );

    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        // A visitor finds it under RepoReuse's leaderboard.
        client.goto(&server.url("/leaderboard/reporeuse")).await?;
        let link = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#reporeuse-datasets a"))
            .await?;
        assert_eq!(link.attr("href").await?.as_deref(), Some(page.as_str()));
        link.click().await?;
        shows(&client, &rows, &chains).await?;
        let caption = client
            .find(Locator::Css("#dataset-stats caption"))
            .await?
            .text()
            .await?;
        assert!(caption.contains("Table 1"), "caption {caption:?}");
        let heading = client.find(Locator::Css("h1")).await?.text().await?;
        assert_eq!(
            heading,
            format!("{} {}", files.manifest.name, files.manifest.version)
        );
        let sizes = client
            .find(Locator::Css(".run-head .run-badges"))
            .await?
            .text()
            .await?;
        let counted = format!("{} chains · {} turns · ", stats.chains, stats.turns);
        assert!(sizes.starts_with(&counted), "sizes {sizes:?}");
        let lead = client.find(Locator::Css("p.lead")).await?.text().await?;
        assert!(lead.contains("networkx 3.4.2 (PyPI)"), "lead {lead:?}");

        // A turn's requirement opens in place.
        client
            .find(Locator::Css("li.dataset-turn summary"))
            .await?
            .click()
            .await?;
        let requirement = client
            .find(Locator::Css("li.dataset-turn details[open] .requirement"))
            .await?
            .text()
            .await?;
        assert!(!requirement.trim().is_empty());
        screenshot(&client, test, "light-1280.png").await?;

        client.set_window_size(390, 844).await?;
        client.goto(&server.url(&page)).await?;
        shows(&client, &rows, &chains).await?;
        assert_fits(&client, 390).await?;
        show_table(&client).await?;
        screenshot(&client, test, "light-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;

    // Dark, as a reader whose system prefers it sees the page.
    let dark_profile = tempfile::tempdir()?;
    let dark = driver
        .browser_with(dark_profile.path(), Scheme::Dark)
        .await?;
    let dark_result = async {
        dark.goto(&server.url(&page)).await?;
        shows(&dark, &rows, &chains).await?;
        screenshot(&dark, test, "dark-1280.png").await?;
        dark.set_window_size(390, 844).await?;
        assert_fits(&dark, 390).await?;
        show_table(&dark).await?;
        screenshot(&dark, test, "dark-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}

/// Scrolls the statistics table to the top of a phone's screen, for its screenshot.
async fn show_table(client: &Client) -> anyhow::Result<()> {
    client
        .execute(
            "document.querySelector('#dataset-stats').scrollIntoView({block: 'start'});",
            vec![],
        )
        .await?;
    Ok(())
}

/// Waits until the page shows `rows` in its statistics table and `chains` below it.
async fn shows(client: &Client, rows: &Value, chains: &Value) -> anyhow::Result<()> {
    wait_for(client, TABLE_ROWS, rows, Duration::from_secs(30)).await?;
    wait_for(client, CHAINS, chains, Duration::from_secs(5)).await
}
