//! The result stream the project's runners write in the sandbox: one `WWR <json>` line per result, then an end record.
//!
//! Each runner (`runner/run_cases.py`, `runner/run_pytest.py`) writes a line per result as
//! soon as it has it, and `WWR {"end": ...}` when it is done, then leaves the interpreter
//! with `os._exit` so no exit hook of the submission runs. The submission shares the
//! interpreter and can write to the same descriptor, so every line is the submission's as
//! far as trust goes; the readers only use the stream to learn what was computed, never
//! whether it was right. What the reader refuses, and the verdict then calls tampering:
//! a line with the prefix that is not a JSON object, and anything after the end record
//! (e.g. an exit hook rewriting results after the session). Lines without the prefix are
//! ignored: a container engine may print its own messages on the same channel.
//!
//! Example: `WWR {"case":"a","value":[1,2]}\nWWR {"end":1}\n` gives one record, ended.

use serde_json::{Map, Value};

/// The prefix of every record line.
pub const PREFIX: &str = "WWR ";

/// What a stream held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records {
    /// The records before the end record, in order.
    pub records: Vec<Map<String, Value>>,
    /// The end record, when one came.
    pub end: Option<Map<String, Value>>,
    /// Why the stream is not believed: a malformed record, or records after the end.
    pub problem: Option<String>,
}

/// Reads a stream. A last line without its newline (the run was killed while writing it)
/// is dropped.
pub fn read(stream: &[u8]) -> Records {
    let mut out = Records::default();
    let complete = match stream.iter().rposition(|&b| b == b'\n') {
        Some(last) => &stream[..=last],
        None => &[][..],
    };
    for (i, line) in complete.split(|&b| b == b'\n').enumerate() {
        let Some(body) = line.strip_prefix(PREFIX.as_bytes()) else {
            continue;
        };
        if out.end.is_some() {
            out.problem.get_or_insert_with(|| {
                "a result was written after the runner's end record (by an exit hook or a \
                 process of the submission)"
                    .to_owned()
            });
            continue;
        }
        let record = match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(map)) => map,
            _ => {
                out.problem.get_or_insert_with(|| {
                    format!("line {} of the result stream is not a result record", i + 1)
                });
                continue;
            }
        };
        if record.contains_key("end") {
            out.end = Some(record);
        } else {
            out.records.push(record);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_end_and_problems() {
        let r = read(b"engine noise\nWWR {\"case\":\"a\",\"value\":1}\nWWR {\"end\":1}\n");
        assert_eq!(r.records.len(), 1);
        assert!(r.end.is_some() && r.problem.is_none());

        let r = read(b"WWR {\"end\":0}\nWWR {\"case\":\"a\",\"value\":1}\n");
        assert!(r.records.is_empty());
        assert!(
            r.problem
                .as_deref()
                .unwrap()
                .contains("after the runner's end record")
        );

        let r = read(b"WWR [1]\n");
        assert!(r.problem.as_deref().unwrap().contains("line 1"));

        // Killed mid-line: the partial line is dropped, the rest kept.
        let r = read(b"WWR {\"case\":\"a\",\"value\":1}\nWWR {\"case\":\"b\",\"va");
        assert_eq!(
            (r.records.len(), r.end.is_none(), r.problem.is_none()),
            (1, true, true)
        );
    }
}
