//! SchrodingerRepo's view explorer end to end: from a ReCUBE dataset's page to a library's view, the original and the view side by side with the API's renamed names marked in both and its reordered definitions marked, another seed, another level and the virtual namespace picked from the page (the URL follows); screenshots in both themes at 1280 and 390 px.

use std::time::Duration;

use fantoccini::Locator;
use serde_json::{Value, json};
use wheelwright_core::api::ViewFile;
use wheelwright_tests::{Chromedriver, Scheme, Server, api, assert_fits, screenshot, wait_for};

const PAGE: &str = "/recube/datasets/recube-pypi/1/repositories/packaging/view";
const QUERY: &str = "?seed=3&levels=2,3&path=packaging/version.py";

/// What the page shows: the two paths, the names marked in each pane, the names table,
/// the lines marked as reordered, the runs table's rows.
const SHOWN: &str = "return {
  paths: [...document.querySelectorAll('.view-pane h2 code')].map(c => c.textContent),
  original_marks: new Set([...document.querySelectorAll('#view-original mark.callee')].map(m => m.textContent)).size,
  view_marks: new Set([...document.querySelectorAll('#view-view mark.callee')].map(m => m.textContent)).size,
  names: [...document.querySelectorAll('#view-names tbody tr')].map(r => [r.cells[0].textContent, r.cells[1].textContent]),
  runs: document.querySelectorAll('#view-runs tbody tr').length,
};";

/// What [`SHOWN`] must read for `file`.
fn expected(file: &ViewFile) -> Value {
    json!({
        "paths": [file.path, file.view_path],
        "original_marks": file.names.len(),
        "view_marks": file.names.len(),
        "names": file.names,
        "runs": file.runs.len(),
    })
}

#[tokio::test]
async fn a_library_file_is_shown_beside_its_view_and_the_seed_and_level_are_picked_on_the_page()
-> anyhow::Result<()> {
    let test =
        "a_library_file_is_shown_beside_its_view_and_the_seed_and_level_are_picked_on_the_page";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let file: ViewFile =
        serde_json::from_value(api(&server, &format!("/api/v1{PAGE}{QUERY}")).await?)?;
    let seed_4: ViewFile = serde_json::from_value(
        api(
            &server,
            &format!("/api/v1{PAGE}?seed=4&levels=2,3&path=packaging/version.py"),
        )
        .await?,
    )?;
    let level_3: ViewFile = serde_json::from_value(
        api(
            &server,
            &format!("/api/v1{PAGE}?seed=4&levels=3&path=packaging/version.py"),
        )
        .await?,
    )?;
    let virtual_4: ViewFile = serde_json::from_value(
        api(
            &server,
            &format!("/api/v1{PAGE}?seed=4&levels=2&namespace=virtual&path=packaging/version.py"),
        )
        .await?,
    )?;
    assert!(!file.names.is_empty() && !file.runs.is_empty());
    assert!(virtual_4.virtual_namespace && virtual_4.names.len() > seed_4.names.len());
    let result = async {
        // From the dataset's page to the explorer.
        client.goto(&server.url("/recube/datasets/recube-pypi/1")).await?;
        client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css("#schrodinger-views a[href$='/packaging/view']"))
            .await?
            .click()
            .await?;
        client.wait().at_most(Duration::from_secs(30)).for_element(Locator::Css("#view-view .line")).await?;

        client.goto(&server.url(&format!("{PAGE}{QUERY}"))).await?;
        wait_for(&client, SHOWN, &expected(&file), Duration::from_secs(30)).await?;
        let moved = client.execute("return document.querySelectorAll('#view-view .line.span').length;", vec![]).await?;
        assert!(moved.as_u64().is_some_and(|n| n > 0), "no reordered definition marked: {moved}");
        screenshot(&client, test, "view.png").await?;
        client.execute("document.getElementById('view-names').scrollIntoView();", vec![]).await?;
        screenshot(&client, test, "view-tables.png").await?;

        // Another seed, typed into the page: the URL and the view follow.
        // (Set as a user's edit ends: the value, then one change event; typing would
        // fire one per key.)
        client
            .execute(
                "const s = document.getElementById('view-seed'); s.value = '4'; s.dispatchEvent(new Event('change'));",
                vec![],
            )
            .await?;
        wait_for(&client, SHOWN, &expected(&seed_4), Duration::from_secs(30)).await?;
        let url = client.current_url().await?;
        assert!(url.as_str().contains("seed=4"), "{url}");

        // Level 3 only: no name renamed, the same path.
        client
            .execute(
                "const s = document.getElementById('view-levels'); s.value = '3'; s.dispatchEvent(new Event('change'));",
                vec![],
            )
            .await?;
        wait_for(&client, SHOWN, &expected(&level_3), Duration::from_secs(30)).await?;
        assert!(client.current_url().await?.as_str().contains("levels=3"));

        // The virtual namespace: the file as an agent reads it, the package renamed too.
        client
            .execute(
                "const s = document.getElementById('view-levels'); s.value = 'virtual'; s.dispatchEvent(new Event('change'));",
                vec![],
            )
            .await?;
        wait_for(&client, SHOWN, &expected(&virtual_4), Duration::from_secs(30)).await?;
        assert!(client.current_url().await?.as_str().contains("levels=virtual"));
        screenshot(&client, test, "view-virtual.png").await?;

        client.set_window_size(390, 844).await?;
        client.goto(&server.url(&format!("{PAGE}{QUERY}"))).await?;
        wait_for(&client, SHOWN, &expected(&file), Duration::from_secs(30)).await?;
        screenshot(&client, test, "view-390.png").await?;
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
        dark.goto(&server.url(&format!("{PAGE}{QUERY}"))).await?;
        wait_for(&dark, SHOWN, &expected(&file), Duration::from_secs(30)).await?;
        screenshot(&dark, test, "view-dark.png").await?;
        dark.set_window_size(390, 844).await?;
        dark.refresh().await?;
        wait_for(&dark, SHOWN, &expected(&file), Duration::from_secs(30)).await?;
        screenshot(&dark, test, "view-dark-390.png").await?;
        anyhow::Ok(())
    }
    .await;
    dark.close().await?;
    server.stop().await?;
    result.and(dark_result)
}
