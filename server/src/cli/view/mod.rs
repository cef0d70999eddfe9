//! `wheelwright view` and `wheelwright view recover`: a SchrodingerRepo view of a repository directory written to disk (or, `--virtual`, only its namespace's bundle), and a final view state turned back into a patch.
//!
//! A materialised view (`--out`) is written as files; level 2 then cannot rename what the
//! code reaches by text (names in strings, `__all__` and config files, method names) and
//! leaves it out. The virtual namespace (`--virtual`) is only a bundle: [`shell`] runs an
//! agent's commands through it on the untouched original, so it renames those too.
//!
//! Core makes the view from the repository's text files ([`make_view`]); this host reads
//! the directory (regular files only, `.git` and `__pycache__` skipped, within
//! [`MAX_VIEW_FILES`] and [`MAX_VIEW_BYTES`]), copies files that are not UTF-8 text as
//! they are under their view path, and writes the bundle beside the view, never inside it:
//! an agent working in the view must not read its mapping.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use wheelwright_core::schrodinger::namespace::Reason;
use wheelwright_core::schrodinger::view::{VIEW_FORMAT, ViewBundle, make_view_keeping, recover};

use super::io::emit;

mod rewrite;
mod shell;

pub(super) use rewrite::{Rewrite, run as rewrite};
pub(super) use shell::{Bounds, shell};

/// Largest number of files a repository given to `view` may have.
const MAX_VIEW_FILES: usize = 50_000;
/// Largest total size of a repository given to `view`.
const MAX_VIEW_BYTES: u64 = 512 << 20;

/// A repository directory read: text files for core, other files as bytes.
struct Tree {
    texts: BTreeMap<String, String>,
    binaries: BTreeMap<String, Vec<u8>>,
    skipped: Vec<String>,
}

/// Reads every regular file under `root` (paths relative, with `/`).
fn read_tree(root: &Path) -> anyhow::Result<Tree> {
    let mut tree = Tree {
        texts: BTreeMap::new(),
        binaries: BTreeMap::new(),
        skipped: Vec::new(),
    };
    let mut total = 0u64;
    let mut pending = vec![(root.to_owned(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                tree.skipped
                    .push(format!("{prefix}{} (not UTF-8)", name.to_string_lossy()));
                continue;
            };
            let rel = format!("{prefix}{name}");
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if name != ".git" && name != "__pycache__" {
                    pending.push((entry.path(), format!("{rel}/")));
                }
                continue;
            }
            if !kind.is_file() {
                tree.skipped.push(format!("{rel} (not a regular file)"));
                continue;
            }
            if tree.texts.len() + tree.binaries.len() >= MAX_VIEW_FILES {
                bail!(
                    "{} has more than {MAX_VIEW_FILES} files; give a repository, not a whole disk",
                    root.display()
                );
            }
            let bytes =
                std::fs::read(entry.path()).with_context(|| format!("cannot read {rel}"))?;
            total += bytes.len() as u64;
            if total > MAX_VIEW_BYTES {
                bail!(
                    "{} holds more than {} MiB; give a repository",
                    root.display(),
                    MAX_VIEW_BYTES >> 20
                );
            }
            match String::from_utf8(bytes) {
                Ok(text) => {
                    tree.texts.insert(rel, text);
                }
                Err(e) => {
                    tree.binaries.insert(rel, e.into_bytes());
                }
            }
        }
    }
    Ok(tree)
}

