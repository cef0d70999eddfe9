//! Macro-averaging: over the turns where a metric is defined, then over chains.
//!
//! Every RepoReuse metric is aggregated this way (spec 1, "Aggregation"), so each chain
//! weighs the same however many of its turns define the metric. Undefined turns are
//! skipped, never counted as zero. Example: chain A has reuse [1, undefined, 0] (mean 0.5),
//! chain B has [undefined, undefined, undefined] (undefined, skipped): the run's value is 0.5.

use super::{Score, Undefined};

/// Mean of the defined values, or `NoDefinedValue`.
pub fn mean(values: impl IntoIterator<Item = Score>) -> Score {
    let (mut sum, mut n) = (0.0, 0usize);
    for value in values.into_iter().filter_map(Score::value) {
        sum += value;
        n += 1;
    }
    if n == 0 {
        Score::Undefined {
            reason: Undefined::NoDefinedValue,
        }
    } else {
        Score::Defined {
            value: sum / n as f64,
        }
    }
}

/// Mean over chains of each chain's mean over its defined turns.
pub fn macro_average(chains: &[Vec<Score>]) -> Score {
    if chains.is_empty() {
        return Score::Undefined {
            reason: Undefined::NoChains,
        };
    }
    mean(chains.iter().map(|turns| mean(turns.iter().copied())))
}

/// For each turn index, the mean over the chains where that turn exists and is defined.
pub fn per_turn_series(chains: &[Vec<Score>]) -> Vec<Score> {
    let turns = chains.iter().map(Vec::len).max().unwrap_or(0);
    (0..turns)
        .map(|t| mean(chains.iter().filter_map(|c| c.get(t).copied())))
        .collect()
}
