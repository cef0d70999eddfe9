//! `SandboxError`: failures of the sandbox itself, worded as what the operator should do.

use std::path::PathBuf;

/// The sandbox could not run a job. What the submission does is never an error: see
/// [`crate::Outcome`].
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A tool the backend needs is not installed.
    #[error("{tool} is not installed: {install}")]
    ToolMissing {
        /// The program, e.g. `bwrap`.
        tool: &'static str,
        /// How to install it, e.g. `apt-get install bubblewrap`.
        install: &'static str,
    },
    /// bubblewrap is installed but cannot create a sandbox here.
    #[error(
        "bwrap cannot create a sandbox on this machine ({0}); unprivileged user namespaces must \
         be enabled (sysctl user.max_user_namespaces > 0, and on Debian kernels \
         kernel.unprivileged_userns_clone=1)"
    )]
    Unsupported(String),
    /// The cgroup file system is missing or not writable.
    #[error(
        "cannot use cgroups at {path}: {message}; run the server as root (or give it a writable, \
         delegated cgroup) with the memory, pids and cpu controllers mounted"
    )]
    Cgroup {
        /// The file or directory that failed.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The container image the podman backend runs is not there.
    #[error(
        "the container image {image} is missing: run scripts/podman-image (or call \
         wheelwright_sandbox::ensure_image) to build it from a Debian root file system"
    )]
    ImageMissing {
        /// The image reference, e.g. `localhost/wheelwright-sandbox:bookworm`.
        image: String,
    },
    /// The container engine is installed but failed (a probe job, or building the image).
    #[error("{program} failed while {step}: {detail}")]
    Engine {
        /// The program, e.g. `podman` or `debootstrap`.
        program: String,
        /// What it was doing, e.g. "running /bin/true in a container".
        step: String,
        /// Its output (the end) or the I/O error.
        detail: String,
    },
    /// The job itself is malformed (a bug in the caller, not in the submission).
    #[error("invalid sandbox job: {0}")]
    InvalidJob(String),
    /// Preparing or cleaning up the job's files failed.
    #[error("sandbox staging at {path}: {source}")]
    Staging {
        /// The file or directory that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Starting the sandbox process failed.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program that failed to start.
        program: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The sandbox's processes did not go away after being killed.
    #[error(
        "the job's processes survived SIGKILL for {0:?}; check the host for stuck (D state) processes"
    )]
    Unkillable(std::time::Duration),
    /// The Python interpreter or environment root is not readable by the slot uids.
    #[error(
        "{path} is not readable by other users, but the sandbox runs as another uid: use a \
         world-readable interpreter such as /usr/bin/python3 (apt-get install python3 \
         python3-venv) and an environment root such as /var/tmp/wheelwright/envs"
    )]
    NotWorldReadable {
        /// The offending path.
        path: PathBuf,
    },
    /// Building a Python environment failed.
    #[error("building the Python environment at {path} failed while {step}: {detail}")]
    EnvBuild {
        /// The environment's directory.
        path: PathBuf,
        /// The step that failed, e.g. "creating the venv".
        step: String,
        /// The tool's output (its end) or the I/O error.
        detail: String,
    },
}
