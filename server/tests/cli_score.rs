//! `wheelwright score`: the real binary on a small dataset and run bundle, as JSON, as tables and as SVG charts.
//!
//! The expected report is `fixtures/score/expected.json`. To regenerate it after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it cli_score::`,
//! then review the diff.

use crate::common;

use std::path::{Path, PathBuf};

use common::expect::expect_json;
use common::wheelwright;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/score")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).to_string_lossy().into_owned()
}

/// `wheelwright score <run> --dataset <the fixture dataset> --json <flags>`: the report, its
/// scorer version replaced by a placeholder (the version changes with every release; the key
/// must be there), and standard error.
fn score_json(run: &str, flags: &[&str]) -> (serde_json::Value, String) {
    let dataset = fixture("dataset");
    let mut args = vec!["score", run, "--dataset", &dataset, "--json"];
    args.extend(flags);
    let out = wheelwright(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{run}: {stderr}");
    let mut report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the output is JSON");
    let version = report
        .get_mut("scorer_version")
        .expect("the report names its scorer version");
    assert!(version.is_string(), "{version}");
    *version = serde_json::Value::from("<scorer_version>");
    (report, stderr)
}

#[test]
fn json_output_matches_the_expected_report() {
    let (got, stderr) = score_json(&fixture("run"), &[]);
    expect_json(&fixtures().join("expected.json"), &got);
    // No progress bar or other noise on a small input that is not on a terminal.
    assert!(stderr.trim().is_empty(), "{stderr}");
}

/// The `timings` object of a `--json --timings` report: every phase in seconds, none
/// negative, adding up to at most the total.
fn check_timings(timings: &serde_json::Value) {
    let phases = ["read", "index", "score", "aggregate"];
    let keys: Vec<&str> = timings
        .as_object()
        .expect("timings is an object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected: Vec<&str> = phases.iter().copied().chain(["total"]).collect();
    expected.sort_unstable();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, expected, "{timings}");
    let seconds = |k: &str| {
        timings[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k}: {timings}"))
    };
    let sum: f64 = phases.iter().map(|k| seconds(k)).sum();
    assert!(phases.iter().all(|k| seconds(k) >= 0.0), "{timings}");
    assert!(sum <= seconds("total") + 1e-6, "{timings}");
    assert!(seconds("total") > 0.0, "{timings}");
}

#[test]
fn timings_go_to_standard_error_and_into_the_json_report() {
    let (mut got, stderr) = score_json(&fixture("run"), &["--timings"]);
    let timings = got
        .as_object_mut()
        .and_then(|o| o.remove("timings"))
        .expect("a timings object beside the report");
    check_timings(&timings);
    // Apart from the timings, the report is the one without --timings.
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("expected.json")).expect("expected.json"),
    )
    .unwrap();
    assert_eq!(got, expected);
    let line = stderr.trim();
    assert!(
        line.starts_with("timings: read ")
            && ["index", "score", "aggregate", "total"]
                .iter()
                .all(|phase| line.contains(&format!(", {phase} "))),
        "{stderr}"
    );
    // Tables keep standard output; the timings are only on standard error.
    let out = wheelwright(&[
        "score",
        &fixture("run"),
        "--dataset",
        &fixture("dataset"),
        "--timings",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Per turn") && !text.contains("timings"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("timings: read "));
}

#[test]
fn tables_show_turns_overall_and_diagnostics() {
    let out = wheelwright(&["score", &fixture("run"), "--dataset", &fixture("dataset")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for words in [
        "Per turn",
        "reuse_repo",
        "slugs",
        "Overall (3 chains, 4 turns)",
        "Re-implemented targets",
        "textkit.clean.normalise",
        "—",
        "100.0",
        "Diagnostics",
        "absent: the run has no entry for this chain",
        "not valid JSON",
    ] {
        assert!(text.contains(words), "{words:?} missing from:\n{text}");
    }
}

#[test]
fn plots_are_one_svg_file_per_column_with_axes_legend_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("plots");
    let out = wheelwright(&[
        "score",
        &fixture("run"),
        "--dataset",
        &fixture("dataset"),
        "--json",
        "--plots",
        &plots.to_string_lossy(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("plots: 6 charts in "), "{stderr}");
    // The report is unchanged; the charts are the columns with a value at some turn.
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("the output is JSON");
    let mut names: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "turns-c_dup.svg",
            "turns-files.svg",
            "turns-lines.svg",
            "turns-recall_repo.svg",
            "turns-reuse_repo.svg",
            "turns-reuse_self.svg"
        ]
    );
    let svg = std::fs::read_to_string(plots.join("turns-reuse_repo.svg")).unwrap();
    assert!(
        svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"),
        "{svg}"
    );
    assert!(
        svg.contains(r#"xmlns="http://www.w3.org/2000/svg""#),
        "{svg}"
    );
    // Title, axes (turns along x, a rate from 0 to 100%), the legend naming the run's
    // model, each value exact on hover, and colours for light and dark.
    for text in [
        "\nreuse repo: T1 → T2\n",
        "\nT1\n",
        "\nT2\n",
        "\n0%\n",
        "\n100%\n",
        "\nfixture-model\n",
        "<title>fixture-model, T1: 33.3%</title>",
        "<title>fixture-model, T2: 0%</title>",
        "prefers-color-scheme: dark",
    ] {
        assert!(svg.contains(text), "{text:?} missing from:\n{svg}");
    }
}

#[test]
fn a_missing_bundle_fails_and_names_the_path() {
    let missing = fixtures().join("no-such-run");
    let missing = missing.to_string_lossy();
    let out = wheelwright(&["score", &missing, "--dataset", &fixture("dataset")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&*missing), "{stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");
}

#[test]
fn a_dataset_file_is_refused_a_dataset_is_a_directory() {
    // A file is not a dataset: refused with the path and where the format is documented.
    let file = fixture("expected.json");
    let out = wheelwright(&["score", &fixture("run"), "--dataset", &file]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&file), "{stderr}");
    assert!(
        stderr.contains("is not a directory; a dataset is a directory"),
        "{stderr}"
    );
    assert!(stderr.contains("docs/formats.md"), "{stderr}");
}

#[test]
fn a_file_that_is_no_bundle_fails_and_says_what_a_bundle_is() {
    let dataset = fixture("dataset");
    let out = wheelwright(&["score", &fixture("expected.json"), "--dataset", &dataset]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected.json"), "{stderr}");
    assert!(
        stderr.contains("give a directory, a .zip, a .jsonl or a .jsonl.gz file"),
        "{stderr}"
    );
}

#[test]
fn a_bundle_for_another_chain_is_refused_with_the_chains_the_dataset_has() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("run.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            r#"{"metadata": {"model": "m", "harness": "h", "memory": "interface", "date": "2026-11-29", "dataset": {"name": "score-fixture", "version": "1"}}}"#,
            "\n",
            r#"{"instance_id": "unknown/turn-1", "files": {"textkit/x.py": "x = 1\n"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = wheelwright(&[
        "score",
        &jsonl.to_string_lossy(),
        "--dataset",
        &fixture("dataset"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown/turn-1: the dataset has no chain \"unknown\"; its chains are slugs, tokens, absent"),
        "{stderr}"
    );
}

/// The fixture run as JSON Lines, each turn's line with `extra` more files.
fn run_as_jsonl(extra: &[(&str, &str)]) -> String {
    let mut bundle = wheelwright_server::bundle::read_path(
        &fixtures().join("run"),
        wheelwright_core::bundle::LIMITS,
    )
    .expect("the fixture run reads");
    for prediction in bundle.predictions.values_mut() {
        for (path, text) in extra {
            prediction
                .files
                .insert((*path).to_owned(), (*text).to_owned());
        }
    }
    bundle.to_jsonl()
}

fn gzip(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap()
}

/// The report of the bundle at `run`.
fn report_of(run: &Path) -> serde_json::Value {
    score_json(&run.to_string_lossy(), &[]).0
}

#[test]
fn json_lines_and_gzip_json_lines_score_as_the_directory_does() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = run_as_jsonl(&[]);
    std::fs::write(dir.path().join("run.jsonl"), &jsonl).unwrap();
    std::fs::write(dir.path().join("run.jsonl.gz"), gzip(jsonl.as_bytes())).unwrap();
    let expected = report_of(&fixtures().join("run"));
    for name in ["run.jsonl", "run.jsonl.gz"] {
        assert_eq!(report_of(&dir.path().join(name)), expected, "{name}");
    }
}

#[test]
fn the_command_line_reads_bundles_past_the_upload_limits_and_stops_a_gzip_bomb() {
    let dir = tempfile::tempdir().unwrap();
    // Each turn also leaves a 12 MiB log: the .jsonl is over the 16 MiB a whole JSON Lines
    // file could hold before lines were read one at a time.
    let log = "x".repeat(12 * 1024 * 1024);
    let large = run_as_jsonl(&[("logs/agent.log", &log)]);
    assert!(large.len() > 24 * 1024 * 1024, "{} bytes", large.len());
    let path = dir.path().join("large.jsonl.gz");
    std::fs::write(&path, gzip(large.as_bytes())).unwrap();
    // The extra files are not Python: the scores are the fixture's.
    assert_eq!(report_of(&path), report_of(&fixtures().join("run")));

    // A line without end inflating past the command line's 64 MiB per line.
    let meta_line = large.lines().next().unwrap();
    let mut endless = format!("{meta_line}\n").into_bytes();
    endless.extend(std::iter::repeat_n(b' ', 65 * 1024 * 1024));
    let bomb = dir.path().join("bomb.jsonl.gz");
    std::fs::write(&bomb, gzip(&endless)).unwrap();
    let out = wheelwright(&[
        "score",
        &bomb.to_string_lossy(),
        "--dataset",
        &fixture("dataset"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2 is longer than 67108864 bytes once decompressed"),
        "{stderr}"
    );
}

/// The fixture run's files as a zip, every entry under `top/` and in reverse name order.
fn zip_reversed(top: &str) -> Vec<u8> {
    use std::io::Write;
    let files = wheelwright_server::bundle::read_directory(
        &fixtures().join("run"),
        wheelwright_core::bundle::LIMITS,
    )
    .expect("the fixture run reads");
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in files.iter().rev() {
        zip.start_file(
            format!("{top}/{name}"),
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_bundle_read_chain_by_chain_in_any_order_scores_as_a_whole_one() {
    // `score` reads the turns while it scores the chains: a chain is scored once its last
    // turn is read. Given in reverse, no chain is whole before the end of the bundle.
    let dir = tempfile::tempdir().unwrap();
    let jsonl = run_as_jsonl(&[]);
    let (meta, turns) = jsonl.split_once('\n').unwrap();
    let mut reversed: Vec<&str> = turns.lines().collect();
    reversed.reverse();
    assert!(
        reversed.len() >= 3,
        "the fixture has turns of several chains"
    );
    let reversed = format!("{meta}\n{}\n", reversed.join("\n"));
    std::fs::write(dir.path().join("reversed.jsonl"), &reversed).unwrap();
    std::fs::write(
        dir.path().join("reversed.jsonl.gz"),
        gzip(reversed.as_bytes()),
    )
    .unwrap();
    std::fs::write(dir.path().join("reversed.zip"), zip_reversed("my-run")).unwrap();
    let expected = report_of(&fixtures().join("run"));
    for name in ["reversed.jsonl", "reversed.jsonl.gz", "reversed.zip"] {
        assert_eq!(report_of(&dir.path().join(name)), expected, "{name}");
    }
}

#[test]
fn an_error_late_in_a_streamed_bundle_fails_the_run_and_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = run_as_jsonl(&[]);
    let last = jsonl.lines().last().unwrap();
    let cases = [
        (
            "twice.jsonl",
            format!("{jsonl}{last}\n"),
            format!("line {}: instance", jsonl.lines().count() + 1),
        ),
        (
            "broken.jsonl",
            format!("{jsonl}{{\"instance_id\": \n"),
            format!("line {}: is not an instance", jsonl.lines().count() + 1),
        ),
    ];
    for (name, text, words) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = wheelwright(&[
            "score",
            &path.to_string_lossy(),
            "--dataset",
            &fixture("dataset"),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{name}: no report for a bundle that is refused"
        );
        assert!(
            stderr.contains("is not a usable run bundle") && stderr.contains(&words),
            "{name}: {stderr}"
        );
    }
}

#[derive(serde::Deserialize)]
struct RefusedCase {
    name: String,
    #[serde(default)]
    jsonl: Option<Vec<String>>,
    #[serde(default)]
    files: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    entries: Option<Vec<(String, String)>>,
    error: String,
}

/// The error, if any, of reading `case` (core's fixture of refused bundles) as `score` does:
/// streamed, then gathered into the chains of `dataset`.
fn streamed_error(
    case: &RefusedCase,
    dataset: &wheelwright_core::reporeuse::dataset::RepoReuseDataset,
    meta: &str,
) -> Option<String> {
    use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, StreamedTurn};
    type Turns =
        Box<dyn Iterator<Item = Result<StreamedTurn, wheelwright_core::bundle::BundleError>>>;
    let meta_line = format!(
        "{{\"metadata\": {}}}",
        serde_json::from_str::<serde_json::Value>(meta).unwrap()
    );
    let opened: Result<Turns, _> = match (&case.jsonl, &case.files, &case.entries) {
        (Some(lines), None, None) => {
            let lines: Vec<_> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| Ok((i + 1, l.replace("{META_LINE}", &meta_line))))
                .collect();
            RepoReuseBundle::stream_jsonl(lines).map(|(_, t)| Box::new(t) as Turns)
        }
        (None, files, entries) => {
            // As the host gives them, in the order core asks for.
            let entries: Vec<(String, String)> = entries
                .clone()
                .or_else(|| files.clone().map(|f| f.into_iter().collect()))
                .expect("a case gives jsonl, files or entries");
            let order = RepoReuseBundle::read_order(entries.iter().map(|(p, _)| p.as_str()));
            let entries: Vec<_> = order
                .into_iter()
                .map(|(at, name)| Ok((name, entries[at].1.replace("{META}", meta).into_bytes())))
                .collect();
            RepoReuseBundle::stream_files(entries.into_iter()).map(|(_, t)| Box::new(t) as Turns)
        }
        _ => panic!("case {:?} gives more than one spelling", case.name),
    };
    let turns = match opened {
        Ok(turns) => turns,
        Err(e) => return Some(e.to_string()),
    };
    RepoReuseBundle::chains(dataset, turns)
        .find_map(Result::err)
        .map(|e| e.to_string())
}

#[test]
fn a_streamed_bundle_is_refused_for_what_a_whole_one_is() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/bundle");
    let refused: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(core.join("refused.json")).unwrap()).unwrap();
    let cases: Vec<RefusedCase> = serde_json::from_value(refused["cases"].clone()).unwrap();
    let meta = std::fs::read_to_string(core.join("valid/metadata.json")).unwrap();
    // The fixture dataset, named as the bundles' metadata names it, its chain `slugs`
    // three turns long (the cases go up to turn 3).
    let mut dataset = wheelwright_server::dataset::load_dir(&fixtures().join("dataset")).unwrap();
    dataset.manifest.name = "textkit-fixture".to_owned();
    let slugs = dataset
        .chains
        .iter_mut()
        .find(|c| c.manifest.id == "slugs")
        .unwrap();
    let turn = slugs.turns[1].clone();
    slugs.turns.push(turn);
    let mut failures = Vec::new();
    for case in &cases {
        match streamed_error(case, &dataset, &meta) {
            None => failures.push(format!("{}: accepted", case.name)),
            Some(e) if !e.contains(&case.error) => {
                failures.push(format!(
                    "{}: error {e:?} does not contain {:?}",
                    case.name, case.error
                ));
            }
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
