//! [`DType`]: the element type a tensor was stored as.

use std::fmt;

/// Element type of a tensor as it was stored in its file.
///
/// Values are kept as `f32` for [`F16`](DType::F16), [`BF16`](DType::BF16)
/// and [`F32`](DType::F32) (both half types convert to `f32` exactly), and as
/// `f64` for everything else. `I64`/`U64` values above 2^53 lose precision in
/// `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `bool` (one byte, non-zero is 1.0).
    Bool,
    /// `uint8`.
    U8,
    /// `uint16`.
    U16,
    /// `uint32`.
    U32,
    /// `uint64`.
    U64,
    /// `int8`.
    I8,
    /// `int16`.
    I16,
    /// `int32`.
    I32,
    /// `int64`.
    I64,
    /// IEEE 754 half precision (`float16`).
    F16,
    /// Brain floating point (`bfloat16`).
    BF16,
    /// `float32`.
    F32,
    /// `float64`.
    F64,
}

impl DType {
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 | DType::F64 => 8,
        }
    }

    /// The canonical name: `float32`, `bfloat16`, `int64`, `bool`, ...
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Parses a dtype name: the canonical names of [`name`](DType::name) or
    /// the short Rust-style ones (`f32`, `f16`, `bf16`, `f64`, `i32`, `u8`,
    /// ...; here `i8` is int8, not NumPy's int64 code). Case-insensitive.
    pub fn from_name(name: &str) -> Option<DType> {
        let dtype = match name.to_ascii_lowercase().as_str() {
            "bool" => DType::Bool,
            "u8" | "uint8" => DType::U8,
            "u16" | "uint16" => DType::U16,
            "u32" | "uint32" => DType::U32,
            "u64" | "uint64" => DType::U64,
            "i8" | "int8" => DType::I8,
            "i16" | "int16" => DType::I16,
            "i32" | "int32" => DType::I32,
            "i64" | "int64" => DType::I64,
            "f16" | "float16" | "half" => DType::F16,
            "bf16" | "bfloat16" => DType::BF16,
            "f32" | "float32" | "float" => DType::F32,
            "f64" | "float64" | "double" => DType::F64,
            _ => return None,
        };
        Some(dtype)
    }

    /// Whether values of this type are stored as `f32` in a [`Tensor`].
    pub(crate) fn stored_as_f32(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
