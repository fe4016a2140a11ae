//! Positions in a stream, and the one event per stream that covers them.
//!
//! A tracked launch costs what the raw launch costs: it records no event.
//! Instead each stream handle has a [`Lane`], a counter of the launches this
//! crate queued on it, and a launch is remembered as its position there
//! ([`QueuedAt`]). The counter is taken in the same critical section as the
//! launch itself, so positions follow the stream's real order even when
//! several threads queue on one stream.
//!
//! An event is recorded only when some party has to wait for a position:
//! another stream ordered after it, a host access, a free, a guard's `wait`
//! or `is_complete`. That event goes to the stream's tail *at that moment*, so
//! it covers every position queued so far, and the lane caches it: a thousand
//! buffers waiting for the same stream share one event. A host wait that
//! succeeds advances the lane's completed position, after which every use at
//! or before it is known finished without a runtime call.
//!
//! If no event can be recorded (the runtime refuses, or the stream is being
//! destroyed and none covers the position), the wait falls back to a
//! device-wide synchronize, as for any work whose end no event marks.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use ascendcl_sys::aclrtStream;

use crate::callback;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::event::TailEvent;
use crate::held_events::HeldEvents;
use crate::stream::StreamInner;

/// Held events ([`crate::held_events`]) beyond which a wait-heavy stream is
/// asked whether its oldest held position has run.
const HELD_BEFORE_QUERY: usize = 64;

/// The launches this crate queued on one stream handle.
pub(crate) struct Lane {
    ctx: Context,
    /// The stream's identity (see `Stream::same_as`).
    pub(crate) stream_id: u64,
    /// Every position below this one has finished (shared with the host
    /// callbacks queued on the stream, see [`Reached`]).
    completed: Arc<AtomicU64>,
    /// The stream is being captured: set and cleared only under the lock,
    /// and checked there by every launch, so no tracked launch or host
    /// function can slip into a capture (read without the lock only to
    /// refuse synchronizes and queries early).
    pub(crate) capturing: AtomicBool,
    /// Blocking calls on the stream under way that a capture must not
    /// begin under (synchronizes): see [`Lane::enter_uncaptured`].
    outside: AtomicUsize,
    /// The stream handle whose lane this is, not kept alive (the handle
    /// owns the lane): what a [`Detached`](crate::Detached) hands back.
    stream: Weak<StreamInner>,
    state: Mutex<LaneState>,
}

/// A blocking call on a stream that is not being captured, under way (see
/// [`Lane::enter_uncaptured`]).
pub(crate) struct Uncaptured<'a> {
    lane: &'a Lane,
}

impl Drop for Uncaptured<'_> {
    fn drop(&mut self) {
        self.lane.outside.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why a capture cannot begin on a lane.
pub(crate) enum BeginCapture {
    /// Work was queued since the stream was last synchronized: synchronize
    /// and try again.
    Busy,
    /// The stream is already being captured, or CANN refused.
    Failed(Error),
}

/// The refusal of `what` on a stream being captured.
#[cold]
pub(crate) fn capturing_refusal(what: &str) -> Error {
    Error::InvalidState(format!(
        "{what} on a stream being captured is refused (CANN would invalidate the capture, \
         107027); launch through the Capture, or end it first"
    ))
}

struct LaneState {
    raw: aclrtStream,
    /// Set when the stream is being destroyed: no event may be recorded on it.
    retired: bool,
    /// The position the next launch gets.
    next: u64,
    /// The latest event recorded at the tail, and the positions it covers
    /// (every one below the number).
    tail: Option<(Arc<TailEvent>, u64)>,
    /// Other streams' tail events that waits queued here refer to.
    held: HeldEvents,
}

// SAFETY: the stream handle is an identifier ACL accepts from any thread; the
// mutable state is behind the mutex.
unsafe impl Send for Lane {}
// SAFETY: as above.
unsafe impl Sync for Lane {}

impl std::fmt::Debug for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lane")
            .field("stream_id", &self.stream_id)
            .field("completed", &self.completed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// Where a queued launch is: its stream's lane and its position there.
#[derive(Clone, Debug)]
pub(crate) struct QueuedAt {
    pub(crate) lane: Arc<Lane>,
    pub(crate) position: u64,
}

/// A launch just queued, as the thread that queued it sees it: the position,
/// with the lane borrowed from the stream handle. Taking no handle of the
/// lane, it costs no reference count: a tracker that already remembers a use
/// on this stream moves that use forward in place, and only one that must
/// keep a new use makes the owned [`QueuedAt`] ([`Launch::to_queued_at`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Launch<'l> {
    pub(crate) lane: &'l Arc<Lane>,
    pub(crate) position: u64,
}

impl Launch<'_> {
    /// The owned form, which keeps the lane alive.
    pub(crate) fn to_queued_at(self) -> QueuedAt {
        QueuedAt {
            lane: self.lane.clone(),
            position: self.position,
        }
    }
}

