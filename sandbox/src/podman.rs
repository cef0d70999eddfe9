//! Container backend: each job is a `podman run` (or `docker run`) of a local image, through the CLI.
//!
//! The shared harness does the rest (wall clock, capped output, the result frame). A job's
//! container has no network, a read-only root, no capabilities, no new privileges, a per-slot
//! unprivileged uid, memory (swap included), pids and CPU limits, explicit rlimits, the inputs
//! bound read-only at `/in` and copied into a size-limited tmpfs at `/work`, and the job's
//! venv bound read-only at its own path. The image is Debian's root file system with python3
//! ([`ensure_image`]), so venvs built from the host's `/usr/bin/python3` work inside when the
//! host runs the same Debian release.
//!
//! The wrapper is the container's pid 1, as in bwrap. Its result stream leaves through the
//! engine client's stderr (docker cannot pass extra descriptors into a container), its OOM
//! count comes from the container's own cgroup, and the container is removed by name: on a
//! timeout (killing the client would leave it running) and always at the end (`--rm` too).
//!
//! With `program: "docker"` the same flags apply except two podman-only ones:
//! `--read-only-tmpfs=false` (podman would otherwise mount tmpfs over `/tmp`, `/var/tmp` and
//! `/run`; docker mounts none) and `--timeout` (a backstop should the server die mid-job;
//! docker has none). No docker engine runs on the development machines: only podman is tested.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::Sandbox;
use crate::bwrap::{find_program, stage};
use crate::error::SandboxError;
use crate::harness::{Channel, Launch, WRAPPER, run};
use crate::job::{Job, Limits, Outcome, Status};
use crate::slots::Slots;

/// The image [`ensure_image`] builds and [`PodmanConfig`] runs by default.
pub const DEFAULT_IMAGE: &str = "localhost/wheelwright-sandbox:bookworm";

/// Seconds past the wall limit after which podman's own `--timeout` kills a container that
/// the harness did not (the server died).
const BACKSTOP_SECS: u64 = 30;

/// The podman client's per-job working directories: `<prefix><server pid>-<random>`.
pub(crate) const PODMAN_DIR_PREFIX: &str = "wheelwright-podman-";

/// How to set up a [`PodmanSandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodmanConfig {
    /// The engine's client: `podman` (tested) or `docker` (same flags, see the module docs). A
    /// bare name is looked up on `PATH`.
    pub program: PathBuf,
    /// The local image to run; it must have `/bin/sh`, coreutils and the same
    /// `/usr/bin/python3` as the host (see [`ensure_image`]). Never pulled.
    pub image: String,
    /// The OCI runtime (`--runtime`): `Some("runc")` here, where crun rejects the cgroup v1
    /// layout; `None` uses the engine's default.
    pub runtime: Option<String>,
    /// How many jobs may run at once.
    pub slots: usize,
    /// Slot `i` runs as uid and gid `base_uid + i` inside the container (and on the host: no
    /// user namespace). Pick a range no real account or other service uses.
    pub base_uid: u32,
    /// Where per-job staging directories are created (`wheelwright-sandbox-*`).
    pub staging_root: PathBuf,
    /// Open files per process inside the container (`--ulimit nofile`).
    pub nofile: u64,
}

impl Default for PodmanConfig {
    fn default() -> Self {
        PodmanConfig {
            program: "podman".into(),
            image: DEFAULT_IMAGE.into(),
            runtime: Some("runc".into()),
            slots: 2,
            base_uid: 63000,
            staging_root: std::env::temp_dir(),
            nofile: 4096,
        }
    }
}

/// Which engine's dialect of the CLI to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    Podman,
    Docker,
}

/// Runs jobs in containers. Create one per process and share it (`Arc` or `Box<dyn Sandbox>`).
#[derive(Debug)]
pub struct PodmanSandbox {
    config: PodmanConfig,
    program: PathBuf,
    engine: Engine,
    slots: Slots,
}

/// Numbers jobs for container names; global, because several sandboxes may share a process.
static JOBS: AtomicU64 = AtomicU64::new(0);

