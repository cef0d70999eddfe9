//! The pinned repository from PyPI: its wheel's Python sources, and a venv to run tests in.
//!
//! Both are kept under a cache directory (default [`super::default_cache_dir`]) and reused:
//! - `pypi/<name>-<version>/*.whl`, from `python3 -m pip download --no-deps --only-binary=:all:`;
//! - `venvs/<name>-<version>/`, a venv with the pinned package and pytest.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wheelwright_core::reporeuse::dataset::PypiRepository;
use wheelwright_core::workspace::{MAX_TEXT_FILE_BYTES, text_file};

use super::DatasetError;

/// Largest number of entries in a wheel that is read.
pub const MAX_WHEEL_ENTRIES: usize = 50_000;
/// Largest Python file read out of a wheel.
pub const MAX_WHEEL_FILE_BYTES: u64 = 16 << 20;
/// Largest total of Python sources read out of a wheel.
pub const MAX_WHEEL_TOTAL_BYTES: u64 = 512 << 20;
/// How long pip may take to download or install.
const PIP_TIMEOUT: Duration = Duration::from_secs(900);

fn repo_error(repo: &PypiRepository, message: impl Into<String>) -> DatasetError {
    DatasetError::Repository {
        what: format!("{}=={} from PyPI", repo.pypi, repo.version),
        message: message.into(),
    }
}

fn safe_component(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '!'))
}

fn key(repo: &PypiRepository) -> Result<String, DatasetError> {
    if !safe_component(&repo.pypi) || !safe_component(&repo.version) {
        return Err(repo_error(
            repo,
            "the name or version in dataset.json \"repository\" has characters a PyPI name or version cannot have",
        ));
    }
    Ok(format!("{}-{}", repo.pypi, repo.version))
}

/// What a finished child process gave.
pub(crate) struct Finished {
    pub(crate) success: bool,
    pub(crate) timed_out: bool,
    /// Standard output and error, interleaved, lossily decoded.
    pub(crate) output: String,
}

