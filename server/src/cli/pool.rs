//! Work spread over the machine's sandbox slots: one thread per slot takes items off a list until none is left, with a progress bar on a terminal.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// `work(item)` for every item of `items` on `workers` threads, a progress bar (`what`
/// names the unit: "turns") on standard error when it is a terminal; the results in the
/// order of `items`.
pub(super) fn in_slots<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    what: &str,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(items.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{bar:40}} {{pos}}/{{len}} {what}, {{eta}} left"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else {
                        return;
                    };
                    let result = work(item);
                    bar.inc(1);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, result));
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
