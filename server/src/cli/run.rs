//! `wheelwright run`: drives an agent command through a RepoReuse dataset's chains turn by turn and writes the run bundle; resumable, chains in parallel.
//!
//! For each turn the driver writes the workspace W_{t-1} ([`super::prepare`]) and the
//! prompt (`core::reporeuse::prompt`), runs the agent command in the workspace with the
//! prompt on standard input and a wall-time budget, and reads back the file at the turn's
//! module path and the trajectory. The agent's own file goes into the next turn's
//! workspace whatever happened: a failed turn does not end the chain.
//!
//! Everything lives under `--out`:
//!
//! ```text
//! bundle/metadata.json                            the run bundle (docs/formats.md)
//! bundle/chains/<chain>/turn-<t>/files/<path>     what the agent left at the module path
//! bundle/chains/<chain>/turn-<t>/trajectory.json  its trajectory, paths made the dataset's workdir
//! work/<chain>/turn-<t>/                          prompt.md, agent.log, outcome.json (and the workspace while it runs)
//! run.jsonl.gz                                    the bundle as one file, once every turn is done
//! ```
//!
//! A turn is done once its directory is in `bundle/`: it is staged under `work/` and
//! renamed into place in one step, so a run killed at any moment resumes at the first
//! turn of each chain whose directory is missing, and no finished turn runs twice.
//!
//! Every file under `--out` is read and written through [`crate::no_follow`]: no link
//! below `--out` is followed, and a link or a special file where the run keeps its own
//! files stops it with a message naming the path, so a link planted there cannot bring
//! another file into the prompts or the bundle.

use std::io::{IsTerminal, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use wheelwright_core::bundle::{COMMAND_LINE_LIMITS, DatasetRef, Metadata};
use wheelwright_core::reporeuse::dataset::Chain;
use wheelwright_core::reporeuse::prompt::{Memory, TEMPLATE_VERSION, turn_prompt};

use super::groups::{ProcessGroups, interruptible, kill_group};
use super::prepare::Preparer;
use crate::no_follow::{Kind, Refused, Tree};

/// Largest file or trajectory read back from a turn (the bundle's limit for one file).
const READ_BACK_LIMIT: u64 = 16 << 20;

/// What `wheelwright run` was asked to do.
pub(super) struct RunOptions {
    pub(super) dataset: PathBuf,
    /// The agent command, run with `sh -c` in each turn's workspace.
    pub(super) agent: String,
    pub(super) out: PathBuf,
    pub(super) model: String,
    pub(super) harness: String,
    pub(super) memory: Memory,
    /// `YYYY-MM-DD`; today (UTC) when not given.
    pub(super) date: Option<String>,
    pub(super) scaffold_version: Option<String>,
    pub(super) notes: Option<String>,
    /// Wall time one turn's agent may take.
    pub(super) budget: Duration,
    /// Chains run at once.
    pub(super) jobs: usize,
    /// Only these chains (all when empty).
    pub(super) chains: Vec<String>,
    pub(super) env_root: PathBuf,
    /// Keep each turn's workspace under `work/` after the turn.
    pub(super) keep_workspaces: bool,
}

/// How one turn went, written to `work/<chain>/turn-<t>/outcome.json` and printed.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TurnOutcome {
    chain: String,
    turn: usize,
    /// The prompt's template version and memory setting.
    template: String,
    memory: Memory,
    /// `exited 0`, `killed by signal 9`, `over the budget of 60 s`.
    end: String,
    seconds: f64,
    /// Whether a file was read back from the module path.
    file: bool,
    trajectory: bool,
    notes: Vec<String>,
}

/// How long an agent over its budget has, after SIGINT, to write its trajectory
/// (mini-SWE-agent saves it on SIGINT, not on SIGTERM) before it is killed.
const GRACE: Duration = Duration::from_secs(10);

/// Stops the agent `child` (process group `pgid`) over its budget: SIGINT, up to [`GRACE`]
/// to exit, then SIGKILL.
fn stop_group(pgid: i32, child: &mut std::process::Child) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGINT,
    );
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    kill_group(pgid);
    let _ = child.wait();
}