/// Runs `command` with its output captured to a temporary file, killing it after `timeout`.
pub(crate) fn run_with_timeout(
    mut command: Command,
    timeout: Duration,
) -> std::io::Result<Finished> {
    let log = tempfile::tempfile()?;
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?);
    let mut child = command.spawn()?;
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (Some(status), false);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut output = String::new();
    let mut log = log;
    use std::io::Seek;
    log.seek(std::io::SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    log.take(1 << 20).read_to_end(&mut bytes)?;
    output.push_str(&String::from_utf8_lossy(&bytes));
    Ok(Finished {
        success: status.is_some_and(|s| s.success()),
        timed_out,
        output,
    })
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// The wheel of the pinned version, downloaded into `<cache>/pypi/<name>-<version>/` with
/// `python -m pip download` the first time.
pub fn wheel(
    repo: &PypiRepository,
    cache_dir: &Path,
    python: &Path,
) -> Result<PathBuf, DatasetError> {
    let dir = cache_dir.join("pypi").join(key(repo)?);
    if let Some(found) = find_wheel(&dir) {
        return Ok(found);
    }
    std::fs::create_dir_all(&dir).map_err(|source| DatasetError::Io {
        path: dir.clone(),
        source,
    })?;
    eprintln!(
        "downloading {}=={} from PyPI into {} (once) ...",
        repo.pypi,
        repo.version,
        dir.display()
    );
    // pip writes into a private directory and the wheel is renamed into place, so a
    // concurrent reader (another test, another server) never sees half a file.
    let staging = tempfile::Builder::new()
        .prefix(".download-")
        .tempdir_in(&dir)
        .map_err(|source| DatasetError::Io {
            path: dir.clone(),
            source,
        })?;
    let mut command = Command::new(python);
    command
        .args([
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--no-deps",
        ])
        .arg("--only-binary=:all:")
        .arg(format!("{}=={}", repo.pypi, repo.version))
        .arg("-d")
        .arg(staging.path());
    let finished = run_with_timeout(command, PIP_TIMEOUT).map_err(|e| {
        repo_error(
            repo,
            format!(
                "cannot run {} -m pip: {e}; install Python 3 with pip or pass --python",
                python.display()
            ),
        )
    })?;
    if !finished.success {
        return Err(repo_error(
            repo,
            format!(
                "pip download failed{} (is PyPI reachable, and does a wheel of that version exist?):\n{}",
                if finished.timed_out {
                    " (timed out)"
                } else {
                    ""
                },
                tail(&finished.output)
            ),
        ));
    }
    if let Some(downloaded) = find_wheel(staging.path())
        && let Some(name) = downloaded.file_name()
    {
        std::fs::rename(&downloaded, dir.join(name)).map_err(|source| DatasetError::Io {
            path: dir.join(name),
            source,
        })?;
    }
    find_wheel(&dir).ok_or_else(|| {
        repo_error(
            repo,
            format!("pip reported success but left no .whl in {}", dir.display()),
        )
    })
}

fn find_wheel(dir: &Path) -> Option<PathBuf> {
    let mut wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    wheels.sort();
    wheels.into_iter().next()
}

/// The `.py` files (and the text files, [`text_file`]) of a wheel by their path in it (`networkx/__init__.py`), which is their
/// path relative to `site-packages`. Metadata directories are skipped; entries with
/// absolute paths, `..` or backslashes are refused; sizes and counts are limited.
pub fn wheel_sources(path: &Path) -> Result<BTreeMap<String, String>, DatasetError> {
    let bad = wheel_error(path, "the sources");
    let mut archive = open_wheel(path, &bad)?;
    if archive.len() > MAX_WHEEL_ENTRIES {
        return Err(bad(format!(
            "{} entries, more than the limit of {MAX_WHEEL_ENTRIES}",
            archive.len()
        )));
    }
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| bad(format!("entry {i} cannot be read: {e}")))?;
        let name = entry.name().to_owned();
        let python = name.ends_with(".py");
        // Other files are kept when they are text (package data, `py.typed`), for the line
        // counts of reads.
        if !entry.is_file() || (!python && entry.size() > MAX_TEXT_FILE_BYTES as u64) {
            continue;
        }
        if name.starts_with('/')
            || name.contains('\\')
            || name.contains(':')
            || name
                .split('/')
                .any(|p| p.is_empty() || p == "." || p == "..")
        {
            return Err(bad(format!("unsafe entry path {name:?}")));
        }
        let top = name.split('/').next().unwrap_or_default();
        if top.ends_with(".dist-info") || top.ends_with(".data") {
            continue;
        }
        if entry.size() > MAX_WHEEL_FILE_BYTES {
            return Err(bad(format!(
                "{name} is {} bytes, more than the limit of {MAX_WHEEL_FILE_BYTES}",
                entry.size()
            )));
        }
        let mut bytes = Vec::new();
        (&mut entry)
            .take(MAX_WHEEL_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("{name} cannot be decompressed: {e}")))?;
        total += bytes.len() as u64;
        if bytes.len() as u64 > MAX_WHEEL_FILE_BYTES || total > MAX_WHEEL_TOTAL_BYTES {
            return Err(bad(format!("{name}: the sources exceed the size limits")));
        }
        if python {
            // Non-UTF-8 Python files are rare; they are read lossily rather than dropped.
            files.insert(name, String::from_utf8_lossy(&bytes).into_owned());
        } else if let Some(text) = text_file(&bytes) {
            files.insert(name, text.to_owned());
        }
    }
    if !files.keys().any(|name| name.ends_with(".py")) {
        return Err(bad("the wheel holds no Python files".to_owned()));
    }
    Ok(files)
}

/// The repository's Python sources (W0), from the wheel cached under `cache_dir`
/// (downloaded with `python3 -m pip` the first time).
pub fn repository_source(
    repo: &PypiRepository,
    cache_dir: &Path,
) -> Result<BTreeMap<String, String>, DatasetError> {
    repository_source_with(repo, cache_dir, Path::new("python3"))
}

/// [`repository_source`] with the Python interpreter that runs pip.
pub fn repository_source_with(
    repo: &PypiRepository,
    cache_dir: &Path,
    python: &Path,
) -> Result<BTreeMap<String, String>, DatasetError> {
    wheel_sources(&wheel(repo, cache_dir, python)?)
}

