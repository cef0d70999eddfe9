//! The run pages end to end: from the leaderboard to a baseline's run, its per-turn table and
//! one turn's case (requirement, both files, targets, all as the API has them), and hidden
//! tests queued from the page with their progress followed live until the job is done.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use fantoccini::{Client, Locator};
use serde_json::Value;
use wheelwright_tests::{Chromedriver, Scheme, Server, api, screenshot, wait_for};

/// A run's id by its baseline name, from `GET /api/v1/runs`.
async fn baseline_run(server: &Server, baseline: &str) -> anyhow::Result<i64> {
    api(server, "/api/v1/runs").await?["items"]
        .as_array()
        .context("runs")?
        .iter()
        .find(|r| r["baseline"] == baseline)
        .and_then(|r| r["id"].as_i64())
        .with_context(|| format!("no {baseline} baseline run"))
}

/// The text of the file view `selector` (`#submission`, `#reference`), one line per row.
async fn file_text(client: &Client, selector: &str) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            &format!(
                "return [...document.querySelectorAll('{selector} .line-text')]
                   .map(l => l.textContent).join('\\n');"
            ),
            vec![],
        )
        .await?)
}

/// A source file's lines as the page shows them (`str::lines`, joined).
fn lines(text: &Value) -> Value {
    Value::String(
        text.as_str()
            .unwrap_or("")
            .lines()
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Checks that `#requirement` shows `markdown` as core renders it, compared in the browser
/// (which serialises HTML its own way).
async fn assert_markdown(client: &Client, markdown: &str) -> anyhow::Result<()> {
    let html = wheelwright_core::present::markdown::markdown_html(markdown);
    let same = client
        .execute(
            "const t = document.createElement('template'); t.innerHTML = arguments[0];
             // Leptos leaves an empty comment (a marker) after the HTML it sets.
             const shown = document.querySelector('#requirement').innerHTML.replaceAll('<!---->', '');
             return t.innerHTML === shown ? true : [t.innerHTML, shown];",
            vec![Value::String(html)],
        )
        .await?;
    assert_eq!(
        same,
        Value::Bool(true),
        "the requirement is core's Markdown rendering"
    );
    Ok(())
}

/// The line numbers of the source lines `selector` matches (their ids end in `-L{n}`).
async fn marked_lines(client: &Client, selector: &str) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            &format!(
                "return [...document.querySelectorAll('{selector}')]
                   .map(l => Number(l.id.split('-L')[1]));"
            ),
            vec![],
        )
        .await?)
}

/// The lines of the agent's file where the API says a target is used, in order.
fn use_lines(case: &Value) -> Value {
    let mut lines: Vec<i64> = case["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["uses"].as_array().cloned().unwrap_or_default())
        .filter_map(|u| u["line"].as_i64())
        .collect();
    lines.sort_unstable();
    lines.dedup();
    Value::from(lines)
}

/// The ids of the steps the list shows (not filtered out).
async fn visible_steps(client: &Client) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            "return [...document.querySelectorAll('#steps li[id^=action-]')]
               .filter(s => getComputedStyle(s).display !== 'none').map(s => s.id);",
            vec![],
        )
        .await?)
}

/// Presses and releases `key` as a user would (not a synthetic event).
async fn press(client: &Client, key: char) -> anyhow::Result<()> {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let keys = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    client.perform_actions(keys).await?;
    Ok(())
}

/// Waits until the page is at `path` and shows turn `turn`'s case: a key pressed while
/// the case is still loading has no case to act on, as for a user.
async fn wait_for_turn(client: &Client, path: &str, turn: i64) -> anyhow::Result<()> {
    wait_for(
        client,
        "return location.pathname;",
        &Value::String(path.to_owned()),
        Duration::from_secs(20),
    )
    .await?;
    wait_for(
        client,
        "return document.querySelector('.chain-strip .strip-turn.current')?.textContent ?? null;",
        &Value::String(turn.to_string()),
        Duration::from_secs(20),
    )
    .await
}

