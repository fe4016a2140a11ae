//! # The safety argument
//!
//! This crate promises that **safe code can never read, write, reuse or free
//! memory that queued device work may still use**. This page says why that
//! holds, what happens when the runtime fails, and where the promise ends.
//!
//! ## Two layers
//!
//! 1. **Borrows give early errors.** Every queued operation returns a
//!    [`Pending`](crate::Pending) that borrows its source shared and its
//!    destination mutably until it is waited on or dropped. Reading a
//!    download's destination, overwriting an upload's source or freeing
//!    either before the wait does not compile.
//! 2. **Trackers give the guarantee.** Borrows end when a guard is leaked
//!    (`mem::forget`), so they cannot be the guarantee. Every piece of memory
//!    (device buffer, pinned host buffer, allocator block, VMM mapping) owns a
//!    tracker that remembers every queued use that has not provably finished.
//!
//! ## The rules every queued operation follows
//!
//! * **A use is a position, not an event.** Launching records no event (a
//!   safe launch makes the runtime calls the raw launch makes): each stream
//!   handle counts the launches queued on it, and a use is remembered as
//!   (stream, position). The position is taken under the stream's own lock
//!   together with the launch, so positions follow the stream's real order
//!   even when several threads queue on one stream.
//! * **One event when someone waits.** An event is recorded only when a
//!   party has to wait for a position (another stream ordered after it, a
//!   host access, a free, a guard's `wait` or `is_complete`), at the stream's
//!   tail at that moment, under the same lock as the positions: it covers
//!   every position queued before it. It is cached per stream, so every
//!   buffer waiting on that stream shares it; a host wait that returns
//!   advances the stream's completed position, and uses at or before it are
//!   then known finished with no further call; so does a stream
//!   synchronize, and a host callback when it starts to run (the stream has
//!   passed everything queued before it). (Stream order makes this sound: an
//!   event completes only after everything queued before it.) The check
//!   "is this use known finished?" never waits for a stream's lock, so it
//!   may run under any other lock of ours; when the lock is busy it answers
//!   "not known", which proves nothing and keeps the use.
//! * **One critical section.** Under the locks of every tracker it touches
//!   (taken in address order), an operation on stream `S`: makes `S` wait
//!   (an event wait on the other stream's tail event) for each conflicting
//!   use on another stream of the same context, is queued and given its
//!   position, and is added to each tracker. Another thread sees all of that
//!   or none of it, so no use is ever lost.
//! * **An event a queued wait uses is not reused.** The tail events are
//!   pooled per context. `S`'s lane keeps every event its queued waits
//!   refer to until the launch after them is known finished (or `S` is
//!   destroyed, which waits for its work); only then can the event go back to
//!   the pool and be recorded again elsewhere, which could otherwise release
//!   the queued wait early (`held_events.rs`; `tests/soundness_event_reuse.rs`;
//!   the model check's pool, which finds the wait released early when the
//!   hold is taken away).
//! * **No lock is held across a wait for the device.** A conflicting use
//!   that `S` cannot wait on with an event (on another context or device, or
//!   one no event can be recorded for) is waited for on the host *before* the critical
//!   section, with every tracker unlocked; then the critical section starts
//!   again from a fresh look at the trackers. Inside it only calls that
//!   return at once are made. So a host callback, or another rank's thread,
//!   that needs one of those trackers is never stuck behind a wait for work
//!   that waits for it. The retry ends: only reads can be queued meanwhile
//!   (a write needs the exclusive access the queuing thread holds), and
//!   reads conflict only with a write. A collective takes its
//!   communicator's lock inside the critical section, around the HCCL call
//!   alone (lock order: trackers, then a stream's positions, then
//!   communicator; a stream's lock is never held while another's is taken).
//! * **A stream is the runtime's stream.** The checks "is this use on my
//!   stream?" and "is this callback on the stream it waits for?" compare
//!   stream identities: a created stream's is its own, every
//!   [`Stream::default_of`](crate::Stream::default_of) handle of one runtime
//!   context has that context's default stream's.
//! * **Reads share, writes exclude.** Two reads do not conflict: a buffer
//!   keeps at most one read per stream (a later read on a stream covers an
//!   earlier one by stream order). A write conflicts with everything; once it
//!   is ordered after every earlier use, its position stands for all of them.
//! * **Host access waits first.** A shared access (`Deref` of a
//!   [`HostBuffer`](crate::HostBuffer), a synchronous copy *from* device
//!   memory) waits for queued writes; an exclusive access, a free, an unmap
//!   or a hand-back to an allocator waits for every use. Only reads can be
//!   queued through `&`, so nothing can slip in between the wait and the
//!   access.
//! * **Uses leave only when finished.** A tracker forgets a use after a host
//!   wait saw it complete, or when a later write covers it; a failed wait
//!   forgets nothing.
//! * **`Pending` means what it says.** [`Pending::wait`](crate::Pending::wait)
//!   waits for an event covering the operation's own position (recording
//!   one if none does), whatever was queued since.
//! * **One mapping per physical allocation.** A second live mapping of the
//!   same [`PhysicalMemory`](crate::vmm::PhysicalMemory) is refused
//!   ([`Error::AlreadyMapped`](crate::Error::AlreadyMapped)): two mappings
//!   would be two trackers for the same bytes.
//!
//! The protocol is model-checked: a unit test explores every interleaving of
//! host threads, stream heads, lazy event records and event waits over the
//! trackers' own code, and finds the bugs planted in it (a position taken
//! outside the launch's critical section; the lost use of the earlier
//! single-slot design).
//!
//! ## Why leaking a guard is safe
//!
//! Forgetting a `Pending` only ends its borrows early. The operation is in
//! its buffers' trackers, so the next host access, free or use on another
//! stream waits for it or is ordered after it. The guard holds only the
//! operation's position, so forgetting it leaks nothing. Forgetting a *buffer* leaks its
//! memory, which is safe. [`Pending::detach`](crate::Pending::detach) is the
//! same thing said on purpose: the [`Detached`](crate::Detached) handle it
//! returns borrows nothing and only *reads* the position (to wait or poll), so
//! it cannot weaken the trackers; it is how pipelines keep several transfers
//! in flight. A view of part of a buffer (`HostBuffer::slice`, device
//! `slice`) records its uses on the whole buffer's tracker: conservative,
//! never unsound.
//!
//! ## After a runtime failure
//!
//! * Queuing fails before the operation is queued: nothing changes. An
//!   operator's phase 2 that fails is treated as possibly queued in part (a
//!   launch may queue several kernels before one fails): it is tracked like a
//!   success.
//! * No event can be taken or recorded for a position when a wait needs one
//!   (or the stream was destroyed and the event recorded before its destroy
//!   failed): only a device-wide synchronize of **that** stream's device
//!   proves the work finished, and until one succeeds the use stays and
//!   every access fails. (A stream synchronize is never taken as proof: it
//!   returns at once on persistent and CPU-scheduled streams, which is why
//!   tracked work refuses them.)
//! * A wait fails: the use stays, and every later access waits again (and
//!   fails again) until a wait succeeds. [`HostBuffer::as_slice`](crate::HostBuffer::as_slice)
//!   returns the error; `Deref`, which cannot, tries a device-wide wait of
//!   every device involved and then panics rather than hand out memory the
//!   device may still write.
//! * A destructor cannot wait: it tries again, then device-wide; if all of
//!   that fails the memory is leaked (never freed or reused while it may be
//!   in use) and the error is parked for
//!   [`take_deferred_errors`](crate::take_deferred_errors). What the leaked
//!   memory lives in is leaked with it: a mapping left mapped keeps its
//!   physical memory and range; an allocator with such a block gives none of
//!   its segments or pages back; a repeatable executor whose launches cannot
//!   be waited for is not destroyed.
//!
//! ## Collectives
//!
//! HCCL collectives ([`crate::hccl`]) are queued through the same critical
//! section as operators: send buffers are tracked as reads, receive buffers
//! as writes, and a failed HCCL call is tracked as possibly queued. HCCL
//! counts in elements of the dtype it is passed, and the buffer checks count
//! in elements of the Rust type: the two agree because
//! [`HcclElement`](crate::hccl::HcclElement) is sealed and each of its
//! implementations is checked at compile time to have its dtype's size (an
//! operator, by contrast, counts a tensor's storage in the dtype's bytes, so
//! its element trait need not be sealed). The
//! communicator also remembers the positions of its collectives (and whether a
//! failed launch left work without one), and destroying it waits for them —
//! device-wide for the latter — before `HcclCommDestroy`; if that wait fails
//! the communicator (and its device reference) is leaked, never destroyed
//! under queued work, and so is one HCCL keeps answering busy
//! (`HCCL_E_AGAIN`). If `HcclCommDestroy` keeps failing otherwise (tried
//! three times), nothing of ours is queued any more: the handle is abandoned
//! (never passed to HCCL again) and the device reference released. A collective finishes only once every rank has issued
//! it, so waiting for one whose peers never arrive blocks until HCCL's
//! execution timeout.
//!
//! ## Host callbacks
//!
//! A callback blocks its stream until it returns. Waiting for its own stream
//! or device from inside it, or for a buffer use queued after it on its
//! stream, is refused with [`Error::WouldDeadlock`](crate::Error::WouldDeadlock);
//! the caching allocator never waits while holding its lock, so a callback
//! may free blocks; no tracker or communicator lock is held across a host
//! wait, so a callback may read pinned buffers and queue work, collectives
//! included. A destructor that would have to wait for work queued behind
//! the callback it runs in (a communicator's, an allocator's, a repeatable
//! executor's) refuses, parks the error and leaks what it could not free.
//! Dropping a [`Detached`](crate::Detached) never waits: it does not keep
//! its stream alive. See [`Stream::launch_host_fn`](crate::Stream::launch_host_fn)
//! for the waits that cannot be detected.
//!
//! ## Graphs (stream capture)
//!
//! A captured graph keeps what its model refers to: device memory bound to
//! the capture is borrowed for the graph's life, scratch memory, host
//! buffers, workspaces, executors and fork/join events are owned by it and
//! released only after `aclmdlRIDestroy`. A replay is a tracked launch over
//! every buffer the graph touches. No work of ours lands in a capture by
//! accident: a stream is marked as captured in the same critical section of
//! its lane that every tracked launch and host function takes, only once
//! every launch of ours on it is known finished, and a launch checks the
//! mark there (a launch racing a capture's begin is refused with a typed
//! error). Work captured on several branches is checked for unordered uses
//! of one buffer. A capture CANN never ends leaks what it captured rather
//! than freeing it under the model. See [`crate::graph`].
//!
//! ## Known limits
//!
//! * Streams created with `PERSISTENT`, `CPU_SCHEDULE` or device-only flags
//!   cannot run tracked copies or operators (refused before any FFI call).
//! * Raw `ascendcl-sys` calls are outside the promise: work they queue is
//!   tracked only if reported with [`DeviceBuffer::record_use`](crate::DeviceBuffer::record_use),
//!   and is not ordered after earlier uses unless you order it.
//! * Ordering across contexts or devices is done by host waits, which are
//!   correct but block the queuing thread.
//! * Objects that remember one use per stream (a buffer's reads, a
//!   communicator, a repeatable executor) drop the ones known finished when
//!   a new stream arrives (no event is recorded for that check), so
//!   short-lived streams leave nothing behind each.
//! * Destroying a stream with launches no wait has covered records one event
//!   first, so later waits for them need no stream.
//! * `mem::forget` of a [`Graph`](crate::graph::Graph) or a
//!   [`Capture`](crate::graph::Capture) ends the borrow of the memory bound
//!   to it while its model lives on: the model is never replayed again (a
//!   replay already queued is remembered by that memory's trackers), but the
//!   mock counts freeing that memory as a use after free.
//! * Deadlocks through other streams (a callback waiting for a stream that
//!   waits for the callback's stream) and waits on user events recorded after
//!   a callback cannot be detected.
//! * A [`Notify`](crate::Notify) orders streams for the program, never for
//!   the trackers: a buffer used after a [`Stream::wait_notify`](crate::Stream::wait_notify)
//!   is still ordered after its earlier uses by the tracker's own event
//!   waits. The notify's own tracker keeps it alive until its queued records
//!   and waits ran. A wait that no record releases holds its stream (and the
//!   notify's drop) until its timeout, or forever without one.
