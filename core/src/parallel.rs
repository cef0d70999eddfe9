//! Independent pieces of work on every core natively (rayon), one after the other on wasm32, with the same results in the same order.

use crate::budget::Cancelled;

/// `work` of every item, in the items' order; the first cancellation stops the rest.
/// Natively the items run in parallel on rayon's current pool (as many threads as cores,
/// or `RAYON_NUM_THREADS`; a test can `install` a pool of its own size), one item per task:
/// the callers' items (a chain, a file) cost far more than a task does.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn try_map<'a, I: Sync, T: Send>(
    items: &'a [I],
    work: impl Fn(&'a I) -> Result<T, Cancelled> + Sync + Send,
) -> Result<Vec<T>, Cancelled> {
    use rayon::prelude::*;
    items.par_iter().with_max_len(1).map(work).collect()
}

/// `work` of every item, in order (wasm32 has one thread).
#[cfg(target_arch = "wasm32")]
pub(crate) fn try_map<'a, I, T>(
    items: &'a [I],
    work: impl Fn(&'a I) -> Result<T, Cancelled>,
) -> Result<Vec<T>, Cancelled> {
    items.iter().map(work).collect()
}
