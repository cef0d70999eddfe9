//! The published-results page end to end: every table the API has, each with its source,
//! and the charts core's chart module makes of it, with the same series and exact values
//! on hover; screenshots in both themes at 1280 and 390 px.

use std::time::Duration;

use fantoccini::Locator;
use serde_json::Value;
use wheelwright_core::api::Published;
use wheelwright_core::present::chart::{bars_of, charts_of};
use wheelwright_tests::{Chromedriver, Scheme, Server, api, screenshot, wait_for};

/// (table id, its heading, [(chart kind, metric, series or bar count)]) of what the page shows.
type Shown = Vec<(String, String, Vec<(String, String, u64)>)>;

/// The page's tables as [`Shown`], read by the browser.
const PAGE_TABLES: &str =
    "return [...document.querySelectorAll('section.published-table')].map(s => [
   s.id,
   s.querySelector('h2').textContent.trim(),
   [...s.querySelectorAll('figure.chart')].map(f => [
     f.classList.contains('bar-chart') ? 'bars' : 'lines',
     f.dataset.metric,
     f.querySelectorAll(f.classList.contains('bar-chart') ? 'svg rect' : 'svg g.series').length,
   ]),
 ]);";

/// What the page must show: the API's tables in order, with core's charts of each.
fn expected(published: &Published) -> Shown {
    published
        .tables
        .iter()
        .map(|t| {
            let place = match t.id.strip_prefix("table") {
                Some(n) if n.parse::<u32>().is_ok() => format!("Table {n}"),
                _ => "figures stated in the text".to_owned(),
            };
            let mut charts: Vec<(String, String, u64)> = charts_of(t)
                .into_iter()
                .map(|c| ("lines".to_owned(), c.metric, c.series.len() as u64))
                .collect();
            charts.extend(bars_of(t).map(|b| ("bars".to_owned(), b.metric, b.bars.len() as u64)));
            (t.id.clone(), format!("{place}: {}", t.title), charts)
        })
        .collect()
}

#[tokio::test]
async fn every_published_table_is_shown_with_its_source_and_charts() -> anyhow::Result<()> {
    let test = "every_published_table_is_shown_with_its_source_and_charts";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let mut charts = 0;
        for benchmark in ["reporeuse", "recube", "schrodinger"] {
            let published: Published = serde_json::from_value(
                api(
                    &server,
                    &format!("/api/v1/benchmarks/{benchmark}/published"),
                )
                .await?,
            )?;
            let want = expected(&published);
            charts += want.iter().map(|(_, _, c)| c.len()).sum::<usize>();
            client
                .goto(&server.url(&format!("/published/{benchmark}")))
                .await?;
            wait_for(
                &client,
                PAGE_TABLES,
                &serde_json::to_value(&want)?,
                Duration::from_secs(30),
            )
            .await?;
            let sources = client
                .execute(
                    "return [...document.querySelectorAll('section.published-table .source cite')]
                       .map(c => c.textContent);",
                    vec![],
                )
                .await?;
            assert_eq!(
                sources,
                Value::from(vec![published.source.clone(); published.tables.len()]),
                "each table names the paper"
            );
            screenshot(&client, test, &format!("{benchmark}.png")).await?;
        }
        // Every benchmark has something drawn: RepoReuse's turn series, ReCUBE's bars,
        // SchrodingerRepo's original → transformed.
        assert!(charts >= 10, "{charts} charts");

        // RepoReuse's Table 3: a point's hover text is the exact published value.
        client
            .goto(&server.url("/published/reporeuse#table3"))
            .await?;
        let point = client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css(
                "#table3 figure[data-metric=reuse_repo] g.series circle title",
            ))
            .await?;
        let published: Published =
            serde_json::from_value(api(&server, "/api/v1/benchmarks/reporeuse/published").await?)?;
        let table3 = published.tables.iter().find(|t| t.id == "table3").unwrap();
        let first = &charts_of(table3)
            .into_iter()
            .find(|c| c.metric == "reuse_repo")
            .unwrap()
            .series[0];
        let value = first.values[0].unwrap();
        let hover = point.html(true).await?;
        let shown = hover
            .strip_prefix(&format!("{}, T1: ", first.name))
            .and_then(|v| v.strip_suffix('%'))
            .and_then(|v| v.parse::<f64>().ok());
        assert_eq!(shown, Some(value), "hover text {hover:?}");
        client.set_window_size(390, 844).await?;
        screenshot(&client, test, "reporeuse-table3-390.png").await?;
        let width = client
            .execute("return document.documentElement.scrollWidth;", vec![])
            .await?;
        assert!(
            width.as_i64().is_some_and(|w| w <= 390),
            "page width {width}"
        );
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
        dark.goto(&server.url("/published/recube")).await?;
        dark.wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("figure.bar-chart svg rect"))
            .await?;
        screenshot(&dark, test, "recube-dark.png").await?;
        dark.set_window_size(390, 844).await?;
        dark.goto(&server.url("/published/schrodinger")).await?;
        dark.wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("figure.line-chart svg circle"))
            .await?;
        screenshot(&dark, test, "schrodinger-dark-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}
