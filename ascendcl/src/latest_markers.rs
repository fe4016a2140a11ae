//! The latest marker on each stream an object queued work on.
//!
//! A stream runs its work in order, so its latest marker covers every earlier
//! launch there: an object that must wait for all of its launches before it
//! is destroyed (a communicator, a repeatable executor) keeps one marker per
//! stream. Streams come and go, so a marker whose work has completed is
//! dropped (its event back to the context's pool) when a launch on a stream
//! not yet in the list arrives: the list, and the events it keeps alive, stay
//! as long as the number of streams with unfinished work, not of every stream
//! ever used. The completion query is made only on that new-stream path, so
//! a steady loop over the same streams makes no extra runtime call.

use std::sync::Arc;

use crate::event::Marker;

/// One marker per stream, the latest.
#[derive(Default)]
pub(crate) struct LatestMarkers {
    markers: Vec<Arc<Marker>>,
}

impl LatestMarkers {
    /// Remembers `marker` as the latest launch on its stream.
    pub(crate) fn push(&mut self, marker: Arc<Marker>) {
        if let Some(slot) = self
            .markers
            .iter_mut()
            .find(|m| m.stream_id == marker.stream_id)
        {
            *slot = marker;
            return;
        }
        // A query that fails proves nothing: such a marker stays.
        self.markers.retain(|m| !m.is_complete().unwrap_or(false));
        self.markers.push(marker);
    }

    /// The markers, one per stream.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<Marker>> {
        self.markers.iter()
    }
}
