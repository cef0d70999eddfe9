//! RepoReuse's pipeline, step "execute": a turn's expected values taken from runs of its reference in the sandbox, with unstable, erroring and mis-kinded cases discarded.
//!
//! No expected value is ever typed, by a person or a model: the synthesize step proposes
//! calls (with predicted reprs, which are never used), and this step keeps, for each call,
//! what the reference actually gave when the project's case runner ran it in the sandbox,
//! as a submission's code is run (`crate::hidden_tests::cases`). The reference runs
//! [`RUNS`] times, each in a fresh interpreter with its own hash seed; a case is kept only
//! when every run gave the same result, that result is of the kind the case proposed (a
//! value, or an exception for `raises`), and an exception is one the host can judge (a
//! built-in class or the repository's own). A turn left with fewer than
//! [`crate::reporeuse::synthesis::MIN_CASES`] cases is synthesized again.
//!
//! Example: a call that returns `[1, 2]` in both runs is kept with expected `[1, 2]`; one
//! that returns a set's items in iteration order (`["b", "a"]`, then `["a", "b"]`) is
//! discarded as unstable; one whose arguments raise `NameError` is discarded as erroring.

use serde::Serialize;
use serde_json::{Value, json};

use crate::hidden_tests::cases::{Case, CaseSuite, Observation};
use crate::hidden_tests::compare::{Compare, ExceptionClasses, Got};
use crate::hidden_tests::truncate;

/// How many times the reference runs: twice, so a result that depends on the process
/// (hash seeds, addresses) shows as unstable.
pub const RUNS: usize = 2;

/// How much of a result a discard reason shows.
const SHOWN: usize = 200;

/// What executing a turn's calls kept and discarded.
#[derive(Clone, Debug, PartialEq)]
pub struct Executed {
    /// In `cases.json`'s order.
    pub kept: Vec<KeptCase>,
    pub discarded: Vec<Discarded>,
}

/// A case kept, with the expected value the runs agreed on.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptCase {
    pub case: Case,
    /// The canonical value, or for `raises` the exception class's name.
    pub expected: Value,
}

/// A case left out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Discarded {
    pub id: String,
    pub why: String,
}

/// The cases of `suite` kept from the reference's `runs` (each [`CaseSuite::observe`]d),
/// exceptions judged with `classes`; an error when a run's stream cannot be trusted (the
/// reference or the runner misbehaved, so nothing it reported is used) or there are not
/// [`RUNS`] runs.
pub fn expected_values(
    suite: &CaseSuite,
    runs: &[Observation],
    classes: &ExceptionClasses,
) -> Result<Executed, String> {
    if runs.len() != RUNS {
        return Err(format!(
            "{} runs of the reference; {RUNS} are needed",
            runs.len()
        ));
    }
    if let Some((i, problem)) = runs
        .iter()
        .enumerate()
        .find_map(|(i, r)| Some((i, r.problem.as_ref()?)))
    {
        return Err(format!(
            "run {} of the reference cannot be used: {problem}",
            i + 1
        ));
    }
    let mut out = Executed {
        kept: Vec::new(),
        discarded: Vec::new(),
    };
    for case in suite.cases() {
        match kept_value(case, runs, classes) {
            Ok(expected) => out.kept.push(KeptCase {
                case: case.clone(),
                expected,
            }),
            Err(why) => out.discarded.push(Discarded {
                id: case.id.clone(),
                why,
            }),
        }
    }
    Ok(out)
}

/// The expected value of `case` from every run, or why it cannot have one.
fn kept_value(
    case: &Case,
    runs: &[Observation],
    classes: &ExceptionClasses,
) -> Result<Value, String> {
    let mut first: Option<&Got> = None;
    for (i, run) in runs.iter().enumerate() {
        let got = match run.results.get(&case.id) {
            None => {
                return Err(format!(
                    "run {} gave no result (it timed out or crashed)",
                    i + 1
                ));
            }
            Some((Err(why), _)) => return Err(format!("errs: {why}")),
            Some((Ok(got), _)) => got,
        };
        match first {
            None => first = Some(got),
            Some(earlier) if earlier != got => {
                return Err(format!(
                    "unstable: run 1 gave {}, run {} gave {}",
                    shown(earlier),
                    i + 1,
                    shown(got)
                ));
            }
            Some(_) => {}
        }
    }
    match (case.compare, first) {
        (_, None) => Err("no run".to_owned()),
        (Compare::Raises, Some(Got::Value(v))) => Err(format!(
            "returned {} where the answer proposed an exception",
            truncate(&v.to_string(), SHOWN)
        )),
        (Compare::Raises, Some(Got::Raised(class))) => {
            let name = class.rsplit('.').next().unwrap_or(class);
            if classes.derives(class, name) {
                Ok(Value::String(name.to_owned()))
            } else {
                Err(format!(
                    "raised {class}, neither a built-in exception nor the repository's, so no submission could be judged on it"
                ))
            }
        }
        (_, Some(Got::Raised(class))) => Err(format!("raised {class}")),
        (_, Some(Got::Value(v))) => Ok(v.clone()),
    }
}

fn shown(got: &Got) -> String {
    match got {
        Got::Value(v) => truncate(&v.to_string(), SHOWN),
        Got::Raised(class) => format!("an exception {class}"),
    }
}

/// The turn's `expected.json`: its chain, turn, the pinned repository (`name==version`)
/// and each kept case's expected value.
pub fn expected_json(chain: &str, turn: usize, repository: &str, kept: &[KeptCase]) -> String {
    let cases: Vec<Value> = kept
        .iter()
        .map(|k| {
            json!({
                "id": k.case.id,
                "function": k.case.function,
                "compare": k.case.compare,
                "expected": k.expected,
            })
        })
        .collect();
    let file = json!({"chain": chain, "turn": turn, "repository": repository, "cases": cases});
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// `cases.json` of the kept cases, in their order.
pub fn kept_cases_json(kept: &[KeptCase]) -> String {
    let cases: Vec<Case> = kept.iter().map(|k| k.case.clone()).collect();
    crate::reporeuse::synthesis::cases_json(&cases)
}
