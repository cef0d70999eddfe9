//! The dataset format (design "Data"; spec section 1): versioned, content-hashed, pure.
//!
//! A dataset directory (documented in `docs/formats.md`, "Dataset (RepoReuse)") holds:
//!
//! ```text
//! dataset.json                          DatasetManifest
//! chains/<chain>/chain.json             ChainManifest
//! chains/<chain>/turn-<t>/turn.json     TurnManifest
//! chains/<chain>/turn-<t>/requirement.md, reference.py, cases.json, expected.json
//! chains/<chain>/turn-<t>/tests/*       the hidden tests
//! tools/*                               the dataset's generators and checkers
//! ```
//!
//! Reading the directory is I/O and lives in the server (`wheelwright_server::dataset`);
//! here are the types, [`RepoReuseDataset::validate`], [`RepoReuseDataset::content_hash`]
//! and [`RepoReuseDataset::to_score_dataset`], which turns the dataset and its repository's
//! files into the input of [`crate::reporeuse::scoring::score_run`].
//!
//! ReCUBE's dataset is its own type in its own folder of core; what the two share (the
//! repository source, problems, the canonical JSON of the hash) is in [`crate::dataset`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::benchmark::Benchmark;
use crate::dataset::canonical_json;
pub use crate::dataset::{LocalRepository, Problem, PypiRepository, RepositorySource};
use crate::reporeuse::scoring::{ChainSpec, DEFAULT_WORKDIR, Dataset, Repository, TurnSpec};
use crate::workspace::is_relative_down;

/// Every turn requires exactly this many functions (spec section 1, "Setting").
pub const FUNCTIONS_PER_TURN: usize = 3;

/// `dataset.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetManifest {
    pub name: String,
    /// The dataset's own version; results record it with the content hash.
    pub version: String,
    pub benchmark: Benchmark,
    /// The one repository every chain runs on. A dataset has this or
    /// [`DatasetManifest::repositories`], never both; omitted when it has the other, so a
    /// single-repository dataset serialises (and hashes) as before the other existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<RepositorySource>,
    /// Several repositories, by the id each chain names in its `chain.json`
    /// `"repository"`: one dataset, so one leaderboard, over several libraries.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repositories: BTreeMap<String, RepositorySource>,
    /// Chain ids (directory names under `chains/`), in report order.
    pub chains: Vec<String>,
    /// How the hidden tests run; omitted: as cases judged on the host.
    #[serde(default, skip_serializing_if = "HiddenTests::is_cases")]
    pub hidden_tests: HiddenTests,
    /// The directory the agents' shell starts in, where the repository is checked out:
    /// the paths of actions are read relative to it (spec D13, D14). Omitted: `/testbed`,
    /// SWE-bench's and mini-SWE-agent's.
    #[serde(
        default = "default_workdir",
        skip_serializing_if = "is_default_workdir"
    )]
    pub workdir: String,
}

impl DatasetManifest {
    /// Every repository of the dataset by id: the ids of
    /// [`DatasetManifest::repositories`], or the one [`DatasetManifest::repository`] by its
    /// [`RepositorySource::name`] (the name scoring has always given it).
    pub fn repository_sources(&self) -> BTreeMap<&str, &RepositorySource> {
        match &self.repository {
            Some(one) => BTreeMap::from([(one.name(), one)]),
            None => self
                .repositories
                .iter()
                .map(|(id, source)| (id.as_str(), source))
                .collect(),
        }
    }

    /// The id (as [`Self::repository_sources`] gives it) and source of the repository
    /// `chain` runs on; `None` when it names none of the dataset's (which
    /// [`RepoReuseDataset::validate`] reports).
    pub fn repository_of(&self, chain: &ChainManifest) -> Option<(&str, &RepositorySource)> {
        match (&self.repository, &chain.repository) {
            (Some(one), None) => Some((one.name(), one)),
            (Some(_), Some(_)) => None,
            (None, named) => {
                let id = named.as_deref()?;
                self.repositories
                    .get_key_value(id)
                    .map(|(id, source)| (id.as_str(), source))
            }
        }
    }
}

/// Each repository's files (W0) by repository id ([`DatasetManifest::repository_sources`]),
/// each by path relative to the installed site-packages or the local repository's
/// directory (`networkx/__init__.py`).
pub type RepositoryFiles = BTreeMap<String, BTreeMap<String, String>>;

fn default_workdir() -> String {
    DEFAULT_WORKDIR.to_owned()
}

fn is_default_workdir(workdir: &str) -> bool {
    workdir == DEFAULT_WORKDIR
}

/// The longest working directory a dataset may name.
pub const MAX_WORKDIR_CHARS: usize = 256;

/// Why a working directory cannot be used, in words that say what to write instead;
/// `None` when it can: an absolute path without `..`, at most [`MAX_WORKDIR_CHARS`].
pub fn workdir_problem(workdir: &str) -> Option<String> {
    if !workdir.starts_with('/') {
        Some(format!(
            "the working directory {workdir:?} is not an absolute path; write the directory the agents' shell starts in, such as \"/testbed\""
        ))
    } else if workdir.split('/').any(|part| part == "..") || workdir.contains('\0') {
        Some(format!(
            "the working directory {workdir:?} has a \"..\" or a NUL; write it without them"
        ))
    } else if workdir.chars().count() > MAX_WORKDIR_CHARS {
        Some(format!(
            "the working directory is longer than {MAX_WORKDIR_CHARS} characters; shorten it"
        ))
    } else {
        None
    }
}

/// `dataset.json` `"hidden_tests"`: how a turn's hidden tests run in the sandbox
/// (`docs/hidden-tests.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenTests {
    /// `cases.json` calls run in the sandbox; `expected.json` stays on the host, which
    /// compares (`crate::hidden_tests::cases`). The default, and the only kind whose
    /// verdicts a submission cannot forge without computing the results.
    #[default]
    Cases,
    /// `tests/*.py` run as a hardened pytest session in the sandbox
    /// (`crate::hidden_tests::pytest`), for tests that cannot be written as cases.
    Pytest,
}

impl HiddenTests {
    fn is_cases(&self) -> bool {
        *self == Self::Cases
    }
}

/// `chains/<chain>/chain.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainManifest {
    /// Equal to the chain's directory name.
    pub id: String,
    pub title: String,
    pub description: String,
    /// The directory every turn's module lives in (`solutions/road_audit`).
    pub package: String,
    /// The id of the repository the chain runs on, a key of the dataset's
    /// [`DatasetManifest::repositories`]: required there, and refused in a dataset with
    /// one [`DatasetManifest::repository`] (its chains all run on that one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
}

