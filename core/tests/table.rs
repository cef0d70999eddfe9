//! CSV of any table: cells a spreadsheet would run as formulas are neutralised, numbers never are.

use std::path::Path;

use serde_json::{Value, json};
use wheelwright_core::leaderboard::{LeaderboardRow, Origin, to_csv as leaderboard_csv};
use wheelwright_core::table::{header, row, to_csv};

#[derive(serde::Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    cell: Value,
    csv: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/table/formulas.json");
    let cases: Cases = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    cases.cases
}

/// Checks every case with `write`, which turns one record `{"cell": value}` into its CSV
/// data line (without the header and the line end).
fn check_cells(what: &str, write: impl Fn(&Value) -> String) {
    let mut failures = Vec::new();
    for case in cases() {
        let got = write(&json!({ "cell": case.cell }));
        if got != case.csv {
            failures.push(format!("{}: {got:?}, expected {:?}", case.name, case.csv));
        }
    }
    assert!(failures.is_empty(), "{what}: {failures:#?}");
}

#[test]
fn a_table_neutralises_text_that_starts_like_a_formula_and_leaves_numbers() {
    check_cells("to_csv", |record| {
        let csv = to_csv(std::slice::from_ref(record), &[]);
        let (head, data) = csv.split_once("\r\n").unwrap();
        assert_eq!(head, "cell");
        data.strip_suffix("\r\n").unwrap().to_owned()
    });
}

#[test]
fn a_table_written_a_record_at_a_time_is_the_same_as_whole() {
    check_cells("row", |record| {
        row(record, &["cell"])
            .strip_suffix("\r\n")
            .unwrap()
            .to_owned()
    });
    let records: Vec<Value> = cases()
        .into_iter()
        .map(|c| json!({"name": c.name, "cell": c.cell}))
        .collect();
    let columns = ["name", "cell"];
    let streamed: String = std::iter::once(header(&columns))
        .chain(records.iter().map(|r| row(r, &columns)))
        .collect();
    assert_eq!(streamed, to_csv(&records, &columns));
}

#[test]
fn leaderboard_labels_are_neutralised_and_its_metrics_stay_numbers() {
    let labels = ["model".to_owned(), "harness".to_owned()];
    let metrics = ["reuse_repo".to_owned(), "delta".to_owned()];
    let row = LeaderboardRow {
        origin: Origin::Verified,
        labels: [
            ("model".to_owned(), "=HYPERLINK(\"x\")".to_owned()),
            ("harness".to_owned(), "-1".to_owned()),
        ]
        .into(),
        metrics: [("reuse_repo".to_owned(), 12.5), ("delta".to_owned(), -3.25)].into(),
        source: Some("@paper".to_owned()),
        run: Some(1),
        cohort: "dataset d 1".to_owned(),
    };
    let csv = leaderboard_csv(&labels, &metrics, &[row]);
    // A label that reads as a number is written as one: it cannot run anything, and the
    // leaderboard does not know which labels are text.
    assert_eq!(
        csv,
        "origin,cohort,model,harness,reuse_repo,delta,source\r\n\
         verified,dataset d 1,\"'=HYPERLINK(\"\"x\"\")\",-1,12.5,-3.25,'@paper\r\n"
    );
}
