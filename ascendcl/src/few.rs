//! [`Few`]: the handful of things one launch touches, kept inline.
//!
//! An operator launch collects its tensors' memory, their trackers, the
//! locks on those trackers and the descriptors it built. Most operators take
//! one to eight tensors, so up to eight live inline (on the stack, or inside
//! the guard that outlives the launch) and only a larger operator's lists
//! move to the heap: the launch path makes no heap allocation of its own
//! (counted by the launch-cost bench, `docs/benchmarks.md#launch-cost`).
//!
//! It is covariant in `T` (a `Few<Storage<'long>>` is a
//! `Few<Storage<'short>>`), as `Vec` is, so the guards that hold one keep
//! the variance their lifetimes had with a `Vec`.

use std::ops::{Deref, DerefMut};

use arrayvec::ArrayVec;

/// How many items stay inline.
const INLINE: usize = 8;

/// Up to eight `T` inline, more on the heap; derefs to `[T]`.
pub(crate) enum Few<T> {
    Inline(ArrayVec<T, INLINE>),
    Heap(Vec<T>),
}

impl<T> Few<T> {
    /// An empty list (no allocation).
    #[inline]
    pub(crate) const fn new() -> Self {
        Few::Inline(ArrayVec::new_const())
    }

    /// Appends `item`; the ninth moves the list to the heap.
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        match self {
            Few::Inline(inline) => {
                if let Err(full) = inline.try_push(item) {
                    self.spill(full.element());
                }
            }
            Few::Heap(heap) => heap.push(item),
        }
    }

    /// The ninth item: moves the list to the heap. Out of line, so that
    /// `push` stays small enough to inline on the launch path.
    #[cold]
    #[inline(never)]
    fn spill(&mut self, item: T) {
        if let Few::Inline(inline) = self {
            let mut heap = Vec::with_capacity(2 * INLINE);
            heap.extend(inline.drain(..));
            heap.push(item);
            *self = Few::Heap(heap);
        }
    }
}

impl<T> Default for Few<T> {
    fn default() -> Self {
        Few::new()
    }
}

impl<T> Deref for Few<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Few::Inline(inline) => inline,
            Few::Heap(heap) => heap,
        }
    }
}

impl<T> DerefMut for Few<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Few::Inline(inline) => inline,
            Few::Heap(heap) => heap,
        }
    }
}

impl<T> FromIterator<T> for Few<T> {
    #[inline]
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut few = Few::new();
        few.extend(items);
        few
    }
}

impl<T> Extend<T> for Few<T> {
    #[inline]
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.push(item);
        }
    }
}

impl<'f, T> IntoIterator for &'f Few<T> {
    type Item = &'f T;
    type IntoIter = std::slice::Iter<'f, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'f, T> IntoIterator for &'f mut Few<T> {
    type Item = &'f mut T;
    type IntoIter = std::slice::IterMut<'f, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Few<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Few;

    #[test]
    fn a_few_keeps_every_item_in_order_inline_and_after_moving_to_the_heap() {
        let mut few = Few::new();
        for i in 0..8 {
            few.push(i);
        }
        assert!(matches!(few, Few::Inline(_)));
        assert_eq!(&few[..], &[0, 1, 2, 3, 4, 5, 6, 7]);
        few.push(8);
        few.push(9);
        assert!(matches!(few, Few::Heap(_)));
        assert_eq!(&few[..], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn a_few_drops_each_item_once_whether_inline_or_moved() {
        use std::rc::Rc;
        let item = Rc::new(());
        {
            let few: Few<Rc<()>> = (0..12).map(|_| item.clone()).collect();
            assert_eq!(Rc::strong_count(&item), 13);
            drop(few);
        }
        assert_eq!(Rc::strong_count(&item), 1);
        let few: Few<Rc<()>> = (0..3).map(|_| item.clone()).collect();
        assert_eq!(few.len(), 3);
        assert_eq!(Rc::strong_count(&item), 4);
        drop(few);
        assert_eq!(Rc::strong_count(&item), 1);
    }
}
