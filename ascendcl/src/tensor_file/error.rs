//! [`TensorFileError`]: everything that can go wrong while reading or
//! writing a tensor file. Each message says what to do next.

use std::io;
use std::path::PathBuf;

use super::dtype::DType;

/// A `Result` whose error is [`TensorFileError`].
pub type TensorFileResult<T> = std::result::Result<T, TensorFileError>;

/// Why a tensor file could not be read or written, or a [`Tensor`](super::Tensor)
/// not built.
///
/// `origin` fields name where the bytes came from: the file path, or
/// `"<bytes>"` for the in-memory parsers ([`parse_npy`](super::parse_npy),
/// [`parse_raw`](super::parse_raw)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TensorFileError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}; check that the path exists and is a readable file", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },

    /// The file could not be created or written (a partly written file is
    /// removed).
    #[error("cannot write {}: {source}; check that its directory exists, is writable and has space", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },

    /// The file is not a well-formed `.npy` file (magic, version, header).
    #[error(
        "{origin}: not a valid .npy file: {reason}; re-save it with numpy.save, \
         or read it as raw data with an explicit dtype and shape"
    )]
    BadNpyHeader {
        /// Where the bytes came from.
        origin: String,
        /// What is wrong with them.
        reason: String,
    },

    /// The `.npy` dtype (or a requested dtype name) is not one this module reads.
    #[error(
        "{origin}: unsupported dtype {dtype:?}; convert the tensor before saving, \
         e.g. numpy.save(path, x.astype(numpy.float32)) or tensor.float().cpu().numpy()"
    )]
    UnsupportedDtype {
        /// Where the bytes came from.
        origin: String,
        /// The dtype as written in the file (or as requested).
        dtype: String,
    },

    /// The product of the shape (or the byte size it implies) does not fit
    /// in `usize`: the shape is wrong.
    #[error(
        "{origin}: shape {shape:?} has too many elements to address (the product overflows); check the shape"
    )]
    ShapeOverflow {
        /// Where the shape came from.
        origin: String,
        /// The shape.
        shape: Vec<usize>,
    },

    /// The amount of data does not match `product(shape) × dtype size`.
    #[error(
        "{origin}: holds {actual_bytes} bytes of data, but shape {shape:?} of {dtype} needs \
         {expected_bytes} bytes; check the shape and dtype, or whether the file was truncated"
    )]
    SizeMismatch {
        /// Where the bytes came from.
        origin: String,
        /// The element type.
        dtype: DType,
        /// The shape.
        shape: Vec<usize>,
        /// `product(shape) × dtype size`.
        expected_bytes: u64,
        /// The bytes actually present.
        actual_bytes: u64,
    },

    /// A value of a tensor cannot be written as its dtype: an integer or
    /// bool tensor holding a fraction, NaN or a value out of the type's range.
    #[error(
        "value {value} at flat index {index} is not a {dtype}; fix the values, or build \
         the tensor as float32/float64"
    )]
    Unrepresentable {
        /// The tensor's dtype.
        dtype: DType,
        /// Flat (C-order) position of the first such value.
        index: usize,
        /// The value.
        value: f64,
    },

    /// A caller-supplied argument is invalid (number of values versus
    /// shape, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}
