//! What the server scores against and compares with: the imported datasets and the papers' published results.

use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::published::PublishedFile;
use wheelwright_core::reporeuse::dataset::RepoReuseDataset;

use super::{NOW, Store};
use crate::store::{
    DatasetRow, DatasetSummary, DatasetTurn, DatasetTurnRow, NewTable, ReportedTable, StoredSource,
};

/// The columns of a [`DatasetRow`].
const DATASET_COLUMNS: &str = "name, version, benchmark, content_sha256, chains, turns, tests";

/// One row of the join of a table with its rows (a table without rows has no labels).
#[derive(sqlx::FromRow)]
struct TableRow {
    key: String,
    title: String,
    columns: String,
    labels: Option<String>,
    metrics: Option<String>,
}

impl Store {
    /// The content hash of the stored dataset `name` `version`, if it is stored.
    pub(crate) async fn dataset_hash(
        &self,
        name: &str,
        version: &str,
    ) -> anyhow::Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT content_sha256 FROM dataset WHERE name = ? AND version = ?")
                .bind(name)
                .bind(version)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Replaces the stored copy of `dataset` (content hash `hash`, `tests` hidden tests in
    /// all) with it and its turns, in a single transaction; `turn_tests` counts a turn's
    /// tests from its `cases.json`.
    pub(crate) async fn replace_dataset(
        &self,
        dataset: &RepoReuseDataset,
        hash: &str,
        tests: usize,
        turn_tests: impl Fn(&str) -> usize,
    ) -> anyhow::Result<()> {
        let manifest = &dataset.manifest;
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM dataset WHERE name = ? AND version = ?")
            .bind(&manifest.name)
            .bind(&manifest.version)
            .execute(&mut *tx)
            .await?;
        sqlx::query(&format!(
            "INSERT INTO dataset (name, version, benchmark, content_sha256, chains, turns, tests, imported_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, {NOW})"
        ))
        .bind(&manifest.name)
        .bind(&manifest.version)
        .bind(manifest.benchmark.id())
        .bind(hash)
        .bind(i64::try_from(dataset.chains.len())?)
        .bind(i64::try_from(dataset.turn_count())?)
        .bind(i64::try_from(tests)?)
        .execute(&mut *tx)
        .await?;
        for chain in &dataset.chains {
            for turn in &chain.turns {
                let t = &turn.manifest;
                sqlx::query(
                    "INSERT INTO dataset_turn (dataset_name, dataset_version, chain, turn, title,
                         module_path, requirement, repo_targets, self_targets, tests)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                )
                .bind(&manifest.name)
                .bind(&manifest.version)
                .bind(&chain.manifest.id)
                .bind(i64::try_from(t.turn)?)
                .bind(&t.title)
                .bind(&t.module_path)
                .bind(&turn.requirement)
                .bind(serde_json::to_string(&t.repo_targets)?)
                .bind(serde_json::to_string(&t.self_targets)?)
                .bind(i64::try_from(turn_tests(&turn.cases_json))?)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every stored dataset by name and version.
    pub(crate) async fn datasets(&self) -> anyhow::Result<Vec<DatasetSummary>> {
        Ok(sqlx::query_as::<_, DatasetRow>(&format!(
            "SELECT {DATASET_COLUMNS} FROM dataset ORDER BY name, version"
        ))
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(DatasetSummary::from)
        .collect())
    }

    /// The stored dataset `name` `version`, if there is one.
    pub(crate) async fn dataset(
        &self,
        name: &str,
        version: &str,
    ) -> anyhow::Result<Option<DatasetSummary>> {
        Ok(sqlx::query_as::<_, DatasetRow>(&format!(
            "SELECT {DATASET_COLUMNS} FROM dataset WHERE name = ? AND version = ?"
        ))
        .bind(name)
        .bind(version)
        .fetch_optional(&self.pool)
        .await?
        .map(DatasetSummary::from))
    }

    /// The turns of the stored dataset `name` `version` in the order they were imported.
    pub(crate) async fn dataset_turns(
        &self,
        name: &str,
        version: &str,
    ) -> anyhow::Result<Vec<DatasetTurn>> {
        sqlx::query_as::<_, DatasetTurnRow>(
            "SELECT chain, turn, title, module_path, requirement, repo_targets, self_targets, tests
             FROM dataset_turn WHERE dataset_name = ? AND dataset_version = ?
             ORDER BY rowid",
        )
        .bind(name)
        .bind(version)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(DatasetTurnRow::into_turn)
        .collect()
    }

    /// The content hash of the published results stored for `benchmark`, if any.
    pub(crate) async fn published_hash(
        &self,
        benchmark: Benchmark,
    ) -> anyhow::Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT content_sha256 FROM published_source WHERE benchmark = ?")
                .bind(benchmark.id())
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Replaces the published results of `benchmark` with `file` (content hash `hash`),
    /// whose tables are already validated as `tables`, in a single transaction.
    pub(crate) async fn replace_published(
        &self,
        benchmark: Benchmark,
        file: &PublishedFile,
        hash: &str,
        tables: &[NewTable<'_>],
    ) -> anyhow::Result<()> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM published_source WHERE benchmark = ?")
            .bind(benchmark.id())
            .execute(&mut *tx)
            .await?;
        sqlx::query(&format!(
            "INSERT INTO published_source (benchmark, source, notes, content_sha256, imported_at)
             VALUES (?, ?, ?, ?, {NOW})"
        ))
        .bind(benchmark.id())
        .bind(&file.source)
        .bind(&file.notes)
        .bind(hash)
        .execute(&mut *tx)
        .await?;
        for (position, table) in tables.iter().enumerate() {
            let table_id: i64 = sqlx::query_scalar(
                "INSERT INTO published_table (benchmark, table_key, title, position, columns)
                 VALUES (?, ?, ?, ?, ?) RETURNING id",
            )
            .bind(benchmark.id())
            .bind(&table.table.id)
            .bind(&table.table.title)
            .bind(i64::try_from(position)?)
            .bind(serde_json::to_string(&table.columns)?)
            .fetch_one(&mut *tx)
            .await?;
            for (position, row) in table.rows.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO published_row (table_id, position, labels, metrics)
                     VALUES (?, ?, ?, ?)",
                )
                .bind(table_id)
                .bind(i64::try_from(position)?)
                .bind(serde_json::to_string(&row.labels)?)
                .bind(serde_json::to_string(&row.metrics)?)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Where the published results of `benchmark` come from, if any are stored.
    pub(crate) async fn published_source(
        &self,
        benchmark: Benchmark,
    ) -> anyhow::Result<Option<StoredSource>> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT source, notes FROM published_source WHERE benchmark = ?")
                .bind(benchmark.id())
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(source, notes)| StoredSource { source, notes }))
    }

    /// The published tables of `benchmark` in the paper's order; `only` restricts to one.
    pub(crate) async fn published_tables(
        &self,
        benchmark: Benchmark,
        only: Option<&str>,
    ) -> anyhow::Result<Vec<ReportedTable>> {
        let rows: Vec<TableRow> = sqlx::query_as(
            "SELECT t.table_key AS key, t.title, t.columns, r.labels, r.metrics
             FROM published_table t LEFT JOIN published_row r ON r.table_id = t.id
             WHERE t.benchmark = ?1 AND (?2 IS NULL OR t.table_key = ?2)
             ORDER BY t.position, r.position",
        )
        .bind(benchmark.id())
        .bind(only)
        .fetch_all(&self.pool)
        .await?;
        let mut tables: Vec<ReportedTable> = Vec::new();
        for TableRow {
            key,
            title,
            columns,
            labels,
            metrics,
        } in rows
        {
            if tables.last().is_none_or(|t| t.id != key) {
                tables.push(ReportedTable {
                    id: key,
                    title,
                    columns: serde_json::from_str(&columns)?,
                    rows: Vec::new(),
                });
            }
            if let (Some(labels), Some(metrics), Some(table)) = (labels, metrics, tables.last_mut())
            {
                table.rows.push(wheelwright_core::published::ReportedRow {
                    labels: serde_json::from_str(&labels)?,
                    metrics: serde_json::from_str(&metrics)?,
                });
            }
        }
        Ok(tables)
    }
}
