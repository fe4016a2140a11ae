//! Scalars passed to operators (`aclScalar`).

use crate::ops::DType;

/// A host value handed to an operator as an `aclScalar` (alpha, beta,
/// thresholds, fill values). Plain Rust numbers convert into it:
/// `f32` → [`Scalar::F32`], `f64` → [`Scalar::F64`], `i64` → [`Scalar::I64`].
/// torch_npu passes Python floats as f64 and ints as i64; the operator
/// converts to the tensor's dtype.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Scalar {
    /// `float32`.
    F32(f32),
    /// `float64`.
    F64(f64),
    /// `int32`.
    I32(i32),
    /// `int64`.
    I64(i64),
    /// `bool`.
    Bool(bool),
}

impl Scalar {
    /// The scalar's dtype.
    pub fn dtype(self) -> DType {
        match self {
            Scalar::F32(_) => DType::F32,
            Scalar::F64(_) => DType::F64,
            Scalar::I32(_) => DType::I32,
            Scalar::I64(_) => DType::I64,
            Scalar::Bool(_) => DType::Bool,
        }
    }

    /// The value's bytes in native order (8 bytes of room).
    pub(crate) fn bytes(self) -> [u8; 8] {
        let mut out = [0u8; 8];
        match self {
            Scalar::F32(v) => out[..4].copy_from_slice(&v.to_ne_bytes()),
            Scalar::F64(v) => out.copy_from_slice(&v.to_ne_bytes()),
            Scalar::I32(v) => out[..4].copy_from_slice(&v.to_ne_bytes()),
            Scalar::I64(v) => out.copy_from_slice(&v.to_ne_bytes()),
            Scalar::Bool(v) => out[0] = u8::from(v),
        }
        out
    }
}

impl From<f32> for Scalar {
    fn from(v: f32) -> Scalar {
        Scalar::F32(v)
    }
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::F64(v)
    }
}

impl From<i32> for Scalar {
    fn from(v: i32) -> Scalar {
        Scalar::I32(v)
    }
}

impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::I64(v)
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Scalar {
        Scalar::Bool(v)
    }
}
