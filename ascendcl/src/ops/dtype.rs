//! Element types of operator tensors.

use ascendcl_sys::aclDataType;

use crate::memory::DeviceCopy;

/// The element type of a tensor, scalar or cast (`aclDataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `float32`.
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// `float64`.
    F64,
    /// `int8`.
    I8,
    /// `int16`.
    I16,
    /// `int32`.
    I32,
    /// `int64`.
    I64,
    /// `uint8`.
    U8,
    /// `bool` (one byte).
    Bool,
}

impl DType {
    /// The runtime's value.
    pub fn raw(self) -> aclDataType {
        match self {
            DType::F32 => aclDataType::ACL_FLOAT,
            DType::F16 => aclDataType::ACL_FLOAT16,
            DType::BF16 => aclDataType::ACL_BF16,
            DType::F64 => aclDataType::ACL_DOUBLE,
            DType::I8 => aclDataType::ACL_INT8,
            DType::I16 => aclDataType::ACL_INT16,
            DType::I32 => aclDataType::ACL_INT32,
            DType::I64 => aclDataType::ACL_INT64,
            DType::U8 => aclDataType::ACL_UINT8,
            DType::Bool => aclDataType::ACL_BOOL,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16 | DType::F64)
    }
}

/// A Rust element type with an operator dtype: the `T` of a buffer a
/// [`Tensor`](super::Tensor) is made from with [`Tensor::new`](super::Tensor::new).
/// For dtypes without a Rust type here (f16/bf16 without the `half` feature,
/// bool), use [`Tensor::with_dtype`](super::Tensor::with_dtype) over bytes or
/// `u16` storage of the same size.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no operator dtype",
    label = "no aclnn dtype for `{Self}`",
    note = "give the dtype explicitly over storage of the same size: `Tensor::with_dtype(&mem, &shape, DType::BF16)` \
            (e.g. bf16 in `u16` storage), or enable the `half` feature for `half::f16`/`half::bf16`"
)]
pub trait Element: DeviceCopy {
    /// The dtype of `Self`.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {
        $(impl Element for $t { const DTYPE: DType = DType::$d; })*
    };
}

element!(f32 => F32, f64 => F64, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8);

#[cfg(feature = "half")]
element!(half::f16 => F16, half::bf16 => BF16);
