//! The bubblewrap backend: bwrap started as an unprivileged per-slot uid, in a cgroup per job.
//!
//! bwrap must never run as root: as root, a submission could remount a read-only bind
//! read-write (and read `/etc/shadow`). When the server runs as root, each slot's bwrap is
//! started through `setpriv` as uid/gid `base_uid + slot`, so concurrent jobs also cannot read
//! each other's staging files. When the server is not root, bwrap runs as the server's own
//! user: namespaces still isolate jobs from the host, but per-slot uid isolation is then
//! unavailable (every job and the server share one uid), and cgroups usually are too.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Sandbox;
use crate::cgroup::{JobCgroup, Layout, detect};
use crate::error::SandboxError;
use crate::harness::{Channel, Launch, WRAPPER, run};
use crate::job::{Job, Limits, Outcome, Status};
use crate::slots::Slots;

/// How to set up a [`BwrapSandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BwrapConfig {
    /// How many jobs may run at once.
    pub slots: usize,
    /// Slot `i` runs as uid and gid `base_uid + i` (only when the server runs as root). Pick a
    /// range no real account or other service uses.
    pub base_uid: u32,
    /// Where per-job staging directories are created (`wheelwright-sandbox-*`). Its ancestors
    /// must be traversable by the slot uids.
    pub staging_root: PathBuf,
    /// Where the cgroup file system is mounted.
    pub cgroup_root: PathBuf,
    /// The parent cgroup of every job, created under each controller.
    pub cgroup_group: String,
    /// Run without cgroups (no memory, pids or CPU limits; only the wall clock and the output
    /// caps) when they cannot be used, instead of failing. Meant for development as non-root.
    pub allow_without_cgroups: bool,
    /// The bwrap program (a bare name is looked up on `PATH`).
    pub bwrap: PathBuf,
    /// The setpriv program (util-linux), used to drop to the slot uid.
    pub setpriv: PathBuf,
}

impl Default for BwrapConfig {
    fn default() -> Self {
        BwrapConfig {
            slots: 2,
            base_uid: 64000,
            staging_root: std::env::temp_dir(),
            cgroup_root: "/sys/fs/cgroup".into(),
            cgroup_group: "wheelwright".into(),
            allow_without_cgroups: false,
            bwrap: "bwrap".into(),
            setpriv: "setpriv".into(),
        }
    }
}

/// Runs jobs in bubblewrap. Create one per process and share it (`Arc` or `Box<dyn Sandbox>`).
#[derive(Debug)]
pub struct BwrapSandbox {
    config: BwrapConfig,
    slots: Slots,
    bwrap: PathBuf,
    /// `Some` when running as root: bwrap is then started as the slot's uid through it.
    setpriv: Option<PathBuf>,
    cgroups: Option<Layout>,
}

/// Numbers jobs for their cgroup names; global, because several sandboxes may share a process.
static JOBS: AtomicU64 = AtomicU64::new(0);

impl BwrapSandbox {
    /// Checks the tools and cgroups, then runs `/bin/true` in a sandbox to prove it works here.
    pub fn new(config: BwrapConfig) -> Result<Self, SandboxError> {
        if config.slots == 0 {
            return Err(SandboxError::InvalidJob(
                "a sandbox needs at least one slot".into(),
            ));
        }
        let valid_group = !config.cgroup_group.is_empty()
            && config
                .cgroup_group
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !config.cgroup_group.starts_with('.');
        if !valid_group {
            return Err(SandboxError::InvalidJob(format!(
                "cgroup_group {:?} must be a plain directory name",
                config.cgroup_group
            )));
        }
        let bwrap = find_program(&config.bwrap).ok_or(SandboxError::ToolMissing {
            tool: "bwrap",
            install: "apt-get install bubblewrap",
        })?;
        let root = nix::unistd::Uid::effective().is_root();
        let setpriv = if root {
            if config.base_uid == 0 || config.base_uid.checked_add(config.slots as u32).is_none() {
                return Err(SandboxError::InvalidJob(
                    "base_uid must be above 0 and leave room for every slot".into(),
                ));
            }
            Some(
                find_program(&config.setpriv).ok_or(SandboxError::ToolMissing {
                    tool: "setpriv",
                    install: "apt-get install util-linux",
                })?,
            )
        } else {
            tracing::warn!(
                "the server is not root: sandboxes run as its own uid, without per-slot uid \
                 isolation"
            );
            None
        };
        let cgroups = match probe_cgroups(&config) {
            Ok(layout) => Some(layout),
            Err(e) if config.allow_without_cgroups => {
                tracing::warn!(error = %e, "running sandboxes without cgroups: no memory, pids \
                    or CPU limits");
                None
            }
            Err(e) => return Err(e),
        };
        // What a killed predecessor left: staging directories (copies of submissions and
        // judge inputs) and cgroups (possibly with processes still in them).
        crate::sweep::remove_stale_dirs(&config.staging_root, STAGING_PREFIX);
        if let Some(layout) = &cgroups {
            crate::cgroup::remove_stale(layout, &config.cgroup_group);
        }
        let sandbox = BwrapSandbox {
            slots: Slots::new(config.slots),
            config,
            bwrap,
            setpriv,
            cgroups,
        };
        let mut probe = Job::command(["/bin/true"]);
        probe.limits = Limits {
            wall: std::time::Duration::from_secs(30),
            ..Limits::default()
        };
        let outcome = sandbox.run(&probe)?;
        if outcome.status != Status::Exited(0) {
            return Err(SandboxError::Unsupported(format!(
                "/bin/true ended with {:?}: {}",
                outcome.status,
                String::from_utf8_lossy(&outcome.output).trim()
            )));
        }
        Ok(sandbox)
    }