impl PodmanSandbox {
    /// Checks the engine, the runtime and the image, then runs `/bin/true` in a container to
    /// prove it works here.
    pub fn new(config: PodmanConfig) -> Result<Self, SandboxError> {
        if config.slots == 0 {
            return Err(SandboxError::InvalidJob(
                "a sandbox needs at least one slot".into(),
            ));
        }
        if config.base_uid == 0 || config.base_uid.checked_add(config.slots as u32).is_none() {
            return Err(SandboxError::InvalidJob(
                "base_uid must be above 0 and leave room for every slot".into(),
            ));
        }
        let engine = engine_of(&config.program);
        let program = find_program(&config.program).ok_or(missing_engine(engine))?;
        // Rootless podman would map the slot uids into a user namespace, and staging
        // directories could not be given to them.
        if !nix::unistd::Uid::effective().is_root() {
            return Err(SandboxError::Engine {
                program: program.display().to_string(),
                step: "checking privileges".into(),
                detail: "the podman backend runs rootful containers as per-slot uids: run the \
                         server as root"
                    .into(),
            });
        }
        // Docker's runtimes live in its daemon; podman runs the runtime itself.
        if engine == Engine::Podman && config.runtime.as_deref() == Some("runc") {
            find_program(Path::new("runc")).ok_or(SandboxError::ToolMissing {
                tool: "runc",
                install: "apt-get install runc",
            })?;
        }
        if !image_exists(&program, &config.image)? {
            return Err(SandboxError::ImageMissing {
                image: config.image.clone(),
            });
        }
        let sandbox = PodmanSandbox {
            slots: Slots::new(config.slots),
            config,
            program,
            engine,
        };
        sandbox.sweep();
        let mut probe = Job::command(["/bin/true"]);
        probe.limits = Limits {
            wall: Duration::from_secs(60),
            ..Limits::default()
        };
        let outcome = sandbox.run(&probe)?;
        if outcome.status != Status::Exited(0) {
            return Err(SandboxError::Engine {
                program: sandbox.program.display().to_string(),
                step: "running /bin/true in a container".into(),
                detail: format!(
                    "{:?}: {}",
                    outcome.status,
                    String::from_utf8_lossy(&outcome.output).trim()
                ),
            });
        }
        Ok(sandbox)
    }

    /// The `run` command line for one job (everything after the program name).
    fn run_args(&self, job: &Job, name: &str, staging: &Path, uid: u32) -> Vec<OsString> {
        let l = &job.limits;
        let mut a: Vec<String> = vec![
            "run".into(),
            "--rm".into(),
            format!("--name={name}"),
            "--label=wheelwright.sandbox=1".into(),
            "--pull=never".into(),
            // A 1 GiB print would otherwise be written to a log file on disk.
            "--log-driver=none".into(),
            "--network=none".into(),
            "--read-only".into(),
            "--cap-drop=ALL".into(),
            "--security-opt=no-new-privileges".into(),
            format!("--user={uid}:{uid}"),
            format!("--memory={}", l.memory_bytes),
            // The same as the memory: no swapping instead of being stopped.
            format!("--memory-swap={}", l.memory_bytes),
            format!("--pids-limit={}", l.pids),
            format!("--cpus={}", l.cpu),
            format!("--ulimit=nofile={0}:{0}", self.config.nofile),
            // Counted per uid on the whole host: each slot has its own.
            format!("--ulimit=nproc={0}:{0}", l.pids),
            "--ulimit=core=0:0".into(),
            format!(
                "--tmpfs=/work:rw,exec,nosuid,nodev,mode=1777,size={}",
                l.workspace_bytes
            ),
            // rm -f then kills at once (pid 1 ignores the default SIGTERM).
            "--stop-signal=KILL".into(),
            format!(
                "--volume={}:/in:ro",
                staging.join(crate::bwrap::STAGED_INPUTS).display()
            ),
            format!(
                "--volume={}:/judge:ro",
                staging.join(crate::bwrap::STAGED_JUDGE).display()
            ),
            "--workdir=/".into(),
        ];
        if self.engine == Engine::Podman {
            // The image's /tmp is a link into the workspace; no unlimited tmpfs anywhere else.
            a.push("--read-only-tmpfs=false".into());
            // A backstop should the server die mid-job (a container does not die with its
            // client): conmon kills the container this long after it started.
            a.push(format!(
                "--timeout={}",
                l.wall.as_secs().saturating_add(BACKSTOP_SECS)
            ));
        }
        if let Some(runtime) = &self.config.runtime {
            a.push(format!("--runtime={runtime}"));
        }
        let mut path = String::from("/usr/local/bin:/usr/bin:/bin");
        if let Some(env) = job.env_dir.as_ref().and_then(|e| e.to_str()) {
            a.push(format!("--volume={env}:{env}:ro"));
            a.push(format!("--env=VIRTUAL_ENV={env}"));
            path = format!("{env}/bin:{path}");
        }
        a.extend([
            format!("--env=PATH={path}"),
            "--env=HOME=/work".into(),
            "--env=LANG=C.UTF-8".into(),
            "--env=PYTHONDONTWRITEBYTECODE=1".into(),
            "--env=TMPDIR=/work/.tmp".into(),
            self.config.image.clone(),
            "/bin/sh".into(),
            "-c".into(),
            // The result stream leaves on stderr (Channel::Stderr); the command's stderr joins
            // its stdout.
            format!("exec 3>&2 2>&1\n{WRAPPER}"),
            "sh".into(),
            job.collect.wrapper_arg(),
            l.collect_bytes.to_string(),
        ]);
        a.extend(job.argv.iter().cloned());
        a.into_iter().map(OsString::from).collect()
    }