/// `wheelwright run`, from the runtime: the run in a blocking task, with Ctrl-C and SIGTERM
/// handled.
pub(super) async fn execute(options: RunOptions) -> anyhow::Result<()> {
    // The same command resumes after an interruption.
    interruptible(
        "interrupted; run the same command again to resume",
        move |groups| run(&options, groups),
    )
    .await
}

/// Runs every unfinished turn of the chosen chains and writes `run.jsonl.gz` at the end.
fn run(options: &RunOptions, groups: &ProcessGroups) -> anyhow::Result<()> {
    if options.agent.trim().is_empty() {
        anyhow::bail!("--agent is empty; give the command that runs your agent on one turn");
    }
    let (dataset, _) = super::io::read_dataset(&options.dataset, None)?;
    // The chains asked for, checked before anything is written.
    let chain_ids: Vec<String> = if options.chains.is_empty() {
        dataset
            .chains
            .iter()
            .map(|c| c.manifest.id.clone())
            .collect()
    } else {
        for id in &options.chains {
            if !dataset.chains.iter().any(|c| &c.manifest.id == id) {
                anyhow::bail!("the dataset has no chain {id:?} (--chain)");
            }
        }
        options.chains.clone()
    };
    let wanted = wanted_metadata(options, &dataset.manifest)?;
    let out = Tree::create(&options.out)?;
    settle_metadata(options, &out, &wanted)?;
    settle_driver(options, &out)?;
    let preparer = Preparer::new(
        dataset,
        &chain_ids,
        &crate::dataset::default_cache_dir(),
        &options.env_root,
    )?;
    let chains: Vec<&Chain> = chain_ids
        .iter()
        .filter_map(|id| {
            preparer
                .dataset
                .chains
                .iter()
                .find(|c| &c.manifest.id == id)
        })
        .collect();
    let total: usize = chains.iter().map(|c| c.turns.len()).sum();
    let mut done = 0;
    for chain in &chains {
        done += first_unfinished(&out, chain)? - 1;
    }
    let progress = Progress::new(total, done);
    if done > 0 {
        progress.say(&format!(
            "resuming {}: {done} of {total} turns are done",
            options.out.display()
        ));
    }
    let driver = Driver {
        options,
        preparer: &preparer,
        out: &out,
        groups,
    };
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.clamp(1, chains.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(chain) = chains.get(i) else { break };
                    if failure.lock().map(|f| f.is_some()).unwrap_or(true) {
                        break;
                    }
                    let driven = driver
                        .drive_chain(chain, &progress)
                        .with_context(|| format!("chain {}", chain.manifest.id));
                    if let Err(e) = driven {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        break;
                    }
                }
            });
        }
    });
    progress.finish();
    if let Some(e) = failure
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return Err(e.context(format!(
            "the run stopped; run the same command again to resume it from {}",
            options.out.display()
        )));
    }
    write_single_file(&out, chains.len())
}

/// The run's metadata, from the options, checked before anything is written.
fn wanted_metadata(
    options: &RunOptions,
    manifest: &wheelwright_core::reporeuse::dataset::DatasetManifest,
) -> anyhow::Result<Metadata> {
    let wanted = Metadata {
        model: options.model.clone(),
        harness: options.harness.clone(),
        memory: options.memory.name().to_owned(),
        date: options.date.clone().unwrap_or_else(today),
        dataset: DatasetRef {
            name: manifest.name.clone(),
            version: manifest.version.clone(),
        },
        cost_usd: None,
        scaffold_version: options.scaffold_version.clone(),
        notes: options.notes.clone(),
    };
    wanted
        .check()
        .map_err(|e| anyhow::anyhow!("the run's metadata is refused: {e}"))?;
    Ok(wanted)
}

/// Checks the run's metadata against `bundle/metadata.json` when resuming, else writes it.
fn settle_metadata(options: &RunOptions, out: &Tree, wanted: &Metadata) -> anyhow::Result<()> {
    let rel = Path::new("bundle/metadata.json");
    if let Some(text) = out.read_text(rel, READ_BACK_LIMIT)? {
        let stored: Metadata = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a run's metadata", out.path(rel).display()))?;
        let same = stored.model == wanted.model
            && stored.harness == wanted.harness
            && stored.memory == wanted.memory
            && stored.dataset == wanted.dataset;
        if !same {
            anyhow::bail!(
                "{} holds a run of {} ({}, memory {}) on {} {}; resume it with the same --model, --harness, --memory and --dataset, or give another --out",
                options.out.display(),
                stored.model,
                stored.harness,
                stored.memory,
                stored.dataset.name,
                stored.dataset.version
            );
        }
        return Ok(());
    }
    out.write(rel, &serde_json::to_vec_pretty(wanted)?)?;
    Ok(())
}

