//! The backend-independent part of running a job: launch into a cgroup, wall clock, capped
//! output, the result channel (fd 3) and killing whatever is left.
//!
//! Process tree (bubblewrap backend):
//!
//! ```text
//! job thread ── /bin/sh SHIM (root: joins the cgroup, lowers rlimits, moves the result pipe
//!                 from fd 0 to fd 3) ─exec→ setpriv ─exec→ bwrap
//!                   └─ /bin/sh WRAPPER (pid 1 of the sandbox: copies /in to /work, runs the
//!                        command with fd 3 closed, kills what it left, writes the result frame)
//! ```
//!
//! The shim puts itself in the cgroup before it execs, so no descendant can be forked outside
//! it (writing the pid from here after `spawn` would race with the first fork).
//!
//! A container backend (podman) has no cgroup of ours: the engine makes one per container,
//! the wrapper reports that cgroup's OOM kills in its frame, the result stream arrives on the
//! engine client's stderr ([`Channel::Stderr`]) and a stop command removes the container on a
//! timeout (killing the client would leave it running).

use std::ffi::OsString;
use std::io::{ErrorKind, PipeReader, Read};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::cgroup::JobCgroup;
use crate::error::SandboxError;
use crate::job::{Limits, Outcome, Status};

/// Runs on the host as the server's user, before privileges are dropped. Arguments: the number
/// of `cgroup.procs` files, those files, then the command to exec.
const SHIM: &str = r#"n=$1; shift
while [ "$n" -gt 0 ]; do
  echo $$ > "$1" || { echo "wheelwright-sandbox: cannot join the cgroup $1" >&2; exit 125; }
  shift; n=$((n - 1))
done
ulimit -c 0
ulimit -n 4096 2>/dev/null
exec 3>&0 0</dev/null
exec "$@""#;

/// Runs inside the sandbox as its init (pid 1), so the submission cannot kill it. Arguments:
/// what to collect (`none`, `file:<relative path>` or `stream`, see [`crate::Collect`]), the
/// largest size to send back, then the command.
///
/// The command runs with fd 3 closed (with `stream`, fd 4 is the result channel). It could
/// still reach the pipe through `/proc/<wrapper>/fd/3`, so after it exits every other process
/// in the namespace is killed (`kill -1` from init spares only init) and the frame written
/// last is the only one the host trusts (see [`parse_frame`]).
///
/// The frame also carries the OOM kill count of the cgroup the sandbox sees at
/// `/sys/fs/cgroup` (v1 or v2 layout), `-` when there is none: containers see their own
/// cgroup there, which the engine removes with the container; bwrap mounts no `/sys`. A
/// submission cannot lower the count; faking one (only where no `/sys` is mounted) could only
/// mark its own job as out of memory.
pub(crate) const WRAPPER: &str = r#"m=$1; cap=$2; shift 2
mkdir -p /work/.tmp && cp -R /in/. /work/ && cd /work || exit 125
if [ "$m" = stream ]; then "$@" 4>&3 3>&-; else "$@" 3>&-; fi
s=$?
kill -9 -1 2>/dev/null; kill -9 -1 2>/dev/null
o=-
for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do
  if [ -r "$f" ]; then
    while read -r k v; do if [ "$k" = oom_kill ]; then o=$v; fi; done < "$f"
  fi
done
case "$m" in
  stream) printf '\nWWEND %s stream %s\n' "$s" "$o" >&3 ;;
  file:*)
    c=${m#file:}
    if [ -f "$c" ]; then
      n=$(wc -c < "$c")
      if [ "$n" -le "$cap" ]; then
        cat -- "$c" >&3; printf '\nWWEND %s %s %s\n' "$s" "$n" "$o" >&3
      else
        printf '\nWWEND %s big %s\n' "$s" "$o" >&3
      fi
    else
      printf '\nWWEND %s none %s\n' "$s" "$o" >&3
    fi ;;
  *) printf '\nWWEND %s none %s\n' "$s" "$o" >&3 ;;
esac
exit 0"#;

/// Longest trailer line the wrapper writes (`\nWWEND <status> <size> <oom>\n`), with room to
/// spare.
const FRAME_SLACK: usize = 96;

/// How long to wait for processes and pipes after the kill before giving up on them.
const PATIENCE: Duration = Duration::from_secs(5);

