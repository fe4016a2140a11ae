//! [`Tensor`]: a loaded tensor (element type, shape, values in C order).

use super::dtype::DType;
use super::error::{TensorFileError, TensorFileResult};

/// The values of a tensor, in C (row-major) order.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Values of `float32`, `float16` and `bfloat16` tensors.
    F32(Vec<f32>),
    /// Values of every other type.
    F64(Vec<f64>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at flat (C-order) position `index`, as `f64`.
    pub fn get(&self, index: usize) -> Option<f64> {
        match self {
            Values::F32(v) => v.get(index).map(|&x| f64::from(x)),
            Values::F64(v) => v.get(index).copied(),
        }
    }

    /// All values as `f64`.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self {
            Values::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Values::F64(v) => v.clone(),
        }
    }
}

/// A tensor loaded from a file (or built in memory): element type, shape and
/// values in C order. The number of values always equals the product of the
/// shape; an empty shape is a scalar (one value).
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    values: Values,
}

impl Tensor {
    /// A `float32` tensor. Errors if `values.len()` is not the product of `shape`.
    pub fn from_f32(shape: impl Into<Vec<usize>>, values: Vec<f32>) -> TensorFileResult<Tensor> {
        Tensor::new(DType::F32, shape.into(), Values::F32(values))
    }

    /// A `float64` tensor. Errors if `values.len()` is not the product of `shape`.
    pub fn from_f64(shape: impl Into<Vec<usize>>, values: Vec<f64>) -> TensorFileResult<Tensor> {
        Tensor::new(DType::F64, shape.into(), Values::F64(values))
    }

    /// A tensor of `dtype` (the type it was stored as) holding `values`.
    /// Errors if `values.len()` is not the product of `shape`.
    pub fn new(dtype: DType, shape: Vec<usize>, values: Values) -> TensorFileResult<Tensor> {
        let count = element_count(&shape).ok_or_else(|| TensorFileError::ShapeOverflow {
            origin: "Tensor::new".to_owned(),
            shape: shape.clone(),
        })?;
        if count != values.len() {
            return Err(TensorFileError::InvalidArgument(format!(
                "shape {shape:?} has {count} elements but {} values were given",
                values.len()
            )));
        }
        Ok(Tensor {
            dtype,
            shape,
            values,
        })
    }

    /// The element type the tensor was stored as.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of elements (the product of the shape).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the tensor has no elements (a dimension is 0).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values, in C order.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// The value at flat (C-order) position `index`.
    pub fn get(&self, index: usize) -> Option<f64> {
        self.values.get(index)
    }

    /// The value at the multi-dimensional `index` (one entry per dimension).
    pub fn get_at(&self, index: &[usize]) -> Option<f64> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut flat = 0usize;
        for (&i, &dim) in index.iter().zip(&self.shape) {
            if i >= dim {
                return None;
            }
            flat = flat.checked_mul(dim)?.checked_add(i)?;
        }
        self.values.get(flat)
    }

    /// Consumes the tensor, returning its values.
    pub fn into_values(self) -> Values {
        self.values
    }
}

/// The number of elements of `shape` (1 for a scalar), or `None` if the
/// product overflows `usize`.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// The multi-dimensional index (C order) of flat position `flat` in `shape`.
/// A position past the end wraps around (it is taken modulo the number of
/// elements); a shape with a zero dimension gives all zeros. Never panics.
pub fn unravel_index(shape: &[usize], flat: usize) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    let mut rest = flat;
    for (slot, &dim) in index.iter_mut().zip(shape).rev() {
        *slot = rest.checked_rem(dim).unwrap_or(0);
        rest = rest.checked_div(dim).unwrap_or(0);
    }
    index
}
