//! A repository's view under levels 2 and 3 and a seed, its bundle, and patch recovery: a final view state turned back into a patch of the original.
//!
//! The bundle is everything needed to go back: the namespace mapping (level 2) and, per
//! view file, the runs whose order level 3 drew. A view made here is *materialised*: its
//! files are written out, so level 2 cannot rename what the code reaches by text (a name in
//! a string, `__all__` or a config file, a method name, the package when a config file
//! names it) and leaves those out. The virtual namespace ([`virtual_bundle`]) renames them
//! too, because its files are never written: an agent sees it through the translator. It
//! is JSON (`docs/formats.md`, "View bundle"). Levels 1 and 4 rewrite text with a language
//! model: level 1's exchanges are recorded in the bundle's `statement`
//! ([`super::restate`]); level 4 is not made here. Example:
//! ```
//! use std::collections::{BTreeMap, BTreeSet};
//! use wheelwright_core::schrodinger::view::{make_view, recover};
//! let files = BTreeMap::from([
//!     ("pkg/__init__.py".to_owned(), String::new()),
//!     ("pkg/shapes.py".to_owned(), "def area(w, h):\n    return w * h\n\n\ndef square(s):\n    return area(s, s)\n".to_owned()),
//! ]);
//! let view = make_view(&files, &[2, 3], 5).unwrap();
//! assert!(!view.files.contains_key("pkg/shapes.py"));
//! // An unchanged view recovers to an empty patch.
//! assert_eq!(recover(&files, &view.files, &view.bundle).patch, "");
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::layout::{self, RunRecord};
use super::namespace::{Mode, NamespaceMapping};
use super::translate::Translator;

/// The version of the view bundle's format.
pub const VIEW_FORMAT: u32 = 1;

/// Why a view cannot be made.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ViewError {
    #[error(
        "level {0} rewrites text with a language model and cannot be made here; give levels 2 and/or 3 (a dataset may ship level 1 and 4 views)"
    )]
    NeedsModel(u8),
    #[error("there is no level {0}: SchrodingerRepo has levels 1 to 4; give 2, 3 or 2,3")]
    NoSuchLevel(u8),
    #[error("no level given: give 2, 3 or 2,3")]
    NoLevel,
}

/// How to turn a view back into its original.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewBundle {
    pub format: u32,
    pub seed: u64,
    /// The levels applied, ascending.
    pub levels: Vec<u8>,
    /// Level 2's mapping, when applied.
    pub namespace: Option<NamespaceMapping>,
    /// Level 3's runs of each view file (by its path in the view) that has any.
    pub layout: BTreeMap<String, Vec<RunRecord>>,
    /// Level 1's exchanges with the model (`wheelwright view restate`), when made; absent
    /// in bundles written before level 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<super::restate::Level1Record>,
    /// Level 4's rewrites (`wheelwright view rewrite`), when made; absent in bundles
    /// written before level 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrites: Option<super::rewrites::Level4Record>,
}

/// A view: its files (path in the view to text) and its bundle.
#[derive(Clone, Debug)]
pub struct View {
    pub files: BTreeMap<String, String>,
    pub bundle: ViewBundle,
}

/// The view of a repository's text files (`path -> content`) under `levels` and `seed`.
/// Only `.py` files change; every file's path is renamed under level 2.
pub fn make_view(
    files: &BTreeMap<String, String>,
    levels: &[u8],
    seed: u64,
) -> Result<View, ViewError> {
    make_view_keeping(files, levels, seed, &BTreeSet::new())
}

/// [`make_view`] with the names in `keep` left out of level 2's mapping.
pub fn make_view_keeping(
    files: &BTreeMap<String, String>,
    levels: &[u8],
    seed: u64,
    keep: &BTreeSet<String>,
) -> Result<View, ViewError> {
    let mut sorted = levels.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for &level in &sorted {
        match level {
            2 | 3 => {}
            1 | 4 => return Err(ViewError::NeedsModel(level)),
            other => return Err(ViewError::NoSuchLevel(other)),
        }
    }
    if sorted.is_empty() {
        return Err(ViewError::NoLevel);
    }
    let namespace = sorted
        .contains(&2)
        .then(|| NamespaceMapping::build_keeping(files, seed, keep));
    let mut out = BTreeMap::new();
    let mut layout = BTreeMap::new();
    for (path, text) in files {
        let view_path = namespace
            .as_ref()
            .map_or_else(|| path.clone(), |m| m.view_path(path));
        let mut text = text.clone();
        if path.ends_with(".py") {
            if let Some(m) = &namespace {
                text = m.view_source(&text);
            }
            if sorted.contains(&3) {
                // Salted with the original path: the order does not depend on level 2.
                let (reordered, runs) = layout::reorder(&text, seed, path);
                text = reordered;
                if !runs.is_empty() {
                    layout.insert(view_path.clone(), runs);
                }
            }
        }
        out.insert(view_path, text);
    }
    Ok(View {
        files: out,
        bundle: ViewBundle {
            format: VIEW_FORMAT,
            seed,
            levels: sorted,
            namespace,
            layout,
            statement: None,
            rewrites: None,
        },
    })
}

