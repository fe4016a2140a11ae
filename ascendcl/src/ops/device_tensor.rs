//! A device tensor that owns its memory, shape and dtype.
//!
//! [`Tensor`] and [`TensorMut`] are views: every operator call rebuilds one
//! from a bare buffer and a shape. A [`DeviceTensor`] keeps the shape with the
//! memory, checked once, and hands out views without any check or FFI call:
//! [`view`](DeviceTensor::view), [`view_mut`](DeviceTensor::view_mut),
//! [`reshape`](DeviceTensor::reshape) and transposed views
//! ([`t`](DeviceTensor::t)), none of which copies. It is a convenience over
//! the views, not a framework: there is no autograd and no operator
//! overloading; the operator wrappers take its views as they take any other.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::ops::{self, CubeMath, DeviceTensor, Workspace};
//! use ascendcl::Stream;
//! let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let a = DeviceTensor::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
//! let b = DeviceTensor::from_host(&ctx, &[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2])?;
//! let mut c = DeviceTensor::<f32>::zeros(&ctx, &[2, 2])?;
//! ops::mm(&a.view(), &b.view(), c.view_mut(), CubeMath::KeepDtype)?
//!     .launch(&stream, Workspace::none())?
//!     .wait()?;
//! assert_eq!(c.to_vec()?, vec![4.0, 5.0, 10.0, 11.0]);
//! assert_eq!(c.to_string(), "DeviceTensor(F32, [2, 2]) [[4.0, 5.0], [10.0, 11.0]]");
//! assert_eq!(a.t()?.shape(), vec![3, 2]); // a transposed view, no copy
//! # Ok::<(), ascendcl::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use crate::alloc::{Block, CachingAllocator};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, DeviceSliceMut};
use crate::ops::dtype::{DType, Element};
use crate::ops::tensor::{Layout, Storage, Tensor, TensorMut};
use crate::stream::Stream;

/// Tensors with at most this many elements show their values in `Display`
/// and `Debug` (reading them waits for queued writes).
pub const SHOWN_ELEMENTS: usize = 64;

/// Device memory with a shape and a dtype: a [`DeviceBuffer`] by default,
/// or an allocator [`Block`] (or any other owned device memory).
pub struct DeviceTensor<T: Element, M: DeviceSliceMut<T> = DeviceBuffer<T>> {
    mem: M,
    layout: Layout,
    _element: PhantomData<T>,
}

impl<T: Element> DeviceTensor<T> {
    /// A tensor of `shape` filled with zero bytes.
    pub fn zeros(ctx: &Context, shape: &[usize]) -> Result<Self> {
        let n = numel(shape)?;
        DeviceTensor::new(DeviceBuffer::zeroed(ctx, n)?, shape)
    }

    /// A tensor of `shape` holding `data` (row-major), copied synchronously.
    pub fn from_host(ctx: &Context, data: &[T], shape: &[usize]) -> Result<Self> {
        let n = numel(shape)?;
        if data.len() != n {
            return Err(Error::invalid(format!(
                "{} values for a tensor of shape {shape:?} ({n} elements)",
                data.len()
            )));
        }
        DeviceTensor::new(DeviceBuffer::from_host(ctx, data)?, shape)
    }
}

impl<T: Element> DeviceTensor<T, Block<T>> {
    /// A tensor of `shape` in a block of `allocator`, for use on `stream`
    /// (its contents are whatever the block held).
    pub fn alloc(allocator: &CachingAllocator, stream: &Stream, shape: &[usize]) -> Result<Self> {
        let n = numel(shape)?;
        DeviceTensor::new(allocator.alloc::<T>(stream, n)?, shape)
    }
}

fn numel(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::invalid(format!("the shape {shape:?} has too many elements")))
}

