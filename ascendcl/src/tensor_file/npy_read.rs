//! Reading NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! Layout: the magic `\x93NUMPY`, a major and a minor version byte, the
//! header length (`u16` little-endian in 1.0, `u32` in 2.0 and 3.0), the
//! header (a Python dict literal, Latin-1 in 1.0/2.0, UTF-8 in 3.0), then the
//! data. Every length is checked against the file's length before anything
//! is allocated, and the data must be exactly `product(shape) × itemsize`
//! bytes.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::decode::decode;
use super::error::{TensorFileError, TensorFileResult};
use super::npy_header::{Descr, parse_header};
use super::tensor::{Tensor, Values, element_count};

/// The six bytes every `.npy` file starts with.
pub const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Longest header accepted, in bytes (NumPy itself refuses more than
/// 10 000 by default). Longer headers are a [`TensorFileError::BadNpyHeader`].
pub const MAX_NPY_HEADER_LEN: usize = 1 << 20;

/// Reads a `.npy` file.
///
/// Accepted dtypes (any byte order: `<` little, `>` big, `|`/`=` native):
/// `f2`, `f4`, `f8`, `i1`, `i2`, `i4`, `i8`, `u1`, `u2`, `u4`, `u8`, `b1`.
/// `fortran_order: True` files are transposed into C order, so the result
/// is always indexed like the array NumPy would return.
///
/// # Errors
/// [`TensorFileError::Io`] (with the path) if the file cannot be read,
/// [`TensorFileError::BadNpyHeader`], [`TensorFileError::UnsupportedDtype`],
/// [`TensorFileError::ShapeOverflow`] or [`TensorFileError::SizeMismatch`] if
/// its contents are not a readable `.npy` array.
pub fn read_npy(path: impl AsRef<Path>) -> TensorFileResult<Tensor> {
    let path = path.as_ref();
    let io = |source| TensorFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    read_from(&mut BufReader::new(file), len, &path.display().to_string())
}

/// Parses the bytes of a `.npy` file (see [`read_npy`]). Errors name the
/// origin `"<bytes>"`.
pub fn parse_npy(bytes: &[u8]) -> TensorFileResult<Tensor> {
    let mut reader = bytes;
    read_from(&mut reader, bytes.len() as u64, "<bytes>")
}

/// Whether `path` should be read as `.npy`: it starts with [`NPY_MAGIC`], or
/// it is named `*.npy` (a `.npy` file without the magic is then reported as
/// a bad header instead of being misread as raw data).
///
/// # Errors
/// [`TensorFileError::Io`] if the file cannot be opened or read.
pub fn is_npy_file(path: impl AsRef<Path>) -> TensorFileResult<bool> {
    let path = path.as_ref();
    let by_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let io = |source| TensorFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut start = Vec::with_capacity(NPY_MAGIC.len());
    File::open(path)
        .map_err(io)?
        .take(NPY_MAGIC.len() as u64)
        .read_to_end(&mut start)
        .map_err(io)?;
    Ok(by_name || start == NPY_MAGIC)
}

fn bad(origin: &str, reason: impl Into<String>) -> TensorFileError {
    TensorFileError::BadNpyHeader {
        origin: origin.to_owned(),
        reason: reason.into(),
    }
}

/// Reads a `.npy` stream of `total_len` bytes.
fn read_from<R: Read>(reader: &mut R, total_len: u64, origin: &str) -> TensorFileResult<Tensor> {
    let io = |source| TensorFileError::Io {
        path: origin.into(),
        source,
    };
    // Magic and version.
    if total_len < 10 {
        return Err(bad(
            origin,
            format!("the file is {total_len} bytes, shorter than the 10-byte .npy preamble"),
        ));
    }
    let mut preamble = [0u8; 8];
    reader.read_exact(&mut preamble).map_err(io)?;
    let [m0, m1, m2, m3, m4, m5, major, minor] = preamble;
    if [m0, m1, m2, m3, m4, m5] != *NPY_MAGIC {
        return Err(bad(
            origin,
            format!(
                "it does not start with the \\x93NUMPY magic (first bytes: {:02x?})",
                [m0, m1, m2, m3, m4, m5]
            ),
        ));
    }
    let header_len = match (major, minor) {
        (1, 0) => {
            let mut b = [0u8; 2];
            reader.read_exact(&mut b).map_err(io)?;
            u64::from(u16::from_le_bytes(b))
        }
        (2 | 3, 0) => {
            if total_len < 12 {
                return Err(bad(origin, "the file ends inside the header length"));
            }
            let mut b = [0u8; 4];
            reader.read_exact(&mut b).map_err(io)?;
            u64::from(u32::from_le_bytes(b))
        }
        _ => {
            return Err(bad(
                origin,
                format!("format version {major}.{minor} is not one of 1.0, 2.0, 3.0"),
            ));
        }
    };
    let preamble_len: u64 = if major == 1 { 10 } else { 12 };

    // Header.
    let after_preamble = total_len - preamble_len;
    if header_len > after_preamble {
        return Err(bad(
            origin,
            format!(
                "the header claims {header_len} bytes but only {after_preamble} follow (truncated file?)"
            ),
        ));
    }
    let header_len_usize = usize::try_from(header_len)
        .ok()
        .filter(|&n| n <= MAX_NPY_HEADER_LEN)
        .ok_or_else(|| {
            bad(
                origin,
                format!(
                    "the header is {header_len} bytes, more than the {MAX_NPY_HEADER_LEN} accepted"
                ),
            )
        })?;
    let mut header_bytes = vec![0u8; header_len_usize];
    reader.read_exact(&mut header_bytes).map_err(io)?;
    let text = if major == 3 {
        String::from_utf8(header_bytes).map_err(|_| bad(origin, "the header is not UTF-8"))?
    } else {
        // Latin-1: every byte is the code point of the same value.
        header_bytes.iter().map(|&b| char::from(b)).collect()
    };
    let header = parse_header(&text).map_err(|reason| {
        // Quote at most the start of the header: it may be long garbage.
        let shown: String = text.trim_end().chars().take(120).collect();
        let more = if shown.len() < text.trim_end().len() {
            "..."
        } else {
            ""
        };
        bad(origin, format!("{reason} in header {shown:?}{more}"))
    })?;
    let (dtype, order) = match header.descr {
        Descr::Simple(dtype, order) => (dtype, order),
        Descr::Unsupported(dtype) => {
            return Err(TensorFileError::UnsupportedDtype {
                origin: origin.to_owned(),
                dtype,
            });
        }
    };

    // Data: exactly product(shape) × itemsize bytes, checked before allocating.
    let shape = header.shape;
    let overflow = || TensorFileError::ShapeOverflow {
        origin: origin.to_owned(),
        shape: shape.clone(),
    };
    let count = element_count(&shape).ok_or_else(overflow)?;
    let expected_bytes = count
        .checked_mul(dtype.size())
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(overflow)?;
    let actual_bytes = after_preamble - header_len;
    if expected_bytes != actual_bytes {
        return Err(TensorFileError::SizeMismatch {
            origin: origin.to_owned(),
            dtype,
            shape,
            expected_bytes,
            actual_bytes,
        });
    }
    let mut values = decode(reader, dtype, order, count, origin)?;
    if header.fortran_order && shape.len() > 1 {
        values = match values {
            Values::F32(v) => Values::F32(fortran_to_c(&v, &shape)),
            Values::F64(v) => Values::F64(fortran_to_c(&v, &shape)),
        };
    }
    Tensor::new(dtype, shape, values)
}

/// Reorders values stored in Fortran (column-major) order into C order.
fn fortran_to_c<T: Copy + Default>(src: &[T], shape: &[usize]) -> Vec<T> {
    // Fortran strides: the first axis is contiguous.
    let mut strides = Vec::with_capacity(shape.len());
    let mut stride = 1usize;
    for &dim in shape {
        strides.push(stride);
        stride = stride.saturating_mul(dim);
    }
    let mut index = vec![0usize; shape.len()];
    let mut out = Vec::with_capacity(src.len());
    for _ in 0..src.len() {
        let offset: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.push(src.get(offset).copied().unwrap_or_default());
        // Next C-order index: the last axis moves fastest.
        for (i, &dim) in index.iter_mut().zip(shape).rev() {
            *i += 1;
            if *i < dim {
                break;
            }
            *i = 0;
        }
    }
    out
}

/// The dtypes [`read_npy`] accepts, as NumPy type codes.
pub const NPY_DTYPES: &[&str] = &[
    "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1",
];
