//! A buffer's tracker under each modelled protocol: the real [`UseSet`], or
//! the single "last use" slot of an earlier release.

use super::{FakeUse, Protocol};
use crate::tracker::uses::{Access, UseSet};

#[derive(Debug, Clone)]
pub(super) enum Tracker {
    Current(UseSet<FakeUse>),
    Previous(Option<FakeUse>),
}

impl Tracker {
    pub(super) fn new(protocol: Protocol) -> Tracker {
        match protocol {
            Protocol::PreviousSingleSlot => Tracker::Previous(None),
            _ => Tracker::Current(UseSet::default()),
        }
    }

    pub(super) fn conflicts(&self, access: Access) -> Vec<FakeUse> {
        match self {
            Tracker::Current(set) => set.conflicts(access).cloned().collect(),
            Tracker::Previous(last) => last.iter().cloned().collect(),
        }
    }

    pub(super) fn to_order_after(&self, access: Access, stream: u64) -> Vec<FakeUse> {
        match self {
            Tracker::Current(set) => set.to_order_after(access, stream),
            Tracker::Previous(last) => last
                .iter()
                .filter(|u| u.stream != stream)
                .cloned()
                .collect(),
        }
    }

    pub(super) fn record(&mut self, access: Access, new: &FakeUse) {
        match self {
            Tracker::Current(set) => set.record(access, new),
            Tracker::Previous(last) => *last = Some(new.clone()),
        }
    }

    pub(super) fn remove_finished(&mut self, done: &[FakeUse]) {
        match self {
            Tracker::Current(set) => set.remove_finished(done),
            Tracker::Previous(last) => {
                if last.as_ref().is_some_and(|l| done.contains(l)) {
                    *last = None;
                }
            }
        }
    }

    pub(super) fn key(&self) -> String {
        format!("{self:?}")
    }
}
