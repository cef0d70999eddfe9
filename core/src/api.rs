//! The wire types: what the server's JSON API sends and the app reads, declared once.
//!
//! The server serialises these and the app deserialises them, so the compiler checks that
//! the two agree (before, the app re-declared each reply by hand). They are plain data, in
//! the shapes `server/tests/api_snapshots.rs` pins. A turn's score columns are the
//! scorer's own typed columns ([`RunColumns`]), flattened into the row as the scorer
//! writes them, so the wire and the scorer cannot disagree on a column.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::hidden_tests::JobProgress;
use crate::leaderboard::LeaderboardRow;
use crate::metric::Score;
use crate::python::references::UseSite;
use crate::reporeuse::dataset::RepoReuseDataset;
use crate::reporeuse::metrics::recall::Definition;
use crate::reporeuse::metrics::reimplementation::Reimplementation;
use crate::reporeuse::metrics::run::RunColumns;
use crate::reporeuse::metrics::turn::SubmissionStatus;
use crate::reporeuse::scoring::{self, TrajectoryCounts};
use crate::trajectory::{ActionRecord, Rejected, UnparsedReport};

/// The body of every error reply: `{"error": "..."}`, worded for the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: String,
}

/// One page of a list: `items`, at most `limit` of them from `offset` on, of `total`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Rows in the whole list.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// A stored run as lists show it (`GET /api/v1/runs`), with its overall row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: i64,
    /// `verified` or `baseline`.
    pub origin: String,
    /// The baseline's name, for a baseline.
    pub baseline: Option<String>,
    pub benchmark: String,
    pub dataset_name: String,
    pub dataset_version: String,
    pub dataset_sha256: String,
    pub model: String,
    pub harness: String,
    pub memory: String,
    pub run_date: String,
    pub cost_usd: Option<f64>,
    pub scaffold_version: Option<String>,
    pub notes: Option<String>,
    pub scorer_version: String,
    pub grammar_version: String,
    /// How many chains and turns were scored ([`RunDetail::chains`] lists them).
    pub chain_count: i64,
    pub turn_count: i64,
    pub created_at: String,
    /// The run's row: column name -> score.
    pub overall: BTreeMap<String, Score>,
}

/// A chain of a run and how many of its turns are stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainTurns {
    pub chain: String,
    pub turn_count: i64,
}

/// One run (`GET /api/v1/runs/{id}`); its turns come a page at a time
/// (`GET /api/v1/runs/{id}/turns`, a [`Page`] of [`TurnTableRow`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunDetail {
    #[serde(flatten)]
    pub summary: RunSummary,
    /// T1..T of each column, as the scorer wrote it.
    pub series: serde_json::Value,
    /// What the scorer noticed about the run as a whole (each has a `message`).
    pub diagnostics: Vec<serde_json::Value>,
    /// The actions of its trajectories that were not understood, by reason (spec 1);
    /// `None` for a run scored before the report was kept.
    pub unparsed: Option<UnparsedReport>,
    pub chains: Vec<ChainTurns>,
}

/// A turn's scores: where the turn is, its submission, and its score columns, as the
/// scorer's row ([`scoring::TurnRow`]) has them. A turn's case sends it as its `scores`;
/// the turn table's row is it and a little more ([`TurnTableRow`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnScoreRow {
    pub chain: String,
    pub turn: i64,
    pub path: String,
    pub submission: SubmissionStatus,
    pub syntax_errors: bool,
    /// The turn's score columns, each a field of the row (`reuse_repo`, ..., `c_dup`).
    #[serde(flatten)]
    pub columns: RunColumns<Score>,
}

impl From<&scoring::TurnRow> for TurnScoreRow {
    fn from(row: &scoring::TurnRow) -> Self {
        Self {
            chain: row.chain.clone(),
            turn: i64::try_from(row.turn).unwrap_or(i64::MAX),
            path: row.path.clone(),
            submission: row.submission,
            syntax_errors: row.syntax_errors,
            columns: row.scores.clone(),
        }
    }
}

