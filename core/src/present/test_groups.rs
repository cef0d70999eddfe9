//! A run's hidden-test outcomes grouped by chain and turn, the groups with failures first.
//!
//! A run of the RepoReuse dataset has hundreds of hidden tests; a reader wants the turns
//! that failed, not a flat list. Groups keep the order the server gave (chain, then turn)
//! within "has failures" and "all passed", and inside a group the tests that did not
//! pass come first.

use crate::api::HiddenTestRow;

/// The tests of one turn.
#[derive(Clone, Debug, PartialEq)]
pub struct TestGroup<'a> {
    pub chain: &'a str,
    pub turn: i64,
    /// How many did not pass (failed, errored, timed out, skipped).
    pub not_passed: usize,
    pub tests: Vec<&'a HiddenTestRow>,
}

/// `tests` grouped by (chain, turn), groups with a test that did not pass first.
///
/// ```
/// use wheelwright_core::api::HiddenTestRow;
/// use wheelwright_core::present::test_groups::test_groups;
/// let test = |chain: &str, turn, outcome: &str| HiddenTestRow {
///     chain: chain.into(), turn, module: "m".into(), name: "t".into(),
///     outcome: outcome.into(), duration_s: 0.1,
/// };
/// let tests = [test("a", 1, "passed"), test("a", 2, "passed"), test("a", 2, "failed")];
/// let groups = test_groups(&tests);
/// assert_eq!((groups[0].turn, groups[0].not_passed), (2, 1));
/// assert_eq!(groups[0].tests[0].outcome, "failed");
/// assert_eq!((groups[1].turn, groups[1].not_passed), (1, 0));
/// ```
pub fn test_groups(tests: &[HiddenTestRow]) -> Vec<TestGroup<'_>> {
    let mut groups: Vec<TestGroup<'_>> = Vec::new();
    for test in tests {
        let at = groups
            .iter()
            .position(|g| g.chain == test.chain && g.turn == test.turn);
        let group = match at {
            Some(i) => &mut groups[i],
            None => {
                groups.push(TestGroup {
                    chain: &test.chain,
                    turn: test.turn,
                    not_passed: 0,
                    tests: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        group.not_passed += usize::from(test.outcome != "passed");
        group.tests.push(test);
    }
    for group in &mut groups {
        // Stable: the server's order within "not passed" and within "passed".
        group.tests.sort_by_key(|t| t.outcome == "passed");
    }
    groups.sort_by_key(|g| g.not_passed == 0);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(chain: &str, turn: i64, name: &str, outcome: &str) -> HiddenTestRow {
        HiddenTestRow {
            chain: chain.to_owned(),
            turn,
            module: "tests/test_m.py".to_owned(),
            name: name.to_owned(),
            outcome: outcome.to_owned(),
            duration_s: 0.01,
        }
    }

    #[test]
    fn failing_groups_lead_in_server_order_and_failures_lead_each_group() {
        let tests = [
            test("a", 1, "t1", "passed"),
            test("a", 2, "t1", "passed"),
            test("a", 2, "t2", "error"),
            test("b", 1, "t1", "timeout"),
            test("b", 1, "t2", "passed"),
            test("b", 1, "t3", "failed"),
            test("b", 2, "t1", "passed"),
        ];
        let shown: Vec<(&str, i64, usize, Vec<&str>)> = test_groups(&tests)
            .into_iter()
            .map(|g| {
                (
                    g.chain,
                    g.turn,
                    g.not_passed,
                    g.tests.iter().map(|t| t.name.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("a", 2, 1, vec!["t2", "t1"]),
                ("b", 1, 2, vec!["t1", "t3", "t2"]),
                ("a", 1, 0, vec!["t1"]),
                ("b", 2, 0, vec!["t1"]),
            ]
        );
        assert!(test_groups(&[]).is_empty());
    }
}
