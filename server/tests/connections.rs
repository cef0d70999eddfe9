//! `wheelwright serve` under connections that never finish their headers or bodies: the server never holds more than `--max-connections` of them (so its descriptors cannot run out), closes each after `--header-timeout` (kept-alive idle ones too), answers a body that never arrives with a JSON 408 after `--request-timeout`, refuses an oversize head, still answers a normal request, stores nothing, and on shutdown finishes a request in flight.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// `GET /api/v1/runs` of a server that stores nothing: the first page of an empty list.
const EMPTY_RUN_LIST: &str = r#"{"items":[],"total":0,"limit":50,"offset":0}"#;

/// The lowered limits the server runs with here.
const MAX_CONNECTIONS: usize = 16;
const HEADER_TIMEOUT: Duration = Duration::from_millis(500);
/// Idle connections opened at once: many times the limit.
const IDLE: usize = 300;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server as a process, killed on drop.
struct Server {
    child: Child,
    port: u16,
    _data: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `wheelwright serve` with no datasets (a quick start) and `extra` flags.
fn start(extra: &[&str]) -> Server {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .arg("serve")
        .arg("--data-dir")
        .arg(data.path().join("data"))
        .arg("--datasets-dir")
        .arg(data.path().join("no-datasets"))
        .args(["--backend", "none", "--addr", &format!("127.0.0.1:{port}")])
        .args(extra)
        .env("WHEELWRIGHT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start wheelwright serve");
    let server = Server {
        child,
        port,
        _data: data,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while get(port, "/api/v1/health").map(|(s, _)| s).ok() != Some(200) {
        assert!(Instant::now() < deadline, "the server never became healthy");
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

/// Starts the server with the lowered limits of this file.
fn start_limited() -> Server {
    start(&[
        "--max-connections",
        &MAX_CONNECTIONS.to_string(),
        "--header-timeout",
        &HEADER_TIMEOUT.as_secs_f64().to_string(),
    ])
}

/// `GET path` on a new connection: the status and the body.
fn get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    let status = reply
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {reply:?}")))?;
    let body = reply
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    Ok((status, body))
}

/// How many descriptors process `pid` has open.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(Path::new("/proc").join(pid.to_string()).join("fd"))
        .expect("/proc/<pid>/fd")
        .count()
}

/// Samples the open descriptors of `pid` until dropped; the most seen.
struct FdWatch {
    stop: Arc<AtomicBool>,
    most: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FdWatch {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let most = Arc::new(AtomicUsize::new(0));
        let thread = {
            let (stop, most) = (Arc::clone(&stop), Arc::clone(&most));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    most.fetch_max(open_fds(pid), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        };
        Self {
            stop,
            most,
            thread: Some(thread),
        }
    }

    fn most(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.most.load(Ordering::Relaxed)
    }
}

/// Waits until the server closes `stream` (end of file or a reset), at most `within`;
/// how long that took.
fn wait_closed(stream: &mut TcpStream, within: Duration) -> Duration {
    let started = Instant::now();
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    match stream.read(&mut buf) {
        Ok(0) => started.elapsed(),
        // hyper answers nothing to a header timeout; any bytes would be an answer.
        Ok(n) => panic!(
            "an idle connection got an answer: {:?}",
            String::from_utf8_lossy(&buf[..n])
        ),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => started.elapsed(),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            panic!("an idle connection was still open after {within:?}")
        }
        Err(e) => panic!("reading an idle connection: {e}"),
    }
}

#[test]
fn idle_connections_are_bounded_and_closed_and_a_normal_request_is_still_answered() {
    let server = start_limited();
    let pid = server.child.id();
    let baseline = open_fds(pid);
    let watch = FdWatch::start(pid);
    // Half send nothing; half a request line and one header, never the blank line.
    let mut idle: Vec<TcpStream> = (0..IDLE)
        .map(|i| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            if i % 2 == 1 {
                stream
                    .write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n")
                    .unwrap();
            }
            stream
        })
        .collect();
    // Waiting behind them in the backlog (first come, first served), a normal request.
    let started = Instant::now();
    let (status, body) = get(server.port, "/api/v1/health").expect("a normal request");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"status\""), "{body}");
    // The backlog drains a slot-full per header timeout.
    let drain = HEADER_TIMEOUT * u32::try_from(IDLE / MAX_CONNECTIONS + 1).unwrap();
    assert!(
        started.elapsed() < drain + Duration::from_secs(30),
        "answered after {:?}",
        started.elapsed()
    );
    for stream in &mut idle {
        wait_closed(stream, drain + Duration::from_secs(30));
    }
    let most = watch.most();
    // Without the limit the server would have held all of them at once.
    assert!(
        most <= baseline + MAX_CONNECTIONS + 4,
        "the server had {most} descriptors open (at rest {baseline}, limit {MAX_CONNECTIONS})"
    );
    // Still answering, and nothing was stored.
    assert_eq!(get(server.port, "/api/v1/health").unwrap().0, 200);
    assert_eq!(
        get(server.port, "/api/v1/runs").unwrap(),
        (200, EMPTY_RUN_LIST.to_owned())
    );
}

