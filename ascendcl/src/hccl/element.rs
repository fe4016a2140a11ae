//! What a collective reduces with, and which Rust types it moves.

use ascendcl_sys::{HcclDataType, HcclReduceOp};

use crate::memory::DeviceCopy;

/// The reduction of [`all_reduce`](super::Communicator::all_reduce),
/// [`reduce`](super::Communicator::reduce) and
/// [`reduce_scatter`](super::Communicator::reduce_scatter) (`HcclReduceOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Element-wise sum.
    Sum,
    /// Element-wise product (not supported for int16 and bf16 on A2/A3).
    Prod,
    /// Element-wise maximum.
    Max,
    /// Element-wise minimum.
    Min,
}

impl ReduceOp {
    /// The library's value.
    pub fn raw(self) -> HcclReduceOp {
        match self {
            ReduceOp::Sum => HcclReduceOp::HCCL_REDUCE_SUM,
            ReduceOp::Prod => HcclReduceOp::HCCL_REDUCE_PROD,
            ReduceOp::Max => HcclReduceOp::HCCL_REDUCE_MAX,
            ReduceOp::Min => HcclReduceOp::HCCL_REDUCE_MIN,
        }
    }
}

/// A Rust element type a collective can move, with its `HcclDataType`.
///
/// Implemented for the integer types, `f32`, `f64`, [`F16Bits`] and
/// [`Bf16Bits`] and, with the `half` feature, `half::f16` and `half::bf16`.
/// The type fixes both the dtype passed to HCCL and the element size the
/// buffer checks use. HCCL counts in elements of the dtype, so a type whose
/// size differed from its dtype's would make HCCL read and write past the
/// buffers: the trait is therefore sealed (no type outside this crate can
/// implement it), and every implementation is checked at compile time to
/// have exactly its dtype's size ([`dtype_size`]).
///
/// `tests/compile_fail/hccl_element_is_sealed.rs` shows a user type refused.
pub trait HcclElement: DeviceCopy + sealed::Sealed {
    /// The dtype of `Self`.
    const DATA_TYPE: HcclDataType;
}

mod sealed {
    /// Implemented only by this module's macro, for types whose size is their
    /// dtype's.
    pub trait Sealed {}
}

/// The size in bytes of one element of `dtype`, as HCCL counts it; `None`
/// for a dtype this crate does not move.
pub const fn dtype_size(dtype: HcclDataType) -> Option<usize> {
    use HcclDataType as D;
    Some(match dtype {
        D::HCCL_DATA_TYPE_INT8 | D::HCCL_DATA_TYPE_UINT8 => 1,
        D::HCCL_DATA_TYPE_INT16
        | D::HCCL_DATA_TYPE_UINT16
        | D::HCCL_DATA_TYPE_FP16
        | D::HCCL_DATA_TYPE_BFP16 => 2,
        D::HCCL_DATA_TYPE_INT32 | D::HCCL_DATA_TYPE_UINT32 | D::HCCL_DATA_TYPE_FP32 => 4,
        D::HCCL_DATA_TYPE_INT64 | D::HCCL_DATA_TYPE_UINT64 | D::HCCL_DATA_TYPE_FP64 => 8,
        _ => return None,
    })
}

macro_rules! hccl_element {
    ($($t:ty => $d:ident),* $(,)?) => {
        $(
            impl sealed::Sealed for $t {}
            impl HcclElement for $t { const DATA_TYPE: HcclDataType = HcclDataType::$d; }
            // The element size the buffer checks use is the one HCCL counts in.
            const _: () = assert!(
                matches!(dtype_size(HcclDataType::$d), Some(n) if n == std::mem::size_of::<$t>())
            );
        )*
    };
}

hccl_element!(
    i8 => HCCL_DATA_TYPE_INT8,
    i16 => HCCL_DATA_TYPE_INT16,
    i32 => HCCL_DATA_TYPE_INT32,
    i64 => HCCL_DATA_TYPE_INT64,
    u8 => HCCL_DATA_TYPE_UINT8,
    u16 => HCCL_DATA_TYPE_UINT16,
    u32 => HCCL_DATA_TYPE_UINT32,
    u64 => HCCL_DATA_TYPE_UINT64,
    f32 => HCCL_DATA_TYPE_FP32,
    f64 => HCCL_DATA_TYPE_FP64,
);

#[cfg(feature = "half")]
hccl_element!(half::f16 => HCCL_DATA_TYPE_FP16, half::bf16 => HCCL_DATA_TYPE_BFP16);

/// The bits of an IEEE half-precision value, for f16 collectives without
/// the `half` feature (the same bytes as `half::f16`).
/// [`validate::f16_bits_to_f32`](crate::validate::f16_bits_to_f32) decodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct F16Bits(pub u16);

/// The bits of a bfloat16 value, for bf16 collectives without the `half`
/// feature (the same bytes as `half::bf16`: the top half of an `f32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Bf16Bits(pub u16);

// SAFETY: transparent wrappers of u16: no padding, every bit pattern valid,
// all-zero valid.
unsafe impl bytemuck::Zeroable for F16Bits {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for F16Bits {}
// SAFETY: as above.
unsafe impl bytemuck::Zeroable for Bf16Bits {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Bf16Bits {}

hccl_element!(F16Bits => HCCL_DATA_TYPE_FP16, Bf16Bits => HCCL_DATA_TYPE_BFP16);
