//! The happy path on each backend: python, and pytest in a venv from `ensure_env` with JUnit XML.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{each_backend, processes_of, text};
use wheelwright_sandbox::{DEFAULT_ENV_ROOT, EnvStep, Job, Limits, Status, ensure_env};

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
        job.collect = "out/result.txt".into();
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
        job.collect = "missing.xml".into();
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
        job.collect = "report.xml".into();
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
