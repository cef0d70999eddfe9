//! The real `wheelwright serve` binary on a loopback port, its log in a file, and plain HTTP/1.1 requests to it.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free loopback port (free when asked; the server binds it a moment later).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running `wheelwright serve`, killed on drop.
pub struct Server {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl Server {
    /// Starts the binary on `data` with the shipped datasets, no baseline tests and `args`,
    /// logging (at info) into `log`; it answers once [`Server::wait_healthy`] returns.
    pub fn start(data: &Path, log: &Path, args: &[&str]) -> Self {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
            .args(["serve", "--skip-baseline-tests"])
            .args(args)
            .arg("--data-dir")
            .arg(data)
            .arg("--datasets-dir")
            .arg(super::real_dataset().parent().unwrap())
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .env("WHEELWRIGHT_LOG", "info")
            .stdout(Stdio::null())
            // A file, not a pipe: nobody reads a pipe while the test runs, and a full one
            // would stop the server mid-write.
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("start wheelwright serve");
        Self {
            child,
            port,
            log: log.to_owned(),
        }
    }

    /// Waits until the server answers its health route (it stores the baselines first).
    pub fn wait_healthy(&self, limit: Duration) {
        self.wait_for("/api/v1/health", limit, |_| true);
    }

    /// One request over a fresh connection; the status and the body as JSON (`Null` when
    /// it is not JSON), or `None` when the connection failed.
    pub fn http(&self, method: &str, path: &str, body: &[u8]) -> Option<(u16, serde_json::Value)> {
        http(self.port, method, path, &[], body)
    }

    /// Like [`Server::http`], with the request headers `headers`.
    pub fn http_with(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Option<(u16, serde_json::Value)> {
        http(self.port, method, path, headers, body)
    }

    /// Polls `path` until `done` holds for its JSON, or panics after `limit`.
    pub fn wait_for(
        &self,
        path: &str,
        limit: Duration,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + limit;
        let mut last = None;
        loop {
            if let Some((status, body)) = self.http("GET", path, b"") {
                if status == 200 && done(&body) {
                    return body;
                }
                last = Some((status, body));
            }
            assert!(
                Instant::now() < deadline,
                "{path} did not get there in {limit:?}; last answer {last:?}; log:\n{}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The server's peak resident memory so far, in MiB (`VmHWM` of `/proc/<pid>/status`).
    pub fn peak_rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status");
        kib >> 10
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The last lines of the log, for a failure's message.
    pub fn log_tail(&self) -> String {
        let log = self.log();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request to `port` with `headers` over a fresh connection; the status and
/// the body.
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<(u16, serde_json::Value)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(110)))
        .ok()?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).ok()?;
    let reply = String::from_utf8_lossy(&reply);
    let status = reply.get(9..12)?.parse().ok()?;
    let (_, body) = reply.split_once("\r\n\r\n")?;
    Some((
        status,
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    ))
}
