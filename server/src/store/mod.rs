//! The database: every SQL statement the server runs, behind one type, [`Store`].
//!
//! The rest of the server says what it wants (`insert_run`, `claim_turn`, `runs_page`)
//! and never writes SQL: routes, the job queue, run storage and the importers all call a
//! [`Store`] method. The types here are what those methods take and give back; they do
//! not depend on the database.
//!
//! Everything that is one database's dialect (SQLite's `?` parameters, `strftime`,
//! `INSERT OR IGNORE`, `rowid` as a cursor) stays in [`sqlite`], the one store today. A
//! PostgreSQL store (issue 18) is one more module beside it with the same methods.
//!
//! Writes of more than one row happen in one transaction inside one method, so a caller
//! cannot leave anything half stored: [`Store::insert_run`] stores a run with its turns
//! and files, [`Store::commit_turn`] a turn's test results (and, for the last turn, the
//! re-scored run), the importers replace a dataset or a paper's tables whole.

pub mod run_files;
mod sqlite;

use serde::Serialize;

pub use sqlite::{DATABASE_FILE, DbError, Store};
pub(crate) use sqlite::{says_busy, says_full};
pub use wheelwright_core::api::DatabaseHealth;
pub(crate) use wheelwright_core::api::{
    ChainTurns, DatasetSummary, DatasetTurn, HiddenTestRow, ReportedTable, RunSummary, TurnTests,
};

/// A stored run's summary as the database holds it; [`RunRow::into_summary`] makes it the
/// wire type (`overall` is a JSON column).
#[derive(sqlx::FromRow)]
pub(crate) struct RunRow {
    pub(crate) id: i64,
    pub(crate) origin: String,
    pub(crate) baseline: Option<String>,
    pub(crate) benchmark: String,
    pub(crate) dataset_name: String,
    pub(crate) dataset_version: String,
    pub(crate) dataset_sha256: String,
    pub(crate) model: String,
    pub(crate) harness: String,
    pub(crate) memory: String,
    pub(crate) run_date: String,
    pub(crate) cost_usd: Option<f64>,
    pub(crate) scaffold_version: Option<String>,
    pub(crate) notes: Option<String>,
    pub(crate) scorer_version: String,
    pub(crate) grammar_version: String,
    pub(crate) chains: i64,
    pub(crate) turns: i64,
    pub(crate) created_at: String,
    /// The run's row of scores, as JSON.
    pub(crate) overall: String,
}

impl RunRow {
    /// The summary the API sends; fails only when the stored `overall` is not a row of
    /// scores (the server wrote it, so that is a bug, not bad input).
    pub(crate) fn into_summary(self) -> anyhow::Result<RunSummary> {
        Ok(RunSummary {
            id: self.id,
            origin: self.origin,
            baseline: self.baseline,
            benchmark: self.benchmark,
            dataset_name: self.dataset_name,
            dataset_version: self.dataset_version,
            dataset_sha256: self.dataset_sha256,
            model: self.model,
            harness: self.harness,
            memory: self.memory,
            run_date: self.run_date,
            cost_usd: self.cost_usd,
            scaffold_version: self.scaffold_version,
            notes: self.notes,
            scorer_version: self.scorer_version,
            grammar_version: self.grammar_version,
            chain_count: self.chains,
            turn_count: self.turns,
            created_at: self.created_at,
            overall: serde_json::from_str(&self.overall)?,
        })
    }
}

/// Which runs a list shows; `None` is any.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunFilter {
    pub(crate) benchmark: Option<String>,
    /// `verified` or `baseline`.
    pub(crate) origin: Option<String>,
}

/// A stored run as a leaderboard row needs it.
#[derive(sqlx::FromRow)]
pub(crate) struct LeaderboardRun {
    pub(crate) id: i64,
    pub(crate) origin: String,
    pub(crate) model: String,
    pub(crate) harness: String,
    pub(crate) memory: String,
    /// The run's row of scores, as JSON.
    pub(crate) overall: String,
    pub(crate) dataset_name: String,
    pub(crate) dataset_version: String,
}

/// A run to store: where it comes from and what it is of, besides its report and texts.
pub(crate) struct NewRun<'a> {
    /// `verified` or `baseline`.
    pub(crate) origin: &'a str,
    /// The baseline's name, for a baseline.
    pub(crate) baseline: Option<&'a str>,
    pub(crate) benchmark: &'a str,
    pub(crate) dataset_name: &'a str,
    pub(crate) dataset_version: &'a str,
    pub(crate) dataset_sha256: &'a str,
    pub(crate) bundle_sha256: &'a str,
    pub(crate) metadata: &'a wheelwright_core::bundle::Metadata,
}

/// A run's scores as stored, serialised: its row and series, and one score per stored
/// (chain, turn) slot (a RepoReuse turn; a ReCUBE instance is the slot (id, 1)).
pub(crate) struct Scores {
    pub(crate) scorer_version: String,
    pub(crate) chains: usize,
    /// JSON: the run's row, {column: Score}.
    pub(crate) overall: String,
    /// JSON: {column: [Score, ...]} over turns (`{}` for ReCUBE, which has no turns).
    pub(crate) series: String,
    /// JSON array of run diagnostics.
    pub(crate) diagnostics: String,
    /// JSON: the report of unparsed actions, for RepoReuse.
    pub(crate) unparsed: Option<String>,
    pub(crate) turns: Vec<SlotScore>,
}

/// One slot's score as stored.
pub(crate) struct SlotScore {
    pub(crate) chain: String,
    pub(crate) turn: usize,
    /// JSON: the turn's row (RepoReuse) or the instance's score (ReCUBE).
    pub(crate) score: String,
}

