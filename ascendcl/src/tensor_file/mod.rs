//! Tensor files: reading and writing the files tensors are saved in, with
//! their element type and shape, in pure Rust (nothing here calls
//! AscendCL).
//!
//! A [`Tensor`] is an element type ([`DType`]), a shape and the values in C
//! order ([`Values`]: `f32` for the float16/bfloat16/float32 types, `f64` for
//! the others). [`crate::validate`] compares two of them.
//!
//! # Formats
//!
//! * **NumPy `.npy`**, read by [`read_npy`] / [`parse_npy`]: format versions
//!   1.0, 2.0 and 3.0, as written by `numpy.save`. Dtypes `f2` (float16),
//!   `f4`, `f8`, `i1`, `i2`, `i4`, `i8`, `u1`, `u2`, `u4`, `u8` and `b1`
//!   (bool), little-endian (`<`), big-endian (`>`) or not applicable (`|`).
//!   Half precision is kept exactly as `f32`; integers and bools are
//!   converted to `f64`. C-order arrays are read as is; `fortran_order: True`
//!   arrays are transposed into C order, so indices always mean what they
//!   mean in NumPy. Complex, string, structured and other dtypes are a
//!   [`TensorFileError::UnsupportedDtype`] (convert with
//!   `x.astype(numpy.float32)`; bfloat16 tensors are best saved as float32,
//!   or dumped raw).
//! * **NumPy `.npy`**, written by [`write_npy`] / [`to_npy_bytes`] (a
//!   [`Tensor`]) and [`write_npy_slice`] / [`slice_to_npy_bytes`] (a typed
//!   slice, exact for 64-bit integers): format 1.0 as `numpy.save` writes it,
//!   little-endian, C order, header padded to 64 bytes. NumPy has no
//!   bfloat16, so bfloat16 tensors are written as float32 (exactly).
//! * **Raw little-endian dumps**, read by [`read_raw`] / [`parse_raw`]: `f32`,
//!   `f16`, `bf16` or `f64` (e.g. `tensor.numpy().tofile(path)`, or a device
//!   buffer copied to the host and written out), C order, with the shape
//!   given by the caller. The file must be exactly `product(shape) × dtype
//!   size` bytes.
//!
//! Both readers check every length against the file's length before
//! allocating, so truncated files, garbage headers and absurd shapes are
//! typed [`TensorFileError`]s, never panics or huge allocations.
//!
//! # Example
//!
//! ```
//! use ascendcl::tensor_file::{self, DType, Tensor};
//!
//! let logits = Tensor::from_f32(vec![2, 2], vec![1.0, 2.0, 3.0, 4.5])?;
//! let path = std::env::temp_dir().join(format!("tensor-file-doc-{}.npy", std::process::id()));
//! tensor_file::write_npy(&path, &logits)?; // numpy.load(path) reads it
//! let back = tensor_file::read_npy(&path)?;
//! std::fs::remove_file(&path)?;
//! assert_eq!(back, logits);
//! assert_eq!(back.dtype(), DType::F32);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod decode;
mod dtype;
mod error;
mod half;
mod npy_header;
mod npy_read;
mod npy_write;
mod raw;
mod tensor;

pub use dtype::DType;
pub use error::{TensorFileError, TensorFileResult};
pub use half::{bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits};
pub use npy_read::{MAX_NPY_HEADER_LEN, NPY_DTYPES, NPY_MAGIC, is_npy_file, parse_npy, read_npy};
pub use npy_write::{NpyElement, slice_to_npy_bytes, to_npy_bytes, write_npy, write_npy_slice};
pub use raw::{parse_raw, read_raw};
pub use tensor::{Tensor, Values, element_count, unravel_index};
