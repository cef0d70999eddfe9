//! Two runs compared turn by turn: matched turns, per-chain means, the turns that differ most, and a sign test.
//!
//! Two runs' overall rates can differ by a few points through noise alone: 75 chains are
//! not many. Pairing the same (chain, turn) of both runs removes the differences between
//! tasks, and the exact two-sided sign test over the pairs says how often a difference at
//! least that lopsided comes from two equally good agents. The sign test assumes nothing
//! about how the differences are distributed (rates per turn are often 0 or 100), and its
//! p-value is exact, so it is the same in the browser and on the command line.

use crate::api::TurnTableRow;

/// One (chain, turn) in either run: each run's value of the compared column, `None` where
/// the run lacks the turn or the column is undefined there.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnPair {
    pub chain: String,
    pub turn: i64,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl TurnPair {
    /// `b - a` where both are defined.
    pub fn delta(&self) -> Option<f64> {
        Some(self.b? - self.a?)
    }
}

/// The value of `column` in a turn row (`None` when absent or undefined).
fn value(row: &TurnTableRow, column: &str) -> Option<f64> {
    row.row.columns.get(column)?.value()
}

/// The turns of runs `a` and `b` matched by (chain, turn): `a`'s turns in its order, then
/// those only `b` has, in `b`'s order.
pub fn pairs(a: &[TurnTableRow], b: &[TurnTableRow], column: &str) -> Vec<TurnPair> {
    let mut pairs: Vec<TurnPair> = a
        .iter()
        .map(|row| TurnPair {
            chain: row.row.chain.clone(),
            turn: row.row.turn,
            a: value(row, column),
            b: None,
        })
        .collect();
    let at: std::collections::HashMap<(&str, i64), usize> = a
        .iter()
        .enumerate()
        .map(|(i, row)| ((row.row.chain.as_str(), row.row.turn), i))
        .collect();
    let mut only_b = Vec::new();
    for row in b {
        match at.get(&(row.row.chain.as_str(), row.row.turn)) {
            Some(&i) => pairs[i].b = value(row, column),
            None => only_b.push(TurnPair {
                chain: row.row.chain.clone(),
                turn: row.row.turn,
                a: None,
                b: value(row, column),
            }),
        }
    }
    pairs.extend(only_b);
    pairs
}

/// The pairs whose values differ, the largest difference (either way) first; equal
/// differences keep the runs' order.
pub fn largest_differences(pairs: &[TurnPair]) -> Vec<&TurnPair> {
    let mut both: Vec<&TurnPair> = pairs
        .iter()
        .filter(|p| p.delta().is_some_and(|d| d != 0.0))
        .collect();
    both.sort_by(|x, y| {
        let (dx, dy) = (
            x.delta().unwrap_or(0.0).abs(),
            y.delta().unwrap_or(0.0).abs(),
        );
        dy.total_cmp(&dx)
    });
    both
}

/// One chain's mean of the compared column in each run, over its turns where defined.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainMeans {
    pub chain: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

/// Per chain, in first-seen order, each run's mean over the chain's defined turns.
pub fn chain_means(pairs: &[TurnPair]) -> Vec<ChainMeans> {
    let mut chains: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    for pair in pairs {
        let at = match chains.iter().position(|(c, _, _)| *c == pair.chain) {
            Some(i) => i,
            None => {
                chains.push((pair.chain.clone(), Vec::new(), Vec::new()));
                chains.len() - 1
            }
        };
        chains[at].1.extend(pair.a);
        chains[at].2.extend(pair.b);
    }
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    chains
        .into_iter()
        .map(|(chain, a, b)| ChainMeans {
            chain,
            a: mean(&a),
            b: mean(&b),
        })
        .collect()
}

/// The exact two-sided sign test over the pairs with both values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignTest {
    /// Pairs where `b` is higher, where `a` is, and where they are equal (not counted).
    pub b_higher: usize,
    pub a_higher: usize,
    pub ties: usize,
    /// The chance that two equally good runs differ at least this lopsidedly; 1 with no
    /// untied pairs.
    pub p_value: f64,
}

impl SignTest {
    /// Whether the difference is more than noise at the 5% level.
    pub fn significant(&self) -> bool {
        self.p_value < 0.05
    }
}

