//! The process groups a command started (agents, model commands), killed together when the command is interrupted.
//!
//! Each child runs in its own process group so that a timeout kills everything it
//! started; for the same reason the terminal's Ctrl-C does not reach it, so the command
//! keeps the groups it started here and kills them itself on Ctrl-C or SIGTERM.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// The process groups running now.
#[derive(Clone, Default)]
pub(super) struct ProcessGroups(Arc<Mutex<BTreeSet<i32>>>);

impl ProcessGroups {
    pub(super) fn add(&self, pgid: i32) {
        self.lock().insert(pgid);
    }

    /// Forgets the group `pgid` and kills whatever is left of it.
    pub(super) fn remove(&self, pgid: i32) {
        self.lock().remove(&pgid);
        kill_group(pgid);
    }

    /// Kills every running group (Ctrl-C, SIGTERM).
    fn kill_all(&self) {
        for pgid in std::mem::take(&mut *self.lock()) {
            kill_group(pgid);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<i32>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// SIGKILL to the process group `pgid`; one already gone is no error.
pub(super) fn kill_group(pgid: i32) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// Runs `work` in a blocking task; on Ctrl-C or SIGTERM kills the groups it started,
/// prints `message` and exits with 130.
pub(super) async fn interruptible<T: Send + 'static>(
    message: &'static str,
    work: impl FnOnce(&ProcessGroups) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    use tokio::signal::unix::{SignalKind, signal};
    let groups = ProcessGroups::default();
    let interrupted = groups.clone();
    // Registered here, before any child starts: a listener made inside the spawned task
    // would only be registered once the task first runs, and a Ctrl-C before that (a busy
    // machine) would kill this process by default and leave the children running.
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        interrupted.kill_all();
        eprintln!("{message}");
        std::process::exit(130);
    });
    tokio::task::spawn_blocking(move || work(&groups)).await?
}