fn write_file(root: &Path, rel: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// What `view` reports.
#[derive(Serialize)]
struct Made {
    /// The view's directory; none for a virtual namespace.
    out: Option<PathBuf>,
    bundle: PathBuf,
    seed: u64,
    levels: Vec<u8>,
    files: usize,
    names_mapped: usize,
    /// Owned names left out, by reason.
    left_out: BTreeMap<String, usize>,
    /// Each left-out name, where and why (the dynamic names to look at first).
    left_out_names: Vec<wheelwright_core::schrodinger::namespace::LeftOut>,
    runs_reordered: usize,
    skipped: Vec<String>,
}

fn reason_name(reason: Reason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `wheelwright view --repo DIR --level 2,3 --seed N --out DIR [--bundle FILE]`.
pub(super) fn make(
    repo: &Path,
    levels: &[u8],
    seed: u64,
    keep: &std::collections::BTreeSet<String>,
    out: &Path,
    bundle: Option<&Path>,
    json: bool,
) -> anyhow::Result<()> {
    if out.exists()
        && std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "{} exists and is not empty; give a new directory for the view",
            out.display()
        );
    }
    let bundle_path = bundle.map_or_else(
        || {
            let mut name = out.file_name().unwrap_or_default().to_owned();
            name.push(".view.json");
            out.with_file_name(name)
        },
        Path::to_owned,
    );
    if bundle_path.starts_with(out) {
        bail!(
            "the bundle {} would be inside the view, where an agent could read the mapping; put it elsewhere",
            bundle_path.display()
        );
    }
    let tree = read_tree(repo)?;
    let view = make_view_keeping(&tree.texts, levels, seed, keep)?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (path, text) in &view.files {
        write_file(out, path, text.as_bytes())?;
    }
    let rename = |p: &str| {
        view.bundle
            .namespace
            .as_ref()
            .map_or_else(|| p.to_owned(), |m| m.view_path(p))
    };
    for (path, bytes) in &tree.binaries {
        write_file(out, &rename(path), bytes)?;
    }
    std::fs::write(&bundle_path, serde_json::to_vec_pretty(&view.bundle)?)
        .with_context(|| format!("cannot write {}", bundle_path.display()))?;
    let mut left_out = BTreeMap::new();
    let names = view.bundle.namespace.as_ref();
    for l in names.map(|m| m.left_out.as_slice()).unwrap_or_default() {
        *left_out.entry(reason_name(l.reason)).or_insert(0) += 1;
    }
    let made = Made {
        out: Some(out.to_owned()),
        bundle: bundle_path,
        seed,
        levels: view.bundle.levels.clone(),
        files: view.files.len() + tree.binaries.len(),
        names_mapped: names.map_or(0, |m| m.names.len()),
        left_out,
        left_out_names: names.map(|m| m.left_out.clone()).unwrap_or_default(),
        runs_reordered: view.bundle.layout.values().map(Vec::len).sum(),
        skipped: tree.skipped,
    };
    print_made(json, repo, &made)
}

/// The summary of `view` (both modes).
fn print_made(json: bool, repo: &Path, made: &Made) -> anyhow::Result<()> {
    emit(json, made, |w, m| {
        match &m.out {
            Some(out) => writeln!(
                w,
                "wrote the view of {} to {} ({} files), its bundle to {}",
                repo.display(),
                out.display(),
                m.files,
                m.bundle.display()
            )?,
            None => writeln!(
                w,
                "wrote the virtual namespace of {} ({} files) to {}; run commands in it with `wheelwright view shell`",
                repo.display(),
                m.files,
                m.bundle.display()
            )?,
        }
        writeln!(
            w,
            "level 2: {} names mapped; left out: {}",
            m.names_mapped,
            if m.left_out.is_empty() {
                "none".to_owned()
            } else {
                m.left_out
                    .iter()
                    .map(|(r, n)| format!("{n} {r}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )?;
        for l in m
            .left_out_names
            .iter()
            .filter(|l| matches!(l.reason, Reason::NamedInString | Reason::NamedInConfig))
        {
            writeln!(w, "  dynamic: {} ({}:{})", l.name, l.path, l.line)?;
        }
        if m.out.is_some() {
            writeln!(
                w,
                "level 3: {} runs of definitions reordered",
                m.runs_reordered
            )?;
        }
        for s in &m.skipped {
            writeln!(w, "skipped: {s}")?;
        }
        Ok(())
    })
}

/// `wheelwright view --virtual --repo DIR --seed N --bundle FILE`: the bundle of the
/// repository's level-2 virtual namespace, and no view files.
pub(super) fn make_virtual(
    repo: &Path,
    seed: u64,
    keep: &std::collections::BTreeSet<String>,
    bundle_path: &Path,
    json: bool,
) -> anyhow::Result<()> {
    if bundle_path.starts_with(repo) {
        bail!(
            "the bundle {} would be inside the repository, where an agent could read the mapping; put it elsewhere",
            bundle_path.display()
        );
    }
    let tree = read_tree(repo)?;
    let bundle = wheelwright_core::schrodinger::view::virtual_bundle(&tree.texts, seed, keep);
    std::fs::write(bundle_path, serde_json::to_vec_pretty(&bundle)?)
        .with_context(|| format!("cannot write {}", bundle_path.display()))?;
    let mapping = bundle.namespace.as_ref();
    let mut left_out = BTreeMap::new();
    for l in mapping.map(|m| m.left_out.as_slice()).unwrap_or_default() {
        *left_out.entry(reason_name(l.reason)).or_insert(0) += 1;
    }
    let made = Made {
        out: None,
        bundle: bundle_path.to_owned(),
        seed,
        levels: bundle.levels.clone(),
        files: tree.texts.len() + tree.binaries.len(),
        names_mapped: mapping.map_or(0, |m| m.names.len()),
        left_out,
        left_out_names: mapping.map(|m| m.left_out.clone()).unwrap_or_default(),
        runs_reordered: 0,
        skipped: tree.skipped,
    };
    print_made(json, repo, &made)
}

/// A view bundle read from `path`.
fn read_bundle(path: &Path) -> anyhow::Result<ViewBundle> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a view bundle (written by `wheelwright view`)",
            path.display()
        )
    })
}

