//! Twin tests: each top-level pytest test beside a copy with one assertion turned so that at most one of the two can pass.
//!
//! A pytest suite must run whole in the sandbox, so whatever reports its outcomes can be
//! forged. Twins make forging cost as much as computing: for each top-level test the judge's
//! copy of the file holds the test and its twin, the same function with one top-level
//! assertion changed (an expected literal changed by one character or one unit, or the
//! comparison turned: `==`/`!=`, `in`/`not in`, `is`/`is not`, `not x`/`x`). Both get new
//! names made of the file's own words, and every test, twin and the canary is placed in an
//! order drawn per run after the rest of the module. On code that computes the right
//! answers the real test passes and its twin fails; no code can make both pass, because the
//! two differ only in an assertion and its negation. A forger who cannot compute an answer
//! cannot tell which of the two is the real one: it sees two tests that differ in one
//! literal or one operator.
//!
//! Only an assertion that is a statement of the test's own body, before any `return`, is
//! changed: one inside an `if`, a loop or a `with pytest.raises(...)` block may never run,
//! and a twin whose changed assertion never runs would pass beside its test. A test with no
//! such assertion gets no twin (see `docs/hidden-tests.md` for what that leaves).
//!
//! Example: `def test_name():\n    assert canonical("Django") == "django"\n` gets the twin
//! `def test_canonical_name():\n    assert canonical("Django") == "djangp"\n` (names and
//! the changed character drawn from the seed).

use crate::syntax::{Kind, NodeId, SyntaxTree, parse};

/// SplitMix64: a tiny, well-known generator; enough to draw names, positions and mutations
/// from a host-chosen seed (core has no randomness of its own).
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// A top-level test function of a file: its whole text (decorators included) and where its
/// name is within that text.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TopTest {
    pub(super) name: String,
    pub(super) text: String,
    name_at: (usize, usize),
    /// The ways its twin may be made, best first (see [`Edit::rank`]).
    edits: Vec<Edit>,
}

/// One change that turns a test into its twin: `text[start..end]` becomes `replacement`.
#[derive(Clone, Debug, PartialEq)]
struct Edit {
    start: usize,
    end: usize,
    replacement: String,
    /// 0: an expected literal changed (nothing tells the two apart); 1: an operator or a
    /// `not` turned (a reader may guess which form a test author would write).
    rank: u8,
}

/// A test file split into the statements that are not top-level tests (kept in order) and
/// its top-level test functions.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Split {
    pub(super) rest: String,
    pub(super) tests: Vec<TopTest>,
}

/// Splits `source` into its top-level `test*` functions and everything else. A file that
/// does not parse cleanly is left whole (no tests taken out): it is judged as it is.
pub(super) fn split(source: &str) -> Split {
    let tree = parse(source);
    if tree.has_syntax_errors() || tree.over_budget() {
        return Split {
            rest: source.to_owned(),
            tests: Vec::new(),
        };
    }
    let mut tests = Vec::new();
    let mut rest = String::with_capacity(source.len());
    let mut copied = 0;
    for top in tree.children(tree.root()) {
        let Some((def, name)) = test_function(&tree, top) else {
            continue;
        };
        let span = tree.node(top).span;
        let (start, end) = (span.start_byte as usize, span.end_byte as usize);
        let name_span = tree.node(name).span;
        let edits = edits(&tree, def)
            .into_iter()
            .map(|e| Edit {
                start: e.start - start,
                end: e.end - start,
                ..e
            })
            .collect();
        tests.push(TopTest {
            name: tree.text(name).to_owned(),
            text: source[start..end].to_owned(),
            name_at: (
                name_span.start_byte as usize - start,
                name_span.end_byte as usize - start,
            ),
            edits,
        });
        rest.push_str(&source[copied..start]);
        copied = end;
    }
    rest.push_str(&source[copied..]);
    Split { rest, tests }
}