/// What a host callback proves when it starts to run: the stream has passed
/// every position queued before it. Holds only the lane's completed position
/// (not the lane, whose last handle must never drop on the callback thread).
pub(crate) struct Reached {
    completed: Arc<AtomicU64>,
    upto: u64,
}

impl Reached {
    /// Called as the callback starts: every position before it has finished.
    pub(crate) fn mark(&self) {
        self.completed.fetch_max(self.upto, Ordering::AcqRel);
    }
}

/// Why no event covers a position.
enum NoEvent {
    /// The position has finished.
    Finished,
    /// None can be recorded: only a device-wide wait proves it finished.
    Unrecordable(crate::error::Error),
}

impl Lane {
    pub(crate) fn new(
        ctx: &Context,
        raw: aclrtStream,
        stream_id: u64,
        stream: Weak<StreamInner>,
    ) -> Arc<Lane> {
        Arc::new(Lane {
            ctx: ctx.clone(),
            stream_id,
            completed: Arc::new(AtomicU64::new(0)),
            capturing: AtomicBool::new(false),
            outside: AtomicUsize::new(0),
            stream,
            state: Mutex::new(LaneState {
                raw,
                retired: false,
                next: 0,
                tail: None,
                held: HeldEvents::default(),
            }),
        })
    }

    #[inline]
    fn lock(&self) -> MutexGuard<'_, LaneState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The context of the stream.
    pub(crate) fn context(&self) -> &Context {
        &self.ctx
    }

    /// The stream handle, if one is still alive.
    pub(crate) fn stream(&self) -> Option<Arc<StreamInner>> {
        self.stream.upgrade()
    }

    /// Runs `launch` (which queues work on the stream and returns at once)
    /// and gives it the next position, in one critical section; refused
    /// (`launch` not run) while the stream is being captured.
    pub(crate) fn queue<T>(
        self: &Arc<Self>,
        launch: impl FnOnce() -> T,
    ) -> Result<(T, Launch<'_>)> {
        let mut state = self.lock();
        if self.capturing.load(Ordering::Acquire) {
            return Err(capturing_refusal("tracked work"));
        }
        let position = state.next;
        let result = launch();
        state.next += 1;
        drop(state);
        Ok((
            result,
            Launch {
                lane: self,
                position,
            },
        ))
    }

    /// [`Lane::queue`] for a launch that `launch` queues behind waits on
    /// `events` (other streams' tail events, handed to `launch`): the lane
    /// then holds them until the launch is known finished
    /// ([`crate::held_events`]). They cannot go back to the pool in between:
    /// `events` owns them until [`Lane::hold`] takes them.
    pub(crate) fn queue_after_waits<T>(
        self: &Arc<Self>,
        events: Vec<Arc<TailEvent>>,
        launch: impl FnOnce(&[Arc<TailEvent>]) -> T,
    ) -> Result<(T, Launch<'_>)> {
        // Whatever `launch` returns, the waits before its failure are queued.
        let (result, at) = self.queue(|| launch(&events))?;
        if !events.is_empty() {
            self.hold(at.position, events);
        }
        Ok((result, at))
    }

    /// Holds `events` until `position` is known finished, letting go of
    /// those held for finished positions. When more than
    /// [`HELD_BEFORE_QUERY`] are held, asks whether the oldest has run: only
    /// a stream that waits often and is never waited for gets there, and one
    /// query (or tail record) lets the finished go.
    fn hold(&self, position: u64, events: Vec<Arc<TailEvent>>) {
        let oldest = {
            let mut state = self.lock();
            state
                .held
                .release_below(self.completed.load(Ordering::Acquire));
            state.held.hold(position, events);
            state
                .held
                .oldest()
                .filter(|_| state.held.len() > HELD_BEFORE_QUERY)
        };
        if let Some(oldest) = oldest {
            if self.is_complete(oldest).unwrap_or(false) {
                let completed = self.completed.load(Ordering::Acquire);
                self.lock().held.release_below(completed);
            }
        }
    }

    /// The stream was destroyed (`aclrtDestroyStream` waited for its work):
    /// every wait queued on it has run.
    pub(crate) fn destroyed(&self) {
        self.lock().held.release_all();
    }

