//! Runs one turn's hidden tests on an agent's files in a sandbox and turns the JUnit report into a verdict.
//!
//! RepoReuse, turn t of a chain: the workspace holds the agent's own files of turns 1..t
//! (later turns overwrite earlier ones; never reference solutions), the turn's hidden test
//! files and a canary test with a random name. The pinned repository and pytest come from a
//! read-only environment ([`Environments`]). pytest runs inside the sandbox from the
//! temporary workspace, which disappears with the sandbox. The verdict comes from
//! [`wheelwright_core::hidden_tests::verdict`]. A turn without a file at its required path
//! fails every test without running anything.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use wheelwright_core::dataset::{RepoReuseDataset, RepositorySource};
use wheelwright_core::hidden_tests::{
    ExpectedTest, RunEnd, TestOutcome, TestResult, Verdict, canary_source, expected_tests, verdict,
};
use wheelwright_sandbox::{Job, Limits, Sandbox, SandboxError, Status};

/// The report pytest writes, relative to the workspace.
const REPORT: &str = "wheelwright-report.xml";

/// Where the sandbox shows a job's inputs, read-only (`wheelwright_sandbox::Job::inputs`).
const INPUTS: &str = "/in";

/// The pytest the environments get, pinned so reports are alike everywhere.
pub(crate) const PYTEST: &str = "pytest==8.3.4";

/// Default time limit of one turn's test run.
pub(crate) const DEFAULT_TURN_TIMEOUT: Duration = Duration::from_secs(600);

/// Why a turn could not be run (the sandbox or the environment failed, not the submission).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error("the sandbox failed: {0}")]
    Sandbox(#[from] SandboxError),
    #[error(
        "the dataset's repository is local ({0}); hidden tests run only for repositories pinned on PyPI"
    )]
    LocalRepository(String),
}

/// The read-only Python environments, one per pinned repository, built on first use.
pub(crate) struct Environments {
    root: PathBuf,
    built: Mutex<BTreeMap<String, PathBuf>>,
}

impl Environments {
    /// Environments under `root` (world-readable; see `wheelwright_sandbox::DEFAULT_ENV_ROOT`).
    pub(crate) fn new(root: PathBuf) -> Self {
        Self {
            root,
            built: Mutex::new(BTreeMap::new()),
        }
    }

    /// The environment for `dataset`'s repository, built first if needed; `progress` hears
    /// each step of a build. Blocking (pip may run for minutes).
    pub(crate) fn for_dataset(
        &self,
        dataset: &RepoReuseDataset,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, RunError> {
        let repo = match &dataset.manifest.repository {
            RepositorySource::Pypi(repo) => repo,
            RepositorySource::Local(local) => {
                return Err(RunError::LocalRepository(local.path.clone()));
            }
        };
        let key = format!("{}=={}", repo.pypi, repo.version);
        // One build at a time: two jobs wanting the same environment must not race pip.
        let mut built = self
            .built
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(dir) = built.get(&key) {
            return Ok(dir.clone());
        }
        let dir = wheelwright_sandbox::ensure_env(
            &self.root,
            &[(repo.pypi.as_str(), repo.version.as_str())],
            &[PYTEST],
            |step| progress(step),
        )?;
        built.insert(key, dir.clone());
        Ok(dir)
    }
}

/// One turn to test: which chain and turn, and the agent's files of turns 1..t in order.
pub(crate) struct TurnTest<'a> {
    pub(crate) dataset: &'a RepoReuseDataset,
    pub(crate) chain: usize,
    /// 1-based.
    pub(crate) turn: usize,
    /// Files the agent left, turn by turn, turns 1..=t.
    pub(crate) files: &'a [BTreeMap<String, String>],
}

/// A random test name no submission can predict: a canary per run.
fn canary_name() -> String {
    // std's RandomState is seeded from the operating system's randomness per process and
    // mixed per instance, which is enough for a name that must not be guessable in advance.
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("test_wheelwright_canary_{:016x}", hasher.finish())
}

fn module_of(file: &str) -> String {
    file.trim_end_matches(".py").replace('/', ".")
}

/// Runs `test` in `sandbox` with the environment `env_dir`; the verdict on every hidden test.
pub(crate) fn run_turn(
    sandbox: &dyn Sandbox,
    env_dir: &std::path::Path,
    test: &TurnTest<'_>,
    timeout: Duration,
) -> Result<Verdict, RunError> {
    let chain = &test.dataset.chains[test.chain];
    let turn = &chain.turns[test.turn - 1];
    let module_path = &turn.manifest.module_path;
    let mut expected: Vec<ExpectedTest> = Vec::new();
    for (name, text) in &turn.tests {
        if name.ends_with(".py") {
            expected.extend(expected_tests(&module_of(name), text));
        }
    }
    let mut workspace: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for files in test.files.iter().take(test.turn) {
        for (path, text) in files {
            workspace.insert(path.clone(), text.clone().into_bytes());
        }
    }
    if !workspace.contains_key(module_path) {
        // D8: no file at the required path fails every test; nothing to run.
        return Ok(Verdict {
            tests: expected
                .iter()
                .map(|t| TestResult {
                    module: t.module.clone(),
                    name: t.name.clone(),
                    outcome: TestOutcome::Failed,
                    duration_s: 0.0,
                    excerpt: format!("no file at {module_path}"),
                })
                .collect(),
            passed: 0,
            total: u32::try_from(expected.len()).unwrap_or(u32::MAX),
            tampered: None,
        });
    }
    // The hidden tests are written last: an agent file of the same name never replaces them.
    // pytest collects the read-only originals under /in (the sandbox keeps every input
    // there), with /in as its root, so a conftest.py or pytest.ini the agent left in the
    // writable workspace is not picked up, and the test files cannot be rewritten.
    let mut test_files = Vec::new();
    for (name, text) in &turn.tests {
        workspace.insert(name.clone(), text.clone().into_bytes());
        if name.ends_with(".py") {
            test_files.push(format!("{INPUTS}/{name}"));
        }
    }
    let canary = canary_name();
    let canary_file = format!("{canary}.py");
    workspace.insert(canary_file.clone(), canary_source(&canary).into_bytes());
    test_files.push(format!("{INPUTS}/{canary_file}"));
    let mut argv: Vec<String> = [
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--rootdir=/in",
        "--junitxml",
        REPORT,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    argv.extend(test_files);
    let job = Job {
        inputs: workspace.into_iter().collect(),
        env_dir: Some(env_dir.to_owned()),
        argv,
        collect: REPORT.to_owned(),
        limits: Limits {
            wall: timeout,
            ..Limits::default()
        },
    };
    let outcome = sandbox.run(&job)?;
    let end = match outcome.status {
        Status::TimedOut => RunEnd::TimedOut,
        Status::OutOfMemory => RunEnd::OutOfMemory,
        Status::Exited(_) | Status::Signalled(_) => RunEnd::Finished,
    };
    let report = outcome
        .collected
        .as_deref()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned());
    let canary = ExpectedTest {
        module: canary.clone(),
        name: canary,
    };
    Ok(verdict(report.as_deref(), end, &expected, &canary))
}
