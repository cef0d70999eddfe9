//! Imports the papers' published results, bundled into the binary, as "reported" rows.

use sha2::{Digest, Sha256};
use sqlx::SqlitePool;
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::published::{self, PublishedFile};

/// The published files, embedded at build time so a fresh server has them without any setup.
pub(crate) const BUNDLED: [(Benchmark, &str); 3] = [
    (
        Benchmark::RepoReuse,
        include_str!("../../data/published/reporeuse.json"),
    ),
    (
        Benchmark::Recube,
        include_str!("../../data/published/recube.json"),
    ),
    (
        Benchmark::Schrodinger,
        include_str!("../../data/published/schrodinger.json"),
    ),
];

/// What an import did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ImportReport {
    pub(crate) imported: Vec<Benchmark>,
    pub(crate) unchanged: Vec<Benchmark>,
}

/// Imports every bundled file whose content changed since the last import.
pub(crate) async fn import_bundled(pool: &SqlitePool) -> anyhow::Result<ImportReport> {
    let mut report = ImportReport::default();
    for (benchmark, text) in BUNDLED {
        if import(pool, benchmark, text).await? {
            report.imported.push(benchmark);
        } else {
            report.unchanged.push(benchmark);
        }
    }
    Ok(report)
}

/// Imports one file in a single transaction; `false` when the same content is already there.
/// A file that does not validate changes nothing.
pub(crate) async fn import(
    pool: &SqlitePool,
    benchmark: Benchmark,
    text: &str,
) -> anyhow::Result<bool> {
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    let stored: Option<String> =
        sqlx::query_scalar("SELECT content_sha256 FROM published_source WHERE benchmark = ?")
            .bind(benchmark.id())
            .fetch_optional(pool)
            .await?;
    if stored.as_deref() == Some(hash.as_str()) {
        return Ok(false);
    }
    let file: PublishedFile = published::parse(text)?;
    anyhow::ensure!(
        file.benchmark == benchmark,
        "the published file for {} says it is for {}",
        benchmark.id(),
        file.benchmark.id()
    );
    // Validate every row before the first write.
    let tables = file
        .tables
        .iter()
        .map(|t| Ok((t, t.metric_columns(), t.reported_rows()?)))
        .collect::<Result<Vec<_>, published::PublishedError>>()?;

    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM published_source WHERE benchmark = ?")
        .bind(benchmark.id())
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO published_source (benchmark, source, notes, content_sha256, imported_at)
         VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
    )
    .bind(benchmark.id())
    .bind(&file.source)
    .bind(&file.notes)
    .bind(&hash)
    .execute(&mut *tx)
    .await?;
    for (position, (table, columns, rows)) in tables.iter().enumerate() {
        let table_id: i64 = sqlx::query_scalar(
            "INSERT INTO published_table (benchmark, table_key, title, position, columns)
             VALUES (?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(benchmark.id())
        .bind(&table.id)
        .bind(&table.title)
        .bind(i64::try_from(position)?)
        .bind(serde_json::to_string(columns)?)
        .fetch_one(&mut *tx)
        .await?;
        for (position, row) in rows.iter().enumerate() {
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
    Ok(true)
}

/// A stored published table with its rows.
#[derive(Debug, serde::Serialize)]
pub(crate) struct StoredTable {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<published::ReportedRow>,
}

/// Where a benchmark's published results come from.
#[derive(Debug, serde::Serialize)]
pub(crate) struct StoredSource {
    pub(crate) source: String,
    pub(crate) notes: String,
}

pub(crate) async fn source(
    pool: &SqlitePool,
    benchmark: Benchmark,
) -> anyhow::Result<Option<StoredSource>> {
    let row: Option<(String, String)> =
        sqlx::query_as("SELECT source, notes FROM published_source WHERE benchmark = ?")
            .bind(benchmark.id())
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|(source, notes)| StoredSource { source, notes }))
}

/// One row of the join of a table with its rows (a table without rows has no labels).
#[derive(sqlx::FromRow)]
struct TableRow {
    key: String,
    title: String,
    columns: String,
    labels: Option<String>,
    metrics: Option<String>,
}

/// The benchmark's published tables in the paper's order; `only` restricts to one table.
pub(crate) async fn tables(
    pool: &SqlitePool,
    benchmark: Benchmark,
    only: Option<&str>,
) -> anyhow::Result<Vec<StoredTable>> {
    let rows: Vec<TableRow> = sqlx::query_as(
        "SELECT t.table_key AS key, t.title, t.columns, r.labels, r.metrics
         FROM published_table t LEFT JOIN published_row r ON r.table_id = t.id
         WHERE t.benchmark = ?1 AND (?2 IS NULL OR t.table_key = ?2)
         ORDER BY t.position, r.position",
    )
    .bind(benchmark.id())
    .bind(only)
    .fetch_all(pool)
    .await?;
    let mut tables: Vec<StoredTable> = Vec::new();
    for TableRow {
        key,
        title,
        columns,
        labels,
        metrics,
    } in rows
    {
        if tables.last().is_none_or(|t| t.id != key) {
            tables.push(StoredTable {
                id: key,
                title,
                columns: serde_json::from_str(&columns)?,
                rows: Vec::new(),
            });
        }
        if let (Some(labels), Some(metrics), Some(table)) = (labels, metrics, tables.last_mut()) {
            table.rows.push(published::ReportedRow {
                labels: serde_json::from_str(&labels)?,
                metrics: serde_json::from_str(&metrics)?,
            });
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn row_count(pool: &SqlitePool) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM published_row")
            .fetch_one(pool)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_file_that_does_not_validate_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let pool = crate::db::open(dir.path()).await.unwrap();
        let (benchmark, text) = BUNDLED[1];
        assert!(import(&pool, benchmark, text).await.unwrap());
        let before = row_count(&pool).await;
        assert!(before > 0);

        // Valid JSON, but a later table has a row with a value that is no number nor text.
        let mut broken: serde_json::Value = serde_json::from_str(text).unwrap();
        broken["tables"][2]["rows"][0]["apr"] = serde_json::json!({ "oops": 1 });
        let error = import(&pool, benchmark, &broken.to_string())
            .await
            .unwrap_err();
        assert!(error.to_string().contains("apr"), "{error}");
        assert_eq!(row_count(&pool).await, before);
        // The same content again is recognised by its hash.
        assert!(!import(&pool, benchmark, text).await.unwrap());
    }
}
