//! Harness for end-to-end tests: the real server on a free loopback port, chromedriver, and a
//! headless Chromium session, each torn down when dropped.

use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::Value;
use tempfile::TempDir;
use tokio::sync::oneshot;
use wheelwright_server::{AppState, ServeConfig};

/// The workspace root (this crate lives in `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Where a test writes what a person may want to look at afterwards (screenshots).
pub fn output_dir(test: &str) -> PathBuf {
    let dir = workspace_root().join("tests").join("output").join(test);
    std::fs::create_dir_all(&dir).expect("create the test output directory");
    dir
}

/// Saves a screenshot of the browser's page under the test's output folder.
pub async fn screenshot(client: &Client, test: &str, name: &str) -> anyhow::Result<()> {
    std::fs::write(output_dir(test).join(name), client.screenshot().await?)?;
    Ok(())
}

/// Fails unless the page is no wider than `width` px: nothing scrolls sideways on a phone.
pub async fn assert_fits(client: &Client, width: i64) -> anyhow::Result<()> {
    let scroll = client
        .execute("return document.documentElement.scrollWidth;", vec![])
        .await?;
    if scroll.as_i64().is_none_or(|w| w > width) {
        bail!("the page is {scroll} px wide, more than {width}");
    }
    Ok(())
}

/// The paths of the page's requests to the API so far (the browser's own record of what
/// it fetched): what a page that promises to send nothing must leave empty.
pub async fn api_requests(client: &Client) -> anyhow::Result<Vec<String>> {
    let names = client
        .execute(
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)
               .filter(p => p.startsWith('/api/'));",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(names)?)
}

/// Runs `script` (a function body that returns a value) until it returns `expected`.
pub async fn wait_for(
    client: &Client,
    script: &str,
    expected: &Value,
    timeout: Duration,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let value = client.execute(script, vec![]).await?;
        if &value == expected {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("waited {timeout:?} for {script:?} to give {expected}, it gives {value}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `GET` of an API path on `server`, as JSON (an error status fails).
pub async fn api(server: &Server, path: &str) -> anyhow::Result<Value> {
    Ok(reqwest::get(server.url(path))
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// The built app: `WHEELWRIGHT_APP_DIR` or `dist/` at the workspace root.
pub fn app_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::var_os("WHEELWRIGHT_APP_DIR")
        .map_or_else(|| workspace_root().join("dist"), PathBuf::from);
    if !dir.join("index.html").is_file() {
        bail!(
            "the app is not built in {}: run `trunk build --release` (scripts/test does)",
            dir.display()
        );
    }
    Ok(dir)
}

/// The Wheelwright server, serving the built app from a fresh data directory.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    _data: TempDir,
}

impl Server {
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_with_datasets(&workspace_root().join("datasets")).await
    }

    /// Like [`Server::start`], serving the datasets under `datasets` instead of the shipped ones.
    pub async fn start_with_datasets(datasets: &std::path::Path) -> anyhow::Result<Self> {
        let data = tempfile::tempdir()?;
        let config = ServeConfig {
            addr: "127.0.0.1:0".parse()?,
            data_dir: data.path().join("data"),
            app_dir: app_dir()?,
            datasets_dir: datasets.to_path_buf(),
            cache_dir: wheelwright_server::dataset::default_cache_dir(),
            tests: wheelwright_server::TestConfig::default(),
            http: wheelwright_server::HttpConfig::default(),
        };
        let state = AppState::open(&config).await?;
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(wheelwright_server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        Ok(Self {
            addr,
            stop: Some(stop),
            task: Some(task),
            _data: data,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops gracefully and reports whether the server shut down cleanly.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await?,
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(StdListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A chromedriver process on a free port, killed on drop.
pub struct Chromedriver {
    child: Child,
    pub port: u16,
}

impl Chromedriver {
    pub fn start() -> anyhow::Result<Self> {
        let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
        let port = free_port()?;
        let child = Command::new(&binary)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| {
                format!("cannot start {binary}; scripts/setup installs chromium-driver")
            })?;
        let driver = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                bail!("chromedriver did not listen on port {port} within 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(driver)
    }

    /// A new headless Chromium session with its own empty profile.
    pub async fn browser(&self, profile: &Path) -> anyhow::Result<Client> {
        self.browser_with(profile, Scheme::Light).await
    }

    /// A new headless Chromium session whose pages see `scheme` as the user's preferred
    /// colour scheme (`prefers-color-scheme`).
    pub async fn browser_with(&self, profile: &Path, scheme: Scheme) -> anyhow::Result<Client> {
        let mut caps = serde_json::Map::new();
        let mut args: Vec<String> = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,1000",
        ]
        .map(str::to_owned)
        .to_vec();
        args.push(format!("--user-data-dir={}", profile.display()));
        if scheme == Scheme::Dark {
            // Blink's own setting: 0 is dark (`--force-dark-mode` alone leaves headless light).
            args.push("--blink-settings=preferredColorScheme=0".to_owned());
        }
        let mut chrome = serde_json::json!({ "args": args });
        if let Ok(binary) = std::env::var("CHROMIUM") {
            chrome["binary"] = serde_json::Value::String(binary);
        }
        caps.insert("goog:chromeOptions".to_owned(), chrome);
        ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .context("cannot open a Chromium session through chromedriver")
    }
}

/// The colour scheme a browser session prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Light,
    Dark,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
