//! Comparing saved tensors: does the NPU run match the GPU run?
//!
//! When training code moves from GPUs to Ascend NPUs, the usual check is to
//! run both with the same seed, save the same tensors (loss, activations,
//! gradients) from both, and compare them. This module reads such files,
//! computes error metrics, and turns the maximum error into a [`Verdict`]
//! following the migration checklist:
//!
//! | max error       | verdict                          | meaning                          |
//! |-----------------|----------------------------------|----------------------------------|
//! | ≤ 1e-5          | [`Verdict::Clean`]               | the runs match                   |
//! | ≤ 1e-4          | [`Verdict::Acceptable`]          | ordinary cross-device noise      |
//! | ≤ 1e-3          | [`Verdict::Investigate`]         | larger than noise: look for why  |
//! | > 1e-3, or NaN/Inf in one run only | [`Verdict::FindTheOperator`] | find the diverging operator |
//!
//! It is pure Rust: nothing here calls AscendCL, so it works on any machine.
//!
//! # Metrics and verdict
//!
//! [`compare`] reports the maximum absolute error, the maximum relative
//! error `|a − e| / max(|e|, floor)` (floor [`DEFAULT_RELATIVE_FLOOR`] =
//! 1e-12, settable in [`CompareOptions`]), mean absolute error, RMSE, cosine
//! similarity, the number of elements over each threshold, NaN/Inf
//! mismatches, and the worst elements with their multi-dimensional indices.
//!
//! The verdict uses the **maximum absolute error** by default
//! ([`Metric::Absolute`]): it is what migration checklists call "max error",
//! and it does not explode where the expected values are near zero. Choose
//! [`Metric::Relative`] for tensors of large magnitude, and override the
//! limits with [`Thresholds::new`]. A NaN or Inf in one tensor but not the
//! other always gives [`Verdict::FindTheOperator`]; NaN in both at the same
//! position (or the same infinity) counts as equal.
//!
//! # File formats read
//!
//! * **NumPy `.npy`** ([`read_npy`]), format versions 1.0, 2.0 and 3.0, as
//!   written by `numpy.save`. Dtypes `f2` (float16), `f4`, `f8`, `i1`, `i2`,
//!   `i4`, `i8`, `u1`, `u2`, `u4`, `u8` and `b1` (bool), little-endian (`<`),
//!   big-endian (`>`) or not applicable (`|`). Half precision is kept
//!   exactly as `f32`; integers and bools are converted to `f64`. C-order
//!   arrays are read as is; `fortran_order: True` arrays are transposed into C
//!   order, so indices always mean what they mean in NumPy. Complex, string,
//!   structured and other dtypes are a [`ValidateError::UnsupportedDtype`]
//!   (convert with `x.astype(numpy.float32)`; bfloat16 tensors are best
//!   saved as float32, or dumped raw).
//! * **Raw little-endian dumps** ([`read_raw`]) of `f32`, `f16`, `bf16` or
//!   `f64` (e.g. `tensor.numpy().tofile(path)`, or a device buffer copied to
//!   the host and written out), C order, with the shape given by the caller.
//!   The file must be exactly `product(shape) × dtype size` bytes.
//!
//! Both readers check every length against the file's length before
//! allocating, so truncated files, garbage headers and absurd shapes are
//! typed [`ValidateError`]s, never panics or huge allocations.
//!
//! # Example
//!
//! ```
//! use ascendcl::validate::{self, CompareOptions, Tensor, Verdict};
//!
//! // A 2×2 float32 .npy file, written by hand (this is what numpy.save writes).
//! let mut header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }".to_vec();
//! while (10 + header.len() + 1) % 64 != 0 {
//!     header.push(b' ');
//! }
//! header.push(b'\n');
//! let mut npy = b"\x93NUMPY\x01\x00".to_vec();
//! npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
//! npy.extend_from_slice(&header);
//! for x in [1.0f32, 2.0, 3.0, 4.0] {
//!     npy.extend_from_slice(&x.to_le_bytes());
//! }
//! let path = std::env::temp_dir().join(format!("validate-doc-{}.npy", std::process::id()));
//! std::fs::write(&path, &npy)?;
//!
//! let gpu = validate::read_npy(&path)?;
//! std::fs::remove_file(&path)?;
//! assert_eq!(gpu.shape(), &[2, 2]);
//!
//! // The NPU run, off by 5e-5 in one element.
//! let npu = Tensor::from_f32(vec![2, 2], vec![1.0, 2.0, 3.00005, 4.0])?;
//! let report = validate::compare(&gpu, &npu, &CompareOptions::default())?;
//! assert_eq!(report.verdict, Verdict::Acceptable);
//! assert_eq!(report.worst[0].index, vec![1, 0]);
//! println!("{report}"); // the table; report.to_json() for machines
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same from the command line: `ascendcl validate gpu.npy npu.npy` (the
//! `ascendcl-cli` crate), which also compares whole directories of tensors.

mod compare;
mod decode;
mod error;
mod half;
mod npy;
mod npy_header;
mod raw;
mod report;
mod tensor;
mod verdict;

pub use compare::{CompareOptions, DEFAULT_RELATIVE_FLOOR, DEFAULT_TOP_K, compare};
pub use error::{ValidateError, ValidateResult};
pub use half::{bf16_bits_to_f32, f16_bits_to_f32};
pub use npy::{MAX_NPY_HEADER_LEN, NPY_DTYPES, NPY_MAGIC, is_npy_file, parse_npy, read_npy};
pub use raw::{parse_raw, read_raw};
pub use report::{Report, ThresholdCounts, WorstElement};
pub use tensor::{DType, Tensor, Values, element_count, unravel_index};
pub use verdict::{Metric, Thresholds, Verdict};
