//! One cgroup per job (memory, pids, CPU), for the v1 and the v2 (unified) layouts.
//!
//! The job's processes are put in the cgroup by the launch shim before it execs the sandbox
//! (see `harness`), so every descendant is inside from its first instruction. At the end the
//! whole cgroup is killed (v2: `cgroup.kill`; v1: SIGKILL to each member until none is left)
//! and removed.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::error::SandboxError;
use crate::job::Limits;

/// The v1 controllers a job uses; the memory one comes first (it answers "was there an OOM").
const V1_CONTROLLERS: [&str; 3] = ["memory", "pids", "cpu"];

/// CFS period for CPU quotas, the kernel's default.
const CPU_PERIOD_US: u64 = 100_000;

/// How cgroups are mounted at a root such as `/sys/fs/cgroup`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One directory per controller: `<root>/memory`, `<root>/pids`, `<root>/cpu`.
    V1(PathBuf),
    /// The unified hierarchy mounted at the root (it has `cgroup.controllers`).
    V2(PathBuf),
}

/// Finds the layout at `root`. Hybrid hosts (v1 controllers plus an empty v2 tree at
/// `<root>/unified`) count as v1: that is where the controllers are.
pub(crate) fn detect(root: &Path) -> Result<Layout, SandboxError> {
    if root.join("cgroup.controllers").is_file() {
        return Ok(Layout::V2(root.to_path_buf()));
    }
    if let Some(missing) = V1_CONTROLLERS
        .iter()
        .find(|c| !root.join(c).join("cgroup.procs").is_file())
    {
        return Err(SandboxError::Cgroup {
            path: root.join(missing),
            message: "neither a cgroup v2 mount nor this cgroup v1 controller is there".into(),
        });
    }
    Ok(Layout::V1(root.to_path_buf()))
}

