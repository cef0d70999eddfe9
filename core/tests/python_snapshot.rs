//! A saved repository index: loaded only from the files and build it was saved from, and pinned.
//!
//! That a loaded index answers as the built one does is checked where the answers are:
//! every reference fixture runs both ways (`python_references.rs`), and every scoring test
//! scores with a dataset prepared from saved indexes (`score_run.rs`).

use crate::common;

use std::path::Path;

use common::repo::workspace_of;
use sha2::{Digest, Sha256};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::python::snapshot::{self, SnapshotError};
use wheelwright_core::workspace::Workspace;

/// A real package's fixture: networkx's `utils`, whose star imports form a cycle.
fn networkx_utils() -> Workspace {
    workspace_of(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/python/star_import_cycle_networkx/repo"),
    )
}

/// What `load` says of `saved` for `workspace` and `options`: the error's variant name, or
/// `loaded`.
fn load_outcome(saved: &[u8], workspace: &Workspace, options: &IndexOptions) -> String {
    match snapshot::load(saved, workspace, options) {
        Ok(_) => "loaded".to_owned(),
        Err(e) => format!("{e:?}")
            .split([' ', '(', '{'])
            .next()
            .unwrap()
            .to_owned(),
    }
}

#[test]
fn a_snapshot_loads_only_for_its_own_files_build_and_options() {
    let workspace = networkx_utils();
    let options = IndexOptions::default();
    let saved = snapshot::save(&workspace, &options).expect("never cancelled");

    let mut edited = workspace.clone();
    let path = "networkx/utils/misc.py";
    let text = format!("{}\n", edited.text(path).unwrap());
    edited.insert(path, text);
    let mut added = workspace.clone();
    added.insert("networkx/utils/extra.py", "def f():\n    pass\n");
    let mut removed = workspace.clone();
    removed.remove("networkx/utils/union_find.py");
    let mut not_python = workspace.clone();
    not_python.insert("networkx/utils/README.txt", "not a module");
    let rooted = IndexOptions {
        source_roots: vec!["networkx".to_owned()],
    };
    // The format string leads the bytes (a one-byte length, then its text): one changed
    // letter in it is a snapshot written by another build.
    let mut other_build = saved.clone();
    let last = usize::from(saved[0]);
    other_build[last] ^= 1;
    let truncated = &saved[..saved.len() / 2];

    let cases: [(&str, &[u8], &Workspace, &IndexOptions, &str); 8] = [
        (
            "the files it was saved from",
            &saved,
            &workspace,
            &options,
            "loaded",
        ),
        (
            "a non-Python file added",
            &saved,
            &not_python,
            &options,
            "loaded",
        ),
        (
            "one file one byte longer",
            &saved,
            &edited,
            &options,
            "OtherFiles",
        ),
        ("a file added", &saved, &added, &options, "OtherFiles"),
        ("a file removed", &saved, &removed, &options, "OtherFiles"),
        (
            "other source roots",
            &saved,
            &workspace,
            &rooted,
            "OtherOptions",
        ),
        (
            "another build",
            &other_build,
            &workspace,
            &options,
            "OtherBuild",
        ),
        ("cut in half", truncated, &workspace, &options, "Unreadable"),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(case, bytes, workspace, options, want)| {
            let got = load_outcome(bytes, workspace, options);
            (got != *want).then(|| format!("{case}: {got}, want {want}"))
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn a_refusal_tells_the_user_what_to_do() {
    let workspace = networkx_utils();
    let saved = snapshot::save(&workspace, &IndexOptions::default()).expect("never cancelled");
    let mut other_build = saved.clone();
    other_build[usize::from(saved[0])] ^= 1;
    let Err(refused @ SnapshotError::OtherBuild { .. }) =
        snapshot::load(&other_build, &workspace, &IndexOptions::default())
    else {
        panic!("a snapshot of another build was not refused as one");
    };
    assert!(refused.to_string().contains("reload the page"), "{refused}");
}

/// The bytes a fixed workspace saves to. They change exactly when the analysis or its saved
/// form changes: then a browser holding an older build must refuse the server's snapshot,
/// so raise the revision in `snapshot::FORMAT` (or the crate's version) and set the new
/// hash here.
#[test]
fn snapshot_of_a_fixed_workspace_is_pinned() {
    let saved =
        snapshot::save(&networkx_utils(), &IndexOptions::default()).expect("never cancelled");
    let format_len = usize::from(saved[0]);
    let format = std::str::from_utf8(&saved[1..=format_len]).expect("a format string");
    // The rest of the bytes, without the format string (it holds the crate's version).
    let analyses = hex::encode(Sha256::digest(&saved[1 + format_len..]));
    assert_eq!(
        (format.rsplit('/').next().unwrap(), analyses.as_str()),
        (
            "r2",
            "6be2f24a792e8ea63ef2e4f6a647f3b999202063e2b264d3469bd775d1e81fb3"
        ),
        "the saved analyses changed: raise the revision in snapshot::FORMAT and pin the new hash"
    );
    // Saving twice gives the same bytes (maps are written in key order).
    assert_eq!(
        saved,
        snapshot::save(&networkx_utils(), &IndexOptions::default()).unwrap()
    );
}
