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

/// `work` of every item `items` gives, in no particular order; the first error stops the
/// rest. Natively the items are taken from `items` one at a time, under a lock, by whichever
/// of rayon's threads is free, so `items` can read its items as they are needed (a bundle,
/// chain by chain) and at most one per thread is held at once.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn try_map_unordered<I, T, E>(
    items: I,
    work: impl Fn(I::Item) -> Result<T, E> + Sync + Send,
) -> Result<Vec<T>, E>
where
    I: Iterator + Send,
    I::Item: Send,
    T: Send,
    E: Send,
{
    use rayon::prelude::*;
    items.par_bridge().map(work).collect()
}

/// `work` of every item `items` gives, in order (wasm32 has one thread).
#[cfg(target_arch = "wasm32")]
pub(crate) fn try_map_unordered<I: Iterator, T, E>(
    items: I,
    work: impl Fn(I::Item) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    items.map(work).collect()
}
