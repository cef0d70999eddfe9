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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::fuel::Fuel;
use super::index::{Entity, RepoIndex};
use super::scope::{self, AttrObject, AttrUse, Binding, FileAnalysis, ImportTarget, NameRef};
use crate::budget::{Cancel, Cancelled};

/// The submitted module's references and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SubmissionAnalysis {
    /// The module name its path gives (used for relative imports).
    pub module: String,
    /// No file at the required path (D8): references and calls nothing.
    pub missing: bool,
    /// The parser recovered from errors; what parsed still counts (D8).
    pub syntax_errors: bool,
    /// The analysis stopped at a budget: the file was over the per-file budget
    /// ([`crate::budget::MAX_PARSE_STEPS`]; it references and calls nothing), or resolving
    /// its names needed more than [`super::index::MAX_RESOLUTION_STEPS`] lookups (so some
    /// were not followed to the end).
    pub over_budget: bool,
    /// Canonical qualified names of indexed definitions the module references, each with
    /// where (its first [`MAX_USE_SITES`] uses on distinct lines, in source order).
    pub references: BTreeMap<String, Vec<UseSite>>,
    /// Distinct callee identities (D5) of every call anywhere in the module, builtins included.
    pub callees: BTreeSet<String>,
}

impl SubmissionAnalysis {
    /// Whether a canonical qualified name is referenced.
    pub fn references(&self, canonical: &str) -> bool {
        self.references.contains_key(canonical)
    }

    /// Where the submission uses `canonical` (empty when it does not).
    pub fn uses(&self, canonical: &str) -> &[UseSite] {
        self.references.get(canonical).map_or(&[], Vec::as_slice)
    }
}

/// Uses kept per referenced definition: enough to check the verdict, bounded however often
/// a file uses a name.
pub const MAX_USE_SITES: usize = 4;

/// Where a submission uses a definition: the evidence that it is reused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UseSite {
    /// The line of the use (1-based).
    pub line: u32,
    /// The line of the import binding the name the use starts from (a star import too);
    /// `None` when the rule reaches the definition through an object (D7's constructed and
    /// `super()` rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_line: Option<u32>,
    pub rule: UseRule,
}

/// The rule by which a use resolves to a definition (D2, D3, D7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UseRule {
    /// A name or a chain of names bound by an import (`f`, `pkg.mod.f`).
    Name,
    /// `x.m` with `x` bound to `C(...)` in its scope.
    Constructed,
    /// `super().m` in a method of a subclass.
    Super,
    /// Any `.m` where the class `C` defining `m` is imported, unshadowed.
    Member,
}