/// One function a turn requires.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequiredFunction {
    pub name: String,
    /// `name(params)`, as the agent must define it.
    pub signature: String,
    pub returns: String,
    pub behaviour: String,
}

/// `chains/<chain>/turn-<t>/turn.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnManifest {
    /// 1-based, equal to the position in the chain.
    pub turn: usize,
    pub title: String,
    /// The required path of the new module, relative to the workspace root.
    pub module_path: String,
    pub context: String,
    pub functions: Vec<RequiredFunction>,
    /// Qualified names (defining module) of repository functions or methods to reuse.
    pub repo_targets: Vec<String>,
    /// Qualified names of functions earlier turns of the chain were required to define.
    #[serde(default)]
    pub self_targets: Vec<String>,
    /// What recall is measured on: `repo_targets` followed by `self_targets`.
    pub read_targets: Vec<String>,
}

impl TurnManifest {
    /// The module name of [`TurnManifest::module_path`] (`solutions/a/b.py` -> `solutions.a.b`).
    pub fn module_name(&self) -> String {
        module_name(&self.module_path)
    }
}

/// `solutions/a/b.py` -> `solutions.a.b` (a trailing `/__init__.py` names the package).
pub fn module_name(module_path: &str) -> String {
    let stem = module_path.strip_suffix(".py").unwrap_or(module_path);
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    stem.replace('/', ".")
}

/// One turn with its files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub manifest: TurnManifest,
    /// `requirement.md`: what the agent is shown.
    pub requirement: String,
    /// `reference.py`: the reference solution.
    pub reference: String,
    /// `tests/*`: (path relative to `tests/`, text), sorted by path.
    pub tests: Vec<(String, String)>,
    /// `cases.json`, verbatim.
    pub cases_json: String,
    /// `expected.json`, verbatim (generated by running the reference).
    pub expected_json: String,
}

/// One chain with its turns (turn 1 first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    pub manifest: ChainManifest,
    pub turns: Vec<Turn>,
}

/// A whole RepoReuse dataset, as read from its directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoReuseDataset {
    pub manifest: DatasetManifest,
    /// In the order of [`DatasetManifest::chains`].
    pub chains: Vec<Chain>,
    /// `tools/*`: (path relative to the dataset root, text), sorted by path.
    pub tools: Vec<(String, String)>,
    /// Each local repository's `.py` files by repository id
    /// ([`DatasetManifest::repository_sources`]): (path relative to
    /// [`LocalRepository::path`], text), sorted by path. PyPI repositories come from their
    /// wheels and are not here.
    #[serde(default)]
    pub repository_files: BTreeMap<String, Vec<(String, String)>>,
}

/// The path of a turn's directory relative to the dataset root.
pub fn turn_dir(chain: &str, turn: usize) -> String {
    format!("chains/{chain}/turn-{turn}")
}

/// Prefix of the hashed serialisation; change it when the serialisation changes.
const HASH_FORMAT: &str = "wheelwright-dataset-1";

impl RepoReuseDataset {
    /// The dataset as anyone may see it: chains, turns, requirements and reference
    /// solutions (the turn case shows them), without what judges a run: each turn's hidden
    /// tests, cases and expected values, and the dataset's tools. A local repository's
    /// files are left out too: they are W0, sent beside it. What the browser scores with
    /// ([`crate::api::ScoringKit`]); [`RepoReuseDataset::case_suite`] of it has no cases.
    pub fn without_hidden_tests(&self) -> Self {
        let chains = self
            .chains
            .iter()
            .map(|chain| Chain {
                manifest: chain.manifest.clone(),
                turns: chain
                    .turns
                    .iter()
                    .map(|turn| Turn {
                        manifest: turn.manifest.clone(),
                        requirement: turn.requirement.clone(),
                        reference: turn.reference.clone(),
                        tests: Vec::new(),
                        cases_json: String::new(),
                        expected_json: String::new(),
                    })
                    .collect(),
            })
            .collect();
        Self {
            manifest: self.manifest.clone(),
            chains,
            tools: Vec::new(),
            repository_files: BTreeMap::new(),
        }
    }

