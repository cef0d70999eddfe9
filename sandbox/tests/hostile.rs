//! Hostile submissions against each real backend (bwrap, podman): each attack must fail, the
//! host unharmed.

use crate::common;

use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{each_backend, processes_of, python, short, text};
use wheelwright_sandbox::{Collect, Status};

#[test]
fn network_is_unreachable() {
    each_backend(64100, 1, |b| {
        let sb = &*b.sandbox;
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let src = format!(
            r#"
import socket
for host in ["127.0.0.1", "151.101.0.223", "pypi.org"]:
    try:
        socket.create_connection((host, {port} if host == "127.0.0.1" else 443), timeout=2)
        print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, e)
"#
        );
        let out = sb.run(&python(&src, short())).expect("run");
        let output = text(&out.output);
        assert_eq!(out.status, Status::Exited(0), "{output}");
        assert!(!output.contains("CONNECTED"), "{output}");
        assert_eq!(output.matches("blocked").count(), 3, "{output}");
        match listener.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("the host listener saw a connection: {other:?}"),
        }
    });
}

#[test]
fn secrets_outside_the_job_are_unreadable() {
    each_backend(64200, 2, |b| {
        let sb = &b.sandbox;
        // A "reference solution" on the host, readable by everyone, outside every bind.
        let host_dir = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(host_dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        let reference = host_dir.path().join("reference_solution.py");
        fs::write(&reference, "REFERENCE-SOLUTION").expect("write");
        fs::set_permissions(&reference, fs::Permissions::from_mode(0o644)).expect("chmod");

        // Job A (slot 0) holds a secret in its inputs and its workspace while B (slot 1) looks.
        let mut a = python(
            "open('/work/own.txt', 'w').write('A-WORKSPACE-SECRET'); import time; time.sleep(4)",
            short(),
        );
        a.inputs = vec![("secret.txt".into(), b"A-STAGED-SECRET".to_vec())];
        let sb_a = std::sync::Arc::clone(sb);
        let job_a = std::thread::spawn(move || sb_a.run(&a));

        // Find A's staging directory on the host: owned by slot 0's uid.
        let deadline = Instant::now() + Duration::from_secs(3);
        let staging = loop {
            let found = fs::read_dir(std::env::temp_dir())
                .expect("temp dir")
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("wheelwright-sandbox-"))
                        && fs::metadata(p).is_ok_and(|m| m.uid() == b.base)
                });
            if let Some(p) = found {
                break p;
            }
            assert!(
                Instant::now() < deadline,
                "job A's staging directory never appeared"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(500));

        // Outside any sandbox: slot 1's uid cannot read slot 0's staging directory either.
        let direct = Command::new("setpriv")
            .arg(format!("--reuid={}", b.base + 1))
            .arg(format!("--regid={}", b.base + 1))
            .args(["--clear-groups", "--", "cat"])
            .arg(staging.join("secret.txt"))
            .output()
            .expect("setpriv");
        assert!(
            !direct.status.success(),
            "slot 1's uid read slot 0's staging files on the host"
        );

        let src = format!(
            r#"
import glob, os
targets = [{staging:?} + "/secret.txt", "/etc/shadow", "/root", "/home", {reference:?},
           "/in/secret.txt"]
targets += glob.glob("/proc/*/root/work/own.txt") + glob.glob("/proc/*/cwd/own.txt")
targets += glob.glob("/tmp/wheelwright-sandbox-*/*")
for t in targets:
    try:
        if os.path.isdir(t):
            # An empty directory (a container image's own /home) tells nothing.
            entries = os.listdir(t)
            print("LISTED" if entries else "empty", t, entries)
        else:
            print("READ", t, open(t).read())
    except OSError as e:
        print("denied", t, type(e).__name__)
others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
print("other pids visible:", others)
# Only stdin, stdout, stderr and the directory being listed: nothing leaked from the host.
print("fds:", sorted(os.listdir("/proc/self/fd"), key=int))
"#,
            staging = staging.display().to_string(),
            reference = reference.display().to_string(),
        );
        let out = sb.run(&python(&src, short())).expect("run B");
        let output = text(&out.output);
        let a_out = job_a.join().expect("join").expect("run A");
        assert_eq!(a_out.status, Status::Exited(0), "{}", text(&a_out.output));
        assert_eq!(out.status, Status::Exited(0), "{output}");
        for secret in [
            "A-STAGED-SECRET",
            "A-WORKSPACE-SECRET",
            "REFERENCE-SOLUTION",
            "root:",
        ] {
            assert!(!output.contains(secret), "leaked {secret}: {output}");
        }
        assert!(
            !output.contains("READ") && !output.contains("LISTED"),
            "{output}"
        );
        // Only the wrapper (pid 1) and python itself exist in B's pid namespace.
        assert!(output.contains("other pids visible: []"), "{output}");
        assert!(output.contains("fds: ['0', '1', '2', '3']"), "{output}");
    });
}

