//! What every benchmark's hidden tests share: the read-only Python environments, a job whose runner streams its results, and why a test run failed.
//!
//! The sandbox computes, core judges: a benchmark's tests (RepoReuse's turns in
//! [`crate::reporeuse::hidden_tests`], ReCUBE's instances in [`crate::recube::hidden_tests`])
//! copy the agent's files into the workspace and the judge's files read-only under `/judge`,
//! run one [`streaming_job`] with [`run_streamed`], and judge what the runner streamed back
//! with `wheelwright_core::hidden_tests`. The pinned repository and pytest come from a
//! read-only environment ([`Environments`]); `docs/hidden-tests.md` tells the whole story.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use wheelwright_core::hidden_tests::{RunEnd, Verdict};
use wheelwright_core::reporeuse::dataset::{RepoReuseDataset, RepositorySource};
use wheelwright_sandbox::{Collect, Job, Limits, Sandbox, SandboxError, Status, StopFlag};

/// The pytest the environments get, pinned so reports are alike everywhere.
pub(crate) const PYTEST: &str = "pytest==8.3.4";

/// Default time limit of one turn's test run.
pub(crate) const DEFAULT_TURN_TIMEOUT: Duration = Duration::from_secs(600);

/// Why hidden tests could not be run (the sandbox or the environment failed, not the submission).
#[derive(Debug, thiserror::Error)]
pub(crate) enum TestRunError {
    #[error("the sandbox failed: {0}")]
    Sandbox(#[from] SandboxError),
    #[error("the repository is local ({0}); hidden tests run only for repositories pinned on PyPI")]
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

    /// The environment a RepoReuse turn's hidden tests run in: `repository` (a chain's,
    /// [`wheelwright_core::reporeuse::dataset::DatasetManifest::repository_of`]) installed
    /// with pytest, built first if needed; `progress` hears each step of a build.
    /// Blocking (pip may run for minutes).
    pub(crate) fn for_tests_of(
        &self,
        repository: &RepositorySource,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, TestRunError> {
        let repo = match repository {
            RepositorySource::Pypi(repo) => repo,
            RepositorySource::Local(local) => {
                return Err(TestRunError::LocalRepository(local.path.clone()));
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

    /// The environment the hidden tests of chain `chain` (an index of `dataset.chains`)
    /// run in: its repository's ([`Self::for_tests_of`]).
    pub(crate) fn for_chain(
        &self,
        dataset: &RepoReuseDataset,
        chain: usize,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, TestRunError> {
        let chain = &dataset.chains[chain].manifest;
        let (_, repository) = dataset.manifest.repository_of(chain).ok_or_else(|| {
            TestRunError::Dataset(format!(
                "chain {:?} names no repository of the dataset; fix its chain.json \"repository\"",
                chain.id
            ))
        })?;
        self.for_tests_of(repository, progress)
    }

    /// The environment of every chain of `dataset`, in order ([`Self::for_chain`]), each
    /// build's steps printed on standard error: what the command-line hosts run turns in.
    pub(crate) fn for_every_chain(
        &self,
        dataset: &RepoReuseDataset,
    ) -> Result<Vec<PathBuf>, TestRunError> {
        (0..dataset.chains.len())
            .map(|c| self.for_chain(dataset, c, &mut |step| eprintln!("environment: {step:?}")))
            .collect()
    }

    /// The environment for tests of `repository`'s own files in the workspace (ReCUBE):
    /// what it depends on and pytest, but not the package itself.
    pub(crate) fn for_dependencies_of(
        &self,
        repository: &RepositorySource,
        progress: &mut dyn FnMut(&wheelwright_sandbox::EnvStep),
    ) -> Result<PathBuf, TestRunError> {
        let repo = match repository {
            RepositorySource::Pypi(repo) => repo,
            RepositorySource::Local(local) => {
                return Err(TestRunError::LocalRepository(local.path.clone()));
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
    ) -> Result<PathBuf, TestRunError> {
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
    ) -> Result<PathBuf, TestRunError> {
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
) -> Result<Verdict, TestRunError> {
    let (stream, truncated, end) = run_stream(sandbox, job)?;
    Ok(verdict(stream.as_deref(), truncated, end))
}

/// Runs `job`: what it streamed, whether that was over its size limit, and how the run
/// ended; a stopped job is an error.
pub(crate) fn run_stream(
    sandbox: &dyn Sandbox,
    job: &Job,
) -> Result<(Option<Vec<u8>>, bool, RunEnd), TestRunError> {
    let outcome = sandbox.run(job)?;
    let end = match outcome.status {
        Status::TimedOut => RunEnd::TimedOut,
        Status::OutOfMemory => RunEnd::OutOfMemory,
        Status::Exited(code) => RunEnd::Exited(code),
        Status::Signalled(signal) => RunEnd::Signalled(signal),
        Status::Stopped => return Err(TestRunError::Stopped),
    };
    Ok((outcome.collected, outcome.collected_truncated, end))
}
