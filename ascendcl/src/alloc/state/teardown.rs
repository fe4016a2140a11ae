//! Giving everything back when the allocator goes away, and never what
//! queued work may still use.

use super::{Backing, State};
use crate::alloc::classic::Segments;
use crate::context::Context;
use crate::deferred;
use crate::error::Error;

impl State {
    /// Waits for every pending block's work (errors parked; such blocks stay
    /// pending). Only for `release_everything`, which owns the state.
    fn wait_pending(&mut self) {
        for block in std::mem::take(&mut self.pending) {
            // A failed wait leaves the marker as it was: trying again is sound.
            // From a host callback, work queued behind it on its own stream
            // is refused, not waited for (the wait would never end).
            let wait = || block.markers.iter().try_for_each(|m| m.wait());
            match wait().or_else(|_| wait()) {
                Ok(()) => self.complete(block),
                Err(error) => {
                    deferred::park("waiting for a cached block", error);
                    self.pending.push(block);
                }
            }
        }
    }

    /// The allocator is going away (no block is alive): everything goes back.
    pub(crate) fn release_everything(&mut self, ctx: &Context) {
        self.flush_recent();
        self.wait_pending();
        if !self.pending.is_empty() {
            // Their markers could not be waited for: a device-wide wait
            // covers them too.
            // (Refused from a host callback on this device.)
            let synced = crate::tracker::synchronize_device(ctx);
            match synced {
                Ok(()) => std::mem::take(&mut self.pending)
                    .into_iter()
                    .for_each(|b| self.complete(b)),
                Err(error) => {
                    deferred::park("an allocator (waiting for its pending blocks)", error)
                }
            }
        }
        for block in std::mem::take(&mut self.pending) {
            // Work we could not wait for may still use it: keep the memory.
            deferred::park(
                "an allocator (a pending block was leaked)",
                Error::InvalidState(format!("block {}", block.index)),
            );
            self.leaked = true;
        }
        if self.leaked {
            // Some block's queued work may still run: no segment, page or
            // range may go back to the device. Leak them all.
            for ps in &mut self.pools {
                let backing =
                    std::mem::replace(&mut ps.backing, Backing::Segments(Segments::default()));
                std::mem::forget(backing);
            }
            return;
        }
        for ps in &mut self.pools {
            if let Backing::Segments(segments) = &mut ps.backing {
                let (_, _, result) = segments.release_all(ctx);
                deferred::park_result("an allocator's segments", result);
            }
            // Expandable segments release their mappings, pages and range
            // when dropped with the state.
        }
    }
}
