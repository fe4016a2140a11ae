//! The bookkeeping of a tracker, without any runtime call: which queued uses
//! of one piece of memory have not provably finished, and which of them a new
//! access must be ordered after.
//!
//! It is generic over the use type so that the model check (`model/`) runs
//! exactly this code against a simulated device.

/// How an operation touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reads only: may run alongside other reads.
    Read,
    /// Writes (or frees, or does something unknown): conflicts with every use.
    Write,
}

/// One queued use, as the set needs to see it.
pub(crate) trait QueuedUse: Clone {
    /// A use just queued, before a set keeps it: borrowed, so that moving a
    /// kept use forward in place takes no handle.
    type Fresh<'a>: Copy
    where
        Self: 'a;
    /// The stream of a fresh use (as [`QueuedUse::stream`]).
    fn fresh_stream(fresh: Self::Fresh<'_>) -> Option<u64>;
    /// The use a set keeps for `fresh`.
    fn keep(fresh: Self::Fresh<'_>) -> Self;
    /// The stream whose order the use is in, if known. A use without a
    /// stream (work that could not be marked) is never covered by stream
    /// order and must always be waited for.
    fn stream(&self) -> Option<u64>;
    /// Whether two handles denote the same use.
    fn same(&self, other: &Self) -> bool;
    /// Whether the use is proven finished now, without waiting (a query
    /// that fails proves nothing: false).
    fn is_complete(&self) -> bool;
    /// Becomes `later`, a later use on the same stream, reusing what it can
    /// of `self` (the same as `*self = Self::keep(later)`, without taking a
    /// handle where the two share their stream's).
    fn become_later(&mut self, later: Self::Fresh<'_>);
}

/// The uses of one piece of memory that may still run.
///
/// * `writes`: uses that conflict with everything (normally at most one: the
///   last write, which was ordered after everything before it);
/// * `reads`: reads queued since, at most one per stream (a later read on a
///   stream covers an earlier one on the same stream, by stream order).
#[derive(Debug, Clone)]
pub(crate) struct UseSet<U> {
    writes: Vec<U>,
    reads: Vec<U>,
}

impl<U> Default for UseSet<U> {
    fn default() -> Self {
        UseSet {
            writes: Vec::new(),
            reads: Vec::new(),
        }
    }
}

impl<U: QueuedUse> UseSet<U> {
    /// Whether no use is remembered.
    pub(crate) fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.reads.is_empty()
    }

    /// The reads queued since the last write.
    pub(crate) fn reads(&self) -> &[U] {
        &self.reads
    }

    /// Every use an access of kind `access` conflicts with: a read conflicts
    /// with writes, a write with everything.
    pub(crate) fn conflicts(&self, access: Access) -> impl Iterator<Item = &U> {
        let reads = match access {
            Access::Read => &self.reads[..0],
            Access::Write => &self.reads[..],
        };
        self.writes.iter().chain(reads)
    }

    /// The conflicting uses that stream order does not already cover for an
    /// access queued on `stream`: uses on other streams. (The model check's
    /// form; `enqueue` iterates `conflicts` with the same filter, allocating
    /// nothing.)
    #[cfg(test)]
    pub(crate) fn to_order_after(&self, access: Access, stream: u64) -> Vec<U> {
        self.conflicts(access)
            .filter(|u| u.stream() != Some(stream))
            .cloned()
            .collect()
    }

    /// Records `new`, queued after every conflicting use on another stream
    /// had been made to precede it (by an event wait, a host wait
    /// or stream order).
    pub(crate) fn record(&mut self, access: Access, new: U::Fresh<'_>) {
        let stream = U::fresh_stream(new);
        match access {
            Access::Read => {
                // At most one read per stream is kept (only this pushes to
                // `reads`), so the later read takes that one's place.
                let same =
                    stream.and_then(|s| self.reads.iter().position(|u| u.stream() == Some(s)));
                match same {
                    Some(i) => self.reads[i].become_later(new),
                    None => {
                        // A stream not seen before: forget the reads that
                        // have finished, so that a buffer read from many
                        // short-lived streams keeps one use (and one event)
                        // per stream with unfinished work, not per stream
                        // ever used. Only this path queries, so a steady
                        // loop makes no extra call.
                        self.reads.retain(|u| !u.is_complete());
                        self.reads.push(U::keep(new));
                    }
                }
            }
            Access::Write => {
                if stream.is_none() {
                    self.writes.push(U::keep(new));
                    return;
                }
                // `new` follows every earlier use, so it stands for them.
                self.reads.clear();
                match &mut self.writes[..] {
                    [only] if only.stream() == stream => only.become_later(new),
                    _ => {
                        self.writes.clear();
                        self.writes.push(U::keep(new));
                    }
                }
            }
        }
    }

    /// Takes every use out (memory handed back to an allocator).
    pub(crate) fn take_all(&mut self) -> Vec<U> {
        let mut all = std::mem::take(&mut self.writes);
        all.append(&mut self.reads);
        all
    }

    /// Adds uses inherited from the memory's previous owner; they conflict
    /// with everything.
    pub(crate) fn inherit(&mut self, uses: impl IntoIterator<Item = U>) {
        self.writes.extend(uses);
    }

    /// Forgets the uses `finished` says have finished.
    pub(crate) fn forget(&mut self, finished: impl Fn(&U) -> bool) {
        self.writes.retain(|u| !finished(u));
        self.reads.retain(|u| !finished(u));
    }

    /// Forgets uses that have been waited for. Uses recorded since stay.
    pub(crate) fn remove_finished(&mut self, finished: &[U]) {
        let done = |u: &U| finished.iter().any(|f| f.same(u));
        self.writes.retain(|u| !done(u));
        self.reads.retain(|u| !done(u));
    }
}
