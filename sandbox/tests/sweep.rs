//! A new sandbox removes what a killed server left: staging directories, cgroups (with their processes) and containers named after a pid that is gone.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wheelwright_sandbox::{BwrapConfig, BwrapSandbox, DEFAULT_IMAGE, PodmanConfig, PodmanSandbox};

/// Above the kernel's largest pid (4194304): no process ever has it.
const DEAD: u32 = 4_194_400;

/// The cgroup directories a job named `job` has under `group` on this host.
fn cgroup_dirs(group: &str, job: &str) -> Vec<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    if root.join("cgroup.controllers").exists() {
        vec![root.join(group).join(job)]
    } else {
        ["memory", "pids", "cpu"]
            .iter()
            .map(|c| root.join(c).join(group).join(job))
            .collect()
    }
}

#[test]
fn a_new_bwrap_sandbox_sweeps_what_a_dead_server_left() {
    assert!(
        nix::unistd::Uid::effective().is_root(),
        "needs root (cgroups)"
    );
    let staging = tempfile::tempdir().unwrap();
    let group = format!("wheelwright-sweep-{}", std::process::id());
    let stale_dir = staging
        .path()
        .join(format!("wheelwright-sandbox-{DEAD}-abc"));
    let live_dir = staging
        .path()
        .join(format!("wheelwright-sandbox-{}-xyz", std::process::id()));
    for dir in [&stale_dir, &live_dir] {
        std::fs::create_dir_all(dir.join("in/solutions")).unwrap();
        std::fs::write(dir.join("in/solutions/x.py"), "secret = 1\n").unwrap();
    }
    // A stale job cgroup with a process still in it.
    let stale = cgroup_dirs(&group, &format!("{DEAD}-3"));
    for dir in &stale {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut sleeper = Command::new("sleep").arg("86403.5").spawn().unwrap();
    std::fs::write(stale[0].join("cgroup.procs"), sleeper.id().to_string()).unwrap();

    let sandbox = BwrapSandbox::new(BwrapConfig {
        slots: 1,
        base_uid: 65800,
        staging_root: staging.path().to_owned(),
        cgroup_group: group.clone(),
        ..BwrapConfig::default()
    })
    .expect("a sandbox");
    assert!(
        !stale_dir.exists(),
        "the dead server's staging directory is removed"
    );
    assert!(
        live_dir.exists(),
        "a live server's staging directory is kept"
    );
    assert!(
        stale.iter().all(|d| !d.exists()),
        "the stale cgroup is removed"
    );
    // The process in it was killed: waiting returns at once with SIGKILL.
    let status = sleeper.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    drop(sandbox);
    for dir in cgroup_dirs(&group, "") {
        let _ = std::fs::remove_dir(dir);
    }
}

#[test]
fn a_new_podman_sandbox_removes_containers_of_a_dead_server() {
    if !common::selected("podman") {
        eprintln!("SKIPPED: podman not listed in {}", common::BACKENDS_VAR);
        return;
    }
    // Builds the image if needed (and proves the engine works here).
    drop(common::podman(65850, 1));
    let name = format!("wheelwright-{DEAD}-0-deadbeef");
    // Left over by an earlier failed run of this test, if any.
    let _ = Command::new("podman").args(["rm", "-f", &name]).output();
    let started = Command::new("podman")
        .args(["run", "-d", "--runtime=runc", "--name", &name])
        .args(["--ulimit=nofile=1024:1024", "--ulimit=nproc=64:64"])
        .args([
            "--label=wheelwright.sandbox=1",
            DEFAULT_IMAGE,
            "sleep",
            "600",
        ])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(started.success());
    let listed = || {
        let out = Command::new("podman")
            .args(["ps", "-a", "--format", "{{.Names}}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains(&name)
    };
    assert!(listed());
    let sandbox = PodmanSandbox::new(PodmanConfig {
        slots: 1,
        base_uid: 65860,
        ..PodmanConfig::default()
    })
    .expect("a sandbox");
    assert!(!listed(), "the dead server's container is removed");
    drop(sandbox);
}
