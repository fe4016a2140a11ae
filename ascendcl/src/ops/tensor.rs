//! Tensor views over device memory, for operators.

use std::ffi::c_void;
use std::marker::PhantomData;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::few::Few;
use crate::memory::{DeviceCopy, DeviceSlice, DeviceSliceMut};
use crate::ops::dtype::{DType, Element};
use crate::tracker::UseTracker;

/// The most dimensions an aclnn tensor may have.
pub const MAX_DIMS: usize = 8;

/// Device addresses handed to aclnn must be aligned to this many bytes
/// (the `tensorData` rule of `aclCreateTensor`).
pub const ADDRESS_ALIGNMENT: usize = 32;

/// The memory under a view: its base address, how many `dtype` elements it
/// holds, and its bookkeeping.
#[derive(Clone, Copy)]
pub(crate) struct Storage<'a> {
    pub(crate) ptr: *mut c_void,
    pub(crate) len: usize,
    pub(crate) ctx: &'a Context,
    pub(crate) tracker: &'a UseTracker,
}

/// Up to [`MAX_DIMS`] extents or strides, inline: a view is built on every
/// operator call, and its layout costs no heap allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dims {
    len: u8,
    values: [i64; MAX_DIMS],
}

impl Dims {
    /// No dimension.
    pub(crate) const EMPTY: Dims = Dims {
        len: 0,
        values: [0; MAX_DIMS],
    };

    /// Appends `value`; the caller has checked that fewer than
    /// [`MAX_DIMS`] are there.
    #[inline]
    fn push(&mut self, value: i64) {
        self.values[self.len as usize] = value;
        self.len += 1;
    }

    /// `values`, which the caller has checked to be at most [`MAX_DIMS`].
    pub(crate) fn from_slice(values: &[i64]) -> Dims {
        let mut dims = Dims {
            len: 0,
            values: [0; MAX_DIMS],
        };
        for &v in values.iter().take(MAX_DIMS) {
            dims.values[dims.len as usize] = v;
            dims.len += 1;
        }
        dims
    }
}

impl FromIterator<i64> for Dims {
    /// Keeps the first [`MAX_DIMS`] values (callers check the count first).
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Dims {
        let mut dims = Dims::from_slice(&[]);
        for v in iter.into_iter().take(MAX_DIMS) {
            dims.values[dims.len as usize] = v;
            dims.len += 1;
        }
        dims
    }
}

impl std::ops::Deref for Dims {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.values[..self.len as usize]
    }
}

