//! Runs one ReCUBE instance's hidden tests in a sandbox: the repository with the target rebuilt in the workspace, the tests read-only under `/judge`; core judges.
//!
//! The workspace holds the pinned repository's files with the instance's target replaced by
//! the submission (or by the original, or the masked file, for the baselines). The
//! environment has the repository's dependencies and pytest but not the package itself
//! ([`crate::hidden_tests::Environments::for_dependencies_of`]): the hardened runner appends
//! the workspace to `sys.path`, so an installed copy would be imported in its place. The
//! instance's test files become a hardened pytest suite with canaries
//! ([`wheelwright_core::hidden_tests::pytest`]), as RepoReuse's pytest turns do. An instance
//! without a rebuilt target fails every test without running anything.

use std::collections::BTreeMap;
use std::time::Duration;

use wheelwright_core::hidden_tests::pytest::PytestSuite;
use wheelwright_core::hidden_tests::{ExpectedTest, TestOutcome, Verdict};
use wheelwright_core::recube::dataset::Instance;
use wheelwright_sandbox::{Sandbox, StopFlag};

use crate::hidden_tests::{TestRunError, random_seed, run_streamed, streaming_job};

/// One instance to test: its repository's files and the text at its target.
pub(crate) struct InstanceTest<'a> {
    pub(crate) instance: &'a Instance,
    /// The pinned repository's files, by path relative to its root (site-packages for a
    /// wheel), the original target among them.
    pub(crate) repository: &'a BTreeMap<String, String>,
    /// The text to test at the target's path; `None`: nothing was submitted.
    pub(crate) target: Option<&'a str>,
}

/// The tests `instance`'s suite reports, as its results name them.
pub(crate) fn expected(instance: &Instance) -> Vec<ExpectedTest> {
    instance
        .manifest
        .tests
        .iter()
        .map(wheelwright_core::recube::metrics::LabelledTest::expected)
        .collect()
}

/// Runs `test` in `sandbox` with the environment `env_dir`; the verdict on every test file
/// of the instance (the dataset's labels are applied by core's scoring).
pub(crate) fn run_instance(
    sandbox: &dyn Sandbox,
    env_dir: &std::path::Path,
    test: &InstanceTest<'_>,
    timeout: Duration,
    stop: Option<StopFlag>,
) -> Result<Verdict, TestRunError> {
    let Some(target) = test.target else {
        return Ok(Verdict::all(
            &expected(test.instance),
            TestOutcome::Failed,
            &format!("no file at {}", test.instance.manifest.target),
            None,
        ));
    };
    let suite = PytestSuite::new(&test.instance.tests, random_seed());
    let mut workspace: BTreeMap<String, Vec<u8>> = test
        .repository
        .iter()
        .map(|(path, text)| (path.clone(), text.as_bytes().to_vec()))
        .collect();
    workspace.insert(
        test.instance.manifest.target.clone(),
        target.as_bytes().to_vec(),
    );
    let argv = ["python", "-I", "/judge/run_pytest.py"]
        .map(str::to_owned)
        .to_vec();
    let job = streaming_job(workspace, suite.judge_files(), env_dir, argv, timeout, stop);
    run_streamed(sandbox, &job, |stream, truncated, end| {
        suite.verdict(stream, truncated, end)
    })
}