    /// Removes what servers that are gone left behind: their containers (a container
    /// outlives its client) and their job directories.
    fn sweep(&self) {
        crate::sweep::remove_stale_dirs(&self.config.staging_root, crate::bwrap::STAGING_PREFIX);
        crate::sweep::remove_stale_dirs(&self.config.staging_root, PODMAN_DIR_PREFIX);
        let listed = Command::new(&self.program)
            .args([
                "ps",
                "-a",
                "--filter",
                "label=wheelwright.sandbox=1",
                "--format",
                "{{.Names}}",
            ])
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        let Ok(listed) = listed else { return };
        let me = std::process::id();
        for name in String::from_utf8_lossy(&listed.stdout).lines() {
            let stale = crate::sweep::owner_pid(name.trim(), "wheelwright-")
                .is_some_and(|pid| pid != me && !crate::sweep::pid_alive(pid));
            if stale {
                tracing::info!(
                    container = name,
                    "removing a container whose server is gone"
                );
                let _ = self.remove_command(name.trim()).status();
            }
        }
    }

    /// `<program> rm -f <name>`: kills the container (SIGKILL, its stop signal) and removes
    /// it; a container already gone is fine.
    fn remove_command(&self, name: &str) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(["rm", "-f"]);
        if self.engine == Engine::Podman {
            cmd.arg("--ignore");
        }
        cmd.arg(name);
        cmd.env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }
}

impl Sandbox for PodmanSandbox {
    fn name(&self) -> &'static str {
        match self.engine {
            Engine::Podman => "podman",
            Engine::Docker => "docker",
        }
    }

    fn slots(&self) -> usize {
        self.slots.count()
    }

    fn run(&self, job: &Job) -> Result<Outcome, SandboxError> {
        job.validate()?;
        // `--volume` splits on ':' (and the tmpfs options on ','): refuse what it would misread.
        for path in job.env_dir.iter().chain([&self.config.staging_root]) {
            if path.to_str().is_none_or(|p| p.contains([':', ','])) {
                return Err(SandboxError::InvalidJob(format!(
                    "{} cannot be bound into a container (':' or ',' in the path)",
                    path.display()
                )));
            }
        }
        let slot = self.slots.acquire();
        let uid = self.config.base_uid + slot.index as u32;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        // Unique across jobs and across restarts of this process (the pid may come again).
        let name = format!(
            "wheelwright-{}-{}-{nanos:08x}",
            std::process::id(),
            JOBS.fetch_add(1, Ordering::Relaxed)
        );
        let staging = stage(&self.config.staging_root, job, Some(uid))?;
        // The client's working directory, where conmon drops its `oom` marker file; private
        // to the server, removed with the job.
        let cwd = tempfile::Builder::new()
            .prefix(&format!("{PODMAN_DIR_PREFIX}{}-", std::process::id()))
            .tempdir_in(&self.config.staging_root)
            .map_err(|source| SandboxError::Staging {
                path: self.config.staging_root.clone(),
                source,
            })?;
        let launch = Launch {
            program: self.program.clone(),
            args: self.run_args(job, &name, staging.path(), uid),
            env: vec![("PATH".into(), "/usr/sbin:/usr/bin:/sbin:/bin".into())],
            cwd: Some(cwd.path().to_path_buf()),
            channel: Channel::Stderr,
            stop: Some(self.remove_command(&name)),
            stream: job.collect == crate::Collect::Stream,
        };
        let outcome = run(launch, &job.limits, job.stop.as_ref(), None);
        // Always, whatever happened: a client that died early leaves its container running.
        match self.remove_command(&name).status() {
            Ok(s) if s.success() || self.engine == Engine::Docker => {}
            other => {
                tracing::warn!(container = %name, result = ?other, "cannot remove a container")
            }
        }
        for dir in [staging, cwd] {
            let path = dir.path().to_path_buf();
            if let Err(e) = dir.close() {
                tracing::warn!(path = %path.display(), error = %e, "cannot remove a job directory");
            }
        }
        drop(slot);
        outcome
    }
}