    /// Every file of the dataset by path relative to its root, in path order. JSON
    /// manifests are in canonical form (compact, fields in declaration order), so the
    /// hash does not depend on whitespace; every other file is verbatim.
    pub fn files(&self) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        files.insert("dataset.json".to_owned(), canonical_json(&self.manifest));
        for chain in &self.chains {
            let id = &chain.manifest.id;
            files.insert(
                format!("chains/{id}/chain.json"),
                canonical_json(&chain.manifest),
            );
            for (i, turn) in chain.turns.iter().enumerate() {
                let dir = turn_dir(id, i + 1);
                files.insert(format!("{dir}/turn.json"), canonical_json(&turn.manifest));
                files.insert(format!("{dir}/requirement.md"), turn.requirement.clone());
                files.insert(format!("{dir}/reference.py"), turn.reference.clone());
                files.insert(format!("{dir}/cases.json"), turn.cases_json.clone());
                files.insert(format!("{dir}/expected.json"), turn.expected_json.clone());
                for (path, text) in &turn.tests {
                    files.insert(format!("{dir}/tests/{path}"), text.clone());
                }
            }
        }
        for (path, text) in &self.tools {
            files.insert(path.clone(), text.clone());
        }
        for (id, source) in self.manifest.repository_sources() {
            if let (RepositorySource::Local(repo), Some(repo_files)) =
                (source, self.repository_files.get(id))
            {
                let root = repo.path.trim_end_matches('/');
                for (path, text) in repo_files {
                    files.insert(format!("{root}/{path}"), text.clone());
                }
            }
        }
        files
    }

    /// SHA-256 (lowercase hex) over [`RepoReuseDataset::files`]: a format tag, then for
    /// each file in path order its path and its text, each preceded by its length in
    /// bytes (8 bytes, little endian), so no two different datasets serialise alike.
    pub fn content_hash(&self) -> String {
        crate::dataset::content_hash(HASH_FORMAT, &self.files())
    }

    /// Turns over all chains.
    pub fn turn_count(&self) -> usize {
        self.chains.iter().map(|c| c.turns.len()).sum()
    }

    /// Every problem of the dataset, each naming the file to fix; empty when valid.
    ///
    /// Checks: the benchmark is RepoReuse; `dataset.json` lists each chain once and in
    /// the order read; each `chain.json` id is its directory; turns are numbered 1..T; each
    /// turn requires exactly [`FUNCTIONS_PER_TURN`] distinct functions whose signatures
    /// start with their names; module paths are relative `.py` paths under the chain's
    /// package, unique in the dataset; repo targets are 2-4 qualified names in the
    /// repository's import package; turn 1 has no self targets and later turns 1-3, each
    /// naming a function an earlier turn of the same chain requires; `read_targets` are the
    /// repo targets followed by the self targets; every turn has tests.
    pub fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |file: &str, message: String| {
            problems.push(Problem {
                file: file.to_owned(),
                message,
            });
        };
        let m = &self.manifest;
        if m.benchmark != Benchmark::RepoReuse {
            problem(
                "dataset.json",
                format!(
                    "\"benchmark\" is {:?}, but only \"reporeuse\" datasets can be read so far",
                    m.benchmark.id()
                ),
            );
        }
        for (field, value) in [("name", &m.name), ("version", &m.version)] {
            if value.trim().is_empty() {
                problem("dataset.json", format!("\"{field}\" is empty; fill it in"));
            }
        }
        self.check_repositories(&mut problem);
        if let Some(message) = workdir_problem(&m.workdir) {
            problem("dataset.json", format!("\"workdir\": {message}"));
        }
        if m.chains.is_empty() {
            problem(
                "dataset.json",
                "\"chains\" is empty; list the chain directories under chains/".to_owned(),
            );
        }
        let mut ids = BTreeSet::new();
        for id in &m.chains {
            if !ids.insert(id.as_str()) {
                problem(
                    "dataset.json",
                    format!("chain {id:?} is listed twice in \"chains\"; list it once"),
                );
            }
        }
        let read: Vec<&str> = self.chains.iter().map(|c| c.manifest.id.as_str()).collect();
        if read != m.chains.iter().map(String::as_str).collect::<Vec<_>>() {
            problem(
                "dataset.json",
                format!(
                    "\"chains\" lists {:?} but the chains read are {read:?}; make them agree",
                    m.chains
                ),
            );
        }
        let mut module_paths: BTreeMap<&str, String> = BTreeMap::new();
        for chain in &self.chains {
            let id = &chain.manifest.id;
            let chain_file = format!("chains/{id}/chain.json");
            if chain.manifest.package.trim().is_empty() {
                problem(&chain_file, "\"package\" is empty; name the directory the chain's modules go in (solutions/<name>)".to_owned());
            }
            if chain.turns.is_empty() {
                problem(
                    &chain_file,
                    "the chain has no turns; add chains/<chain>/turn-1/".to_owned(),
                );
            }
            // A chain whose repository is not found is reported once, here; its targets
            // are then not checked against any package.
            let import = match (m.repository_of(&chain.manifest), &chain.manifest.repository) {
                (Some((_, source)), _) => Some(source.import()),
                (None, Some(named)) if m.repository.is_some() => {
                    problem(
                        &chain_file,
                        format!(
                            "\"repository\" is {named:?}, but the dataset has one \"repository\" every chain runs on; remove it here, or list the repositories under \"repositories\" in dataset.json"
                        ),
                    );
                    None
                }
                (None, Some(named)) => {
                    problem(
                        &chain_file,
                        format!(
                            "\"repository\" {named:?} is not one of the dataset's repositories ({}); name one of them or add it to \"repositories\" in dataset.json",
                            ids_of(&m.repositories)
                        ),
                    );
                    None
                }
                (None, None) => {
                    if !m.repositories.is_empty() {
                        problem(
                            &chain_file,
                            format!(
                                "no \"repository\": the dataset has several; name the one the chain runs on ({})",
                                ids_of(&m.repositories)
                            ),
                        );
                    }
                    None
                }
            };
            // Functions required by earlier turns of this chain, as qualified names.
            let mut earlier: BTreeSet<String> = BTreeSet::new();
            for (i, turn) in chain.turns.iter().enumerate() {
                let t = i + 1;
                let tm = &turn.manifest;
                let file = format!("{}/turn.json", turn_dir(id, t));
                if tm.turn != t {
                    problem(
                        &file,
                        format!(
                            "\"turn\" is {} but this is turn {t} of the chain; turns are numbered 1..T without gaps",
                            tm.turn
                        ),
                    );
                }
                check_module_path(
                    &tm.module_path,
                    &chain.manifest.package,
                    &file,
                    &mut problem,
                );
                if let Some(other) = module_paths.insert(&tm.module_path, file.clone()) {
                    problem(
                        &file,
                        format!(
                            "\"module_path\" {:?} is also the module path of {other}; give every turn its own module",
                            tm.module_path
                        ),
                    );
                }
                if tm.functions.len() != FUNCTIONS_PER_TURN {
                    problem(
                        &file,
                        format!(
                            "\"functions\" has {} entries; a turn requires exactly {FUNCTIONS_PER_TURN}",
                            tm.functions.len()
                        ),
                    );
                }
                let mut names = BTreeSet::new();
                for f in &tm.functions {
                    if !is_identifier(&f.name) {
                        problem(
                            &file,
                            format!("function name {:?} is not a Python identifier", f.name),
                        );
                    }
                    if !names.insert(f.name.as_str()) {
                        problem(
                            &file,
                            format!("function {:?} is required twice; require it once", f.name),
                        );
                    }
                    if !f.signature.starts_with(&format!("{}(", f.name))
                        || !f.signature.ends_with(')')
                    {
                        problem(
                            &file,
                            format!(
                                "the signature of {:?} is {:?}; write it as {}(parameters)",
                                f.name, f.signature, f.name
                            ),
                        );
                    }
                }
                if !(2..=4).contains(&tm.repo_targets.len()) {
                    problem(
                        &file,
                        format!("{} repo targets; a turn has 2 to 4", tm.repo_targets.len()),
                    );
                }
                for target in &tm.repo_targets {
                    let Some(import) = import else { break };
                    if !target.starts_with(&format!("{import}.")) || !is_dotted(target) {
                        problem(
                            &file,
                            format!(
                                "repo target {target:?} is not a qualified name in the chain's repository's package {import:?} (write module.function or module.Class.method)"
                            ),
                        );
                    }
                }
                let self_range = if t == 1 { 0..=0 } else { 1..=3 };
                if !self_range.contains(&tm.self_targets.len()) {
                    problem(
                        &file,
                        format!(
                            "{} self targets; turn 1 has none and later turns 1 to 3",
                            tm.self_targets.len()
                        ),
                    );
                }
                for target in &tm.self_targets {
                    if !earlier.contains(target) {
                        problem(
                            &file,
                            format!(
                                "self target {target:?} is not a function an earlier turn of chain {id:?} requires; name one of {:?}",
                                earlier
                            ),
                        );
                    }
                }
                let expected_read: Vec<&String> =
                    tm.repo_targets.iter().chain(&tm.self_targets).collect();
                if tm.read_targets.iter().collect::<Vec<_>>() != expected_read {
                    problem(
                        &file,
                        "\"read_targets\" must be \"repo_targets\" followed by \"self_targets\""
                            .to_owned(),
                    );
                }
                match self.manifest.hidden_tests {
                    HiddenTests::Pytest if turn.tests.is_empty() => problem(
                        &format!("{}/tests", turn_dir(id, t)),
                        "no test files; run tools/generate_tests.py".to_owned(),
                    ),
                    HiddenTests::Pytest => {}
                    // Without its repository the chain's cases cannot be read (reported above).
                    HiddenTests::Cases if import.is_none() => {}
                    HiddenTests::Cases => match self.case_suite(chain, t - 1) {
                        Err(message) => {
                            problem(&format!("{}/cases.json", turn_dir(id, t)), message)
                        }
                        Ok(suite) if suite.expected_tests().is_empty() => problem(
                            &format!("{}/cases.json", turn_dir(id, t)),
                            "no cases: every turn needs hidden tests".to_owned(),
                        ),
                        Ok(_) => {}
                    },
                }
                let module = tm.module_name();
                earlier.extend(tm.functions.iter().map(|f| format!("{module}.{}", f.name)));
            }
        }
        problems
    }

    /// The problems of `dataset.json`'s `"repository"` or `"repositories"`: exactly one of
    /// them, no empty field, ids usable in `chain.json`, local repositories that hold
    /// their package (each in a directory of its own), and no repository without a chain.
    fn check_repositories(&self, problem: &mut impl FnMut(&str, String)) {
        let m = &self.manifest;
        // The field each repository is written in, for messages.
        let fields: Vec<(String, &str, &RepositorySource)> = match (
            &m.repository,
            m.repositories.is_empty(),
        ) {
            (Some(_), false) => {
                problem(
                    "dataset.json",
                    "it has both \"repository\" and \"repositories\"; keep \"repository\" for one repository, or move it into \"repositories\"".to_owned(),
                );
                return;
            }
            (None, true) => {
                problem(
                    "dataset.json",
                    "no \"repository\": name the repository the chains run on (or several, by id, under \"repositories\")".to_owned(),
                );
                return;
            }
            (Some(one), true) => vec![("repository".to_owned(), one.name(), one)],
            (None, false) => m
                .repositories
                .iter()
                .map(|(id, source)| (format!("repositories.{id}"), id.as_str(), source))
                .collect(),
        };
        let mut local_paths: BTreeMap<&str, &str> = BTreeMap::new();
        for (field, id, source) in &fields {
            if m.repository.is_none() && !is_repository_id(id) {
                problem(
                    "dataset.json",
                    format!(
                        "repository id {id:?} is not a usable id; write letters, digits, '-', '_' or '.' (networkx)"
                    ),
                );
            }
            let values = match source {
                RepositorySource::Pypi(r) => {
                    vec![
                        ("pypi", &r.pypi),
                        ("version", &r.version),
                        ("import", &r.import),
                    ]
                }
                RepositorySource::Local(r) => vec![("path", &r.path), ("import", &r.import)],
            };
            for (name, value) in values {
                if value.trim().is_empty() {
                    problem(
                        "dataset.json",
                        format!("\"{field}.{name}\" is empty; fill it in"),
                    );
                }
            }
            if let RepositorySource::Local(r) = source {
                let files = self
                    .repository_files
                    .get(*id)
                    .map_or(&[][..], Vec::as_slice);
                check_local_repository(field, r, files, problem);
                let path = r.path.trim_end_matches('/');
                if let Some(other) = local_paths.insert(path, id) {
                    problem(
                        "dataset.json",
                        format!(
                            "\"{field}.path\" {:?} is also the path of repository {other:?}; give each local repository its own directory",
                            r.path
                        ),
                    );
                }
            }
        }
        for id in m.repositories.keys() {
            let used = self
                .chains
                .iter()
                .any(|c| c.manifest.repository.as_deref() == Some(id.as_str()));
            if !used {
                problem(
                    "dataset.json",
                    format!(
                        "repository {id:?} is named by no chain's chain.json; remove it from \"repositories\" or give it chains"
                    ),
                );
            }
        }
    }

    /// The case suite of turn `index` (0-based) of `chain`: its calls and expected values.
    pub fn case_suite(
        &self,
        chain: &Chain,
        index: usize,
    ) -> Result<crate::hidden_tests::cases::CaseSuite, String> {
        let turn = chain
            .turns
            .get(index)
            .ok_or_else(|| format!("chain {:?} has no turn {}", chain.manifest.id, index + 1))?;
        let (_, repository) = self.manifest.repository_of(&chain.manifest).ok_or_else(|| {
            format!(
                "chain {:?} names no repository of the dataset; fix its chain.json \"repository\"",
                chain.manifest.id
            )
        })?;
        crate::hidden_tests::cases::CaseSuite::new(
            &turn.manifest.module_name(),
            repository.import(),
            &turn.cases_json,
            &turn.expected_json,
        )
    }

    /// The exception classes each repository's chains' cases may expect, by repository id:
    /// the built-in ones and those of the repository (`repositories` as
    /// [`Self::to_score_dataset`] takes them), for
    /// [`crate::hidden_tests::cases::CaseSuite::with_exceptions`]. Indexes every repository
    /// (about a second for networkx): build it once per dataset.
    pub fn exception_classes(
        &self,
        repositories: &RepositoryFiles,
    ) -> BTreeMap<String, crate::hidden_tests::compare::ExceptionClasses> {
        let no_files = BTreeMap::new();
        self.manifest
            .repository_sources()
            .into_iter()
            .map(|(id, source)| {
                let files = repositories.get(id).unwrap_or(&no_files);
                let mut workspace = crate::workspace::Workspace::new();
                for (path, text) in files.iter().filter(|(p, _)| p.ends_with(".py")) {
                    workspace.insert(path, text.as_str());
                }
                let index = crate::python::index::RepoIndex::build(
                    &workspace,
                    &crate::python::index::IndexOptions::default(),
                );
                let classes = crate::hidden_tests::compare::ExceptionClasses::of_repository(
                    &index,
                    source.import(),
                );
                (id.to_owned(), classes)
            })
            .collect()
    }

    /// The input of [`crate::reporeuse::scoring::score_run`]: each chain runs on its
    /// repository ([`DatasetManifest::repository_of`]), named by its id, whose files are
    /// `repositories[id]`. A chain naming no repository of the dataset keeps the name it
    /// wrote, which the scorer refuses saying so.
    pub fn to_score_dataset(&self, repositories: RepositoryFiles) -> Dataset {
        let chains = self
            .chains
            .iter()
            .map(|chain| ChainSpec {
                id: chain.manifest.id.clone(),
                repository: self.manifest.repository_of(&chain.manifest).map_or_else(
                    || chain.manifest.repository.clone().unwrap_or_default(),
                    |(id, _)| id.to_owned(),
                ),
                turns: chain
                    .turns
                    .iter()
                    .map(|turn| TurnSpec {
                        path: turn.manifest.module_path.clone(),
                        repo_targets: turn.manifest.repo_targets.clone(),
                        self_targets: turn.manifest.self_targets.clone(),
                    })
                    .collect(),
            })
            .collect();
        let repositories = repositories
            .into_iter()
            .map(|(id, files)| {
                let repository = Repository {
                    files,
                    source_roots: Vec::new(),
                };
                (id, repository)
            })
            .collect();
        Dataset {
            repositories,
            chains,
            workdir: self.manifest.workdir.clone(),
        }
    }
}

