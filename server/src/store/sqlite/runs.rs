//! Runs: storing one with its turns and texts in one transaction, listing and reading them, re-scoring.

use super::{NOW, Store, WriteTx};
use crate::store::run_files::PackedRun;
use crate::store::{
    ChainTurns, Inserted, LeaderboardRun, NewRun, RunFilter, RunRow, RunSummary, Scores, SlotScore,
};

/// The columns of a [`RunRow`].
const SUMMARY_COLUMNS: &str = "id, origin, baseline, benchmark, dataset_name, dataset_version,
    dataset_sha256, model, harness, memory, run_date, cost_usd, scaffold_version, notes,
    scorer_version, grammar_version, chains, turns, created_at, overall";

/// A [`RunFilter`] as SQL over parameters 1 (benchmark) and 2 (origin).
const FILTER: &str = "(?1 IS NULL OR benchmark = ?1) AND (?2 IS NULL OR origin = ?2)";

impl Store {
    /// The run of dataset `name` `version` stored from the bundle whose hash is
    /// `bundle_sha256`, if any.
    pub(crate) async fn run_by_bundle(
        &self,
        name: &str,
        version: &str,
        bundle_sha256: &str,
    ) -> anyhow::Result<Option<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM run WHERE dataset_name = ? AND dataset_version = ? AND bundle_sha256 = ?",
        )
        .bind(name)
        .bind(version)
        .bind(bundle_sha256)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Stores the run, one row per scored turn, and its files and trajectories, in a single
    /// transaction; or nothing, when the same bundle is already stored (checked again
    /// inside the transaction: two identical uploads at once store one run).
    pub(crate) async fn insert_run(
        &self,
        run: &NewRun<'_>,
        report: &Scores,
        packed: &PackedRun,
    ) -> anyhow::Result<Inserted> {
        let m = run.metadata;
        let mut tx = self.write_tx().await?;
        let duplicate: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM run WHERE dataset_name = ? AND dataset_version = ? AND bundle_sha256 = ?",
        )
        .bind(run.dataset_name)
        .bind(run.dataset_version)
        .bind(run.bundle_sha256)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(id) = duplicate {
            return Ok(Inserted::Duplicate(id));
        }
        let id: i64 = sqlx::query_scalar(&format!(
            "INSERT INTO run (origin, baseline, benchmark, dataset_name, dataset_version,
                 dataset_sha256, bundle_sha256, model, harness, memory, run_date, cost_usd,
                 scaffold_version, notes, scorer_version, grammar_version, chains, turns,
                 overall, series, diagnostics, unparsed, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {NOW})
             RETURNING id"
        ))
        .bind(run.origin)
        .bind(run.baseline)
        .bind(run.benchmark)
        .bind(run.dataset_name)
        .bind(run.dataset_version)
        .bind(run.dataset_sha256)
        .bind(run.bundle_sha256)
        .bind(&m.model)
        .bind(&m.harness)
        .bind(&m.memory)
        .bind(&m.date)
        .bind(m.cost_usd)
        .bind(&m.scaffold_version)
        .bind(&m.notes)
        .bind(&report.scorer_version)
        .bind(wheelwright_core::syntax::GRAMMAR_VERSION)
        .bind(i64::try_from(report.chains)?)
        .bind(i64::try_from(report.turns.len())?)
        .bind(&report.overall)
        .bind(&report.series)
        .bind(&report.diagnostics)
        .bind(&report.unparsed)
        .fetch_one(&mut *tx)
        .await?;
        for row in &report.turns {
            sqlx::query("INSERT INTO run_turn (run_id, chain, turn, score) VALUES (?, ?, ?, ?)")
                .bind(id)
                .bind(&row.chain)
                .bind(i64::try_from(row.turn)?)
                .bind(&row.score)
                .execute(&mut *tx)
                .await?;
        }
        Self::insert_texts(&mut tx, id, packed).await?;
        tx.commit().await?;
        Ok(Inserted::Run(id))
    }

    /// Replaces the stored scores of run `run` (its row, series, diagnostics and every
    /// turn's row) with `report`, inside `tx`.
    pub(super) async fn write_rescore(
        tx: &mut WriteTx,
        run: i64,
        report: &Scores,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "UPDATE run SET overall = ?, series = ?, diagnostics = ?, unparsed = ? WHERE id = ?",
        )
        .bind(&report.overall)
        .bind(&report.series)
        .bind(&report.diagnostics)
        .bind(&report.unparsed)
        .bind(run)
        .execute(&mut **tx)
        .await?;
        for row in &report.turns {
            Self::write_slot_score(tx, run, row).await?;
        }
        Ok(())
    }

    /// Replaces the stored score of one slot of run `run`, inside `tx`.
    pub(super) async fn write_slot_score(
        tx: &mut WriteTx,
        run: i64,
        row: &SlotScore,
    ) -> anyhow::Result<()> {
        sqlx::query("UPDATE run_turn SET score = ? WHERE run_id = ? AND chain = ? AND turn = ?")
            .bind(&row.score)
            .bind(run)
            .bind(&row.chain)
            .bind(i64::try_from(row.turn)?)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Deletes the baselines of dataset `name` `version` computed from other content than
    /// `sha256`; how many.
    pub(crate) async fn delete_stale_baselines(
        &self,
        name: &str,
        version: &str,
        sha256: &str,
    ) -> anyhow::Result<u64> {
        let deleted = sqlx::query(
            "DELETE FROM run WHERE origin = 'baseline' AND dataset_name = ? AND dataset_version = ?
                 AND dataset_sha256 <> ?",
        )
        .bind(name)
        .bind(version)
        .bind(sha256)
        .execute(&self.pool)
        .await?
        .rows_affected();
        self.wrote();
        Ok(deleted)
    }

    /// The stored run of baseline `baseline` of dataset `name` `version`, if any.
    pub(crate) async fn baseline_run(
        &self,
        baseline: &str,
        name: &str,
        version: &str,
    ) -> anyhow::Result<Option<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM run WHERE origin = 'baseline' AND baseline = ?
                 AND dataset_name = ? AND dataset_version = ?",
        )
        .bind(baseline)
        .bind(name)
        .bind(version)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The baseline runs that have no hidden-test job yet, by id.
    pub(crate) async fn untested_baselines(&self) -> anyhow::Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM run WHERE origin = 'baseline'
             AND id NOT IN (SELECT run_id FROM test_job) ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Runs matching `filter` by id, `limit` from `offset`.
    pub(crate) async fn runs_page(
        &self,
        filter: &RunFilter,
        limit: i64,
        offset: i64,
    ) -> anyhow::Result<Vec<RunSummary>> {
        sqlx::query_as::<_, RunRow>(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM run WHERE {FILTER} ORDER BY id LIMIT ?3 OFFSET ?4"
        ))
        .bind(&filter.benchmark)
        .bind(&filter.origin)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(RunRow::into_summary)
        .collect()
    }

    /// At most `limit` runs matching `filter` with ids above `after` (from the first with
    /// `None`), by id: a page of a download that reads the runs a page at a time.
    pub(crate) async fn runs_after(
        &self,
        filter: &RunFilter,
        after: Option<i64>,
        limit: i64,
    ) -> anyhow::Result<Vec<RunSummary>> {
        sqlx::query_as::<_, RunRow>(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM run WHERE {FILTER} AND id > ?3
             ORDER BY id LIMIT ?4"
        ))
        .bind(&filter.benchmark)
        .bind(&filter.origin)
        .bind(after.unwrap_or(0))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(RunRow::into_summary)
        .collect()
    }

    /// How many runs match `filter`.
    pub(crate) async fn run_count(&self, filter: &RunFilter) -> anyhow::Result<i64> {
        Ok(
            sqlx::query_scalar(&format!("SELECT COUNT(*) FROM run WHERE {FILTER}"))
                .bind(&filter.benchmark)
                .bind(&filter.origin)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Run `id`'s summary, if there is such a run.
    pub(crate) async fn run_summary(&self, id: i64) -> anyhow::Result<Option<RunSummary>> {
        sqlx::query_as::<_, RunRow>(&format!("SELECT {SUMMARY_COLUMNS} FROM run WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .map(RunRow::into_summary)
            .transpose()
    }

    /// Run `id`'s series, diagnostics and report of unparsed actions (`None` for a run
    /// scored before it was kept), as JSON.
    pub(crate) async fn run_series(
        &self,
        id: i64,
    ) -> anyhow::Result<(String, String, Option<String>)> {
        Ok(
            sqlx::query_as("SELECT series, diagnostics, unparsed FROM run WHERE id = ?")
                .bind(id)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Run `id`'s chains in the order they were stored, with their turns' count.
    pub(crate) async fn run_chains(&self, id: i64) -> anyhow::Result<Vec<ChainTurns>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT chain, COUNT(*) AS turn_count FROM run_turn WHERE run_id = ?
             GROUP BY chain ORDER BY MIN(rowid)",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(chain, turn_count)| ChainTurns { chain, turn_count })
            .collect())
    }

    /// The stored rows (JSON) of run `run`'s turns in the order they were stored, `limit`
    /// from `offset`.
    pub(crate) async fn turn_scores(
        &self,
        run: i64,
        limit: i64,
        offset: i64,
    ) -> anyhow::Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT score FROM run_turn WHERE run_id = ? ORDER BY rowid LIMIT ? OFFSET ?",
        )
        .bind(run)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?)
    }

    /// At most `limit` stored turn rows of run `run` after the cursor `after` (from the
    /// first with `None`), each with its cursor: a page of a download.
    pub(crate) async fn turn_scores_after(
        &self,
        run: i64,
        after: Option<i64>,
        limit: i64,
    ) -> anyhow::Result<Vec<(i64, String)>> {
        Ok(sqlx::query_as(
            "SELECT rowid, score FROM run_turn WHERE run_id = ? AND rowid > ?
             ORDER BY rowid LIMIT ?",
        )
        .bind(run)
        .bind(after.unwrap_or(0))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// How many turns run `run` has.
    pub(crate) async fn turn_count(&self, run: i64) -> anyhow::Result<i64> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM run_turn WHERE run_id = ?")
                .bind(run)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// The stored row (JSON) of turn `turn` of `chain` of run `run`, if there is one.
    pub(crate) async fn turn_score(
        &self,
        run: i64,
        chain: &str,
        turn: i64,
    ) -> anyhow::Result<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT score FROM run_turn WHERE run_id = ? AND chain = ? AND turn = ?",
        )
        .bind(run)
        .bind(chain)
        .bind(turn)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Every stored run of `benchmark` by id, as leaderboard rows need them.
    pub(crate) async fn leaderboard_runs(
        &self,
        benchmark: &str,
    ) -> anyhow::Result<Vec<LeaderboardRun>> {
        Ok(sqlx::query_as(
            "SELECT id, origin, model, harness, memory, overall, dataset_name, dataset_version
                 FROM run WHERE benchmark = ? ORDER BY id",
        )
        .bind(benchmark)
        .fetch_all(&self.pool)
        .await?)
    }
}