fn cgroup_err(path: &Path, e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Cgroup {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn write(path: &Path, value: &str) -> Result<(), SandboxError> {
    fs::write(path, value).map_err(|e| cgroup_err(path, e))
}

fn mkdir(path: &Path) -> Result<(), SandboxError> {
    match fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(cgroup_err(path, e)),
    }
}

/// The cgroup directories of one job. Dropping it kills what is left and removes them.
#[derive(Debug)]
pub(crate) struct JobCgroup {
    v2: bool,
    /// v1: one directory per controller (memory first); v2: one directory.
    dirs: Vec<PathBuf>,
    removed: bool,
}

impl JobCgroup {
    /// Creates `<group>/<job>` under each controller and writes the limits.
    pub(crate) fn create(
        layout: &Layout,
        group: &str,
        job: &str,
        limits: &Limits,
    ) -> Result<Self, SandboxError> {
        let quota = ((limits.cpu * CPU_PERIOD_US as f64) as u64).max(1000);
        match layout {
            Layout::V1(root) => {
                let mut cg = JobCgroup {
                    v2: false,
                    dirs: Vec::new(),
                    removed: false,
                };
                for controller in V1_CONTROLLERS {
                    let parent = root.join(controller).join(group);
                    mkdir(&parent)?;
                    let dir = parent.join(job);
                    mkdir(&dir)?;
                    // Registered at once so that a later failure still removes it (Drop).
                    cg.dirs.push(dir);
                }
                let (mem, pids, cpu) = (&cg.dirs[0], &cg.dirs[1], &cg.dirs[2]);
                let bytes = limits.memory_bytes.to_string();
                write(&mem.join("memory.limit_in_bytes"), &bytes)?;
                // Memory plus swap: without it a job would swap instead of being stopped.
                let memsw = mem.join("memory.memsw.limit_in_bytes");
                if memsw.exists() {
                    write(&memsw, &bytes)?;
                }
                write(&pids.join("pids.max"), &limits.pids.to_string())?;
                write(&cpu.join("cpu.cfs_period_us"), &CPU_PERIOD_US.to_string())?;
                write(&cpu.join("cpu.cfs_quota_us"), &quota.to_string())?;
                Ok(cg)
            }
            Layout::V2(root) => {
                // Children only get the controllers their parent enables for its subtree.
                let enable = "+memory +pids +cpu";
                write(&root.join("cgroup.subtree_control"), enable)?;
                let parent = root.join(group);
                mkdir(&parent)?;
                write(&parent.join("cgroup.subtree_control"), enable)?;
                let dir = parent.join(job);
                mkdir(&dir)?;
                let cg = JobCgroup {
                    v2: true,
                    dirs: vec![dir],
                    removed: false,
                };
                let dir = &cg.dirs[0];
                write(&dir.join("memory.max"), &limits.memory_bytes.to_string())?;
                let swap = dir.join("memory.swap.max");
                if swap.exists() {
                    write(&swap, "0")?;
                }
                write(&dir.join("pids.max"), &limits.pids.to_string())?;
                write(&dir.join("cpu.max"), &format!("{quota} {CPU_PERIOD_US}"))?;
                Ok(cg)
            }
        }
    }

    /// The `cgroup.procs` files a process must write its pid to in order to join.
    pub(crate) fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    /// Whether the kernel's OOM killer killed a process of this cgroup.
    pub(crate) fn oom_killed(&self) -> bool {
        let (file, key) = if self.v2 {
            ("memory.events", "oom_kill")
        } else {
            ("memory.oom_control", "oom_kill")
        };
        fs::read_to_string(self.dirs[0].join(file))
            .map(|text| counter(&text, key) > 0)
            .unwrap_or(false)
    }

    fn members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self
            .dirs
            .iter()
            .filter_map(|d| fs::read_to_string(d.join("cgroup.procs")).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| l.trim().parse::<i32>().ok())
                    .collect::<Vec<_>>()
            })
            // Never signal init or "every process" by accident, whatever the file says.
            .filter(|&p| p > 1)
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Kills every process in the cgroup and waits until none is left.
    pub(crate) fn kill_all(&self, patience: Duration) -> Result<(), SandboxError> {
        self.kill_all_but(None, patience)
    }

    /// Kills every process in the cgroup except `spare` and waits until only it is left.
    ///
    /// The harness spares the sandbox's outermost process (our child) on a timeout: killed
    /// together with its own child, that child would be orphaned to the host's init and stay
    /// a zombie where the init does not reap (as in some containers). Killed alone, the child
    /// (the pid namespace's init) takes the namespace with it and is reaped by its parent.
    pub(crate) fn kill_all_but(
        &self,
        spare: Option<i32>,
        patience: Duration,
    ) -> Result<(), SandboxError> {
        if self.removed {
            return Ok(());
        }
        if self.v2 && spare.is_none() {
            let file = self.dirs[0].join("cgroup.kill");
            // Kernels before 5.14 lack cgroup.kill: the loop below then does the work.
            if file.exists() {
                write(&file, "1")?;
            }
        }
        let deadline = Instant::now() + patience;
        let mut pause = Duration::from_micros(500);
        loop {
            let mut members = self.members();
            members.retain(|&p| Some(p) != spare);
            if members.is_empty() {
                return Ok(());
            }
            // A member that forks between our read and its kill is caught by the next round;
            // a killed process cannot fork any more, so the rounds end.
            for pid in members {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            if Instant::now() >= deadline {
                return Err(SandboxError::Unkillable(patience));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// Removes the directories (the cgroup must be empty).
    pub(crate) fn remove(&mut self) {
        if self.removed {
            return;
        }
        for dir in &self.dirs {
            // An emptied cgroup can stay busy (EBUSY) for a moment while the last tasks are
            // reaped; other errors do not go away by waiting.
            let deadline = Instant::now() + Duration::from_secs(2);
            loop {
                match fs::remove_dir(dir) {
                    Ok(()) => break,
                    Err(e) if e.kind() == ErrorKind::NotFound => break,
                    Err(e) if e.kind() == ErrorKind::ResourceBusy && Instant::now() < deadline => {
                        tracing::debug!(dir = %dir.display(), error = %e, "cgroup busy, retrying");
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => {
                        tracing::warn!(dir = %dir.display(), error = %e, "cannot remove cgroup");
                        break;
                    }
                }
            }
        }
        self.removed = true;
    }
}

/// Kills and removes the job cgroups under `group` left by servers that are gone (named
/// `<pid>-<n>` or `probe-<pid>`, see [`crate::sweep`]); how many were removed.
pub(crate) fn remove_stale(layout: &Layout, group: &str) -> usize {
    let (v2, parents): (bool, Vec<PathBuf>) = match layout {
        Layout::V1(root) => (
            false,
            V1_CONTROLLERS
                .iter()
                .map(|c| root.join(c).join(group))
                .collect(),
        ),
        Layout::V2(root) => (true, vec![root.join(group)]),
    };
    let mut names: Vec<String> = ["", "probe-"]
        .iter()
        .flat_map(|prefix| crate::sweep::stale(&parents[0], prefix))
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
        .collect();
    names.sort();
    names.dedup();
    for name in &names {
        tracing::info!(cgroup = %name, "removing the cgroup of a job whose server is gone");
        // Dropping kills whatever is still inside and removes the directories.
        drop(JobCgroup {
            v2,
            dirs: parents.iter().map(|p| p.join(name)).collect(),
            removed: false,
        });
    }
    names.len()
}

impl Drop for JobCgroup {
    fn drop(&mut self) {
        if let Err(e) = self.kill_all(Duration::from_secs(5)) {
            tracing::error!(error = %e, "processes survived the end of a sandbox job");
        }
        self.remove();
    }
}

/// The value of `key` in a flat keyed file such as `memory.events` ("oom_kill 3").
fn counter(text: &str, key: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            memory_bytes: 64 << 20,
            pids: 32,
            cpu: 0.5,
            ..Limits::default()
        }
    }

    #[test]
    fn v2_layout_against_a_fake_tree() {
        let root = tempfile::tempdir().expect("tempdir");
        fs::write(root.path().join("cgroup.controllers"), "cpu memory pids\n").expect("write");
        let layout = detect(root.path()).expect("detect");
        assert_eq!(layout, Layout::V2(root.path().to_path_buf()));

        let mut cg = JobCgroup::create(&layout, "ww", "job1", &limits()).expect("create");
        let dir = root.path().join("ww/job1");
        let read = |f: &str| fs::read_to_string(dir.join(f)).expect(f);
        assert_eq!(read("memory.max"), (64u64 << 20).to_string());
        assert_eq!(read("pids.max"), "32");
        assert_eq!(read("cpu.max"), "50000 100000");
        assert_eq!(
            fs::read_to_string(root.path().join("ww/cgroup.subtree_control")).expect("read"),
            "+memory +pids +cpu"
        );
        assert_eq!(cg.procs_files(), vec![dir.join("cgroup.procs")]);

        assert!(!cg.oom_killed());
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n",
        )
        .expect("write");
        assert!(cg.oom_killed());

        // A kernel with cgroup.kill gets "1" written to it; an empty cgroup.procs ends the wait.
        fs::write(dir.join("cgroup.kill"), "").expect("write");
        fs::write(dir.join("cgroup.procs"), "").expect("write");
        cg.kill_all(Duration::from_millis(100)).expect("kill");
        assert_eq!(read("cgroup.kill"), "1");

        // The fake directory still holds files, so rmdir fails; removal must not panic or hang.
        cg.remove();
    }

    #[test]
    fn v1_needs_every_controller() {
        let root = tempfile::tempdir().expect("tempdir");
        for c in ["memory", "pids"] {
            fs::create_dir(root.path().join(c)).expect("mkdir");
            fs::write(root.path().join(c).join("cgroup.procs"), "").expect("write");
        }
        let err = detect(root.path()).expect_err("cpu is missing");
        assert!(err.to_string().contains("cpu"), "{err}");
        fs::create_dir(root.path().join("cpu")).expect("mkdir");
        fs::write(root.path().join("cpu/cgroup.procs"), "").expect("write");
        assert_eq!(
            detect(root.path()).expect("v1"),
            Layout::V1(root.path().to_path_buf())
        );
    }

    #[test]
    fn counters() {
        assert_eq!(
            counter("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill"),
            2
        );
        assert_eq!(counter("garbage", "oom_kill"), 0);
    }
}