/// One row of a run's turn table: the scorer's row of the turn ([`scoring::TurnRow`])
/// without its bulky evidence (targets, actions, rejected responses), with the
/// re-implemented targets by name.
///
/// The browser makes it from the scorer's row ([`From`]); the server reads it from the row
/// it stored (the scorer's row as JSON: the evidence is skipped, and `reimplemented` reads
/// the scorer's targets by their `target` as well as plain names), so a run scored in the
/// page shows as the stored run does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnTableRow {
    /// The turn and its scores, each a field of the row.
    #[serde(flatten)]
    pub row: TurnScoreRow,
    /// The targets re-implemented at this turn, by name.
    #[serde(deserialize_with = "target_names")]
    pub reimplemented: Vec<String>,
    /// Targets naming no definition in W_{t-1}.
    pub unknown_targets: Vec<String>,
    /// The trajectory's counts; `None` without a (readable) trajectory.
    pub trajectory: Option<TrajectoryCounts>,
}

impl From<&scoring::TurnRow> for TurnTableRow {
    fn from(row: &scoring::TurnRow) -> Self {
        Self {
            row: TurnScoreRow::from(row),
            reimplemented: row.reimplemented.iter().map(|r| r.target.clone()).collect(),
            unknown_targets: row.unknown_targets.clone(),
            trajectory: row.trajectory,
        }
    }
}

/// Targets by name: names as the wire sends them, or the scorer's re-implemented targets
/// ([`scoring::ReimplementedTarget`], as the server stores them) by their `target`.
fn target_names<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Named {
        Name(String),
        Target { target: String },
    }
    let named = Vec::<Named>::deserialize(deserializer)?;
    Ok(named
        .into_iter()
        .map(|n| match n {
            Named::Name(name) | Named::Target { target: name } => name,
        })
        .collect())
}

/// A file of a case; `text` is `None` when the agent left no file there, and only the
/// file's beginning when `truncated` (the whole file is at `.../turns/{turn}/files?path=`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    pub path: String,
    pub text: Option<String>,
    /// The whole file's size in bytes (0 when there is none).
    pub bytes: u64,
    pub truncated: bool,
}

/// One target of a turn and its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// `repo` or `self`.
    pub kind: String,
    pub target: String,
    pub canonical: Option<String>,
    /// Reused: the submission references it.
    pub referenced: bool,
    /// Where the submission uses it: each use's line, the import binding it, the rule.
    #[serde(default)]
    pub uses: Vec<UseSite>,
    pub recalled: Option<bool>,
    /// Where it is defined: the file and the spans recall looks for (with a trajectory).
    #[serde(default)]
    pub definition: Option<Definition>,
    /// The actions (1-based) whose shown lines hit the definition.
    #[serde(default)]
    pub recalled_by: Vec<usize>,
    pub reimplementation: Option<Reimplementation>,
}

/// What the turn's trajectory showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnTrajectory {
    /// Whether the bundle had a trajectory for the turn.
    pub present: bool,
    /// Its size in bytes as submitted.
    pub bytes: u64,
    /// Actions, uninterpreted actions and rejected responses as the scorer counted them;
    /// `None` when there was no trajectory or it could not be read.
    pub counts: Option<TrajectoryCounts>,
    /// Distinct files touched and lines viewed (spec D14), and the recalls.
    pub files: Option<Score>,
    pub lines: Option<Score>,
    pub recall_repo: Option<Score>,
    pub recall_self: Option<Score>,
    /// Every action as the scorer read it: kind, category, the files it counts, the lines
    /// it showed, or why it was not understood. Empty without a (readable) trajectory.
    pub actions: Vec<ActionRecord>,
    /// Where the rejected responses were, when the format says.
    pub rejected: Vec<Rejected>,
}

/// The case of one turn (`GET /api/v1/runs/{id}/chains/{chain}/turns/{turn}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnDetail {
    pub run: i64,
    pub chain: String,
    pub turn: i64,
    pub title: String,
    pub requirement: String,
    pub submission: SourceFile,
    /// The first of the other files the agent left in this turn.
    pub other_files: Vec<SourceFile>,
    /// How many other files the turn has in all.
    pub other_file_count: i64,
    pub reference: SourceFile,
    /// Every target: kind, name, definition, reused, recalled, re-implementation evidence.
    pub targets: Vec<Target>,
    pub unknown_targets: Vec<String>,
    /// The turn's row: every column's score, submission status, syntax errors.
    pub scores: TurnScoreRow,
    pub trajectory: TurnTrajectory,
}

