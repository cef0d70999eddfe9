//! The comparison kinds of a case suite (`exact`, `approx`, `set`, `sorted`, `raises`), run on the host with Python's semantics.
//!
//! A case's expected value was produced by running the reference in Python and putting the
//! result in canonical form (the dataset's `tools/canon.py`: tuples and iterables become
//! lists, sets sorted lists, dicts with non-`str` keys sorted `[key, value]` lists); the
//! sandbox puts the submission's result in the same form. These functions then decide, as
//! the dataset's generated pytest file would have:
//!
//! - `exact`: Python's `==` on the canonical values: `1 == 1.0` and `True == 1` hold, lists
//!   compare element by element, dicts by key set and values;
//! - `approx`: the dataset's `close`: numbers within 1e-9 relative or absolute
//!   (`math.isclose`), booleans only equal to the same boolean, the rest structurally;
//! - `set`, `sorted`: the canonical items compared as a set (duplicates ignored) or as a
//!   multiset (duplicates counted), whatever order the sandbox sent them in;
//! - `raises`: the call raised the expected class (`NetworkXUnfeasible`, defined in
//!   `builtins` or in the repository's package, as `pytest.raises(nx.X if hasattr(nx, "X")
//!   else X)` resolves it) or a class the host knows to derive from it
//!   ([`ExceptionClasses`]: `NetworkXNoCycle` for `NetworkXUnfeasible`, `KeyError` for
//!   `LookupError`). Only the class the call raised is read from the sandbox, never its
//!   ancestry: a class can be made to derive from every exception there is, but the one
//!   class a call raised cannot be right for every case unless the code knows which one
//!   each case expects.
//!
//! Integers beyond 64 bits are compared as floats (the JSON reader keeps no wider
//! integers); no shipped case has one.
//!
//! ```
//! use serde_json::json;
//! use wheelwright_core::hidden_tests::compare::{Compare, ExceptionClasses, Got, matches};
//! let classes = ExceptionClasses::builtins("networkx");
//! assert!(matches(Compare::Exact, &Got::Value(json!([1.0, true])), &json!([1, 1]), &classes));
//! assert!(matches(Compare::Set, &Got::Value(json!([3, 1, 3])), &json!([1, 3]), &classes));
//! let raised = Got::Raised("networkx.exception.NetworkXUnfeasible".into());
//! assert!(matches(Compare::Raises, &raised, &json!("NetworkXUnfeasible"), &classes));
//! let decode = Got::Raised("builtins.UnicodeDecodeError".into());
//! assert!(matches(Compare::Raises, &decode, &json!("ValueError"), &classes));
//! ```

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::exceptions::ExceptionClasses;

/// How a case's result is compared with the expected one (`cases.json` `compare`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compare {
    Exact,
    Approx,
    Set,
    Sorted,
    Raises,
}

/// What the sandbox reported for a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Got {
    /// The call returned this value, in canonical form.
    Value(Value),
    /// The call raised an exception of this class, `module.qualname`.
    Raised(String),
}

/// Tolerance of `approx`, relative and absolute (the dataset's `close`).
const TOLERANCE: f64 = 1e-9;

/// Whether `got` passes a case comparing with `compare` against `expected`; `classes` are
/// the exception classes the host knows (the built-in ones, and the repository's package's).
pub fn matches(compare: Compare, got: &Got, expected: &Value, classes: &ExceptionClasses) -> bool {
    match (compare, got) {
        (Compare::Raises, Got::Raised(class)) => expected
            .as_str()
            .is_some_and(|want| classes.derives(class, want)),
        (Compare::Raises, Got::Value(_)) | (_, Got::Raised(_)) => false,
        (Compare::Exact, Got::Value(v)) => py_eq(v, expected),
        (Compare::Approx, Got::Value(v)) => close(v, expected),
        (Compare::Set, Got::Value(v)) => same_items(v, expected, true),
        (Compare::Sorted, Got::Value(v)) => same_items(v, expected, false),
    }
}

/// A JSON number or boolean as Python sees it in arithmetic comparisons.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