#[test]
fn writes_outside_the_workspace_fail() {
    each_backend(64300, 1, |b| {
        let sb = &*b.sandbox;
        // World-writable on purpose: only the sandbox can keep the job out.
        let host_dir = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(host_dir.path(), fs::Permissions::from_mode(0o777)).expect("chmod");
        let victim = host_dir.path().join("victim.txt");
        fs::write(&victim, "ORIGINAL").expect("write");
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o666)).expect("chmod");

        let src = format!(
            r#"
import os, subprocess
def attempt(name, f):
    try:
        f(); print("SUCCEEDED", name)
    except Exception as e:
        print("failed", name, type(e).__name__)
attempt("victim", lambda: open({victim:?}, "w").write("PWNED"))
attempt("new host file", lambda: open({new:?}, "w").write("PWNED"))
attempt("usr", lambda: open("/usr/pwned", "w").write("x"))
attempt("input", lambda: open("/in/tests/test_hidden.py", "w").write("PWNED"))
attempt("input rename", lambda: os.rename("/in/tests/test_hidden.py", "/in/x.py"))
attempt("input unlink", lambda: os.unlink("/in/tests/test_hidden.py"))
r = subprocess.run(["mount", "-o", "remount,rw", "/in"], capture_output=True)
print("remount", "SUCCEEDED" if r.returncode == 0 else "failed")
attempt("input after remount", lambda: open("/in/tests/test_hidden.py", "w").write("PWNED"))
print("input now:", open("/in/tests/test_hidden.py").read())
open("/work/tests/test_hidden.py", "w").write("a workspace copy is the job's own")
"#,
            victim = victim.display().to_string(),
            new = host_dir.path().join("new.txt").display().to_string(),
        );
        let mut job = python(&src, short());
        job.inputs = vec![("tests/test_hidden.py".into(), b"HIDDEN".to_vec())];
        let out = sb.run(&job).expect("run");
        let output = text(&out.output);
        assert_eq!(out.status, Status::Exited(0), "{output}");
        assert!(!output.contains("SUCCEEDED"), "{output}");
        assert!(output.contains("input now: HIDDEN"), "{output}");
        assert_eq!(fs::read_to_string(&victim).expect("read"), "ORIGINAL");
        assert!(!host_dir.path().join("new.txt").exists());
        assert!(!Path::new("/usr/pwned").exists());
    });
}

#[test]
fn fork_bomb_is_bounded() {
    each_backend(64400, 1, |b| {
        let sb = &*b.sandbox;
        let limits = wheelwright_sandbox::Limits {
            wall: Duration::from_secs(3),
            ..short()
        };
        let src = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass";
        let started = Instant::now();
        let out = sb.run(&python(src, limits)).expect("run");
        assert_eq!(out.status, Status::TimedOut, "{}", text(&out.output));
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "took {:?}",
            started.elapsed()
        );
        assert_eq!(processes_of(b.base..b.base + 1), vec![]);
        // The host can still start processes.
        assert!(Command::new("true").status().expect("spawn").success());
    });
}

