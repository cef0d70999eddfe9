//! Runs untrusted Python tests in a sandbox: the `Sandbox` trait, its job types and backends.
//!
//! A [`Job`] is a set of input files, an optional read-only Python environment, a command and
//! the relative path of one result file to read back. A [`Sandbox`] runs it inside a fresh,
//! size-limited workspace with no network, under the [`Limits`], and returns an [`Outcome`].
//!
//! Two backends: [`BwrapSandbox`] (bubblewrap started as an unprivileged per-slot uid, in a
//! cgroup per job; about 27 ms per start) and [`PodmanSandbox`] (a `podman run` (or
//! `docker run`) per job of a local Debian image; about 250 ms per start). The shared harness
//! (wall clock, capped output, reading the result file back, killing whatever is left) is
//! backend independent.
//!
//! [`ensure_env`] builds the read-only Python environments the jobs run in; [`ensure_image`]
//! builds the container image once.

mod bwrap;
mod cgroup;
mod env;
mod error;
mod harness;
mod job;
mod podman;
mod slots;
mod sweep;

pub use bwrap::{BwrapConfig, BwrapSandbox};
pub use env::{
    DEFAULT_ENV_ROOT, DEFAULT_PYTHON, EnvOptions, EnvStep, ensure_dependencies_env, ensure_env,
    ensure_env_with,
};
pub use error::SandboxError;
pub use job::{Collect, Job, Limits, Outcome, Status, StopFlag};
pub use podman::{
    DEFAULT_IMAGE, ImageOptions, ImageStep, PodmanConfig, PodmanSandbox, ensure_image,
};

/// A place to run untrusted jobs. Object safe, so the server can hold a `Box<dyn Sandbox>`
/// chosen at start (bubblewrap or a container engine).
pub trait Sandbox: Send + Sync {
    /// A short name for logs and error messages, e.g. `"bwrap"` or `"podman"`.
    fn name(&self) -> &'static str;

    /// How many jobs can run at once; further calls to [`Sandbox::run`] wait for a free slot.
    fn slots(&self) -> usize;

    /// Runs one job to completion and cleans up after it (processes, workspace, cgroup).
    ///
    /// Blocks the calling thread for up to the job's wall limit plus a few seconds (and, before
    /// that, while every slot is busy): from async code call it through
    /// `tokio::task::spawn_blocking`. The child is spawned from a dedicated thread owned by the
    /// harness, so the caller's thread may be a pooled one.
    ///
    /// `Err` means the sandbox itself failed (bad job, missing tool, cgroup trouble); whatever
    /// the submission does, including crashing or being killed, is an `Ok(Outcome)`.
    fn run(&self, job: &Job) -> Result<Outcome, SandboxError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trait_is_object_safe_and_shareable() {
        fn shareable<T: Send + Sync>() {}
        shareable::<BwrapSandbox>();
        shareable::<PodmanSandbox>();
        shareable::<Box<dyn Sandbox>>();
        let _: Option<Box<dyn Sandbox>> = None;
    }
}