fn missing_engine(engine: Engine) -> SandboxError {
    match engine {
        Engine::Podman => SandboxError::ToolMissing {
            tool: "podman",
            install: "apt-get install podman runc",
        },
        Engine::Docker => SandboxError::ToolMissing {
            tool: "docker",
            install: "install Docker Engine and start its daemon",
        },
    }
}

fn engine_of(program: &Path) -> Engine {
    match program.file_name().and_then(|n| n.to_str()) {
        Some(n) if n.starts_with("docker") => Engine::Docker,
        _ => Engine::Podman,
    }
}

/// Whether `<program> image inspect <image>` finds the image locally.
fn image_exists(program: &Path, image: &str) -> Result<bool, SandboxError> {
    let out = Command::new(program)
        .args(["image", "inspect", "--format", "{{.Id}}", image])
        .stdin(Stdio::null())
        .output()
        .map_err(|source| SandboxError::Spawn {
            program: program.display().to_string(),
            source,
        })?;
    if out.status.success() {
        return Ok(true);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.to_lowercase().contains("no such image")
        || stderr.contains("image not known")
        || stderr.contains("failed to find image")
    {
        return Ok(false);
    }
    Err(SandboxError::Engine {
        program: program.display().to_string(),
        step: format!("looking for the image {image}"),
        detail: tail(&stderr),
    })
}

/// The last lines of a tool's output, for an error message.
fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text.len().saturating_sub(2000);
    let start = (start..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    text[start..].to_string()
}

/// How [`ensure_image`] builds the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageOptions {
    /// The engine's client, as in [`PodmanConfig::program`].
    pub program: PathBuf,
    /// The tag to create, e.g. [`DEFAULT_IMAGE`].
    pub image: String,
    /// The Debian release: the host's, so that venvs built from the host's python3 work.
    pub suite: String,
    /// The Debian mirror debootstrap downloads from.
    pub mirror: String,
    /// Where the root file system is built (about 260 MB while building, removed after).
    pub build_root: PathBuf,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            program: "podman".into(),
            image: DEFAULT_IMAGE.into(),
            suite: "bookworm".into(),
            mirror: "http://deb.debian.org/debian".into(),
            build_root: "/var/tmp".into(),
        }
    }
}

/// A step of [`ensure_image`], reported as it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageStep {
    /// The image already exists; nothing is built.
    Reused(String),
    /// Running debootstrap (about a minute from deb.debian.org) into this directory.
    Debootstrap(PathBuf),
    /// Importing the root file system as this image.
    Import(String),
    /// Something to tell the operator, e.g. that the image's python3 differs from the host's.
    Warning(String),
    /// The image is ready.
    Ready(String),
}