#[test]
fn memory_hog_is_killed() {
    each_backend(64500, 1, |b| {
        let sb = &*b.sandbox;
        // 8 GiB in touched 64 MiB pieces, against a 256 MiB limit.
        let src = "chunks = []\nfor _ in range(128):\n    chunks.append(b'x' * (64 << 20))\nprint('ALLOCATED 8 GiB')";
        let out = sb.run(&python(src, short())).expect("run");
        let output = text(&out.output);
        assert_eq!(out.status, Status::OutOfMemory, "{output}");
        assert!(!output.contains("ALLOCATED"), "{output}");
        // podman's conmon drops an `oom` file into the client's working directory: not ours.
        assert!(
            !Path::new("oom").exists(),
            "an `oom` file appeared in the test's directory"
        );
    });
}

#[test]
fn infinite_loop_times_out() {
    each_backend(64600, 1, |b| {
        let sb = &*b.sandbox;
        let limits = wheelwright_sandbox::Limits {
            wall: Duration::from_secs(2),
            ..short()
        };
        let out = sb.run(&python("while True: pass", limits)).expect("run");
        assert_eq!(out.status, Status::TimedOut);
        assert!(
            out.duration >= Duration::from_secs(2) && out.duration < Duration::from_millis(3500),
            "{:?}",
            out.duration
        );
        assert_eq!(processes_of(b.base..b.base + 1), vec![]);
    });
}

#[test]
fn a_gigabyte_of_output_is_capped() {
    each_backend(64700, 1, |b| {
        let sb = &*b.sandbox;
        let limits = wheelwright_sandbox::Limits {
            wall: Duration::from_secs(60),
            ..short()
        };
        let src = "import sys\nchunk = b'y' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.buffer.write(chunk)\nsys.stdout.flush()\nprint('DONE', file=sys.stderr)";
        let out = sb.run(&python(src, limits)).expect("run");
        assert_eq!(out.status, Status::Exited(0));
        assert!(out.output_truncated);
        assert_eq!(out.output.len(), limits.output_bytes);
        assert!(out.output.iter().all(|&b| b == b'y'));
        assert!(out.duration < Duration::from_secs(30), "{:?}", out.duration);
    });
}

#[test]
fn daemons_die_with_the_job() {
    each_backend(64800, 1, |b| {
        let sb = &*b.sandbox;
        let src = r#"
import os, subprocess, time
# A double-forked, session-leading daemon, and a plain background process.
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
subprocess.Popen(["sleep", "1000"], start_new_session=True)
time.sleep(0.3)
print("left daemons behind")
"#;
        let out = sb.run(&python(src, short())).expect("run");
        assert_eq!(out.status, Status::Exited(0), "{}", text(&out.output));
        assert_eq!(processes_of(b.base..b.base + 1), vec![]);
    });
}

/// Bytes available to unprivileged users on the file system holding `path`.
fn available(path: &Path) -> u64 {
    let out = Command::new("df")
        .args(["-B1", "--output=avail"])
        .arg(path)
        .output()
        .expect("df");
    text(&out.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("df output")
}

#[test]
fn filling_the_workspace_stops_at_its_size() {
    each_backend(64900, 1, |b| {
        let sb = &*b.sandbox;
        let limits = wheelwright_sandbox::Limits {
            workspace_bytes: 4 << 20,
            ..short()
        };
        let src = r#"
import errno
written = 0
try:
    for i in range(1 << 20):
        with open(f"/work/f{i}", "wb") as f:
            f.write(b"z" * 4096)
        written += 4096
except OSError as e:
    print("stopped", errno.errorcode[e.errno], written)
"#;
        let before = available(&std::env::temp_dir());
        let out = sb.run(&python(src, limits)).expect("run");
        let after = available(&std::env::temp_dir());
        let output = text(&out.output);
        assert_eq!(out.status, Status::Exited(0), "{output}");
        let written: u64 = output
            .strip_prefix("stopped ENOSPC ")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| panic!("the workspace did not fill up: {output}"));
        assert!(written <= 4 << 20, "{written}");
        // The job would have written 4 GiB; the host lost nothing like it (other builds share the
        // disk, hence the generous margin).
        assert!(
            before.saturating_sub(after) < 1 << 30,
            "{before} -> {after}"
        );
    });
}