fn num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Number(n) => n
            .as_i64()
            .map(|i| Num::Int(i128::from(i)))
            .or_else(|| n.as_u64().map(|u| Num::Int(i128::from(u))))
            .or_else(|| n.as_f64().map(Num::Float)),
        _ => None,
    }
}

fn num_eq(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x == y,
        (Num::Float(x), Num::Float(y)) => x == y,
        // Python compares an int with a float exactly, not by converting the int.
        (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => {
            int_float_cmp(i, f) == Ordering::Equal
        }
    }
}

/// The exact order of two numbers, consistent with [`num_eq`] (so sorting never sees two
/// "equal" numbers Python tells apart). Canonical values hold no NaN or infinity.
fn num_cmp(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Num::Int(i), Num::Float(f)) => int_float_cmp(i, f),
        (Num::Float(f), Num::Int(i)) => int_float_cmp(i, f).reverse(),
    }
}

fn int_float_cmp(i: i128, f: f64) -> Ordering {
    let floor = f.floor();
    if floor >= 1.7e38 {
        return Ordering::Less;
    }
    if floor < -1.7e38 {
        return Ordering::Greater;
    }
    match i.cmp(&(floor as i128)) {
        // i == floor(f) <= f
        Ordering::Equal if f.fract() == 0.0 => Ordering::Equal,
        Ordering::Equal => Ordering::Less,
        other => other,
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// Python's `==` on canonical values.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return num_eq(x, y);
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

/// The dataset's `close`: structural equality with numbers within [`TOLERANCE`].
fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Bool(_), _) | (_, Value::Bool(_)) => false,
        (Value::Number(_), Value::Number(_)) => {
            let (x, y) = match (num(a), num(b)) {
                (Some(x), Some(y)) => (as_f64(x), as_f64(y)),
                _ => return false,
            };
            // math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
            x == y || (x - y).abs() <= (TOLERANCE * x.abs().max(y.abs())).max(TOLERANCE)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
        }
        _ => py_eq(a, b),
    }
}

/// Whether the items of two lists are equal as sets (`dedup`) or as multisets, under
/// Python's `==`. Both are sorted by a key that Python-equal values share, then compared in
/// order: n log n, whatever their size.
fn same_items(got: &Value, expected: &Value, dedup: bool) -> bool {
    let (Value::Array(got), Value::Array(expected)) = (got, expected) else {
        return false;
    };
    let (got, expected) = (sorted_items(got, dedup), sorted_items(expected, dedup));
    got.len() == expected.len() && got.iter().zip(&expected).all(|(a, b)| py_eq(a, b))
}

fn sorted_items(items: &[Value], dedup: bool) -> Vec<&Value> {
    let mut items: Vec<&Value> = items.iter().collect();
    items.sort_by(|a, b| order(a, b));
    if dedup {
        items.dedup_by(|a, b| py_eq(a, b));
    }
    items
}

/// A total order on canonical values in which Python-equal values are adjacent: kinds first
/// (null, numbers and booleans together, strings, lists, dicts), then by value.
fn order(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) | Value::Number(_) => 1,
            Value::String(_) => 2,
            Value::Array(_) => 3,
            Value::Object(_) => 4,
        }
    }
    match (a, b) {
        (Value::Bool(_) | Value::Number(_), Value::Bool(_) | Value::Number(_)) => {
            match (num(a), num(b)) {
                (Some(x), Some(y)) => num_cmp(x, y),
                _ => Ordering::Equal,
            }
        }
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| order(p, q))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Value::Object(x), Value::Object(y)) => {
            let mut xs: Vec<_> = x.iter().collect();
            let mut ys: Vec<_> = y.iter().collect();
            xs.sort_by(|p, q| p.0.cmp(q.0));
            ys.sort_by(|p, q| p.0.cmp(q.0));
            xs.iter()
                .zip(&ys)
                .map(|(p, q)| p.0.cmp(q.0).then_with(|| order(p.1, q.1)))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| xs.len().cmp(&ys.len()))
        }
        _ => rank(a).cmp(&rank(b)),
    }
}
