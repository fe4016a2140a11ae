//! What every guard of queued work ([`Pending`](crate::Pending),
//! [`OpPending`](crate::ops::OpPending)) knows: its stream and, until it is
//! waited on or detached, the marker recorded after the work.

use std::sync::{Arc, Weak};

use crate::error::Result;
use crate::event::Marker;
use crate::stream::Stream;
use crate::tracker::UseTracker;

/// A queued operation seen from its guard.
///
/// The marker is held weakly: the buffers' trackers own it, so a leaked
/// guard leaks nothing that keeps a context alive. A marker that is gone was
/// either waited for or covered by a later use of the buffers (possibly on
/// another stream, possibly not finished), so then the stream itself is
/// waited for: it is past the operation once everything queued on it before
/// now has finished.
pub(crate) struct Queued<'a> {
    stream: &'a Stream,
    marker: Option<Weak<Marker>>,
}

impl<'a> Queued<'a> {
    pub(crate) fn new(stream: &'a Stream, marker: &Arc<Marker>) -> Self {
        Queued {
            stream,
            marker: Some(Arc::downgrade(marker)),
        }
    }

    pub(crate) fn stream(&self) -> &'a Stream {
        self.stream
    }

    /// Whether the guard has been waited on or detached.
    pub(crate) fn is_settled(&self) -> bool {
        self.marker.is_none()
    }

    /// Whether the operation has finished; never `true` too early (a
    /// vanished marker asks whether the whole stream is idle).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        let Some(weak) = &self.marker else {
            return Ok(true);
        };
        match weak.upgrade() {
            Some(marker) => marker.is_complete(),
            None => self.stream.query(),
        }
    }

    /// Forgets the operation without waiting (the trackers still hold it).
    pub(crate) fn detach(&mut self) {
        self.marker = None;
    }

    /// Waits until the stream has passed the operation, then tells
    /// `trackers` that its marker finished. On failure the trackers keep the
    /// marker: later accesses wait again.
    pub(crate) fn finish<'t>(
        &mut self,
        trackers: impl IntoIterator<Item = &'t UseTracker>,
    ) -> Result<()> {
        let Some(weak) = self.marker.take() else {
            return Ok(());
        };
        let Some(marker) = weak.upgrade() else {
            return self.stream.synchronize_queued();
        };
        crate::callback::refuse_wait_on_own_stream(marker.stream_id, || marker.is_complete())?;
        marker.synchronize()?;
        for tracker in trackers {
            tracker.finished(&marker);
        }
        Ok(())
    }
}