/// A command to start in the sandbox, as the backend built it.
#[derive(Debug)]
pub(crate) struct Launch {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
    /// The host-side environment of the launcher (the environment is cleared first).
    pub(crate) env: Vec<(OsString, OsString)>,
    /// The launcher's working directory (default: the server's). conmon, podman's monitor,
    /// writes a file named `oom` into it when the container hits its memory limit.
    pub(crate) cwd: Option<PathBuf>,
    /// Where the wrapper's result stream (its fd 3) reaches the host.
    pub(crate) channel: Channel,
    /// Run (to completion, output discarded) first when the wall limit passes, e.g. removing a
    /// container by name; then the launcher is killed as usual.
    pub(crate) stop: Option<Command>,
    /// The job collects a stream ([`crate::Collect::Stream`]): what came before the frame is
    /// the result, and without a frame (a timeout) everything that came is.
    pub(crate) stream: bool,
}

/// How the result stream leaves the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    /// The launcher's fd 3 (a pipe), inherited by the wrapper (bwrap). Stdout and stderr are
    /// both the output.
    Fd3,
    /// The launcher's stderr; its stdout is the output. For engines that cannot pass extra
    /// descriptors into a container (docker): the wrapper moves its stderr to fd 3 and sends
    /// the command's stderr to stdout. What the engine itself prints on stderr lands in the
    /// result stream; when no frame comes back, it is appended to the output.
    Stderr,
}

enum Event {
    Started(u32),
    SpawnFailed(std::io::Error),
    Exited(std::io::Result<ExitStatus>),
}

