//! Duplicated-chain rate C_dup: the share of chains with a re-implemented target so far.
//!
//! Measures how often an agent duplicates code somewhere along a task chain (spec 1):
//! C_dup(t) = share of chains with at least one re-implemented target at some turn i <= t.
//! It is cumulative, so it never decreases; the overall C_dup is the mean of C_dup(1..T).
//! A chain shorter than T keeps its last status. Example: two chains, the first
//! re-implements at turn 2, the second never: C_dup = [0, 0.5, 0.5], overall 1/3.

use serde::Serialize;

use super::{Score, Undefined};

/// C_dup per turn and overall (fractions, not percent).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DuplicatedChains {
    pub per_turn: Vec<Score>,
    pub overall: Score,
}

/// `chains[c][t]`: whether chain `c` re-implemented some target at turn `t + 1`.
pub fn duplicated_chains(chains: &[Vec<bool>]) -> DuplicatedChains {
    let turns = chains.iter().map(Vec::len).max().unwrap_or(0);
    if chains.is_empty() || turns == 0 {
        return DuplicatedChains {
            per_turn: Vec::new(),
            overall: Score::Undefined {
                reason: Undefined::NoChains,
            },
        };
    }
    let mut duplicated = vec![false; chains.len()];
    let mut per_turn = Vec::with_capacity(turns);
    for t in 0..turns {
        for (flag, chain) in duplicated.iter_mut().zip(chains) {
            *flag |= chain.get(t).copied().unwrap_or(false);
        }
        let count = duplicated.iter().filter(|&&d| d).count();
        per_turn.push(Score::ratio(count, chains.len(), Undefined::NoChains));
    }
    let sum: f64 = per_turn.iter().filter_map(|s| s.value()).sum();
    DuplicatedChains {
        overall: Score::Defined {
            value: sum / turns as f64,
        },
        per_turn,
    }
}
