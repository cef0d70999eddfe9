//! RepoReuse's hidden tests: one turn's suite (cases or hardened pytest) run on the agent's files in a sandbox; core judges.
//!
//! RepoReuse, turn t of a chain: the workspace holds the agent's own files of turns 1..t
//! (later turns overwrite earlier ones; never reference solutions) and nothing else. The
//! judge's files are read-only under `/judge`: for a case suite the project's case runner
//! and the turn's calls without their expected values; for a pytest suite the hardened
//! runner, a trusted ini and the test files with canaries (`docs/hidden-tests.md`). The
//! pinned repository and pytest come from a read-only environment ([`crate::hidden_tests::Environments`]). What
//! the runner streams back is judged by `wheelwright_core::hidden_tests`. A turn without a
//! file at its required path fails every test without running anything.

use std::collections::BTreeMap;
use std::time::Duration;

use wheelwright_core::hidden_tests::cases::{self, CaseSuite};
use wheelwright_core::hidden_tests::compare::ExceptionClasses;
use wheelwright_core::hidden_tests::pytest::PytestSuite;
use wheelwright_core::hidden_tests::{ExpectedTest, RunEnd, TestOutcome, Verdict};
use wheelwright_core::reporeuse::dataset::{ChainManifest, HiddenTests, RepoReuseDataset};
use wheelwright_sandbox::{Sandbox, StopFlag};

use crate::hidden_tests::{TestRunError, random_seed, run_streamed, streaming_job};

/// One turn to test: which chain and turn, and the agent's files of turns 1..t in order.
pub(crate) struct TurnTest<'a> {
    pub(crate) dataset: &'a RepoReuseDataset,
    pub(crate) chain: usize,
    /// 1-based.
    pub(crate) turn: usize,
    /// Files the agent left, turn by turn, turns 1..=t.
    pub(crate) files: &'a [BTreeMap<String, String>],
    /// The exception classes the host knows for each repository of this dataset, by id
    /// (its own and the built-in ones): a case expecting an exception is judged with its
    /// chain's repository's.
    pub(crate) exceptions: &'a BTreeMap<String, ExceptionClasses>,
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
fn prepare(test: &TurnTest<'_>) -> Result<Prepared, TestRunError> {
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
            let exceptions = dataset
                .manifest
                .repository_of(&chain.manifest)
                .and_then(|(id, _)| test.exceptions.get(id))
                .cloned()
                .unwrap_or_default();
            let suite = dataset
                .case_suite(chain, test.turn - 1)
                .map_err(TestRunError::Dataset)?
                .with_exceptions(exceptions);
            let judge = case_judge(dataset, &chain.manifest, &suite)?;
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

/// The judge's files of a case suite of `chain`: the project's case runner, the calls
/// without their expected values, and the dataset's canonical form and prelude. A dataset
/// over several repositories has one prelude per repository (`tools/prelude-<id>.py`,
/// each importing its library); the chain's goes in as `prelude.py`, else the dataset's
/// one `tools/prelude.py`.
pub(crate) fn case_judge(
    dataset: &RepoReuseDataset,
    chain: &ChainManifest,
    suite: &CaseSuite,
) -> Result<Vec<(String, Vec<u8>)>, TestRunError> {
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
            TestRunError::Dataset(
                "the dataset has no tools/canon.py, which puts results in the canonical \
                 form its expected values have"
                    .to_owned(),
            )
        })?,
    ];
    let own = dataset
        .manifest
        .repository_of(chain)
        .and_then(|(id, _)| tool(&format!("prelude-{id}.py")));
    judge.extend(
        own.or_else(|| tool("prelude.py"))
            .map(|(_, text)| ("prelude.py".to_owned(), text)),
    );
    Ok(judge)
}

/// The tests of `test`'s turn (for a turn that fails without running).
pub(crate) fn expected_tests(test: &TurnTest<'_>) -> Result<Vec<ExpectedTest>, TestRunError> {
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
) -> Result<Verdict, TestRunError> {
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