/// The function definition and its name node when `top` is a top-level `def test*` (maybe
/// decorated).
fn test_function(tree: &SyntaxTree<'_>, top: NodeId) -> Option<(NodeId, NodeId)> {
    let def = match tree.kind(top) {
        Kind::FunctionDefinition => top,
        Kind::DecoratedDefinition => tree.child(top, crate::syntax::Field::Definition)?,
        _ => return None,
    };
    if tree.kind(def) != Kind::FunctionDefinition {
        return None;
    }
    // `async def` tests need a plugin the hardened session does not load; leave them whole.
    if tree.text(def).starts_with("async") {
        return None;
    }
    let name = tree.child(def, crate::syntax::Field::Name)?;
    tree.text(name).starts_with("test").then_some((def, name))
}

/// Every edit that makes a twin of the function `def`, in source byte offsets.
fn edits(tree: &SyntaxTree<'_>, def: NodeId) -> Vec<Edit> {
    let Some(body) = tree.child(def, crate::syntax::Field::Body) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for statement in tree.children(body) {
        match tree.kind(statement) {
            // Statements after a return never run: an assertion there cannot make a twin.
            Kind::ReturnStatement => break,
            Kind::AssertStatement => {
                if let Some(condition) = tree.children(statement).next() {
                    out.extend(turned(tree, condition));
                }
            }
            _ => {}
        }
    }
    out
}

/// The edits of one assertion's condition: its expected literals changed (rank 0), or the
/// condition turned (rank 1).
fn turned(tree: &SyntaxTree<'_>, condition: NodeId) -> Vec<Edit> {
    let span = |id: NodeId| {
        let s = tree.node(id).span;
        (s.start_byte as usize, s.end_byte as usize)
    };
    let source = tree.source();
    match tree.kind(condition) {
        Kind::NotOperator => {
            let Some(argument) = tree.child(condition, crate::syntax::Field::Argument) else {
                return Vec::new();
            };
            let (start, end) = span(condition);
            vec![Edit {
                start,
                end,
                replacement: tree.text(argument).to_owned(),
                rank: 1,
            }]
        }
        Kind::ComparisonOperator => {
            let operands: Vec<NodeId> = tree.children(condition).collect();
            let [left, right] = operands[..] else {
                return Vec::new();
            };
            let (between_start, between_end) = (span(left).1, span(right).0);
            let operator = source[between_start..between_end].trim();
            let mut out = Vec::new();
            if operator == "==" {
                // A literal operand (or the literals of a tuple or list operand) changed by
                // one character or one unit cannot equal what the other side computes when
                // the original does, and reads like any other expected value. (Not for
                // `!=`: `x != "a"` and `x != "b"` can both hold.)
                for side in [right, left] {
                    out.extend(literal_edits(tree, side));
                }
            }
            let opposite = match operator {
                "==" => "!=",
                "!=" => "==",
                "in" => "not in",
                "not in" => "in",
                "is" => "is not",
                "is not" => "is",
                _ => return out,
            };
            let leading = between_start + source[between_start..between_end].len()
                - source[between_start..between_end].trim_start().len();
            out.push(Edit {
                start: leading,
                end: leading + operator.len(),
                replacement: opposite.to_owned(),
                rank: 1,
            });
            out
        }
        _ => {
            let (start, end) = span(condition);
            let text = tree.text(condition);
            let simple = matches!(
                tree.kind(condition),
                Kind::Identifier | Kind::Call | Kind::Attribute | Kind::Subscript
            );
            vec![Edit {
                start,
                end,
                replacement: if simple {
                    format!("not {text}")
                } else {
                    format!("not ({text})")
                },
                rank: 1,
            }]
        }
    }
}

