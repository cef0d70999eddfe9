//! What every route test needs: a router over a fresh database, and a way to call it.
#![allow(dead_code, unreachable_pub)] // Each test binary uses a different part of this module.

use std::path::Path;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tempfile::TempDir;
use tower::ServiceExt;
use wheelwright_server::{AppState, ServeConfig, router};

/// Expectation files rewritten by `UPDATE_EXPECT=1`: the helpers core's tests use.
#[path = "../../../core/tests/common/expect.rs"]
pub mod expect;
pub mod paper_scale;
#[path = "../../../core/tests/common/python.rs"]
pub mod python;
pub mod recube;
pub mod serve;

/// A router on a new SQLite database in a temporary directory (removed on drop).
pub struct TestApp {
    pub router: Router,
    pub dir: TempDir,
}

pub async fn app() -> TestApp {
    let dir = tempfile::tempdir().expect("temporary directory");
    app_with_dist(dir, None).await
}

/// Like [`app`], serving `dist` as the built browser app (`None`: no app built).
pub async fn app_with_dist(dir: TempDir, dist: Option<&Path>) -> TestApp {
    app_with_config(dir, dist, wheelwright_server::HttpConfig::default()).await
}

/// Like [`app`] on the database under `dir/data`, with the request limits `http`.
pub async fn app_with(dir: TempDir, http: wheelwright_server::HttpConfig) -> TestApp {
    app_with_config(dir, None, http).await
}

/// Like [`app`], with hidden tests run as `tests` says.
pub async fn app_with_tests(tests: wheelwright_server::TestConfig) -> TestApp {
    let dir = tempfile::tempdir().expect("temporary directory");
    open(dir, None, wheelwright_server::HttpConfig::default(), tests).await
}

/// Like [`app`], importing the datasets under `datasets` (not the shipped folder alone),
/// with hidden tests run as `tests` says.
pub async fn app_with_datasets(datasets: &Path, tests: wheelwright_server::TestConfig) -> TestApp {
    let dir = tempfile::tempdir().expect("temporary directory");
    open_with(
        dir,
        None,
        wheelwright_server::HttpConfig::default(),
        tests,
        datasets,
    )
    .await
}

async fn app_with_config(
    dir: TempDir,
    dist: Option<&Path>,
    http: wheelwright_server::HttpConfig,
) -> TestApp {
    open(dir, dist, http, wheelwright_server::TestConfig::default()).await
}

async fn open(
    dir: TempDir,
    dist: Option<&Path>,
    http: wheelwright_server::HttpConfig,
    tests: wheelwright_server::TestConfig,
) -> TestApp {
    let datasets = real_dataset().parent().unwrap().to_path_buf();
    open_with(dir, dist, http, tests, &datasets).await
}

async fn open_with(
    dir: TempDir,
    dist: Option<&Path>,
    http: wheelwright_server::HttpConfig,
    tests: wheelwright_server::TestConfig,
    datasets: &Path,
) -> TestApp {
    open_state(dir, dist, http, tests, datasets).await.0
}

/// Like [`app_with`], also giving the state the router serves (to ask it what it holds).
pub async fn app_and_state(http: wheelwright_server::HttpConfig) -> (TestApp, AppState) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let datasets = real_dataset().parent().unwrap().to_path_buf();
    open_state(
        dir,
        None,
        http,
        wheelwright_server::TestConfig::default(),
        &datasets,
    )
    .await
}

async fn open_state(
    dir: TempDir,
    dist: Option<&Path>,
    http: wheelwright_server::HttpConfig,
    tests: wheelwright_server::TestConfig,
    datasets: &Path,
) -> (TestApp, AppState) {
    let config = ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("data"),
        app_dir: dist.map_or_else(|| dir.path().join("no-app"), Path::to_path_buf),
        datasets_dir: datasets.to_path_buf(),
        cache_dir: wheelwright_server::dataset::default_cache_dir(),
        tests,
        http,
    };
    let state = AppState::open(&config).await.expect("open state");
    let app = TestApp {
        router: router(state.clone()),
        dir,
    };
    (app, state)
}

/// A response reduced to what tests compare.
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON. An object with the same key twice fails the test: a JSON parser
    /// keeps only one of them, so a client would silently lose the other.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice::<Unique>(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON without duplicate keys ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        });
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

pub async fn send(app: &TestApp, request: Request<Body>) -> Reply {
    let response = app
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible");
    reply_of(response).await
}

/// A response read whole into a [`Reply`].
pub async fn reply_of(response: axum::response::Response) -> Reply {
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Reply {
        status,
        content_type,
        headers,
        body,
    }
}

pub async fn get(app: &TestApp, uri: &str) -> Reply {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub async fn post_json(app: &TestApp, uri: &str, body: impl Into<Body>) -> Reply {
    send(
        app,
        Request::post(uri)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.into())
            .unwrap(),
    )
    .await
}

