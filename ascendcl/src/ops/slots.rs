//! [`Slots`]: what each tensor argument of an operator being prepared was
//! described with, kept in a block each thread reuses.
//!
//! A [`Slot`] holds a tensor's layout (168 bytes), and an operator takes up
//! to eight tensors inline: kept in the value itself, the slots were 1.3 KB of
//! every `Phase1` and `Prepared` (2.9 KB), copied each time the value moved
//! between the operator function, phase 1, the caller and the launch. Here
//! they live on the heap, in a vector the thread takes back when the
//! operator is launched or dropped and hands to its next operator: moving a
//! prepared operator moves one pointer, and a steady loop of launches
//! allocates nothing (a vector keeps room for eight, the inline count of the
//! other lists; a thread holds at most [`POOLED`] spare ones). An operator
//! prepared on one thread and dropped on another gives its vector to the
//! second thread; only a thread that prepares and never drops allocates.

use std::cell::RefCell;
use std::ops::Deref;

use crate::ops::prepared::Slot;

/// The room a new vector is made with: as many slots as the inline lists
/// hold, so a reused vector never grows for an operator of eight tensors.
const CAPACITY: usize = 8;

/// Spare vectors a thread keeps.
const POOLED: usize = 16;

thread_local! {
    static SPARE: RefCell<Vec<Vec<Slot>>> = const { RefCell::new(Vec::new()) };
}

/// The slots of one operator, in phase-1 order.
#[derive(Debug, Default)]
pub(crate) struct Slots(Vec<Slot>);

impl Slots {
    /// An empty list in a spare vector of this thread, or a new one.
    pub(crate) fn new() -> Slots {
        let spare = SPARE
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
            .ok()
            .flatten();
        Slots(spare.unwrap_or_else(|| Vec::with_capacity(CAPACITY)))
    }

    pub(crate) fn push(&mut self, slot: Slot) {
        self.0.push(slot);
    }

    /// The slots as a vector of their own (a repeatable operator keeps
    /// them for its life; its vector leaves the thread's spares).
    pub(crate) fn into_vec(mut self) -> Vec<Slot> {
        std::mem::take(&mut self.0)
    }
}

impl Deref for Slots {
    type Target = [Slot];

    fn deref(&self) -> &[Slot] {
        &self.0
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        let mut v = std::mem::take(&mut self.0);
        // An empty `Vec::new()` (a taken list) has nothing to give back; an
        // unusually large one is not worth keeping.
        if v.capacity() < CAPACITY || v.capacity() > 4 * CAPACITY {
            return;
        }
        v.clear();
        // During thread teardown the spares may be gone: the vector is then
        // freed as usual.
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                if s.len() < POOLED {
                    s.push(v);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::Slots;

    #[test]
    fn a_dropped_list_gives_its_vector_to_the_next_list_of_the_thread() {
        let first = Slots::new();
        let address = first.0.as_ptr();
        drop(first);
        let second = Slots::new();
        assert_eq!(second.0.as_ptr(), address, "the spare vector is reused");
        assert!(second.is_empty());
        assert!(second.0.capacity() >= super::CAPACITY);
    }

    #[test]
    fn a_list_taken_as_a_vector_leaves_the_spares() {
        let taken = Slots::new().into_vec();
        let next = Slots::new();
        assert_ne!(next.0.as_ptr(), taken.as_ptr());
    }
}