#[test]
fn a_kept_alive_connection_idle_past_the_header_timeout_is_closed() {
    let server = start_limited();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    // Read the one answer (its body is short JSON, ending with `}`), keeping the connection.
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    while !answer.ends_with(b"}") {
        let n = stream.read(&mut buf).expect("the answer");
        assert!(n > 0, "closed before answering");
        answer.extend_from_slice(&buf[..n]);
    }
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{answer:?}");
    let idle = wait_closed(&mut stream, Duration::from_secs(10));
    assert!(
        idle >= HEADER_TIMEOUT / 2,
        "closed after {idle:?}, before the header timeout"
    );
    assert_eq!(get(server.port, "/api/v1/health").unwrap().0, 200);
}

#[test]
fn a_request_whose_body_never_arrives_is_answered_408_in_json_and_closed() {
    let server = start(&["--request-timeout", "1"]);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    // Headers promise a body that never comes (a slow-body attack).
    stream
        .write_all(
            b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"source\": ",
        )
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    let mut reply = String::new();
    // The server answers, then closes: the unread body makes the connection unusable.
    stream
        .read_to_string(&mut reply)
        .expect("an answer, then the end");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("application/json"), "{reply}");
    assert!(
        reply.contains("took longer than 1 s, this server's limit"),
        "{reply}"
    );
    assert_eq!(get(server.port, "/api/v1/health").unwrap().0, 200);
    assert_eq!(
        get(server.port, "/api/v1/runs").unwrap(),
        (200, EMPTY_RUN_LIST.to_owned())
    );
}

#[test]
fn a_request_head_over_32_kib_is_refused_431() {
    let server = start(&[]);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let padding = "a".repeat(40 * 1024);
    // The server may answer and close before all of it is sent.
    let _ = write!(
        stream,
        "GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: {padding}\r\n\r\n"
    );
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reply = [0u8; 12];
    stream.read_exact(&mut reply).expect("an answer");
    assert_eq!(&reply, b"HTTP/1.1 431");
    assert_eq!(get(server.port, "/api/v1/health").unwrap().0, 200);
    assert_eq!(
        get(server.port, "/api/v1/runs").unwrap(),
        (200, EMPTY_RUN_LIST.to_owned())
    );
}

#[test]
fn a_connection_limit_the_open_file_limit_cannot_hold_is_refused_at_start() {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .arg("serve")
        .arg("--data-dir")
        .arg(data.path())
        .args(["--backend", "none", "--addr", "127.0.0.1:0"])
        .env("WHEELWRIGHT_MAX_CONNECTIONS", "4000000000")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("--max-connections 4000000000 does not fit the open-file limit"),
        "{stderr}"
    );
    assert!(stderr.contains("pass at most"), "{stderr}");
}

#[tokio::test]
async fn shutdown_lets_a_request_in_flight_finish_and_closes_idle_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let config = wheelwright_server::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("data"),
        app_dir: dir.path().join("no-app"),
        datasets_dir: dir.path().join("no-datasets"),
        cache_dir: dir.path().join("cache"),
        tests: wheelwright_server::TestConfig {
            backend: None,
            ..wheelwright_server::TestConfig::default()
        },
        http: wheelwright_server::HttpConfig::default(),
    };
    let state = wheelwright_server::AppState::open(&config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(wheelwright_server::serve(listener, state, async {
        let _ = stopped.await;
    }));
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    // A request in flight: its headers and half its body are sent before the shutdown.
    let body = br#"{"source": "def f():\n    return g()\n"}"#;
    let (first, rest) = body.split_at(body.len() / 2);
    let mut busy = tokio::net::TcpStream::connect(addr).await.unwrap();
    busy.write_all(
        format!(
            "POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    busy.write_all(first).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    busy.write_all(rest).await.unwrap();
    let mut reply = String::new();
    tokio::time::timeout(Duration::from_secs(10), busy.read_to_string(&mut reply))
        .await
        .expect("answered and closed")
        .unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"qualified_name\":\"f\""), "{reply}");
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut rest)).await;
    assert!(
        matches!(closed, Ok(Ok(0))),
        "the idle connection: {closed:?}"
    );
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("serve returns once the request is answered")
        .unwrap()
        .unwrap();
    // Nothing listens any more.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

