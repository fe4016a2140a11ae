//! A 64-bit word of device memory that streams write and wait on
//! (`aclrtValueWrite`, `aclrtValueWait`).
//!
//! Both are asynchronous: the write is a task that stores the value when the
//! stream reaches it, the wait a task that holds its stream until the word
//! meets a [`ValueCondition`]. The word's tracker orders them as it orders
//! copies: a write is a write of the word, a wait a read of it. So a host
//! read ([`ValueWord::get`]) waits for queued writes, a wait on another
//! stream is ordered after every write queued before it, and dropping the
//! word waits for every task that uses it.
//!
//! That same ordering means a wait never waits for a write queued *later*:
//! the tracker would order the write after the wait (a write after a read of
//! another stream), and the two tasks would wait for each other forever; on
//! one stream the write could not pass the wait either. [`Stream::write_value`]
//! therefore refuses, with [`Error::WouldDeadlock`], while a wait of the word
//! may still be running. Queue the write first. (Releasing a wait queued
//! first by a write queued later, as CANN's `memory/9` sample does, is the
//! raw layer's business: `ascendcl_sys` has both functions.)

use ascendcl_sys as sys;

use crate::call::check;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::memory::sealed::{self, Sealed as _};
use crate::memory::{DeviceBuffer, DeviceSlice, DeviceSliceMut, RawParts, same_device};
use crate::pending::{Detached, Pending};
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch};

/// When an [`Stream::wait_value`] lets its stream go on, comparing the word
/// `w` with the value `v` (the `ACL_STREAM_WAIT_VALUE_*` conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueCondition {
    /// `(w - v) as i64 >= 0`: `w` is at or past `v`, counting around a wrap
    /// (`ACL_STREAM_WAIT_VALUE_GEQ`).
    AtLeast,
    /// `w == v` (`ACL_STREAM_WAIT_VALUE_EQ`).
    Equal,
    /// `w & v != 0`: a bit of `v` is set in `w` (`ACL_STREAM_WAIT_VALUE_AND`).
    AnyBitOf,
    /// `!(w | v) != 0`: some bit is clear in both (`ACL_STREAM_WAIT_VALUE_NOR`).
    SomeBitClearInBoth,
}

impl ValueCondition {
    fn raw(self) -> u32 {
        match self {
            ValueCondition::AtLeast => sys::ACL_STREAM_WAIT_VALUE_GEQ,
            ValueCondition::Equal => sys::ACL_STREAM_WAIT_VALUE_EQ,
            ValueCondition::AnyBitOf => sys::ACL_STREAM_WAIT_VALUE_AND,
            ValueCondition::SomeBitClearInBoth => sys::ACL_STREAM_WAIT_VALUE_NOR,
        }
    }

    /// Whether a word `word` meets the condition for `value`.
    pub fn holds(self, word: u64, value: u64) -> bool {
        match self {
            ValueCondition::AtLeast => word.wrapping_sub(value) as i64 >= 0,
            ValueCondition::Equal => word == value,
            ValueCondition::AnyBitOf => word & value != 0,
            ValueCondition::SomeBitClearInBoth => !(word | value) != 0,
        }
    }
}

/// One 64-bit word of device memory (8-byte aligned, from `aclrtMalloc`)
/// for [`Stream::write_value`] and [`Stream::wait_value`].
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// use ascendcl::{ValueCondition, ValueWord};
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
/// let mut ready = ValueWord::new(&ctx, 0)?;
/// producer.write_value(&mut ready, 1)?.detach();
/// // ordered after the write; holds `consumer` until the word is 1
/// let waited = consumer.wait_value(&ready, 1, ValueCondition::Equal)?;
/// waited.wait()?;
/// assert_eq!(ready.get()?, 1);
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[derive(Debug)]
pub struct ValueWord {
    word: DeviceBuffer<u64>,
}

impl ValueWord {
    /// A word of `ctx`'s device holding `initial`.
    pub fn new(ctx: &Context, initial: u64) -> Result<ValueWord> {
        let mut word = DeviceBuffer::<u64>::alloc(ctx, 1)?;
        word.copy_from_host(&[initial])?;
        Ok(ValueWord { word })
    }

    /// The word's value, after every write queued to it has run.
    pub fn get(&self) -> Result<u64> {
        let mut out = [0u64];
        self.word.copy_to_host(&mut out)?;
        Ok(out[0])
    }

    /// The context whose device holds the word.
    pub fn context(&self) -> &Context {
        self.word.context()
    }
}

impl sealed::Sealed for ValueWord {
    fn raw_parts(&self) -> RawParts<'_> {
        self.word.raw_parts()
    }
}

impl Stream {
    /// Queues storing `value` into `word` (`aclrtValueWrite`): ordered after
    /// every queued use of the word, like any write.
    ///
    /// Refused with [`Error::WouldDeadlock`] while a [`Stream::wait_value`]
    /// of the word may still be running (see the module docs of
    /// [`ValueWord`]); with [`Error::InvalidArgument`] when the word is on
    /// another device than the stream.
    pub fn write_value<'a>(
        &'a self,
        word: &'a mut ValueWord,
        value: u64,
    ) -> Result<Pending<'a, ValueWord>> {
        let parts = word.raw_parts();
        same_device("write_value", &parts, self.context())?;
        if parts.tracker.reads_running() {
            return Err(Error::WouldDeadlock(
                "write_value: a wait_value of this word may still be waiting; the write would be ordered \
                 after it and could never release it (queue the write before the wait)"
                    .into(),
            ));
        }
        let (ptr, tracker) = (parts.ptr, parts.tracker);
        let raw = self.bound()?;
        let at = tracker::enqueue(
            self,
            raw,
            &[(tracker, Access::Write)],
            FailedLaunch::NothingQueued,
            |lib, s| {
                // SAFETY: `ptr` is the word's live, 8-byte aligned device memory
                // of 8 bytes, kept alive by the returned Pending and by the
                // tracker until the write has run; flag 0 is the reserved value.
                check(lib, "aclrtValueWrite", unsafe {
                    lib.aclrtValueWrite(ptr, value, 0, s)
                })
            },
        )?;
        Ok(Pending::new(self, at, None, word))
    }

    /// Queues holding this stream until `word` meets `until` for `value`
    /// (`aclrtValueWait`): a read of the word, ordered after every write of
    /// it queued before, so it waits only for what is already queued (or
    /// written by the device's own work). Returns the wait's handle; the
    /// word remembers the wait, so dropping it waits for the wait too.
    ///
    /// A wait for a value no queued work will write never finishes: this
    /// stream, and whatever waits for it, then hang.
    pub fn wait_value(
        &self,
        word: &ValueWord,
        value: u64,
        until: ValueCondition,
    ) -> Result<Detached> {
        let parts = word.raw_parts();
        same_device("wait_value", &parts, self.context())?;
        let (ptr, tracker, flag) = (parts.ptr, parts.tracker, until.raw());
        let raw = self.bound()?;
        let at = tracker::enqueue(
            self,
            raw,
            &[(tracker, Access::Read)],
            FailedLaunch::NothingQueued,
            |lib, s| {
                // SAFETY: `ptr` is the word's live, 8-byte aligned device memory
                // of 8 bytes; the tracker keeps it alive until the wait has run
                // (freeing the word waits for every read); `flag` is one of the
                // ACL_STREAM_WAIT_VALUE_* conditions.
                check(lib, "aclrtValueWait", unsafe {
                    lib.aclrtValueWait(ptr, value, flag, s)
                })
            },
        )?;
        Ok(crate::queued::detached(self, at))
    }
}
