//! Writes the judge files the server stages under `/judge` for one turn, so the runners can be run by hand (the hidden-test fixtures are made this way).
//!
//! ```text
//! cargo run -p wheelwright-core --example judge_files -- cases  <turn dir> <module> <package> <out dir>
//! cargo run -p wheelwright-core --example judge_files -- pytest <turn dir> <seed> <out dir>
//! ```
//! `cases` writes `run_cases.py` and `cases.json` (the calls under their aliases, no
//! expected values; the
//! dataset's `tools/canon.py` and `tools/prelude.py` must be copied beside them); `pytest`
//! writes `run_pytest.py`, `pytest.ini`, `pytest.json` and `tests/` with the names, twins,
//! canaries and order the seed draws.

use std::path::Path;

use wheelwright_core::hidden_tests::{cases, pytest};

fn write(out: &Path, files: &[(String, Vec<u8>)]) {
    for (path, bytes) in files {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["cases", turn, module, package, out] => {
            let turn = Path::new(turn);
            let suite = cases::CaseSuite::new(
                module,
                package,
                &read(&turn.join("cases.json")),
                &read(&turn.join("expected.json")),
            )
            .expect("a valid suite");
            write(
                Path::new(out),
                &[
                    ("run_cases.py".to_owned(), cases::RUNNER.as_bytes().to_vec()),
                    (cases::INPUT.to_owned(), suite.judge_input().into_bytes()),
                ],
            );
        }
        ["pytest", turn, seed, out] => {
            let tests = Path::new(turn).join("tests");
            let mut files = Vec::new();
            for entry in std::fs::read_dir(&tests).expect("tests/") {
                let path = entry.expect("entry").path();
                let name = path
                    .file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned();
                files.push((name, read(&path)));
            }
            files.sort();
            let suite = pytest::PytestSuite::new(&files, seed.parse().expect("a number"));
            write(Path::new(out), &suite.judge_files());
        }
        _ => {
            eprintln!("usage: judge_files cases <turn dir> <module> <package> <out dir>");
            eprintln!("       judge_files pytest <turn dir> <seed> <out dir>");
            std::process::exit(2);
        }
    }
}
