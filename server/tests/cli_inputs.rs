//! The command line on inputs that are not regular files: a `.jsonl` link to /dev/zero, FIFOs named `.jsonl`, `.zip` and `.py`, a FIFO inside a bundle directory; each is refused promptly with a clear error and a non-zero exit, instead of read forever or waited on.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::real_dataset;

/// How long a refusal may take: reading nothing, so well under this even on a loaded
/// machine (the hang this guards against never ends).
const PROMPT: Duration = Duration::from_secs(30);

/// One input the command line must refuse: how to make it, the command, and the words
/// its error must have.
struct Case {
    name: &'static str,
    make: fn(&Path) -> PathBuf,
    /// The subcommand and its arguments before the input path.
    command: &'static [&'static str],
    /// Whether the command takes `--dataset`.
    dataset: bool,
    words: &'static [&'static str],
}

fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    path
}

fn link_to_dev_zero(dir: &Path) -> PathBuf {
    let path = dir.join("run.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    path
}

fn fifo_jsonl(dir: &Path) -> PathBuf {
    fifo(dir, "x.jsonl")
}

fn fifo_zip(dir: &Path) -> PathBuf {
    fifo(dir, "x.zip")
}

fn fifo_py(dir: &Path) -> PathBuf {
    fifo(dir, "x.py")
}

/// A bundle directory whose metadata.json is a FIFO.
fn directory_with_fifo(dir: &Path) -> PathBuf {
    let bundle = dir.join("bundle");
    std::fs::create_dir_all(bundle.join("chains/road-audit/turn-1/files")).unwrap();
    fifo(&bundle, "metadata.json");
    bundle
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "score: a .jsonl link to /dev/zero",
            make: link_to_dev_zero,
            command: &["score"],
            dataset: true,
            words: &["is a character device", "not a regular file"],
        },
        Case {
            name: "score: a FIFO named x.jsonl",
            make: fifo_jsonl,
            command: &["score"],
            dataset: true,
            words: &["x.jsonl is a FIFO", "not a regular file"],
        },
        Case {
            name: "score: a FIFO named x.zip",
            make: fifo_zip,
            command: &["score"],
            dataset: true,
            words: &["x.zip is a FIFO", "not a regular file"],
        },
        Case {
            name: "score: a bundle directory holding a FIFO",
            make: directory_with_fifo,
            command: &["score"],
            dataset: true,
            words: &["metadata.json is a FIFO", "not a regular file"],
        },
        Case {
            name: "test: a .jsonl link to /dev/zero",
            make: link_to_dev_zero,
            command: &["test", "--backend", "none"],
            dataset: true,
            words: &["is a character device", "not a regular file"],
        },
        Case {
            name: "test: a FIFO named x.zip",
            make: fifo_zip,
            command: &["test", "--backend", "none"],
            dataset: true,
            words: &["x.zip is a FIFO"],
        },
        Case {
            name: "analyze: a FIFO named x.py",
            make: fifo_py,
            command: &["analyze"],
            dataset: false,
            words: &["x.py is a FIFO"],
        },
    ]
}

/// Runs `case`'s command on its input and checks that it fails promptly, saying why.
fn assert_refused_promptly(case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let input = (case.make)(dir.path());
    let mut command = Command::new(env!("CARGO_BIN_EXE_wheelwright"));
    command.args(case.command).arg(&input);
    if case.dataset {
        command.arg("--dataset").arg(real_dataset());
    }
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > PROMPT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{}: still running after {PROMPT:?}", case.name);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        !status.success(),
        "{}: exit {status:?}; {stderr}",
        case.name
    );
    for words in case.words {
        assert!(
            stderr.contains(words),
            "{}: {stderr:?} lacks {words:?}",
            case.name
        );
    }
}

#[test]
fn inputs_that_are_not_regular_files_are_refused_promptly() {
    for case in cases() {
        assert_refused_promptly(&case);
    }
}
