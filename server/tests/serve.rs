//! `wheelwright serve` as a process: configuration from flags and environment, a working
//! health endpoint, and a clean exit on SIGTERM and SIGINT with the database closed.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the binary with the address from the environment and the data dir from a flag.
fn start(data: &std::path::Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["serve", "--data-dir"])
        .arg(data)
        .env("WHEELWRIGHT_ADDR", format!("127.0.0.1:{port}"))
        .env("WHEELWRIGHT_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wheelwright serve")
}

/// Polls the health endpoint until it answers 200 (plain HTTP over a socket: no client crate).
fn wait_healthy(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::Write;
            let _ = stream.write_all(
                b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
            );
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            if reply.starts_with("HTTP/1.1 200") {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the server never became healthy");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stop_with(signal: &str) {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = start(data.path(), port);
    wait_healthy(port);
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "still running 20 s after {signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(exit.success(), "exit {exit:?}; log:\n{log}");
    assert!(log.contains(&format!("{signal} received")), "{log}");
    assert!(log.contains("stopped"), "{log}");
    // A closed database leaves no write-ahead log behind.
    let wal = data.path().join("wheelwright.sqlite-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0);
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    stop_with("SIGTERM");
}

#[test]
fn sigint_stops_the_server_cleanly() {
    stop_with("SIGINT");
}