impl<T: Element, M: DeviceSliceMut<T>> DeviceTensor<T, M> {
    /// A contiguous tensor of `shape` over `mem`, which must hold exactly
    /// the shape's elements. Every rule of [`Tensor::new`] is checked here,
    /// once; the views need no check afterwards.
    pub fn new(mem: M, shape: &[usize]) -> Result<Self> {
        let n = numel(shape)?;
        if mem.len() != n {
            return Err(Error::invalid(format!(
                "memory of {} elements for a tensor of shape {shape:?} ({n} elements); \
                 use a view (Tensor::new) for part of a buffer",
                mem.len()
            )));
        }
        let layout = Tensor::new(&mem, shape)?.layout;
        Ok(DeviceTensor {
            mem,
            layout,
            _element: PhantomData,
        })
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// The shape.
    pub fn shape(&self) -> Vec<usize> {
        self.layout.shape.iter().map(|&d| d as usize).collect()
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.mem.len()
    }

    /// The memory.
    pub fn memory(&self) -> &M {
        &self.mem
    }

    /// The memory and the shape, taken apart.
    pub fn into_parts(self) -> (M, Vec<usize>) {
        let shape = self.shape();
        (self.mem, shape)
    }

    fn storage(&self) -> Storage<'_> {
        let parts = self.mem.raw_parts();
        Storage {
            ptr: parts.ptr,
            len: parts.len,
            ctx: parts.ctx,
            tracker: parts.tracker,
        }
    }

    /// A read-only view of the whole tensor (no check, no FFI call).
    pub fn view(&self) -> Tensor<'_> {
        Tensor {
            storage: self.storage(),
            dtype: T::DTYPE,
            layout: self.layout.clone(),
        }
    }

    /// A writable view of the whole tensor (no check, no FFI call).
    pub fn view_mut(&mut self) -> TensorMut<'_> {
        TensorMut::from_checked(self.storage(), T::DTYPE, self.layout.clone())
    }

    /// A read-only view with another shape of the same element count.
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor<'_>> {
        self.check_reshape(shape)?;
        Tensor::new(&self.mem, shape)
    }

    /// A writable view with another shape of the same element count.
    pub fn reshape_mut(&mut self, shape: &[usize]) -> Result<TensorMut<'_>> {
        self.check_reshape(shape)?;
        TensorMut::new(&mut self.mem, shape)
    }

    fn check_reshape(&self, shape: &[usize]) -> Result<()> {
        let n = numel(shape)?;
        if n != self.numel() {
            return Err(Error::invalid(format!(
                "cannot view a tensor of shape {:?} ({} elements) as {shape:?} ({n} elements)",
                self.shape(),
                self.numel()
            )));
        }
        Ok(())
    }

    /// The 2-D tensor transposed, as a view (no copy).
    pub fn t(&self) -> Result<Tensor<'_>> {
        self.view().t()
    }

    /// The values, row-major, after any queued write (waits).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.mem.to_vec()
    }
}

/// Writes `values` nested as `shape` (`[[1, 2], [3, 4]]`).
fn nested<T: fmt::Debug>(f: &mut fmt::Formatter<'_>, values: &[T], shape: &[usize]) -> fmt::Result {
    match shape.split_first() {
        None => write!(f, "{:?}", values[0]),
        Some((&n, rest)) => {
            let step = rest.iter().product::<usize>();
            write!(f, "[")?;
            for i in 0..n {
                if i > 0 {
                    write!(f, ", ")?;
                }
                nested(f, &values[i * step..(i + 1) * step], rest)?;
            }
            write!(f, "]")
        }
    }
}

impl<T: Element + fmt::Debug, M: DeviceSliceMut<T>> DeviceTensor<T, M> {
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.shape();
        write!(f, "DeviceTensor({:?}, {shape:?})", T::DTYPE)?;
        if self.numel() == 0 || self.numel() > SHOWN_ELEMENTS {
            return Ok(());
        }
        match self.to_vec() {
            Ok(values) => {
                write!(f, " ")?;
                nested(f, &values, &shape)
            }
            Err(error) => write!(f, " <values unavailable: {error}>"),
        }
    }
}

/// Shape and dtype, and for tensors of at most [`SHOWN_ELEMENTS`] elements
/// the values (read after a wait for queued writes; an error reading them is
/// shown in their place).
impl<T: Element + fmt::Debug, M: DeviceSliceMut<T>> fmt::Display for DeviceTensor<T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f)
    }
}

/// As `Display`.
impl<T: Element + fmt::Debug, M: DeviceSliceMut<T>> fmt::Debug for DeviceTensor<T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f)
    }
}