/// The bundle at `path`, or a new one holding no level when there is no file (levels 1
/// and 4 start one).
pub(super) fn read_or_new_bundle(path: &Path) -> anyhow::Result<ViewBundle> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a view bundle (written by `wheelwright view`, `view restate` or `view rewrite`); give another --bundle",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ViewBundle {
            format: VIEW_FORMAT,
            seed: 0,
            levels: Vec::new(),
            namespace: None,
            layout: BTreeMap::new(),
            statement: None,
            rewrites: None,
        }),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Writes `bundle` to `path` whole and renames it into place: an interrupted write
/// leaves the old bundle.
pub(super) fn write_bundle(path: &Path, bundle: &ViewBundle) -> anyhow::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    std::fs::write(&temporary, serde_json::to_vec_pretty(bundle)?)
        .with_context(|| format!("cannot write {}", Path::new(&temporary).display()))?;
    std::fs::rename(&temporary, path).with_context(|| format!("cannot write {}", path.display()))
}

/// `wheelwright view recover --repo ORIGINAL --view FINAL --bundle FILE`: the patch on
/// standard output, what could not be undone on standard error.
pub(super) fn recover_patch(
    repo: &Path,
    final_view: &Path,
    bundle: &Path,
    json: bool,
) -> anyhow::Result<()> {
    let bundle = read_bundle(bundle)?;
    let original = read_tree(repo)?;
    let state = read_tree(final_view)?;
    let recovery = recover(&original.texts, &state.texts, &bundle);
    if !json {
        for d in &recovery.diagnostics {
            eprintln!("warning: {d}");
        }
    }
    emit(json, &recovery, |w, r| w.write_all(r.patch.as_bytes()))
}

/// Where the repository's tests write their JUnit report in the sandbox.
const REPORT: &str = ".wheelwright-junit.xml";

/// What `view check` compares: how to run the repository's own test suite.
pub(super) struct Suite<'a> {
    /// Requirements of the test environment (`pytest==8.3.5`, `hypothesis`).
    pub(super) requirements: &'a [String],
    /// The tests to run, a path in the original repository (`tests`).
    pub(super) tests: &'a str,
    /// Directories of the original put on `PYTHONPATH` (`src`, `.`).
    pub(super) pythonpath: &'a [String],
}

/// Runs the suite on one tree of files in the sandbox; test id (`classname::name`) to outcome.
fn run_suite(
    sandbox: &dyn wheelwright_sandbox::Sandbox,
    env: &Path,
    files: Vec<(String, Vec<u8>)>,
    tests: &str,
    pythonpath: &str,
    wall: std::time::Duration,
) -> anyhow::Result<BTreeMap<String, wheelwright_core::hidden_tests::TestOutcome>> {
    let mut job = wheelwright_sandbox::Job::command([
        "env",
        &format!("PYTHONPATH={pythonpath}"),
        "PYTHONDONTWRITEBYTECODE=1",
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        REPORT,
        tests,
    ]);
    job.inputs = files;
    job.env_dir = Some(env.to_owned());
    job.collect = wheelwright_sandbox::Collect::File(REPORT.to_owned());
    job.limits = wheelwright_sandbox::Limits {
        wall,
        ..wheelwright_sandbox::Limits::default()
    };
    let outcome = sandbox.run(&job)?;
    let Some(xml) = outcome.collected else {
        bail!(
            "the test suite wrote no report ({:?}); its output ends:\n{}",
            outcome.status,
            wheelwright_core::hidden_tests::truncate(
                &String::from_utf8_lossy(&outcome.output),
                4000
            )
        );
    };
    let cases = wheelwright_core::hidden_tests::junit::testcases(&String::from_utf8_lossy(&xml))
        .map_err(|e| anyhow::anyhow!("the test suite's report cannot be read: {e}"))?;
    Ok(cases
        .into_iter()
        .map(|c| (format!("{}::{}", c.classname, c.name), c.outcome))
        .collect())
}