/// A connection to `port` from the loopback address `from` (127.0.0.0/8 is all loopback:
/// a second client on the same machine).
async fn connect_from(from: &str, port: u16) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(format!("{from}:0").parse().unwrap())?;
    socket
        .connect(format!("127.0.0.1:{port}").parse().unwrap())
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holding_many_connections_leaves_room_for_the_others() {
    // Every slot could be held by one address for the whole header timeout; the
    // per-client limit closes its connections beyond 4 at once.
    let server = start(&[
        "--max-connections",
        "16",
        "--max-connections-per-client",
        "4",
        "--header-timeout",
        "20",
    ]);
    let port = server.port;
    let mut held = Vec::new();
    for _ in 0..64 {
        if let Ok(stream) = connect_from("127.0.0.2", port).await {
            held.push(stream);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let answered = tokio::task::spawn_blocking(move || get(port, "/api/v1/health"))
        .await
        .unwrap();
    assert_eq!(answered.map(|(s, _)| s).ok(), Some(200));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "another client waited {:?} behind one that holds {} connections",
        started.elapsed(),
        held.len()
    );
    // Beyond its four, the busy client's connections were closed by the server.
    let mut closed = 0;
    for stream in &mut held {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_millis(200), async {
            use tokio::io::AsyncReadExt;
            stream.read(&mut byte).await
        })
        .await;
        if matches!(read, Ok(Ok(0) | Err(_))) {
            closed += 1;
        }
    }
    assert!(closed >= 60, "{closed} of {} closed", held.len());
}

#[test]
fn a_body_that_trickles_a_byte_a_second_is_answered_408_within_its_grace() {
    // Within the request timeout, but far below the minimum rate: the connection (and its
    // share of the body budget) is given back after the grace of 5 s, not 60.
    let server = start(&["--request-timeout", "60"]);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .write_all(
            b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
        )
        .unwrap();
    let started = Instant::now();
    let trickle = {
        let mut stream = stream.try_clone().unwrap();
        std::thread::spawn(move || {
            for _ in 0..30 {
                if stream.write_all(b" ").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    let took = started.elapsed();
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("KiB/s or faster"), "{reply}");
    assert!(took < Duration::from_secs(10), "answered after {took:?}");
    drop(stream);
    trickle.join().unwrap();
    assert_eq!(get(server.port, "/api/v1/health").unwrap().0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_looping_on_a_pooled_route_leaves_a_slot_for_the_others() {
    // Two slots, one per client: a client that keeps both busy would leave every other
    // client's upload or analysis a 503; over its share it is told 429 instead.
    let server = start(&[
        "--analysis-workers",
        "2",
        "--analysis-workers-per-client",
        "1",
    ]);
    let port = server.port;
    // A large source keeps its slot for a while (parsing ~2 MiB of Python).
    let source: String = (0..40_000)
        .map(|i| format!("def f{i}(x):\n    return g(x)\n"))
        .collect::<String>()
        .chars()
        .take(1_900_000)
        .collect();
    let body = serde_json::json!({ "source": source }).to_string();
    let analyze = move |from: &'static str| {
        let body = body.clone();
        async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut stream = connect_from(from, port).await.unwrap();
            let head = format!(
                "POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(body.as_bytes()).await.unwrap();
            let mut reply = Vec::new();
            let _ = stream.read_to_end(&mut reply).await;
            let reply = String::from_utf8_lossy(&reply).into_owned();
            reply
                .get(9..12)
                .and_then(|s| s.parse::<u16>().ok())
                .map(|status| {
                    (
                        status,
                        reply.contains("Retry-After") || reply.contains("retry-after"),
                    )
                })
        }
    };
    // The busy client sends four at once; the other client one, a moment later.
    let busy: Vec<_> = (0..4).map(|_| tokio::spawn(analyze("127.0.0.2"))).collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let other = analyze("127.0.0.3").await;
    let mut statuses = Vec::new();
    for task in busy {
        statuses.push(task.await.unwrap());
    }
    assert_eq!(
        other.map(|(s, _)| s),
        Some(200),
        "the other client: {other:?}; busy: {statuses:?}"
    );
    let told_429 = statuses
        .iter()
        .filter(|s| matches!(s, Some((429, true))))
        .count();
    assert!(told_429 >= 2, "{statuses:?}");
    assert!(
        statuses.iter().any(|s| matches!(s, Some((200, _)))),
        "{statuses:?}"
    );
}
