//! Imports the papers' published results, bundled into the binary, as "reported" rows.

use sha2::{Digest, Sha256};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::published::{self, PublishedFile};
use wheelwright_core::reporeuse::stats::PaperStats;

use crate::store::{NewTable, Store};

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

/// The RepoReuse paper's Table 1 (`dataset_stats` in its bundled file), read once: what a
/// dataset's page sets its own rows beside.
pub(crate) fn reporeuse_dataset_stats() -> Option<&'static PaperStats> {
    static STATS: std::sync::LazyLock<Option<PaperStats>> = std::sync::LazyLock::new(|| {
        let (_, text) = BUNDLED
            .iter()
            .find(|(benchmark, _)| *benchmark == Benchmark::RepoReuse)?;
        PaperStats::from_published(text).unwrap_or_else(|error| {
            // `the_bundled_dataset_stats_read` keeps this from shipping; were it to, the
            // pages would only lose the comparison.
            tracing::error!("the bundled RepoReuse dataset_stats do not read: {error}");
            None
        })
    });
    STATS.as_ref()
}

/// What an import did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ImportReport {
    pub(crate) imported: Vec<Benchmark>,
    pub(crate) unchanged: Vec<Benchmark>,
}

/// Imports every bundled file whose content changed since the last import.
pub(crate) async fn import_bundled(store: &Store) -> anyhow::Result<ImportReport> {
    let mut report = ImportReport::default();
    for (benchmark, text) in BUNDLED {
        if import(store, benchmark, text).await? {
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
    store: &Store,
    benchmark: Benchmark,
    text: &str,
) -> anyhow::Result<bool> {
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    let stored = store.published_hash(benchmark).await?;
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
        .map(|table| {
            Ok(NewTable {
                table,
                columns: table.metric_columns(),
                rows: table.reported_rows()?,
            })
        })
        .collect::<Result<Vec<_>, published::PublishedError>>()?;
    store
        .replace_published(benchmark, &file, &hash, &tables)
        .await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn row_count(store: &Store) -> i64 {
        store.count_rows("published_row").await.unwrap()
    }

    #[test]
    fn the_bundled_dataset_stats_read() {
        let paper = reporeuse_dataset_stats().expect("reporeuse.json has dataset_stats");
        assert_eq!(paper.tasks, 75);
        assert_eq!(paper.mean("cases_per_turn"), Some(10.8));
    }

    #[tokio::test]
    async fn a_file_that_does_not_validate_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let (benchmark, text) = BUNDLED[1];
        assert!(import(&store, benchmark, text).await.unwrap());
        let before = row_count(&store).await;
        assert!(before > 0);

        // Valid JSON, but a later table has a row with a value that is no number nor text.
        let mut broken: serde_json::Value = serde_json::from_str(text).unwrap();
        broken["tables"][2]["rows"][0]["apr"] = serde_json::json!({ "oops": 1 });
        let error = import(&store, benchmark, &broken.to_string())
            .await
            .unwrap_err();
        assert!(error.to_string().contains("apr"), "{error}");
        assert_eq!(row_count(&store).await, before);
        // The same content again is recognised by its hash.
        assert!(!import(&store, benchmark, text).await.unwrap());
    }
}