#[test]
fn fd3_cannot_be_tampered_with() {
    each_backend(65000, 1, |b| {
        let sb = &*b.sandbox;
        let mut job = python(
            r#"
import os, sys
try:
    os.write(3, b"FORGED\nWWEND 0 6\n"); print("WROTE fd 3")
except OSError as e:
    print("fd 3:", e)
# The wrapper's pipe is reachable through /proc (dash keeps it as a saved fd while the
# command runs): write a forged frame into every pipe the wrapper holds.
for fd in os.listdir("/proc/1/fd"):
    try:
        if os.readlink(f"/proc/1/fd/{fd}").startswith("pipe:"):
            with open(f"/proc/1/fd/{fd}", "wb") as f:
                f.write(b"FORGED\nWWEND 0 6\n")
            print("forged through fd", fd)
    except OSError as e:
        print("proc fd", fd, e)
# A daemon that keeps forging after the command exits.
if os.fork() == 0:
    import time
    end = time.time() + 5
    while time.time() < end:
        try:
            for fd in os.listdir("/proc/1/fd"):
                with open(f"/proc/1/fd/{fd}", "wb") as f:
                    f.write(b"FORGED\nWWEND 0 6\n")
        except OSError:
            pass
    os._exit(0)
open("/work/report.xml", "w").write("GENUINE")
sys.exit(3)
"#,
            short(),
        );
        job.collect = Collect::File("report.xml".into());
        let out = sb.run(&job).expect("run");
        let output = text(&out.output);
        assert!(
            output.contains("fd 3: [Errno 9] Bad file descriptor"),
            "{output}"
        );
        eprintln!("{output}");
        assert_eq!(out.status, Status::Exited(3), "{output}");
        assert_eq!(out.collected.as_deref(), Some(&b"GENUINE"[..]), "{output}");

        // The wrapper is the namespace's init, which the submission cannot kill; the forged frame
        // still loses to the wrapper's, which says there is no report.
        let mut job = python(
            r#"
import os, signal
for fd in os.listdir("/proc/1/fd"):
    try:
        with open(f"/proc/1/fd/{fd}", "wb") as f:
            f.write(b"FORGED\nWWEND 0 6\n")
    except OSError:
        pass
os.kill(1, signal.SIGKILL)
print("wrapper survived")
"#,
            short(),
        );
        job.collect = Collect::File("report.xml".into());
        let out = sb.run(&job).expect("run");
        let output = text(&out.output);
        assert_eq!(out.collected, None, "{output}");
        assert_eq!(out.status, Status::Exited(0), "{output}");
        assert!(output.contains("wrapper survived"), "{output}");
    });
}

#[test]
fn cpu_is_throttled_to_the_limit() {
    each_backend(65400, 1, |b| {
        let sb = &*b.sandbox;
        let limits = wheelwright_sandbox::Limits {
            cpu: 0.25,
            ..short()
        };
        let src = r#"
import os, time
start = time.monotonic()
while time.monotonic() - start < 2:
    pass
t = os.times()
print("share", (t.user + t.system) / (time.monotonic() - start))
"#;
        let out = sb.run(&python(src, limits)).expect("run");
        let output = text(&out.output);
        assert_eq!(out.status, Status::Exited(0), "{output}");
        let share: f64 = output
            .trim()
            .strip_prefix("share ")
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{output}"));
        eprintln!("cpu share {share}");
        // A quarter of a core, with room for the CFS period's granularity.
        assert!(share < 0.4, "used {share} of a core with a limit of 0.25");
    });
}
