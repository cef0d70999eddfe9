//! `wheelwright view shell`: one shell command written in a virtual namespace's names, run on the untouched original repository, its output shown in the view's names.
//!
//! This is the online translator of level 2 (paper §III-C) for a bash-tool harness such as
//! mini-SWE-agent: the harness calls it once per action instead of `bash -c`. Core
//! translates ([`Translator::command`] back to real names, here-document bodies included,
//! so `sed -i` and `cat > f <<EOF` write real names; [`Translator::observation`] for the
//! output); this host runs `bash -c` in the repository directory in its own process group,
//! bounded in time ([`Bounds::timeout`], then the group is killed and the exit code is 124,
//! as `timeout` gives) and in output ([`Bounds::max_output`] bytes kept per stream). The
//! exit code is the command's. Like `wheelwright run --agent`, the command is the user's
//! own agent on the user's own machine: no sandbox.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use wheelwright_core::schrodinger::namespace::Mode;
use wheelwright_core::schrodinger::translate::Translator;

/// What one command may take.
pub(in crate::cli) struct Bounds {
    /// Wall-clock time before the command's process group is killed.
    pub(in crate::cli) timeout: Duration,
    /// Bytes kept of each of standard output and standard error (the rest is read and
    /// dropped, so the command never blocks on a full pipe).
    pub(in crate::cli) max_output: usize,
}

/// The exit code of a command stopped at its timeout (GNU `timeout`'s).
const TIMED_OUT: i32 = 124;

/// Reads `from` to its end on a thread, keeping the first `cap` bytes; whether it cut.
fn capture(
    mut from: impl Read + Send + 'static,
    cap: usize,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = cap.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
            cut |= n > room;
        }
        (kept, cut)
    })
}

/// What a command did, in real names.
struct Ran {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The exit code (128 + the signal for a command killed by one).
    code: i32,
    /// Notes for standard error: output cut, time over.
    notes: Vec<String>,
}

/// Runs `command` with `bash -c` in `dir`, within `bounds`.
fn run_bounded(command: &str, dir: &Path, bounds: &Bounds) -> anyhow::Result<Ran> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: the timeout kills everything it started.
        .process_group(0)
        .spawn()
        .context("cannot start bash: is it installed?")?;
    let out = capture(
        child.stdout.take().context("no stdout pipe")?,
        bounds.max_output,
    );
    let err = capture(
        child.stderr.take().context("no stderr pipe")?,
        bounds.max_output,
    );
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let started = Instant::now();
    let mut notes = Vec::new();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() >= bounds.timeout {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Also after a normal exit: a background job it left would hold the pipes open.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    let code = match status {
        Some(s) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
        None => {
            let _ = child.wait();
            notes.push(format!(
                "the command ran over {} s and was stopped; give a larger --timeout or a shorter command",
                bounds.timeout.as_secs()
            ));
            TIMED_OUT
        }
    };
    let (stdout, out_cut) = out.join().unwrap_or_default();
    let (stderr, err_cut) = err.join().unwrap_or_default();
    for (cut, which) in [(out_cut, "standard output"), (err_cut, "standard error")] {
        if cut {
            notes.push(format!(
                "{which} was cut at {} bytes; narrow the command (head, grep -m, sed -n)",
                bounds.max_output
            ));
        }
    }
    Ok(Ran {
        stdout,
        stderr,
        code,
        notes,
    })
}

/// `wheelwright view shell --bundle B --repo DIR [-- CMD...]`: the command (its words joined
/// by spaces, or standard input when none is given) translated and run; returns its exit
/// code after printing its translated output.
pub(in crate::cli) fn shell(
    bundle: &Path,
    repo: &Path,
    words: &[String],
    bounds: &Bounds,
) -> anyhow::Result<i32> {
    let bundle = super::read_bundle(bundle)?;
    let Some(mapping) = bundle
        .namespace
        .as_ref()
        .filter(|m| m.mode == Mode::Virtual)
    else {
        bail!(
            "the bundle is not a virtual namespace: make one with `wheelwright view --virtual --repo DIR --bundle FILE`"
        );
    };
    if !repo.is_dir() {
        bail!(
            "{} is not a directory; give the original repository with --repo",
            repo.display()
        );
    }
    let command = if words.is_empty() {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the command from standard input")?;
        text
    } else {
        words.join(" ")
    };
    let translator = Translator::of(mapping);
    let real = translator.command(&command).text;
    let ran = run_bounded(&real, repo, bounds)?;
    let shown = |bytes: &[u8]| translator.observation(&String::from_utf8_lossy(bytes)).text;
    std::io::stdout()
        .write_all(shown(&ran.stdout).as_bytes())
        .context("cannot write to standard output")?;
    let mut stderr = std::io::stderr();
    stderr.write_all(shown(&ran.stderr).as_bytes())?;
    for note in &ran.notes {
        writeln!(stderr, "wheelwright view shell: {note}")?;
    }
    std::io::stdout().flush()?;
    Ok(ran.code)
}