/// What `view check` reports.
#[derive(Serialize)]
struct Checked {
    levels: Vec<u8>,
    seed: u64,
    names_mapped: usize,
    runs_reordered: usize,
    tests: usize,
    validity: wheelwright_core::schrodinger::validity::Validity,
}

/// `wheelwright view check`: makes the view in memory, runs the repository's own tests on
/// the original and on the view in the sandbox, and compares them by test id (the view's ids
/// mapped back). Fails unless the view is valid.
pub(super) fn check(
    repo: &Path,
    levels: &[u8],
    seed: u64,
    keep: &std::collections::BTreeSet<String>,
    suite: &Suite<'_>,
    config: &crate::TestConfig,
    json: bool,
) -> anyhow::Result<()> {
    let say = |what: &str| {
        if !json {
            eprintln!("{what}");
        }
    };
    let tree = read_tree(repo)?;
    let view =
        wheelwright_core::schrodinger::view::make_view_keeping(&tree.texts, levels, seed, keep)?;
    let bundle = &view.bundle;
    let rename = |p: &str| {
        bundle
            .namespace
            .as_ref()
            .map_or_else(|| p.to_owned(), |m| m.view_path(p))
    };
    say("building the test environment (once per set of requirements)");
    let requirements: Vec<&str> = suite.requirements.iter().map(String::as_str).collect();
    let env = wheelwright_sandbox::ensure_env(&config.env_root, &[], &requirements, |_| {})?;
    let sandbox = config
        .sandbox()
        .map_err(|e| anyhow::anyhow!("no sandbox: {e}"))?;
    let bytes = |texts: &BTreeMap<String, String>| -> Vec<(String, Vec<u8>)> {
        texts
            .iter()
            .map(|(p, t)| (p.clone(), t.as_bytes().to_vec()))
            .collect()
    };
    let mut original_files = bytes(&tree.texts);
    let mut view_files = bytes(&view.files);
    for (path, data) in &tree.binaries {
        original_files.push((path.clone(), data.clone()));
        view_files.push((rename(path), data.clone()));
    }
    let pythonpath = |map: &dyn Fn(&str) -> String| {
        suite
            .pythonpath
            .iter()
            .map(|p| map(p))
            .collect::<Vec<_>>()
            .join(":")
    };
    say("running the repository's tests on the original");
    let before = run_suite(
        &*sandbox,
        &env,
        original_files,
        suite.tests,
        &pythonpath(&|p| p.to_owned()),
        config.turn_timeout,
    )?;
    say("running the repository's tests on the view");
    let after = run_suite(
        &*sandbox,
        &env,
        view_files,
        &rename(suite.tests),
        &pythonpath(&rename),
        config.turn_timeout,
    )?;
    let translator = bundle.translator();
    let back: BTreeMap<String, _> = after
        .into_iter()
        .map(|(id, outcome)| match &translator {
            Some(t) => (t.patch(&id).text, outcome),
            None => (id, outcome),
        })
        .collect();
    let validity = wheelwright_core::schrodinger::validity::validity(&before, &back);
    let valid = validity.valid;
    let checked = Checked {
        levels: bundle.levels.clone(),
        seed,
        names_mapped: bundle.namespace.as_ref().map_or(0, |m| m.names.len()),
        runs_reordered: bundle.layout.values().map(Vec::len).sum(),
        tests: before.len(),
        validity,
    };
    emit(json, &checked, |w, c| {
        let v = &c.validity;
        let pct = |s: wheelwright_core::metric::Score| {
            s.value()
                .map_or_else(|| "undefined".to_owned(), |x| format!("{:.1} %", x * 100.0))
        };
        writeln!(
            w,
            "{} tests; Pass_to_Pass {}, Fail_to_Pass {}: the view is {}",
            c.tests,
            pct(v.pass_to_pass),
            pct(v.fail_to_pass),
            if v.valid { "valid" } else { "NOT valid" }
        )?;
        for (what, ids) in [
            ("broken", &v.broken),
            ("fixed", &v.fixed),
            ("not run on the view", &v.missing),
        ] {
            for id in ids.iter().take(20) {
                writeln!(w, "  {what}: {id}")?;
            }
        }
        Ok(())
    })?;
    if !valid {
        bail!(
            "the view does not behave as the original; leave the names its failing tests reach out with --keep"
        );
    }
    Ok(())
}