/// Runs `launch` under `limits` inside `cgroup` and turns what happened into an `Outcome`.
pub(crate) fn run(
    launch: Launch,
    limits: &Limits,
    stop_flag: Option<&crate::job::StopFlag>,
    mut cgroup: Option<JobCgroup>,
) -> Result<Outcome, SandboxError> {
    let start = Instant::now();
    let io_err = |source| SandboxError::Spawn {
        program: "pipe".into(),
        source,
    };
    let (out_r, out_w) = std::io::pipe().map_err(io_err)?;
    let (frame_r, frame_w) = std::io::pipe().map_err(io_err)?;

    close_inherited_fds();
    let mut cmd = Command::new("/bin/sh");
    let procs = cgroup
        .as_ref()
        .map(JobCgroup::procs_files)
        .unwrap_or_default();
    cmd.arg("-c")
        .arg(SHIM)
        .arg("sh")
        .arg(procs.len().to_string())
        .args(&procs);
    cmd.arg(&launch.program).args(&launch.args);
    cmd.env_clear().envs(launch.env);
    if let Some(dir) = &launch.cwd {
        cmd.current_dir(dir);
    }
    match launch.channel {
        Channel::Fd3 => {
            // The result pipe goes in as stdin; the shim moves it to fd 3 (std offers no safe
            // way to place an arbitrary fd in the child, and `pre_exec` is unsafe).
            cmd.stdin(Stdio::from(frame_w));
            cmd.stdout(Stdio::from(out_w.try_clone().map_err(io_err)?));
            cmd.stderr(Stdio::from(out_w));
        }
        Channel::Stderr => {
            cmd.stdin(Stdio::null());
            cmd.stdout(Stdio::from(out_w));
            cmd.stderr(Stdio::from(frame_w));
        }
    }
    let mut stop = launch.stop;

    let output = reader(out_r, limits.output_bytes, Keep::Head)?;
    let frame = reader(
        frame_r,
        limits.collect_bytes.saturating_add(FRAME_SLACK),
        Keep::Tail,
    )?;

    // bwrap's --die-with-parent fires when the thread that spawned it ends, so the spawn and
    // the wait happen on a thread that lives exactly as long as the job.
    let (tx, rx) = mpsc::channel();
    let program = launch.program.display().to_string();
    std::thread::Builder::new()
        .name("sandbox-job".into())
        .spawn(move || {
            let spawned = cmd.spawn();
            // Our copies of the pipes' write ends must close now, or the readers never see EOF.
            drop(cmd);
            match spawned {
                Err(e) => drop(tx.send(Event::SpawnFailed(e))),
                Ok(mut child) => {
                    let _ = tx.send(Event::Started(child.id()));
                    let _ = tx.send(Event::Exited(child.wait()));
                }
            }
        })
        .map_err(|source| SandboxError::Spawn {
            program: "a sandbox thread".into(),
            source,
        })?;

    let spawn_err = |source| SandboxError::Spawn {
        program: program.clone(),
        source,
    };
    let pid = match rx.recv() {
        Ok(Event::Started(pid)) => pid,
        Ok(Event::SpawnFailed(e)) => return Err(spawn_err(e)),
        Ok(Event::Exited(_)) | Err(_) => {
            return Err(spawn_err(std::io::Error::other(
                "the job thread ended early",
            )));
        }
    };

    let deadline = start + limits.wall;
    let mut timed_out = false;
    let mut stopped = false;
    let exit = match wait(&rx, deadline, stop_flag) {
        Ok(Event::Exited(status)) => Some(status),
        Ok(_) | Err(mpsc::RecvTimeoutError::Disconnected) => None,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            stopped = stop_flag.is_some_and(crate::job::StopFlag::is_raised);
            timed_out = !stopped;
            if let Some(mut stop) = stop.take() {
                let stopped = stop
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                if !stopped.as_ref().is_ok_and(|s| s.success()) {
                    tracing::warn!(command = ?stop, result = ?stopped, "the stop command failed");
                }
            }
            // Kill everything but our own child first, so that it can reap its child (the
            // namespace's init) and exit by itself; the pid cannot have been reused, since
            // the job thread has not reaped it yet.
            let pid = pid as i32;
            match &cgroup {
                Some(cg) => cg.kill_all_but(Some(pid), PATIENCE)?,
                // Without a cgroup, the namespace's init is our child's child; the namespace
                // dies with it.
                None => kill_children(pid),
            }
            let status = match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(Event::Exited(status)) => status,
                _ => {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                    match rx.recv_timeout(PATIENCE) {
                        Ok(Event::Exited(status)) => status,
                        _ => return Err(SandboxError::Unkillable(PATIENCE)),
                    }
                }
            };
            Some(status)
        }
    };
    let exit = match exit {
        Some(Ok(status)) => status,
        Some(Err(e)) => return Err(spawn_err(e)),
        None => return Err(spawn_err(std::io::Error::other("lost the sandbox process"))),
    };

    // Anything still in the cgroup (nothing, normally: the pid namespace died with bwrap).
    let mut oom = false;
    if let Some(cg) = &cgroup {
        cg.kill_all(PATIENCE)?;
        oom = cg.oom_killed();
    }
    // Every writer is gone, so both readers reach EOF promptly.
    let (mut output, output_truncated) =
        output.recv_timeout(PATIENCE).unwrap_or((Vec::new(), true));
    let (frame, frame_truncated) = frame.recv_timeout(PATIENCE).unwrap_or_default();
    if let Some(cg) = &mut cgroup {
        cg.remove();
    }
    let duration = start.elapsed();

    // Trust the frame only if the wrapper ran to its end (it always exits 0 there); a
    // submission that killed the wrapper may have written a forged frame through /proc.
    let parsed = if exit.code() == Some(0) {
        parse_frame(&frame)
    } else {
        None
    };
    if parsed.is_none() && launch.channel == Channel::Stderr {
        // The engine's own complaint (a missing image, a bad flag) is all there is to show.
        let room = limits.output_bytes.saturating_sub(output.len());
        output.extend_from_slice(&frame[frame.len().saturating_sub(room)..]);
    }
    oom |= parsed.as_ref().is_some_and(|f| f.oom);
    let status = if stopped {
        Status::Stopped
    } else if timed_out {
        Status::TimedOut
    } else if oom {
        Status::OutOfMemory
    } else if let Some(f) = &parsed {
        shell_status(f.status)
    } else {
        exit_status(exit)
    };
    // A stream counts as far as it got: on a timeout there is no frame, and every byte is the
    // stream. A file is only read after the command ended, so a timeout leaves none.
    let timed_out = timed_out || stopped;
    let (collected, collected_truncated) = if launch.stream {
        if frame_truncated {
            (None, true)
        } else {
            match parsed {
                Some(f) => (f.collected, false),
                None if timed_out => (Some(frame), false),
                None => (None, false),
            }
        }
    } else if timed_out {
        (None, false)
    } else {
        let big = parsed.as_ref().is_some_and(|f| f.too_big);
        (parsed.and_then(|f| f.collected), big)
    };
    Ok(Outcome {
        status,
        output,
        output_truncated,
        collected,
        collected_truncated,
        duration,
    })
}