/// The referenced definitions and where they are used.
type Uses = BTreeMap<String, Vec<UseSite>>;

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
    let never = Cancel::never();
    match scope::analyse_with(source, &module, package, &never)
        .and_then(|analysis| analyse_parsed(index, module, &analysis, &Fuel::default(), &never))
    {
        Ok(analysis) => analysis,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// Uses between two looks at the cancel flag.
const CANCEL_EVERY: usize = 1024;

/// [`analyse_submission`] of a present file already analysed as module `module`, drawing on
/// the turn's `fuel`.
pub(crate) fn analyse_parsed(
    index: &RepoIndex,
    module: String,
    analysis: &FileAnalysis,
    fuel: &Fuel,
    cancel: &Cancel,
) -> Result<SubmissionAnalysis, Cancelled> {
    let mut references = Uses::new();
    collect_references(index, analysis, &mut references, fuel, cancel)?;
    let mut callees = BTreeSet::new();
    for (i, call) in analysis.calls.iter().enumerate() {
        if i.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        if let Some(identity) = index.callee_identity(analysis, call, fuel) {
            callees.insert(identity);
        }
    }
    Ok(SubmissionAnalysis {
        module,
        missing: false,
        syntax_errors: analysis.syntax_errors,
        over_budget: analysis.over_budget || fuel.exhausted(),
        references,
        callees,
    })
}

/// Records a use of `entity` when it is a definition; each definition keeps its first
/// [`MAX_USE_SITES`] uses on distinct lines.
fn insert_def(out: &mut Uses, entity: &Entity, site: UseSite) {
    if let Entity::Def(..) = entity {
        let sites = out.entry(entity.identity()).or_default();
        if sites.len() < MAX_USE_SITES && sites.iter().all(|s| s.line != site.line) {
            sites.push(site);
        }
    }
}

/// What the attribute rules need more than once, computed once per analysis: each is a
/// question whose answer does not depend on the use asking it, so a file cannot make the
/// scorer answer it again per use.
#[derive(Default)]
struct Memo {
    /// The classes a binding's `= C(...)` values construct (D7), by binding.
    constructed: HashMap<*const Binding, Vec<Entity>>,
    /// The class providing an attribute to a class (its own or inherited), by both.
    member: HashMap<(Entity, String), Option<Entity>>,
    /// The repository classes `super()` reaches from a class of the file, by its def.
    supers: HashMap<usize, Vec<Entity>>,
}

fn collect_references(
    index: &RepoIndex,
    analysis: &FileAnalysis,
    out: &mut Uses,
    fuel: &Fuel,
    cancel: &Cancel,
) -> Result<(), Cancelled> {
    // D2/D3: value uses of import-bound names and chains; every prefix is a load.
    for (i, name_use) in analysis.name_uses.iter().enumerate() {
        if i.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        for (import, path) in index.chain_paths(analysis, name_use.scope, &name_use.parts, fuel) {
            let site = UseSite {
                line: name_use.line,
                import_line: Some(analysis.imports[import].line),
                rule: UseRule::Name,
            };
            for entity in &path {
                insert_def(out, entity, site.clone());
            }
        }
    }
    let bare = BareRule::new(index, analysis, fuel);
    let mut memo = Memo::default();
    for (i, attr_use) in analysis.attr_uses.iter().enumerate() {
        if i.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        match &attr_use.object {
            AttrObject::Name(name) => {
                // D7: `x.m` with `x` bound to `C(...)` in the scope `x` resolves to.
                let binding = match analysis.lookup(attr_use.scope, name) {
                    NameRef::Local(_, binding) | NameRef::Imports(binding) => Some(binding),
                    NameRef::Free => None,
                };
                if let Some(binding) = binding.filter(|b| !b.constructed.is_empty()) {
                    constructed_rule(index, analysis, binding, attr_use, fuel, &mut memo, out);
                }
            }
            AttrObject::Super => {
                let Some(class) = analysis.enclosing_class(attr_use.scope) else {
                    continue;
                };
                let ancestors = memo.supers.entry(class).or_insert_with(|| {
                    let def = &analysis.defs[class];
                    let mut ancestors: Vec<Entity> = Vec::new();
                    let mut seen: HashSet<Entity> = HashSet::new();
                    for base in def.bases.iter().flatten() {
                        for path in index.chain_entities(analysis, def.outer, base, fuel) {
                            let Some(base) = path.last().filter(|e| index.is_class(e)) else {
                                continue;
                            };
                            for ancestor in index.ancestors(base, fuel) {
                                if seen.insert(ancestor.clone()) {
                                    ancestors.push(ancestor);
                                }
                            }
                        }
                    }
                    ancestors
                });
                for ancestor in ancestors.iter() {
                    if !fuel.take() {
                        break;
                    }
                    if let Some(member) = index.has_member(ancestor, &attr_use.attr) {
                        let site = UseSite {
                            line: attr_use.line,
                            import_line: None,
                            rule: UseRule::Super,
                        };
                        insert_def(out, &member, site);
                    }
                }
            }
            AttrObject::Other => {}
        }
        bare.apply(attr_use, out);
    }
    Ok(())
}

/// D7: `x.m` counts as a use of `C.m` (or of the `m` a class `C` inherits) when `x` is
/// bound to `C(...)` in the scope `x` resolves to.
fn constructed_rule(
    index: &RepoIndex,
    analysis: &FileAnalysis,
    binding: &Binding,
    attr_use: &AttrUse,
    fuel: &Fuel,
    memo: &mut Memo,
    out: &mut Uses,
) {
    let attr = attr_use.attr.as_str();
    let classes = memo
        .constructed
        .entry(std::ptr::from_ref(binding))
        .or_insert_with(|| {
            let mut classes: Vec<Entity> = Vec::new();
            let mut seen: HashSet<Entity> = HashSet::new();
            for (scope, chain) in &binding.constructed {
                for path in index.chain_entities(analysis, *scope, chain, fuel) {
                    if let Some(class) = path.last().filter(|e| index.is_class(e))
                        && seen.insert(class.clone())
                    {
                        classes.push(class.clone());
                    }
                }
            }
            classes
        });
    for class in classes.iter() {
        if !fuel.take() {
            break;
        }
        let member = memo
            .member
            .entry((class.clone(), attr.to_owned()))
            .or_insert_with(|| index.member_of(class, attr, fuel));
        if let Some(member) = member {
            let site = UseSite {
                line: attr_use.line,
                import_line: None,
                rule: UseRule::Constructed,
            };
            insert_def(out, member, site);
        }
    }
}

/// D7's bare rule: any `.m` counts as a use of `C.m` when the class `C` itself is imported,
/// unshadowed, where the use is.
struct BareRule<'a> {
    analysis: &'a FileAnalysis,
    fuel: &'a Fuel,
    /// The classes imports bind and, for each, the imports binding it.
    classes: Vec<(Entity, Vec<usize>)>,
    /// For each attribute name, the classes (indices into `classes`) that define it
    /// directly, with the member.
    by_member: HashMap<String, Vec<(usize, Entity)>>,
}

