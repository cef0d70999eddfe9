//! A user's language-model command asked one prompt: the prompt on its standard input, its answer read from standard output, within a time and size bound.
//!
//! The command runs through `sh -c` in its own process group (as `run --agent` runs an
//! agent), so a timeout, an answer over [`MAX_ANSWER`] or an interruption of this process
//! kills everything it started, not only the shell. `WHEELWRIGHT_TEMPLATE` names the
//! prompt's template, for a command that wants to know the stage without reading it.
//! Example: `--model 'llm -m gpt-4o'`, or a script that calls an API.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use wheelwright_core::template::Prompt;

use super::groups::ProcessGroups;

/// The largest answer read from the model; a longer one is refused (a statement or a
/// function, not a book).
const MAX_ANSWER: usize = 1 << 20;
/// How much of the model's standard error an error message shows.
const STDERR_SHOWN: usize = 2000;

/// The model command and how long one answer may take.
pub(super) struct Model<'a> {
    pub(super) command: &'a str,
    pub(super) timeout: Duration,
    /// Where its process group is kept while it runs, so that Ctrl-C kills it too.
    pub(super) groups: &'a ProcessGroups,
}

impl Model<'_> {
    /// The model's answer to `prompt`; an error when it fails, exceeds its time or answers
    /// too much, or writes no UTF-8.
    pub(super) fn ask(&self, prompt: &Prompt) -> anyhow::Result<String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("WHEELWRIGHT_TEMPLATE", prompt.template)
            // Its own process group: a timeout kills everything it started.
            .process_group(0)
            .spawn()
            .with_context(|| format!("starting the model command {:?}", self.command))?;
        let pgid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        self.groups.add(pgid);
        // Fed and drained by threads: a model that answers before it has read the whole
        // prompt must not block on a full pipe while this waits to write.
        let mut stdin = child.stdin.take().context("the model's standard input")?;
        let text = prompt.text.clone();
        let feeder = std::thread::spawn(move || {
            // A model that exits without reading its prompt is judged by its exit status.
            let _ = stdin.write_all(text.as_bytes());
        });
        let stdout = child.stdout.take().context("the model's standard output")?;
        let over = Arc::new(AtomicBool::new(false));
        let reader = std::thread::spawn({
            let over = Arc::clone(&over);
            move || {
                let mut answer = Vec::new();
                let read = stdout.take(MAX_ANSWER as u64 + 1).read_to_end(&mut answer);
                if answer.len() > MAX_ANSWER {
                    over.store(true, Ordering::Relaxed);
                }
                read.map(|_| answer)
            }
        });
        let stderr = child.stderr.take().context("the model's standard error")?;
        let errors = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.take(1 << 16).read_to_end(&mut text);
            text
        });
        let started = Instant::now();
        let end = loop {
            if let Some(status) = child.try_wait()? {
                break Ok(status);
            }
            if over.load(Ordering::Relaxed) {
                break Err(format!(
                    "answered more than {} KiB to the {} prompt; give a command that answers with the text asked for only",
                    MAX_ANSWER >> 10,
                    prompt.template
                ));
            }
            if started.elapsed() >= self.timeout {
                break Err(format!(
                    "gave no answer to the {} prompt within {} s; give it more with --timeout",
                    prompt.template,
                    self.timeout.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Whatever the shell left behind goes with it; the pipes then close.
        self.groups.remove(pgid);
        let _ = child.wait();
        let _ = feeder.join();
        let stderr = String::from_utf8_lossy(&errors.join().unwrap_or_default()).into_owned();
        let answer = reader
            .join()
            .map_err(|_| anyhow::anyhow!("reading the model's answer failed"))?
            .context("reading the model's answer")?;
        let status =
            end.map_err(|why| anyhow::anyhow!("the model command {:?} {why}", self.command))?;
        if !status.success() {
            bail!(
                "the model command {:?} failed ({status}) on the {} prompt; its standard error ends:\n{}",
                self.command,
                prompt.template,
                wheelwright_core::hidden_tests::truncate(&stderr, STDERR_SHOWN)
            );
        }
        if answer.len() > MAX_ANSWER {
            bail!(
                "the model command {:?} answered more than {} KiB to the {} prompt; give a command that answers with the text asked for only",
                self.command,
                MAX_ANSWER >> 10,
                prompt.template
            );
        }
        String::from_utf8(answer)
            .map_err(|_| anyhow::anyhow!("the model's answer to {} is not UTF-8", prompt.template))
    }
}

/// Prompts answered from a bundle's record when it holds the answer, else by the model
/// (levels 1 and 4 replay a recorded view this way), counting both.
pub(super) struct Answers<'a> {
    model: Option<Model<'a>>,
    /// The bundle the record came from, named when an answer is missing and no model given.
    bundle: &'a Path,
    /// No progress lines on standard error (`--json`).
    quiet: bool,
    pub(super) asked: usize,
    pub(super) replayed: usize,
}

impl<'a> Answers<'a> {
    pub(super) fn new(
        command: Option<&'a str>,
        timeout: Duration,
        groups: &'a ProcessGroups,
        bundle: &'a Path,
        quiet: bool,
    ) -> Self {
        Self {
            model: command.map(|command| Model {
                command,
                timeout,
                groups,
            }),
            bundle,
            quiet,
            asked: 0,
            replayed: 0,
        }
    }

    /// The answer to `prompt` about `what` (`the statement`, a function): `recorded` when
    /// the record has it, else the model's; an error naming the bundle when neither can.
    pub(super) fn answer(
        &mut self,
        recorded: Option<&str>,
        prompt: &Prompt,
        what: &str,
    ) -> anyhow::Result<String> {
        if let Some(answer) = recorded {
            self.replayed += 1;
            return Ok(answer.to_owned());
        }
        let Some(model) = &self.model else {
            bail!(
                "{} records no answer to the {} prompt for {what}; give --model CMD to ask a model",
                self.bundle.display(),
                prompt.template
            );
        };
        if !self.quiet {
            eprintln!("asking the model: {} for {what}", prompt.template);
        }
        self.asked += 1;
        model.ask(prompt)
    }
}
