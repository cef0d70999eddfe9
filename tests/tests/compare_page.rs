//! Comparing two stored runs end to end: ticked on the leaderboard, opened at
//! `/compare?a=&b=`, with the pairs, the sign test and the charts core computes from the
//! API's turns; screenshots at 1280 and 390 px, light and dark.

use std::time::Duration;

use fantoccini::{Client, Locator};
use serde_json::Value;
use wheelwright_core::api::TurnTableRow;
use wheelwright_core::compare;
use wheelwright_tests::{Chromedriver, Server, api, screenshot, wait_for};

/// Every turn row of stored run `run`, as the API lists them.
async fn turns(server: &Server, run: i64) -> anyhow::Result<Vec<TurnTableRow>> {
    let page = api(server, &format!("/api/v1/runs/{run}/turns?limit=1000")).await?;
    Ok(serde_json::from_value(page["items"].clone())?)
}

/// What the page shows for the chosen column: the sign test's p and the (chain, turn) of
/// the turns listed as differing most.
async fn shown(client: &Client) -> anyhow::Result<(f64, Vec<(String, i64)>)> {
    let value = client
        .execute(
            "return [Number(document.querySelector('#sign-test').dataset.p),
                     [...document.querySelectorAll('#largest tr.turn-pair')]
                       .map(r => [r.dataset.chain, Number(r.dataset.turn)])];",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(value)?)
}

async fn expect_column(
    client: &Client,
    a: &[TurnTableRow],
    b: &[TurnTableRow],
    column: &str,
) -> anyhow::Result<()> {
    let pairs = compare::pairs(a, b, column);
    let p = compare::sign_test(&pairs).p_value;
    let largest: Vec<(String, i64)> = compare::largest_differences(&pairs)
        .into_iter()
        .take(20)
        .map(|p| (p.chain.clone(), p.turn))
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (shown_p, shown_largest) = shown(client).await?;
        if (shown_p - p).abs() < 1e-9 && shown_largest == largest {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            anyhow::bail!(
                "{column}: the page shows p = {shown_p} and {shown_largest:?}, core says p = {p} and {largest:?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn two_ticked_runs_are_compared_turn_by_turn_with_a_sign_test() -> anyhow::Result<()> {
    let test = "two_ticked_runs_are_compared_turn_by_turn_with_a_sign_test";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        // The stored baselines are runs: tick the first two rows that have one.
        client.goto(&server.url("/leaderboard/reporeuse")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#leaderboard input.compare-pick"))
            .await?;
        let picks = client
            .find_all(Locator::Css("#leaderboard input.compare-pick"))
            .await?;
        assert!(picks.len() >= 2, "{} runs to tick", picks.len());
        let mut runs = Vec::new();
        for pick in &picks[..2] {
            runs.push(
                pick.attr("data-run")
                    .await?
                    .unwrap_or_default()
                    .parse::<i64>()?,
            );
            pick.click().await?;
        }
        let link = client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css("#compare-selected"))
            .await?;
        assert_eq!(
            link.attr("href").await?.unwrap_or_default(),
            format!("/compare?a={}&b={}", runs[0], runs[1])
        );
        link.click().await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#compare-overall"))
            .await?;
        let (a, b) = (
            turns(&server, runs[0]).await?,
            turns(&server, runs[1]).await?,
        );
        expect_column(&client, &a, &b, "reuse_repo").await?;

        // Overall: one row per column, B − A as the API's overall rows give it.
        let run_a = api(&server, &format!("/api/v1/runs/{}", runs[0])).await?;
        let run_b = api(&server, &format!("/api/v1/runs/{}", runs[1])).await?;
        let delta = client
            .find(Locator::Css(
                "#compare-overall tr[data-column=files] td.delta",
            ))
            .await?
            .text()
            .await?;
        let files = |run: &Value| run["overall"]["files"]["value"].as_f64();
        match (files(&run_a), files(&run_b)) {
            // Written with one decimal, as every count with a fraction is.
            (Some(x), Some(y)) => {
                let shown = delta.trim_start_matches('+').parse::<f64>()?;
                assert!(
                    (shown - (y - x)).abs() <= 0.05 + 1e-9,
                    "{delta} for {x} -> {y}"
                );
            }
            _ => assert_eq!(delta, "—"),
        }
        // Each per-turn chart draws both runs.
        let series = client
            .execute(
                "return [...document.querySelectorAll('#turn-charts figure')]
                   .map(f => f.querySelectorAll('g.series').length);",
                vec![],
            )
            .await?;
        let series: Vec<u64> = serde_json::from_value(series)?;
        assert!(
            !series.is_empty() && series.iter().all(|n| *n == 2),
            "{series:?}"
        );
        screenshot(&client, test, "compare.png").await?;

        // Another column: the URL keeps it, the test follows.
        client
            .find(Locator::Css("#compare-metric option[value=c_dup]"))
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            "return location.search;",
            &Value::String(format!("?a={}&b={}&metric=c_dup", runs[0], runs[1])),
            Duration::from_secs(10),
        )
        .await?;
        expect_column(&client, &a, &b, "c_dup").await?;
        client.set_window_size(390, 844).await?;
        screenshot(&client, test, "compare-390.png").await?;
        let width = client
            .execute("return document.documentElement.scrollWidth;", vec![])
            .await?;
        assert!(
            width.as_i64().is_some_and(|w| w <= 390),
            "page width {width}"
        );
        client
            .find(Locator::Css("#theme-toggle"))
            .await?
            .click()
            .await?;
        client.set_window_size(1280, 1000).await?;
        client
            .execute(
                "document.querySelector('#sign-test').scrollIntoView();",
                vec![],
            )
            .await?;
        screenshot(&client, test, "compare-dark.png").await?;

        // Without two runs the page says what to do.
        client.goto(&server.url("/compare?a=1")).await?;
        let error = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css(".compare-page p.error"))
            .await?
            .text()
            .await?;
        assert!(error.contains("choose two runs"), "{error}");
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}