impl<'a> BareRule<'a> {
    fn new(index: &RepoIndex, analysis: &'a FileAnalysis, fuel: &'a Fuel) -> Self {
        let mut classes: Vec<(Entity, Vec<usize>)> = Vec::new();
        let mut seen: HashMap<Entity, usize> = HashMap::new();
        for (i, import) in analysis.imports.iter().enumerate() {
            if matches!(import.target, ImportTarget::Star(_)) {
                continue;
            }
            let entity = index.import_target(&import.target, fuel);
            if !index.is_class(&entity) {
                continue;
            }
            match seen.get(&entity) {
                Some(&c) => classes[c].1.push(i),
                None => {
                    seen.insert(entity.clone(), classes.len());
                    classes.push((entity, vec![i]));
                }
            }
        }
        // The direct members of every imported class, one scan of each module involved.
        let mut by_module: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
        for (c, (class, _)) in classes.iter().enumerate() {
            if let Entity::Def(module, qual) = class {
                by_module.entry(module).or_default().insert(qual, c);
            }
        }
        let mut by_member: HashMap<String, Vec<(usize, Entity)>> = HashMap::new();
        for (module, quals) in &by_module {
            for (c, member) in index.direct_members(module, quals) {
                let Entity::Def(_, member_qual) = &member else {
                    continue;
                };
                let attr = member_qual
                    .rsplit('.')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                by_member.entry(attr).or_default().push((c, member));
            }
        }
        BareRule {
            analysis,
            fuel,
            classes,
            by_member,
        }
    }

    fn apply(&self, attr_use: &AttrUse, out: &mut Uses) {
        let (scope, attr) = (attr_use.scope, attr_use.attr.as_str());
        let Some(candidates) = self.by_member.get(attr) else {
            return;
        };
        for (c, member) in candidates {
            // Already referenced: its evidence is there, and asking again would spend fuel.
            if out.contains_key(&member.identity()) {
                continue;
            }
            for &import in &self.classes[*c].1 {
                if !self.fuel.take() {
                    return;
                }
                let name = &self.analysis.imports[import].name;
                if let NameRef::Imports(binding) =
                    self.analysis.lookup_within(scope, name, self.fuel)
                    && binding.imports.binary_search(&import).is_ok()
                {
                    let site = UseSite {
                        line: attr_use.line,
                        import_line: Some(self.analysis.imports[import].line),
                        rule: UseRule::Member,
                    };
                    insert_def(out, member, site);
                    break;
                }
            }
        }
    }
}