    /// Whether each slot runs as its own uid (the server runs as root).
    pub fn uid_isolation(&self) -> bool {
        self.setpriv.is_some()
    }

    /// Whether jobs get a cgroup (memory, pids and CPU limits).
    pub fn cgroups(&self) -> bool {
        self.cgroups.is_some()
    }

    /// The bwrap command line for one job (everything after the program name).
    fn bwrap_args(&self, job: &Job, staging: &Path) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::with_capacity(64);
        let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
        // All namespaces, the network included; no nested user namespaces (less kernel surface
        // for a submission to poke at).
        push(&[
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--unshare-pid",
        ]);
        // The wrapper is the pid namespace's init: when it exits, everything in the namespace
        // dies; the submission cannot signal it (init ignores signals from inside); and bwrap
        // reaps it itself. (With bwrap's own init, bwrap exits on its init's report before
        // reaping it, leaving a zombie to the host's init, which in containers may never come.)
        push(&["--as-pid-1"]);
        push(&["--die-with-parent", "--new-session", "--cap-drop", "ALL"]);
        let mut path = String::from("/usr/local/bin:/usr/bin:/bin");
        push(&["--clearenv"]);
        if let Some(env) = job.env_dir.as_ref().and_then(|e| e.to_str()) {
            path = format!("{env}/bin:{path}");
            push(&["--setenv", "VIRTUAL_ENV", env]);
        }
        push(&["--setenv", "PATH", &path, "--setenv", "HOME", "/work"]);
        push(&[
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
        ]);
        push(&["--setenv", "TMPDIR", "/work/.tmp"]);
        // The system's programs and libraries, read-only; on merged-/usr systems /bin, /lib...
        // are symlinks into /usr and are recreated as such.
        push(&["--ro-bind", "/usr", "/usr"]);
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            match fs::symlink_metadata(top) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = fs::read_link(top) {
                        a.push("--symlink".into());
                        a.push(target.into_os_string());
                        a.push(top.into());
                    }
                }
                Ok(m) if m.is_dir() => {
                    a.extend(["--ro-bind", top, top].map(OsString::from));
                }
                _ => {}
            }
        }
        // The dynamic loader's cache only; nothing else of the host's /etc (no shadow, passwd).
        let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
        push(&["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]);
        push(&["--proc", "/proc", "--dev", "/dev"]);
        let size = job.limits.workspace_bytes.to_string();
        push(&[
            "--size",
            &size,
            "--tmpfs",
            "/work",
            "--symlink",
            "/work/.tmp",
            "/tmp",
        ]);
        a.extend([
            "--ro-bind".into(),
            staging.join(STAGED_INPUTS).into(),
            "/in".into(),
            "--ro-bind".into(),
            staging.join(STAGED_JUDGE).into(),
            "/judge".into(),
        ]);
        if let Some(env) = &job.env_dir {
            a.extend(["--ro-bind".into(), env.into(), env.into()]);
        }
        let cap = job.limits.collect_bytes.to_string();
        let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
        push(&[
            "--chdir",
            "/",
            "--",
            "/bin/sh",
            "-c",
            WRAPPER,
            "sh",
            &job.collect.wrapper_arg(),
            &cap,
        ]);
        a.extend(job.argv.iter().map(OsString::from));
        a
    }
}

