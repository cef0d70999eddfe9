//! A fixed pool of slots: each running job holds one, and slot `i` runs as its own uid.

use std::sync::{Condvar, Mutex, PoisonError};

/// Which slots are busy. Waiting is a condition variable: jobs are few and long, so fairness
/// beyond "lowest free slot first" does not matter.
#[derive(Debug)]
pub(crate) struct Slots {
    busy: Mutex<Vec<bool>>,
    freed: Condvar,
}

impl Slots {
    pub(crate) fn new(count: usize) -> Self {
        Slots {
            busy: Mutex::new(vec![false; count]),
            freed: Condvar::new(),
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.busy
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Waits for a free slot and holds it until the guard is dropped.
    pub(crate) fn acquire(&self) -> SlotGuard<'_> {
        // A panic while holding the lock cannot leave the Vec inconsistent (single writes), so
        // a poisoned lock is still usable.
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(i) = busy.iter().position(|b| !b) {
                busy[i] = true;
                return SlotGuard {
                    slots: self,
                    index: i,
                };
            }
            busy = self
                .freed
                .wait(busy)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A held slot; released on drop.
#[derive(Debug)]
pub(crate) struct SlotGuard<'a> {
    slots: &'a Slots,
    pub(crate) index: usize,
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let mut busy = self
            .slots
            .busy
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        busy[self.index] = false;
        drop(busy);
        self.slots.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn lowest_free_slot_and_waiting() {
        let slots = Arc::new(Slots::new(2));
        let a = slots.acquire();
        let b = slots.acquire();
        assert_eq!((a.index, b.index), (0, 1));
        let s2 = Arc::clone(&slots);
        let waiter = std::thread::spawn(move || s2.acquire().index);
        std::thread::sleep(Duration::from_millis(50));
        drop(b);
        assert_eq!(waiter.join().ok(), Some(1));
        drop(a);
        assert_eq!(slots.acquire().index, 0);
    }
}