/// Waits for the job thread's next event until `deadline`, or until `stop` is raised (then
/// as if the deadline had passed).
fn wait(
    rx: &mpsc::Receiver<Event>,
    deadline: Instant,
    stop: Option<&crate::job::StopFlag>,
) -> Result<Event, mpsc::RecvTimeoutError> {
    // A raised flag is noticed within this long.
    const POLL: Duration = Duration::from_millis(50);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stop.is_some_and(crate::job::StopFlag::is_raised) {
            return Err(mpsc::RecvTimeoutError::Timeout);
        }
        let step = if stop.is_some() { left.min(POLL) } else { left };
        match rx.recv_timeout(step) {
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            other => return other,
        }
    }
}

/// Marks every open descriptor above stderr close-on-exec, so that none reaches the sandbox.
///
/// Rust opens everything close-on-exec, but descriptors the server inherited from whoever
/// started it (a supervisor's pipe, a log file) are not, and neither setpriv nor bwrap closes
/// them: a writable one would be a way out. `pre_exec` could close them in the child only, but
/// it is unsafe; flipping the flag in this process is harmless, since nothing here means to
/// pass them on.
fn close_inherited_fds() {
    use nix::fcntl::{FcntlArg, FdFlag, fcntl};
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFD) {
            let flags = FdFlag::from_bits_truncate(flags);
            if !flags.contains(FdFlag::FD_CLOEXEC) {
                let _ = fcntl(fd, FcntlArg::F_SETFD(flags | FdFlag::FD_CLOEXEC));
            }
        }
    }
}

/// SIGKILLs the children of `pid` (from `/proc/<pid>/task/<pid>/children`), best effort.
fn kill_children(pid: i32) {
    let list = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
    for child in list
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|c| c.parse::<i32>().ok())
    {
        if child > 1 {
            let _ = kill(Pid::from_raw(child), Signal::SIGKILL);
        }
    }
}

/// Maps a shell's `$?` (128 + n for a signal) to a status.
fn shell_status(code: i32) -> Status {
    if code > 128 {
        Status::Signalled(code - 128)
    } else {
        Status::Exited(code)
    }
}

fn exit_status(exit: ExitStatus) -> Status {
    use std::os::unix::process::ExitStatusExt;
    match (exit.code(), exit.signal()) {
        (Some(code), _) => shell_status(code),
        (None, Some(sig)) => Status::Signalled(sig),
        (None, None) => Status::Exited(-1),
    }
}

#[derive(Debug, Clone, Copy)]
enum Keep {
    /// The first `cap` bytes (output: the start says what went wrong).
    Head,
    /// The last `cap` bytes (the result frame is written last).
    Tail,
}

/// Reads a pipe to EOF on its own thread, keeping at most `cap` bytes and discarding the rest,
/// so a job printing gigabytes neither blocks nor fills the server's memory.
fn reader(
    pipe: PipeReader,
    cap: usize,
    keep: Keep,
) -> Result<mpsc::Receiver<(Vec<u8>, bool)>, SandboxError> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("sandbox-read".into())
        .spawn(move || drop(tx.send(read_capped(pipe, cap, keep))))
        .map_err(|source| SandboxError::Spawn {
            program: "a sandbox thread".into(),
            source,
        })?;
    Ok(rx)
}

fn read_capped(mut pipe: impl Read, cap: usize, keep: Keep) -> (Vec<u8>, bool) {
    let mut kept = Vec::with_capacity(cap.min(64 << 10));
    let mut buf = vec![0u8; 64 << 10];
    let mut truncated = false;
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        match keep {
            Keep::Head => {
                let room = cap - kept.len();
                truncated |= n > room;
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            Keep::Tail => {
                kept.extend_from_slice(&buf[..n]);
                // Trim in batches so that a long stream costs linear time.
                if kept.len() > cap.saturating_mul(2).max(cap + (64 << 10)) {
                    truncated = true;
                    kept.drain(..kept.len() - cap);
                }
            }
        }
    }
    if matches!(keep, Keep::Tail) && kept.len() > cap {
        truncated = true;
        kept.drain(..kept.len() - cap);
    }
    (kept, truncated)
}