    /// Queues a host callback (`launch` gets what the callback proves when it
    /// runs, and returns at once), giving it the next position in one
    /// critical section, so that every position before it is one the stream
    /// runs first; refused while the stream is being captured.
    pub(crate) fn queue_host_fn<T>(&self, launch: impl FnOnce(Reached) -> T) -> Result<T> {
        let mut state = self.lock();
        if self.capturing.load(Ordering::Acquire) {
            return Err(capturing_refusal("a host function"));
        }
        let reached = Reached {
            completed: self.completed.clone(),
            upto: state.next,
        };
        let result = launch(reached);
        state.next += 1;
        Ok(result)
    }

    /// Runs `call` (a stream call that returns at once: a query, an event
    /// record or wait) in the lane's critical section, refused while the
    /// stream is being captured: a capture cannot begin between the check
    /// and the call.
    pub(crate) fn run_uncaptured<T>(&self, what: &str, call: impl FnOnce() -> T) -> Result<T> {
        let _state = self.lock();
        if self.capturing.load(Ordering::Acquire) {
            return Err(capturing_refusal(what));
        }
        Ok(call())
    }

    /// For a blocking call on the stream (a synchronize), which cannot run
    /// under the lock: refused while the stream is being captured, and
    /// while the returned guard lives a capture's begin finds the lane busy
    /// and retries.
    pub(crate) fn enter_uncaptured(&self, what: &str) -> Result<Uncaptured<'_>> {
        let _state = self.lock();
        if self.capturing.load(Ordering::Acquire) {
            return Err(capturing_refusal(what));
        }
        self.outside.fetch_add(1, Ordering::AcqRel);
        Ok(Uncaptured { lane: self })
    }

    /// Marks the stream as captured, in the critical section every launch
    /// takes, after running `begin` (CANN's begin, or nothing for a stream
    /// joining a capture): no launch of ours can come between. Refused while
    /// any launch of ours on it is not known finished (synchronize first):
    /// a wait for it during the capture would have to record an event on
    /// the captured stream.
    pub(crate) fn begin_capture(
        &self,
        begin: impl FnOnce() -> Result<()>,
    ) -> std::result::Result<(), BeginCapture> {
        let state = self.lock();
        if self.capturing.load(Ordering::Acquire) {
            return Err(BeginCapture::Failed(Error::InvalidState(
                "this stream is already being captured (the capture's own stream, a branch of it, \
                 or another capture)"
                    .into(),
            )));
        }
        if state.next > self.completed.load(Ordering::Acquire)
            || self.outside.load(Ordering::Acquire) > 0
        {
            return Err(BeginCapture::Busy);
        }
        begin().map_err(BeginCapture::Failed)?;
        self.capturing.store(true, Ordering::Release);
        Ok(())
    }

    /// The capture ended: launches are accepted again.
    pub(crate) fn end_capture(&self) {
        let _state = self.lock();
        self.capturing.store(false, Ordering::Release);
    }

    fn known_complete(&self, position: u64) -> bool {
        position < self.completed.load(Ordering::Acquire)
    }

    fn advance(&self, upto: u64) {
        self.completed.fetch_max(upto, Ordering::AcqRel);
    }

    /// The position the next launch will get: every launch before it is
    /// covered by a stream synchronize that starts now.
    pub(crate) fn next_position(&self) -> u64 {
        self.lock().next
    }

    /// A stream synchronize that started at `upto` returned: every launch
    /// before it has finished.
    pub(crate) fn synchronized(&self, upto: u64) {
        self.advance(upto);
        let completed = self.completed.load(Ordering::Acquire);
        self.lock().held.release_below(completed);
    }

    /// The cached tail event if it covers `position` (no runtime call).
    /// Never blocks: if another thread holds the lane's lock (it may be
    /// inside a launch waiting for a lock of the caller's, e.g. a
    /// communicator's), answers `None`, which proves nothing.
    fn cached(&self, position: u64) -> Option<(Arc<TailEvent>, u64)> {
        let state = match self.state.try_lock() {
            Ok(state) => state,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        state
            .tail
            .as_ref()
            .filter(|(_, covers)| position < *covers)
            .cloned()
    }

    /// The event covering `position`: the cached one, or one recorded now at
    /// the stream's tail (and cached).
    fn event_covering(&self, position: u64) -> std::result::Result<(Arc<TailEvent>, u64), NoEvent> {
        if self.known_complete(position) {
            return Err(NoEvent::Finished);
        }
        let mut state = self.lock();
        if let Some(tail) = state.tail.as_ref().filter(|(_, c)| position < *c) {
            return Ok(tail.clone());
        }
        if state.retired {
            return Err(NoEvent::Unrecordable(crate::error::Error::InvalidState(
                "the stream is being destroyed and no event marks this work".into(),
            )));
        }
        if self.capturing.load(Ordering::Acquire) {
            // Unreachable by construction (a capture begins only with every
            // launch of ours on the stream known finished, and takes none),
            // but an event recorded now would be captured.
            return Err(NoEvent::Unrecordable(capturing_refusal(
                "recording an event",
            )));
        }
        let recorded = self
            .ctx
            .bind()
            .and_then(|()| TailEvent::record(&self.ctx, state.raw));
        match recorded {
            Ok(event) => {
                let tail = (Arc::new(event), state.next);
                state.tail = Some(tail.clone());
                Ok(tail)
            }
            Err(error) => Err(NoEvent::Unrecordable(error)),
        }
    }

    /// An event a stream of this lane's context can wait on to be ordered
    /// after `position`; `None` if it has finished. Records at most one event.
    pub(crate) fn event_to_wait_on(&self, position: u64) -> Result<Option<Arc<TailEvent>>> {
        match self.event_covering(position) {
            Ok((event, _)) => Ok(Some(event)),
            Err(NoEvent::Finished) => Ok(None),
            Err(NoEvent::Unrecordable(error)) => Err(error),
        }
    }

    /// Whether `position` is proven finished, with no event recorded: by the
    /// completed position, or by querying the cached tail event. Never waits
    /// for the lane's lock, so it may be called with any lock held (a
    /// tracker's, an allocator's, a communicator's): `false` when busy.
    pub(crate) fn is_known_complete(&self, position: u64) -> bool {
        if self.known_complete(position) {
            return true;
        }
        match self.cached(position) {
            Some((event, covers)) if event.is_complete().unwrap_or(false) => {
                self.advance(covers);
                true
            }
            _ => false,
        }
    }

    /// Whether `position` has finished, recording a tail event if none
    /// covers it. Never `true` too early.
    pub(crate) fn is_complete(&self, position: u64) -> Result<bool> {
        match self.event_covering(position) {
            Err(NoEvent::Finished) => Ok(true),
            Ok((event, covers)) => {
                let done = event.is_complete()?;
                if done {
                    self.advance(covers);
                }
                Ok(done)
            }
            Err(NoEvent::Unrecordable(error)) => Err(error),
        }
    }

    /// Blocks until `position` has finished. Refused from a host callback of
    /// this stream for work queued after the callback. If no event can mark
    /// the work, waits for the whole device.
    pub(crate) fn wait(&self, position: u64) -> Result<()> {
        callback::refuse_wait_on_own_stream(self.stream_id, || {
            Ok(self.is_known_complete(position))
        })?;
        match self.event_covering(position) {
            Err(NoEvent::Finished) => Ok(()),
            Ok((event, covers)) => {
                event.synchronize()?;
                self.advance(covers);
                Ok(())
            }
            Err(NoEvent::Unrecordable(_)) => self.wait_device_wide(),
        }
    }

    /// A device-wide synchronize, which covers every position queued before it.
    pub(crate) fn wait_device_wide(&self) -> Result<()> {
        let upto = self.lock().next;
        crate::tracker::synchronize_device(&self.ctx)?;
        self.advance(upto);
        Ok(())
    }

    /// Called before the stream is destroyed: records one event covering
    /// every position not known finished (so later waits need no stream),
    /// then refuses further records. If that record fails, later waits fall
    /// back to a device-wide synchronize.
    pub(crate) fn retire(&self) {
        let mut state = self.lock();
        if state.retired {
            return;
        }
        state.retired = true;
        let next = state.next;
        let covered = state.tail.as_ref().is_some_and(|(_, c)| *c >= next);
        if covered || next <= self.completed.load(Ordering::Acquire) {
            return;
        }
        let recorded = self
            .ctx
            .bind()
            .and_then(|()| TailEvent::record(&self.ctx, state.raw));
        if let Ok(event) = recorded {
            state.tail = Some((Arc::new(event), next));
        }
    }
}

impl QueuedAt {
    /// The stream's identity.
    pub(crate) fn stream_id(&self) -> u64 {
        self.lane.stream_id
    }

    /// The context of the stream.
    pub(crate) fn context(&self) -> &Context {
        self.lane.context()
    }

    /// Whether two handles denote the same launch.
    pub(crate) fn same(&self, other: &QueuedAt) -> bool {
        Arc::ptr_eq(&self.lane, &other.lane) && self.position == other.position
    }

    /// Blocks until the launch has finished (see [`Lane::wait`]).
    pub(crate) fn wait(&self) -> Result<()> {
        self.lane.wait(self.position)
    }

    /// Whether the launch has finished, recording a tail event if none
    /// covers it (see [`Lane::is_complete`]).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.lane.is_complete(self.position)
    }

    /// Whether the launch is proven finished without recording anything.
    pub(crate) fn is_known_complete(&self) -> bool {
        self.lane.is_known_complete(self.position)
    }
}
