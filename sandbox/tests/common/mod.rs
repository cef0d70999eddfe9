//! Helpers for the sandbox's real tests: each case runs on every backend (bwrap, podman).

#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::ops::Range;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wheelwright_sandbox::{
    BwrapConfig, BwrapSandbox, ImageOptions, ImageStep, Job, Limits, PodmanConfig, PodmanSandbox,
    Sandbox, ensure_image,
};

/// Which backends the tests run on: a comma-separated list, `bwrap,podman` by default.
pub const BACKENDS_VAR: &str = "WHEELWRIGHT_SANDBOX_BACKENDS";

/// One backend's sandbox for one test; its slots run as `base..base + slots`.
pub struct Backend {
    pub name: &'static str,
    pub sandbox: Arc<dyn Sandbox>,
    pub base: u32,
}

/// Runs `case` once on each backend in turn, announcing each (the announcement shows in a
/// failing test's output). Tests in one binary run in parallel, so each test passes its own
/// uid base (bwrap uses `base`, podman `base + 50`): "no process of this uid is left" then
/// means this test's.
///
/// Fails (never skips) when a backend cannot be created: CI runs as root with bwrap and podman
/// installed (`scripts/setup`), and a silently skipped security test would prove nothing. To
/// leave a backend out on purpose, list the others in `WHEELWRIGHT_SANDBOX_BACKENDS`; each
/// left-out backend is then reported as skipped on stderr.
pub fn each_backend(base: u32, slots: usize, case: impl Fn(&Backend)) {
    assert!(
        nix::unistd::Uid::effective().is_root(),
        "these tests need root (per-slot uids and cgroups); CI runs them as root"
    );
    for name in ["bwrap", "podman"] {
        if !selected(name) {
            eprintln!("SKIPPED on {name}: not listed in {BACKENDS_VAR}");
            continue;
        }
        let backend = match name {
            "bwrap" => Backend {
                name,
                sandbox: Arc::new(bwrap(base, slots)),
                base,
            },
            _ => Backend {
                name,
                sandbox: Arc::new(podman(base + 50, slots)),
                base: base + 50,
            },
        };
        eprintln!("--- on {name} ---");
        case(&backend);
        // Whatever the case did, nothing of its uids runs on.
        let uids = backend.base..backend.base + slots as u32;
        assert_eq!(processes_of(uids), vec![], "left running on {name}");
    }
}

/// Whether the backend `name` is to be tested (see [`BACKENDS_VAR`]).
pub fn selected(name: &str) -> bool {
    let chosen = std::env::var(BACKENDS_VAR).unwrap_or_else(|_| "bwrap,podman".into());
    chosen.split(',').any(|b| b.trim() == name)
}

/// A bwrap sandbox whose slots run as `base..base + slots`.
pub fn bwrap(base: u32, slots: usize) -> BwrapSandbox {
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

/// A podman sandbox whose slots run as `base..base + slots`; builds the image first if it is
/// missing (once per test binary; about two minutes).
pub fn podman(base: u32, slots: usize) -> PodmanSandbox {
    static IMAGE: OnceLock<Result<(), String>> = OnceLock::new();
    let image = IMAGE.get_or_init(|| {
        ensure_image(&ImageOptions::default(), |step| {
            if !matches!(step, ImageStep::Reused(_)) {
                eprintln!("podman image: {step:?}");
            }
        })
        .map_err(|e| e.to_string())
    });
    if let Err(e) = image {
        panic!(
            "cannot build the podman image: {e} (or leave podman out: \
             {BACKENDS_VAR}=bwrap)"
        );
    }
    let config = PodmanConfig {
        slots,
        base_uid: base,
        ..PodmanConfig::default()
    };
    match PodmanSandbox::new(config) {
        Ok(sandbox) => sandbox,
        Err(e) => panic!(
            "cannot create the podman sandbox: {e} (or leave podman out: {BACKENDS_VAR}=bwrap)"
        ),
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