impl std::ops::DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [i64] {
        &mut self.values[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a Dims {
    type Item = &'a i64;
    type IntoIter = std::slice::Iter<'a, i64>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Shape, element strides and element offset of a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) shape: Dims,
    pub(crate) strides: Dims,
    pub(crate) offset: i64,
}

/// Row-major strides of `shape` (inline up to eight dimensions: no heap
/// allocation for a view's layout).
fn contiguous_strides(shape: &[usize]) -> Few<usize> {
    let mut strides: Few<usize> = shape.iter().map(|_| 1).collect();
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    strides
}

fn to_i64(what: &str, v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::invalid(format!("{what} {v} does not fit in int64")))
}

/// Checks a view against its storage before any FFI call.
fn layout(
    storage: &Storage<'_>,
    dtype: DType,
    shape: &[usize],
    strides: &[usize],
    offset: usize,
) -> Result<Layout> {
    if shape.len() > MAX_DIMS {
        return Err(Error::invalid(format!(
            "a tensor may have at most {MAX_DIMS} dimensions, not {}",
            shape.len()
        )));
    }
    if strides.len() != shape.len() {
        return Err(Error::invalid(format!(
            "{} strides for {} dimensions",
            strides.len(),
            shape.len()
        )));
    }
    let addr = storage.ptr as usize;
    if addr % ADDRESS_ALIGNMENT != 0 {
        return Err(Error::invalid(format!(
            "tensor memory at {addr:#x} is not {ADDRESS_ALIGNMENT}-byte aligned, as aclnn requires; \
             build the view over the whole buffer with an element offset instead of over a slice"
        )));
    }
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if count.is_none_or(|n| n > i64::MAX as usize) {
        return Err(Error::invalid(format!(
            "a view of shape {shape:?} has more elements than int64 can count"
        )));
    }
    let empty = shape.contains(&0);
    if !empty {
        // The last element the view reaches, with checked arithmetic.
        let mut last = offset;
        for (&extent, &stride) in shape.iter().zip(strides) {
            last = (extent - 1)
                .checked_mul(stride)
                .and_then(|step| last.checked_add(step))
                .ok_or_else(|| Error::invalid("tensor view extent overflows"))?;
        }
        if last >= storage.len {
            return Err(Error::invalid(format!(
                "a view of shape {shape:?}, strides {strides:?} and offset {offset} reaches element {last}, \
                 but the memory holds {} elements of {dtype:?}",
                storage.len
            )));
        }
    }
    let mut layout = Layout {
        shape: Dims::EMPTY,
        strides: Dims::EMPTY,
        offset: 0,
    };
    // At most MAX_DIMS of each (checked above).
    for &d in shape {
        layout.shape.push(to_i64("dimension", d)?);
    }
    for &s in strides {
        layout.strides.push(to_i64("stride", s)?);
    }
    layout.offset = to_i64("offset", offset)?;
    Ok(layout)
}

/// Storage of `mem` counted in `dtype` elements.
fn storage_of<'a, T: DeviceCopy, S: DeviceSlice<T> + ?Sized>(
    mem: &'a S,
    dtype: DType,
) -> Result<Storage<'a>> {
    let parts = mem.raw_parts();
    let bytes = parts.len * std::mem::size_of::<T>();
    if bytes % dtype.size() != 0 {
        return Err(Error::invalid(format!(
            "{bytes} bytes of memory do not hold whole {dtype:?} elements"
        )));
    }
    Ok(Storage {
        ptr: parts.ptr,
        len: bytes / dtype.size(),
        ctx: parts.ctx,
        tracker: parts.tracker,
    })
}

macro_rules! view_common {
    () => {
        /// The element type.
        pub fn dtype(&self) -> DType {
            self.dtype
        }

        /// The shape.
        pub fn shape(&self) -> Vec<usize> {
            self.layout.shape.iter().map(|&d| d as usize).collect()
        }

        /// Element strides.
        pub fn strides(&self) -> Vec<usize> {
            self.layout.strides.iter().map(|&s| s as usize).collect()
        }

        /// Element offset into the memory.
        pub fn offset(&self) -> usize {
            self.layout.offset as usize
        }

        /// Number of elements.
        pub fn numel(&self) -> usize {
            self.layout.shape.iter().map(|&d| d as usize).product()
        }

        /// Whether the view is row-major contiguous.
        pub fn is_contiguous(&self) -> bool {
            let shape = self.shape();
            contiguous_strides(&shape)
                .iter()
                .zip(&shape)
                .zip(self.strides())
                .all(|((&want, &extent), have)| extent <= 1 || want == have)
        }

        /// The context (device) of the memory.
        pub fn context(&self) -> &Context {
            self.storage.ctx
        }

        /// This view with dimensions `a` and `b` swapped (no copy).
        pub fn transpose(mut self, a: usize, b: usize) -> Result<Self> {
            let dims = self.layout.shape.len();
            if a >= dims || b >= dims {
                return Err(Error::invalid(format!(
                    "cannot transpose dimensions {a} and {b} of a {dims}-dimensional tensor"
                )));
            }
            self.layout.shape.swap(a, b);
            self.layout.strides.swap(a, b);
            Ok(self)
        }

        /// This 2-D view transposed (no copy).
        pub fn t(self) -> Result<Self> {
            if self.layout.shape.len() != 2 {
                return Err(Error::invalid(format!(
                    "t() needs a 2-D tensor, not {}-D",
                    self.layout.shape.len()
                )));
            }
            self.transpose(0, 1)
        }
    };
}