/// How the turns of a run were driven, kept in `work/driver.json` so that a resumed run
/// asks its turns what the first part asked.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct DriverState {
    /// The prompt template's version.
    template: String,
    agent: String,
    budget_seconds: u64,
}

/// Refuses to resume a run whose turns were asked with another prompt template, notes a
/// changed agent command or budget, and records this invocation's.
fn settle_driver(options: &RunOptions, out: &Tree) -> anyhow::Result<()> {
    let rel = Path::new("work/driver.json");
    let now = DriverState {
        template: TEMPLATE_VERSION.to_owned(),
        agent: options.agent.clone(),
        budget_seconds: options.budget.as_secs(),
    };
    if let Some(text) = out.read_text(rel, READ_BACK_LIMIT)? {
        let before: DriverState = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a driver's state", out.path(rel).display()))?;
        if before.template != now.template {
            anyhow::bail!(
                "{}'s turns were asked with the prompt template {}, this wheelwright asks with {}; a run's turns must share one template: finish it with the wheelwright that began it, or give another --out",
                options.out.display(),
                before.template,
                now.template
            );
        }
        if before.agent != now.agent || before.budget_seconds != now.budget_seconds {
            eprintln!(
                "note: the agent command or budget differs from the one the run began with; the remaining turns use this one"
            );
        }
    }
    out.write(rel, &serde_json::to_vec_pretty(&now)?)?;
    Ok(())
}

/// Turn number of the first turn of `chain` without a directory in the bundle
/// (`turns + 1` when all are done); a link or a file where a turn's directory belongs is
/// refused.
fn first_unfinished(out: &Tree, chain: &Chain) -> anyhow::Result<usize> {
    for t in 1..=chain.turns.len() {
        let rel = turn_dir(&chain.manifest.id, t);
        match out.kind(&rel)? {
            Some(Kind::Dir) => {}
            None => return Ok(t),
            Some(Kind::File) => {
                anyhow::bail!(
                    "{} is a file, where the directory of a finished turn belongs: remove it or start a new --out",
                    out.path(&rel).display()
                )
            }
        }
    }
    Ok(chain.turns.len() + 1)
}

/// `bundle/chains/<chain>/turn-<turn>`, below `--out`.
fn turn_dir(chain: &str, turn: usize) -> PathBuf {
    Path::new("bundle/chains")
        .join(chain)
        .join(format!("turn-{turn}"))
}

/// What every turn of a run shares.
struct Driver<'a> {
    options: &'a RunOptions,
    preparer: &'a Preparer,
    /// `--out`, never followed through a link below it.
    out: &'a Tree,
    groups: &'a ProcessGroups,
}

