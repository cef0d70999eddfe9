//! Metric values shared by every benchmark: a [`Score`] is a number or the reason it is undefined.
//!
//! Undefined is explicit, never zero (ARCHITECTURE.md's invariants): a turn without tests has
//! no pass rate, not a pass rate of 0.

use serde::{Deserialize, Serialize};

/// Why a value is undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// The turn has no target of this kind.
    NoTargets,
    /// No trajectory, so no shown lines, for the turn.
    NoShownLines,
    /// No test results, or a turn without tests.
    NoTests,
    /// No descriptive count was given.
    NoCount,
    /// Undefined at every turn (or chain) being averaged.
    NoDefinedValue,
    /// Nothing to average.
    NoChains,
    /// No instance has a test of the kind asked for (ReCUBE's external or internal rates).
    NoInstances,
    /// No other file calls what the target defines (ReCUBE's caller coverage).
    NoCallers,
    /// The run took no more actions per instance than its baseline (SchrodingerRepo's
    /// shares of additional actions).
    NoAdditionalActions,
    /// No instance's trajectory recorded its tokens (SchrodingerRepo's token usage).
    NoTokens,
    /// The baseline's value is undefined or zero, so a relative change is not (SchrodingerRepo's
    /// increases against a baseline).
    NoBaseline,
}

/// A metric value, or the reason it is undefined.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Score {
    Defined { value: f64 },
    Undefined { reason: Undefined },
}

impl Score {
    pub fn value(self) -> Option<f64> {
        match self {
            Score::Defined { value } => Some(value),
            Score::Undefined { .. } => None,
        }
    }

    /// `part / whole`, undefined for `reason` when `whole` is 0.
    pub fn ratio(part: usize, whole: usize, reason: Undefined) -> Score {
        if whole == 0 {
            Score::Undefined { reason }
        } else {
            Score::Defined {
                value: part as f64 / whole as f64,
            }
        }
    }

    /// Multiplies a defined value (`100` for percent).
    pub fn scaled(self, factor: f64) -> Score {
        match self {
            Score::Defined { value } => Score::Defined {
                value: value * factor,
            },
            undefined => undefined,
        }
    }
}

/// What a metric's number is, which decides how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// 0 to 100.
    Percent,
    /// A number of things (files, lines, turns), possibly averaged.
    Count,
    /// US dollars.
    Dollars,
}

/// Which way a metric is better, so tables can sort best first and say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HigherIsBetter,
    LowerIsBetter,
    /// Neither: the spec calls it descriptive (RepoReuse's files and lines).
    Descriptive,
}

/// One metric as every table, column header and tooltip describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MetricInfo {
    /// The name in results, URLs and the published tables (`reuse_repo`).
    pub id: &'static str,
    /// A short column title.
    pub title: &'static str,
    pub unit: Unit,
    pub direction: Direction,
    /// One sentence, from the spec (`/work/shared/spec/metrics.md`).
    pub definition: &'static str,
}

const fn info(
    id: &'static str,
    title: &'static str,
    unit: Unit,
    direction: Direction,
    definition: &'static str,
) -> MetricInfo {
    MetricInfo {
        id,
        title,
        unit,
        direction,
        definition,
    }
}

/// RepoReuse's columns in table order (spec 1 "Aggregation"): every run, turn and
/// leaderboard table of RepoReuse shows these.
pub const REPOREUSE: [MetricInfo; 9] = [
    info(
        "reuse_repo",
        "reuse repo",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Share of the turn's repository targets that the new module references (calls or uses as a value).",
    ),
    info(
        "reuse_self",
        "reuse self",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Share of the turn's self targets (functions earlier turns required) that the new module references.",
    ),
    info(
        "recall_repo",
        "recall repo",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Share of the turn's repository targets of which the agent's reads showed at least one line of the definition.",
    ),
    info(
        "recall_self",
        "recall self",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Share of the turn's self targets of which the agent's reads showed at least one line of the definition.",
    ),
    info(
        "files",
        "files",
        Unit::Count,
        Direction::Descriptive,
        "Distinct files the agent viewed, searched or listed in the turn.",
    ),
    info(
        "lines",
        "lines",
        Unit::Count,
        Direction::Descriptive,
        "Distinct (file, line) pairs the agent viewed in the turn.",
    ),
    info(
        "resolve",
        "resolve",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Share of turns whose hidden tests all pass.",
    ),
    info(
        "pass",
        "pass",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Passed hidden tests over the turn's tests; errors, timeouts and uncollected tests fail.",
    ),
    info(
        "c_dup",
        "c dup",
        Unit::Percent,
        Direction::LowerIsBetter,
        "Share of chains that re-implemented a target at this turn or before; overall, the mean over turns.",
    ),
];

