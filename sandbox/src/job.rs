//! What a job asks for (`Job`, `Limits`) and what it produced (`Outcome`, `Status`).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::error::SandboxError;

/// One run of untrusted code.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Files copied into the workspace before the command runs: a relative path (no `..`, not
    /// absolute) and its bytes. The originals stay read-only under `/in` in the sandbox.
    pub inputs: Vec<(String, Vec<u8>)>,
    /// A read-only Python environment (a venv from [`crate::ensure_env`]), bound at the same
    /// path inside the sandbox; its `bin/` comes first on `PATH` and `VIRTUAL_ENV` points to it.
    pub env_dir: Option<PathBuf>,
    /// Trusted files of the host (the judge's runner, the case list): a relative path and its
    /// bytes, shown read-only under `/judge` and never copied into the workspace, so nothing
    /// a submission leaves can stand in for them.
    pub judge: Vec<(String, Vec<u8>)>,
    /// The command, run in the workspace (`/work`), e.g. `["python", "-I", "/judge/run.py"]`.
    pub argv: Vec<String>,
    /// What comes back besides the output.
    pub collect: Collect,
    /// Resource limits.
    pub limits: Limits,
    /// Raised by the host to stop the job early (a cancelled run): everything is killed as
    /// at the wall limit, and the status is [`Status::Stopped`].
    pub stop: Option<StopFlag>,
}

/// A flag the host raises to stop a running job; clones share it.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl StopFlag {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the job (within about 50 ms) or, if it has not started, stops it at its start.
    pub fn raise(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_raised(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Two flags are equal when they are the same flag.
impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Job {
    /// A job running `argv` with no inputs, no environment, nothing collected, default limits.
    pub fn command<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Job {
            inputs: Vec::new(),
            judge: Vec::new(),
            env_dir: None,
            argv: argv.into_iter().map(Into::into).collect(),
            collect: Collect::Nothing,
            limits: Limits::default(),
            stop: None,
        }
    }

    /// Checks the job before anything is created for it.
    pub(crate) fn validate(&self) -> Result<(), SandboxError> {
        if self.argv.is_empty() {
            return Err(SandboxError::InvalidJob(
                "the command (argv) is empty".into(),
            ));
        }
        if self.argv.iter().any(|a| a.contains('\0')) {
            return Err(SandboxError::InvalidJob(
                "an argument contains a NUL byte".into(),
            ));
        }
        for (path, _) in &self.inputs {
            check_relative(path, "input")?;
        }
        for (path, _) in &self.judge {
            check_relative(path, "judge")?;
        }
        if let Collect::File(path) = &self.collect {
            check_relative(path, "collect")?;
        }
        if let Some(env) = &self.env_dir {
            if !env.is_absolute() || env.to_str().is_none_or(|s| s.contains('\0')) {
                return Err(SandboxError::InvalidJob(format!(
                    "env_dir {} must be an absolute UTF-8 path",
                    env.display()
                )));
            }
            // Binding over the sandbox's own mount points would hide the workspace or inputs.
            if ["/work", "/in", "/proc", "/dev", "/usr", "/tmp"]
                .iter()
                .any(|m| env.starts_with(m))
            {
                return Err(SandboxError::InvalidJob(format!(
                    "env_dir {} lies under a path the sandbox mounts itself; build environments \
                     under {}",
                    env.display(),
                    crate::DEFAULT_ENV_ROOT
                )));
            }
        }
        let total: u64 = self
            .inputs
            .iter()
            .chain(&self.judge)
            .map(|(_, b)| b.len() as u64)
            .sum();
        if total > self.limits.workspace_bytes {
            return Err(SandboxError::InvalidJob(format!(
                "the inputs ({total} bytes) do not fit the workspace ({} bytes): raise \
                 limits.workspace_bytes",
                self.limits.workspace_bytes
            )));
        }
        self.limits.validate()
    }
}

/// What a job sends back to the host besides its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Collect {
    /// Nothing.
    Nothing,
    /// One result file, read by the sandbox's init after the command and everything it
    /// started are gone: a relative path in the workspace, e.g. `report.xml`.
    File(String),
    /// A stream the command writes as it goes: its fd 4 is the result channel. Whatever it
    /// wrote (up to `limits.collect_bytes`) comes back, also when the job times out, so
    /// results written before the limit still count. Anything in the sandbox can write to
    /// it, so the host must treat every byte as the submission's.
    Stream,
}