impl Driver<'_> {
    /// Runs the unfinished turns of `chain`, in order.
    fn drive_chain(&self, chain: &Chain, progress: &Progress) -> anyhow::Result<()> {
        let out = self.out;
        let id = &chain.manifest.id;
        let bar = progress.chain_bar(id, chain.turns.len());
        // The agent's module file of each finished turn, in order.
        let mut earlier: Vec<Option<String>> = Vec::new();
        let first = first_unfinished(out, chain)?;
        // A later turn left in the bundle (its directory kept while an earlier one was
        // deleted by hand) was made on a workspace that no longer holds: it is redone.
        for t in first + 1..=chain.turns.len() {
            if out.remove_dir_all(&turn_dir(id, t))? {
                progress.say(&format!(
                    "{id} turn {t}: redone, since turn {first} before it is redone"
                ));
            }
        }
        for t in 1..first {
            // Missing when the turn left no file; anything but the regular file the
            // driver wrote there stops the run.
            let path = &chain.turns[t - 1].manifest.module_path;
            let file = turn_dir(id, t).join("files").join(path);
            earlier.push(out.read_text(&file, READ_BACK_LIMIT)?);
            bar.inc(1);
        }
        for t in first..=chain.turns.len() {
            let (outcome, file) = self.drive_turn(chain, t, &earlier, &bar)?;
            earlier.push(file);
            progress.turn_done(&outcome);
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Prepares, runs and collects turn `t` of `chain`; on return its directory is in the
    /// bundle. With how it went, the file the agent left at the module path.
    fn drive_turn(
        &self,
        chain: &Chain,
        t: usize,
        earlier: &[Option<String>],
        bar: &ProgressBar,
    ) -> anyhow::Result<(TurnOutcome, Option<String>)> {
        let Self {
            options,
            preparer,
            out,
            groups,
        } = *self;
        let id = &chain.manifest.id;
        let turn = &chain.turns[t - 1];
        let module_path = &turn.manifest.module_path;
        // Paths below --out; the agent is given them whole.
        let scratch = Path::new("work").join(id).join(format!("turn-{t}"));
        // Whatever an interrupted attempt left is redone from scratch.
        out.remove_dir_all(&scratch)?;
        let workspace_rel = scratch.join("workspace");
        out.create_dir_all(&workspace_rel)?;
        bar.set_message(format!("turn {t}: preparing the workspace"));
        let earlier_files: Vec<(String, String)> = chain.turns[..t - 1]
            .iter()
            .zip(earlier)
            .filter_map(|(turn, text)| Some((turn.manifest.module_path.clone(), text.clone()?)))
            .collect();
        preparer.write(chain, t, &earlier_files, &out.path(&workspace_rel))?;
        let repository = preparer.repository(chain)?;
        let workspace = out.path(&workspace_rel).canonicalize()?;
        let prompt = turn_prompt(chain, t, options.memory, earlier);
        let prompt_rel = scratch.join("prompt.md");
        out.write(&prompt_rel, prompt.text.as_bytes())?;
        let prompt_path = out.path(&prompt_rel);
        let trajectory_rel = scratch.join("trajectory.json");
        let trajectory_path = out.path(&trajectory_rel);
        // The agent's standard input; O_NONBLOCK, which opened it, means nothing to a
        // regular file.
        let (prompt_file, _) = out
            .open(&prompt_rel)?
            .with_context(|| format!("{} went missing", prompt_path.display()))?;

        let started = Instant::now();
        let log = out.create_new(&scratch.join("agent.log"))?;
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&options.agent)
            .current_dir(&workspace)
            .stdin(prompt_file)
            .stdout(log.try_clone()?)
            .stderr(log)
            .env("WHEELWRIGHT_PROMPT_FILE", &prompt_path)
            .env("WHEELWRIGHT_TRAJECTORY", &trajectory_path)
            .env("WHEELWRIGHT_WORKSPACE", &workspace)
            .env("WHEELWRIGHT_MODULE_PATH", module_path)
            .env("WHEELWRIGHT_CHAIN", id)
            .env("WHEELWRIGHT_TURN", t.to_string())
            .env("WHEELWRIGHT_TEMPLATE", &prompt.template)
            .env(
                "WHEELWRIGHT_BUDGET_SECONDS",
                options.budget.as_secs().to_string(),
            )
            .env("WHEELWRIGHT_PYTHON", &repository.python)
            .env(
                "VIRTUAL_ENV",
                repository.bin.parent().unwrap_or(&repository.bin),
            )
            .env("PATH", path_with(&repository.bin))
            .env("PYTHONPATH", &workspace)
            // Its own process group: the budget and an interruption kill everything it started.
            .process_group(0);
        bar.set_message(format!("turn {t}: agent running"));
        let mut child = command
            .spawn()
            .with_context(|| format!("starting the agent command {:?}", options.agent))?;
        let pgid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        groups.add(pgid);
        let end = loop {
            if let Some(status) = child.try_wait()? {
                break describe(status);
            }
            let elapsed = started.elapsed();
            if elapsed >= options.budget {
                stop_group(pgid, &mut child);
                break format!("over the budget of {} s", options.budget.as_secs());
            }
            bar.set_message(format!("turn {t}: agent running, {} s", elapsed.as_secs()));
            std::thread::sleep(Duration::from_millis(100));
        };
        groups.remove(pgid);
        let seconds = started.elapsed().as_secs_f64();

        bar.set_message(format!("turn {t}: collecting"));
        let mut notes = Vec::new();
        // Made now, after the agent: it must not find one there.
        let staged = scratch.join("staged");
        out.create_dir(&staged)?;
        let kept = match read_back(out, &workspace_rel.join(module_path)) {
            Ok(Some(text)) => {
                out.create_new(&staged.join("files").join(module_path))?
                    .write_all(text.as_bytes())
                    .with_context(|| {
                        format!(
                            "writing the turn's file into {}",
                            out.path(&staged).display()
                        )
                    })?;
                Some(text)
            }
            Ok(None) => {
                notes.push(format!("no file at {module_path}: the turn scores zero"));
                None
            }
            Err(why) => {
                notes.push(format!("the file at {module_path} was not kept: {why}"));
                None
            }
        };
        let trajectory = match read_back(out, &trajectory_rel) {
            Ok(Some(text)) if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() => {
                let text = relocate(&text, &workspace, &preparer.dataset.manifest.workdir);
                out.write(&staged.join("trajectory.json"), text.as_bytes())?;
                true
            }
            Ok(Some(_)) => {
                notes.push("the trajectory is not JSON; left out".to_owned());
                false
            }
            Ok(None) => {
                notes.push("no trajectory was written to $WHEELWRIGHT_TRAJECTORY".to_owned());
                false
            }
            Err(why) => {
                notes.push(format!("the trajectory was not kept: {why}"));
                false
            }
        };
        let outcome = TurnOutcome {
            chain: id.clone(),
            turn: t,
            template: prompt.template.clone(),
            memory: prompt.memory,
            end,
            seconds,
            file: kept.is_some(),
            trajectory,
            notes,
        };
        out.write(
            &scratch.join("outcome.json"),
            &serde_json::to_vec_pretty(&outcome)?,
        )?;
        if !options.keep_workspaces {
            out.remove_dir_all(&workspace_rel)?;
        }
        // The one step that makes the turn done.
        let target = turn_dir(id, t);
        out.rename(&staged, &target)
            .with_context(|| format!("moving the turn into {}", out.path(&target).display()))?;
        Ok((outcome, kept))
    }
}

