//! The accept loop: HTTP/1.1 connections with a header-read timeout, a bound on how many are open at once, and graceful shutdown.
//!
//! `axum::serve` has neither a header timeout nor a connection limit, so about 20,000
//! connections that never finish their headers used up the process's file descriptors and
//! every later `accept` (and every file SQLite opened) failed with `EMFILE`. Here:
//!
//! - Each connection has [`HttpConfig::header_timeout`] to send a request's headers. hyper
//!   restarts that timer after every response, so it also closes keep-alive connections
//!   that sit idle between requests.
//! - At most [`HttpConfig::max_connections`] are open at once. At the limit the loop stops
//!   accepting until one closes, rather than accepting and closing at once: waiting
//!   connections stay in the kernel's listen backlog (first come, first served, costing
//!   the process nothing), a client that gets in is served instead of refused, and the
//!   loop never spins accepting and closing a flood. Idle connections leave within the
//!   header timeout, so the backlog ([`LISTEN_BACKLOG`]) drains; once it is full the kernel
//!   drops new SYNs and clients retry, but the fd table never fills.
//! - One client (one IP address) may hold at most
//!   [`HttpConfig::max_connections_per_client`] of them; a connection beyond that is closed
//!   as soon as it is accepted, so 1,100 connections from one address that trickle a byte a
//!   second cannot take every slot from everyone else (the second review's health checks
//!   failed 8 of 10 times under them).
//! - A request head (request line and headers) may have at most [`MAX_HEAD`] bytes (hyper
//!   answers 431 beyond), and each connection's read buffer grows to at most [`MAX_BUF`],
//!   so open connections cost bounded memory.
//! - On shutdown the listener closes, idle connections are closed, requests in flight get
//!   the request timeout and [`DRAIN_GRACE`] more to finish (every request is answered by
//!   then; only event streams last longer), then the rest are dropped.
//!
//! Only HTTP/1.1: browsers speak HTTP/2 only over TLS, which a proxy in front terminates.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::HttpConfig;
use crate::clients::PerClient;

/// Largest request head (request line and headers): more than any browser sends.
pub const MAX_HEAD: usize = 32 * 1024;
/// Largest read buffer of a connection (its head, or body bytes on their way).
pub const MAX_BUF: usize = 64 * 1024;
/// How much longer than the request timeout shutdown waits for requests in flight.
pub const DRAIN_GRACE: Duration = Duration::from_secs(5);
/// File descriptors kept for everything but connections (the database and its journal,
/// dataset and cache files, sandbox pipes), at most half the open-file limit.
pub const FD_RESERVE: u64 = 256;
/// The default connection limit on a machine whose open-file limit allows more.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Connections the kernel holds ready for `accept` (capped by `net.core.somaxconn`):
/// where clients wait while every slot is taken. Tokio's default is 128.
pub const LISTEN_BACKLOG: u32 = 1024;

/// The default number of connections one client (IP address) may hold at once.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 64;

/// Why the configured limits cannot work on this machine.
#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    #[error(
        "--max-connections {wanted} does not fit the open-file limit of {limit} (ulimit -n) with {reserve} descriptors kept for the database, files and sandboxes; pass at most {room}, or raise ulimit -n"
    )]
    TooManyConnections {
        wanted: usize,
        limit: u64,
        reserve: u64,
        room: u64,
    },
}

/// The soft `RLIMIT_NOFILE`: how many files this process may have open.
fn open_file_limit() -> Option<u64> {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .ok()
        .map(|(soft, _hard)| soft)
}

/// Descriptors connections may use under the open-file limit `limit`: what is left after
/// [`FD_RESERVE`] (or half of a small limit), at least one.
fn room(limit: u64) -> u64 {
    limit.saturating_sub(FD_RESERVE.min(limit / 2)).max(1)
}

/// [`DEFAULT_MAX_CONNECTIONS`], or fewer where the open-file limit is lower.
pub fn default_max_connections() -> usize {
    let room = open_file_limit().map_or(u64::MAX, room);
    usize::try_from(room).map_or(DEFAULT_MAX_CONNECTIONS, |r| r.min(DEFAULT_MAX_CONNECTIONS))
}

/// Checks that `max_connections` leaves room under the open-file limit.
pub fn check_limits(config: &HttpConfig) -> Result<(), LimitError> {
    let Some(limit) = open_file_limit() else {
        return Ok(());
    };
    let room = room(limit);
    if config.max_connections as u64 > room {
        return Err(LimitError::TooManyConnections {
            wanted: config.max_connections,
            limit,
            reserve: limit - room,
            room,
        });
    }
    Ok(())
}

/// A listener on `addr` with a backlog of [`LISTEN_BACKLOG`].
pub fn bind(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As tokio's own bind: a restarted server may take the port back at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Serves `app` on `listener` within `config` until `shutdown` completes, then drains.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    app: Router,
    config: &HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let clients = PerClient::default();
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_header_size(MAX_HEAD)
        .max_buf_size(MAX_BUF)
        .keep_alive(true);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A slot first: at the limit, nothing more is accepted until a connection closes.
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_closed) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
        };
        let Some(counted) = clients.take(peer.ip(), config.max_connections_per_client.max(1))
        else {
            // Closed at once: the slot goes back to clients that hold fewer.
            tracing::debug!(client = %peer.ip(), "connection closed: the client holds its limit");
            continue;
        };
        // Small answers (health, JSON) should not wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        // Handlers see who sent a request (per-client shares of the work pool).
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                request
            },
        ));
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                // Header timeouts, resets and malformed requests: the client's problem.
                tracing::debug!("connection closed: {error}");
            }
            drop(counted);
            drop(slot);
        });
    }
    drop(listener);
    let open = graceful.count();
    if open > 0 {
        tracing::info!(open, "waiting for open connections to finish");
    }
    let drain = config.request_timeout + DRAIN_GRACE;
    if tokio::time::timeout(drain, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "connections still open {} s after shutdown began were dropped",
            drain.as_secs_f64()
        );
    }
}

/// Logs a failed `accept` and, when the process is out of descriptors or memory, waits a
/// little so the loop does not spin while connections close.
async fn accept_failed(error: &std::io::Error) {
    use nix::errno::Errno;
    let code = error.raw_os_error().map(Errno::from_raw);
    match code {
        Some(Errno::EMFILE | Errno::ENFILE | Errno::ENOBUFS | Errno::ENOMEM) => {
            tracing::error!("cannot accept a connection: {error}; retrying in 100 ms");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The client gave up between SYN and accept, and the like.
        _ => tracing::debug!("accept failed: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_leave_room_under_the_open_file_limit() {
        // (open-file limit, descriptors connections may use)
        for (limit, expected) in [(1024, 768), (20_000, 19_744), (300, 150), (1, 1), (0, 1)] {
            assert_eq!(room(limit), expected, "limit {limit}");
        }
    }

    #[test]
    fn a_limit_over_the_room_is_refused_with_the_number_to_pass() {
        let limit = open_file_limit().expect("RLIMIT_NOFILE is readable");
        let config = HttpConfig {
            max_connections: usize::try_from(limit).unwrap(),
            ..HttpConfig::default()
        };
        let error = check_limits(&config).expect_err("as many connections as files");
        let message = error.to_string();
        assert!(
            message.contains(&format!("pass at most {}", room(limit))),
            "{message}"
        );
        assert!(check_limits(&HttpConfig::default()).is_ok());
    }
}