/// Builds the container image once, unless it exists: `debootstrap --variant=minbase
/// --include=python3` of `options.suite`, `/tmp` replaced by a link into the workspace
/// (`/work/.tmp`, as in bwrap), then `<program> import`. pytest and the other test
/// dependencies come from the venv bound into each job, not from the image. Needs root and
/// debootstrap; blocks for a minute or two.
pub fn ensure_image(
    options: &ImageOptions,
    mut progress: impl FnMut(&ImageStep),
) -> Result<(), SandboxError> {
    let program =
        find_program(&options.program).ok_or(missing_engine(engine_of(&options.program)))?;
    if image_exists(&program, &options.image)? {
        progress(&ImageStep::Reused(options.image.clone()));
        return Ok(());
    }
    let debootstrap = find_program(Path::new("debootstrap")).ok_or(SandboxError::ToolMissing {
        tool: "debootstrap",
        install: "apt-get install debootstrap",
    })?;
    let io = |step: &str| {
        let step = step.to_string();
        move |e: std::io::Error| SandboxError::Engine {
            program: "ensure_image".into(),
            step,
            detail: e.to_string(),
        }
    };
    fs::create_dir_all(&options.build_root).map_err(io("creating the build directory"))?;
    // One builder at a time; the second finds the image built by the first.
    let lock = fs::File::create(options.build_root.join(".wheelwright-image.lock"))
        .map_err(io("creating the lock file"))?;
    lock.lock().map_err(io("locking"))?;
    if image_exists(&program, &options.image)? {
        progress(&ImageStep::Reused(options.image.clone()));
        return Ok(());
    }
    let build = tempfile::Builder::new()
        .prefix("wheelwright-image-")
        .tempdir_in(&options.build_root)
        .map_err(io("creating the build directory"))?;
    let rootfs = build.path().join("rootfs");
    progress(&ImageStep::Debootstrap(rootfs.clone()));
    let out = Command::new(&debootstrap)
        .args(["--variant=minbase", "--include=python3", &options.suite])
        .arg(&rootfs)
        .arg(&options.mirror)
        .stdin(Stdio::null())
        .output()
        .map_err(io("running debootstrap"))?;
    if !out.status.success() {
        return Err(SandboxError::Engine {
            program: "debootstrap".into(),
            step: format!("building a {} root file system", options.suite),
            detail: tail(&format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )),
        });
    }
    if let Some(warning) = python_mismatch(&rootfs) {
        tracing::warn!("{warning}");
        progress(&ImageStep::Warning(warning));
    }
    // Smaller, and /tmp inside the workspace.
    for dir in ["var/cache/apt/archives", "var/lib/apt/lists"] {
        if let Ok(entries) = fs::read_dir(rootfs.join(dir)) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_file()) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    }
    fs::remove_dir_all(rootfs.join("tmp")).map_err(io("removing /tmp"))?;
    std::os::unix::fs::symlink("/work/.tmp", rootfs.join("tmp"))
        .map_err(io("linking /tmp to /work/.tmp"))?;

    progress(&ImageStep::Import(options.image.clone()));
    let mut tar = Command::new("tar")
        .arg("-C")
        .arg(&rootfs)
        .args(["-c", "."])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(io("running tar"))?;
    let tar_out = tar
        .stdout
        .take()
        .ok_or_else(|| io("running tar")(std::io::Error::other("no stdout")))?;
    let import = Command::new(&program)
        .args(["import", "--change", r#"CMD ["/bin/sh"]"#, "-"])
        .arg(&options.image)
        .stdin(Stdio::from(tar_out))
        .output()
        .map_err(io("importing the image"))?;
    let tar_status = tar.wait().map_err(io("running tar"))?;
    if !import.status.success() || !tar_status.success() {
        return Err(SandboxError::Engine {
            program: program.display().to_string(),
            step: format!("importing {}", options.image),
            detail: tail(&String::from_utf8_lossy(&import.stderr)),
        });
    }
    let path = build.path().to_path_buf();
    if let Err(e) = build.close() {
        tracing::warn!(path = %path.display(), error = %e, "cannot remove the image build directory");
    }
    progress(&ImageStep::Ready(options.image.clone()));
    Ok(())
}

/// A warning when the image's python3 differs from the host's: venvs from `ensure_env` are
/// built with the host's and run with the image's.
fn python_mismatch(rootfs: &Path) -> Option<String> {
    let version = |python: &Path| {
        Command::new(python)
            .arg("--version")
            .env_clear()
            .stdin(Stdio::null())
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let host = version(Path::new(crate::DEFAULT_PYTHON));
    let image = version(&rootfs.join("usr/bin/python3"));
    (host != image).then(|| {
        format!(
            "the image's python3 ({image:?}) differs from the host's ({host:?}): venvs built on \
             the host may not work in the container"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_and_tails() {
        assert_eq!(engine_of(Path::new("podman")), Engine::Podman);
        assert_eq!(engine_of(Path::new("/usr/bin/docker")), Engine::Docker);
        assert_eq!(tail("  a\n"), "a");
        let long = "é".repeat(3000);
        assert!(tail(&long).len() <= 2000);
    }

    #[test]
    fn the_command_line_has_every_limit() {
        let sb = PodmanSandbox {
            config: PodmanConfig::default(),
            program: "podman".into(),
            engine: Engine::Podman,
            slots: Slots::new(1),
        };
        let mut job = Job::command(["python", "-V"]);
        job.env_dir = Some("/var/tmp/env".into());
        let args: Vec<String> = sb
            .run_args(&job, "n", Path::new("/tmp/s"), 63000)
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for flag in [
            "--network=none",
            "--read-only",
            "--cap-drop=ALL",
            "--security-opt=no-new-privileges",
            "--user=63000:63000",
            "--memory=2147483648",
            "--memory-swap=2147483648",
            "--pids-limit=256",
            "--cpus=1",
            "--ulimit=nproc=256:256",
            "--runtime=runc",
            "--volume=/tmp/s/in:/in:ro",
            "--volume=/tmp/s/judge:/judge:ro",
            "--volume=/var/tmp/env:/var/tmp/env:ro",
            "--env=PATH=/var/tmp/env/bin:/usr/local/bin:/usr/bin:/bin",
            "--read-only-tmpfs=false",
            "--timeout=630",
        ] {
            assert!(args.iter().any(|a| a == flag), "{flag} missing: {args:?}");
        }
        assert_eq!(&args[args.len() - 2..], ["python", "-V"]);
    }
}