/// The interpreter of a venv under `<cache>/venvs/<name>-<version>/` holding the pinned
/// package and pytest, created with `python -m venv` the first time (reused after).
pub fn venv_python(
    repo: &PypiRepository,
    cache_dir: &Path,
    python: &Path,
) -> Result<PathBuf, DatasetError> {
    let dir = cache_dir.join("venvs").join(key(repo)?);
    let bin = dir.join("bin").join("python");
    let ready = dir.join(".wheelwright-ready");
    if ready.is_file() && bin.exists() {
        eprintln!("using the venv {}", dir.display());
        return Ok(bin);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "creating a venv with {}=={} and pytest in {} (once) ...",
        repo.pypi,
        repo.version,
        dir.display()
    );
    let mut command = Command::new(python);
    command.args(["-m", "venv"]).arg(&dir);
    let step = |finished: std::io::Result<Finished>, what: &str| -> Result<(), DatasetError> {
        match finished {
            Ok(f) if f.success => Ok(()),
            Ok(f) => Err(repo_error(
                repo,
                format!("{what} failed:\n{}", tail(&f.output)),
            )),
            Err(e) => Err(repo_error(
                repo,
                format!("cannot run {what}: {e}; install Python 3 or pass --python"),
            )),
        }
    };
    step(run_with_timeout(command, PIP_TIMEOUT), "python -m venv")?;
    let mut install = Command::new(&bin);
    install
        .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
        .arg(format!("{}=={}", repo.pypi, repo.version))
        .arg("pytest");
    step(run_with_timeout(install, PIP_TIMEOUT), "pip install")?;
    std::fs::write(&ready, format!("{}=={}\n", repo.pypi, repo.version)).map_err(|source| {
        DatasetError::Io {
            path: ready.clone(),
            source,
        }
    })?;
    eprintln!("venv ready");
    Ok(bin)
}

/// Largest `METADATA` of a wheel that is read (a README rarely passes 100 KiB).
const MAX_METADATA_BYTES: u64 = 4 << 20;

/// The `METADATA` file of the wheel at `path` (its `*.dist-info/METADATA`): the package's
/// declared dependencies and, as its body, the long description, usually the README.
pub fn wheel_metadata(path: &Path) -> Result<String, DatasetError> {
    let bad = wheel_error(path, "the metadata");
    let mut archive = open_wheel(path, &bad)?;
    let name = archive
        .file_names()
        .find(|n| {
            n.strip_suffix("/METADATA")
                .is_some_and(|dir| dir.ends_with(".dist-info") && !dir.contains('/'))
        })
        .map(str::to_owned)
        .ok_or_else(|| bad("the wheel has no *.dist-info/METADATA".to_owned()))?;
    let entry = archive
        .by_name(&name)
        .map_err(|e| bad(format!("{name} cannot be read: {e}")))?;
    let mut bytes = Vec::new();
    entry
        .take(MAX_METADATA_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(format!("{name} cannot be decompressed: {e}")))?;
    if bytes.len() as u64 > MAX_METADATA_BYTES {
        return Err(bad(format!("{name} is over {MAX_METADATA_BYTES} bytes")));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// An error about `what` of the wheel at `path`, with a message.
fn wheel_error(path: &Path, what: &str) -> impl Fn(String) -> DatasetError {
    let what = format!("{what} of {}", path.display());
    move |message| DatasetError::Repository {
        what: what.clone(),
        message,
    }
}

/// The wheel at `path` opened as a zip archive.
fn open_wheel(
    path: &Path,
    bad: &impl Fn(String) -> DatasetError,
) -> Result<zip::ZipArchive<std::fs::File>, DatasetError> {
    let file = std::fs::File::open(path).map_err(|source| DatasetError::Io {
        path: path.to_owned(),
        source,
    })?;
    zip::ZipArchive::new(file).map_err(|e| {
        bad(format!(
            "not a wheel (zip) file: {e}; delete it to download again"
        ))
    })
}