/// `PATH` with `bin` first.
fn path_with(bin: &Path) -> std::ffi::OsString {
    let mut paths = vec![bin.to_owned()];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(paths).unwrap_or_else(|_| bin.as_os_str().to_owned())
}

/// How the agent's process ended, in words.
fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

/// The text of the agent's regular file `rel` below `--out` (`None` when there is none);
/// refused, with the reason in words, when it or a directory on its way is a link, when
/// it is another kind of file, over [`READ_BACK_LIMIT`], or not UTF-8. The agent may leave
/// anything in its workspace: what it left is judged here, it does not stop the run.
fn read_back(out: &Tree, rel: &Path) -> Result<Option<String>, String> {
    out.read_text(rel, READ_BACK_LIMIT).map_err(|e| match e {
        Refused::Link(path) => format!(
            "{} is a symbolic link, and links are never followed",
            path.display()
        ),
        Refused::Kind { path, kind, .. } => format!("{} is {kind}", path.display()),
        Refused::TooLarge { size, limit, .. } => {
            format!("it is {size} bytes, over the bundle's {limit} a file")
        }
        Refused::NotText(_) => "it is not UTF-8 text".to_owned(),
        other => other.to_string(),
    })
}

/// `trajectory` with the workspace's real path replaced by the dataset's `workdir`, so the
/// scorer reads the agent's absolute paths as it reads everyone's.
fn relocate(trajectory: &str, workspace: &Path, workdir: &str) -> String {
    let real = workspace.to_string_lossy();
    trajectory.replace(real.as_ref(), workdir)
}