/// The sign test of `pairs`: ties dropped, `p = min(1, 2 · P(X ≤ min(wins, losses)))` for
/// `X ~ Binomial(wins + losses, 1/2)`.
///
/// ```
/// use wheelwright_core::compare::{TurnPair, sign_test};
/// let pair = |a, b| TurnPair { chain: "c".into(), turn: 1, a: Some(a), b: Some(b) };
/// // b higher on 9 of 10 turns, one tie: p = 2 · 11 / 2^10 ≈ 0.0215.
/// let mut pairs: Vec<TurnPair> = (0..9).map(|_| pair(0.0, 100.0)).collect();
/// pairs.push(pair(100.0, 0.0));
/// pairs.push(pair(50.0, 50.0));
/// let test = sign_test(&pairs);
/// assert_eq!((test.b_higher, test.a_higher, test.ties), (9, 1, 1));
/// assert!((test.p_value - 22.0 / 1024.0).abs() < 1e-12);
/// assert!(test.significant());
/// ```
pub fn sign_test(pairs: &[TurnPair]) -> SignTest {
    let (mut b_higher, mut a_higher, mut ties) = (0, 0, 0);
    for delta in pairs.iter().filter_map(TurnPair::delta) {
        match delta.total_cmp(&0.0) {
            std::cmp::Ordering::Greater => b_higher += 1,
            std::cmp::Ordering::Less => a_higher += 1,
            std::cmp::Ordering::Equal => ties += 1,
        }
    }
    let n = b_higher + a_higher;
    let k = b_higher.min(a_higher);
    // ln n! for 0..=n, then the binomial tail in log space: exact for thousands of turns,
    // where 2^n overflows f64.
    let mut ln_fact = vec![0.0f64; n + 1];
    for i in 1..=n {
        ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
    }
    let ln_half_n = n as f64 * 0.5f64.ln();
    let tail: f64 = (0..=k)
        .map(|i| (ln_fact[n] - ln_fact[i] - ln_fact[n - i] + ln_half_n).exp())
        .sum();
    SignTest {
        b_higher,
        a_higher,
        ties,
        p_value: if n == 0 { 1.0 } else { (2.0 * tail).min(1.0) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TurnScoreRow;
    use crate::metric::{Score, Undefined};
    use crate::reporeuse::metrics::run::RunColumns;
    use crate::reporeuse::metrics::turn::SubmissionStatus;

    /// A turn whose `reuse_repo` is `value` (undefined for `None`), every other column
    /// undefined.
    fn row(chain: &str, turn: i64, value: Option<f64>) -> TurnTableRow {
        let undefined = Score::Undefined {
            reason: Undefined::NoTargets,
        };
        let mut columns = RunColumns {
            reuse_repo: undefined,
            reuse_self: undefined,
            recall_repo: undefined,
            recall_self: undefined,
            files: undefined,
            lines: undefined,
            resolve: undefined,
            pass: undefined,
            c_dup: undefined,
        };
        if let Some(value) = value {
            columns.reuse_repo = Score::Defined { value };
        }
        TurnTableRow {
            row: TurnScoreRow {
                chain: chain.to_owned(),
                turn,
                path: "m.py".to_owned(),
                submission: SubmissionStatus::Present,
                syntax_errors: false,
                columns,
            },
            reimplemented: Vec::new(),
            unknown_targets: Vec::new(),
            trajectory: None,
        }
    }

    #[test]
    fn turns_pair_by_chain_and_turn_whatever_the_order() {
        let a = [
            row("x", 1, Some(10.0)),
            row("x", 2, None),
            row("y", 1, Some(0.0)),
        ];
        let b = [
            row("y", 1, Some(50.0)),
            row("x", 1, Some(10.0)),
            row("z", 1, Some(1.0)),
        ];
        let pairs = pairs(&a, &b, "reuse_repo");
        let shown: Vec<(&str, i64, Option<f64>, Option<f64>)> = pairs
            .iter()
            .map(|p| (p.chain.as_str(), p.turn, p.a, p.b))
            .collect();
        assert_eq!(
            shown,
            [
                ("x", 1, Some(10.0), Some(10.0)),
                ("x", 2, None, None),
                ("y", 1, Some(0.0), Some(50.0)),
                ("z", 1, None, Some(1.0)),
            ]
        );
        let largest: Vec<(&str, Option<f64>)> = largest_differences(&pairs)
            .into_iter()
            .map(|p| (p.chain.as_str(), p.delta()))
            .collect();
        // Equal turns (x 1) are not differences.
        assert_eq!(largest, [("y", Some(50.0))]);
        let means = chain_means(&pairs);
        assert_eq!(
            means
                .iter()
                .map(|m| (m.chain.as_str(), m.a, m.b))
                .collect::<Vec<_>>(),
            [
                ("x", Some(10.0), Some(10.0)),
                ("y", Some(0.0), Some(50.0)),
                ("z", None, Some(1.0)),
            ]
        );
    }

    #[test]
    fn the_sign_test_is_exact_symmetric_and_defined_without_pairs() {
        let pair = |a: f64, b: f64| TurnPair {
            chain: "c".to_owned(),
            turn: 1,
            a: Some(a),
            b: Some(b),
        };
        let of = |wins: usize, losses: usize| {
            let mut pairs: Vec<TurnPair> = (0..wins).map(|_| pair(0.0, 1.0)).collect();
            pairs.extend((0..losses).map(|_| pair(1.0, 0.0)));
            sign_test(&pairs).p_value
        };
        // (wins, losses, p): values of the binomial tail worked out by hand.
        let cases = [
            (0, 0, 1.0),
            (1, 0, 1.0),
            (5, 0, 2.0 / 32.0),
            (6, 0, 2.0 / 64.0),
            (3, 3, 1.0),
            (8, 2, 2.0 * 56.0 / 1024.0),
        ];
        for (wins, losses, p) in cases {
            assert!((of(wins, losses) - p).abs() < 1e-12, "{wins}-{losses}");
            assert!((of(losses, wins) - p).abs() < 1e-12, "{losses}-{wins}");
        }
        // Paper size: 3,000 turns, 1,560 to 1,440 is p ≈ 0.03; a tail 2^3000 would overflow.
        let p = of(1560, 1440);
        assert!(p > 0.02 && p < 0.04, "{p}");
        assert!(
            sign_test(&[TurnPair {
                b: None,
                ..pair(1.0, 0.0)
            }])
            .p_value
                == 1.0
        );
    }
}
