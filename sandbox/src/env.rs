//! Read-only Python environments (venvs) for jobs: built once with pip, then reused.
//!
//! An environment is built in a temporary directory next to its final place, made read-only
//! and world-readable (the sandbox runs as other uids), and renamed into place: a directory at
//! the final path is always complete. A lock file serialises concurrent builders.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::SandboxError;

/// Where environments live by default: world-readable, and kept across reboots.
pub const DEFAULT_ENV_ROOT: &str = "/var/tmp/wheelwright/envs";

/// The interpreter environments are built from by default: Debian's, which every uid can run
/// (a pyenv interpreter under `/root` cannot be read by the slot uids).
pub const DEFAULT_PYTHON: &str = "/usr/bin/python3";

/// A step of [`ensure_env`], reported as it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvStep {
    /// A complete environment already exists at this path; nothing is built.
    Reused(PathBuf),
    /// Creating the venv (`python3 -m venv`).
    CreateVenv(PathBuf),
    /// Installing these requirements with pip.
    Install(Vec<String>),
    /// Making the environment read-only and world-readable.
    Seal,
    /// The environment is complete at this path.
    Ready(PathBuf),
}

/// How environments are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvOptions {
    /// The interpreter the venv is created from; must be readable and executable by everyone.
    pub python: PathBuf,
    /// Extra arguments for `pip install`, e.g. `["--index-url", "https://mirror/simple"]`.
    pub pip_args: Vec<String>,
}

impl Default for EnvOptions {
    fn default() -> Self {
        EnvOptions {
            python: DEFAULT_PYTHON.into(),
            pip_args: Vec::new(),
        }
    }
}

/// Returns a venv under `root` with `packages` (`name`, exact version) and the `extra`
/// requirements (e.g. `"pytest==8.3.4"`) installed, building it first if needed. Uses
/// [`DEFAULT_PYTHON`].
///
/// The directory is named `<first package>-<version>-<hash of everything>`; `progress` hears
/// each step. Blocks while pip runs (minutes): call it from a blocking thread.
pub fn ensure_env(
    root: &Path,
    packages: &[(&str, &str)],
    extra: &[&str],
    progress: impl FnMut(&EnvStep),
) -> Result<PathBuf, SandboxError> {
    ensure_env_with(&EnvOptions::default(), root, packages, extra, progress)
}

/// Returns a venv under `root` with what `package` (`name`, exact version) depends on and the
/// `extra` requirements, but not `package` itself, building it first if needed.
///
/// For tests that import a repository's own files from the workspace (ReCUBE: the repository
/// with one file rebuilt by an agent): the runner appends the workspace to `sys.path`, after
/// site-packages, so an installed copy of the package would be imported in its place. pip
/// installs the package with its dependencies and then uninstalls the package alone.
pub fn ensure_dependencies_env(
    root: &Path,
    package: (&str, &str),
    extra: &[&str],
    progress: impl FnMut(&EnvStep),
) -> Result<PathBuf, SandboxError> {
    ensure(
        &EnvOptions::default(),
        root,
        &[package],
        extra,
        &[package.0],
        progress,
    )
}

/// [`ensure_env`] with a chosen interpreter and pip arguments.
pub fn ensure_env_with(
    options: &EnvOptions,
    root: &Path,
    packages: &[(&str, &str)],
    extra: &[&str],
    progress: impl FnMut(&EnvStep),
) -> Result<PathBuf, SandboxError> {
    ensure(options, root, packages, extra, &[], progress)
}

/// Builds (or reuses) the environment of `packages` and `extra`, with the packages named in
/// `uninstall` removed again after the install (their dependencies stay).
fn ensure(
    options: &EnvOptions,
    root: &Path,
    packages: &[(&str, &str)],
    extra: &[&str],
    uninstall: &[&str],
    mut progress: impl FnMut(&EnvStep),
) -> Result<PathBuf, SandboxError> {
    let mut specs = requirements(packages, extra)?;
    let uninstall: Vec<String> = uninstall.iter().map(|name| (*name).to_owned()).collect();
    // Part of the key (an environment without the package is another environment), marked
    // so that no requirement can collide with it.
    specs.extend(uninstall.iter().map(|name| format!("!uninstall {name}")));
    for arg in &options.pip_args {
        if arg.contains('\0') {
            return Err(SandboxError::InvalidJob(
                "a pip argument contains a NUL byte".into(),
            ));
        }
    }
    check_world_readable(&options.python, true)?;

    let err = |path: &Path, step: &str| {
        let (path, step) = (path.to_path_buf(), step.to_string());
        move |e: std::io::Error| SandboxError::EnvBuild {
            path,
            step,
            detail: e.to_string(),
        }
    };
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(root)
        .map_err(err(root, "creating the environment root"))?;
    check_world_readable(root, false)?;

    let key = env_key(options, packages, &specs);
    let target = root.join(&key);
    let lock = fs::File::create(root.join(format!(".{key}.lock")))
        .map_err(err(root, "creating the lock file"))?;
    // Another process may be building the same environment: wait for it, then reuse its work.
    lock.lock().map_err(err(root, "locking"))?;
    if target.join("bin/python").exists() {
        progress(&EnvStep::Reused(target.clone()));
        return Ok(target);
    }

    let build = root.join(format!(".build-{key}"));
    // Left over from a build that was interrupted (we hold the lock, so nobody is using it).
    remove_tree(&build);
    let install: Vec<String> = specs
        .iter()
        .filter(|s| !s.starts_with('!'))
        .cloned()
        .collect();
    let result = build_env(
        options,
        &build,
        &target,
        &install,
        &uninstall,
        &mut progress,
    );
    if result.is_err() {
        remove_tree(&build);
        return result.map(|()| target);
    }
    fs::rename(&build, &target).map_err(err(&target, "moving the environment into place"))?;
    progress(&EnvStep::Ready(target.clone()));
    Ok(target)
}

