//! `wheelwright recube import`: the original ReCUBE data converted into a dataset directory (the conversion is `crate::dataset::recube_import`'s), with its notes and a summary.

use std::path::Path;

/// `wheelwright recube import SOURCE --out DIR`.
pub(in crate::cli) fn run(
    source: &Path,
    out: &Path,
    name: &str,
    version: &str,
) -> anyhow::Result<()> {
    let imported = crate::dataset::recube_import::import_original(source, out, name, version)?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let d = &imported.dataset;
    let tests: usize = d.instances.iter().map(|i| i.manifest.tests.len()).sum();
    println!(
        "wrote {}: {} repositories, {} instances, {tests} tests, sha256 {}",
        out.display(),
        d.manifest.repositories.len(),
        d.instances.len(),
        d.content_hash()
    );
    Ok(())
}
