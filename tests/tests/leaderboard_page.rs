//! The leaderboard page end to end: reported rows and baselines from the real server, in
//! bands by cohort with agents ranked and baselines below, sorting by clicking a column
//! (best first by the metric's direction), filtering (SchrodingerRepo's subset too), an
//! empty view, the JSON download, the theme toggle, and the URL as a permalink.

use std::time::Duration;

use anyhow::Context;
use fantoccini::{Client, Locator};
use serde_json::Value;
use wheelwright_core::leaderboard::{LeaderboardRow, bands};
use wheelwright_tests::{Chromedriver, Server, api, screenshot, wait_for};

/// (origin, model, rank) of every row on the page, top to bottom.
type Shown = Vec<(String, String, String)>;

async fn page_rows(client: &Client) -> anyhow::Result<Shown> {
    let value = client
        .execute(
            "const t = document.querySelector('#leaderboard');
             if (!t) return [];
             const names = [...t.querySelectorAll('thead th')].map(h => h.textContent.trim().replace(/ [▲▼]$/, ''));
             const m = names.indexOf('model');
             return [...t.querySelectorAll('tbody tr.leaderboard-row')].map(r => {
               const c = r.querySelectorAll('td');
               return [r.dataset.origin, c[m].textContent.trim(), c[0].textContent.trim()];
             });",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(value)?)
}

/// Waits until the page shows `expected` (the page updates after navigation and fetching).
async fn wait_rows(client: &Client, expected: &Shown) -> anyhow::Result<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let rows = page_rows(client).await?;
        if &rows == expected {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            anyhow::bail!("the page shows {rows:?}, expected {expected:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What the page must show for `query`: the API's rows for it, in core's bands, ranked by
/// `rank_by`.
async fn expected_rows(
    server: &Server,
    benchmark: &str,
    query: &str,
    rank_by: &str,
) -> anyhow::Result<Shown> {
    let body = api(server, &format!("/api/v1/leaderboard/{benchmark}{query}")).await?;
    let rows: Vec<LeaderboardRow> = serde_json::from_value(body["rows"].clone())?;
    Ok(bands(rows, Some(rank_by))
        .into_iter()
        .flat_map(|band| band.rows)
        .map(|(rank, row)| {
            (
                row.origin.id().to_owned(),
                row.labels["model"].clone(),
                rank.map(|r| r.to_string()).unwrap_or_default(),
            )
        })
        .collect())
}

/// Clicks the sort button of `column`'s header.
async fn click_header(client: &Client, column: &str) -> anyhow::Result<()> {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(&format!(
            "#leaderboard th button[data-column='{column}']"
        )))
        .await?
        .click()
        .await?;
    Ok(())
}

#[tokio::test]
async fn the_leaderboard_ranks_bands_sorts_filters_and_keeps_the_view_in_the_url()
-> anyhow::Result<()> {
    let test = "the_leaderboard_ranks_bands_sorts_filters_and_keeps_the_view_in_the_url";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/")).await?;
        // The header exists once the app's wasm has loaded and mounted.
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::LinkText("Leaderboard"))
            .await?
            .click()
            .await?;
        // Ranked by the headline metric, best first, until the reader sorts.
        let first = expected_rows(&server, "reporeuse", "?sort=reuse_repo", "reuse_repo").await?;
        wait_rows(&client, &first).await?;
        // Baselines come after every agent of their cohort, and are never ranked.
        let baseline_at = first.iter().position(|(o, _, _)| o == "baseline");
        let baseline_at = baseline_at.context("the shipped dataset's baselines are listed")?;
        assert!(first[..baseline_at].iter().all(|(o, _, _)| o != "baseline"));
        assert!(
            first
                .iter()
                .filter(|(o, _, _)| o == "baseline")
                .all(|(_, _, r)| r.is_empty())
        );
        assert_eq!(first[0].2, "1", "the best agent ranks first: {first:?}");
        assert_eq!(
            client.title().await?,
            "Leaderboard: RepoReuse · Wheelwright"
        );
        screenshot(&client, test, "leaderboard.png").await?;

        // C_dup is lower-is-better: the first click sorts ascending, the second flips it.
        click_header(&client, "c_dup").await?;
        wait_rows(
            &client,
            &expected_rows(&server, "reporeuse", "?sort=c_dup&order=asc", "c_dup").await?,
        )
        .await?;
        let url = client.current_url().await?;
        assert_eq!(url.query(), Some("order=asc&sort=c_dup"));
        let sorted = client
            .find(Locator::Css(
                "#leaderboard th[aria-sort='ascending'] button",
            ))
            .await?
            .attr("data-column")
            .await?;
        assert_eq!(sorted.as_deref(), Some("c_dup"));
        click_header(&client, "c_dup").await?;
        wait_rows(
            &client,
            &expected_rows(&server, "reporeuse", "?sort=c_dup&order=desc", "c_dup").await?,
        )
        .await?;
        // A higher-is-better column's first click is descending.
        click_header(&client, "resolve").await?;
        wait_rows(
            &client,
            &expected_rows(&server, "reporeuse", "?sort=resolve&order=desc", "resolve").await?,
        )
        .await?;

        // Filtering by harness keeps the sort, and the URL says so.
        client
            .find(Locator::Css("select[name='harness']"))
            .await?
            .select_by_value("OpenCode")
            .await?;
        let query = "?harness=OpenCode&order=desc&sort=resolve";
        let expected = expected_rows(&server, "reporeuse", query, "resolve").await?;
        assert!(!expected.is_empty());
        wait_rows(&client, &expected).await?;
        let url = client.current_url().await?;
        assert_eq!(url.query(), Some(&query[1..]));

        // The URL alone restores the view: a permalink.
        client.goto(url.as_str()).await?;
        wait_rows(&client, &expected).await?;

        // The JSON download is the API's answer, not the app's 404 page.
        client
            .find(Locator::LinkText("JSON"))
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            "return document.contentType;",
            &Value::from("application/json"),
            Duration::from_secs(10),
        )
        .await?;
        assert_eq!(
            client.current_url().await?.path(),
            "/api/v1/leaderboard/reporeuse"
        );
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

#[tokio::test]
async fn the_subset_filter_filters_and_an_empty_view_says_so() -> anyhow::Result<()> {
    let test = "the_subset_filter_filters_and_an_empty_view_says_so";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/leaderboard/schrodinger")).await?;
        let rank_by = "pass_at_1_transformed";
        let all = expected_rows(&server, "schrodinger", "?sort=pass_at_1_transformed", rank_by).await?;
        wait_rows(&client, &all).await?;
        // The 300-instance subset is its own cohort: ranked alone, first in its band.
        let body = api(&server, "/api/v1/leaderboard/schrodinger").await?;
        let subset = body["rows"]
            .as_array()
            .context("rows")?
            .iter()
            .find_map(|r| r["labels"]["subset"].as_str())
            .context("a row of a subset")?
            .to_owned();
        let bands = client
            .execute(
                "return [...document.querySelectorAll('#leaderboard tbody.band')].map(b => b.dataset.cohort);",
                vec![],
            )
            .await?;
        assert_eq!(
            bands,
            serde_json::json!(["published: full set", format!("published: {subset}")])
        );
        client
            .find(Locator::Css("select[name='subset']"))
            .await?
            .select_by_value(&subset)
            .await?;
        let query = format!("?subset={}&sort=pass_at_1_transformed", urlencoding(&subset));
        let only = expected_rows(&server, "schrodinger", &query, rank_by).await?;
        assert_eq!(only.len(), 1, "{only:?}");
        wait_rows(&client, &only).await?;
        screenshot(&client, test, "schrodinger-subset.png").await?;

        // A filter that matches nothing says so and offers the whole table.
        client
            .goto(&server.url("/leaderboard/schrodinger?origin=verified"))
            .await?;
        let empty = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#no-rows"))
            .await?
            .text()
            .await?;
        assert!(empty.contains("No rows match"), "{empty}");
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// `text` percent-encoded for a query value.
fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn the_theme_toggle_switches_and_is_remembered_at_both_widths() -> anyhow::Result<()> {
    let test = "the_theme_toggle_switches_and_is_remembered_at_both_widths";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let background = "return getComputedStyle(document.documentElement).backgroundColor;";
        client.goto(&server.url("/leaderboard/reporeuse")).await?;
        let toggle = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#theme-toggle"))
            .await?;
        client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#leaderboard tr.leaderboard-row"))
            .await?;
        let light = client.execute(background, vec![]).await?;
        toggle.click().await?;
        let dark = client.execute(background, vec![]).await?;
        assert_ne!(light, dark, "the toggle changed nothing");
        screenshot(&client, test, "leaderboard-dark.png").await?;
        client.set_window_size(390, 844).await?;
        screenshot(&client, test, "leaderboard-dark-390.png").await?;
        // The page is no wider than the phone: the table scrolls inside its container.
        let width = client
            .execute("return document.documentElement.scrollWidth;", vec![])
            .await?;
        assert!(
            width.as_i64().is_some_and(|w| w <= 390),
            "page width {width}"
        );
        // Remembered: a reload is dark before the app has even loaded.
        client.refresh().await?;
        assert_eq!(
            client
                .execute("return document.documentElement.dataset.theme;", vec![])
                .await?,
            "dark"
        );
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#theme-toggle"))
            .await?
            .click()
            .await?;
        assert_eq!(client.execute(background, vec![]).await?, light);
        client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#leaderboard tr.leaderboard-row"))
            .await?;
        screenshot(&client, test, "leaderboard-light-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}
