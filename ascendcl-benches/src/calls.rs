//! Runtime calls per launch, counted from the mock's journal.

use std::collections::BTreeMap;

use ascendcl_mock::Mock;

/// The calls of one launch: how many of each function, per launch.
pub type CallsPerLaunch = BTreeMap<String, f64>;

/// Counts the calls made between [`CallCounter::begin`] and
/// [`CallCounter::end`] on the mock; does nothing on a card.
///
/// `aclrtSynchronizeStream` is not counted: it is the bench's own drain
/// between blocks (no tracked launch calls it; a safe launch that had to wait
/// would call `aclrtSynchronizeEvent` or `aclrtSynchronizeDevice`, which are
/// counted).
#[derive(Debug, Clone, Copy)]
pub struct CallCounter {
    mock: Option<&'static Mock>,
    /// How many threads make the counted calls (ranks of a collective).
    share: usize,
}

impl CallCounter {
    /// A counter on the mock if `backend` is the mock.
    pub fn for_backend(backend: &ascendcl_examples::Backend) -> CallCounter {
        let mock = match backend {
            ascendcl_examples::Backend::Mock(_) => ascendcl_mock::select().ok(),
            ascendcl_examples::Backend::Device(_) => None,
        };
        CallCounter { mock, share: 1 }
    }

    /// A counter that counts nothing.
    pub fn none() -> CallCounter {
        CallCounter {
            mock: None,
            share: 1,
        }
    }

    /// The same counter, for calls made by `threads` threads alike.
    pub fn shared_by(self, threads: usize) -> CallCounter {
        CallCounter {
            share: threads.max(1),
            ..self
        }
    }

    /// Starts counting.
    pub fn begin(&self) {
        if let Some(mock) = self.mock {
            mock.clear_journal();
        }
    }

    /// The calls per launch since [`CallCounter::begin`], for `launches`
    /// launches (per thread); `None` on a card.
    pub fn end(&self, launches: usize) -> Option<CallsPerLaunch> {
        let mock = self.mock?;
        let mut counts = CallsPerLaunch::new();
        for entry in mock.journal() {
            if entry.function() != "aclrtSynchronizeStream" {
                *counts.entry(entry.function().to_string()).or_default() += 1.0;
            }
        }
        let per = (launches * self.share) as f64;
        counts.values_mut().for_each(|v| *v /= per);
        Some(counts)
    }
}