impl SlotScore {
    pub(crate) fn new(chain: &str, turn: usize, score: &impl Serialize) -> anyhow::Result<Self> {
        Ok(Self {
            chain: chain.to_owned(),
            turn,
            score: serde_json::to_string(score)?,
        })
    }
}

impl Scores {
    /// A RepoReuse run's report as stored.
    pub(crate) fn of_reporeuse(
        report: &wheelwright_core::reporeuse::scoring::RunReport,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            scorer_version: report.scorer_version.clone(),
            chains: report.chains,
            overall: serde_json::to_string(&report.overall)?,
            series: serde_json::to_string(&report.series)?,
            diagnostics: serde_json::to_string(&report.diagnostics)?,
            unparsed: Some(serde_json::to_string(&report.unparsed)?),
            turns: report
                .turns
                .iter()
                .map(|row| SlotScore::new(&row.chain, row.turn, row))
                .collect::<anyhow::Result<_>>()?,
        })
    }

    /// A ReCUBE run's report as stored: its row with the pass rates undefined until
    /// `tested`, one slot per instance.
    pub(crate) fn of_recube(
        report: &wheelwright_core::recube::scoring::RecubeReport,
        tested: bool,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            scorer_version: wheelwright_core::SCORER_VERSION.to_owned(),
            chains: report.instances.len(),
            overall: serde_json::to_string(&report.row(tested))?,
            series: "{}".to_owned(),
            diagnostics: "[]".to_owned(),
            unparsed: None,
            turns: report
                .instances
                .iter()
                .map(|i| SlotScore::new(&i.instance, 1, i))
                .collect::<anyhow::Result<_>>()?,
        })
    }
}

/// What the commit of a tested slot also stores.
pub(crate) enum Rescore<'a> {
    /// Nothing more: the run is scored again once its last slot is tested (RepoReuse).
    Nothing,
    /// The slot's new score (a ReCUBE instance, scored with its verdict).
    Slot(SlotScore),
    /// The last slot: the whole run scored again, and the job done.
    Finish(&'a Scores),
}

/// What [`Store::insert_run`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// Stored as this new run.
    Run(i64),
    /// Nothing stored: the same bundle is already this run.
    Duplicate(i64),
}

/// A stored text, without its content.
#[derive(Clone, Debug, sqlx::FromRow)]
pub(crate) struct StoredText {
    pub(crate) id: i64,
    pub(crate) path: String,
    pub(crate) size: i64,
}

/// One stored part of a text, as it is kept: how it is encoded and its bytes.
pub(crate) struct StoredPart {
    pub(crate) encoding: String,
    pub(crate) data: Vec<u8>,
}

/// One part of a stored text, with the text's identity (parts of a text come in order).
#[derive(sqlx::FromRow)]
pub(crate) struct PartRow {
    pub(crate) id: i64,
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) kind: String,
    pub(crate) path: String,
    pub(crate) encoding: String,
    pub(crate) data: Vec<u8>,
}

/// What queueing a run's hidden tests did ([`Store::queue_job`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Queued {
    /// The job, new or queued again.
    Job(i64),
    /// The run's job is queued, running or done already.
    Exists(i64),
    /// The submitter has this many jobs queued or running, its limit.
    Full(i64),
}

/// A turn of a hidden-test job, claimed by a worker.
#[derive(sqlx::FromRow)]
pub(crate) struct Claim {
    pub(crate) id: i64,
    pub(crate) run_id: i64,
    pub(crate) spent_s: f64,
    pub(crate) budget_s: Option<f64>,
    pub(crate) attempts: i64,
}

/// A stored dataset's row as the database holds it ([`DatasetSummary`] on the wire).
#[derive(sqlx::FromRow)]
pub(crate) struct DatasetRow {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) benchmark: String,
    pub(crate) content_sha256: String,
    pub(crate) chains: i64,
    pub(crate) turns: i64,
    pub(crate) tests: i64,
}

impl From<DatasetRow> for DatasetSummary {
    fn from(row: DatasetRow) -> Self {
        Self {
            name: row.name,
            version: row.version,
            benchmark: row.benchmark,
            content_sha256: row.content_sha256,
            chain_count: row.chains,
            turn_count: row.turns,
            test_count: row.tests,
        }
    }
}

/// A turn of a stored dataset as the database holds it: its targets are JSON columns.
#[derive(sqlx::FromRow)]
pub(crate) struct DatasetTurnRow {
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) title: String,
    pub(crate) module_path: String,
    pub(crate) requirement: String,
    pub(crate) repo_targets: String,
    pub(crate) self_targets: String,
    pub(crate) tests: i64,
}

impl DatasetTurnRow {
    /// The wire type; fails only when a stored target list is not JSON (a bug: the server
    /// wrote it).
    pub(crate) fn into_turn(self) -> anyhow::Result<DatasetTurn> {
        Ok(DatasetTurn {
            chain: self.chain,
            turn: self.turn,
            title: self.title,
            module_path: self.module_path,
            requirement: self.requirement,
            repo_targets: serde_json::from_str(&self.repo_targets)?,
            self_targets: serde_json::from_str(&self.self_targets)?,
            tests: self.tests,
        })
    }
}

/// A paper's table, validated, ready to store.
pub(crate) struct NewTable<'a> {
    pub(crate) table: &'a wheelwright_core::published::PublishedTable,
    /// Its metric columns in the paper's order.
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<wheelwright_core::published::ReportedRow>,
}

/// Where a benchmark's published results come from.
#[derive(Debug, Serialize)]
pub(crate) struct StoredSource {
    pub(crate) source: String,
    pub(crate) notes: String,
}
