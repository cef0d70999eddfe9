//! The bytes of upload bodies held in memory at once, across every request: a budget each buffered upload draws on as it arrives, refused with 503 once spent.
//!
//! An upload is read whole before it is parsed (a zip's directory is at its end), so each
//! one may hold up to its limit in memory. A per-request limit alone does not bound the
//! server: 64 clients each sending 94 MiB and stalling once held 6 GiB and killed it. So
//! every upload body takes its bytes from one [`BodyBudget`] before they are held: the
//! declared `Content-Length` at once (before a byte is read), or each chunk as it comes
//! for a chunked body. When the budget is spent the request is answered 503 with
//! `Retry-After` at once, rather than queued, and the bytes go back when the body (and
//! whatever was parsed from it) is dropped. A multipart form also takes what its field's
//! copy will cost before the form is parsed.
//!
//! Example: with a budget of 512 MiB, five uploads of 96 MiB are held at once; the sixth
//! is refused until one of them is done.

use std::sync::Arc;

use axum::body::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::AppError;
use crate::work::RETRY_AFTER;

/// The default budget: a few of the largest uploads at once.
pub(crate) const DEFAULT_BODY_BUDGET: usize = 512 << 20;

/// Bytes of upload bodies the server may hold at once; clones share the budget. Counted in
/// KiB, so that a semaphore's permits cover any budget.
#[derive(Clone, Debug)]
pub(crate) struct BodyBudget {
    kib: Arc<Semaphore>,
    total: usize,
}

/// What one request holds of the budget; the bytes go back when it is dropped.
#[derive(Debug, Default)]
pub(crate) struct Held {
    permit: Option<OwnedSemaphorePermit>,
    bytes: usize,
}

/// A body read within the budget, and what it holds of it: keep them together for as long
/// as the bytes (or what is parsed from them) live.
#[derive(Debug)]
pub(crate) struct Counted {
    pub(crate) bytes: Bytes,
    pub(crate) held: Held,
}

fn kib(bytes: usize) -> u32 {
    u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX)
}

impl BodyBudget {
    /// A budget of `bytes` (at least one KiB).
    pub(crate) fn new(bytes: usize) -> Self {
        let permits = kib(bytes).max(1);
        Self {
            kib: Arc::new(Semaphore::new(permits as usize)),
            total: bytes,
        }
    }

    /// Takes `bytes` more for `held`, or a 503 that says the server holds as many uploads
    /// as it can.
    pub(crate) fn take(&self, bytes: usize, held: &mut Held) -> Result<(), AppError> {
        // Whole KiB are taken; only what goes beyond what `held` already covers is new.
        let needed = kib(held.bytes + bytes).saturating_sub(kib(held.bytes));
        if needed > 0 {
            let permit = Arc::clone(&self.kib)
                .try_acquire_many_owned(needed)
                .map_err(|_| AppError::Busy {
                    message: format!(
                        "the server is receiving as many uploads as it holds in memory at once ({} MiB); retry in {} s",
                        self.total >> 20,
                        RETRY_AFTER.as_secs()
                    ),
                    retry_after: RETRY_AFTER,
                })?;
            match &mut held.permit {
                Some(mine) => mine.merge(permit),
                none => *none = Some(permit),
            }
        }
        held.bytes += bytes;
        Ok(())
    }

    /// KiB not taken: for tests and logs.
    #[cfg(test)]
    fn free_kib(&self) -> usize {
        self.kib.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uploads_share_one_budget_and_give_it_back_when_dropped() {
        let budget = BodyBudget::new(1 << 20);
        let mut first = Held::default();
        budget
            .take(600 << 10, &mut first)
            .expect("within the budget");
        let mut second = Held::default();
        let refused = budget
            .take(600 << 10, &mut second)
            .expect_err("over the budget");
        assert!(
            matches!(&refused, AppError::Busy { message, .. } if message.contains("(1 MiB)")),
            "{refused:?}"
        );
        // Chunk by chunk: a body of 1,000 one-byte chunks takes one KiB, not a thousand.
        for _ in 0..1000 {
            budget.take(1, &mut second).expect("one KiB");
        }
        assert_eq!(budget.free_kib(), 1024 - 600 - 1);
        drop(first);
        budget
            .take(600 << 10, &mut second)
            .expect("the first upload gave its bytes back");
        drop(second);
        assert_eq!(budget.free_kib(), 1024);
    }
}