/// The bundle of a level-2 *virtual* namespace of a repository's text files: no view files,
/// only the mapping ([`Mode::Virtual`]), which the translator applies to everything an
/// agent sends and reads while its commands run on the untouched original. Example:
/// ```
/// use std::collections::{BTreeMap, BTreeSet};
/// use wheelwright_core::schrodinger::view::virtual_bundle;
/// let files = BTreeMap::from([
///     ("pkg/__init__.py".to_owned(), "__all__ = [\"area\"]\nfrom pkg.shapes import area\n".to_owned()),
///     ("pkg/shapes.py".to_owned(), "def area(w, h):\n    return w * h\n".to_owned()),
/// ]);
/// let bundle = virtual_bundle(&files, 5, &BTreeSet::new());
/// let back = bundle.translator().unwrap();
/// let view = back.observation("from pkg.shapes import area").text;
/// assert!(!view.contains("area") && !view.contains("pkg"));
/// assert_eq!(back.command(&format!("grep -n {view} -r .")).text, "grep -n from pkg.shapes import area -r .");
/// ```
pub fn virtual_bundle(
    files: &BTreeMap<String, String>,
    seed: u64,
    keep: &BTreeSet<String>,
) -> ViewBundle {
    ViewBundle {
        format: VIEW_FORMAT,
        seed,
        levels: vec![2],
        namespace: Some(NamespaceMapping::build_in(Mode::Virtual, files, seed, keep)),
        layout: BTreeMap::new(),
        statement: None,
        rewrites: None,
    }
}

impl ViewBundle {
    /// Level 2's translator, to turn view text back; build it once for many texts.
    pub fn translator(&self) -> Option<Translator> {
        self.namespace.as_ref().map(Translator::of)
    }

    /// A view path in the original.
    pub fn original_path(&self, view_path: &str) -> String {
        self.namespace
            .as_ref()
            .map_or_else(|| view_path.to_owned(), |m| m.original_path(view_path))
    }

    /// A file of the view (possibly edited by an agent) in original coordinates: level 3
    /// undone, then level 2 through `back` ([`Self::translator`]). Diagnostics say what
    /// could not be undone. Exact on a view's files: view names are made of words the
    /// repository never writes.
    pub fn original_text(
        &self,
        back: Option<&Translator>,
        view_path: &str,
        text: &str,
    ) -> (String, Vec<String>) {
        let mut diagnostics = Vec::new();
        let mut text = text.to_owned();
        if let Some(runs) = self.layout.get(view_path) {
            let (restored, d) = layout::restore(&text, runs);
            text = restored;
            diagnostics.extend(d.into_iter().map(|d| format!("{view_path}: {d}")));
        }
        if let Some(back) = back {
            text = back.patch(&text).text;
        }
        (text, diagnostics)
    }
}

/// What [`recover`] gives: the patch and what it could not undo.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Recovery {
    /// A unified diff (`git apply`-able, paths `a/` and `b/`) from the original to the final
    /// state in original coordinates; empty when nothing changed.
    pub patch: String,
    /// Original paths that differ (added, changed or removed).
    pub changed: Vec<String>,
    pub diagnostics: Vec<String>,
}

/// The final submission of a run on a view (spec 3, patch recovery): the final view state
/// mapped back to original coordinates and diffed, file by file, against the original.
pub fn recover(
    original: &BTreeMap<String, String>,
    final_view: &BTreeMap<String, String>,
    bundle: &ViewBundle,
) -> Recovery {
    let mut recovery = Recovery::default();
    let translator = bundle.translator();
    let mut back: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in final_view {
        let (text, diagnostics) = bundle.original_text(translator.as_ref(), path, text);
        recovery.diagnostics.extend(diagnostics);
        back.insert(bundle.original_path(path), text);
    }
    let paths: std::collections::BTreeSet<&String> = original.keys().chain(back.keys()).collect();
    for path in paths {
        let before = original.get(path);
        let after = back.get(path);
        if before == after {
            continue;
        }
        let old = before.map_or("", String::as_str);
        let new = after.map_or("", String::as_str);
        let diff = similar::TextDiff::from_lines(old, new);
        let a = if before.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".to_owned()
        };
        let b = if after.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".to_owned()
        };
        recovery
            .patch
            .push_str(&format!("diff --git a/{path} b/{path}\n"));
        if before.is_none() {
            recovery.patch.push_str("new file mode 100644\n");
        } else if after.is_none() {
            recovery.patch.push_str("deleted file mode 100644\n");
        }
        recovery.patch.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&a, &b)
                .to_string(),
        );
        recovery.changed.push(path.clone());
    }
    recovery
}

