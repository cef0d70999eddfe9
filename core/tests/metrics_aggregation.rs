//! Tests of aggregation: C_dup (cumulative, monotonic, averaged), macro-averaging with
//! undefined turns, the D6 threshold in integers, and the run row in percent.

use wheelwright_core::metric::{Score, Undefined};
use wheelwright_core::reporeuse::metrics::duplicated_chains::duplicated_chains;
use wheelwright_core::reporeuse::metrics::macro_average::{macro_average, per_turn_series};
use wheelwright_core::reporeuse::metrics::reimplementation::meets_threshold;

fn d(value: f64) -> Score {
    Score::Defined { value }
}

const U: Score = Score::Undefined {
    reason: Undefined::NoTargets,
};

fn values(scores: &[Score]) -> Vec<Option<f64>> {
    scores.iter().map(|s| s.value()).collect()
}

#[test]
fn c_dup_is_cumulative_monotonic_and_averaged() {
    let cases: [(Vec<Vec<bool>>, Vec<f64>, f64); 3] = [
        (
            vec![vec![false, true, false], vec![false, false, false]],
            vec![0.0, 0.5, 0.5],
            1.0 / 3.0,
        ),
        (
            vec![
                vec![true, false, false, false, false],
                vec![false, false, false, true, false],
                vec![false; 5],
                vec![false; 5],
            ],
            vec![0.25, 0.25, 0.25, 0.5, 0.5],
            0.35,
        ),
        // A shorter chain keeps its last status.
        (vec![vec![true], vec![false, false]], vec![0.5, 0.5], 0.5),
    ];
    for (chains, per_turn, overall) in cases {
        let got = duplicated_chains(&chains);
        let got_turns: Vec<f64> = got.per_turn.iter().map(|s| s.value().unwrap()).collect();
        assert_eq!(got_turns, per_turn, "{chains:?}");
        assert!(
            got_turns.windows(2).all(|w| w[0] <= w[1]),
            "never decreases"
        );
        assert!((got.overall.value().unwrap() - overall).abs() < 1e-12);
    }
    assert_eq!(
        duplicated_chains(&[]).overall,
        Score::Undefined {
            reason: Undefined::NoChains
        }
    );
}

#[test]
fn macro_average_skips_undefined_turns_then_averages_chains() {
    // Chain A: mean(1, 0) = 0.5; chain B: undefined everywhere, skipped; chain C: 1.
    let chains = vec![vec![d(1.0), U, d(0.0)], vec![U, U, U], vec![U, d(1.0), U]];
    assert_eq!(macro_average(&chains).value(), Some(0.75));
    assert_eq!(
        values(&per_turn_series(&chains)),
        [Some(1.0), Some(1.0), Some(0.0)]
    );
    let all_undefined = vec![vec![U, U]];
    assert_eq!(
        macro_average(&all_undefined),
        Score::Undefined {
            reason: Undefined::NoDefinedValue
        }
    );
    assert_eq!(
        macro_average(&[]),
        Score::Undefined {
            reason: Undefined::NoChains
        }
    );
    // Not the mean over all defined turns (which would be 2/3).
    let uneven = vec![vec![d(1.0), d(1.0), d(1.0)], vec![d(0.0)]];
    assert_eq!(macro_average(&uneven).value(), Some(0.5));
}

#[test]
fn reimplementation_threshold_is_integer_80_percent_of_at_least_three() {
    for (callees, matched, want) in [
        (3, 3, true),
        (3, 2, false),
        (5, 4, true), // exactly 80%
        (10, 7, false),
        (10, 8, true),
        (2, 2, false),
        (0, 0, false),
    ] {
        assert_eq!(
            meets_threshold(callees, matched),
            want,
            "{matched}/{callees}"
        );
    }
}
