//! What a submitted module references and calls, resolved against a [`RepoIndex`] (spec 1, D2–D8).
//!
//! A definition of the index is referenced when a value use in the submission resolves to
//! it through an import binding (D2, D3), or by one of the method rules of D7:
//! - `x.m` where `x`, looked up per D3, is assigned `C(...)` (or a call of a repository
//!   class that inherits `m` from `C`) in its scope;
//! - `super().m` in a method of a class with a base resolving to `C` or a repository
//!   subclass of `C`;
//! - a bare `<anything>.m` when the class `C` itself is imported, unshadowed, where the use
//!   is. This is the "name matching" approximation: any object's `.m` counts, typed or not.
//!
//! `C(...)` references `C`, never `C.__init__`. Strings, comments, keyword-argument names
//! and `getattr(mod, "f")` never count.

use std::collections::BTreeSet;

use serde::Serialize;

use super::index::{Entity, RepoIndex};
use super::scope::{self, AttrObject, FileAnalysis, ImportTarget, NameRef};

/// The submitted module's references and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SubmissionAnalysis {
    /// The module name its path gives (used for relative imports).
    pub module: String,
    /// No file at the required path (D8): references and calls nothing.
    pub missing: bool,
    /// The parser recovered from errors; what parsed still counts (D8).
    pub syntax_errors: bool,
    /// Canonical qualified names of indexed definitions the module references.
    pub references: BTreeSet<String>,
    /// Distinct callee identities (D5) of every call anywhere in the module, builtins included.
    pub callees: BTreeSet<String>,
}

impl SubmissionAnalysis {
    /// Whether a canonical qualified name is referenced.
    pub fn references(&self, canonical: &str) -> bool {
        self.references.contains(canonical)
    }
}

/// Analyses the submission at `path` (`None`: no file there) against the index of W_{t-1}.
///
/// ```
/// use wheelwright_core::python::{index::{IndexOptions, RepoIndex}, references::analyse_submission};
/// use wheelwright_core::workspace::Workspace;
/// let mut w = Workspace::new();
/// w.insert("pkg/__init__.py", "from .core import clean\n");
/// w.insert("pkg/core.py", "def clean(x):\n    return x.strip()\n");
/// let index = RepoIndex::build(&w, &IndexOptions::default());
/// let s = analyse_submission(&index, "pkg/new.py", Some("from pkg import clean\nys = map(clean, xs)\n"));
/// assert!(s.references("pkg.core.clean"));
/// ```
pub fn analyse_submission(
    index: &RepoIndex,
    path: &str,
    source: Option<&str>,
) -> SubmissionAnalysis {
    let (module, package) = index.module_of_path(path).unwrap_or_default();
    let Some(source) = source else {
        return SubmissionAnalysis {
            module,
            missing: true,
            ..SubmissionAnalysis::default()
        };
    };
    let analysis = scope::analyse(source, &module, package);
    analyse_parsed(index, module, &analysis)
}

/// [`analyse_submission`] of a present file already analysed as module `module`.
pub(crate) fn analyse_parsed(
    index: &RepoIndex,
    module: String,
    analysis: &FileAnalysis,
) -> SubmissionAnalysis {
    let mut references = BTreeSet::new();
    collect_references(index, analysis, &mut references);
    let callees = analysis
        .calls
        .iter()
        .filter_map(|call| index.callee_identity(analysis, call))
        .collect();
    SubmissionAnalysis {
        module,
        missing: false,
        syntax_errors: analysis.syntax_errors,
        references,
        callees,
    }
}

fn insert_def(out: &mut BTreeSet<String>, entity: &Entity) {
    if let Entity::Def(..) = entity {
        out.insert(entity.identity());
    }
}

fn collect_references(index: &RepoIndex, analysis: &FileAnalysis, out: &mut BTreeSet<String>) {
    // D2/D3: value uses of import-bound names and chains; every prefix is a load.
    for name_use in &analysis.name_uses {
        for path in index.chain_entities(analysis, name_use.scope, &name_use.parts) {
            for entity in &path {
                insert_def(out, entity);
            }
        }
    }
    // The class each import binds, when it binds a class of the index (bare `.m` rule).
    let class_imports: Vec<(usize, Entity)> = analysis
        .imports
        .iter()
        .enumerate()
        .filter(|(_, import)| !matches!(import.target, ImportTarget::Star(_)))
        .map(|(i, import)| (i, index.import_target(&import.target)))
        .filter(|(_, entity)| index.is_class(entity))
        .collect();
    for attr_use in &analysis.attr_uses {
        match &attr_use.object {
            AttrObject::Name(name) => {
                // D7: `x.m` with `x` bound to `C(...)` in the scope `x` resolves to.
                let binding = match analysis.lookup(attr_use.scope, name) {
                    NameRef::Local(_, binding) | NameRef::Imports(binding) => Some(binding),
                    NameRef::Free => None,
                };
                for (scope, chain) in binding.into_iter().flat_map(|b| &b.constructed) {
                    for path in index.chain_entities(analysis, *scope, chain) {
                        if let Some(class) = path.last().filter(|e| index.is_class(e))
                            && let Some(member) = index.member_of(class, &attr_use.attr)
                        {
                            insert_def(out, &member);
                        }
                    }
                }
            }
            AttrObject::Super => {
                let Some(class) = analysis.enclosing_class(attr_use.scope) else {
                    continue;
                };
                let def = &analysis.defs[class];
                for base in def.bases.iter().flatten() {
                    for path in index.chain_entities(analysis, def.outer, base) {
                        let Some(base) = path.last().filter(|e| index.is_class(e)) else {
                            continue;
                        };
                        for ancestor in index.ancestors(base) {
                            if let Some(member) = index.has_member(&ancestor, &attr_use.attr) {
                                insert_def(out, &member);
                            }
                        }
                    }
                }
            }
            AttrObject::Other => {}
        }
        // D7 bare rule: any `.m` when the class itself is imported, unshadowed, here.
        for (import, class) in &class_imports {
            let Some(member) = index.has_member(class, &attr_use.attr) else {
                continue;
            };
            let name = &analysis.imports[*import].name;
            if let NameRef::Imports(binding) = analysis.lookup(attr_use.scope, name)
                && binding.imports.contains(import)
            {
                insert_def(out, &member);
            }
        }
    }
}
