//! Similar files: the repository's files most like the target, by name, structure and identifiers.
//!
//! A file written the way the target was (a sibling format reader, the same kind of
//! algorithm) is the best template for rebuilding it. Each signal is in [0, 1] and the
//! score is their mean (spec 2):
//! - name: the overlap (Jaccard) of the `_`-separated subtokens of the two file names
//!   without `.py`: `graph_utils` against `utils` is 1/2;
//! - structure: the mean, over the counts of classes, of functions (methods included) and
//!   the deepest nesting of definitions, of smaller / larger (1 when both are 0);
//! - identifier: the BM25 score (k1 = 1.2, b = 0.75) of the file for the query of the
//!   target's distinct identifiers, over every other file, divided by the best file's.
//!
//! The paper's example: 0.861 = mean(1.00, 0.58, 1.00). The target's features come from
//! its masked text, which keeps its names, classes and signatures.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::budget::Cancel;
use crate::python::facts::{DefinitionKind, Definitions};
use crate::syntax::{self, Kind};
use crate::workspace::Workspace;

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;

/// What the signals compare of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFeatures {
    /// The file name's subtokens, lower-cased.
    pub subtokens: BTreeSet<String>,
    pub classes: u32,
    /// Functions and methods.
    pub functions: u32,
    /// The deepest nesting of definitions (a module-level function: 1; a method: 2).
    pub depth: u32,
    /// Every identifier occurrence, in source order.
    pub identifiers: Vec<String>,
}

impl FileFeatures {
    pub fn of(path: &str, text: &str) -> Self {
        let file = path.rsplit('/').next().unwrap_or(path);
        let stem = file.strip_suffix(".py").unwrap_or(file);
        let subtokens = stem
            .split('_')
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect();
        let tree = syntax::parse(text);
        let identifiers = tree
            .descendants(tree.root())
            .filter(|&id| tree.kind(id) == Kind::Identifier)
            .map(|id| tree.text(id).to_owned())
            .collect();
        let mut features = Self {
            subtokens,
            identifiers,
            ..Self::default()
        };
        if let Ok(definitions) = Definitions::of(&tree, &Cancel::never()) {
            for d in &definitions.list {
                match d.kind {
                    DefinitionKind::Class => features.classes += 1,
                    DefinitionKind::Function | DefinitionKind::Method => features.functions += 1,
                }
                let depth = d
                    .qualified_name
                    .split('.')
                    .filter(|part| *part != "<locals>")
                    .count();
                features.depth = features.depth.max(depth as u32);
            }
        }
        features
    }
}

/// Name signal: the Jaccard overlap of two files' name subtokens (0 when both have none).
pub fn name_similarity(a: &FileFeatures, b: &FileFeatures) -> f64 {
    let union = a.subtokens.union(&b.subtokens).count();
    if union == 0 {
        return 0.0;
    }
    a.subtokens.intersection(&b.subtokens).count() as f64 / union as f64
}

/// Structure signal: the mean of smaller / larger over classes, functions and depth.
pub fn structure_similarity(a: &FileFeatures, b: &FileFeatures) -> f64 {
    let ratio = |x: u32, y: u32| {
        if x == y {
            1.0
        } else {
            f64::from(x.min(y)) / f64::from(x.max(y))
        }
    };
    (ratio(a.classes, b.classes) + ratio(a.functions, b.functions) + ratio(a.depth, b.depth)) / 3.0
}

/// Identifier signal of each of `files` for the query `target`: BM25 over `files`, divided by
/// the best score (all 0 when no file shares an identifier with the target).
pub fn identifier_scores(target: &FileFeatures, files: &[FileFeatures]) -> Vec<f64> {
    let query: BTreeSet<&str> = target.identifiers.iter().map(String::as_str).collect();
    let n = files.len() as f64;
    let average = files.iter().map(|f| f.identifiers.len()).sum::<usize>() as f64 / n.max(1.0);
    let counts: Vec<HashMap<&str, u32>> = files
        .iter()
        .map(|f| {
            let mut tf = HashMap::new();
            for id in &f.identifiers {
                *tf.entry(id.as_str()).or_default() += 1;
            }
            tf
        })
        .collect();
    let idf: HashMap<&str, f64> = query
        .iter()
        .map(|&term| {
            let with = counts.iter().filter(|tf| tf.contains_key(term)).count() as f64;
            (term, (1.0 + (n - with + 0.5) / (with + 0.5)).ln())
        })
        .collect();
    let scores: Vec<f64> = files
        .iter()
        .zip(&counts)
        .map(|(file, tf)| {
            let length = file.identifiers.len() as f64 / average.max(f64::MIN_POSITIVE);
            query
                .iter()
                .map(|term| {
                    let f = f64::from(tf.get(term).copied().unwrap_or(0));
                    idf[term] * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * length))
                })
                .sum()
        })
        .collect();
    let best = scores.iter().copied().fold(0.0, f64::max);
    scores
        .into_iter()
        .map(|s| if best > 0.0 { s / best } else { 0.0 })
        .collect()
}

/// One file and how like the target it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimilarFile {
    pub path: String,
    pub name: f64,
    pub structure: f64,
    pub identifier: f64,
    /// The mean of the three.
    pub score: f64,
}

/// Every Python file of `workspace` but `target`, most similar to the masked target first.
pub fn similar_files(workspace: &Workspace, target: &str, masked: &str) -> Vec<SimilarFile> {
    let query = FileFeatures::of(target, masked);
    let (paths, files): (Vec<&str>, Vec<FileFeatures>) = workspace
        .files()
        .filter(|(path, _)| *path != target && path.ends_with(".py"))
        .map(|(path, text)| (path, FileFeatures::of(path, text)))
        .unzip();
    let identifiers = identifier_scores(&query, &files);
    let mut out: Vec<SimilarFile> = paths
        .into_iter()
        .zip(&files)
        .zip(identifiers)
        .map(|((path, file), identifier)| {
            let name = name_similarity(&query, file);
            let structure = structure_similarity(&query, file);
            SimilarFile {
                path: path.to_owned(),
                name,
                structure,
                identifier,
                score: (name + structure + identifier) / 3.0,
            }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    out
}
