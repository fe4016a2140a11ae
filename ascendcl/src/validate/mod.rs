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
//! # Reading the files
//!
//! The tensors come from [`crate::tensor_file`]: `.npy` files
//! ([`tensor_file::read_npy`](crate::tensor_file::read_npy), every NumPy
//! dtype but complex, strings and records) and raw little-endian dumps
//! ([`tensor_file::read_raw`](crate::tensor_file::read_raw), dtype and shape
//! given). [`Tensor`], [`DType`], [`Values`] and the half-precision
//! decoders are re-exported here. A
//! [`TensorFileError`](crate::tensor_file::TensorFileError) converts into a
//! [`ValidateError`] with `?`.
//!
//! # Example
//!
//! ```
//! use ascendcl::tensor_file;
//! use ascendcl::validate::{self, CompareOptions, Tensor, Verdict};
//!
//! // The GPU run's tensor, saved as numpy.save would.
//! let path = std::env::temp_dir().join(format!("validate-doc-{}.npy", std::process::id()));
//! tensor_file::write_npy_slice(&path, &[2, 2], &[1.0f32, 2.0, 3.0, 4.0])?;
//!
//! let gpu = tensor_file::read_npy(&path)?;
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
mod error;
mod report;
mod verdict;

pub use crate::tensor_file::{DType, Tensor, Values, bf16_bits_to_f32, f16_bits_to_f32};
pub use compare::{CompareOptions, DEFAULT_RELATIVE_FLOOR, DEFAULT_TOP_K, compare};
pub use error::{ValidateError, ValidateResult};
pub use report::{Report, ThresholdCounts, WorstElement};
pub use verdict::{Metric, Thresholds, Verdict};