fn build_env(
    options: &EnvOptions,
    build: &Path,
    target: &Path,
    specs: &[String],
    uninstall: &[String],
    progress: &mut impl FnMut(&EnvStep),
) -> Result<(), SandboxError> {
    progress(&EnvStep::CreateVenv(target.to_path_buf()));
    let mut venv = Command::new(&options.python);
    venv.args(["-m", "venv"]).arg(build);
    run_tool(venv, build, "creating the venv")?;

    if !specs.is_empty() {
        progress(&EnvStep::Install(specs.to_vec()));
        let mut pip = Command::new(build.join("bin/python"));
        pip.args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ]);
        pip.args(&options.pip_args).args(specs);
        run_tool(pip, build, &format!("installing {}", specs.join(" ")))?;
    }
    if !uninstall.is_empty() {
        let mut pip = Command::new(build.join("bin/python"));
        pip.args([
            "-m",
            "pip",
            "uninstall",
            "--disable-pip-version-check",
            "--yes",
        ]);
        pip.args(uninstall);
        run_tool(pip, build, &format!("uninstalling {}", uninstall.join(" ")))?;
    }

    progress(&EnvStep::Seal);
    // Scripts pip wrote (`bin/pytest`, `activate`) name the build path; point them at the
    // final one. The interpreter finds its venv from its own path, so `python` needs nothing.
    let (from, to) = (build.to_string_lossy(), target.to_string_lossy());
    let bin = build.join("bin");
    let entries = fs::read_dir(&bin).map_err(|e| env_err(build, "sealing", e))?;
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.push(build.join("pyvenv.cfg"));
    for file in files {
        if fs::symlink_metadata(&file).is_ok_and(|m| m.is_file())
            && let Ok(text) = fs::read_to_string(&file)
            && text.contains(from.as_ref())
        {
            fs::write(&file, text.replace(from.as_ref(), to.as_ref()))
                .map_err(|e| env_err(build, "rewriting script paths", e))?;
        }
    }
    seal(build).map_err(|e| env_err(build, "making it read-only", e))
}

fn env_err(path: &Path, step: &str, e: impl std::fmt::Display) -> SandboxError {
    SandboxError::EnvBuild {
        path: path.to_path_buf(),
        step: step.into(),
        detail: e.to_string(),
    }
}

/// Runs a build tool; on failure the error carries the end of its output.
fn run_tool(mut cmd: Command, build: &Path, step: &str) -> Result<(), SandboxError> {
    let out = cmd.output().map_err(|e| env_err(build, step, e))?;
    if out.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let tail: String = {
        let chars: Vec<char> = text.trim().chars().collect();
        chars[chars.len().saturating_sub(2000)..].iter().collect()
    };
    Err(env_err(build, step, format!("{} ({})", tail, out.status)))
}

/// Read-only for everyone (root can still delete it): directories 0555, files 0444 or 0555.
fn seal(dir: &Path) -> std::io::Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    let mut dirs = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d)? {
            let path = entry?.path();
            let meta = fs::symlink_metadata(&path)?;
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                let exec = meta.permissions().mode() & 0o111 != 0;
                fs::set_permissions(
                    &path,
                    fs::Permissions::from_mode(if exec { 0o555 } else { 0o444 }),
                )?;
            }
        }
        dirs.push(d);
    }
    // Directories last: a read-only directory would not stop root, but keeps the order honest.
    for d in dirs.iter().rev() {
        fs::set_permissions(d, fs::Permissions::from_mode(0o555))?;
    }
    Ok(())
}

