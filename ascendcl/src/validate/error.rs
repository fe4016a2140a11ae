//! [`ValidateError`]: what can go wrong while comparing tensors. Each
//! message says what to do next.

use crate::tensor_file::TensorFileError;

/// A `Result` whose error is [`ValidateError`].
pub type ValidateResult<T> = std::result::Result<T, ValidateError>;

/// Why two tensors could not be compared (or loaded for comparison: a
/// [`TensorFileError`] converts with `?`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// A tensor file could not be read ([`crate::tensor_file`]).
    #[error(transparent)]
    File(#[from] TensorFileError),

    /// The two tensors being compared have different shapes.
    #[error(
        "shape mismatch: expected tensor has shape {expected:?}, actual tensor has shape {actual:?}; \
         compare the same tensor from both runs (reshape first if only the layout differs)"
    )]
    ShapeMismatch {
        /// Shape of the expected (reference) tensor.
        expected: Vec<usize>,
        /// Shape of the actual tensor.
        actual: Vec<usize>,
    },

    /// A caller-supplied argument is invalid (thresholds, relative floor).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}
