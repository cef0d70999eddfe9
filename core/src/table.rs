//! Any table of JSON records as CSV: what every "download as CSV" of the API and the app uses.
//!
//! A record is a JSON object; its scalar fields become cells (`null` an empty cell), a
//! score `{"status": "defined", "value": v}` becomes `v` and an undefined one an empty
//! cell, and any other nested value its compact JSON. Columns are the records' keys in
//! first-seen order. Example: `[{"chain": "a", "reuse": {"status": "defined", "value": 50.0}}]`
//! gives `chain,reuse\r\na,50\r\n`.
//!
//! Text a submitter wrote (a model name, notes) ends up in these cells, and a spreadsheet
//! runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return before
//! one) as a formula. Every text cell that starts with one of them is neutralised the
//! OWASP way, with a leading `'`; numbers never are, so a negative score stays a number.
//! [`header`] and [`row`] write a table one record at a time, for downloads streamed in
//! pages.

use serde_json::Value;

/// CSV (RFC 4180, CRLF line ends) of `records`, which should be JSON objects; anything
/// else is one column named `value`. Columns named in `order` come first, in that order
/// (JSON objects do not keep their fields' order), then the others as first seen.
pub fn to_csv(records: &[Value], order: &[&str]) -> String {
    let mut columns: Vec<&str> = order
        .iter()
        .copied()
        .filter(|c| {
            records
                .iter()
                .any(|r| r.as_object().is_some_and(|m| m.contains_key(*c)))
        })
        .collect();
    for record in records {
        match record {
            Value::Object(map) => {
                for key in map.keys() {
                    if !columns.contains(&key.as_str()) {
                        columns.push(key);
                    }
                }
            }
            _ => {
                if !columns.contains(&"value") {
                    columns.push("value");
                }
            }
        }
    }
    let mut out = header(&columns);
    for record in records {
        out.push_str(&row(record, &columns));
    }
    out
}

/// The CSV header record of `columns`.
pub fn header(columns: &[&str]) -> String {
    let mut out = String::new();
    push_record(&mut out, columns.iter().map(|c| (*c).to_owned()));
    out
}

/// One CSV record: `record`'s cells under `columns` (as [`to_csv`] writes them; a
/// record that is not an object fills the column named `value`).
pub fn row(record: &Value, columns: &[&str]) -> String {
    let cells = columns.iter().map(|column| match record {
        Value::Object(map) => map.get(*column).map(cell).unwrap_or_default(),
        other if *column == "value" => cell(other),
        _ => String::new(),
    });
    let mut out = String::new();
    push_record(&mut out, cells);
    out
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => neutralised(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Object(map) if map.get("status").and_then(Value::as_str) == Some("defined") => {
            map.get("value").map(cell).unwrap_or_default()
        }
        Value::Object(map) if map.get("status").and_then(Value::as_str) == Some("undefined") => {
            String::new()
        }
        other => other.to_string(),
    }
}

/// Characters that make a spreadsheet read a cell as a formula when it starts with one.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `text` as a cell no spreadsheet runs: prefixed with `'` when it starts like a formula.
fn neutralised(text: &str) -> String {
    if text.starts_with(FORMULA_START) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// Whether `field` is a number as Rust or JSON writes one (`-1.5`, `2e-3`): such a field
/// is a value, not text, and is never neutralised.
fn is_number(field: &str) -> bool {
    field
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        && field.bytes().any(|b| b.is_ascii_digit())
        && field.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Appends one CSV record, quoting the fields that need it. A field that is not a number
/// and starts like a formula is neutralised here too, so every table (the leaderboard's
/// writes its fields as text) is safe to open in a spreadsheet.
pub(crate) fn push_record(out: &mut String, fields: impl Iterator<Item = String>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let field = if is_number(&field) {
            field
        } else {
            neutralised(&field)
        };
        if field.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&field);
        }
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn records_become_rows_with_scores_flattened_and_fields_quoted() {
        let cases = [
            (
                json!([{"chain": "a", "reuse": {"status": "defined", "value": 50.0}}]),
                "chain,reuse\r\na,50.0\r\n",
            ),
            (json!([{"a": 1, "b": 2, "z": 3}]), "z,b,a\r\n3,2,1\r\n"),
            (
                json!([
                    {"id": 1, "notes": "x, \"y\"", "pass": {"status": "undefined", "reason": "no_tests"}},
                    {"id": 2, "extra": [1, 2], "notes": null}
                ]),
                "id,notes,pass,extra\r\n1,\"x, \"\"y\"\"\",,\r\n2,,,\"[1,2]\"\r\n",
            ),
            (json!([]), "\r\n"),
            (json!([3, "x"]), "value\r\n3\r\nx\r\n"),
        ];
        for (records, expected) in cases {
            assert_eq!(
                to_csv(records.as_array().unwrap(), &["z", "b", "missing"]),
                expected,
                "{records}"
            );
        }
    }
}
