//! `wheelwright dataset stats`: a RepoReuse dataset directory's Table 1 rows (chains; turns, cases, requirement length, new functions and reuse targets per turn: mean and range).

use std::io::Write;
use std::path::Path;

use wheelwright_core::reporeuse::stats::DatasetStats;

/// `wheelwright dataset stats DIR`: the rows on standard output, as JSON with `json`.
pub(super) fn stats(dir: &Path, json: bool) -> anyhow::Result<()> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is not a directory; a dataset is a directory holding dataset.json and chains/ (see docs/formats.md, \"Dataset (RepoReuse)\")",
            dir.display()
        );
    }
    let dataset = crate::dataset::load_dir(dir)?;
    let stats = DatasetStats::of(&dataset);
    super::io::emit(json, &stats, |out, stats| {
        writeln!(
            out,
            "dataset {} version {}: {} chains, {} turns",
            dataset.manifest.name, dataset.manifest.version, stats.chains, stats.turns
        )?;
        print_table(out, stats)
    })
}

/// One line per row: label, mean, range and what it is over.
fn print_table(out: &mut impl Write, stats: &DatasetStats) -> std::io::Result<()> {
    writeln!(out, "{:<38} {:>8}  {:>11}  over", "", "mean", "range")?;
    for row in &stats.rows {
        let mean = row.mean.map_or("-".to_owned(), |m| format!("{m:.1}"));
        let range = match (row.min, row.max) {
            (Some(min), Some(max)) => format!("{min}-{max}"),
            _ => "-".to_owned(),
        };
        let over = if row.key == "turns_per_chain" {
            "chains"
        } else {
            "turns"
        };
        writeln!(
            out,
            "{:<38} {mean:>8}  {range:>11}  {} {over}",
            row.label, row.count
        )?;
    }
    Ok(())
}