/// The first path component a local repository may not use: the dataset's own files.
const RESERVED_TOP: [&str; 3] = ["chains", "tools", "dataset.json"];

/// A repository id of `"repositories"`: what a `chain.json` can name and a URL can carry.
fn is_repository_id(id: &str) -> bool {
    !id.is_empty()
        && id != "."
        && id != ".."
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The ids of `repositories`, for messages.
fn ids_of(repositories: &BTreeMap<String, RepositorySource>) -> String {
    repositories
        .keys()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `field` is where `dataset.json` writes the repository (`repository`,
/// `repositories.textkit`), for messages.
fn check_local_repository(
    field: &str,
    repo: &LocalRepository,
    files: &[(String, String)],
    problem: &mut impl FnMut(&str, String),
) {
    if repo.path.trim().is_empty() {
        return;
    }
    if !is_relative_down(&repo.path) {
        problem(
            "dataset.json",
            format!(
                "\"{field}.path\" {:?} is not a directory inside the dataset directory; write a relative path without \"..\" (repository)",
                repo.path
            ),
        );
        return;
    }
    let top = repo.path.split('/').next().unwrap_or_default();
    if RESERVED_TOP.contains(&top) {
        problem(
            "dataset.json",
            format!(
                "\"{field}.path\" {:?} is inside the dataset's own {top}; put the repository in a directory of its own (repository)",
                repo.path
            ),
        );
    }
    if files.is_empty() {
        problem(
            &repo.path,
            "the local repository holds no .py files; put the repository's Python sources there"
                .to_owned(),
        );
    } else if !repo.import.trim().is_empty() {
        let package = format!("{}/", repo.import);
        let module = format!("{}.py", repo.import);
        if !files
            .iter()
            .any(|(p, _)| p.starts_with(&package) || *p == module)
        {
            problem(
                &repo.path,
                format!(
                    "no {package} or {module} in the local repository; \"{field}.import\" must name its top-level package"
                ),
            );
        }
    }
}

fn check_module_path(
    path: &str,
    package: &str,
    file: &str,
    problem: &mut impl FnMut(&str, String),
) {
    let parts: Vec<&str> = path.split('/').collect();
    let ok = path.ends_with(".py")
        && !path.starts_with('/')
        && !path.contains('\\')
        && parts
            .iter()
            .all(|p| !p.is_empty() && *p != "." && *p != "..")
        && parts.iter().enumerate().all(|(i, p)| {
            is_identifier(if i + 1 == parts.len() {
                p.trim_end_matches(".py")
            } else {
                p
            })
        });
    if !ok {
        problem(
            file,
            format!(
                "\"module_path\" {path:?} is not a relative path of a Python module (a/b/c.py, identifiers only)"
            ),
        );
    } else if !package.is_empty()
        && !path.starts_with(&format!("{}/", package.trim_end_matches('/')))
    {
        problem(
            file,
            format!(
                "\"module_path\" {path:?} is not under the chain's package {package:?}; move it there"
            ),
        );
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

fn is_dotted(s: &str) -> bool {
    s.split('.').count() >= 2 && s.split('.').all(is_identifier)
}

/// The module an agent that did nothing useful would leave: the turn's functions with
/// their signatures, each raising `NotImplementedError` (it must fail every test).
pub fn empty_module(turn: &TurnManifest) -> String {
    let mut out = String::from("\"\"\"Empty implementation (every test must fail).\"\"\"\n");
    for f in &turn.functions {
        out.push_str(&format!(
            "\n\ndef {}:\n    raise NotImplementedError\n",
            f.signature
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str) -> RequiredFunction {
        RequiredFunction {
            name: name.to_owned(),
            signature: format!("{name}(x)"),
            returns: "x".to_owned(),
            behaviour: String::new(),
        }
    }

    fn turn(t: usize, module: &str, names: [&str; 3], selft: &[&str]) -> Turn {
        let repo_targets = vec![
            "textkit.clean.normalise".to_owned(),
            "textkit.clean.strip".to_owned(),
        ];
        let self_targets: Vec<String> = selft.iter().map(|s| (*s).to_owned()).collect();
        Turn {
            manifest: TurnManifest {
                turn: t,
                title: format!("turn {t}"),
                module_path: format!("solutions/slugs/{module}.py"),
                context: String::new(),
                functions: names.iter().map(|n| function(n)).collect(),
                read_targets: repo_targets.iter().chain(&self_targets).cloned().collect(),
                repo_targets,
                self_targets,
            },
            requirement: "Write it.\n".to_owned(),
            reference: "from textkit.clean import normalise, strip\n".to_owned(),
            tests: vec![(
                "test_turn.py".to_owned(),
                "def test_x():\n    pass\n".to_owned(),
            )],
            cases_json: "[{\"id\": \"a\", \"function\": \"f\", \"args\": \"[]\", \"compare\": \"exact\"}]\n"
                .to_owned(),
            expected_json:
                "{\"cases\": [{\"id\": \"a\", \"function\": \"f\", \"compare\": \"exact\", \"expected\": 1}]}\n"
                    .to_owned(),
        }
    }

    fn dataset() -> RepoReuseDataset {
        RepoReuseDataset {
            manifest: DatasetManifest {
                name: "tiny".to_owned(),
                version: "1".to_owned(),
                benchmark: Benchmark::RepoReuse,
                repository: Some(RepositorySource::Pypi(PypiRepository {
                    pypi: "textkit".to_owned(),
                    version: "1.0".to_owned(),
                    import: "textkit".to_owned(),
                })),
                repositories: BTreeMap::new(),
                chains: vec!["slugs".to_owned()],
                hidden_tests: HiddenTests::Cases,
                workdir: DEFAULT_WORKDIR.to_owned(),
            },
            chains: vec![Chain {
                manifest: ChainManifest {
                    id: "slugs".to_owned(),
                    title: "Slugs".to_owned(),
                    description: String::new(),
                    package: "solutions/slugs".to_owned(),
                    repository: None,
                },
                turns: vec![
                    turn(1, "slug", ["slugify", "unslug", "is_slug"], &[]),
                    turn(
                        2,
                        "urls",
                        ["url_for", "path_of", "join"],
                        &["solutions.slugs.slug.slugify"],
                    ),
                ],
            }],
            tools: vec![("tools/verify.py".to_owned(), "print('ok')\n".to_owned())],
            repository_files: BTreeMap::new(),
        }
    }

    fn local_dataset() -> RepoReuseDataset {
        let mut d = dataset();
        d.manifest.repository = Some(RepositorySource::Local(LocalRepository {
            path: "repository".to_owned(),
            import: "textkit".to_owned(),
        }));
        d.repository_files = BTreeMap::from([(
            "textkit".to_owned(),
            vec![
                ("textkit/__init__.py".to_owned(), String::new()),
                (
                    "textkit/clean.py".to_owned(),
                    "def normalise(t):\n    return t\n".to_owned(),
                ),
            ],
        )]);
        d
    }

    #[test]
    fn a_local_repository_is_part_of_the_dataset() {
        let d = local_dataset();
        assert_eq!(d.validate(), Vec::<Problem>::new());
        let files = d.files();
        assert!(files.contains_key("repository/textkit/clean.py"));
        let h = d.content_hash();
        assert_ne!(h, dataset().content_hash());
        let mut e = local_dataset();
        e.repository_files.get_mut("textkit").unwrap()[1]
            .1
            .push('\n');
        assert_ne!(e.content_hash(), h);
        let sd = d.to_score_dataset(
            d.repository_files
                .iter()
                .map(|(id, files)| (id.clone(), files.iter().cloned().collect()))
                .collect(),
        );
        assert!(sd.repositories.contains_key("textkit"));
    }

    #[test]
    fn bad_local_repositories_are_refused() {
        let check = |path: &str, files: &[&str]| {
            let mut d = local_dataset();
            d.manifest.repository = Some(RepositorySource::Local(LocalRepository {
                path: path.to_owned(),
                import: "textkit".to_owned(),
            }));
            d.repository_files = BTreeMap::from([(
                "textkit".to_owned(),
                files
                    .iter()
                    .map(|f| ((*f).to_owned(), String::new()))
                    .collect(),
            )]);
            d.validate()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        let p = check("../elsewhere", &["textkit/a.py"]);
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].contains("not a directory inside the dataset directory"));
        let p = check("/abs", &["textkit/a.py"]);
        assert!(p[0].contains("not a directory inside"), "{p:#?}");
        let p = check("chains/repo", &["textkit/a.py"]);
        assert!(p[0].contains("dataset's own chains"), "{p:#?}");
        let p = check("repository", &[]);
        assert_eq!(
            p,
            [
                "repository: the local repository holds no .py files; put the repository's Python sources there"
            ]
        );
        let p = check("repository", &["other/a.py"]);
        assert!(p[0].contains("no textkit/ or textkit.py"), "{p:#?}");
        assert!(check("repository", &["textkit.py"]).is_empty());
        let p = check("", &["textkit.py"]);
        assert!(p[0].contains("\"repository.path\" is empty"), "{p:#?}");
    }

    /// Two local repositories, `textkit` (chain `slugs`) and `numkit` (chain `means`).
    fn two_repository_dataset() -> RepoReuseDataset {
        let mut d = local_dataset();
        d.manifest.repository = None;
        d.manifest.repositories = BTreeMap::from([
            (
                "textkit".to_owned(),
                RepositorySource::Local(LocalRepository {
                    path: "repositories/textkit".to_owned(),
                    import: "textkit".to_owned(),
                }),
            ),
            (
                "numkit".to_owned(),
                RepositorySource::Local(LocalRepository {
                    path: "repositories/numkit".to_owned(),
                    import: "numkit".to_owned(),
                }),
            ),
        ]);
        d.repository_files.insert(
            "numkit".to_owned(),
            vec![
                ("numkit/__init__.py".to_owned(), String::new()),
                (
                    "numkit/stats.py".to_owned(),
                    "def mean(v):\n    return sum(v) / len(v)\n\ndef total(v):\n    return sum(v)\n"
                        .to_owned(),
                ),
            ],
        );
        d.chains[0].manifest.repository = Some("textkit".to_owned());
        let mut means = d.chains[0].clone();
        means.manifest.id = "means".to_owned();
        means.manifest.package = "solutions/means".to_owned();
        means.manifest.repository = Some("numkit".to_owned());
        means.turns.truncate(1);
        let tm = &mut means.turns[0].manifest;
        tm.module_path = "solutions/means/mean.py".to_owned();
        tm.repo_targets = vec![
            "numkit.stats.mean".to_owned(),
            "numkit.stats.total".to_owned(),
        ];
        tm.read_targets = tm.repo_targets.clone();
        means.turns[0].cases_json = means.turns[0].cases_json.replace("textkit", "numkit");
        d.chains.push(means);
        d.manifest.chains.push("means".to_owned());
        d
    }

    #[test]
    fn a_dataset_of_several_repositories_is_valid_and_hashes_them_all() {
        let d = two_repository_dataset();
        assert_eq!(d.validate(), Vec::<Problem>::new());
        let files = d.files();
        assert!(files.contains_key("repositories/textkit/textkit/clean.py"));
        assert!(files.contains_key("repositories/numkit/numkit/stats.py"));
        // The new fields show only in the form that has them.
        let manifest = &files["dataset.json"];
        assert!(
            manifest.contains(r#""repositories":{"numkit":"#),
            "{manifest}"
        );
        assert!(!manifest.contains(r#""repository":"#), "{manifest}");
        assert!(files["chains/means/chain.json"].ends_with(r#""repository":"numkit"}"#));
        let single = local_dataset().files();
        assert!(!single["dataset.json"].contains("repositories"));
        assert!(!single["chains/slugs/chain.json"].contains("repository"));
        let mut e = two_repository_dataset();
        e.repository_files.get_mut("numkit").unwrap()[1]
            .1
            .push('\n');
        assert_ne!(e.content_hash(), d.content_hash());
        let ids: Vec<&str> = d.manifest.repository_sources().into_keys().collect();
        assert_eq!(ids, ["numkit", "textkit"]);
        assert_eq!(
            d.manifest
                .repository_of(&d.chains[1].manifest)
                .map(|(id, _)| id),
            Some("numkit")
        );
        let suite = d.case_suite(&d.chains[1], 0);
        assert!(suite.is_ok(), "{suite:?}");
    }

    #[test]
    fn each_repository_problem_names_the_file_to_fix() {
        type Edit = fn(&mut RepoReuseDataset);
        let cases: [(&str, Edit, &str, &str); 9] = [
            (
                "chain without a repository",
                |d| d.chains[1].manifest.repository = None,
                "chains/means/chain.json",
                "no \"repository\": the dataset has several; name the one the chain runs on (numkit, textkit)",
            ),
            (
                "unknown repository",
                |d| d.chains[1].manifest.repository = Some("nokit".to_owned()),
                "chains/means/chain.json",
                "\"repository\" \"nokit\" is not one of the dataset's repositories (numkit, textkit)",
            ),
            (
                "unused repository",
                |d| {
                    let numkit = d.manifest.repositories["numkit"].clone();
                    d.manifest.repositories.insert("spare".to_owned(), numkit);
                },
                "dataset.json",
                "repository \"spare\" is named by no chain's chain.json",
            ),
            (
                "both forms",
                |d| d.manifest.repository = Some(d.manifest.repositories["textkit"].clone()),
                "dataset.json",
                "it has both \"repository\" and \"repositories\"",
            ),
            (
                "neither form",
                |d| d.manifest.repositories.clear(),
                "dataset.json",
                "no \"repository\": name the repository the chains run on",
            ),
            (
                "a target outside the chain's repository",
                |d| {
                    let tm = &mut d.chains[1].turns[0].manifest;
                    tm.repo_targets[0] = "textkit.clean.normalise".to_owned();
                    tm.read_targets[0] = "textkit.clean.normalise".to_owned();
                },
                "chains/means/turn-1/turn.json",
                "repo target \"textkit.clean.normalise\" is not a qualified name in the chain's repository's package \"numkit\"",
            ),
            (
                "a local repository without its package",
                |d| {
                    d.repository_files.insert(
                        "numkit".to_owned(),
                        vec![("other.py".to_owned(), String::new())],
                    );
                },
                "repositories/numkit",
                "no numkit/ or numkit.py in the local repository; \"repositories.numkit.import\" must name its top-level package",
            ),
            (
                "two local repositories in one directory",
                |d| {
                    if let Some(RepositorySource::Local(r)) =
                        d.manifest.repositories.get_mut("numkit")
                    {
                        r.path = "repositories/textkit".to_owned();
                    }
                },
                "dataset.json",
                "\"repositories.textkit.path\" \"repositories/textkit\" is also the path of repository \"numkit\"",
            ),
            (
                "a bad id",
                |d| {
                    let numkit = d.manifest.repositories.remove("numkit").unwrap();
                    d.manifest.repositories.insert("num kit".to_owned(), numkit);
                    d.repository_files = d
                        .repository_files
                        .clone()
                        .into_iter()
                        .map(|(id, f)| (id.replace("numkit", "num kit"), f))
                        .collect();
                    d.chains[1].manifest.repository = Some("num kit".to_owned());
                },
                "dataset.json",
                "repository id \"num kit\" is not a usable id",
            ),
        ];
        for (what, edit, file, words) in cases {
            let mut d = two_repository_dataset();
            edit(&mut d);
            let problems = d.validate();
            assert!(
                problems
                    .iter()
                    .any(|p| p.file == file && p.message.contains(words)),
                "{what}: no problem in {file} saying {words:?} among {problems:#?}"
            );
        }
        // A chain of a single-repository dataset may not name one.
        let mut d = local_dataset();
        d.chains[0].manifest.repository = Some("textkit".to_owned());
        let problems: Vec<String> = d.validate().iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            [
                "chains/slugs/chain.json: \"repository\" is \"textkit\", but the dataset has one \"repository\" every chain runs on; remove it here, or list the repositories under \"repositories\" in dataset.json"
            ]
        );
    }

    #[test]
    fn each_chain_scores_on_its_own_repository() {
        let d = two_repository_dataset();
        let repositories: RepositoryFiles = d
            .repository_files
            .iter()
            .map(|(id, files)| (id.clone(), files.iter().cloned().collect()))
            .collect();
        let mut with_strip = repositories;
        with_strip.get_mut("textkit").unwrap().insert(
            "textkit/clean.py".to_owned(),
            "def normalise(t):\n    return t\n\ndef strip(t):\n    return t\n".to_owned(),
        );
        let sd = d.to_score_dataset(with_strip);
        assert_eq!(sd.chains[0].repository, "textkit");
        assert_eq!(sd.chains[1].repository, "numkit");
        let run: crate::reporeuse::scoring::Run = serde_json::from_value(serde_json::json!({
            "chains": {
                "slugs": {"turns": [
                    {"submission": "from textkit.clean import normalise, strip\n\ndef slugify(x):\n    return strip(normalise(x))\n"},
                    {"submission": "def url_for(x):\n    return x\n"}
                ]},
                "means": {"turns": [
                    {"submission": "from numkit.stats import mean, total\n\ndef slugify(x):\n    return mean(x) + total(x)\n"}
                ]}
            }
        }))
        .unwrap();
        let report = crate::reporeuse::scoring::score_run(&sd, &run, &mut |_| {}).unwrap();
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        let reuse = |i: usize| {
            crate::metric::format_score("reuse_repo", report.turns[i].scores.reuse_repo).to_string()
        };
        // slugs turn 1 and means turn 1 each reuse both targets of their own repository.
        assert_eq!([reuse(0), reuse(2)], ["100.0", "100.0"]);
        let exceptions = d.exception_classes(
            &sd.repositories
                .iter()
                .map(|(id, r)| (id.clone(), r.files.clone()))
                .collect(),
        );
        assert_eq!(exceptions.keys().collect::<Vec<_>>(), ["numkit", "textkit"]);
    }

    #[test]
    fn the_repository_is_pypi_or_local_by_its_fields() {
        let local: RepositorySource =
            serde_json::from_str(r#"{"path": "repository", "import": "textkit"}"#).unwrap();
        assert!(matches!(local, RepositorySource::Local(_)));
        let pypi: RepositorySource =
            serde_json::from_str(r#"{"pypi": "n", "version": "1", "import": "n"}"#).unwrap();
        assert!(matches!(pypi, RepositorySource::Pypi(_)));
        let mixed = serde_json::from_str::<RepositorySource>(
            r#"{"pypi": "n", "version": "1", "path": "r", "import": "n"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(mixed.contains("a PyPI repository"), "{mixed}");
        // A PyPI repository serialises as before, so existing content hashes stay.
        assert_eq!(
            serde_json::to_string(&pypi).unwrap(),
            r#"{"pypi":"n","version":"1","import":"n"}"#
        );
    }

    #[test]
    fn a_consistent_dataset_has_no_problems() {
        assert_eq!(dataset().validate(), Vec::<Problem>::new());
    }

    #[test]
    fn every_problem_is_reported_with_its_file() {
        let mut d = dataset();
        {
            let t2 = &mut d.chains[0].turns[1].manifest;
            t2.turn = 3;
            t2.self_targets = vec!["solutions.slugs.slug.nope".to_owned()];
            t2.read_targets = t2.repo_targets.clone();
            t2.functions.pop();
            t2.module_path = "solutions/slugs/slug.py".to_owned();
        }
        let problems = d.validate();
        let file = "chains/slugs/turn-2/turn.json";
        let messages: Vec<&str> = problems
            .iter()
            .inspect(|p| assert_eq!(p.file, file, "{p}"))
            .map(|p| p.message.as_str())
            .collect();
        assert_eq!(problems.len(), 5, "{messages:#?}");
        assert!(messages.iter().any(|m| m.contains("\"turn\" is 3")));
        assert!(
            messages
                .iter()
                .any(|m| m.contains("solutions.slugs.slug.nope"))
        );
        assert!(messages.iter().any(|m| m.contains("exactly 3")));
        assert!(
            messages
                .iter()
                .any(|m| m.contains("also the module path of chains/slugs/turn-1/turn.json"))
        );
        assert!(messages.iter().any(|m| m.contains("read_targets")));
    }

    #[test]
    fn self_targets_must_come_from_earlier_turns_of_the_same_chain() {
        let mut d = dataset();
        d.chains[0].turns[1].manifest.self_targets = vec!["solutions.slugs.urls.join".to_owned()];
        d.chains[0].turns[1].manifest.read_targets = vec![
            "textkit.clean.normalise".to_owned(),
            "textkit.clean.strip".to_owned(),
            "solutions.slugs.urls.join".to_owned(),
        ];
        let problems = d.validate();
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(
            problems[0]
                .message
                .contains("not a function an earlier turn")
        );
    }

    #[test]
    fn other_benchmarks_and_bad_paths_are_refused() {
        let mut d = dataset();
        d.manifest.benchmark = Benchmark::Recube;
        d.chains[0].turns[0].manifest.module_path = "../slug.py".to_owned();
        d.chains[0].turns[0].manifest.repo_targets[0] = "os.path.join".to_owned();
        d.chains[0].turns[0].manifest.read_targets[0] = "os.path.join".to_owned();
        let text: Vec<String> = d.validate().iter().map(ToString::to_string).collect();
        // The bad module path also breaks turn 2's self target: 4 problems.
        assert_eq!(text.len(), 4, "{text:#?}");
        assert!(text[0].starts_with("dataset.json: \"benchmark\" is \"recube\""));
        assert!(text.iter().any(|m| m.contains("not a relative path")));
        assert!(text.iter().any(|m| m.contains("\"os.path.join\"")));
    }

    #[test]
    fn the_hash_covers_every_file_but_not_json_whitespace() {
        let d = dataset();
        let h = d.content_hash();
        assert_eq!(h.len(), 64);
        assert_eq!(h, dataset().content_hash());
        let mut e = dataset();
        e.chains[0].turns[1].expected_json.push(' ');
        assert_ne!(e.content_hash(), h);
        let mut e = dataset();
        e.tools[0].1.push('\n');
        assert_ne!(e.content_hash(), h);
        let mut e = dataset();
        e.chains[0].turns[0].manifest.functions[0].behaviour = "changed".to_owned();
        assert_ne!(e.content_hash(), h);
        let files = d.files();
        assert!(files.contains_key("chains/slugs/turn-2/tests/test_turn.py"));
        assert_eq!(files.len(), 1 + 1 + 2 * 6 + 1);
    }

    #[test]
    fn manifests_read_the_on_disk_json() {
        let m: DatasetManifest = serde_json::from_str(
            r#"{"name": "x", "version": "1", "benchmark": "reporeuse",
                "repository": {"pypi": "networkx", "version": "3.4.2", "import": "networkx"},
                "chains": ["a"]}"#,
        )
        .unwrap();
        assert_eq!(m.benchmark, Benchmark::RepoReuse);
        let bad = serde_json::from_str::<DatasetManifest>(
            r#"{"name": "x", "version": "1", "benchmark": "reporeuse", "extra": 1,
                "repository": {"pypi": "n", "version": "1", "import": "n"}, "chains": []}"#,
        );
        assert!(bad.is_err());
    }

    #[test]
    fn conversion_scores_with_the_repository() {
        let d = dataset();
        let mut files = BTreeMap::new();
        files.insert(
            "textkit/clean.py".to_owned(),
            "def normalise(t):\n    return t\n\ndef strip(t):\n    return t\n".to_owned(),
        );
        files.insert("textkit/__init__.py".to_owned(), String::new());
        let sd = d.to_score_dataset(BTreeMap::from([("textkit".to_owned(), files)]));
        assert_eq!(sd.chains.len(), 1);
        assert_eq!(sd.chains[0].turns[1].path, "solutions/slugs/urls.py");
        assert_eq!(
            sd.chains[0].turns[1].self_targets,
            ["solutions.slugs.slug.slugify"]
        );
        assert!(sd.repositories.contains_key("textkit"));
        let run: crate::reporeuse::scoring::Run = serde_json::from_value(serde_json::json!({
            "chains": {"slugs": {"turns": [
                {"submission": "from textkit.clean import normalise, strip\n\ndef slugify(x):\n    return strip(normalise(x))\n"},
                {"submission": "from solutions.slugs.slug import slugify\nfrom textkit.clean import normalise\n\ndef url_for(x):\n    return slugify(normalise(x))\n"}
            ]}}
        }))
        .unwrap();
        let report = crate::reporeuse::scoring::score_run(&sd, &run, &mut |_| {}).unwrap();
        assert_eq!(report.turns.len(), 2);
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        let t2 = &report.turns[1].scores;
        assert_eq!(
            format!(
                "{}",
                crate::metric::format_score("reuse_self", t2.reuse_self)
            ),
            "100.0"
        );
        assert_eq!(
            format!(
                "{}",
                crate::metric::format_score("reuse_repo", t2.reuse_repo)
            ),
            "50.0"
        );
    }

    #[test]
    fn module_names_and_empty_modules() {
        assert_eq!(module_name("solutions/a/b.py"), "solutions.a.b");
        assert_eq!(module_name("solutions/a/__init__.py"), "solutions.a");
        let text = empty_module(&dataset().chains[0].turns[0].manifest);
        assert!(text.contains("\n\ndef slugify(x):\n    raise NotImplementedError\n"));
        assert_eq!(text.matches("NotImplementedError").count(), 3);
    }
}