/// The wrapper's last words: the command's shell status, the collected file and whether the
/// sandbox's own cgroup saw an OOM kill.
#[derive(Debug, PartialEq, Eq)]
struct Frame {
    status: i32,
    collected: Option<Vec<u8>>,
    /// The result file was over the size limit and not sent.
    too_big: bool,
    oom: bool,
}

/// Parses the end of the result stream:
/// `<file bytes>\nWWEND <status> <size|none|big|stream> <oom kills|->\n`; with `stream`,
/// everything before the trailer is the result.
/// Bytes before the frame can only come from the submission (through `/proc`) and are ignored.
fn parse_frame(stream: &[u8]) -> Option<Frame> {
    let body = stream.strip_suffix(b"\n")?;
    let line_start = body.iter().rposition(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&body[line_start + 1..]).ok()?;
    let mut words = line.split(' ');
    if words.next()? != "WWEND" {
        return None;
    }
    let status: i32 = words.next()?.parse().ok()?;
    let size = words.next()?;
    let oom = match words.next()? {
        "-" => false,
        n => n.parse::<u64>().ok()? > 0,
    };
    if words.next().is_some() {
        return None;
    }
    let collected = match size {
        "none" | "big" => None,
        "stream" => Some(body[..line_start].to_vec()),
        n => {
            let n: usize = n.trim().parse().ok()?;
            let content = &body[..line_start];
            Some(content.get(content.len().checked_sub(n)?..)?.to_vec())
        }
    };
    Some(Frame {
        status,
        collected,
        too_big: size == "big",
        oom,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        let f = parse_frame(b"<xml/>\nWWEND 1 6 -\n").expect("frame");
        assert_eq!(
            f,
            Frame {
                status: 1,
                collected: Some(b"<xml/>".to_vec()),
                too_big: false,
                oom: false,
            }
        );
        // Forged bytes before the real frame are ignored, forged frames included.
        let f = parse_frame(b"evil\nWWEND 0 4 -\n<ok>\nWWEND 2 4 0\n").expect("frame");
        assert_eq!(
            f,
            Frame {
                status: 2,
                collected: Some(b"<ok>".to_vec()),
                too_big: false,
                oom: false,
            }
        );
        assert_eq!(
            parse_frame(b"\nWWEND 0 none -\n").expect("frame").collected,
            None
        );
        let f = parse_frame(b"\nWWEND 137 big 2\n").expect("frame");
        assert_eq!(
            (f.status, f.collected, f.too_big, f.oom),
            (137, None, true, true)
        );
        // A stream is everything before the trailer, a forged trailer in it included.
        let f =
            parse_frame(b"WWR 1\nWWEND 0 stream -\nWWR 2\n\nWWEND 1 stream -\n").expect("frame");
        assert_eq!(
            (f.status, f.collected.as_deref()),
            (1, Some(&b"WWR 1\nWWEND 0 stream -\nWWR 2\n"[..]))
        );
        for bad in [
            &b""[..],
            b"\n",
            b"x\nWWEND 0 5 -\n",
            b"\nWWEND x 0 -\n",
            b"\nWWEND 0 0\n",
            b"\nWWEND 0 0 x\n",
            b"\nWWEND 0 0 0 0\n",
        ] {
            assert_eq!(parse_frame(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(
            parse_frame(b"\nWWEND 0 0 -\n")
                .expect("empty file")
                .collected,
            Some(vec![])
        );
    }

    #[test]
    fn capped_reads() {
        let data: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
        let (head, t) = read_capped(&data[..], 1000, Keep::Head);
        assert_eq!((head.as_slice(), t), (&data[..1000], true));
        let (tail, t) = read_capped(&data[..], 1000, Keep::Tail);
        assert_eq!((tail.as_slice(), t), (&data[data.len() - 1000..], true));
        let (all, t) = read_capped(&data[..10], 1000, Keep::Tail);
        assert_eq!((all.as_slice(), t), (&data[..10], false));
    }

    #[test]
    fn statuses() {
        assert_eq!(shell_status(0), Status::Exited(0));
        assert_eq!(shell_status(128), Status::Exited(128));
        assert_eq!(shell_status(137), Status::Signalled(9));
    }
}
