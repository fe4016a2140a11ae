//! Device memory bound to a capture, and the views captured operators are
//! built from.

use std::cell::RefCell;
use std::ffi::c_void;
use std::marker::PhantomData;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::graph::owned::Owned;
use crate::ops::tensor::Storage;
use crate::ops::{Element, Tensor, TensorMut};
use crate::tracker::{Access, UseTracker};

/// The handle of memory bound to a capture ([`Capture::bind`](super::Capture::bind)).
#[derive(Debug)]
pub struct Bound<T> {
    pub(crate) capture: u64,
    pub(crate) index: usize,
    pub(crate) _element: PhantomData<T>,
}

impl<T> Clone for Bound<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Bound<T> {}

/// Who keeps memory bound to a capture alive.
pub(crate) enum Holder<'g> {
    /// The caller's memory, borrowed exclusively for the graph's life.
    Borrowed {
        ctx: &'g Context,
        tracker: &'g UseTracker,
    },
    /// A scratch block the graph owns: this index of its owned memory.
    Owned(usize),
}

/// Memory bound to a capture: borrowed exclusively for the graph's life, or
/// owned by the graph.
pub(crate) struct BoundMem<'g> {
    pub(crate) ptr: *mut c_void,
    pub(crate) bytes: usize,
    pub(crate) holder: Holder<'g>,
    /// How the captured work touches it (Write once anything writes it).
    pub(crate) access: Access,
}

impl<'g> BoundMem<'g> {
    /// Its context and tracker (`owned`: the graph's owned memory).
    pub(crate) fn resolve<'a>(
        &'a self,
        owned: &'a [Box<dyn Owned>],
    ) -> (&'a Context, &'a UseTracker)
    where
        'g: 'a,
    {
        match self.holder {
            Holder::Borrowed { ctx, tracker } => (ctx, tracker),
            Holder::Owned(index) => (owned[index].ctx(), owned[index].tracker()),
        }
    }
}

/// The views one captured operator is built from. Views of bound memory are
/// checked like borrows, at run time, within the operator: any number of
/// read-only views of a buffer, or one writable view and nothing else.
pub struct Views<'v> {
    pub(crate) bound: &'v [BoundMem<'v>],
    pub(crate) owned: &'v [Box<dyn Owned>],
    pub(crate) capture: u64,
    pub(crate) taken: RefCell<Vec<(usize, Access)>>,
}

impl std::fmt::Debug for Views<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Views")
            .field("taken", &self.taken.borrow().len())
            .finish()
    }
}

impl<'v> Views<'v> {
    fn take<T: Element>(&self, b: Bound<T>, access: Access) -> Result<Storage<'v>> {
        if b.capture != self.capture {
            return Err(Error::invalid("this handle was bound to another capture"));
        }
        let mut taken = self.taken.borrow_mut();
        let clash = taken
            .iter()
            .any(|&(i, a)| i == b.index && (a == Access::Write || access == Access::Write));
        if clash {
            return Err(Error::invalid(
                "a captured operator may take one writable view of a buffer, or read-only views, not both",
            ));
        }
        taken.push((b.index, access));
        let mem = &self.bound[b.index];
        let (ctx, tracker) = mem.resolve(self.owned);
        Ok(Storage {
            ptr: mem.ptr,
            len: mem.bytes / std::mem::size_of::<T>(),
            ctx,
            tracker,
        })
    }

    /// A read-only contiguous view of `shape` over bound memory.
    pub fn view<T: Element>(&self, b: Bound<T>, shape: &[usize]) -> Result<Tensor<'v>> {
        Tensor::over(self.take(b, Access::Read)?, shape, T::DTYPE)
    }

    /// A writable contiguous view of `shape` over bound memory.
    pub fn view_mut<T: Element>(&self, b: Bound<T>, shape: &[usize]) -> Result<TensorMut<'v>> {
        TensorMut::over(self.take(b, Access::Write)?, shape, T::DTYPE)
    }
}