/// Removes a (possibly sealed) tree, best effort.
fn remove_tree(path: &Path) {
    if fs::symlink_metadata(path).is_err() {
        return;
    }
    // Sealed directories are 0555: a non-root owner must make them writable to empty them.
    let mut stack = vec![path.to_path_buf()];
    while let Some(d) = stack.pop() {
        if fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir()) {
            let _ = fs::set_permissions(&d, fs::Permissions::from_mode(0o755));
            if let Ok(entries) = fs::read_dir(&d) {
                stack.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
            }
        }
    }
    if let Err(e) = fs::remove_dir_all(path) {
        tracing::warn!(path = %path.display(), error = %e, "cannot remove a failed environment build");
    }
}

/// `name==version` for each package, then the extra requirements; rejects anything that pip
/// could read as an option or that is not a plain requirement.
fn requirements(packages: &[(&str, &str)], extra: &[&str]) -> Result<Vec<String>, SandboxError> {
    let plain = |s: &str, allowed: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || allowed.contains(c))
    };
    let mut specs = Vec::new();
    for (name, version) in packages {
        if !plain(name, "._-") || !plain(version, ".+!*-_") {
            return Err(SandboxError::InvalidJob(format!(
                "package {name:?} version {version:?} is not a plain name and version"
            )));
        }
        specs.push(format!("{name}=={version}"));
    }
    for spec in extra {
        if !plain(spec, "._-<>=!~,[]*+") {
            return Err(SandboxError::InvalidJob(format!(
                "requirement {spec:?} is not a plain requirement (e.g. pytest==8.3.4)"
            )));
        }
        specs.push((*spec).to_string());
    }
    Ok(specs)
}

/// `<first package>-<version>-<12 hex digits of a hash over everything that shapes the env>`.
fn env_key(options: &EnvOptions, packages: &[(&str, &str)], specs: &[String]) -> String {
    let mut hash = Sha256::new();
    hash.update(options.python.as_os_str().as_encoded_bytes());
    for part in options.pip_args.iter().chain(specs) {
        hash.update([0]);
        hash.update(part.as_bytes());
    }
    let digest = hex::encode(hash.finalize());
    let stem = match packages.first() {
        Some((name, version)) => format!("{}-{version}", name.to_ascii_lowercase()),
        None => "env".to_string(),
    };
    format!("{stem}-{}", &digest[..12])
}

/// Every ancestor must be enterable by others, and the path itself readable (and, for the
/// interpreter, executable), following symlinks to the real file.
fn check_world_readable(path: &Path, executable: bool) -> Result<(), SandboxError> {
    let not = || SandboxError::NotWorldReadable {
        path: path.to_path_buf(),
    };
    let real = fs::canonicalize(path).map_err(|_| not())?;
    let mode = fs::metadata(&real).map_err(|_| not())?.permissions().mode();
    let need = if executable || real.is_dir() {
        0o005
    } else {
        0o004
    };
    if mode & need != need {
        return Err(not());
    }
    for dir in real.ancestors().skip(1).chain(path.ancestors().skip(1)) {
        if dir.as_os_str().is_empty() {
            continue;
        }
        let mode = fs::metadata(dir).map_err(|_| not())?.permissions().mode();
        if mode & 0o001 == 0 {
            return Err(SandboxError::NotWorldReadable {
                path: dir.to_path_buf(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_are_plain() {
        let specs = requirements(&[("networkx", "3.4.2")], &["pytest==8.3.4"]).expect("ok");
        assert_eq!(specs, ["networkx==3.4.2", "pytest==8.3.4"]);
        assert!(requirements(&[("--index-url", "x")], &[]).is_err());
        assert!(requirements(&[], &["-r/etc/shadow"]).is_err());
        assert!(requirements(&[], &["pytest @ file:///x"]).is_err());
        assert!(requirements(&[("a", "")], &[]).is_err());
    }

    #[test]
    fn keys_depend_on_everything() {
        let o = EnvOptions::default();
        let a = env_key(&o, &[("NetworkX", "3.4.2")], &["networkx==3.4.2".into()]);
        assert!(a.starts_with("networkx-3.4.2-"), "{a}");
        let b = env_key(
            &o,
            &[("NetworkX", "3.4.2")],
            &["networkx==3.4.2".into(), "x".into()],
        );
        assert_ne!(a, b);
        let without = env_key(
            &o,
            &[("NetworkX", "3.4.2")],
            &["networkx==3.4.2".into(), "!uninstall NetworkX".into()],
        );
        assert_ne!(a, without);
    }

    #[test]
    fn private_paths_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let private = dir.path().join("private");
        fs::create_dir(&private).expect("mkdir");
        fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).expect("chmod");
        let inner = private.join("python3");
        fs::write(&inner, "").expect("write");
        fs::set_permissions(&inner, fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(check_world_readable(&inner, true).is_err());
        assert!(check_world_readable(Path::new("/usr/bin/env"), true).is_ok());
    }
}
