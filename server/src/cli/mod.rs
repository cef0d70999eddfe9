//! The `wheelwright` command line: its flags and environment variables, and the dispatch to a module per command (what the commands share is in `io`).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use tracing_subscriber::EnvFilter;
use wheelwright_core::reporeuse::prompt::Memory;
use wheelwright_core::reporeuse::scoring::DEFAULT_WORKDIR;

use crate::ServeConfig;

mod actions;
mod analyze;
mod cce;
mod dataset;
mod dataset_audit;
mod dataset_execute;
mod dataset_map;
mod dataset_stats;
mod dataset_synthesize;
mod dataset_walk;
mod groups;
mod io;
mod mask;
mod model;
mod pool;
mod prepare;
mod recube;
mod restate;
mod run;
mod score;
mod test;
mod trajectory;
mod view;

pub use io::Exit;
pub use prepare::TurnArgs;

/// Explorer, scorer and leaderboard for coding-agent benchmarks.
#[derive(Debug, Parser)]
#[command(name = "wheelwright", version, about)]
pub struct Cli {
    /// Log filter: a level (error, warn, info, debug, trace) or a tracing directive list.
    #[arg(long, global = true, env = "WHEELWRIGHT_LOG", default_value = "info")]
    pub log_level: String,
    /// Log line format.
    #[arg(long, global = true, env = "WHEELWRIGHT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the app, the API and the data.
    Serve(ServeArgs),
    /// Print the definitions of a Python file and the calls in each (what the analysis page shows).
    Analyze {
        /// The Python file.
        file: PathBuf,
        /// Print JSON (identical to POST /api/v1/analyze) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Mask a Python file as ReCUBE shows it to an agent (spec section 2): every import
    /// removed, every function and method body replaced by its docstring and `raise
    /// NotImplementedError`; the masked file goes to standard output, problems to standard error.
    Mask {
        /// The Python file.
        file: PathBuf,
        /// Print JSON: the masked text, the bodies masked, the imports removed, diagnostics.
        #[arg(long)]
        json: bool,
    },
    /// Score a run against a dataset (RepoReuse, spec section 1): per-turn and overall tables.
    ///
    /// The dataset is a dataset directory (docs/formats.md, "Dataset (RepoReuse)"; its
    /// repository is a directory of it, or comes from PyPI, cached); the run is a run
    /// bundle (docs/formats.md, "Run bundle"): a directory, a .zip, a .jsonl or a .jsonl.gz file. Test
    /// results are not part of a bundle, so pass and resolve are undefined here; the
    /// server runs the hidden tests.
    Score {
        /// The run bundle: what the agent left and did, per chain and turn.
        run: PathBuf,
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        /// Print the report as JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// Report where the time went (reading the bundle and dataset, indexing the
        /// repositories, scoring the turns, aggregating) on standard error, and as a
        /// "timings" object (seconds) in the JSON report with --json.
        #[arg(long)]
        timings: bool,
        /// The directory the agents' shell started in, where the repository was checked out
        /// (paths in the trajectories are read relative to it) [default: the dataset's
        /// "workdir", else /testbed].
        #[arg(long, value_name = "DIR")]
        workdir: Option<String>,
        /// Also draw the run page's per-turn charts into this directory (made if missing):
        /// one SVG per column with a value, `turns-COLUMN.svg`, light or dark with the
        /// viewer's colour scheme.
        #[arg(long, value_name = "DIR")]
        plots: Option<PathBuf>,
    },
    /// Run a run bundle's hidden tests in sandboxes, then score it with the results.
    ///
    /// Each turn's tests run in the sandbox on the agent's own files of turns 1..t, with
    /// the pinned repository from a read-only environment built on first use. Prints the
    /// tests per turn (passed, total, tampered reports) and the full report of `score`,
    /// now with pass and resolve.
    Test {
        /// The run bundle: a directory, a .zip, a .jsonl or a .jsonl.gz file.
        run: PathBuf,
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        #[command(flatten)]
        tests: TestArgs,
        /// Print the report and the test verdicts as JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// The directory the agents' shell started in, where the repository was checked out
        /// (paths in the trajectories are read relative to it) [default: the dataset's
        /// "workdir", else /testbed].
        #[arg(long, value_name = "DIR")]
        workdir: Option<String>,
    },
    /// Print how each action of one trajectory was read: its kind and category, the files it
    /// counts, the lines it showed, or why it was not understood (what a researcher runs
    /// to audit a trajectory; docs/trajectories.md).
    Trajectory {
        /// The trajectory: a mini-SWE-agent `.traj.json`, an OpenCode session export or a
        /// generic-1 file.
        file: PathBuf,
        /// The repository the agent worked in, as a directory: reads are counted from its
        /// files and grep hits located in them. Without it only what the observations
        /// printed counts.
        #[arg(long, value_name = "DIR")]
        repo: Option<PathBuf>,
        /// The directory the agent's shell started in, where the repository was checked out.
        #[arg(long, value_name = "DIR", default_value = DEFAULT_WORKDIR)]
        workdir: String,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// SchrodingerRepo's per-run metrics (spec section 3): Pass@1, the mix of actions by
    /// category, tokens per instance, read from a run's trajectories and SWE-bench reports;
    /// with --baseline, the shift against the baseline run (the same agent on the
    /// original repository) and where the additional actions went.
    Actions {
        /// The run: a folder of trajectories (`<id>.traj.json`, or `.json.gz`) and the
        /// evaluation's reports (`report.json` per instance, or the run's summary with
        /// `resolved_ids`), in any layout.
        #[arg(long, value_name = "DIR")]
        run: PathBuf,
        /// The baseline run, in the same form.
        #[arg(long, value_name = "DIR")]
        baseline: Option<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Write the workspace an agent gets for one RepoReuse turn (W_{t-1}): the pinned
    /// repository's sources without tests or git history, plus the agent's own files of
    /// earlier turns (from --run), and check that the package imports from it with the
    /// environment the agent runs in (docs/run-your-agent.md).
    Prepare {
        #[command(flatten)]
        turn: TurnArgs,
        /// Where to write the workspace (a new or empty directory).
        #[arg(long)]
        out: PathBuf,
        /// Where the environment the agent runs in is built (world-readable).
        #[arg(long, env = "WHEELWRIGHT_ENV_ROOT", default_value = wheelwright_sandbox::DEFAULT_ENV_ROOT)]
        env_root: PathBuf,
    },
    /// Print the prompt of one RepoReuse turn under a memory setting (spec section 1),
    /// from the versioned template every run uses.
    Prompt {
        #[command(flatten)]
        turn: TurnArgs,
        /// What the agent keeps between turns.
        #[arg(long, value_enum)]
        memory: MemoryArg,
        /// Print JSON: the text, its template version and memory setting.
        #[arg(long)]
        json: bool,
    },
    /// Run an agent through a RepoReuse dataset's chains, turn by turn, and write the run
    /// bundle: each turn's workspace and prompt prepared, the agent command run in it within
    /// a time budget, its file and trajectory read back. Interrupted, the same command
    /// resumes at the first unfinished turn (docs/run-your-agent.md).
    Run {
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        /// The command that runs the agent on one turn, with `sh -c` in the turn's
        /// workspace: the prompt on standard input and in $WHEELWRIGHT_PROMPT_FILE, the
        /// trajectory to be written to $WHEELWRIGHT_TRAJECTORY.
        #[arg(long)]
        agent: String,
        /// The run's directory: the bundle, each turn's prompt and log, and run.jsonl.gz.
        #[arg(long)]
        out: PathBuf,
        /// The model, as its provider names it (metadata).
        #[arg(long)]
        model: String,
        /// The agent scaffold, e.g. mini-SWE-agent (metadata).
        #[arg(long)]
        harness: String,
        /// What the agent keeps between turns.
        #[arg(long, value_enum)]
        memory: MemoryArg,
        /// The run's date, YYYY-MM-DD [default: today, UTC].
        #[arg(long)]
        date: Option<String>,
        /// The scaffold's version (metadata).
        #[arg(long)]
        scaffold_version: Option<String>,
        /// Free-text notes (metadata).
        #[arg(long)]
        notes: Option<String>,
        /// Wall time one turn's agent may take, in seconds; then it is killed and the turn
        /// keeps whatever file it left.
        #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
        budget: u64,
        /// Chains run at once.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: u64,
        /// Only this chain (repeat for several) [default: every chain].
        #[arg(long = "chain")]
        chains: Vec<String>,
        /// Keep each turn's workspace under <out>/work after the turn.
        #[arg(long)]
        keep_workspaces: bool,
        /// Where the environment the agent runs in is built (world-readable).
        #[arg(long, env = "WHEELWRIGHT_ENV_ROOT", default_value = wheelwright_sandbox::DEFAULT_ENV_ROOT)]
        env_root: PathBuf,
    },
    /// Work with dataset directories.
    #[command(subcommand)]
    Dataset(DatasetCommand),
    /// ReCUBE's caller-centric exploration of a repository around a target file (what a
    /// harness gives an agent): its views, an entity's usages, a name's definitions, the
    /// dependency graph's answers (`cce graph`), static checks of a rebuilt target
    /// (`cce validate`).
    #[command(subcommand)]
    Cce(cce::CceCommand),
    /// ReCUBE datasets.
    #[command(subcommand)]
    Recube(RecubeCommand),
    /// Write a SchrodingerRepo view of a repository (spec section 3): level 2 renames the
    /// names it owns, level 3 reorders its definitions, under a seed. The view's bundle (the
    /// mapping back) is written beside it; `view recover` turns a final view state back
    /// into a patch of the original.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    View(ViewArgs),
}

#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    #[command(subcommand)]
    pub command: Option<ViewCommand>,
    /// The repository directory.
    #[arg(long, required = true)]
    pub repo: Option<PathBuf>,
    /// The levels to apply: 2 (namespace mapping), 3 (layout reordering) or 2,3.
    #[arg(long, value_delimiter = ',', default_value = "2,3")]
    pub level: Vec<u8>,
    /// The seed: the same repository and seed give the same view.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the view (a new or empty directory).
    #[arg(long, required_unless_present = "virtual_namespace")]
    pub out: Option<PathBuf>,
    /// Where to write the bundle [default: <out>.view.json, beside the view].
    #[arg(long, required_if_eq("virtual_namespace", "true"))]
    pub bundle: Option<PathBuf>,
    /// Write only the bundle of level 2's virtual namespace, no view files: it renames
    /// every name the repository owns that no tool reads by name (strings, `__all__`,
    /// config files, methods, the package and distribution included), and an agent works
    /// in it through `view shell`. Level 3 is not applied.
    #[arg(long = "virtual", conflicts_with = "out")]
    pub virtual_namespace: bool,
    /// Names to leave out of level 2's mapping (comma-separated): names the code reaches
    /// in ways the survey cannot see, found with `view check`.
    #[arg(long, value_delimiter = ',')]
    pub keep: Vec<String>,
    /// Print a JSON summary (with every left-out name, where and why).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum ViewCommand {
    /// Run one shell command written in a virtual namespace's names on the original
    /// repository (the online translator, for a bash-tool harness: call it once per
    /// action). The command is translated to real names (here-document bodies included),
    /// run with `bash -c` in the repository, and its output printed in the view's names;
    /// the exit code is the command's (124 when it ran over --timeout).
    Shell {
        /// The virtual namespace's bundle (`wheelwright view --virtual`).
        #[arg(long)]
        bundle: PathBuf,
        /// The original repository directory, where the command runs.
        #[arg(long)]
        repo: PathBuf,
        /// Seconds before the command and everything it started is killed.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Bytes kept of each of standard output and standard error.
        #[arg(long, default_value_t = 1 << 20)]
        max_output: usize,
        /// The command (its words joined by spaces); read from standard input when absent.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Turn the final state of a view (after an agent worked in it) back into a patch of
    /// the original repository (spec 3, patch recovery), printed to standard output.
    Recover {
        /// The original repository directory.
        #[arg(long)]
        repo: PathBuf,
        /// The view's final state.
        #[arg(long)]
        view: PathBuf,
        /// The view's bundle (written by `wheelwright view`).
        #[arg(long)]
        bundle: PathBuf,
        /// Print JSON: the patch, the files changed, what could not be undone.
        #[arg(long)]
        json: bool,
    },
    /// Check that a view is valid (spec 3): run the repository's own tests on the original
    /// and on the view in the sandbox; every test that passes on the original must pass
    /// on the view and none that fails may pass. Exits non-zero otherwise.
    Check {
        /// The repository directory.
        #[arg(long)]
        repo: PathBuf,
        /// The levels to apply: 2, 3 or 2,3.
        #[arg(long, value_delimiter = ',', default_value = "2,3")]
        level: Vec<u8>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Names to leave out of level 2's mapping (comma-separated).
        #[arg(long, value_delimiter = ',')]
        keep: Vec<String>,
        #[command(flatten)]
        suite: SuiteArgs,
        #[command(flatten)]
        test_args: TestArgs,
        /// Print JSON: the validity and the tests that decide it.
        #[arg(long)]
        json: bool,
    },
    /// Level 1 (spec 3): rewrite a problem statement through a language model in two
    /// stages (its facts, then a new statement from the facts only), record both answers in
    /// a view bundle and print the new statement. A prompt the bundle already answers is
    /// not asked again, so the same command on a recorded bundle needs no model.
    Restate {
        /// The problem statement (Markdown or text).
        #[arg(long)]
        statement: PathBuf,
        /// The view bundle to record into (made when missing; one `wheelwright view`
        /// wrote gains level 1) and to replay from.
        #[arg(long)]
        bundle: PathBuf,
        #[command(flatten)]
        model: ModelArgs,
        /// Write the new statement to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print JSON: the statement, what is wrong with it, prompts asked and replayed.
        #[arg(long)]
        json: bool,
    },
    /// Level 4 (spec 3): rewrite functions of a repository through a language model in two
    /// stages (a rewrite, then the model's own check of it) into variants that behave the
    /// same, keep each only when the repository's own tests still pass in the sandbox, and
    /// write the repository with the kept ones to --out. The functions are those a golden
    /// patch touches (--patch), else --count drawn under --seed. Every answer and verdict is
    /// recorded in the bundle, so the same command on it needs no model and runs no tests.
    Rewrite {
        /// The repository directory.
        #[arg(long)]
        repo: PathBuf,
        /// A new directory for the rewritten repository.
        #[arg(long)]
        out: PathBuf,
        /// The view bundle to record into (made when missing) and to replay from.
        #[arg(long)]
        bundle: PathBuf,
        #[command(flatten)]
        model: ModelArgs,
        /// The golden patch (a unified diff of the repository): rewrite only the functions
        /// its hunks change.
        #[arg(long)]
        patch: Option<PathBuf>,
        /// Without --patch: the seed of the draw of functions.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Without --patch: how many functions to draw.
        #[arg(long, default_value_t = 3)]
        count: usize,
        #[command(flatten)]
        suite: SuiteArgs,
        #[command(flatten)]
        test_args: TestArgs,
        /// Print JSON: each function's fate, prompts asked and replayed, suite runs.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum RecubeCommand {
    /// Convert the original ReCUBE data (target.json, tests/, test_classifications/,
    /// prompts/ as released) into a dataset directory (docs/formats.md, "Dataset (ReCUBE)").
    Import {
        /// The original data directory.
        source: PathBuf,
        /// Where to write the dataset (must not exist).
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "recube")]
        name: String,
        #[arg(long, default_value = "1")]
        version: String,
    },
    /// Write a ReCUBE instance as an agent gets it: the repository in its own layout with
    /// the target masked (`wheelwright mask`) and its test files left out.
    Prepare {
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        /// The instance.
        #[arg(long)]
        instance: String,
        /// Where to write the workspace (a new or empty directory).
        #[arg(long)]
        out: PathBuf,
    },
    /// Print a ReCUBE instance's prompt from its versioned template: the full-context prompt
    /// (<readme>, <dependencies>, <implementations> and the masked file) or the agent
    /// prompt; its o200k_base token count goes to standard error.
    Prompt {
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        /// The instance.
        #[arg(long)]
        instance: String,
        /// Which prompt.
        #[arg(long, value_enum)]
        setting: recube::prepare::Setting,
        /// Print JSON: the text, its template version and token count.
        #[arg(long)]
        json: bool,
    },
    /// Check every instance in sandboxes: the original target passes every listed test and
    /// the masked target fails every one. Exits non-zero on any failure.
    Verify {
        /// The dataset directory (holding dataset.json).
        dir: PathBuf,
        #[command(flatten)]
        tests: TestArgs,
        /// Print the checks as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a ReCUBE run bundle's rebuilt targets against the hidden tests in sandboxes and
    /// score it: SPR and APR (all, external, internal), caller coverage, cost and turns.
    Test {
        /// The run bundle: a .jsonl or .jsonl.gz file (a metadata line, one line per
        /// instance with the rebuilt target under its path and the trajectory).
        run: PathBuf,
        /// The dataset directory (holding dataset.json).
        #[arg(long)]
        dataset: PathBuf,
        #[command(flatten)]
        tests: TestArgs,
        /// The directory the agent's shell started in, the repository's root (paths in the
        /// trajectories are read relative to it).
        #[arg(long, value_name = "DIR", default_value = DEFAULT_WORKDIR)]
        workdir: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum DatasetCommand {
    /// A RepoReuse dataset's Table 1 (as in the paper): chains, and per chain or turn the
    /// mean and range of turns, test cases, requirement characters, new functions and
    /// repository and self reuse targets, from the dataset's files alone.
    Stats {
        /// The dataset directory (holding dataset.json).
        dir: PathBuf,
        /// Print the rows as JSON.
        #[arg(long)]
        json: bool,
    },
    /// RepoReuse's pipeline, step 1: a repository's callable map (every function and
    /// method with its lines, signature, first docstring line and calls resolved to the
    /// repository's own callables; internal ones public code calls marked as candidate
    /// starting points). Format: docs/formats.md, "Callable map".
    #[command(group(clap::ArgGroup::new("source").required(true).args(["repo", "dir"])))]
    Map {
        /// A pinned PyPI release, NAME==VERSION (networkx==3.4.2): its wheel's sources.
        #[arg(long)]
        repo: Option<String>,
        /// A directory of Python sources (module names from paths under it).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Write the map as JSON to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the map as JSON (without: counts and the candidates).
        #[arg(long)]
        json: bool,
        /// The Python 3 that runs pip to download the wheel.
        #[arg(long, default_value = "python3")]
        python: PathBuf,
        /// Where wheels are cached [default: ~/.cache/wheelwright].
        #[arg(long, env = "WHEELWRIGHT_CACHE_DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// RepoReuse's pipeline, step 3: each turn's recorded authoring answer (six blocks,
    /// `DIR/pipeline/answers/<chain>/turn-<t>.md`) checked and rendered into the turn's
    /// files under `DIR/chains/`. An answer with a problem (a missing block, a call that is
    /// not one call of a required function, a requirement naming an evidence symbol, ...)
    /// is refused with every problem named. Format: docs/formats.md, "Synthesis answer".
    Synthesize {
        /// The dataset directory (holding dataset.json and pipeline/answers/).
        dir: PathBuf,
        /// Only this chain (repeat for more) [default: every chain with answers].
        #[arg(long = "chain", value_name = "ID")]
        chains: Vec<String>,
    },
    /// RepoReuse's pipeline, step 4: every turn's reference run twice in the sandbox by the
    /// case runner; cases whose runs disagree, err or do not give the proposed kind of
    /// result are discarded, and the rest get their expected values from the runs. Writes
    /// each turn's expected.json and cases.json and a record under pipeline/execution/;
    /// fails naming any turn left with fewer than 8 cases.
    Execute {
        /// The dataset directory (holding dataset.json and chains/).
        dir: PathBuf,
        /// Only this chain (repeat for more) [default: every chain].
        #[arg(long = "chain", value_name = "ID")]
        chains: Vec<String>,
        #[command(flatten)]
        tests: TestArgs,
        /// Print the records as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The independent audit of a built dataset: its repository installed afresh from its
    /// PyPI pin, every chain's packaged references put in place turn by turn, and every
    /// hidden test run in the sandbox as a submission's is. Every reference must pass every
    /// test and an empty implementation fail every one; exits non-zero otherwise.
    Audit {
        /// The dataset directory (holding dataset.json).
        dir: PathBuf,
        #[command(flatten)]
        tests: TestArgs,
        /// Print the audit as JSON.
        #[arg(long)]
        json: bool,
    },
    /// RepoReuse's pipeline, step 2: a guided walk over a callable map that chooses the
    /// repository symbols (2 to 4, the evidence) one turn is built on. At each hop the
    /// model command sees the symbol in focus and a menu of its neighbours and answers with
    /// one JSON object (open, keep, done); from turn 2 a nearby symbol no earlier turn used
    /// is injected and must be kept. The record (every answer) is written to --out; when
    /// --out already holds this chain and turn's walk, it is replayed without a model.
    /// Format: docs/formats.md, "Walk".
    #[command(group(clap::ArgGroup::new("source").required(true).args(["repo", "dir"])))]
    Walk {
        /// The callable map of the repository (`wheelwright dataset map --out`).
        #[arg(long)]
        map: PathBuf,
        /// The repository as a pinned PyPI release, NAME==VERSION, as given to `dataset map`.
        #[arg(long)]
        repo: Option<String>,
        /// The repository as a directory of Python sources, as given to `dataset map`.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The chain's chain.json (id, title, description, package).
        #[arg(long)]
        chain: PathBuf,
        /// The turn to walk for (1-based).
        #[arg(long)]
        turn: usize,
        /// From turn 2: the earlier turns' manifests, as a chain's directory
        /// (turn-<t>/turn.json) or a directory of turn-<t>.json files.
        #[arg(long)]
        earlier: Option<PathBuf>,
        /// The seed of the draws (turn 1's start, the injected symbol).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The symbol to start at (a qualified name of the map) instead of the drawn one
        /// (turn 1) or the previous turn's first repository target.
        #[arg(long)]
        start: Option<String>,
        #[command(flatten)]
        model: ModelArgs,
        /// The walk record: written, or replayed when it holds this chain and turn's walk.
        #[arg(long)]
        out: PathBuf,
        /// Print the record as JSON (without: the start, evidence and goal).
        #[arg(long)]
        json: bool,
        /// The Python 3 that runs pip to download the wheel.
        #[arg(long, default_value = "python3")]
        python: PathBuf,
        /// Where wheels are cached [default: ~/.cache/wheelwright].
        #[arg(long, env = "WHEELWRIGHT_CACHE_DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Check every turn as the paper's pipeline does: structure, targets (static analysis
    /// against the pinned repository), regenerated expected values, reference passes and
    /// empty implementation fails. Exits non-zero on any failure.
    Verify {
        /// The dataset directory (holding dataset.json).
        dir: PathBuf,
        /// The Python 3 that runs pip and creates the cached venv.
        #[arg(long, default_value = "python3")]
        python: PathBuf,
        /// Where wheels and venvs are cached [default: ~/.cache/wheelwright].
        #[arg(long, env = "WHEELWRIGHT_CACHE_DIR")]
        cache_dir: Option<PathBuf>,
        /// Only structure and targets: no venv, no tests run.
        #[arg(long)]
        skip_execution: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "WHEELWRIGHT_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Directory for the SQLite database and stored runs.
    #[arg(long, env = "WHEELWRIGHT_DATA_DIR", default_value = "wheelwright-data")]
    pub data_dir: PathBuf,
    /// Directory of the built browser app (`trunk build --release` writes `dist/`).
    #[arg(long, env = "WHEELWRIGHT_APP_DIR", default_value = "dist")]
    pub app_dir: PathBuf,
    /// Directory of datasets (each a directory with `dataset.json`) imported at start.
    #[arg(long, env = "WHEELWRIGHT_DATASETS_DIR", default_value = "datasets")]
    pub datasets_dir: PathBuf,
    /// Where pinned repositories' wheels are cached [default: ~/.cache/wheelwright].
    #[arg(long, env = "WHEELWRIGHT_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub tests: TestArgs,
    /// Do not queue the hidden tests of the baselines at start.
    #[arg(long, env = "WHEELWRIGHT_SKIP_BASELINE_TESTS")]
    pub skip_baseline_tests: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}

/// What one client may cost the server (see docs/limits.md).
#[derive(Debug, clap::Args)]
pub struct HttpArgs {
    /// Connections open at once; more wait in the listen backlog until one closes
    /// [default: 1024, fewer when ulimit -n leaves less room].
    #[arg(long, env = "WHEELWRIGHT_MAX_CONNECTIONS", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: Option<u32>,
    /// Connections one client (IP address) may hold at once; more are closed as soon as
    /// they are accepted.
    #[arg(long, env = "WHEELWRIGHT_MAX_CONNECTIONS_PER_CLIENT", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections_per_client: u32,
    /// Seconds a connection has to send a request's headers; also how long a kept-alive
    /// connection may sit idle between requests.
    #[arg(long, env = "WHEELWRIGHT_HEADER_TIMEOUT", default_value = "10", value_parser = seconds)]
    pub header_timeout: std::time::Duration,
    /// Seconds a request has to be answered; later it gets 408 and its work is stopped.
    #[arg(long, env = "WHEELWRIGHT_REQUEST_TIMEOUT", default_value = "30", value_parser = seconds)]
    pub request_timeout: std::time::Duration,
    /// Analyses and uploads worked on at once; more are answered 503 with Retry-After
    /// [default: one per core].
    #[arg(long, env = "WHEELWRIGHT_ANALYSIS_WORKERS", value_parser = clap::value_parser!(u32).range(1..))]
    pub analysis_workers: Option<u32>,
    /// Of those, how many one client (IP address) may have at once; more are answered 429
    /// with Retry-After [default: half of --analysis-workers, at least one].
    #[arg(long, env = "WHEELWRIGHT_ANALYSIS_WORKERS_PER_CLIENT", value_parser = clap::value_parser!(u32).range(1..))]
    pub analysis_workers_per_client: Option<u32>,
    /// MiB of upload bodies held in memory at once, across all requests; more uploads are
    /// answered 503 with Retry-After until one is read (at least two of the largest
    /// uploads' worth is always allowed).
    #[arg(long, env = "WHEELWRIGHT_UPLOAD_MEMORY", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub upload_memory: u32,
    /// MiB of read answers (leaderboards, runs, turn cases, pages of runs) kept in memory
    /// until the next write; the least recently used go first.
    #[arg(long, env = "WHEELWRIGHT_READ_CACHE", default_value_t = (crate::DEFAULT_READ_CACHE_BYTES >> 20) as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub read_cache: u32,
}

/// A positive number of seconds, such as `10` or `0.5`.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds (e.g. 10 or 0.5)"))
}

impl HttpArgs {
    fn config(&self) -> crate::HttpConfig {
        let defaults = crate::HttpConfig::default();
        crate::HttpConfig {
            max_connections: self
                .max_connections
                .map_or(defaults.max_connections, |n| n as usize),
            max_connections_per_client: self.max_connections_per_client as usize,
            header_timeout: self.header_timeout,
            request_timeout: self.request_timeout,
            workers: self
                .analysis_workers
                .map_or(defaults.workers, |n| n as usize),
            workers_per_client: self.analysis_workers_per_client.map(|n| n as usize),
            body_budget: (self.upload_memory as usize) << 20,
            read_cache_bytes: (self.read_cache as usize) << 20,
        }
    }
}

/// The language model of levels 1 and 4 (`view restate`, `view rewrite`) and of RepoReuse's
/// pipeline (`dataset walk`).
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// The model: a shell command that reads a prompt on standard input and writes its
    /// answer to standard output. Not needed when the bundle (or record) holds every answer.
    #[arg(long)]
    model: Option<String>,
    /// Seconds one answer of the model may take; its process group is killed after.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
}

impl ModelArgs {
    fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout)
    }
}

/// How to run a repository's own test suite (`view check`, `view rewrite`).
#[derive(Debug, clap::Args)]
pub struct SuiteArgs {
    /// A requirement of the test environment (repeat it): `pytest==8.3.5`, `hypothesis`.
    #[arg(long = "requirement", default_value = "pytest==8.3.5")]
    requirements: Vec<String>,
    /// The tests to run, a path in the repository.
    #[arg(long, default_value = "tests")]
    tests: String,
    /// Directories of the repository put on PYTHONPATH (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "src,.")]
    pythonpath: Vec<String>,
}

impl SuiteArgs {
    fn suite(&self) -> view::Suite<'_> {
        view::Suite {
            requirements: &self.requirements,
            tests: &self.tests,
            pythonpath: &self.pythonpath,
        }
    }
}

/// Where and how hidden tests run (shared by `serve` and `test`).
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// The sandbox backend for hidden tests; `none` disables them.
    #[arg(long = "backend", env = "WHEELWRIGHT_SANDBOX", default_value = "bwrap")]
    pub backend: BackendArg,
    /// Test jobs run at once [default: cores - 1, at least 1].
    #[arg(long, env = "WHEELWRIGHT_TEST_WORKERS")]
    pub test_workers: Option<usize>,
    /// Where read-only Python environments for the tests are built (world-readable).
    #[arg(long, env = "WHEELWRIGHT_ENV_ROOT", default_value = wheelwright_sandbox::DEFAULT_ENV_ROOT)]
    pub env_root: PathBuf,
    /// Time limit of one turn's hidden tests, in seconds.
    #[arg(long, env = "WHEELWRIGHT_TURN_TIMEOUT", default_value_t = 600)]
    pub turn_timeout: u64,
    /// First uid of the sandbox slots (slot i runs as this + i) [default: 64000 for bwrap,
    /// 63000 for podman]; give each server or test command on a host its own range.
    #[arg(long, env = "WHEELWRIGHT_UID_BASE")]
    pub uid_base: Option<u32>,
    /// A run's hidden tests may take this many seconds per turn on average: a run of n
    /// turns gets n times this in all; once spent, its remaining turns fail as timed out.
    #[arg(long, env = "WHEELWRIGHT_TURN_BUDGET", default_value_t = 30)]
    pub turn_budget: u64,
    /// The bearer token that may cancel hidden-test jobs (`POST /api/v1/jobs/{id}/cancel`);
    /// without one, cancelling is refused.
    #[arg(long, env = "WHEELWRIGHT_MAINTAINER_TOKEN", hide_env_values = true)]
    pub maintainer_token: Option<String>,
    /// Hidden-test jobs one client (IP address; an IPv6 client by its /64) may have queued
    /// or running at once; over it, queueing answers 429 with Retry-After.
    #[arg(long, env = "WHEELWRIGHT_MAX_JOBS_PER_CLIENT", default_value_t = crate::jobs::DEFAULT_JOBS_PER_CLIENT)]
    pub max_jobs_per_client: usize,
}

/// A memory setting (spec section 1, "Memory settings").
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MemoryArg {
    None,
    Interface,
    Source,
}

impl From<MemoryArg> for Memory {
    fn from(arg: MemoryArg) -> Self {
        match arg {
            MemoryArg::None => Memory::None,
            MemoryArg::Interface => Memory::Interface,
            MemoryArg::Source => Memory::Source,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Bwrap,
    Podman,
    Docker,
    None,
}

impl TestArgs {
    fn config(&self, test_baselines: bool) -> crate::TestConfig {
        crate::TestConfig {
            backend: match self.backend {
                BackendArg::Bwrap => Some(crate::Backend::Bwrap),
                BackendArg::Podman => Some(crate::Backend::Podman),
                BackendArg::Docker => Some(crate::Backend::Docker),
                BackendArg::None => None,
            },
            workers: self
                .test_workers
                .unwrap_or_else(crate::jobs::default_workers)
                .max(1),
            env_root: self.env_root.clone(),
            turn_timeout: std::time::Duration::from_secs(self.turn_timeout.max(1)),
            uid_base: self.uid_base,
            test_baselines,
            turn_budget: std::time::Duration::from_secs(self.turn_budget.max(1)),
            maintainer_token: self.maintainer_token.clone().filter(|t| !t.is_empty()),
            retry_delay: crate::jobs::DEFAULT_RETRY_DELAY,
            jobs_per_client: self.max_jobs_per_client.max(1),
        }
    }
}

impl From<ServeArgs> for ServeConfig {
    fn from(args: ServeArgs) -> Self {
        Self {
            addr: args.addr,
            data_dir: args.data_dir,
            app_dir: args.app_dir,
            datasets_dir: args.datasets_dir,
            cache_dir: args
                .cache_dir
                .unwrap_or_else(crate::dataset::default_cache_dir),
            tests: args.tests.config(!args.skip_baseline_tests),
            http: args.http.config(),
        }
    }
}

/// Installs the global tracing subscriber (logs go to standard error).
pub fn init_logging(level: &str, format: LogFormat) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(level)
        .with_context(|| format!("invalid --log-level {level:?}; try info or debug"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    Ok(())
}

/// Runs one parsed command line.
pub async fn execute(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => crate::run(args.into()).await,
        Command::Analyze { file, json } => analyze::run(&file, json),
        Command::Mask { file, json } => mask::run(&file, json),
        Command::Score {
            run,
            dataset,
            json,
            timings,
            workdir,
            plots,
        } => score::run(
            &run,
            &dataset,
            workdir.as_deref(),
            json,
            timings,
            plots.as_deref(),
        ),
        Command::Test {
            run,
            dataset,
            tests,
            json,
            workdir,
        } => {
            let config = tests.config(false);
            tokio::task::spawn_blocking(move || {
                test::run(&run, &dataset, workdir.as_deref(), &config, json)
            })
            .await?
        }
        Command::Trajectory {
            file,
            repo,
            workdir,
            json,
        } => trajectory::run(&file, repo.as_deref(), &workdir, json),
        Command::Actions {
            run,
            baseline,
            json,
        } => actions::run(&run, baseline.as_deref(), json),
        Command::Prepare {
            turn,
            out,
            env_root,
        } => {
            tokio::task::spawn_blocking(move || {
                let env_root = std::path::absolute(&env_root)?;
                prepare::run(&turn, &out, &env_root)
            })
            .await?
        }
        Command::Prompt { turn, memory, json } => prepare::print_prompt(&turn, memory.into(), json),
        Command::Run {
            dataset,
            agent,
            out,
            model,
            harness,
            memory,
            date,
            scaffold_version,
            notes,
            budget,
            jobs,
            chains,
            keep_workspaces,
            env_root,
        } => {
            // The agent runs in the workspace: every path it is given must be absolute.
            let options = run::RunOptions {
                dataset,
                agent,
                out: std::path::absolute(&out)
                    .with_context(|| format!("--out {}", out.display()))?,
                model,
                harness,
                memory: memory.into(),
                date,
                scaffold_version,
                notes,
                budget: std::time::Duration::from_secs(budget),
                jobs: usize::try_from(jobs).unwrap_or(1),
                chains,
                env_root: std::path::absolute(&env_root)
                    .with_context(|| format!("--env-root {}", env_root.display()))?,
                keep_workspaces,
            };
            run::execute(options).await
        }
        Command::Cce(command) => cce::execute(command),
        Command::View(args) => match args.command {
            Some(ViewCommand::Shell {
                bundle,
                repo,
                timeout,
                max_output,
                command,
            }) => {
                let bounds = view::Bounds {
                    timeout: std::time::Duration::from_secs(timeout),
                    max_output,
                };
                let code = view::shell(&bundle, &repo, &command, &bounds)?;
                std::process::exit(code)
            }
            Some(ViewCommand::Recover {
                repo,
                view,
                bundle,
                json,
            }) => view::recover_patch(&repo, &view, &bundle, json),
            Some(ViewCommand::Restate {
                statement,
                bundle,
                model,
                out,
                json,
            }) => {
                groups::interruptible("interrupted", move |groups| {
                    restate::run(
                        &restate::Restate {
                            statement: &statement,
                            bundle: &bundle,
                            model: model.model.as_deref(),
                            timeout: model.timeout(),
                            out: out.as_deref(),
                            json,
                        },
                        groups,
                    )
                })
                .await
            }
            Some(ViewCommand::Rewrite {
                repo,
                out,
                bundle,
                model,
                patch,
                seed,
                count,
                suite,
                test_args,
                json,
            }) => {
                let config = test_args.config(false);
                groups::interruptible("interrupted", move |groups| {
                    view::rewrite(
                        &view::Rewrite {
                            repo: &repo,
                            out: &out,
                            bundle: &bundle,
                            model: model.model.as_deref(),
                            timeout: model.timeout(),
                            patch: patch.as_deref(),
                            seed,
                            count,
                            suite: suite.suite(),
                            config: &config,
                            json,
                        },
                        groups,
                    )
                })
                .await
            }
            Some(ViewCommand::Check {
                repo,
                level,
                seed,
                keep,
                suite,
                test_args,
                json,
            }) => {
                let config = test_args.config(false);
                tokio::task::spawn_blocking(move || {
                    let keep = keep.into_iter().collect();
                    view::check(&repo, &level, seed, &keep, &suite.suite(), &config, json)
                })
                .await?
            }
            None if args.virtual_namespace => {
                let (Some(repo), Some(bundle)) = (args.repo, args.bundle) else {
                    anyhow::bail!("give --repo DIR and --bundle FILE");
                };
                let keep = args.keep.into_iter().collect();
                view::make_virtual(&repo, args.seed, &keep, &bundle, args.json)
            }
            None => {
                let (Some(repo), Some(out)) = (args.repo, args.out) else {
                    anyhow::bail!("give --repo DIR and --out DIR");
                };
                let keep = args.keep.into_iter().collect();
                view::make(
                    &repo,
                    &args.level,
                    args.seed,
                    &keep,
                    &out,
                    args.bundle.as_deref(),
                    args.json,
                )
            }
        },
        Command::Recube(RecubeCommand::Import {
            source,
            out,
            name,
            version,
        }) => recube::import::run(&source, &out, &name, &version),
        Command::Recube(RecubeCommand::Prepare {
            dataset,
            instance,
            out,
        }) => recube::prepare::prepare(&dataset, &instance, &out),
        Command::Recube(RecubeCommand::Prompt {
            dataset,
            instance,
            setting,
            json,
        }) => recube::prepare::prompt(&dataset, &instance, setting, json),
        Command::Recube(RecubeCommand::Verify { dir, tests, json }) => {
            let config = tests.config(false);
            tokio::task::spawn_blocking(move || recube::verify::run(&dir, &config, json)).await?
        }
        Command::Recube(RecubeCommand::Test {
            run,
            dataset,
            tests,
            workdir,
            json,
        }) => {
            let config = tests.config(false);
            tokio::task::spawn_blocking(move || {
                recube::test::run(&run, &dataset, &workdir, &config, json)
            })
            .await?
        }
        Command::Dataset(DatasetCommand::Verify {
            dir,
            python,
            cache_dir,
            skip_execution,
        }) => dataset::verify(&dir, python, cache_dir, skip_execution),
        Command::Dataset(DatasetCommand::Synthesize { dir, chains }) => {
            dataset_synthesize::synthesize(&dir, &chains)
        }
        Command::Dataset(DatasetCommand::Execute {
            dir,
            chains,
            tests,
            json,
        }) => {
            let config = tests.config(false);
            tokio::task::spawn_blocking(move || {
                dataset_execute::execute(&dir, &chains, &config, json)
            })
            .await?
        }
        Command::Dataset(DatasetCommand::Audit { dir, tests, json }) => {
            let config = tests.config(false);
            tokio::task::spawn_blocking(move || dataset_audit::audit(&dir, &config, json)).await?
        }
        Command::Dataset(DatasetCommand::Stats { dir, json }) => dataset_stats::stats(&dir, json),
        Command::Dataset(DatasetCommand::Map {
            repo,
            dir,
            out,
            json,
            python,
            cache_dir,
        }) => {
            let source = match (repo, dir) {
                (Some(repo), _) => dataset_map::MapSource::Pypi(repo),
                (None, Some(dir)) => dataset_map::MapSource::Dir(dir),
                (None, None) => anyhow::bail!("give --repo NAME==VERSION or --dir DIR"),
            };
            dataset_map::map(&source, &python, cache_dir, out.as_deref(), json)
        }
        Command::Dataset(DatasetCommand::Walk {
            map,
            repo,
            dir,
            chain,
            turn,
            earlier,
            seed,
            start,
            model,
            out,
            json,
            python,
            cache_dir,
        }) => {
            let source = match (repo, dir) {
                (Some(repo), _) => dataset_map::MapSource::Pypi(repo),
                (None, Some(dir)) => dataset_map::MapSource::Dir(dir),
                (None, None) => anyhow::bail!("give --repo NAME==VERSION or --dir DIR"),
            };
            groups::interruptible("interrupted", move |groups| {
                dataset_walk::run(
                    &dataset_walk::Walk {
                        map: &map,
                        source: &source,
                        python: &python,
                        cache_dir,
                        chain: &chain,
                        turn,
                        earlier: earlier.as_deref(),
                        seed,
                        start: start.as_deref(),
                        model: model.model.as_deref(),
                        timeout: model.timeout(),
                        out: &out,
                        json,
                    },
                    groups,
                )
            })
            .await
        }
    }
}
