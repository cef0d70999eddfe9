//! The happy path on each backend: python, and pytest in a venv from `ensure_env` with JUnit XML.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{each_backend, processes_of, text};
use wheelwright_sandbox::{Collect, DEFAULT_ENV_ROOT, EnvStep, Job, Limits, Status, ensure_env};

#[test]
fn python_runs_and_the_result_file_comes_back() {
    each_backend(65100, 1, |b| {
        let sb = &*b.sandbox;
        let mut job = Job::command([
            "python3",
            "-c",
            "import os, sys; print('hello from', os.getcwd()); \
         open('out/result.txt', 'w').write(open('data/in.txt').read().upper())",
        ]);
        job.inputs = vec![
            ("data/in.txt".into(), b"shout".to_vec()),
            ("out/.keep".into(), vec![]),
        ];
        job.collect = Collect::File("out/result.txt".into());
        job.limits = Limits {
            wall: Duration::from_secs(20),
            ..Limits::default()
        };
        let out = sb.run(&job).expect("run");
        assert_eq!(out.status, Status::Exited(0), "{}", text(&out.output));
        assert_eq!(text(&out.output), "hello from /work\n");
        assert_eq!(out.collected.as_deref(), Some(&b"SHOUT"[..]));
        assert!(!out.output_truncated);

        // A missing result file is None, and the exit code comes through.
        let mut job = Job::command(["python3", "-c", "raise SystemExit(4)"]);
        job.collect = Collect::File("missing.xml".into());
        let out = sb.run(&job).expect("run");
        assert_eq!((out.status, out.collected), (Status::Exited(4), None));
        assert_eq!(processes_of(b.base..b.base + 1), vec![]);
    });
}

#[test]
fn pytest_in_a_built_environment_writes_junit_xml() {
    each_backend(65200, 1, |b| {
        let sb = &*b.sandbox;
        let mut steps = Vec::new();
        let env = ensure_env(
            Path::new(DEFAULT_ENV_ROOT),
            &[("pytest", "8.3.4")],
            &[],
            |s| steps.push(s.clone()),
        )
        .expect("ensure_env (needs PyPI the first time)");
        assert!(
            matches!(steps.last(), Some(EnvStep::Ready(_) | EnvStep::Reused(_))),
            "{steps:?}"
        );
        // The second call reuses it.
        let mut again = Vec::new();
        let same = ensure_env(
            Path::new(DEFAULT_ENV_ROOT),
            &[("pytest", "8.3.4")],
            &[],
            |s| again.push(s.clone()),
        )
        .expect("reuse");
        assert_eq!(
            (same, again),
            (env.clone(), vec![EnvStep::Reused(env.clone())])
        );

        let mut job = Job::command([
            "python",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--junitxml=report.xml",
            "tests",
        ]);
        job.env_dir = Some(env);
        job.inputs = vec![(
        "tests/test_sample.py".into(),
        b"def test_passes():\n    assert 1 + 1 == 2\n\ndef test_fails():\n    assert 1 + 1 == 3\n"
            .to_vec(),
    )];
        job.collect = Collect::File("report.xml".into());
        job.limits = Limits {
            wall: Duration::from_secs(60),
            ..Limits::default()
        };
        let out = sb.run(&job).expect("run");
        let output = text(&out.output);
        assert_eq!(out.status, Status::Exited(1), "{output}");
        let xml = text(out.collected.as_deref().expect("report.xml"));
        assert!(xml.contains(r#"name="test_passes""#), "{xml}");
        assert!(
            xml.contains(r#"name="test_fails""#) && xml.contains("<failure"),
            "{xml}"
        );
        assert!(xml.contains(r#"failures="1""#), "{xml}");
    });
}

#[test]
fn podman_says_what_is_missing() {
    use wheelwright_sandbox::{PodmanConfig, PodmanSandbox, SandboxError};
    let err = PodmanSandbox::new(PodmanConfig {
        program: "no-such-engine".into(),
        ..PodmanConfig::default()
    })
    .expect_err("no engine");
    assert!(matches!(err, SandboxError::ToolMissing { .. }), "{err}");
    if !common::selected("podman") {
        eprintln!(
            "SKIPPED the missing-image check: podman not listed in {}",
            common::BACKENDS_VAR
        );
        return;
    }
    let err = PodmanSandbox::new(PodmanConfig {
        image: "localhost/wheelwright-no-such-image:x".into(),
        ..PodmanConfig::default()
    })
    .expect_err("no image");
    let message = err.to_string();
    assert!(
        matches!(err, SandboxError::ImageMissing { .. }),
        "{message}"
    );
    assert!(message.contains("scripts/podman-image"), "{message}");
}

#[test]
fn judge_files_are_read_only_and_the_stream_comes_back_even_on_a_timeout() {
    each_backend(65700, 1, |b| {
        let sb = &*b.sandbox;
        let runner = br#"
import os, sys, time
out = 4
os.write(out, b"WWR first\n")
try:
    open("/judge/run.py", "a").write("x")
    os.write(out, b"WWR judge writable\n")
except OSError:
    os.write(out, b"WWR judge read-only\n")
os.write(out, ("WWR workspace %s\n" % sorted(os.listdir("/work"))).encode())
if sys.argv[1] == "sleep":
    time.sleep(60)
if sys.argv[1] == "flood":
    os.write(out, b"x" * (2 << 20))
os.write(out, b"WWR last\n")
"#;
        let job = |mode: &str, wall: u64| {
            let mut job = Job::command(["python3", "-I", "/judge/run.py", mode]);
            job.inputs = vec![("submission.py".into(), b"x = 1\n".to_vec())];
            job.judge = vec![("run.py".into(), runner.to_vec())];
            job.collect = Collect::Stream;
            job.limits = Limits {
                wall: Duration::from_secs(wall),
                collect_bytes: 1 << 20,
                ..Limits::default()
            };
            job
        };
        let expected_start =
            "WWR first\nWWR judge read-only\nWWR workspace ['.tmp', 'submission.py']\n";

        let out = sb.run(&job("plain", 20)).expect("run");
        assert_eq!(out.status, Status::Exited(0), "{}", text(&out.output));
        let stream = text(out.collected.as_deref().expect("the stream"));
        assert_eq!(stream, format!("{expected_start}WWR last\n"));
        assert!(!out.collected_truncated);

        // Killed at the wall limit: what was written before still comes back.
        let out = sb.run(&job("sleep", 3)).expect("run");
        assert_eq!(out.status, Status::TimedOut);
        assert_eq!(
            text(out.collected.as_deref().expect("the partial stream")),
            expected_start
        );

        // Over the limit: nothing is kept, and the host is told.
        let out = sb.run(&job("flood", 20)).expect("run");
        assert_eq!((out.collected, out.collected_truncated), (None, true));
    });
}

#[test]
fn a_raised_stop_flag_ends_the_job_at_once() {
    each_backend(65750, 1, |b| {
        let mut job = Job::command(["sleep", "60"]);
        let flag = wheelwright_sandbox::StopFlag::new();
        job.stop = Some(flag.clone());
        job.limits = Limits {
            wall: Duration::from_secs(60),
            ..Limits::default()
        };
        let raiser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            flag.raise();
        });
        let out = b.sandbox.run(&job).expect("run");
        raiser.join().unwrap();
        assert_eq!(out.status, Status::Stopped, "{}", text(&out.output));
        assert!(out.duration < Duration::from_secs(15), "{:?}", out.duration);
    });
}
