//! A fixture repository on disk as a workspace.

use std::path::Path;

use wheelwright_core::workspace::Workspace;

/// Every file under `dir`, at its path relative to `dir`.
pub fn workspace_of(dir: &Path) -> Workspace {
    let mut workspace = Workspace::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("fixture dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("under the repository");
                let text = std::fs::read_to_string(&path).expect("fixture file");
                workspace.insert(&rel.to_string_lossy(), text);
            }
        }
    }
    workspace
}
