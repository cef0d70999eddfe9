//! Runs one turn's hidden tests on an agent's files in a sandbox; the sandbox computes, core judges.
//!
//! RepoReuse, turn t of a chain: the workspace holds the agent's own files of turns 1..t
//! (later turns overwrite earlier ones; never reference solutions) and nothing else. The
//! judge's files are read-only under `/judge`: for a case suite the project's case runner
//! and the turn's calls without their expected values; for a pytest suite the hardened
//! runner, a trusted ini and the test files with canaries (`docs/hidden-tests.md`). The
//! pinned repository and pytest come from a read-only environment ([`Environments`]). What
//! the runner streams back is judged by `wheelwright_core::hidden_tests`. A turn without a
//! file at its required path fails every test without running anything.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use wheelwright_core::hidden_tests::cases::{self, CaseSuite};
use wheelwright_core::hidden_tests::compare::ExceptionClasses;
use wheelwright_core::hidden_tests::pytest::PytestSuite;
use wheelwright_core::hidden_tests::{ExpectedTest, RunEnd, TestOutcome, Verdict};
use wheelwright_core::reporeuse::dataset::{HiddenTests, RepoReuseDataset, RepositorySource};
use wheelwright_sandbox::{Collect, Job, Limits, Sandbox, SandboxError, Status, StopFlag};

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
    #[error("the dataset's hidden tests cannot run: {0}")]
    Dataset(String),
    #[error("the test run was stopped (its job was cancelled)")]
    Stopped,
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
        self.get(format!("{}=={}", repo.pypi, repo.version), |root| {
            wheelwright_sandbox::ensure_env(
                root,
                &[(repo.pypi.as_str(), repo.version.as_str())],
                &[PYTEST],
                |step| progress(step),
            )
        })
    }

    /// The environment for tests of `repository`'s own files in the workspace (ReCUBE):
    /// what it depends on and pytest, but not the package itself.
    pub(crate) fn for_dependencies_of(
        &self,
        repository: &RepositorySource,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, RunError> {
        let repo = match repository {
            RepositorySource::Pypi(repo) => repo,
            RepositorySource::Local(local) => {
                return Err(RunError::LocalRepository(local.path.clone()));
            }
        };
        self.get(format!("deps of {}=={}", repo.pypi, repo.version), |root| {
            wheelwright_sandbox::ensure_dependencies_env(
                root,
                (repo.pypi.as_str(), repo.version.as_str()),
                &[PYTEST],
                |step| progress(step),
            )
        })
    }

    /// The environment an agent works in on `repository`'s workspace (`wheelwright prepare`,
    /// `wheelwright run`): a PyPI repository's dependencies and pytest
    /// ([`Self::for_dependencies_of`]: the package itself runs from the workspace), or only
    /// pytest for a local repository.
    pub(crate) fn for_agents_of(
        &self,
        repository: &RepositorySource,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, RunError> {
        match repository {
            RepositorySource::Pypi(_) => self.for_dependencies_of(repository, progress),
            RepositorySource::Local(_) => self.get("pytest only".to_owned(), |root| {
                wheelwright_sandbox::ensure_env(root, &[], &[PYTEST], |step| progress(step))
            }),
        }
    }

    /// The environment `key`, built by `build` the first time.
    fn get(
        &self,
        key: String,
        build: impl FnOnce(&std::path::Path) -> Result<PathBuf, SandboxError>,
    ) -> Result<PathBuf, RunError> {
        // One build at a time: two jobs wanting the same environment must not race pip.
        let mut built = self
            .built
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(dir) = built.get(&key) {
            return Ok(dir.clone());
        }
        let dir = build(&self.root)?;
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
    /// The exception classes the host knows for this dataset (its repository's and the
    /// built-in ones): a case expecting an exception is judged with them.
    pub(crate) exceptions: &'a ExceptionClasses,
}

/// A random seed no submission can predict (it draws a pytest suite's names, twins, canaries
/// and order).
pub(crate) fn random_seed() -> u64 {
    // std's RandomState is seeded from the operating system's randomness per process and
    // mixed per instance, which is enough for names that must not be guessable in advance.
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

/// A turn's suite, ready to judge what comes back.
enum Suite {
    Cases(CaseSuite),
    Pytest(PytestSuite),
}

/// A suite prepared for one run: how to judge, and what the sandbox runs.
struct Prepared {
    suite: Suite,
    /// The judge's files, read-only under `/judge`.
    judge: Vec<(String, Vec<u8>)>,
    argv: Vec<String>,
}

impl Suite {
    fn expected_tests(&self) -> Vec<ExpectedTest> {
        match self {
            Self::Cases(s) => s.expected_tests(),
            Self::Pytest(s) => s.expected_tests(),
        }
    }

    fn verdict(&self, stream: Option<&[u8]>, truncated: bool, end: RunEnd) -> Verdict {
        match self {
            Self::Cases(s) => s.verdict(stream, truncated, end),
            Self::Pytest(s) => s.verdict(stream, truncated, end),
        }
    }
}

/// The suite of `test`'s turn and the judge files and command that run it.
fn prepare(test: &TurnTest<'_>) -> Result<Prepared, RunError> {
    let dataset = test.dataset;
    let chain = &dataset.chains[test.chain];
    let turn = &chain.turns[test.turn - 1];
    let python = |runner: &str| {
        ["python", "-I", &format!("/judge/{runner}")]
            .map(str::to_owned)
            .to_vec()
    };
    match dataset.manifest.hidden_tests {
        HiddenTests::Cases => {
            let suite = dataset
                .case_suite(chain, test.turn - 1)
                .map_err(RunError::Dataset)?
                .with_exceptions(test.exceptions.clone());
            let tool = |name: &str| {
                dataset
                    .tools
                    .iter()
                    .find(|(path, _)| path == &format!("tools/{name}"))
                    .map(|(_, text)| (name.to_owned(), text.as_bytes().to_vec()))
            };
            let mut judge = vec![
                ("run_cases.py".to_owned(), cases::RUNNER.as_bytes().to_vec()),
                (cases::INPUT.to_owned(), suite.judge_input().into_bytes()),
                tool("canon.py").ok_or_else(|| {
                    RunError::Dataset(
                        "the dataset has no tools/canon.py, which puts results in the canonical \
                         form its expected values have"
                            .to_owned(),
                    )
                })?,
            ];
            judge.extend(tool("prelude.py"));
            Ok(Prepared {
                suite: Suite::Cases(suite),
                judge,
                argv: python("run_cases.py"),
            })
        }
        HiddenTests::Pytest => {
            let suite = PytestSuite::new(&turn.tests, random_seed());
            let judge = suite.judge_files();
            Ok(Prepared {
                suite: Suite::Pytest(suite),
                judge,
                argv: python("run_pytest.py"),
            })
        }
    }
}

/// The tests of `test`'s turn (for a turn that fails without running).
pub(crate) fn expected_tests(test: &TurnTest<'_>) -> Result<Vec<ExpectedTest>, RunError> {
    Ok(prepare(test)?.suite.expected_tests())
}

/// Runs `test` in `sandbox` with the environment `env_dir`; the verdict on every hidden test.
///
/// The workspace holds the agent's own files of turns 1..t and nothing else; the judge's
/// files (runner, cases without expected values, or the pytest files) are read-only under
/// `/judge`. The verdict comes from the result stream, judged here.
pub(crate) fn run_turn(
    sandbox: &dyn Sandbox,
    env_dir: &std::path::Path,
    test: &TurnTest<'_>,
    timeout: Duration,
    stop: Option<StopFlag>,
) -> Result<Verdict, RunError> {
    let chain = &test.dataset.chains[test.chain];
    let turn = &chain.turns[test.turn - 1];
    let module_path = &turn.manifest.module_path;
    let Prepared { suite, judge, argv } = prepare(test)?;
    let mut workspace: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for files in test.files.iter().take(test.turn) {
        for (path, text) in files {
            workspace.insert(path.clone(), text.clone().into_bytes());
        }
    }
    if !workspace.contains_key(module_path) {
        // D8: no file at the required path fails every test; nothing to run.
        return Ok(Verdict::all(
            &suite.expected_tests(),
            TestOutcome::Failed,
            &format!("no file at {module_path}"),
            None,
        ));
    }
    let job = streaming_job(workspace, judge, env_dir, argv, timeout, stop);
    run_streamed(sandbox, &job, |stream, truncated, end| {
        suite.verdict(stream, truncated, end)
    })
}

/// A job whose runner streams its results: `workspace` copied in, `judge` read-only under
/// `/judge`, the environment `env_dir`, the wall-clock limit `timeout`.
pub(crate) fn streaming_job(
    workspace: BTreeMap<String, Vec<u8>>,
    judge: Vec<(String, Vec<u8>)>,
    env_dir: &std::path::Path,
    argv: Vec<String>,
    timeout: Duration,
    stop: Option<StopFlag>,
) -> Job {
    Job {
        inputs: workspace.into_iter().collect(),
        judge,
        env_dir: Some(env_dir.to_owned()),
        argv,
        collect: Collect::Stream,
        limits: Limits {
            wall: timeout,
            ..Limits::default()
        },
        stop,
    }
}

/// Runs `job` and judges what it streamed with `verdict` (the stream, whether it was over
/// its size limit, how the run ended); a stopped job has no verdict.
pub(crate) fn run_streamed(
    sandbox: &dyn Sandbox,
    job: &Job,
    verdict: impl FnOnce(Option<&[u8]>, bool, RunEnd) -> Verdict,
) -> Result<Verdict, RunError> {
    let outcome = sandbox.run(job)?;
    let end = match outcome.status {
        Status::TimedOut => RunEnd::TimedOut,
        Status::OutOfMemory => RunEnd::OutOfMemory,
        Status::Exited(code) => RunEnd::Exited(code),
        Status::Signalled(signal) => RunEnd::Signalled(signal),
        Status::Stopped => return Err(RunError::Stopped),
    };
    Ok(verdict(
        outcome.collected.as_deref(),
        outcome.collected_truncated,
        end,
    ))
}