/// Asserts an API error: the status, the JSON shape, and words the message must contain.
pub fn assert_api_error(reply: &Reply, status: StatusCode, words: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    let message = reply.json()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {}", reply.text()))
        .to_owned();
    assert!(
        message.to_lowercase().contains(&words.to_lowercase()),
        "{message:?} lacks {words:?}"
    );
}

/// The RepoReuse dataset shipped with the project.
pub fn real_dataset() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../datasets/reporeuse-networkx"
    ))
}

/// A run bundle (JSON Lines) under `model` whose road-audit turns 1..=`turns` hold `module`
/// at their module paths; the dataset's other turns are missing (their tests fail at once,
/// without a sandbox).
pub fn road_audit_bundle(model: &str, module: &str, turns: usize) -> String {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let chain = dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == "road-audit")
        .unwrap();
    let mut lines = vec![
        serde_json::json!({"metadata": {
        "model": model, "harness": "test", "memory": "none", "date": "2026-12-01",
        "dataset": {"name": "reporeuse-networkx", "version": "1"}}})
        .to_string(),
    ];
    for (i, turn) in chain.turns.iter().take(turns).enumerate() {
        lines.push(
            serde_json::json!({
                "instance_id": format!("road-audit/turn-{}", i + 1),
                "files": {turn.manifest.module_path.clone(): module},
            })
            .to_string(),
        );
    }
    lines.join("\n")
}

/// Copies a directory tree (to corrupt a copy of a dataset without touching the original).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub async fn post_bytes(app: &TestApp, uri: &str, body: impl Into<Body>) -> Reply {
    send(
        app,
        Request::post(uri)
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .body(body.into())
            .unwrap(),
    )
    .await
}

/// Like [`post_bytes`], from the client at address `peer`, as the server's accept loop
/// records it (per-client limits and the queue's submitters count by it).
pub async fn post_from(app: &TestApp, peer: &str, uri: &str, body: impl Into<Body>) -> Reply {
    let peer: std::net::SocketAddr = format!("{peer}:40000").parse().expect("an IPv4 address");
    let mut request = Request::post(uri)
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .body(body.into())
        .unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(peer));
    send(app, request).await
}

/// What a browser's `<form enctype="multipart/form-data">` sends: each (field name, file
/// content) as a file field, in order; the Content-Type (with its boundary) and the body.
pub fn multipart_form(fields: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, content) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"run.zip\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// How many runs the database holds (to check that a refused upload stored nothing).
pub async fn run_count(app: &TestApp) -> usize {
    let reply = get(app, "/api/v1/runs").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    usize::try_from(
        reply.json()["total"]
            .as_u64()
            .expect("a page of runs has a total"),
    )
    .unwrap()
}

/// A zip archive of `entries` (path, bytes), deflated.
pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in entries {
        zip.start_file(*path, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

/// Any JSON value, refusing objects that repeat a key (at any depth).
struct Unique;

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = Unique;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Unique, A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
            }
            map.next_value::<Unique>()?;
        }
        Ok(Unique)
    }
}

/// GET `uri` with the request headers `headers`.
pub async fn get_with(app: &TestApp, uri: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(app, request.body(Body::empty()).unwrap()).await
}

/// The bytes a gzip body holds.
pub fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(body), &mut bytes).unwrap();
    bytes
}

/// The real `wheelwright` binary run with `args`, logging only warnings.
pub fn wheelwright(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(args)
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs")
}

/// Runs the binary with `args`, which must succeed without a word on standard error, and
/// returns its standard output.
pub fn stdout_of(args: &[&str]) -> String {
    let out = wheelwright(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    assert!(stderr.trim().is_empty(), "{stderr}");
    String::from_utf8(out.stdout).expect("the output is UTF-8")
}

/// Every file under `dir`, by `/`-separated path relative to it, with its bytes.
pub fn files_under(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The source release of `name==version` from PyPI, unpacked (cached between runs).
pub fn sdist(name: &str, version: &str) -> std::path::PathBuf {
    let cache = wheelwright_server::dataset::default_cache_dir().join("sdists");
    let dir = cache.join(format!("{name}-{version}"));
    if dir.join("PKG-INFO").exists() {
        return dir;
    }
    std::fs::create_dir_all(&cache).unwrap();
    let download = tempfile::tempdir().unwrap();
    let got = std::process::Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--disable-pip-version-check",
            "-q",
            "-d",
        ])
        .arg(download.path())
        .arg(format!("{name}=={version}"))
        .output()
        .expect("python3 runs");
    assert!(got.status.success(), "pip download {name}: {got:?}");
    let archive = std::fs::read_dir(download.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let unpack = tempfile::tempdir_in(&cache).unwrap();
    let status = std::process::Command::new("tar")
        .arg("xzf")
        .arg(&archive)
        .arg("-C")
        .arg(unpack.path())
        .status()
        .unwrap();
    assert!(status.success());
    let inner = std::fs::read_dir(unpack.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // Another test run may have won the race; either copy is the same release.
    let _ = std::fs::rename(&inner, &dir);
    dir
}

/// A temporary path as a command-line argument.
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// The JSON report of a command that must have succeeded (its standard error otherwise).
pub fn json_report(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}
