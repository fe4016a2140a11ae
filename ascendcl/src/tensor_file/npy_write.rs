//! Writing NumPy `.npy` files, as `numpy.save` does: format version 1.0 (2.0
//! only for a header longer than 65 535 bytes), little-endian elements, C
//! order, the header padded with spaces and a newline so that the data
//! starts at a multiple of 64 bytes.
//!
//! Dtypes: `float16` (`<f2`), `float32` (`<f4`), `float64` (`<f8`), the
//! integers (`|i1`, `<i2`, `<i4`, `<i8`, `|u1`, `<u2`, `<u4`, `<u8`) and
//! `bool` (`|b1`). NumPy has no bfloat16: a `bfloat16` tensor is written as
//! `float32` (`<f4`), which holds every bfloat16 value exactly, and reads
//! back as a `float32` tensor of the same values.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::dtype::DType;
use super::error::{TensorFileError, TensorFileResult};
use super::half::f32_to_f16_bits;
use super::npy_read::NPY_MAGIC;
use super::tensor::{Tensor, element_count};

/// Writes `tensor` to `path` as a `.npy` file in the tensor's dtype (a
/// `bfloat16` tensor as `float32`; see the [module](super) docs). `float16`
/// values that are not exact `float16` values round to the nearest.
///
/// # Errors
/// [`TensorFileError::Unrepresentable`] (before the file is created) if an
/// integer or bool tensor holds a value that is not of its type (a fraction,
/// NaN, out of range; bool takes 0 and 1), [`TensorFileError::Write`] if the
/// file cannot be written (a partly written file is removed).
pub fn write_npy(path: impl AsRef<Path>, tensor: &Tensor) -> TensorFileResult<()> {
    check_representable(tensor)?;
    let (dtype, shape) = (tensor.dtype(), tensor.shape());
    write_file(path.as_ref(), |w| {
        w.write_all(&header(descr(dtype), shape))?;
        encode_tensor(tensor, w)
    })
}

/// The bytes [`write_npy`] writes for `tensor`.
///
/// # Errors
/// [`TensorFileError::Unrepresentable`] as for [`write_npy`].
pub fn to_npy_bytes(tensor: &Tensor) -> TensorFileResult<Vec<u8>> {
    check_representable(tensor)?;
    let mut out = header(descr(tensor.dtype()), tensor.shape());
    out.reserve(tensor.len().saturating_mul(stored_size(tensor.dtype())));
    encode_tensor(tensor, &mut out).map_err(|e| TensorFileError::InvalidArgument(e.to_string()))?;
    Ok(out)
}

/// Writes `values` (C order) of shape `shape` to `path` as a `.npy` file of
/// `T`'s dtype, exactly (also `i64`/`u64` beyond 2^53, which a [`Tensor`]
/// keeps as `f64`).
///
/// ```
/// use ascendcl::tensor_file::{self, DType};
/// let path = std::env::temp_dir().join(format!("npy-doc-{}.npy", std::process::id()));
/// tensor_file::write_npy_slice(&path, &[2, 3], &[1i64, -2, 3, 4, 5, i64::MAX])?;
/// let back = tensor_file::read_npy(&path)?;
/// std::fs::remove_file(&path)?;
/// assert_eq!((back.dtype(), back.shape()), (DType::I64, &[2, 3][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`TensorFileError::InvalidArgument`] if `values.len()` is not the
/// product of `shape`, [`TensorFileError::Write`] if the file cannot be
/// written (a partly written file is removed).
pub fn write_npy_slice<T: NpyElement>(
    path: impl AsRef<Path>,
    shape: &[usize],
    values: &[T],
) -> TensorFileResult<()> {
    check_count(shape, values.len())?;
    write_file(path.as_ref(), |w| {
        w.write_all(&header(descr(T::DTYPE), shape))?;
        encode_slice(values, w)
    })
}

/// The bytes [`write_npy_slice`] writes.
///
/// # Errors
/// [`TensorFileError::InvalidArgument`] if `values.len()` is not the
/// product of `shape`.
pub fn slice_to_npy_bytes<T: NpyElement>(
    shape: &[usize],
    values: &[T],
) -> TensorFileResult<Vec<u8>> {
    check_count(shape, values.len())?;
    let mut out = header(descr(T::DTYPE), shape);
    out.reserve(values.len().saturating_mul(stored_size(T::DTYPE)));
    encode_slice(values, &mut out).map_err(|e| TensorFileError::InvalidArgument(e.to_string()))?;
    Ok(out)
}

mod sealed {
    pub trait Sealed {}
}