impl Sandbox for BwrapSandbox {
    fn name(&self) -> &'static str {
        "bwrap"
    }

    fn slots(&self) -> usize {
        self.slots.count()
    }

    fn run(&self, job: &Job) -> Result<Outcome, SandboxError> {
        job.validate()?;
        let slot = self.slots.acquire();
        let uid = self
            .setpriv
            .as_ref()
            .map(|_| self.config.base_uid + slot.index as u32);
        let id = format!(
            "{}-{}",
            std::process::id(),
            JOBS.fetch_add(1, Ordering::Relaxed)
        );

        let staging = stage(&self.config.staging_root, job, uid)?;
        let cgroup = match &self.cgroups {
            Some(layout) => Some(JobCgroup::create(
                layout,
                &self.config.cgroup_group,
                &id,
                &job.limits,
            )?),
            None => None,
        };
        let mut args = self.bwrap_args(job, staging.path());
        let program = match (&self.setpriv, uid) {
            (Some(setpriv), Some(uid)) => {
                let mut pre: Vec<OsString> = vec![
                    format!("--reuid={uid}").into(),
                    format!("--regid={uid}").into(),
                    "--clear-groups".into(),
                    "--inh-caps=-all".into(),
                    "--".into(),
                    self.bwrap.clone().into_os_string(),
                ];
                pre.append(&mut args);
                args = pre;
                setpriv.clone()
            }
            _ => self.bwrap.clone(),
        };
        let launch = Launch {
            program,
            args,
            env: vec![("PATH".into(), "/usr/sbin:/usr/bin:/sbin:/bin".into())],
            cwd: None,
            channel: Channel::Fd3,
            stop: None,
            stream: job.collect == crate::Collect::Stream,
        };
        let outcome = run(launch, &job.limits, job.stop.as_ref(), cgroup);
        let path = staging.path().to_path_buf();
        if let Err(e) = staging.close() {
            tracing::warn!(path = %path.display(), error = %e, "cannot remove a staging directory");
        }
        drop(slot);
        outcome
    }
}

/// Creates the job's cgroup once to prove cgroups are usable, and removes it.
fn probe_cgroups(config: &BwrapConfig) -> Result<Layout, SandboxError> {
    let layout = detect(&config.cgroup_root)?;
    // Unique per sandbox: two sandboxes created at once in one process must not share it.
    let probe = format!(
        "probe-{}-{}",
        std::process::id(),
        JOBS.fetch_add(1, Ordering::Relaxed)
    );
    drop(JobCgroup::create(
        &layout,
        &config.cgroup_group,
        &probe,
        &Limits::default(),
    )?);
    Ok(layout)
}

/// Staging directories are named `<prefix><server pid>-<random>`, so that a server starting
/// after a crash can tell its dead predecessor's directories (which may hold a copy of hidden
/// inputs) from those of other live servers, and remove them ([`crate::sweep`]).
pub(crate) const STAGING_PREFIX: &str = "wheelwright-sandbox-";

/// The staging directory's subdirectory shown at `/in` (the job's inputs).
pub(crate) const STAGED_INPUTS: &str = "in";
/// The staging directory's subdirectory shown at `/judge` (the host's trusted files).
pub(crate) const STAGED_JUDGE: &str = "judge";

/// Writes the job's inputs (under `in/`) and judge files (under `judge/`) into a fresh
/// staging directory that only the slot's uid (and root) can enter: the directory is 0700
/// and owned by that uid; everything inside is world-readable and owned by the server, so
/// the sandbox can read but never change it.
pub(crate) fn stage(
    root: &Path,
    job: &Job,
    uid: Option<u32>,
) -> Result<tempfile::TempDir, SandboxError> {
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SandboxError::Staging { path, source }
    };
    let dir = tempfile::Builder::new()
        .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
        .permissions(fs::Permissions::from_mode(0o700))
        .tempdir_in(root)
        .map_err(err(root))?;
    for (sub, files) in [(STAGED_INPUTS, &job.inputs), (STAGED_JUDGE, &job.judge)] {
        let base = dir.path().join(sub);
        fs::DirBuilder::new()
            .mode(0o755)
            .create(&base)
            .map_err(err(&base))?;
        for (rel, bytes) in files {
            let path = base.join(rel);
            if let Some(parent) = path.parent() {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(parent)
                    .map_err(err(parent))?;
            }
            fs::write(&path, bytes).map_err(err(&path))?;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).map_err(err(&path))?;
        }
    }
    if let Some(uid) = uid {
        std::os::unix::fs::chown(dir.path(), Some(uid), Some(uid)).map_err(err(dir.path()))?;
    }
    Ok(dir)
}

/// Resolves a program name on `PATH` (plus the usual system directories: the server may run
/// with a minimal `PATH`).
pub(crate) fn find_program(program: &Path) -> Option<PathBuf> {
    let is_exec = |p: &Path| {
        fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return is_exec(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(program))
        .find(|p| is_exec(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_is_private_to_the_slot() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut job = Job::command(["true"]);
        job.inputs = vec![("a/b.txt".to_string(), b"hi".to_vec())];
        job.judge = vec![("run.py".to_string(), b"print()".to_vec())];
        let dir = stage(root.path(), &job, None).expect("stage");
        let mode = fs::metadata(dir.path()).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert_eq!(
            fs::read(dir.path().join("in/a/b.txt")).expect("read"),
            b"hi"
        );
        assert_eq!(
            fs::read(dir.path().join("judge/run.py")).expect("read"),
            b"print()"
        );
    }

    #[test]
    fn programs_are_found() {
        assert!(find_program(Path::new("sh")).is_some());
        assert!(find_program(Path::new("/bin/sh")).is_some());
        assert!(find_program(Path::new("no-such-program-here")).is_none());
    }
}