/// One file of the view of `files` under `levels` and `seed`, as the view explorer shows
/// it: `path` (original) or, without it, the first Python file. `Ok(None)` when the
/// repository has no such Python file.
pub fn view_file(
    files: &BTreeMap<String, String>,
    levels: &[u8],
    seed: u64,
    path: Option<&str>,
) -> Result<Option<crate::api::ViewFile>, ViewError> {
    let python: Vec<String> = files
        .keys()
        .filter(|p| p.ends_with(".py"))
        .cloned()
        .collect();
    let Some(path) = path.map(str::to_owned).or_else(|| python.first().cloned()) else {
        return Ok(None);
    };
    if !path.ends_with(".py") || !files.contains_key(&path) {
        return Ok(None);
    }
    let view = make_view(files, levels, seed)?;
    let bundle = &view.bundle;
    let view_path = bundle
        .namespace
        .as_ref()
        .map_or_else(|| path.clone(), |m| m.view_path(&path));
    let original = files[&path].clone();
    let text = view.files.get(&view_path).cloned().unwrap_or_default();
    let names = bundle.namespace.as_ref().map_or_else(Vec::new, |m| {
        let written: BTreeSet<&str> = super::namespace::word_tokens(&original)
            .map(|(_, w)| w)
            .collect();
        m.names
            .iter()
            .filter(|(o, _)| written.contains(o.as_str()))
            .map(|(o, v)| (o.clone(), v.clone()))
            .collect()
    });
    let records = bundle.layout.get(&view_path).cloned().unwrap_or_default();
    let orders = layout::view_orders(&text, &records);
    let runs = records
        .into_iter()
        .zip(orders)
        .map(|(r, view_order)| crate::api::ViewRun {
            container: r.container,
            original_order: r.names,
            view_order,
        })
        .collect();
    Ok(Some(crate::api::ViewFile {
        seed,
        levels: bundle.levels.clone(),
        files: python,
        path,
        view_path,
        original,
        view: text,
        names,
        runs,
        names_mapped: bundle.namespace.as_ref().map_or(0, |m| m.names.len()),
        names_left_out: bundle.namespace.as_ref().map_or(0, |m| m.left_out.len()),
        virtual_namespace: false,
    }))
}

/// One Python file of `files` (the first without a `path`) beside what an agent reads of
/// it in the level-2 virtual namespace under `seed` (`cat` through `wheelwright view
/// shell`): the original translated, so strings, `__all__`, method names and the package
/// are renamed too. `None` when `path` is not one of the Python files.
pub fn virtual_view_file(
    files: &BTreeMap<String, String>,
    seed: u64,
    path: Option<&str>,
) -> Option<crate::api::ViewFile> {
    let python: Vec<String> = files
        .keys()
        .filter(|p| p.ends_with(".py"))
        .cloned()
        .collect();
    let path = path
        .map(str::to_owned)
        .or_else(|| python.first().cloned())?;
    let original = files.get(&path).filter(|_| path.ends_with(".py"))?.clone();
    let bundle = virtual_bundle(files, seed, &BTreeSet::new());
    let mapping = bundle.namespace.as_ref()?;
    let view = Translator::of(mapping).observation(&original).text;
    let written: BTreeSet<&str> = super::namespace::word_tokens(&original)
        .map(|(_, w)| w)
        .collect();
    let names = mapping
        .names
        .iter()
        .filter(|(o, _)| written.contains(o.as_str()))
        .map(|(o, v)| (o.clone(), v.clone()))
        .collect();
    Some(crate::api::ViewFile {
        seed,
        levels: vec![2],
        files: python,
        view_path: mapping.view_path(&path),
        path,
        original,
        view,
        names,
        runs: Vec::new(),
        names_mapped: mapping.names.len(),
        names_left_out: mapping.left_out.len(),
        virtual_namespace: true,
    })
}
