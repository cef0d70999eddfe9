//! The leaderboard page end to end: reported rows from the real server, sorting by clicking a
//! column, filtering, and the URL as a permalink of the view.

use std::time::Duration;

use fantoccini::{Client, Locator};
use wheelwright_tests::{Chromedriver, Server, screenshot};

/// (harness, model) of every row on the page, top to bottom.
async fn page_rows(client: &Client) -> anyhow::Result<Vec<(String, String)>> {
    let value = client
        .execute(
            "const t = document.querySelector('#leaderboard');
             if (!t) return [];
             const names = [...t.querySelectorAll('thead th')].map(h => h.textContent.trim().replace(/ [▲▼]$/, ''));
             const h = names.indexOf('harness'), m = names.indexOf('model');
             return [...t.querySelectorAll('tbody tr')].map(r => {
               const c = r.querySelectorAll('td');
               return [c[h].textContent.trim(), c[m].textContent.trim()];
             });",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(value)?)
}

/// Waits until the page shows `expected` (the page updates after navigation and fetching).
async fn wait_for(client: &Client, expected: &[(String, String)]) -> anyhow::Result<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let rows = page_rows(client).await?;
        if rows == expected {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            anyhow::bail!("the page shows {rows:?}, expected {expected:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The API's answer for the same view: what the page must show.
async fn api_rows(server: &Server, query: &str) -> anyhow::Result<Vec<(String, String)>> {
    let body: serde_json::Value =
        reqwest::get(server.url(&format!("/api/v1/leaderboard/reporeuse{query}")))
            .await?
            .error_for_status()?
            .json()
            .await?;
    Ok(body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["labels"]["harness"].as_str().unwrap().to_owned(),
                r["labels"]["model"].as_str().unwrap().to_owned(),
            )
        })
        .collect())
}

#[tokio::test]
async fn the_leaderboard_sorts_filters_and_keeps_the_view_in_the_url() -> anyhow::Result<()> {
    let test = "the_leaderboard_sorts_filters_and_keeps_the_view_in_the_url";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        client.goto(&server.url("/")).await?;
        // The header exists once the app's wasm has loaded and mounted.
        client
            .wait()
            .at_most(std::time::Duration::from_secs(30))
            .for_element(Locator::LinkText("Leaderboard"))
            .await?
            .click()
            .await?;
        wait_for(&client, &api_rows(&server, "").await?).await?;

        // Clicking a column sorts best first; clicking again flips the order.
        let resolve = Locator::Css("#leaderboard th button[data-column='resolve']");
        client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(resolve)
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            &api_rows(&server, "?sort=resolve&order=desc").await?,
        )
        .await?;
        client.find(resolve).await?.click().await?;
        wait_for(
            &client,
            &api_rows(&server, "?sort=resolve&order=asc").await?,
        )
        .await?;

        // Filtering by harness keeps the sort, and the URL says so.
        client
            .find(Locator::Css("select[name='harness']"))
            .await?
            .select_by_value("OpenCode")
            .await?;
        let query = "?harness=OpenCode&order=asc&sort=resolve";
        let expected = api_rows(&server, query).await?;
        assert!(!expected.is_empty());
        wait_for(&client, &expected).await?;
        let url = client.current_url().await?;
        assert_eq!(url.query(), Some(&query[1..]));
        screenshot(&client, test, "leaderboard.png").await?;

        // The URL alone restores the view: a permalink.
        client.goto(url.as_str()).await?;
        wait_for(&client, &expected).await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}