/// Reads the finished bundle back with the reader uploads go through and writes it as
/// `run.jsonl.gz`, the one file to upload.
fn write_single_file(out: &Tree, chains: usize) -> anyhow::Result<()> {
    // Whether any turn's directory holds anything; links and special files are refused on
    // the way (the bundle's reader refuses them below `bundle/` too).
    let mut any_turn = false;
    let chains_rel = Path::new("bundle/chains");
    'chains: for (chain, kind) in out.entries(chains_rel)? {
        if kind != Kind::Dir {
            continue;
        }
        for (turn, kind) in out.entries(&chains_rel.join(&chain))? {
            if kind == Kind::Dir && !out.entries(&chains_rel.join(&chain).join(turn))?.is_empty() {
                any_turn = true;
                break 'chains;
            }
        }
    }
    if !any_turn {
        anyhow::bail!(
            "every turn ran, but none left a file or a trajectory, so there is nothing to upload; see what the agent said in {}/work/<chain>/turn-<t>/agent.log, then start again with another --out",
            out.root().display()
        );
    }
    // The reader takes a path: `bundle` itself is checked to be a directory, not a link.
    let bundle_rel = Path::new("bundle");
    if out.kind(bundle_rel)? != Some(Kind::Dir) {
        anyhow::bail!(
            "{} is not a directory; start a new --out",
            out.path(bundle_rel).display()
        );
    }
    let bundle_dir = out.path(bundle_rel);
    let bundle = crate::bundle::read_path(&bundle_dir, COMMAND_LINE_LIMITS)
        .with_context(|| format!("reading back the bundle in {}", bundle_dir.display()))?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bundle.to_jsonl().as_bytes())?;
    let rel = Path::new("run.jsonl.gz");
    out.write(rel, &encoder.finish()?)?;
    let path = out.path(rel);
    let with_file = bundle
        .predictions
        .values()
        .filter(|p| !p.files.is_empty())
        .count();
    println!(
        "run complete: {chains} chains, {} turns, {with_file} with a file; the bundle is {} (upload {})",
        bundle.predictions.len(),
        bundle_dir.display(),
        path.display()
    );
    Ok(())
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    civil_date(i64::try_from(days).unwrap_or(0))
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The progress bars (one per running chain and one for all turns) on a terminal, plain
/// lines otherwise.
struct Progress {
    multi: Option<MultiProgress>,
    all: ProgressBar,
}

impl Progress {
    fn new(total: usize, done: usize) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self {
                multi: None,
                all: ProgressBar::hidden(),
            };
        }
        let multi = MultiProgress::new();
        let all = multi.add(ProgressBar::new(total as u64));
        all.set_style(
            ProgressStyle::with_template("all chains {bar:40} {pos}/{len} turns, {elapsed} so far")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        all.set_position(done as u64);
        Self {
            multi: Some(multi),
            all,
        }
    }

    fn chain_bar(&self, chain: &str, turns: usize) -> ProgressBar {
        let Some(multi) = &self.multi else {
            return ProgressBar::hidden();
        };
        let bar = multi.add(ProgressBar::new(turns as u64));
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{chain:>20} {{bar:20}} {{pos}}/{{len}} {{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    }

    fn turn_done(&self, outcome: &TurnOutcome) {
        self.all.inc(1);
        let mut line = format!(
            "{} turn {}: {}, {:.0} s, {}",
            outcome.chain,
            outcome.turn,
            outcome.end,
            outcome.seconds,
            if outcome.file { "file kept" } else { "no file" }
        );
        for note in &outcome.notes {
            line.push_str("; ");
            line.push_str(note);
        }
        self.say(&line);
    }

    fn say(&self, line: &str) {
        match &self.multi {
            Some(multi) => {
                let _ = multi.println(line);
            }
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        self.all.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_across_leap_years_and_centuries() {
        for (days, date) in [
            (0, "1970-01-01"),
            (59, "1970-03-01"),
            (11_016, "2000-02-29"),
            (11_017, "2000-03-01"),
            (20_791, "2026-12-04"),
            (-1, "1969-12-31"),
        ] {
            assert_eq!(civil_date(days), date, "{days}");
        }
    }

    #[test]
    fn relocating_rewrites_only_the_workspace_path() {
        let text =
            r#"{"cmd": "cat /tmp/r/work/c/turn-1/workspace/pkg/a.py", "other": "/tmp/r/work"}"#;
        let out = relocate(
            text,
            Path::new("/tmp/r/work/c/turn-1/workspace"),
            "/testbed",
        );
        assert_eq!(
            out,
            r#"{"cmd": "cat /testbed/pkg/a.py", "other": "/tmp/r/work"}"#
        );
    }
}