/// What a turn's case shows beside its scored row: where the turn is, what the dataset
/// asked, and the files as the case shows them (the server inlines stored files up to its
/// limits; the browser has the bundle itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFiles {
    pub run: i64,
    pub chain: String,
    pub turn: i64,
    pub title: String,
    pub requirement: String,
    pub submission: SourceFile,
    pub other_files: Vec<SourceFile>,
    pub other_file_count: i64,
    pub reference: SourceFile,
    /// The trajectory's size as submitted; `None` without one.
    pub trajectory_bytes: Option<u64>,
}

impl TurnDetail {
    /// A turn's case from the scorer's row of the turn as JSON and its [`CaseFiles`]: the
    /// targets with their evidence, the trajectory's counts and actions, and the scores.
    pub fn from_scored(
        mut score: serde_json::Value,
        files: CaseFiles,
    ) -> Result<Self, serde_json::Error> {
        use serde_json::Value;
        let mut take = |key: &str| {
            score
                .as_object_mut()
                .and_then(|m| m.remove(key))
                .unwrap_or(Value::Null)
        };
        let targets = take("targets");
        let unknown_targets = take("unknown_targets");
        let counts = take("trajectory");
        let actions = take("actions");
        let rejected = take("rejected");
        take("reimplemented");
        // Rows without a trajectory leave the lists out.
        let listed = |value: Value| {
            if value.is_null() {
                Value::Array(Vec::new())
            } else {
                value
            }
        };
        let scores: TurnScoreRow = serde_json::from_value(score)?;
        let trajectory = TurnTrajectory {
            present: files.trajectory_bytes.is_some(),
            bytes: files.trajectory_bytes.unwrap_or(0),
            counts: serde_json::from_value(counts)?,
            files: Some(scores.columns.files),
            lines: Some(scores.columns.lines),
            recall_repo: Some(scores.columns.recall_repo),
            recall_self: Some(scores.columns.recall_self),
            actions: serde_json::from_value(listed(actions))?,
            rejected: serde_json::from_value(listed(rejected))?,
        };
        Ok(Self {
            run: files.run,
            chain: files.chain,
            turn: files.turn,
            title: files.title,
            requirement: files.requirement,
            submission: files.submission,
            other_files: files.other_files,
            other_file_count: files.other_file_count,
            reference: files.reference,
            targets: serde_json::from_value(targets)?,
            unknown_targets: serde_json::from_value(unknown_targets)?,
            scores,
            trajectory,
        })
    }
}

/// What each action of a turn's trajectory printed
/// (`GET /api/v1/runs/{id}/chains/{chain}/turns/{turn}/observations`), each cut at
/// [`crate::trajectory::MAX_SHOWN_OUTPUT`] bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnObservations {
    pub observations: Vec<crate::trajectory::Observation>,
    /// Why there are none: the turn has no trajectory, or it could not be read.
    pub error: Option<String>,
}

impl TurnObservations {
    /// The observations of a trajectory as submitted.
    pub fn of(trajectory_text: &str) -> Self {
        use crate::trajectory::{MAX_SHOWN_OUTPUT, observations, parse_trajectory};
        match parse_trajectory(trajectory_text) {
            Ok(trajectory) => Self {
                observations: observations(&trajectory, MAX_SHOWN_OUTPUT),
                error: None,
            },
            Err(e) => Self {
                observations: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    }
}

/// One turn's hidden-test result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnTests {
    pub chain: String,
    pub turn: i64,
    pub passed: i64,
    pub total: i64,
    /// What the sandbox found tampered with, if anything.
    pub tampered: Option<String>,
    pub duration_s: f64,
}

/// One hidden test's row in a run's results: where it ran and how it ended
/// ([`crate::hidden_tests::TestOutcome`] as its word), never its failure text (the server
/// does not send it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HiddenTestRow {
    pub chain: String,
    pub turn: i64,
    pub module: String,
    pub name: String,
    pub outcome: String,
    pub duration_s: f64,
}

/// A run's hidden-test job and its results so far (`GET /api/v1/runs/{id}/tests`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunTests {
    #[serde(flatten)]
    pub progress: JobProgress,
    pub turns: Vec<TurnTests>,
    pub tests: Vec<HiddenTestRow>,
}

