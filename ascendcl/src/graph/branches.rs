//! A capture over several streams: side streams forked into the capture
//! and joined back, through events, as CANN requires (an event recorded on
//! the capture's stream and waited for by the side stream brings it into
//! the capture; every side stream must end with an event the origin waits
//! for, or `aclmdlRICaptureEnd` fails with 107025; the events must be
//! `ACL_EVENT_SYNC` events from `aclrtCreateEventExWithFlag`).
//! hicann/runtime v8.5.0: `src/runtime/feature/src/context/context.cc`,
//! `CheckCaptureModelValidity` (the join rule) and `api_impl.cc`
//! `EventRecord` (207000 for a plain event in a capture).

use ascendcl_sys::aclrtEvent;

use crate::call::check;
use crate::error::{Error, Result};
use crate::graph::Capture;
use crate::graph::capture::join_capture;
use crate::stream::Stream;

/// A branch of a capture: its own stream ([`Capture::origin`]) or a stream
/// forked into it ([`Capture::fork`]). A handle: copy it freely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch {
    pub(crate) capture: u64,
    pub(crate) index: usize,
}

/// A stream forked into a capture.
pub(crate) struct Side {
    pub(crate) stream: Stream,
    pub(crate) joined: bool,
}

impl<'g> Capture<'g> {
    /// The capture's own stream, as a branch.
    pub fn origin(&self) -> Branch {
        Branch {
            capture: self.parts.id,
            index: 0,
        }
    }

    pub(super) fn branch_index(&self, branch: Branch) -> Result<usize> {
        if branch.capture != self.parts.id {
            return Err(Error::invalid("this branch belongs to another capture"));
        }
        if branch.index > 0 && self.branches[branch.index - 1].joined {
            return Err(Error::InvalidState(format!(
                "branch {} was joined back: CANN fails the capture's end if a joined stream \
                 queues more work (fork it again for more)",
                branch.index
            )));
        }
        Ok(branch.index)
    }

    pub(super) fn stream_of(&self, index: usize) -> &Stream {
        match index {
            0 => &self.stream,
            i => &self.branches[i - 1].stream,
        }
    }

    /// An `ACL_EVENT_SYNC` event the graph owns (destroyed after the model),
    /// recorded on branch `from` and waited for by branch `to`.
    fn order(&mut self, from: usize, to: usize) -> Result<()> {
        let lib = self.stream.context().lib();
        self.stream.context().bind()?;
        let mut event: aclrtEvent = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        check(lib, "aclrtCreateEventExWithFlag", unsafe {
            lib.aclrtCreateEventExWithFlag(&mut event, ascendcl_sys::ACL_EVENT_SYNC)
        })?;
        self.parts.events.push(event);
        let (from, to) = (self.stream_of(from).as_raw(), self.stream_of(to).as_raw());
        // SAFETY: our live event and two live streams of the capture.
        check(lib, "aclrtRecordEvent", unsafe {
            lib.aclrtRecordEvent(event, from)
        })?;
        // SAFETY: as above.
        check(lib, "aclrtStreamWaitEvent", unsafe {
            lib.aclrtStreamWaitEvent(to, event)
        })
    }

    /// Forks `side` into the capture: from here, work captured on the
    /// returned branch ([`Capture::launch_on`]) runs after everything
    /// captured so far on the capture's stream and concurrently with what
    /// follows there, until [`join`](Capture::join). `side` must be a
    /// stream of the capture's context made with [`Stream::new`], not
    /// already captured; it is synchronized first, and like the capture's
    /// own stream it refuses synchronizes, queries and tracked work until
    /// the capture ends.
    pub fn fork(&mut self, side: &Stream) -> Result<Branch> {
        if side.as_raw().is_null() {
            return Err(Error::invalid(
                "a default stream cannot join a capture; fork a stream made with Stream::new",
            ));
        }
        if !side.context().same_as(self.stream.context()) {
            return Err(Error::invalid(
                "a stream of another context cannot join this capture",
            ));
        }
        side.check_trackable()?;
        // Marked before the fork's wait makes CANN capture it: from here no
        // launch of ours lands on it.
        join_capture(side, || Ok(()))?;
        // The branch and its clock together, before anything can fail: a
        // failed fork leaves a joined (unusable) branch, never a branch
        // without a clock. The stream stays marked until the capture ends.
        self.branches.push(Side {
            stream: side.clone(),
            joined: true,
        });
        let index = self.branches.len();
        let forked = self.hazards.fork();
        if forked != index {
            return Err(Error::InvalidState(format!(
                "branch {index} got clock {forked}: the capture's branch list is corrupt"
            )));
        }
        self.order(0, index)?;
        self.branches[index - 1].joined = false;
        Ok(Branch {
            capture: self.parts.id,
            index,
        })
    }

    /// Joins `branch` back: work captured on the capture's stream after this
    /// runs after everything captured on the branch. A joined branch takes no
    /// more work. [`Capture::end`] joins the branches still forked.
    pub fn join(&mut self, branch: Branch) -> Result<()> {
        let index = self.branch_index(branch)?;
        if index == 0 {
            return Err(Error::invalid(
                "the capture's own stream is not a branch to join",
            ));
        }
        self.order(index, 0)?;
        self.branches[index - 1].joined = true;
        self.hazards.join(index);
        Ok(())
    }

    /// Joins every branch still forked (before the capture ends).
    pub(super) fn join_all(&mut self) -> Result<()> {
        for index in 1..=self.branches.len() {
            if !self.branches[index - 1].joined {
                self.join(Branch {
                    capture: self.parts.id,
                    index,
                })?;
            }
        }
        Ok(())
    }
}
