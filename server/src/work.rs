//! The pool of CPU-heavy request work (analyses, reading and scoring uploads): a fixed number of jobs at once, each cancelled when its request ends.
//!
//! The request timeout answers 408, but work already handed to `spawn_blocking` would go
//! on. So each such request first takes a slot ([`WorkPool::try_job`]); when every slot is
//! taken it is refused at once with 503 and `Retry-After` rather than queued, so waiting
//! work never piles up behind a slow input. The [`Job`] carries a
//! [`wheelwright_core::budget::Cancel`] that core checks while it works; dropping the job
//! (the handler returned, the request timed out, or the client went away and hyper dropped
//! the handler) raises it. The slot is released only when the blocking work itself has
//! stopped, so the pool counts what really runs.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use wheelwright_core::budget::Cancel;

use crate::clients::{Held, PerClient};
use crate::error::AppError;

/// How long a refused client is told to wait before retrying.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);

/// Slots for CPU-heavy work; clones share the slots.
///
/// One client (IP address) holds at most [`WorkPool::per_client`] of them at once, half the
/// pool (at least one): four threads of one client looping on a pooled route once took
/// every slot and every honest upload got 503. Over its share a client is answered 429,
/// while others still find a slot.
#[derive(Clone, Debug)]
pub(crate) struct WorkPool {
    slots: Arc<Semaphore>,
    size: usize,
    per_client: usize,
    clients: PerClient,
}

/// A slot taken, and the client it is counted against; both go back when dropped.
#[derive(Debug)]
struct Slot {
    _permit: OwnedSemaphorePermit,
    _client: Option<Held>,
}

/// One request's claim on a slot, and the flag that stops its work.
///
/// Dropping it raises the flag; the slot is free once every [`Job::run`] it started has
/// returned as well.
#[derive(Debug)]
pub(crate) struct Job {
    slot: Option<Arc<Slot>>,
    cancel: Cancel,
}

/// The default pool size: one job per core.
pub(crate) fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

impl WorkPool {
    /// A pool of `size` slots (at least one), of which one client may hold `per_client`
    /// (at least one; [`default_per_client`] when not given).
    pub(crate) fn new(size: usize, per_client: Option<usize>) -> Self {
        let size = size.max(1);
        Self {
            slots: Arc::new(Semaphore::new(size)),
            size,
            per_client: per_client
                .unwrap_or_else(|| default_per_client(size))
                .max(1),
            clients: PerClient::default(),
        }
    }

    /// A free slot for `client` (its address; `None` when unknown, as in tests through the
    /// router alone, which have no share to keep), a 429 when it already holds its share,
    /// or a 503 that says the server is busy.
    pub(crate) fn try_job(&self, client: Option<IpAddr>) -> Result<Job, AppError> {
        let share = match client {
            Some(ip) => Some(self.share(ip)?),
            None => None,
        };
        match Arc::clone(&self.slots).try_acquire_owned() {
            Ok(permit) => Ok(Job {
                slot: Some(Arc::new(Slot {
                    _permit: permit,
                    _client: share,
                })),
                cancel: Cancel::new(),
            }),
            Err(_) => Err(AppError::Busy {
                message: format!(
                    "the server is busy: all {} of its slots for analyses and uploads are taken; retry in {} s",
                    self.size,
                    RETRY_AFTER.as_secs()
                ),
                retry_after: RETRY_AFTER,
            }),
        }
    }
}

/// What one client may hold of a pool of `size` slots by default: half, at least one.
pub(crate) fn default_per_client(size: usize) -> usize {
    (size / 2).max(1)
}

impl WorkPool {
    /// One more slot counted against the client of `ip`, or a 429 when it holds its share.
    fn share(&self, ip: IpAddr) -> Result<Held, AppError> {
        self.clients
            .take(ip, self.per_client)
            .ok_or_else(|| AppError::TooMany {
                message: format!(
                    "this client already has {} of the server's {} slots for analyses and uploads, its share; retry in {} s, once one of its requests is done",
                    self.per_client,
                    self.size,
                    RETRY_AFTER.as_secs()
                ),
                retry_after: RETRY_AFTER,
            })
    }
}

impl Job {
    /// Work that takes no slot and is never cancelled: the baselines computed at start,
    /// before any request is served.
    pub(crate) fn unpooled() -> Self {
        Self {
            slot: None,
            cancel: Cancel::never(),
        }
    }

    /// Runs `work` on the blocking pool with this job's flag, holding the slot until
    /// `work` returns even if the job is dropped first.
    pub(crate) async fn run<T, F>(&self, work: F) -> anyhow::Result<T>
    where
        F: FnOnce(&Cancel) -> T + Send + 'static,
        T: Send + 'static,
    {
        let slot = self.slot.clone();
        let cancel = self.cancel.clone();
        Ok(tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work(&cancel)
        })
        .await?)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // Finished work ignores the flag; abandoned work sees it and stops.
        self.cancel.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_half_the_pool_and_others_still_find_a_slot() {
        let pool = WorkPool::new(4, None);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = pool.try_job(Some(a)).expect("a's first");
        let _second = pool.try_job(Some(a)).expect("a's second");
        let over = pool
            .try_job(Some(a))
            .expect_err("a's third is over its share");
        assert!(
            matches!(&over, AppError::TooMany { message, .. } if message.contains("2 of the server's 4 slots")),
            "{over:?}"
        );
        let _other = pool.try_job(Some(b)).expect("b finds a slot");
        drop(first);
        let _again = pool
            .try_job(Some(a))
            .expect("a's share came back with its job");
        // The pool itself is full now: the next client is told the server is busy.
        let _unknown = pool.try_job(None).expect("the last slot");
        assert!(matches!(pool.try_job(Some(b)), Err(AppError::Busy { .. })));
        // A pool of one slot lets each client have it.
        assert_eq!(WorkPool::new(1, None).per_client, 1);
        assert_eq!(WorkPool::new(8, Some(8)).per_client, 8);
    }

    #[tokio::test]
    async fn a_full_pool_refuses_and_a_dropped_job_stops_its_work_and_frees_its_slot() {
        let pool = WorkPool::new(1, None);
        let job = pool.try_job(None).expect("a free slot");
        let busy = pool.try_job(None).expect_err("the only slot is taken");
        assert!(
            matches!(&busy, AppError::Busy { message, retry_after }
                if message.contains("all 1 of its slots") && *retry_after == RETRY_AFTER),
            "{busy:?}"
        );
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let work = {
            let running = job.run(move |cancel| {
                started_tx.send(()).unwrap();
                while !cancel.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                "stopped"
            });
            // The request's future is dropped while its work runs, as on a timeout.
            tokio::time::timeout(Duration::from_millis(50), running).await
        };
        assert!(work.is_err(), "the work stopped by itself");
        started_rx.recv().unwrap();
        drop(job);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            if pool.try_job(None).is_ok() {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the slot was not freed"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}