/// A benchmark's leaderboard (`GET /api/v1/leaderboard/{benchmark}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub benchmark: String,
    /// Label columns, then metric columns, in display order.
    pub labels: Vec<String>,
    pub metrics: Vec<String>,
    pub rows: Vec<LeaderboardRow>,
}

/// A stored dataset as lists show it (`GET /api/v1/datasets`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetSummary {
    pub name: String,
    pub version: String,
    pub benchmark: String,
    pub content_sha256: String,
    /// Counts; a dataset's detail lists its turns themselves.
    pub chain_count: i64,
    pub turn_count: i64,
    pub test_count: i64,
}

/// A turn of a stored dataset: what it asks for and the targets it is scored on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetTurn {
    pub chain: String,
    pub turn: i64,
    pub title: String,
    pub module_path: String,
    pub requirement: String,
    pub repo_targets: Vec<String>,
    pub self_targets: Vec<String>,
    /// How many hidden tests the turn has.
    pub tests: i64,
}

/// One dataset with its turns (`GET /api/v1/datasets/{name}/{version}`), described as
/// the paper describes its own: Table 1's rows computed from its files, beside the paper's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetDetail {
    #[serde(flatten)]
    pub summary: DatasetSummary,
    pub turns: Vec<DatasetTurn>,
    /// The repositories the turns are written against, by id, as `dataset.json` pins them
    /// (one, or several that chains name). Empty (like `stats` is `None`) for a dataset the
    /// database still lists from an earlier start but whose folder the server did not load
    /// this time.
    pub repositories: std::collections::BTreeMap<String, crate::dataset::RepositorySource>,
    /// The chains' titles and descriptions in the dataset's order (empty when `stats` is
    /// `None`): what a reader sees of a chain before its turns.
    pub chains: Vec<crate::reporeuse::dataset::ChainManifest>,
    /// Table 1 of this dataset, computed from its files when the server loaded them.
    pub stats: Option<crate::reporeuse::stats::DatasetStats>,
    /// The paper's Table 1 (`data/published/reporeuse.json`), to compare with.
    pub paper_stats: Option<crate::reporeuse::stats::PaperStats>,
}

/// `GET /api/v1/health`: the server is up, which versions run, and its database's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// The server's version.
    pub version: String,
    /// The scorer's version ([`crate::SCORER_VERSION`]).
    pub scorer: String,
    /// The Python grammar's version.
    pub grammar: String,
    pub database: DatabaseHealth,
}

/// The database's state as the health endpoint reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseHealth {
    /// Number of migrations applied.
    pub schema_version: i64,
    pub created_at: String,
}

/// A benchmark the server knows (`GET /api/v1/benchmarks`), with its published tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkSummary {
    pub id: String,
    pub title: String,
    /// The paper whose results are reported, when imported.
    pub source: Option<String>,
    /// The published table used as the leaderboard.
    pub leaderboard_table: String,
    pub tables: Vec<TableSummary>,
}

/// A published table in a benchmark's list: its id, title and row count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSummary {
    pub id: String,
    pub title: String,
    pub rows: usize,
}

/// A paper's table as stored and sent: its rows split into labels and metrics (the
/// published file's [`crate::published::PublishedTable`] has them as written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedTable {
    pub id: String,
    pub title: String,
    /// Its metric columns in the paper's order.
    pub columns: Vec<String>,
    pub rows: Vec<crate::published::ReportedRow>,
}

/// A benchmark's published results (`GET /api/v1/benchmarks/{id}/published`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Published {
    pub benchmark: String,
    /// Where the results come from (the paper).
    pub source: String,
    pub notes: String,
    pub tables: Vec<ReportedTable>,
}

/// Lines of a dataset's repository file (`.../source?path=`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLines {
    pub path: String,
    /// First and last line returned, 1-based and inclusive.
    pub start: usize,
    pub end: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    pub text: String,
}

/// The files of a dataset's repository by path (`.../source` without `path`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFiles {
    pub files: Vec<String>,
}

/// A file of a turn in a list (`.../turns/{turn}/files`, a [`Page`] of them): its path
/// and size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    pub bytes: i64,
}

