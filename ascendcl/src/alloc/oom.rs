//! [`OutOfMemory`]: the caching allocator's out-of-memory error, with the
//! numbers at the failure and a hint that follows from them.

use std::fmt;

use super::Backend;
use super::stats::{Statistics, human_bytes};
use crate::error::AclError;

/// The caching allocator could not find memory even after releasing its
/// cache and retrying.
#[derive(Debug, Clone)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub requested: usize,
    /// Bytes the last attempt needed from the device: a whole segment (fixed
    /// segments: 2 MiB, 20 MiB, or the request rounded to 2 MiB), the pages
    /// to map (expandable), or for a full range the request in pages; at
    /// least `requested`.
    pub device_request: usize,
    /// Whether the request went to the small pool (at most 1 MiB), whose
    /// expandable range is a fixed eighth of the HBM.
    pub small_pool: bool,
    /// The allocator's state at the failure.
    pub stats: Statistics,
    /// The device's free and total bytes at the failure, if it could tell.
    pub device_free: Option<(usize, usize)>,
    /// The runtime's error from the last attempt; `None` when an expandable
    /// segment's reserved address range (1.125 × HBM) had no room left.
    pub source: Option<AclError>,
    /// The allocator's backend: what to do next depends on it.
    pub backend: Backend,
}

/// What to do when the memory is really short.
const SHRINK: &str = "reduce the batch size, free tensors you no longer need, or keep fewer \
                      activations (recompute them in the backward)";

impl OutOfMemory {
    /// The runtime's code (207001), if the runtime refused.
    pub fn code(&self) -> Option<i32> {
        self.source.as_ref().map(AclError::code)
    }

    /// What to do, from the numbers at the failure (`need` is
    /// [`device_request`](OutOfMemory::device_request)):
    ///
    /// * the device had `need` free, yet the runtime refused: not a shortage
    ///   (an injected fault, a driver limit, memory another process held for
    ///   a moment), so nothing about batch sizes;
    /// * an expandable range is full while the device has `need` free: raise
    ///   `AllocatorConfig::reserve_factor` (large pool), or use fewer small
    ///   blocks (the small pool's range is an eighth of the HBM);
    /// * the live tensors and the request exceed the device's HBM: shrink
    ///   the working set;
    /// * fixed segments round the request up to a segment larger than what
    ///   is free while the request itself would fit: expandable segments;
    /// * someone else holds most of the used memory: say so;
    /// * otherwise the cache is fragmented: fixed segments are pointed to
    ///   expandable ones, expandable ones to shrinking.
    ///
    /// Without the device's numbers it falls back on the backend alone.
    pub fn hint(&self) -> String {
        let asked = self.requested;
        let need = self.device_request.max(asked);
        let live = self.stats.allocated.current;
        let held = self.stats.reserved.current;
        let Some((free, total)) = self.device_free else {
            return match (self.backend, &self.source) {
                (Backend::Segments, _) => format!(
                    "{SHRINK}; or switch to expandable segments (AllocatorConfig::expandable()) \
                     if the cache is fragmented (see fragmentation above)"
                ),
                (Backend::Expandable { .. }, None) => format!(
                    "the expandable segment's address range is full: raise \
                     AllocatorConfig::reserve_factor if the device has memory left, else {SHRINK}"
                ),
                (Backend::Expandable { .. }, Some(_)) => SHRINK.to_owned(),
            };
        };
        let h = human_bytes;
        if free >= need {
            return match (&self.source, self.small_pool) {
                (Some(_), _) => format!(
                    "the device reports {} free, enough for the {} this needed, so this is not a \
                     lack of memory: the runtime refused for another reason (its message above; \
                     an injected fault, a driver limit, or memory another process held for a \
                     moment). Retry, and check the device with `npu-smi info` if it persists",
                    h(free),
                    h(need)
                ),
                (None, false) => format!(
                    "the expandable segment's reserved address range is full while the device \
                     still has {} free: raise AllocatorConfig::reserve_factor (the range is that \
                     factor × HBM)",
                    h(free)
                ),
                (None, true) => format!(
                    "the range of the pool for blocks of at most 1 MiB (an eighth of the HBM) is \
                     full of live small blocks while the device still has {} free: hold fewer \
                     small tensors at once, or allocate them together as larger ones",
                    h(free)
                ),
            };
        }
        if live.saturating_add(asked) > total {
            return format!(
                "the live tensors ({}) and this request ({}) need more than the device's {} of \
                 HBM: {SHRINK}",
                h(live),
                h(asked),
                h(total)
            );
        }
        if self.backend == Backend::Segments && need > asked && free >= asked {
            return format!(
                "fixed segments serve this {} request with a {} segment, more than the {} free \
                 on the device: switch to expandable segments (AllocatorConfig::expandable()), \
                 which map only the pages a block needs, or {SHRINK}",
                h(asked),
                h(need),
                h(free)
            );
        }
        let used = total - free;
        if used > held.saturating_add(held / 8).saturating_add(2 << 20) {
            return format!(
                "{} of {} is free and this allocator holds only {} of the {} in use: another \
                 allocator or process holds the rest (`npu-smi info` lists processes); share one \
                 allocator, or free memory there",
                h(free),
                h(total),
                h(held),
                h(used)
            );
        }
        match self.backend {
            Backend::Segments => format!(
                "the allocator holds {} for {} of live tensors and the device has {} free: its \
                 segments are fragmented (a segment returns to the device only when all of it is \
                 free). Switch to expandable segments (AllocatorConfig::expandable()), or {SHRINK}",
                h(held),
                h(live),
                h(free)
            ),
            Backend::Expandable { .. } => format!(
                "the allocator holds {} for {} of live tensors and the device has {} free, less \
                 than the {} this needed: {SHRINK}",
                h(held),
                h(live),
                h(free),
                h(need)
            ),
        }
    }
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of device memory allocating {}",
            human_bytes(self.requested)
        )?;
        if let Some((free, total)) = self.device_free {
            write!(
                f,
                " ({} of {} free on the device)",
                human_bytes(free),
                human_bytes(total)
            )?;
        }
        write!(f, "\nallocator: {}", self.stats)?;
        match &self.source {
            // The runtime's code and text only: the hint below covers both.
            Some(source) => {
                write!(
                    f,
                    "\nruntime: {} returned {}",
                    source.function(),
                    source.code()
                )?;
                if let Some(name) = source.code_name() {
                    write!(f, " ({name})")?;
                }
                if let Some(message) = source.message() {
                    write!(f, ": {}", message.trim_end())?;
                }
            }
            None => write!(
                f,
                "\nthe reserved address range of the expandable segment is full"
            )?,
        }
        write!(f, "\nhint: {}", self.hint())
    }
}

impl std::error::Error for OutOfMemory {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}
