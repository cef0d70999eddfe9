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
//! That guard is [`Field::guarded`], and every record of every table (this module's and
//! the leaderboard's) goes through it and then through the `csv` crate, which quotes.
//! [`header`] and [`row`] write a table one record at a time, for downloads streamed in
//! pages.

use std::borrow::Cow;

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
    write_record(
        &mut out,
        columns.iter().map(|c| Field::Any((*c).to_owned())),
    );
    out
}

/// One CSV record: `record`'s cells under `columns` (as [`to_csv`] writes them; a
/// record that is not an object fills the column named `value`).
pub fn row(record: &Value, columns: &[&str]) -> String {
    let cells = columns.iter().map(|column| match record {
        Value::Object(map) => map.get(*column).map(cell).unwrap_or_default(),
        other if *column == "value" => cell(other),
        _ => Field::default(),
    });
    let mut out = String::new();
    write_record(&mut out, cells);
    out
}

/// The field a JSON value becomes: a string is text, whatever it looks like.
fn cell(value: &Value) -> Field {
    match value {
        Value::Null => Field::default(),
        Value::String(s) => Field::Text(s.clone()),
        Value::Bool(b) => Field::Any(b.to_string()),
        Value::Number(n) => Field::Any(n.to_string()),
        Value::Object(map) if map.get("status").and_then(Value::as_str) == Some("defined") => {
            map.get("value").map_or_else(Field::default, cell)
        }
        Value::Object(map) if map.get("status").and_then(Value::as_str) == Some("undefined") => {
            Field::default()
        }
        other => Field::Any(other.to_string()),
    }
}

/// One field of a record, before it is guarded and quoted; an empty cell by default.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Field {
    /// Text (a JSON string): neutralised when it starts like a formula, even when it
    /// reads as a number (`"-5"` is text).
    Text(String),
    /// A field that is a number when it reads as one (a score, a header, a leaderboard
    /// cell, which does not know which of its labels are text), and text otherwise.
    Any(String),
}

impl Default for Field {
    fn default() -> Self {
        Self::Any(String::new())
    }
}

impl Field {
    /// The field as a spreadsheet may open it: the one formula-injection guard.
    fn guarded(&self) -> Cow<'_, str> {
        match self {
            Self::Any(field) if is_number(field) => Cow::Borrowed(field),
            Self::Text(field) | Self::Any(field) => neutralised(field),
        }
    }
}

/// Characters that make a spreadsheet read a cell as a formula when it starts with one.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `text` as a cell no spreadsheet runs: prefixed with `'` when it starts like a formula.
fn neutralised(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_START) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
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

/// Appends one CSV record of `fields`, each read as a number when it is one (see
/// [`Field::Any`]): what the leaderboard writes its rows with.
pub(crate) fn push_record(out: &mut String, fields: impl Iterator<Item = String>) {
    write_record(out, fields.map(Field::Any));
}

/// Appends one CSV record (RFC 4180, CRLF): every field guarded, then quoted by the `csv`
/// crate where it needs it (a comma, a quote, a line break).
fn write_record(out: &mut String, fields: impl Iterator<Item = Field>) {
    let fields: Vec<Field> = fields.collect();
    let guarded: Vec<Cow<'_, str>> = fields.iter().map(Field::guarded).collect();
    // `csv` writes a record of no field or one empty field as `""` (so a reader does not
    // skip it as a blank line); these tables have always written an empty line there,
    // and an empty table's header is one.
    if guarded.len() <= 1 && guarded.iter().all(|f| f.is_empty()) {
        out.push_str("\r\n");
        return;
    }
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .quote_style(csv::QuoteStyle::Necessary)
        .flexible(true)
        .from_writer(Vec::new());
    // Writing to a Vec cannot fail, and the fields are text, so the record is too.
    let bytes = writer
        .write_record(guarded.iter().map(|f| f.as_bytes()))
        .ok()
        .and_then(|()| writer.into_inner().ok())
        .unwrap_or_default();
    out.push_str(&String::from_utf8_lossy(&bytes));
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
            // One empty cell is an empty line, as an empty table's header is.
            (json!([{"only": null}]), "only\r\n\r\n"),
            (json!([{"a": "", "b": ""}]), "b,a\r\n,\r\n"),
            (
                json!([{"a": "line\nbreak", "b": "cr\r", "z": "tab\tand 'quote'"}]),
                "z,b,a\r\ntab\tand 'quote',\"cr\r\",\"line\nbreak\"\r\n",
            ),
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