/// A read-only tensor view of device memory: shape, element strides, offset
/// and dtype over a [`DeviceBuffer`](crate::DeviceBuffer), an allocator
/// [`Block`](crate::alloc::Block), a [`Mapping`](crate::vmm::Mapping) or a
/// view of one. It borrows the memory; an operator reading it keeps it
/// borrowed until the launch is waited on.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::Tensor;
/// # let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let w = ascendcl::DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let view = Tensor::new(&w, &[2, 3])?;
/// let wt = view.clone().t()?; // 3x2, strides [1, 3]: no copy
/// assert_eq!(wt.shape(), vec![3, 2]);
/// assert!(!wt.is_contiguous());
/// assert!(Tensor::new(&w, &[4, 2]).is_err()); // 8 elements do not fit: an error before FFI
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[derive(Clone)]
pub struct Tensor<'a> {
    pub(crate) storage: Storage<'a>,
    pub(crate) dtype: DType,
    pub(crate) layout: Layout,
}

impl<'a> Tensor<'a> {
    /// A contiguous row-major view of `shape` at the start of `mem`.
    ///
    /// The four constructors take their arguments in one order: the memory,
    /// the shape, then what the variant adds (strides and offset for
    /// [`strided`](Tensor::strided), the dtype last for
    /// [`with_dtype`](Tensor::with_dtype) and [`strided_as`](Tensor::strided_as)).
    pub fn new<T: Element, S: DeviceSlice<T> + ?Sized>(
        mem: &'a S,
        shape: &[usize],
    ) -> Result<Tensor<'a>> {
        Self::strided_as(mem, shape, &contiguous_strides(shape), 0, T::DTYPE)
    }

    /// A contiguous view of `mem` read as `dtype` (e.g. bf16 in `u16`
    /// storage): the bytes must hold whole elements.
    pub fn with_dtype<T: DeviceCopy, S: DeviceSlice<T> + ?Sized>(
        mem: &'a S,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Tensor<'a>> {
        Self::strided_as(mem, shape, &contiguous_strides(shape), 0, dtype)
    }

    /// A strided view: element `strides` and element `offset` into `mem`.
    pub fn strided<T: Element, S: DeviceSlice<T> + ?Sized>(
        mem: &'a S,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
    ) -> Result<Tensor<'a>> {
        Self::strided_as(mem, shape, strides, offset, T::DTYPE)
    }

    /// A contiguous view of `shape` over `storage` (memory a capture holds),
    /// checked as [`Tensor::new`] checks.
    pub(crate) fn over(storage: Storage<'a>, shape: &[usize], dtype: DType) -> Result<Tensor<'a>> {
        let layout = layout(&storage, dtype, shape, &contiguous_strides(shape), 0)?;
        Ok(Tensor {
            storage,
            dtype,
            layout,
        })
    }

    /// [`Tensor::strided`] with an explicit dtype.
    pub fn strided_as<T: DeviceCopy, S: DeviceSlice<T> + ?Sized>(
        mem: &'a S,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        dtype: DType,
    ) -> Result<Tensor<'a>> {
        let storage = storage_of(mem, dtype)?;
        let layout = layout(&storage, dtype, shape, strides, offset)?;
        Ok(Tensor {
            storage,
            dtype,
            layout,
        })
    }

    view_common!();
}

/// A writable tensor view: like [`Tensor`], over memory borrowed mutably, so
/// nothing else can read or write it while an operator that writes it is
/// queued (until the launch is waited on). Strides that make two indices
/// reach one element (a stride-0 or overlapping view) are refused.
pub struct TensorMut<'a> {
    pub(crate) storage: Storage<'a>,
    pub(crate) dtype: DType,
    pub(crate) layout: Layout,
    _unique: PhantomData<&'a mut ()>,
}