/// What the browser scores a run with, as the server does
/// (`GET /api/v1/datasets/{name}/{version}/scoring`): the dataset without its hidden tests
/// ([`RepoReuseDataset::without_hidden_tests`]) and each of its repositories' files (W0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoringKit {
    /// The content hash of the whole dataset, hidden tests included: the one stored runs
    /// record, so a page can tell its copy is the server's.
    pub content_sha256: String,
    pub dataset: RepoReuseDataset,
    /// W0 of each repository, by repository id
    /// ([`crate::reporeuse::dataset::DatasetManifest::repository_sources`]): its files by
    /// path (`networkx/__init__.py`, ...).
    pub repositories: crate::reporeuse::dataset::RepositoryFiles,
}

/// The body of `POST /api/v1/analyze`: one Python source file to outline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    pub source: String,
}

/// A ReCUBE dataset as lists show it (`GET /api/v1/recube/datasets`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecubeDatasetSummary {
    pub name: String,
    pub version: String,
    pub content_sha256: String,
    /// Its repositories, by the id instances name them with.
    pub repositories: BTreeMap<String, crate::dataset::RepositorySource>,
    pub instance_count: usize,
    pub test_count: usize,
}

/// One instance as a dataset's page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecubeInstanceSummary {
    pub id: String,
    pub repository: String,
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub external_tests: usize,
    pub internal_tests: usize,
}

/// A ReCUBE dataset with its instances (`GET /api/v1/recube/datasets/{name}/{version}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecubeDatasetDetail {
    #[serde(flatten)]
    pub summary: RecubeDatasetSummary,
    pub instances: Vec<RecubeInstanceSummary>,
}

/// One ReCUBE instance as its page shows it
/// (`GET /api/v1/recube/datasets/{name}/{version}/instances/{id}`): the target as the agent
/// gets it (masked) and as the repository has it, its labelled tests, the four views of
/// the repository with the target withheld and their drawing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecubeInstanceDetail {
    pub dataset: String,
    pub version: String,
    #[serde(flatten)]
    pub summary: RecubeInstanceSummary,
    pub original: String,
    pub masked: String,
    /// The functions and methods whose bodies the mask removed.
    pub masked_bodies: Vec<String>,
    pub tests: Vec<crate::recube::metrics::LabelledTest>,
    pub context: crate::recube::views::Context,
    pub neighbourhood: crate::recube::views::Neighbourhood,
}

/// A stored ReCUBE run with its instances' scores (`GET /api/v1/recube/runs/{id}`; the
/// answer of `POST /api/v1/recube/runs`). Until an instance's hidden tests ran, its tests
/// read `missing` and `tested` is false; the run's pass rates stay undefined until every
/// instance is tested. Test excerpts are never sent (they may quote the hidden tests'
/// output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecubeRunDetail {
    pub summary: RunSummary,
    pub instances: Vec<RecubeRunInstance>,
    /// Caller coverage against APR, from the tested instances.
    pub correlations: crate::recube::scoring::CoverageCorrelations,
}

/// One instance of a stored ReCUBE run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecubeRunInstance {
    /// Whether its hidden tests ran.
    pub tested: bool,
    #[serde(flatten)]
    pub score: crate::recube::scoring::InstanceScore,
}

/// One file of a repository's SchrodingerRepo view (`.../repositories/{repo}/view`): the
/// original and the view side by side, the names renamed in it, the runs reordered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewFile {
    pub seed: u64,
    /// The levels applied (2, 3 or both).
    pub levels: Vec<u8>,
    /// The repository's Python files (original paths), for picking another.
    pub files: Vec<String>,
    pub path: String,
    pub view_path: String,
    pub original: String,
    pub view: String,
    /// The mapped names written in this file, original to view, sorted by original.
    pub names: Vec<(String, String)>,
    /// The runs of definitions level 3 reordered in this file.
    pub runs: Vec<ViewRun>,
    /// Names mapped in the whole repository, and owned names left out.
    pub names_mapped: usize,
    pub names_left_out: usize,
    /// Level 2 as a virtual namespace: `view` is the file as an agent reads it through
    /// `wheelwright view shell` (the original translated, nothing rewritten).
    #[serde(default)]
    pub virtual_namespace: bool,
}

/// A run of definitions as level 3 reordered it (names as the view writes them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewRun {
    /// The class holding the run, empty for the module.
    pub container: String,
    pub original_order: Vec<String>,
    pub view_order: Vec<String>,
}
