//! Imports the datasets found in the datasets directory into the database at start.

use std::path::Path;

use sqlx::SqlitePool;
use wheelwright_core::dataset::RepoReuseDataset;

/// Number of hidden tests of a turn: one per case in its `cases.json`.
fn test_count(cases_json: &str) -> usize {
    serde_json::from_str::<Vec<serde_json::Value>>(cases_json).map_or(0, |cases| cases.len())
}

/// Imports every dataset directory under `dir` (a directory holding `dataset.json`) whose
/// content changed since the last import. A dataset that does not load is logged and
/// skipped, so one broken directory cannot keep the server from starting.
pub(crate) async fn import_dir(pool: &SqlitePool, dir: &Path) -> anyhow::Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        tracing::warn!(dir = %dir.display(), "no datasets directory; no dataset imported");
        return Ok(0);
    };
    let mut imported = 0;
    let mut dirs: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("dataset.json").is_file())
        .collect();
    dirs.sort();
    for path in dirs {
        let loaded = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || crate::dataset::load_dir(&path)).await?
        };
        match loaded {
            Ok(dataset) => {
                if import(pool, &dataset).await? {
                    imported += 1;
                }
            }
            Err(error) => {
                tracing::error!(dir = %path.display(), "dataset not imported: {error}");
            }
        }
    }
    Ok(imported)
}

/// Stores one dataset in a single transaction; `false` when the same content is there.
pub(crate) async fn import(pool: &SqlitePool, dataset: &RepoReuseDataset) -> anyhow::Result<bool> {
    let manifest = &dataset.manifest;
    let hash = dataset.content_hash();
    let stored: Option<String> =
        sqlx::query_scalar("SELECT content_sha256 FROM dataset WHERE name = ? AND version = ?")
            .bind(&manifest.name)
            .bind(&manifest.version)
            .fetch_optional(pool)
            .await?;
    match stored.as_deref() {
        Some(h) if h == hash => return Ok(false),
        Some(_) => tracing::warn!(
            name = manifest.name,
            version = manifest.version,
            "the dataset's files changed without a new version; replacing the stored copy"
        ),
        None => {}
    }
    let tests: usize = dataset
        .chains
        .iter()
        .flat_map(|c| &c.turns)
        .map(|t| test_count(&t.cases_json))
        .sum();
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM dataset WHERE name = ? AND version = ?")
        .bind(&manifest.name)
        .bind(&manifest.version)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO dataset (name, version, benchmark, content_sha256, chains, turns, tests, imported_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
    )
    .bind(&manifest.name)
    .bind(&manifest.version)
    .bind(manifest.benchmark.id())
    .bind(&hash)
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
            .bind(i64::try_from(test_count(&turn.cases_json))?)
            .execute(&mut *tx)
            .await?;
        }
    }
    tx.commit().await?;
    Ok(true)
}