/// (target, reused, re-implemented) per row of the targets table.
async fn page_targets(client: &Client) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            "return [...document.querySelectorAll('#targets tr.target-row')].map(r => [
               r.dataset.target,
               r.querySelector('.reused .flag').textContent.trim() === 'reused',
               r.querySelector('.reimplemented').textContent.trim() === 're-implemented',
             ]);",
            vec![],
        )
        .await?)
}

fn api_targets(case: &Value) -> Value {
    Value::Array(
        case["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                serde_json::json!([
                    t["target"],
                    t["referenced"],
                    t["reimplementation"]["reimplemented"] == true
                ])
            })
            .collect(),
    )
}

#[tokio::test]
async fn a_baseline_run_and_its_turn_cases_show_what_the_api_has() -> anyhow::Result<()> {
    let test = "a_baseline_run_and_its_turn_cases_show_what_the_api_has";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        // The run list: one row per run the API lists, each linking to its page.
        let runs = api(&server, "/api/v1/runs").await?;
        let ids: Vec<Value> = runs["items"]
            .as_array()
            .context("runs")?
            .iter()
            .map(|r| r["id"].clone())
            .collect();
        client.goto(&server.url("/")).await?;
        // The header is rendered by the wasm app after it loads: wait for it, do not race it.
        client
            .wait()
            .at_most(std::time::Duration::from_secs(30))
            .for_element(Locator::LinkText("Runs"))
            .await?
            .click()
            .await?;
        wait_for(
            &client,
            "return [...document.querySelectorAll('#runs tr.run-row')].map(r => Number(r.dataset.run));",
            &Value::Array(ids),
            Duration::from_secs(20),
        )
        .await?;
        screenshot(&client, test, "runs.png").await?;

        // The leaderboard links the reference baseline's row to its run.
        let reference = baseline_run(&server, "reference").await?;
        client.goto(&server.url("/leaderboard/reporeuse")).await?;
        let link = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::XPath(
                "//table[@id='leaderboard']//a[@class='run-link' and normalize-space()='reference baseline']",
            ))
            .await?;
        assert_eq!(
            link.attr("href").await?.as_deref(),
            Some(format!("/runs/{reference}").as_str())
        );
        screenshot(&client, test, "leaderboard.png").await?;
        link.click().await?;

        // The run page: one row per turn, grouped by chain, as the API lists them.
        let run = api(&server, &format!("/api/v1/runs/{reference}")).await?;
        let chains = run["chains"].as_array().context("chains")?;
        let turns = api(&server, &format!("/api/v1/runs/{reference}/turns")).await?;
        let expected: Vec<Value> = turns["items"]
            .as_array()
            .context("turns")?
            .iter()
            .map(|t| serde_json::json!([t["chain"], t["turn"]]))
            .collect();
        wait_for(
            &client,
            "return [...document.querySelectorAll('#turns tr.turn-row')]
               .map(r => [r.dataset.chain, Number(r.dataset.turn)]);",
            &Value::Array(expected.clone()),
            Duration::from_secs(20),
        )
        .await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/runs/{reference}")
        );
        let groups = client.find_all(Locator::Css("#turns tbody.chain")).await?;
        assert_eq!(groups.len(), chains.len());
        // The overall row shows the API's reuse rate.
        let reuse = run["overall"]["reuse_repo"]["value"].as_f64().context("reuse")?;
        let cell = client
            .find(Locator::Css("#overall td[data-column='reuse_repo']"))
            .await?;
        assert_eq!(cell.text().await?, format!("{reuse:.1}"));
        let csv = client
            .find(Locator::LinkText("CSV"))
            .await?
            .attr("href")
            .await?;
        assert_eq!(
            csv.as_deref(),
            Some(format!("/api/v1/runs/{reference}/turns?format=csv").as_str())
        );
        screenshot(&client, test, "run.png").await?;

        // A turn's case: requirement, both files and the targets as the API has them.
        let (chain, turn) = (expected[1][0].as_str().unwrap(), expected[1][1].as_i64().unwrap());
        client
            .find(Locator::Css(&format!(
                "#turns tr.turn-row[data-chain='{chain}'][data-turn='{turn}'] a.case-link"
            )))
            .await?
            .click()
            .await?;
        let case = api(
            &server,
            &format!("/api/v1/runs/{reference}/chains/{chain}/turns/{turn}"),
        )
        .await?;
        client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#requirement"))
            .await?;
        assert_markdown(&client, case["requirement"].as_str().unwrap()).await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/runs/{reference}/{chain}/{turn}")
        );
        assert_eq!(
            file_text(&client, "#submission").await?,
            lines(&case["submission"]["text"])
        );
        assert_eq!(
            file_text(&client, "#reference").await?,
            lines(&case["reference"]["text"])
        );
        assert!(!case["targets"].as_array().unwrap().is_empty());
        assert_eq!(page_targets(&client).await?, api_targets(&case));
        // Highlighted as tree-sitter-python's query says, and the uses of targets marked.
        let keywords: Value = client
            .execute(
                "return [...document.querySelectorAll('#submission .hl-keyword')].map(k => k.textContent);",
                vec![],
            )
            .await?;
        assert!(
            keywords.as_array().unwrap().contains(&Value::from("def")),
            "{keywords}"
        );
        assert_eq!(marked_lines(&client, "#submission .line.uses").await?, use_lines(&case));
        assert_eq!(
            client.find(Locator::Css("#diff-summary")).await?.text().await?,
            "The agent's file is the reference, line for line."
        );
        screenshot(&client, test, "case.png").await?;
        client
            .execute("document.querySelector('#submission').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-files.png").await?;

        // The chain strip: next and previous by link and by the j and k keys.
        let here = format!("/runs/{reference}/{chain}/{turn}");
        let path = |n: i64| format!("/runs/{reference}/{chain}/{n}");
        client.find(Locator::Css("#next-turn")).await?.click().await?;
        wait_for_turn(&client, &path(turn + 1), turn + 1).await?;
        press(&client, 'k').await?;
        wait_for_turn(&client, &here, turn).await?;
        press(&client, 'j').await?;
        wait_for_turn(&client, &path(turn + 1), turn + 1).await?;
        client.find(Locator::Css("#prev-turn")).await?.click().await?;
        wait_for_turn(&client, &here, turn).await?;
        let current = client
            .find(Locator::Css(".chain-strip .strip-turn.current"))
            .await?
            .text()
            .await?;
        assert_eq!(current, turn.to_string());

        // A repository target's definition opens the repository's source at its lines.
        let definition = client
            .find(Locator::Css("#targets tr.target-row a.definition"))
            .await?;
        let href = definition.attr("href").await?.context("a definition link")?;
        // Without a trajectory the scorer did not look the definition up: the page finds
        // it by the target's name.
        assert!(href.contains("/source?name="), "{href}");
        definition.click().await?;
        let marked = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(".source-page .line.span"))
            .await?;
        wait_for(
            &client,
            "const r = document.querySelector('.source-page .line.span').getBoundingClientRect();
             return r.bottom > 0 && r.top < window.innerHeight;",
            &Value::Bool(true),
            Duration::from_secs(10),
        )
        .await
        .context("the definition is scrolled into view")?;
        assert!(!marked.text().await?.is_empty());
        screenshot(&client, test, "source.png").await?;

        // The copy baseline's case of the same turn: re-implemented targets and evidence.
        let copy = baseline_run(&server, "copy").await?;
        let case = api(
            &server,
            &format!("/api/v1/runs/{copy}/chains/{chain}/turns/{turn}"),
        )
        .await?;
        client
            .goto(&server.url(&format!("/runs/{copy}/{chain}/{turn}")))
            .await?;
        client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#targets tr.target-row"))
            .await?;
        let targets = api_targets(&case);
        assert!(
            targets.as_array().unwrap().iter().any(|t| t[2] == true),
            "the copy baseline re-implements a target of {chain} turn {turn}"
        );
        assert_eq!(page_targets(&client).await?, targets);
        assert_eq!(
            file_text(&client, "#submission").await?,
            lines(&case["submission"]["text"])
        );
        // Its diff against the reference: rows that differ, with the changed words marked.
        let changed: Value = client
            .execute(
                "return document.querySelectorAll('#diff tr.changed, #diff tr.added, #diff tr.removed').length;",
                vec![],
            )
            .await?;
        assert!(changed.as_u64().unwrap_or(0) > 0, "the copy differs from the reference");
        client
            .execute("document.querySelector('#targets').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-copy-targets.png").await?;
        client
            .execute("document.querySelector('#diff').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-copy-diff.png").await?;

        // A case study of each re-implemented target: its definition in the repository
        // beside the turn's code, the shared callees marked in both.
        let reimplemented: Vec<Value> = targets
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t[2] == true)
            .map(|t| t[0].clone())
            .collect();
        let studies: Value = client
            .execute(
                "return [...document.querySelectorAll('.case-study')].map(s => s.dataset.target);",
                vec![],
            )
            .await?;
        assert_eq!(studies, Value::Array(reimplemented));
        wait_for(
            &client,
            "const s = document.querySelector('.case-study');
             return s.querySelectorAll('.study-earlier mark.callee').length > 0
                 && s.querySelectorAll('.study-later mark.callee').length > 0;",
            &Value::Bool(true),
            Duration::from_secs(20),
        )
        .await
        .context("the shared callees are marked on both sides")?;
        client
            .execute("document.querySelector('.case-study').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-study.png").await?;
        client
            .execute("document.querySelector('#submission').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-copy-files.png").await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

