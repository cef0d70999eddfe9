//! `wheelwright dataset map`: a repository's callable map (RepoReuse's pipeline, step 1) from a pinned PyPI wheel or a directory, written as JSON.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use wheelwright_core::dataset::PypiRepository;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::reporeuse::callable_map::CallableMap;

/// Where the repository comes from.
#[derive(Clone, Debug)]
pub(super) enum MapSource {
    /// `networkx==3.4.2`: the wheel of that version (downloaded once into the cache).
    Pypi(String),
    /// A directory of Python sources.
    Dir(PathBuf),
}

/// `wheelwright dataset map`: the map to `out` (JSON) and, on standard output, the map as
/// JSON with `json` or a summary without.
pub(super) fn map(
    source: &MapSource,
    python: &Path,
    cache_dir: Option<PathBuf>,
    out: Option<&Path>,
    json: bool,
) -> anyhow::Result<()> {
    let files = read_repository(source, python, cache_dir)?;
    let python_files = files
        .iter()
        .filter(|(path, _)| path.ends_with(".py"))
        .map(|(p, t)| (p.as_str(), t.as_str()));
    let map = CallableMap::build(python_files, &IndexOptions::default());
    if let Some(out) = out {
        let text = serde_json::to_string_pretty(&map)? + "\n";
        std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    }
    super::io::emit(json, &map, summary)
}

/// The repository's files (path, text): the wheel's sources or the directory's files,
/// which must hold Python sources (`dataset walk` reads the repository as its map was made).
pub(super) fn read_repository(
    source: &MapSource,
    python: &Path,
    cache_dir: Option<PathBuf>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let files = match source {
        MapSource::Pypi(spec) => {
            let repo = parse_pin(spec)?;
            let cache = cache_dir.unwrap_or_else(crate::dataset::default_cache_dir);
            crate::dataset::pypi::repository_source_with(&repo, &cache, python)?
        }
        // Read as `cce` reads a repository (within the dataset reader's limits).
        MapSource::Dir(dir) => crate::dataset::read_source_tree(dir, dir, ".")
            .with_context(|| format!("reading the repository {}", dir.display()))?
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    };
    if !files.keys().any(|p| p.ends_with(".py")) {
        anyhow::bail!("the repository holds no .py files; give its root");
    }
    Ok(files)
}

/// `name==version` as a PyPI pin; the import package is taken to be the name.
fn parse_pin(spec: &str) -> anyhow::Result<PypiRepository> {
    let Some((name, version)) = spec.split_once("==") else {
        anyhow::bail!(
            "--repo {spec:?} pins no version; write it as NAME==VERSION (networkx==3.4.2)"
        );
    };
    if name.is_empty() || version.is_empty() {
        anyhow::bail!(
            "--repo {spec:?} has an empty name or version; write it as NAME==VERSION (networkx==3.4.2)"
        );
    }
    Ok(PypiRepository {
        pypi: name.to_owned(),
        version: version.to_owned(),
        import: name.replace('-', "_"),
    })
}

/// Counts, then the candidates with the public callables that call them.
fn summary(out: &mut impl Write, map: &CallableMap) -> std::io::Result<()> {
    let c = &map.counts;
    writeln!(
        out,
        "{} modules, {} callables ({} functions, {} methods), {} public, {} candidates, {} call edges",
        c.modules, c.callables, c.functions, c.methods, c.public, c.candidates, c.edges
    )?;
    let mut candidates: Vec<_> = map.callables.iter().filter(|c| c.candidate).collect();
    candidates.sort_by(|a, b| {
        b.callers
            .cmp(&a.callers)
            .then_with(|| a.qualified_name.cmp(&b.qualified_name))
    });
    writeln!(out, "candidates, most called first:")?;
    for candidate in candidates.iter().take(20) {
        writeln!(
            out,
            "  {:<4} {}  ({}:{})",
            candidate.callers, candidate.qualified_name, candidate.path, candidate.start_line
        )?;
    }
    if candidates.len() > 20 {
        writeln!(
            out,
            "  ... {} more (--json or --out for all)",
            candidates.len() - 20
        )?;
    }
    Ok(())
}