impl<'a> TensorMut<'a> {
    /// A contiguous row-major view of `shape` at the start of `mem` (the
    /// arguments in [`Tensor::new`]'s order, for all four constructors).
    pub fn new<T: Element, S: DeviceSliceMut<T> + ?Sized>(
        mem: &'a mut S,
        shape: &[usize],
    ) -> Result<TensorMut<'a>> {
        Self::strided_as(mem, shape, &contiguous_strides(shape), 0, T::DTYPE)
    }

    /// A view whose layout was checked when its owner was built
    /// ([`DeviceTensor`](crate::ops::DeviceTensor)): unique by the owner's
    /// `&mut` borrow.
    pub(crate) fn from_checked(storage: Storage<'a>, dtype: DType, layout: Layout) -> Self {
        TensorMut {
            storage,
            dtype,
            layout,
            _unique: PhantomData,
        }
    }

    /// A contiguous writable view of `shape` over `storage` (memory a
    /// capture holds exclusively), checked as [`TensorMut::new`] checks.
    pub(crate) fn over(storage: Storage<'a>, shape: &[usize], dtype: DType) -> Result<Self> {
        let layout = layout(&storage, dtype, shape, &contiguous_strides(shape), 0)?;
        super::overlap::check_output(&layout)?;
        Ok(TensorMut::from_checked(storage, dtype, layout))
    }

    /// A contiguous view of `mem` written as `dtype`.
    pub fn with_dtype<T: DeviceCopy, S: DeviceSliceMut<T> + ?Sized>(
        mem: &'a mut S,
        shape: &[usize],
        dtype: DType,
    ) -> Result<TensorMut<'a>> {
        Self::strided_as(mem, shape, &contiguous_strides(shape), 0, dtype)
    }

    /// A strided writable view.
    pub fn strided<T: Element, S: DeviceSliceMut<T> + ?Sized>(
        mem: &'a mut S,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
    ) -> Result<TensorMut<'a>> {
        Self::strided_as(mem, shape, strides, offset, T::DTYPE)
    }

    /// [`TensorMut::strided`] with an explicit dtype.
    pub fn strided_as<T: DeviceCopy, S: DeviceSliceMut<T> + ?Sized>(
        mem: &'a mut S,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        dtype: DType,
    ) -> Result<TensorMut<'a>> {
        let storage = storage_of(&*mem, dtype)?;
        let layout = layout(&storage, dtype, shape, strides, offset)?;
        super::overlap::check_output(&layout)?;
        Ok(TensorMut {
            storage,
            dtype,
            layout,
            _unique: PhantomData,
        })
    }

    view_common!();

    /// This view again, for the length of a `&mut` borrow of it (a
    /// composite step launching several operators on one tensor).
    pub(crate) fn reborrow(&mut self) -> TensorMut<'_> {
        TensorMut::from_checked(self.storage, self.dtype, self.layout.clone())
    }

    /// This view read-only, for the length of a shared borrow of it.
    pub(crate) fn as_tensor(&self) -> Tensor<'_> {
        Tensor {
            storage: self.storage,
            dtype: self.dtype,
            layout: self.layout.clone(),
        }
    }
}

impl std::fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.layout.shape)
            .field("strides", &self.layout.strides)
            .field("offset", &self.layout.offset)
            .finish()
    }
}

impl std::fmt::Debug for TensorMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorMut")
            .field("dtype", &self.dtype)
            .field("shape", &self.layout.shape)
            .field("strides", &self.layout.strides)
            .field("offset", &self.layout.offset)
            .finish()
    }
}

// SAFETY: a view is a device address plus shared references to thread-safe
// bookkeeping (the context and the tracker are Sync).
unsafe impl Send for Tensor<'_> {}
// SAFETY: as above; nothing is mutated through `&Tensor`.
unsafe impl Sync for Tensor<'_> {}
// SAFETY: as above; the mutable view is unique by its `&mut` borrow.
unsafe impl Send for TensorMut<'_> {}
// SAFETY: as above.
unsafe impl Sync for TensorMut<'_> {}