#[tokio::test]
async fn hidden_tests_run_from_the_page_with_live_progress() -> anyhow::Result<()> {
    let test = "hidden_tests_run_from_the_page_with_live_progress";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let reference = baseline_run(&server, "reference").await?;
        client
            .goto(&server.url(&format!("/runs/{reference}")))
            .await?;
        let button = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#run-tests:not([disabled])"))
            .await?;
        // Before any test, pass is undefined.
        let pass = Locator::Css("#overall td[data-column='pass']");
        assert_eq!(client.find(pass).await?.text().await?, "—");
        button.click().await?;

        // Follow the progress shown on the page until the job is done.
        let deadline = Instant::now() + Duration::from_secs(300);
        let mut seen: Vec<(String, String)> = Vec::new();
        let mut first_running: Option<String> = None;
        let mut shot_running = false;
        loop {
            let now: Value = client
                .execute(
                    "const p = document.querySelector('#test-progress');
                     return p ? [p.dataset.state, document.querySelector('#test-turn').textContent] : null;",
                    vec![],
                )
                .await?;
            if let Some([state, turn]) = now.as_array().map(Vec::as_slice) {
                let entry = (
                    state.as_str().unwrap_or("").to_owned(),
                    turn.as_str().unwrap_or("").to_owned(),
                );
                if seen.last() != Some(&entry) {
                    seen.push(entry.clone());
                }
                if entry.0 == "running" && first_running.is_none() {
                    first_running = Some(entry.1.clone());
                }
                if entry.0 == "running" && first_running.as_ref() != Some(&entry.1) && !shot_running {
                    client
                        .execute(
                            "document.querySelector('.hidden-tests').scrollIntoView();",
                            vec![],
                        )
                        .await?;
                    screenshot(&client, test, "running.png").await?;
                    shot_running = true;
                }
                if entry.0 == "done" || entry.0 == "failed" {
                    break;
                }
            }
            if let Ok(error) = client.find(Locator::Css("#test-error")).await {
                bail!("the page shows an error: {}", error.text().await?);
            }
            if Instant::now() > deadline {
                bail!("the job did not finish in time; the page showed {seen:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        println!("progress the page showed: {seen:?}");
        assert_eq!(seen.last().unwrap().0, "done", "{seen:?}");
        // Live: the page showed the job before it was done, turn by turn.
        assert!(
            seen.iter().any(|(s, _)| s == "queued" || s == "running"),
            "{seen:?}"
        );
        assert!(
            seen.iter().filter(|(s, _)| s == "running").count() > 1,
            "{seen:?}"
        );
        let total = api(&server, &format!("/api/v1/runs/{reference}/tests")).await?;
        assert_eq!(total["state"], "done");
        let passed = total["tests_passed"].as_u64().unwrap();
        assert_eq!(passed, total["tests_total"].as_u64().unwrap());
        assert_eq!(
            client.find(Locator::Css("#test-passed")).await?.text().await?,
            format!("{passed} of {passed} tests passed")
        );

        // The run is reloaded: the reference passes everything.
        wait_for(
            &client,
            "return document.querySelector(\"#overall td[data-column='pass']\").textContent;",
            &Value::String("100.0".to_owned()),
            Duration::from_secs(20),
        )
        .await?;
        assert_eq!(
            client
                .find(Locator::Css("#overall td[data-column='resolve']"))
                .await?
                .text()
                .await?,
            "100.0"
        );
        // Per turn: passed/total in the turn table, as the API has them.
        let turns = total["turns"].as_array().context("turns")?;
        assert!(!turns.is_empty());
        for t in turns {
            let cell = client
                .find(Locator::Css(&format!(
                    "#turns tr.turn-row[data-chain='{}'][data-turn='{}'] td.tests",
                    t["chain"].as_str().unwrap(),
                    t["turn"]
                )))
                .await?;
            assert_eq!(cell.text().await?, format!("{}/{}", t["passed"], t["total"]));
        }
        // Per test: names and outcomes, as many as the API lists, one folded group per
        // turn in core's order (turns with failures first).
        let outcomes: Vec<wheelwright_core::api::HiddenTestRow> =
            serde_json::from_value(total["tests"].clone())?;
        let want: Vec<(String, i64, bool, usize)> =
            wheelwright_core::present::test_groups::test_groups(&outcomes)
                .into_iter()
                .map(|g| (g.chain.to_owned(), g.turn, false, g.tests.len()))
                .collect();
        let groups: Vec<(String, i64, bool, usize)> = serde_json::from_value(
            client
                .execute(
                    "return [...document.querySelectorAll('#test-results details.test-group')]
                       .map(g => [g.dataset.chain, Number(g.dataset.turn), g.open,
                                  g.querySelectorAll('tr.test-row').length]);",
                    vec![],
                )
                .await?,
        )?;
        assert_eq!(groups, want);
        assert!(client.find(Locator::Css("#run-tests")).await.is_err());
        client
            .find(Locator::Css("#test-results summary"))
            .await?
            .click()
            .await?;
        client
            .find(Locator::Css("#test-results details.test-group summary"))
            .await?
            .click()
            .await?;
        client
            .execute(
                "document.querySelector('.hidden-tests').scrollIntoView();",
                vec![],
            )
            .await?;
        screenshot(&client, test, "done.png").await?;

        // A fresh visit shows the finished job without queueing it again.
        client.refresh().await?;
        wait_for(
            &client,
            "const p = document.querySelector('#test-progress'); return p && p.dataset.state;",
            &Value::String("done".to_owned()),
            Duration::from_secs(20),
        )
        .await?;
        anyhow::Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// Uploads a JSON Lines bundle through the API; the stored run's summary.
async fn upload(server: &Server, jsonl: String) -> anyhow::Result<Value> {
    Ok(reqwest::Client::new()
        .post(server.url("/api/v1/runs"))
        .header("Content-Type", "application/x-ndjson")
        .body(jsonl)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// A one-turn bundle on the shipped dataset whose trajectory reads the file that defines
/// the turn's targets (by range, so the count comes from the repository's file) and runs a
/// command the scorer has no rule for.
fn bundle_with_a_trajectory() -> anyhow::Result<String> {
    let turn = wheelwright_tests::workspace_root()
        .join("datasets/reporeuse-networkx/chains/road-audit/turn-1/reference.py");
    let reference = std::fs::read_to_string(turn)?;
    let metadata = serde_json::json!({"metadata": {
        "model": "evidence-e2e", "harness": "generic", "memory": "interface",
        "date": "2026-12-02", "dataset": {"name": "reporeuse-networkx", "version": "1"}}});
    let instance = serde_json::json!({
        "instance_id": "road-audit/turn-1",
        "files": {"solutions/road_audit/distances.py": reference},
        "trajectory": {"format": "generic-1", "actions": [
            {"kind": "bash", "command": "ls networkx/algorithms/shortest_paths", "output": "__init__.py\nastar.py\ndense.py\ngeneric.py\nunweighted.py\nweighted.py\n", "returncode": 0},
            {"kind": "bash", "command": "nl -ba networkx/algorithms/shortest_paths/weighted.py | sed -n '1,5000p'", "output": "", "returncode": 0},
            {"kind": "bash", "command": "frobnicate --all", "output": "", "returncode": 127}
        ]}
    });
    Ok(format!("{metadata}\n{instance}\n"))
}

#[tokio::test]
async fn the_case_shows_every_action_and_the_run_what_was_not_understood() -> anyhow::Result<()> {
    let test = "the_case_shows_every_action_and_the_run_what_was_not_understood";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let run = upload(&server, bundle_with_a_trajectory()?).await?;
        let id = run["id"].as_i64().context("the run's id")?;
        assert_eq!(run["unparsed"]["not_understood"], 1, "{}", run["unparsed"]);

        // The run page: the report of unparsed actions, linking to the action.
        client.goto(&server.url(&format!("/runs/{id}"))).await?;
        let report = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#unparsed table.unparsed"))
            .await?;
        let text = report.text().await?;
        assert!(text.contains("frobnicate"), "{text}");
        client
            .execute(
                "document.querySelector('#unparsed').scrollIntoView();",
                vec![],
            )
            .await?;
        screenshot(&client, test, "run-unparsed.png").await?;
        client
            .find(Locator::Css("#unparsed td.examples a"))
            .await?
            .click()
            .await?;

        // The case: one row per action, as the API has them, and the recall evidence.
        let case = api(
            &server,
            &format!("/api/v1/runs/{id}/chains/road-audit/turns/1"),
        )
        .await?;
        let expected: Vec<Value> = case["trajectory"]["actions"]
            .as_array()
            .context("actions")?
            .iter()
            .map(|a| a["index"].clone())
            .collect();
        assert_eq!(expected.len(), 3);
        wait_for(
            &client,
            "return [...document.querySelectorAll('#steps li[id^=action-]')]
               .map(r => Number(r.id.slice('action-'.length)));",
            &Value::Array(expected),
            Duration::from_secs(20),
        )
        .await?;
        let unknown = client
            .find(Locator::Css("#steps li#action-3.not-understood"))
            .await?
            .text()
            .await?;
        assert!(unknown.contains("not understood"), "{unknown}");
        let shown = client
            .find(Locator::Css("#steps li#action-2 .shown"))
            .await?
            .text()
            .await?;
        assert!(
            shown.starts_with("networkx/algorithms/shortest_paths/weighted.py:1-"),
            "{shown}"
        );
        let recalled: Vec<i64> = case["targets"]
            .as_array()
            .context("targets")?
            .iter()
            .filter(|t| t["recalled"] == true)
            .flat_map(|t| t["recalled_by"].as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_i64())
            .collect();
        assert!(recalled.contains(&2), "{}", case["targets"]);
        let links = client
            .find_all(Locator::Css("#targets td.recalled a[href='#action-2']"))
            .await?;
        assert!(!links.is_empty());
        // The step that showed a target's definition is flagged, and only it.
        let flagged: Value = client
            .execute(
                "return [...document.querySelectorAll('#steps li.flagged')].map(s => s.id);",
                vec![],
            )
            .await?;
        assert_eq!(flagged, serde_json::json!(["action-2"]));
        let flag = client
            .find(Locator::Css("#action-2 .showed-target"))
            .await?
            .text()
            .await?;
        assert!(flag.starts_with("showed the definition of"), "{flag}");
        // A step's output, folded until opened, as the observations route has it.
        let observations = api(
            &server,
            &format!("/api/v1/runs/{id}/chains/road-audit/turns/1/observations"),
        )
        .await?;
        client
            .find(Locator::Css("#action-1 details.observation summary"))
            .await?
            .click()
            .await?;
        let output = client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("#action-1 pre.output"))
            .await?;
        assert_eq!(
            Value::String(output.text().await?),
            Value::String(
                observations["observations"][0]["output"]
                    .as_str()
                    .context("an output")?
                    .trim_end()
                    .to_owned()
            )
        );
        // The filter: only the steps that showed a target, then one category.
        let filter = client.find(Locator::Css("#step-filter")).await?;
        filter.clone().select_by_value("targets").await?;
        assert_eq!(
            visible_steps(&client).await?,
            serde_json::json!(["action-2"])
        );
        filter.clone().select_by_value("not-understood").await?;
        assert_eq!(
            visible_steps(&client).await?,
            serde_json::json!(["action-3"])
        );
        filter.select_by_value("all").await?;
        assert_eq!(
            visible_steps(&client).await?,
            serde_json::json!(["action-1", "action-2", "action-3"])
        );
        client
            .execute("document.querySelector('#steps').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-actions.png").await?;
        client.set_window_size(390, 844).await?;
        client
            .execute(
                "document.querySelector('#targets').scrollIntoView();",
                vec![],
            )
            .await?;
        screenshot(&client, test, "case-targets-390.png").await?;
        client
            .execute("document.querySelector('#steps').scrollIntoView();", vec![])
            .await?;
        screenshot(&client, test, "case-actions-390.png").await?;
        client.set_window_size(1280, 1000).await?;

        // The same case in a browser that prefers dark, wide and narrow.
        let dark_profile = tempfile::tempdir()?;
        let dark = driver
            .browser_with(dark_profile.path(), Scheme::Dark)
            .await?;
        let shots = async {
            dark.goto(&server.url(&format!("/runs/{id}/road-audit/1")))
                .await?;
            dark.wait()
                .at_most(Duration::from_secs(20))
                .for_element(Locator::Css("#steps"))
                .await?;
            let scheme = dark
                .execute(
                    "return matchMedia('(prefers-color-scheme: dark)').matches;",
                    vec![],
                )
                .await?;
            assert_eq!(scheme, Value::Bool(true), "the session prefers dark");
            screenshot(&dark, test, "case-dark.png").await?;
            for (selector, name) in [
                ("#diff", "case-diff-dark.png"),
                ("#steps", "case-steps-dark.png"),
            ] {
                dark.execute(
                    &format!("document.querySelector('{selector}').scrollIntoView();"),
                    vec![],
                )
                .await?;
                screenshot(&dark, test, name).await?;
            }
            dark.set_window_size(390, 844).await?;
            dark.execute("window.scrollTo(0, 0);", vec![]).await?;
            screenshot(&dark, test, "case-dark-390.png").await?;
            dark.execute(
                "document.querySelector('#submission').scrollIntoView();",
                vec![],
            )
            .await?;
            screenshot(&dark, test, "case-files-dark-390.png").await?;
            anyhow::Ok(())
        }
        .await;
        dark.close().await?;
        shots?;
        Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}

/// A one-turn bundle whose trajectory has `steps` actions of the shapes real agents run
/// (listings, reads by range, greps, test runs, edits), one of them (the 450th) reading the
/// file that defines the turn's targets.
fn bundle_with_a_long_trajectory(steps: usize) -> anyhow::Result<String> {
    let turn = wheelwright_tests::workspace_root()
        .join("datasets/reporeuse-networkx/chains/road-audit/turn-1/reference.py");
    let reference = std::fs::read_to_string(turn)?;
    let shapes = [
        (
            "ls -la networkx/algorithms",
            "total 812\ndrwxr-xr-x 2 root root 4096 .\n",
        ),
        (
            "grep -rn \"def dijkstra\" networkx | head -20",
            "networkx/algorithms/shortest_paths/weighted.py:120:def dijkstra_path(\n",
        ),
        (
            "sed -n '1,40p' solutions/road_audit/distances.py",
            "import networkx as nx\n",
        ),
        (
            "python -m pytest -q solutions 2>&1 | tail -5",
            "3 passed in 0.41s\n",
        ),
        (
            "cat > /tmp/probe.py <<'EOF'\nprint(1)\nEOF\npython /tmp/probe.py",
            "1\n",
        ),
    ];
    let actions: Vec<Value> = (1..=steps)
        .map(|i| {
            let (command, output) = if i == 450 {
                ("nl -ba networkx/algorithms/shortest_paths/weighted.py | sed -n '1,5000p'", "")
            } else {
                shapes[i % shapes.len()]
            };
            serde_json::json!({"kind": "bash", "command": command, "output": output.repeat(1 + i % 7), "returncode": 0})
        })
        .collect();
    let metadata = serde_json::json!({"metadata": {
        "model": "long-trajectory-e2e", "harness": "generic", "memory": "interface",
        "date": "2026-12-02", "dataset": {"name": "reporeuse-networkx", "version": "1"}}});
    let instance = serde_json::json!({
        "instance_id": "road-audit/turn-1",
        "files": {"solutions/road_audit/distances.py": reference},
        "trajectory": {"format": "generic-1", "actions": actions}
    });
    Ok(format!("{metadata}\n{instance}\n"))
}

#[tokio::test]
async fn a_500_step_trajectory_scrolls_and_a_step_permalink_lands_on_it() -> anyhow::Result<()> {
    let test = "a_500_step_trajectory_scrolls_and_a_step_permalink_lands_on_it";
    let server = Server::start().await?;
    let driver = Chromedriver::start()?;
    let profile = tempfile::tempdir()?;
    let client = driver.browser(profile.path()).await?;
    let result = async {
        let run = upload(&server, bundle_with_a_long_trajectory(500)?).await?;
        let id = run["id"].as_i64().context("the run's id")?;

        // A step's permalink: the page opens scrolled to it, and it is the flagged one.
        client
            .goto(&server.url(&format!("/runs/{id}/road-audit/1#action-450")))
            .await?;
        wait_for(
            &client,
            "const s = document.getElementById('action-450');
             if (!s) return false;
             const r = s.getBoundingClientRect();
             return r.top >= 0 && r.top < window.innerHeight;",
            &Value::Bool(true),
            Duration::from_secs(20),
        )
        .await?;
        let steps: Value = client
            .execute("return document.querySelectorAll('#steps li[id^=action-]').length;", vec![])
            .await?;
        assert_eq!(steps, Value::from(500));
        let flagged: Value = client
            .execute(
                "return [...document.querySelectorAll('#steps li.flagged')].map(s => s.id);",
                vec![],
            )
            .await?;
        assert_eq!(flagged, serde_json::json!(["action-450"]));
        screenshot(&client, test, "permalink.png").await?;

        // Scrolling the whole list, a frame per step of the scroll: every frame is drawn
        // and the last step ends up on screen. The frame gaps are printed, not asserted
        // (speed is for benchmarks; this checks that it scrolls at all).
        let scrolled: Value = client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 window.scrollTo(0, 0);
                 const end = document.documentElement.scrollHeight - innerHeight;
                 const n = 60; let i = 0; let last = performance.now(); const gaps = [];
                 function step(now) {
                   gaps.push(now - last); last = now;
                   if (i++ < n) { window.scrollTo(0, end * i / n); requestAnimationFrame(step); return; }
                   const r = document.getElementById('action-500').getBoundingClientRect();
                   done({frames: gaps.length, max_gap_ms: Math.max(...gaps.slice(1)),
                         last_on_screen: r.bottom > 0 && r.top < innerHeight});
                 }
                 requestAnimationFrame(step);",
                vec![],
            )
            .await?;
        println!("scrolling 500 steps: {scrolled}");
        assert_eq!(scrolled["frames"], Value::from(61), "{scrolled}");
        assert_eq!(scrolled["last_on_screen"], Value::Bool(true), "{scrolled}");
        screenshot(&client, test, "bottom.png").await?;
        Ok(())
    }
    .await;
    client.close().await?;
    server.stop().await?;
    result
}