/// Other metrics the published tables report (ReCUBE, spec 2; SchrodingerRepo, spec 3).
const PUBLISHED: [MetricInfo; 11] = [
    info(
        "spr",
        "SPR",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Percent of instances where all tests pass.",
    ),
    info(
        "apr",
        "APR",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Mean over instances of passed over total tests, in percent.",
    ),
    info(
        "spr_external",
        "SPR ext",
        Unit::Percent,
        Direction::HigherIsBetter,
        "SPR over the external tests only: those that exercise the target's public behaviour as other files use it.",
    ),
    info(
        "apr_external",
        "APR ext",
        Unit::Percent,
        Direction::HigherIsBetter,
        "APR over the external tests only: those that exercise the target's public behaviour as other files use it.",
    ),
    info(
        "spr_internal",
        "SPR int",
        Unit::Percent,
        Direction::HigherIsBetter,
        "SPR over the internal tests only: those that exercise in-file logic and private helpers.",
    ),
    info(
        "apr_internal",
        "APR int",
        Unit::Percent,
        Direction::HigherIsBetter,
        "APR over the internal tests only: those that exercise in-file logic and private helpers.",
    ),
    info(
        "caller_coverage",
        "caller coverage",
        Unit::Percent,
        Direction::Descriptive,
        "Mean over instances of the share of files calling the target's entities that the agent viewed; instances without callers or a trajectory are left out.",
    ),
    info(
        "pass_at_1_original",
        "Pass@1 original",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Percent of instances resolved on the first attempt in the original repository.",
    ),
    info(
        "pass_at_1_transformed",
        "Pass@1 transformed",
        Unit::Percent,
        Direction::HigherIsBetter,
        "Percent of instances resolved on the first attempt in the behaviour-preserving transformed view.",
    ),
    info(
        "turns",
        "turns",
        Unit::Count,
        Direction::LowerIsBetter,
        "Average number of agent turns per instance, as the paper reports it.",
    ),
    info(
        "cost_usd",
        "cost usd",
        Unit::Dollars,
        Direction::LowerIsBetter,
        "Average cost per instance in US dollars, as the paper reports it.",
    ),
];

/// Every metric the registry describes: RepoReuse's columns first, in table order.
pub fn metrics() -> impl Iterator<Item = &'static MetricInfo> {
    REPOREUSE.iter().chain(PUBLISHED.iter())
}

/// The description of metric `id`; `None` for a metric the registry does not describe.
pub fn metric(id: &str) -> Option<&'static MetricInfo> {
    metrics().find(|m| m.id == id)
}

/// A column's title: the registry's (`SPR`), else the id with spaces (`a_b` -> `a b`),
/// as headers, charts and legends name columns.
pub fn title_of(id: &str) -> String {
    metric(id).map_or_else(|| id.replace('_', " "), |m| m.title.to_owned())
}

/// The unit of metric `id`; percent for metrics the registry does not describe, as the
/// published tables report most of theirs.
pub fn unit_of(id: &str) -> Unit {
    metric(id).map_or(Unit::Percent, |m| m.unit)
}

/// A value for tables and the command line alike: one decimal, except that a count or an
/// amount with no fraction is written whole (`3`, not `3.0`); `—` when undefined.
pub fn format_value(unit: Unit, value: Option<f64>) -> String {
    match value {
        None => "—".to_owned(),
        Some(v) if unit != Unit::Percent && v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
    }
}

/// [`format_value`] of metric `id`'s score.
pub fn format_score(id: &str, score: Score) -> String {
    format_value(unit_of(id), score.value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_is_described_once_in_one_sentence() {
        let mut ids = std::collections::BTreeSet::new();
        for m in metrics() {
            assert!(ids.insert(m.id), "{} is described twice", m.id);
            assert!(!m.title.is_empty(), "{}", m.id);
            assert!(m.definition.ends_with('.'), "{}", m.id);
            assert_eq!(m.definition.matches(". ").count(), 0, "{}", m.id);
        }
    }

    #[test]
    fn values_are_written_by_unit() {
        let cases = [
            (Unit::Percent, Some(3.0), "3.0"),
            (Unit::Percent, Some(62.56), "62.6"),
            (Unit::Count, Some(3.0), "3"),
            (Unit::Count, Some(2.5), "2.5"),
            (Unit::Dollars, Some(12.0), "12"),
            (Unit::Dollars, Some(0.54), "0.5"),
            (Unit::Count, None, "—"),
        ];
        for (unit, value, expected) in cases {
            assert_eq!(format_value(unit, value), expected, "{unit:?} {value:?}");
        }
        assert_eq!(unit_of("files"), Unit::Count);
        assert_eq!(unit_of("spr_external"), Unit::Percent);
    }
}

/// A count rounded to a whole number with thousands separated (`433,969`): token counts
/// as the command line and the pages print them.
pub fn format_thousands(value: f64) -> String {
    let whole = format!("{:.0}", value.abs());
    let mut out = String::with_capacity(whole.len() + whole.len() / 3 + 1);
    if value.round() < 0.0 {
        out.push('-');
    }
    for (i, ch) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod thousands {
    use super::format_thousands;

    #[test]
    fn counts_are_grouped_by_thousands() {
        for (value, text) in [
            (0.0, "0"),
            (999.4, "999"),
            (1_000.0, "1,000"),
            (433_968.67, "433,969"),
            (1_234_567.0, "1,234,567"),
            (-12_000.0, "-12,000"),
        ] {
            assert_eq!(format_thousands(value), text);
        }
    }
}
