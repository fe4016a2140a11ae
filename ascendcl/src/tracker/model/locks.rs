//! The trackers' locks in the model: an enqueue holds the locks of every
//! tracker it touches from its ordering step to its launch step, so no other
//! thread plans, snapshots or forgets uses of those trackers in between
//! (the real `enqueue` holds the `UseSet` guards across both).

use super::World;

impl World {
    /// Whether no other thread than `t` holds the lock of any of `buffers`.
    pub(super) fn free_for(&self, t: usize, buffers: &[usize]) -> bool {
        buffers
            .iter()
            .all(|&b| self.held[b].is_none_or(|holder| holder == t))
    }

    /// Takes the locks of `buffers` for `t` if all are free; else none.
    pub(super) fn lock_all(&mut self, t: usize, buffers: &[usize]) -> bool {
        if !self.free_for(t, buffers) {
            return false;
        }
        for &b in buffers {
            self.held[b] = Some(t);
        }
        true
    }

    /// Releases every lock `t` holds.
    pub(super) fn unlock_all(&mut self, t: usize) {
        for holder in &mut self.held {
            if *holder == Some(t) {
                *holder = None;
            }
        }
    }
}