/// An element type [`write_npy_slice`] writes: `f32`, `f64`, `i8`–`i64`,
/// `u8`–`u64`, `bool`, and with the `half` feature `half::f16` and
/// `half::bf16` (the latter as `float32`). Sealed: the set is the `.npy`
/// dtypes this module writes.
pub trait NpyElement: Copy + sealed::Sealed {
    /// The dtype it is written as.
    const DTYPE: DType;
    /// Appends its little-endian bytes as stored in the file.
    #[doc(hidden)]
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! npy_element {
    ($($t:ty => $dtype:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl NpyElement for $t {
            const DTYPE: DType = DType::$dtype;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

npy_element!(
    f32 => F32, f64 => F64,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
);

impl sealed::Sealed for bool {}
impl NpyElement for bool {
    const DTYPE: DType = DType::Bool;
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

#[cfg(feature = "half")]
impl sealed::Sealed for half::f16 {}
#[cfg(feature = "half")]
impl NpyElement for half::f16 {
    const DTYPE: DType = DType::F16;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
}

#[cfg(feature = "half")]
impl sealed::Sealed for half::bf16 {}
#[cfg(feature = "half")]
impl NpyElement for half::bf16 {
    const DTYPE: DType = DType::BF16;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_f32().to_le_bytes());
    }
}

/// The `descr` of `dtype` (bfloat16 is written as float32).
fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "|b1",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::BF16 | DType::F32 => "<f4",
        DType::F64 => "<f8",
    }
}

/// Bytes per element in the file.
fn stored_size(dtype: DType) -> usize {
    match dtype {
        DType::BF16 => 4,
        other => other.size(),
    }
}

/// The preamble and the padded header: version 1.0, or 2.0 when the header
/// does not fit its 16-bit length.
fn header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let (version, preamble) = if dict.len() + 1 + 10 <= usize::from(u16::MAX) {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let mut text = dict.into_bytes();
    while (preamble + text.len() + 1) % 64 != 0 {
        text.push(b' ');
    }
    text.push(b'\n');
    let mut out = Vec::with_capacity(preamble + text.len());
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(&text);
    out
}

fn check_count(shape: &[usize], len: usize) -> TensorFileResult<()> {
    match element_count(shape) {
        Some(count) if count == len => Ok(()),
        Some(count) => Err(TensorFileError::InvalidArgument(format!(
            "shape {shape:?} has {count} elements but {len} values were given"
        ))),
        None => Err(TensorFileError::ShapeOverflow {
            origin: "write_npy_slice".to_owned(),
            shape: shape.to_vec(),
        }),
    }
}

/// Integer and bool tensors: every value must be one of the type.
fn check_representable(tensor: &Tensor) -> TensorFileResult<()> {
    let dtype = tensor.dtype();
    let range = match dtype {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => return Ok(()),
        DType::Bool => (0.0, 1.0),
        DType::U8 => (0.0, f64::from(u8::MAX)),
        DType::U16 => (0.0, f64::from(u16::MAX)),
        DType::U32 => (0.0, f64::from(u32::MAX)),
        // 2^64 - 1 is not an f64: the largest below 2^64 is.
        DType::U64 => (0.0, 2f64.powi(64) - 2048.0),
        DType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        DType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX)),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        DType::I64 => (-(2f64.powi(63)), 2f64.powi(63) - 1024.0),
    };
    let fits = |x: f64| x.fract() == 0.0 && x >= range.0 && x <= range.1;
    let first_bad = (0..tensor.len()).find_map(|i| {
        let x = tensor.get(i).unwrap_or(f64::NAN);
        (!fits(x)).then_some((i, x))
    });
    match first_bad {
        Some((index, value)) => Err(TensorFileError::Unrepresentable {
            dtype,
            index,
            value,
        }),
        None => Ok(()),
    }
}

/// Elements encoded per write.
const CHUNK: usize = 1 << 14;

/// Writes the values of `tensor` (checked by [`check_representable`]).
fn encode_tensor<W: Write>(tensor: &Tensor, w: &mut W) -> io::Result<()> {
    let dtype = tensor.dtype();
    let mut buf = Vec::with_capacity(CHUNK * 8);
    let mut start = 0;
    while start < tensor.len() {
        let end = tensor.len().min(start + CHUNK);
        buf.clear();
        for i in start..end {
            let x = tensor.get(i).unwrap_or(f64::NAN);
            // The casts are exact: check_representable vetted integer values.
            match dtype {
                DType::Bool | DType::U8 => buf.push(x as u8),
                DType::I8 => buf.push(x as i8 as u8),
                DType::U16 => buf.extend_from_slice(&(x as u16).to_le_bytes()),
                DType::U32 => buf.extend_from_slice(&(x as u32).to_le_bytes()),
                DType::U64 => buf.extend_from_slice(&(x as u64).to_le_bytes()),
                DType::I16 => buf.extend_from_slice(&(x as i16).to_le_bytes()),
                DType::I32 => buf.extend_from_slice(&(x as i32).to_le_bytes()),
                DType::I64 => buf.extend_from_slice(&(x as i64).to_le_bytes()),
                DType::F16 => buf.extend_from_slice(&f32_to_f16_bits(x as f32).to_le_bytes()),
                DType::BF16 | DType::F32 => buf.extend_from_slice(&(x as f32).to_le_bytes()),
                DType::F64 => buf.extend_from_slice(&x.to_le_bytes()),
            }
        }
        w.write_all(&buf)?;
        start = end;
    }
    Ok(())
}

fn encode_slice<T: NpyElement, W: Write>(values: &[T], w: &mut W) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK * 8);
    for chunk in values.chunks(CHUNK) {
        buf.clear();
        for &v in chunk {
            v.put(&mut buf);
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

/// Creates `path` and runs `body` on it; on failure the partial file is removed.
fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> TensorFileResult<()> {
    let error = |source| TensorFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(error)?;
    let mut w = BufWriter::new(file);
    match body(&mut w).and_then(|()| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) => {
            drop(w);
            let _ = std::fs::remove_file(path);
            Err(error(e))
        }
    }
}