impl Collect {
    /// The wrapper's first argument: `none`, `file:<path>` or `stream`.
    pub(crate) fn wrapper_arg(&self) -> String {
        match self {
            Collect::Nothing => "none".to_owned(),
            Collect::File(path) => format!("file:{path}"),
            Collect::Stream => "stream".to_owned(),
        }
    }
}

/// A path inside the workspace: relative, normal components only.
fn check_relative(path: &str, what: &str) -> Result<(), SandboxError> {
    let p = Path::new(path);
    let normal = !path.is_empty()
        && !path.contains('\0')
        && p.components().all(|c| matches!(c, Component::Normal(_)));
    if normal {
        Ok(())
    } else {
        Err(SandboxError::InvalidJob(format!(
            "{what} path {path:?} must be relative without `..` or `.`"
        )))
    }
}

/// Resource limits of one job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Wall-clock time from start until everything is killed.
    pub wall: Duration,
    /// Memory of all processes together, the workspace's files included (tmpfs is memory).
    pub memory_bytes: u64,
    /// Processes and threads together.
    pub pids: u64,
    /// CPU time per wall time, in cores.
    pub cpu: f64,
    /// Size of the workspace tmpfs.
    pub workspace_bytes: u64,
    /// Captured stdout and stderr together; the rest is read and discarded.
    pub output_bytes: usize,
    /// Largest result file or stream read back; a larger one is not collected.
    pub collect_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(600),
            memory_bytes: 2 << 30,
            pids: 256,
            cpu: 1.0,
            workspace_bytes: 256 << 20,
            output_bytes: 1 << 20,
            collect_bytes: 8 << 20,
        }
    }
}

impl Limits {
    fn validate(&self) -> Result<(), SandboxError> {
        let bad = |what: &str| Err(SandboxError::InvalidJob(format!("limits.{what}")));
        if self.wall.is_zero() {
            return bad("wall must be positive");
        }
        // Below this even the interpreter cannot start; the kernel would also refuse tiny values.
        if self.memory_bytes < 16 << 20 {
            return bad("memory_bytes must be at least 16 MiB");
        }
        // bwrap's two processes and the wrapper shell need a few pids before the command runs.
        if self.pids < 8 {
            return bad("pids must be at least 8");
        }
        if !(self.cpu.is_finite() && self.cpu >= 0.01) {
            return bad("cpu must be a number of cores of at least 0.01");
        }
        if self.workspace_bytes < 1 << 20 {
            return bad("workspace_bytes must be at least 1 MiB");
        }
        Ok(())
    }
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (the shell reports a code above 128 as a signal, so a command that
    /// calls `exit(137)` also shows as `Signalled(9)`).
    Signalled(i32),
    /// The wall limit passed; everything was killed.
    TimedOut,
    /// The kernel's out-of-memory killer fired inside the job's memory limit.
    OutOfMemory,
    /// The host raised the job's [`StopFlag`]; everything was killed.
    Stopped,
}

/// What a finished job produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// How the command ended.
    pub status: Status,
    /// The first `limits.output_bytes` of stdout and stderr, interleaved as written.
    pub output: Vec<u8>,
    /// Whether more output was written (and discarded).
    pub output_truncated: bool,
    /// The result file, if it existed, was a regular file, and fit `limits.collect_bytes`;
    /// or the stream ([`Collect::Stream`]), if it fit.
    pub collected: Option<Vec<u8>>,
    /// More than `limits.collect_bytes` came back (the file or the stream), so nothing was
    /// kept.
    pub collected_truncated: bool,
    /// Wall time from spawning the sandbox until everything was gone.
    pub duration: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_stay_inside_the_workspace() {
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "./a", "a\0b"] {
            assert!(check_relative(bad, "input").is_err(), "{bad:?}");
        }
        for good in ["a", "tests/test_x.py", "a.b/c-d"] {
            assert!(check_relative(good, "input").is_ok(), "{good:?}");
        }
    }

    #[test]
    fn jobs_are_validated() {
        assert!(Job::command(Vec::<String>::new()).validate().is_err());
        assert!(Job::command(["true"]).validate().is_ok());
        let mut j = Job::command(["true"]);
        j.env_dir = Some("/work/env".into());
        assert!(j.validate().is_err());
        let mut j = Job::command(["true"]);
        j.limits.workspace_bytes = 1 << 20;
        j.inputs = vec![("big".into(), vec![0; 2 << 20])];
        assert!(j.validate().is_err());
        let mut j = Job::command(["true"]);
        j.limits.cpu = f64::NAN;
        assert!(j.validate().is_err());
    }
}