/// Changes of `operand` when it is a literal (a string without interpolation, an integer or
/// a float, maybe negated) or a tuple or list of them: one per literal.
fn literal_edits(tree: &SyntaxTree<'_>, operand: NodeId) -> Vec<Edit> {
    let elements: Vec<NodeId> = match tree.kind(operand) {
        Kind::Tuple | Kind::List | Kind::ParenthesizedExpression => {
            tree.children(operand).collect()
        }
        _ => vec![operand],
    };
    elements
        .into_iter()
        .filter_map(|e| literal_edit(tree, e))
        .collect()
}

fn literal_edit(tree: &SyntaxTree<'_>, literal: NodeId) -> Option<Edit> {
    let span = tree.node(literal).span;
    let (start, end) = (span.start_byte as usize, span.end_byte as usize);
    let text = tree.text(literal);
    match tree.kind(literal) {
        Kind::Integer => {
            let value: i128 = text.parse().ok()?;
            Some(Edit {
                start,
                end,
                replacement: (value + 1).to_string(),
                rank: 0,
            })
        }
        Kind::Float => {
            // The last digit before any exponent, moved by one: a different number.
            let digits_end = text.find(['e', 'E']).unwrap_or(text.len());
            let at = text[..digits_end].rfind(|c: char| c.is_ascii_digit())?;
            let digit = text.as_bytes()[at] - b'0';
            let mut replacement = text.to_owned();
            replacement.replace_range(at..=at, &((digit + 1) % 10).to_string());
            Some(Edit {
                start,
                end,
                replacement,
                rank: 0,
            })
        }
        Kind::String => {
            let children: Vec<NodeId> = tree.children(literal).collect();
            let prefix = children
                .iter()
                .find(|&&c| tree.kind(c) == Kind::StringStart)
                .map(|&c| tree.text(c).to_ascii_lowercase())?;
            // f-strings compute their text; raw and byte strings keep their letters as they
            // are, so one changed letter changes the value of every kind left.
            if prefix.contains('f')
                || tree
                    .descendants(literal)
                    .any(|c| matches!(tree.kind(c), Kind::Interpolation | Kind::EscapeSequence))
            {
                return None;
            }
            let contents: Vec<NodeId> = children
                .iter()
                .copied()
                .filter(|&c| tree.kind(c) == Kind::StringContent)
                .collect();
            match contents[..] {
                [] => {
                    // The empty string: a twin expects one letter.
                    let start_node = children.first().copied()?;
                    let at = tree.node(start_node).span.end_byte as usize;
                    Some(Edit {
                        start: at,
                        end: at,
                        replacement: "a".to_owned(),
                        rank: 0,
                    })
                }
                [content] => {
                    let text = tree.text(content);
                    let offset = tree.node(content).span.start_byte as usize;
                    let (at, c) = text
                        .char_indices()
                        .rfind(|(_, c)| c.is_ascii_alphanumeric())?;
                    let replacement = match c {
                        '9' => '0',
                        'z' => 'a',
                        'Z' => 'A',
                        c => (c as u8 + 1) as char,
                    };
                    Some(Edit {
                        start: offset + at,
                        end: offset + at + 1,
                        replacement: replacement.to_string(),
                        rank: 0,
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

impl TopTest {
    /// Whether this test can have a twin.
    pub(super) fn has_twin(&self) -> bool {
        !self.edits.is_empty()
    }

    /// The test under a new name.
    pub(super) fn renamed(&self, name: &str) -> String {
        let mut text = self.text.clone();
        text.replace_range(self.name_at.0..self.name_at.1, name);
        text
    }

    /// Its twin under `name`: one of the best-ranked edits, drawn by `rng`; `None` when it
    /// has none.
    pub(super) fn twin(&self, name: &str, rng: &mut SplitMix) -> Option<String> {
        let best = self.edits.iter().map(|e| e.rank).min()?;
        let candidates: Vec<&Edit> = self.edits.iter().filter(|e| e.rank == best).collect();
        let edit = candidates[rng.below(candidates.len())];
        let mut text = self.text.clone();
        // The edit comes after the name (it is in the body), so apply it first.
        text.replace_range(edit.start..edit.end, &edit.replacement);
        text.replace_range(self.name_at.0..self.name_at.1, name);
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin_of(source: &str, seed: u64) -> Option<String> {
        let split = split(source);
        split.tests[0].twin("test_twin", &mut SplitMix(seed))
    }

    #[test]
    fn twins_change_one_expected_literal_or_turn_the_assertion() {
        let cases = [
            (
                "def test_a():\n    assert f(\"Django\") == \"django\"\n",
                "def test_twin():\n    assert f(\"Django\") == \"djangp\"\n",
            ),
            (
                "def test_a():\n    x = 1\n    assert g(x) == 41\n",
                "def test_twin():\n    x = 1\n    assert g(x) == 42\n",
            ),
            (
                "def test_a():\n    assert h() == 2.5\n",
                "def test_twin():\n    assert h() == 2.6\n",
            ),
            (
                "def test_a():\n    assert h() == ''\n",
                "def test_twin():\n    assert h() == 'a'\n",
            ),
            (
                "def test_a():\n    assert not m('x').evaluate()\n",
                "def test_twin():\n    assert m('x').evaluate()\n",
            ),
            (
                "def test_a():\n    assert m('x').evaluate()\n",
                "def test_twin():\n    assert not m('x').evaluate()\n",
            ),
            (
                "def test_a():\n    assert a or b\n",
                "def test_twin():\n    assert not (a or b)\n",
            ),
            (
                "def test_a():\n    assert f() != 'a'\n",
                "def test_twin():\n    assert f() == 'a'\n",
            ),
            (
                "def test_a():\n    assert S('1') != S('2')\n",
                "def test_twin():\n    assert S('1') == S('2')\n",
            ),
            (
                "def test_a():\n    assert k not in d\n",
                "def test_twin():\n    assert k in d\n",
            ),
            (
                "@pytest.mark.parametrize('v', [1, 2])\ndef test_a(v):\n    assert v is not None\n",
                "@pytest.mark.parametrize('v', [1, 2])\ndef test_twin(v):\n    assert v is None\n",
            ),
        ];
        for (source, twin) in cases {
            assert_eq!(
                twin_of(source, 1).as_deref(),
                Some(twin.trim_end()),
                "{source}"
            );
        }
    }

    #[test]
    fn assertions_that_may_not_run_make_no_twin() {
        let cases = [
            "def test_a():\n    with pytest.raises(E):\n        f()\n        assert x == 1\n",
            "def test_a():\n    for x in xs:\n        assert x == 1\n",
            "def test_a():\n    if c:\n        assert x == 1\n",
            "def test_a():\n    return\n    assert x == 1\n",
            "def test_a():\n    def inner():\n        assert x == 1\n",
            "def test_a():\n    x = f()\n",
        ];
        for source in cases {
            assert_eq!(twin_of(source, 1), None, "{source}");
        }
    }

    #[test]
    fn escaped_and_formatted_strings_are_turned_not_changed() {
        let source = "def test_a():\n    assert f() == f\"{x}\"\n    assert g() == \"a\\n\"\n";
        let twin = twin_of(source, 3).unwrap_or_default();
        assert!(
            twin.contains("f() != f\"{x}\"") || twin.contains("g() != \"a\\n\""),
            "{twin}"
        );
    }

    #[test]
    fn the_rest_keeps_everything_but_the_top_level_tests() {
        let source = "import pytest\n\nX = 1\n\n\ndef test_a():\n    assert X == 1\n\n\ndef helper():\n    return 2\n\n\nclass TestB:\n    def test_c(self):\n        assert helper() == 2\n";
        let split = split(source);
        assert_eq!(
            split
                .tests
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["test_a"]
        );
        assert!(!split.rest.contains("def test_a"));
        assert!(split.rest.contains("def helper") && split.rest.contains("class TestB"));
        assert_eq!(
            split.tests[0].renamed("test_x"),
            "def test_x():\n    assert X == 1"
        );
    }
}
