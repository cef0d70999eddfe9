//! Any table of JSON records as CSV: what every "download as CSV" of the API and the app uses.
//!
//! A record is a JSON object; its scalar fields become cells (`null` an empty cell), a
//! score `{"status": "defined", "value": v}` becomes `v` and an undefined one an empty
//! cell, and any other nested value its compact JSON. Columns are the records' keys in
//! first-seen order. Example: `[{"chain": "a", "reuse": {"status": "defined", "value": 50.0}}]`
//! gives `chain,reuse\r\na,50\r\n`.

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
    let mut out = String::new();
    push_record(&mut out, columns.iter().map(|c| (*c).to_owned()));
    for record in records {
        let cells = columns.iter().map(|column| match record {
            Value::Object(map) => map.get(*column).map(cell).unwrap_or_default(),
            other if *column == "value" => cell(other),
            _ => String::new(),
        });
        push_record(&mut out, cells);
    }
    out
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
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

/// Appends one CSV record, quoting the fields that need it.
pub(crate) fn push_record(out: &mut String, fields: impl Iterator<Item = String>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
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
