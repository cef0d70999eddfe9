//! Removing what a killed server left behind: staging directories, cgroups and containers named after a process that is gone.
//!
//! Every per-job resource carries the pid of the server that made it
//! (`wheelwright-sandbox-<pid>-…`, cgroup `<group>/<pid>-<n>`, container
//! `wheelwright-<pid>-…`). A server killed mid-job (SIGKILL, a crash, a power cut) cannot
//! clean up; its staging directories hold copies of a submission and the judge's inputs,
//! and its cgroups stay behind. A new sandbox sweeps them when it is created: whatever is
//! named after a pid that no longer runs is removed. Resources of servers still running on
//! the same host (another server, a `wheelwright test`) are left alone.

use std::fs;
use std::path::{Path, PathBuf};

/// Whether a process with this pid runs (on this host's pid namespace).
pub(crate) fn pid_alive(pid: u32) -> bool {
    pid > 0 && Path::new(&format!("/proc/{pid}")).exists()
}

/// The pid in a name `<prefix><pid>-<rest>` (or `<prefix><pid>` when `rest` may be empty).
pub(crate) fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?;
    let digits = rest.split('-').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Entries of `dir` named `<prefix><pid>-…` whose pid no longer runs and is not ours.
pub(crate) fn stale(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = std::process::id();
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| owner_pid(n, prefix))
                .is_some_and(|pid| pid != me && !pid_alive(pid))
        })
        .map(|e| e.path())
        .collect()
}

/// Removes the stale staging directories under `root` with names starting with `prefix`;
/// how many were removed.
pub(crate) fn remove_stale_dirs(root: &Path, prefix: &str) -> usize {
    let mut removed = 0;
    for dir in stale(root, prefix) {
        // Never follow a link someone planted under the staging root.
        let is_dir = fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
        if !is_dir {
            continue;
        }
        match fs::remove_dir_all(&dir) {
            Ok(()) => removed += 1,
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot remove a stale job directory")
            }
        }
    }
    if removed > 0 {
        tracing::info!(removed, root = %root.display(), "removed job directories of servers that are gone");
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_read_from_names() {
        for (name, want) in [
            ("wheelwright-sandbox-123-abc", Some(123)),
            ("wheelwright-sandbox-9", Some(9)),
            ("wheelwright-sandbox-x1-abc", None),
            ("wheelwright-sandbox--abc", None),
            ("other-123-abc", None),
        ] {
            assert_eq!(owner_pid(name, "wheelwright-sandbox-"), want, "{name}");
        }
    }

    #[test]
    fn only_directories_of_dead_processes_are_removed() {
        let root = tempfile::tempdir().expect("tempdir");
        let me = std::process::id();
        // A pid above the kernel's maximum (4194304) never runs.
        let dead = 4_194_400;
        for name in [
            format!("wheelwright-sandbox-{me}-live"),
            format!("wheelwright-sandbox-{dead}-dead"),
            "wheelwright-sandbox-1-init".to_owned(),
            "unrelated".to_owned(),
        ] {
            fs::create_dir_all(root.path().join(&name).join("in")).expect("mkdir");
        }
        assert_eq!(remove_stale_dirs(root.path(), "wheelwright-sandbox-"), 1);
        let mut left: Vec<String> = fs::read_dir(root.path())
            .expect("read")
            .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "unrelated".to_owned(),
                "wheelwright-sandbox-1-init".to_owned(),
                format!("wheelwright-sandbox-{me}-live"),
            ]
        );
    }
}
