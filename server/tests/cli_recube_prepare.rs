//! `wheelwright recube prepare` and `recube prompt` on the shipped ReCUBE dataset: the workspace is the repository with only the target masked and no tests, and the prompts come from their templates with their token counts.
//!
//! Expected prompts are under `fixtures/recube_prompts/`; to regenerate them after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test
//! cli_recube_prepare`, then review the diff.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::expect::expect_text;
use common::{stdout_of, wheelwright};
use wheelwright_core::recube::mask::mask;
use wheelwright_core::reporeuse::dataset::RepositorySource;
use wheelwright_core::workspace::why_removed;

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/recube-pypi")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube_prompts")
}

/// Every file under `dir` by relative path, as text.
fn files_under(dir: &Path) -> BTreeMap<String, String> {
    common::files_under(dir)
        .into_iter()
        .map(|(path, bytes)| (path, String::from_utf8(bytes).unwrap()))
        .collect()
}

#[test]
fn every_instance_is_its_repository_with_only_the_target_masked() {
    let dataset = wheelwright_server::dataset::recube::load_recube_dir(&dataset_dir()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for instance in &dataset.instances {
        let id = &instance.manifest.id;
        let target = &instance.manifest.target;
        let RepositorySource::Pypi(repo) =
            &dataset.manifest.repositories[&instance.manifest.repository]
        else {
            panic!("the shipped instances come from PyPI");
        };
        let original = wheelwright_server::dataset::pypi::repository_source(
            repo,
            &wheelwright_server::dataset::default_cache_dir(),
        )
        .unwrap();
        let out = tmp.path().join(id);
        let stdout = stdout_of(&[
            "recube",
            "prepare",
            "--dataset",
            dataset_dir().to_str().unwrap(),
            "--instance",
            id,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(stdout.contains(&format!("{target} masked")), "{stdout}");
        let written = files_under(&out);
        let expected: BTreeMap<String, String> = original
            .iter()
            .filter(|(path, _)| why_removed(path).is_none())
            .map(|(path, text)| {
                let text = if path == target {
                    mask(text).text
                } else {
                    text.clone()
                };
                (path.clone(), text)
            })
            .collect();
        assert_eq!(written, expected, "{id}");
        assert_ne!(
            written[target], original[target],
            "{id}: the target is not masked"
        );
        // The hidden tests are nowhere in the workspace.
        for (name, text) in &instance.tests {
            assert!(
                !written.values().any(|w| w == text),
                "{id}: test {name} is in the workspace"
            );
        }
    }
}

/// `wheelwright recube prompt` of `instance` under `setting` on the shipped dataset, with
/// `extra` arguments.
fn recube_prompt(instance: &str, setting: &str, extra: &[&str]) -> std::process::Output {
    let dataset = dataset_dir();
    let mut args = vec![
        "recube",
        "prompt",
        "--dataset",
        dataset.to_str().unwrap(),
        "--instance",
        instance,
        "--setting",
        setting,
    ];
    args.extend(extra);
    wheelwright(&args)
}

/// [`recube_prompt`] with `--json`, which must succeed.
fn prompt_json(instance: &str, setting: &str) -> serde_json::Value {
    let out = recube_prompt(instance, setting, &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn prompts_come_from_their_templates_with_token_counts() {
    let mut agent = String::new();
    for id in ["click-parser", "packaging-version", "attrs-funcs"] {
        let json = prompt_json(id, "agent");
        assert_eq!(json["template"], "recube-agent-1");
        agent.push_str(&format!(
            "===== {id}: {} tokens ({}) =====\n{}\n",
            json["tokens"],
            json["tokenizer"],
            json["text"].as_str().unwrap()
        ));
    }
    expect_text(&fixtures().join("agent.md"), &agent);

    // The full context of click-parser: its outline (every section and file) and its size
    // are pinned; the original target's code is not in it.
    let json = prompt_json("click-parser", "full-context");
    assert_eq!(json["template"], "recube-full-context-1");
    assert_eq!(json["tokenizer"], "o200k_base");
    let text = json["text"].as_str().unwrap();
    let outline: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('<') && !l.starts_with("<<"))
        .collect();
    let summary = format!(
        "{} tokens, {} characters\n{}\n",
        json["tokens"],
        text.chars().count(),
        outline.join("\n")
    );
    expect_text(&fixtures().join("click-parser-full-context.txt"), &summary);
    let tokens = json["tokens"].as_u64().unwrap();
    assert!(
        (50_000..110_000).contains(&tokens),
        "{tokens}: the paper's contexts average 71K"
    );
    let dataset = wheelwright_server::dataset::recube::load_recube_dir(&dataset_dir()).unwrap();
    let RepositorySource::Pypi(click) = &dataset.manifest.repositories["click"] else {
        panic!("click comes from PyPI");
    };
    let mut files = wheelwright_server::dataset::pypi::repository_source(
        click,
        &wheelwright_server::dataset::default_cache_dir(),
    )
    .unwrap();
    let original = files.remove("click/parser.py").unwrap();
    let masked = mask(&original).text;
    // The target's lines that neither its masked form nor another file shows.
    let hidden: Vec<&str> = original
        .lines()
        .filter(|l| {
            let l = l.trim();
            l.len() > 30 && !masked.contains(l) && !files.values().any(|f| f.contains(l))
        })
        .collect();
    assert!(hidden.len() > 50, "the masking hides the bodies");
    for line in hidden {
        assert!(
            !text.contains(line.trim()),
            "the prompt shows the target's {line:?}"
        );
    }
    let plain = recube_prompt("click-parser", "full-context", &[]);
    assert_eq!(String::from_utf8(plain.stdout).unwrap(), text);
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert!(
        stderr.contains(&format!("{tokens} tokens (o200k_base)")),
        "{stderr}"
    );
}

#[test]
fn an_unknown_instance_is_refused_naming_the_known_ones() {
    let out = recube_prompt("nope", "agent", &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("has no instance \"nope\"; its instances are packaging-utils"),
        "{stderr}"
    );
}

/// The agent-with-tools prompt names only commands that exist: each `wheelwright cce`
/// command it spells runs in the prepared workspace of its instance, with a real name in
/// place of each placeholder.
#[test]
fn the_agent_cce_prompt_names_toolkit_commands_that_run_in_the_workspace() {
    let json = prompt_json("click-parser", "agent-cce");
    assert_eq!(json["template"], "recube-agent-cce-1");
    let text = json["text"].as_str().unwrap();
    expect_text(&fixtures().join("click-parser-agent-cce.md"), text);
    let tmp = tempfile::tempdir().unwrap();
    let workspace = tmp.path().join("click-parser");
    stdout_of(&[
        "recube",
        "prepare",
        "--dataset",
        dataset_dir().to_str().unwrap(),
        "--instance",
        "click-parser",
        "--out",
        workspace.to_str().unwrap(),
    ]);
    let commands: Vec<&str> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("wheelwright cce "))
        .collect();
    assert_eq!(commands.len(), 5, "{commands:?}");
    for command in commands {
        let words: Vec<String> = command
            .split_whitespace()
            .skip(1)
            .map(|w| match w {
                "ENTITY" => "click.parser.OptionParser".to_owned(),
                "NAME" => "option".to_owned(),
                "MODULE" => "click.core".to_owned(),
                other => other.to_owned(),
            })
            .collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_wheelwright"))
            .args(&words)
            .current_dir(&workspace)
            .env("WHEELWRIGHT_LOG", "warn")
            .output()
            .unwrap();
        // `validate` exits 1 when it has findings: the masked target has some.
        let ok = out.status.success() || (words[1] == "validate" && out.status.code() == Some(1));
        assert!(
            ok && !out.stdout.is_empty(),
            "{command}: {out:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
