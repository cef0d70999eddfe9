//! pytest's JUnit XML reports, read for `dataset verify` (which runs trusted references only, never submissions).

use super::{EXCERPT_BYTES, TestOutcome, truncate};

/// One `<testcase>` of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// pytest's dotted module path, then the class for methods: `test_turn.TestX`.
    pub classname: String,
    pub name: String,
    pub outcome: TestOutcome,
    pub duration_s: f64,
    pub excerpt: String,
}

/// Reads the `<testcase>` elements of a JUnit XML report, in order.
pub fn testcases(xml: &str) -> Result<Vec<TestCase>, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("the report is not XML: {e}"))?;
    let mut out = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let mut outcome = TestOutcome::Passed;
        let mut excerpt = String::new();
        for child in node.children().filter(|c| c.is_element()) {
            let this = match child.tag_name().name() {
                "failure" => TestOutcome::Failed,
                "error" => TestOutcome::Errored,
                "skipped" => TestOutcome::Skipped,
                _ => continue,
            };
            // An error in teardown comes after a failure: the worst outcome wins.
            if outcome == TestOutcome::Passed || this == TestOutcome::Errored {
                outcome = this;
            }
            if excerpt.is_empty() {
                let message = child.attribute("message").unwrap_or_default();
                let text = child.text().unwrap_or_default();
                excerpt = truncate(&format!("{message}\n{text}"), EXCERPT_BYTES);
            }
        }
        out.push(TestCase {
            classname: node.attribute("classname").unwrap_or_default().to_owned(),
            name: node.attribute("name").unwrap_or_default().to_owned(),
            outcome,
            duration_s: node
                .attribute("time")
                .and_then(|t| t.parse().ok())
                .filter(|t: &f64| t.is_finite() && *t >= 0.0)
                .unwrap_or(0.0),
            excerpt,
        });
    }
    Ok(out)
}
