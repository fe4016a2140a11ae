//! Reading raw little-endian tensor dumps (`tensor.numpy().tofile(path)`,
//! `aclrtMemcpy` to a host buffer written with `fwrite`, ...): no header,
//! so the caller gives the dtype and the shape.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use super::decode::{ByteOrder, decode};
use super::dtype::DType;
use super::error::{TensorFileError, TensorFileResult};
use super::tensor::{Tensor, element_count};

/// Reads a raw little-endian file of `dtype` elements in C order.
///
/// Intended for `f32`, `f16`, `bf16` and `f64` dumps; the integer and bool
/// dtypes are read the same way. The file must hold exactly
/// `product(shape) × dtype.size()` bytes (the length is checked before
/// anything is allocated). An empty `shape` is a scalar.
///
/// # Errors
/// [`TensorFileError::Io`] (with the path) if the file cannot be read,
/// [`TensorFileError::ShapeOverflow`] if the shape's product overflows,
/// [`TensorFileError::SizeMismatch`] if the file's length is not the product
/// of the shape times the dtype size.
pub fn read_raw(path: impl AsRef<Path>, dtype: DType, shape: &[usize]) -> TensorFileResult<Tensor> {
    let path = path.as_ref();
    let io = |source| TensorFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let origin = path.display().to_string();
    let count = check_len(len, dtype, shape, &origin)?;
    let values = decode(
        &mut BufReader::new(file),
        dtype,
        ByteOrder::Little,
        count,
        &origin,
    )?;
    Tensor::new(dtype, shape.to_vec(), values)
}

/// Parses raw little-endian bytes (see [`read_raw`]). Errors name the origin
/// `"<bytes>"`.
pub fn parse_raw(bytes: &[u8], dtype: DType, shape: &[usize]) -> TensorFileResult<Tensor> {
    let origin = "<bytes>";
    let count = check_len(bytes.len() as u64, dtype, shape, origin)?;
    let mut reader = bytes;
    let values = decode(&mut reader, dtype, ByteOrder::Little, count, origin)?;
    Tensor::new(dtype, shape.to_vec(), values)
}

/// The number of elements, once `actual_bytes` is known to be exactly
/// `product(shape) × dtype.size()`.
fn check_len(
    actual_bytes: u64,
    dtype: DType,
    shape: &[usize],
    origin: &str,
) -> TensorFileResult<usize> {
    let overflow = || TensorFileError::ShapeOverflow {
        origin: origin.to_owned(),
        shape: shape.to_vec(),
    };
    let count = element_count(shape).ok_or_else(overflow)?;
    let expected_bytes = count
        .checked_mul(dtype.size())
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(overflow)?;
    if expected_bytes != actual_bytes {
        return Err(TensorFileError::SizeMismatch {
            origin: origin.to_owned(),
            dtype,
            shape: shape.to_vec(),
            expected_bytes,
            actual_bytes,
        });
    }
    Ok(count)
}
