//! The latest launch on each stream an object queued work on.
//!
//! A stream runs its work in order, so its latest launch covers every earlier
//! one there: an object that must wait for all of its launches before it is
//! destroyed (a communicator, a repeatable executor) keeps one position per
//! stream. Streams come and go, so a launch proven finished is dropped when a
//! launch on a stream not yet in the list arrives: the list stays as long as
//! the number of streams with unfinished work, not of every stream ever used.
//! That check records no event (it reads the stream's completed position, or
//! queries an event some wait already recorded), and it is made only on the
//! new-stream path, so a steady loop over the same streams makes no call.

use crate::lane::QueuedAt;

/// One launch per stream, the latest.
#[derive(Default)]
pub(crate) struct LatestMarkers {
    markers: Vec<QueuedAt>,
}

impl LatestMarkers {
    /// Remembers `at` as the latest launch on its stream.
    pub(crate) fn push(&mut self, at: QueuedAt) {
        if let Some(slot) = self
            .markers
            .iter_mut()
            .find(|m| std::sync::Arc::ptr_eq(&m.lane, &at.lane))
        {
            *slot = at;
            return;
        }
        self.markers.retain(|m| !m.is_known_complete());
        self.markers.push(at);
    }

    /// The launches, one per stream.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &QueuedAt> {
        self.markers.iter()
    }
}
