//! Helpers for the sandbox's real-bwrap tests: one sandbox per test, each on its own uid range.

#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::ops::Range;
use std::time::Duration;

use wheelwright_sandbox::{BwrapConfig, BwrapSandbox, Job, Limits};

/// A sandbox whose slots run as `base..base + slots`. Tests in one binary run in parallel, so
/// each test passes its own base: "no process of this uid is left" then means this test's.
///
/// Fails (never skips) without root or bwrap: CI runs as root with bwrap installed, and a
/// silently skipped security test would prove nothing.
pub fn sandbox(base: u32, slots: usize) -> BwrapSandbox {
    assert!(
        nix::unistd::Uid::effective().is_root(),
        "these tests need root (per-slot uids and cgroups); CI runs them as root"
    );
    let config = BwrapConfig {
        slots,
        base_uid: base,
        ..BwrapConfig::default()
    };
    match BwrapSandbox::new(config) {
        Ok(sandbox) => sandbox,
        Err(e) => panic!("cannot create the bwrap sandbox: {e}"),
    }
}

/// Short limits so the hostile tests stay fast.
pub fn short() -> Limits {
    Limits {
        wall: Duration::from_secs(10),
        memory_bytes: 256 << 20,
        pids: 64,
        workspace_bytes: 16 << 20,
        output_bytes: 64 << 10,
        ..Limits::default()
    }
}

/// A job running a Python program given as source.
pub fn python(source: &str, limits: Limits) -> Job {
    let mut job = Job::command(["/usr/bin/python3", "-c", source]);
    job.limits = limits;
    job
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Processes (pid, command line) whose real uid lies in `uids`.
pub fn processes_of(uids: Range<u32>) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(status) = fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|u| u.parse::<u32>().ok());
        if uid.is_some_and(|u| uids.contains(&u)) {
            let cmd = fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((pid, text(&cmd).replace('\0', " ")));
        }
    }
    found
}
