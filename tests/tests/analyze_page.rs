//! The analysis page end to end: the real server, a real headless Chromium, and a check that
//! the browser's analysis equals the server endpoint's for the same source.

use std::time::Duration;

use fantoccini::{Client, Locator};
use wheelwright_core::outline::Outline;
use wheelwright_core::python::facts::DefinitionKind;
use wheelwright_tests::{Chromedriver, Server, screenshot};

/// Typed into the page key by key, as a person would.
const TYPED: &str = "import os.path
from collections import Counter

def word_counts(path):
    with open(path) as handle:
        return Counter(handle.read().split())

class Report:
    def __init__(self, root):
        self.root = root

    @staticmethod
    def clean(words):
        return sorted(set(map(str.lower, words)))

    def top(self, name, n=3):
        counts = word_counts(os.path.join(self.root, name))
        def keep(word):
            return not word.startswith('_')
        return [w for w, _ in counts.most_common(n) if keep(w)]
";

/// A table row as the page shows it: kind, qualified name, lines, calls.
type Row = [String; 4];

/// What the page must show for a server outline (same labels as the table).
fn rows_of(outline: &Outline) -> Vec<Row> {
    outline
        .definitions
        .iter()
        .map(|d| {
            let kind = match d.kind {
                DefinitionKind::Class => "class",
                DefinitionKind::Function => "function",
                DefinitionKind::Method => "method",
            };
            let calls: Vec<&str> = d
                .calls
                .iter()
                .map(|c| c.callee.as_deref().unwrap_or("<expr>"))
                .collect();
            [
                kind.to_owned(),
                d.qualified_name.clone(),
                format!("{}–{}", d.start_line, d.end_line),
                calls.join(", "),
            ]
        })
        .collect()
}

/// The rows of the page's definitions table, read in one script call.
async fn page_rows(client: &Client) -> anyhow::Result<Vec<Row>> {
    let value = client
        .execute(
            "return [...document.querySelectorAll('#definitions tbody tr')].map(r =>
                ['kind', 'name', 'lines', 'calls'].map(c => r.querySelector('td.' + c).textContent.trim()));",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(value)?)
}

async fn server_outline(server: &Server, source: &str) -> anyhow::Result<Outline> {
    let reply = reqwest::Client::new()
        .post(server.url("/api/v1/analyze"))
        .json(&serde_json::json!({ "source": source }))
        .send()
        .await?
        .error_for_status()?;
    Ok(reply.json().await?)
}

/// Waits until the table has `n` rows (the page re-renders on each input event).
async fn wait_for_rows(client: &Client, n: usize) -> anyhow::Result<Vec<Row>> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let rows = page_rows(client).await?;
        if rows.len() == n || std::time::Instant::now() > deadline {
            return Ok(rows);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Opens the analysis page and waits until the app has rendered it.
async fn open_analyze(client: &Client, server: &Server) -> anyhow::Result<()> {
    client.goto(&server.url("/analyze")).await?;
    client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css("#source"))
        .await?;
    Ok(())
}

#[tokio::test]
async fn typed_python_is_analysed_in_the_browser_as_on_the_server() -> anyhow::Result<()> {
    let test = "typed_python_is_analysed_in_the_browser_as_on_the_server";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        open_analyze(&client, &server).await?;
        let area = client.find(Locator::Css("#source")).await?;
        area.clear().await?;
        area.send_keys(TYPED).await?;
        let expected = rows_of(&server_outline(&server, TYPED).await?);
        assert_eq!(expected.len(), 6, "{expected:?}");
        let shown = wait_for_rows(&client, expected.len()).await?;
        assert_eq!(shown, expected);
        assert!(shown.iter().any(|r| r[1] == "Report.top.<locals>.keep"));

        // The page's own comparison with the server agrees too.
        client
            .find(Locator::Css("#compare-server"))
            .await?
            .click()
            .await?;
        let verdict = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#server-verdict.ok"))
            .await?
            .text()
            .await?;
        assert!(verdict.contains("identical"), "{verdict}");
        screenshot(&client, test, "analyze.png").await?;

        // The header navigates back to the landing page.
        client
            .find(Locator::LinkText("Benchmarks"))
            .await?
            .click()
            .await?;
        let heading = client
            .wait()
            .for_element(Locator::Css(".hero h1"))
            .await?
            .text()
            .await?;
        assert_eq!(heading, "Audit coding agents beyond pass rates");
        screenshot(&client, test, "home.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

#[tokio::test]
async fn a_real_library_file_pasted_into_the_page_matches_the_server() -> anyhow::Result<()> {
    let test = "a_real_library_file_pasted_into_the_page_matches_the_server";
    // A real Python library module: the standard library's textwrap, from this machine's Python.
    let path = std::process::Command::new("python3")
        .args(["-c", "import textwrap; print(textwrap.__file__)"])
        .output()?;
    let path = String::from_utf8(path.stdout)?.trim().to_owned();
    let source = std::fs::read_to_string(&path)?;

    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        open_analyze(&client, &server).await?;
        // A paste: the whole text arrives at once, followed by one input event.
        client
            .execute(
                "const area = document.querySelector('#source');
                 area.value = arguments[0];
                 area.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![serde_json::Value::String(source.clone())],
            )
            .await?;
        let expected = rows_of(&server_outline(&server, &source).await?);
        assert!(expected.len() > 10, "textwrap has many definitions");
        let shown = wait_for_rows(&client, expected.len()).await?;
        assert_eq!(shown, expected);
        screenshot(&client, test, "pasted.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// The page's summary line (`#summary`), e.g. "3 definitions ...".
async fn summary(client: &Client) -> anyhow::Result<String> {
    Ok(client.find(Locator::Css("#summary")).await?.text().await?)
}

#[tokio::test]
async fn broken_python_still_lists_what_parsed_and_clearing_empties_the_table() -> anyhow::Result<()>
{
    let test = "broken_python_still_lists_what_parsed_and_clearing_empties_the_table";
    let broken = "def ok():\n    return helper()\n\ndef broken(:\n    pass\n";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        open_analyze(&client, &server).await?;
        let area = client.find(Locator::Css("#source")).await?;
        area.clear().await?;
        area.send_keys(broken).await?;
        let warning = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#syntax-errors"))
            .await?
            .text()
            .await?;
        assert!(warning.contains("line 4"), "{warning}");
        let shown = page_rows(&client).await?;
        let ok: Row = ["function", "ok", "1–2", "helper"].map(str::to_owned);
        assert_eq!(shown.first(), Some(&ok), "{shown:?}");
        let said = summary(&client).await?;
        assert!(
            said.starts_with("2 definitions, 1 call inside them"),
            "{said}"
        );
        screenshot(&client, test, "broken.png").await?;

        // Clearing the source empties the table and says so.
        client
            .execute(
                "const area = document.querySelector('#source');
                 area.value = '';
                 area.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![],
            )
            .await?;
        assert_eq!(wait_for_rows(&client, 0).await?, Vec::<Row>::new());
        let said = summary(&client).await?;
        assert!(said.starts_with("0 definitions"), "{said}");
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}
