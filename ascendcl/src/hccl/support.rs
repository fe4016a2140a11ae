//! Which element types HCCL reduces with which [`ReduceOp`]: the table of
//! CANN 8.5.0 on the chips this crate targets (Ascend 910B and 910_93,
//! "A2/A3"), checked before any HCCL call.
//!
//! HCCL refuses the other combinations at the call with
//! `HCCL_E_NOT_SUPPORT` (hicann/hcomm v8.5.0:
//! `src/framework/communicator/impl/hccl_communicator_host.cc:788-804`
//! refuses unsigned integers and fp64 in every reduction,
//! `src/framework/common/src/param_check.cc:318-338` PROD of int16 and
//! bf16 on A2/A3). The safe layer refuses them first, with an error that
//! says what to do instead. Other chips refuse more (an Ascend 910 no int16
//! reduction, a 310P no int64 or bf16 one, `param_check.cc:339-372` and
//! `hccl_communicator_host.cc:771-786`): there HCCL's own checks refuse the
//! rest at the call, on every rank alike, before anything is queued.

use ascendcl_sys::HcclDataType;

use crate::error::{Error, Result};
use crate::hccl::{HcclElement, ReduceOp};

/// Whether HCCL (CANN 8.5.0, Ascend 910B/910_93) reduces elements of type
/// `T` with `op`: `i8`, `i16`, `i32`, `i64`, `f32`, f16 and bf16 reduce;
/// unsigned integers and `f64` do not; `Prod` of `i16` and bf16 does not.
/// They can all be moved (broadcast, gathered, scattered, sent).
///
/// ```
/// use ascendcl::hccl::{ReduceOp, supports_reduction};
/// assert!(supports_reduction::<f32>(ReduceOp::Prod));
/// assert!(!supports_reduction::<i16>(ReduceOp::Prod));
/// assert!(!supports_reduction::<u32>(ReduceOp::Sum));
/// ```
pub fn supports_reduction<T: HcclElement>(op: ReduceOp) -> bool {
    refusal(T::DATA_TYPE, op).is_none()
}

/// `Ok(())` if HCCL reduces `dtype` with `op`; otherwise the error
/// [`Error::InvalidArgument`] naming `function`, the type and what to do.
pub(crate) fn check_reduction(function: &str, dtype: HcclDataType, op: ReduceOp) -> Result<()> {
    match refusal(dtype, op) {
        None => Ok(()),
        Some(why) => Err(Error::invalid(format!("{function}: {why}"))),
    }
}

/// Why HCCL refuses to reduce `dtype` with `op`, or `None`.
fn refusal(dtype: HcclDataType, op: ReduceOp) -> Option<String> {
    let reduces = [
        HcclDataType::HCCL_DATA_TYPE_INT8,
        HcclDataType::HCCL_DATA_TYPE_INT16,
        HcclDataType::HCCL_DATA_TYPE_INT32,
        HcclDataType::HCCL_DATA_TYPE_INT64,
        HcclDataType::HCCL_DATA_TYPE_FP16,
        HcclDataType::HCCL_DATA_TYPE_FP32,
        HcclDataType::HCCL_DATA_TYPE_BFP16,
    ];
    if !reduces.contains(&dtype) {
        let name = name(dtype);
        return Some(format!(
            "HCCL does not reduce {name} elements (HCCL_E_NOT_SUPPORT): reductions take i8, i16, \
             i32, i64, f16, bf16 and f32; convert to one of them (for example f32 or i64), \
             or move the data with a collective that does not reduce"
        ));
    }
    let prod_refused = [
        HcclDataType::HCCL_DATA_TYPE_INT16,
        HcclDataType::HCCL_DATA_TYPE_BFP16,
    ];
    if op == ReduceOp::Prod && prod_refused.contains(&dtype) {
        let name = name(dtype);
        return Some(format!(
            "HCCL does not take ReduceOp::Prod of {name} on Ascend 910B/910_93 \
             (HCCL_E_NOT_SUPPORT): use Sum, Max or Min, or multiply in i32 or f32"
        ));
    }
    None
}

/// The Rust-side name of a dtype, for messages.
fn name(dtype: HcclDataType) -> String {
    let known = [
        (HcclDataType::HCCL_DATA_TYPE_INT8, "i8"),
        (HcclDataType::HCCL_DATA_TYPE_INT16, "i16"),
        (HcclDataType::HCCL_DATA_TYPE_INT32, "i32"),
        (HcclDataType::HCCL_DATA_TYPE_INT64, "i64"),
        (HcclDataType::HCCL_DATA_TYPE_UINT8, "u8"),
        (HcclDataType::HCCL_DATA_TYPE_UINT16, "u16"),
        (HcclDataType::HCCL_DATA_TYPE_UINT32, "u32"),
        (HcclDataType::HCCL_DATA_TYPE_UINT64, "u64"),
        (HcclDataType::HCCL_DATA_TYPE_FP16, "f16"),
        (HcclDataType::HCCL_DATA_TYPE_BFP16, "bf16"),
        (HcclDataType::HCCL_DATA_TYPE_FP32, "f32"),
        (HcclDataType::HCCL_DATA_TYPE_FP64, "f64"),
    ];
    known
        .iter()
        .find(|(d, _)| *d == dtype)
        .map(|(_, n)| (*n).to_string())
        .unwrap_or_else(|| format!("HcclDataType {}", dtype.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_integers_and_f64_never_reduce_and_prod_skips_i16_and_bf16() {
        for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min] {
            assert!(!supports_reduction::<u8>(op));
            assert!(!supports_reduction::<u16>(op));
            assert!(!supports_reduction::<u32>(op));
            assert!(!supports_reduction::<u64>(op));
            assert!(!supports_reduction::<f64>(op));
            assert!(supports_reduction::<i8>(op));
            assert!(supports_reduction::<i32>(op));
            assert!(supports_reduction::<i64>(op));
            assert!(supports_reduction::<f32>(op));
            assert!(supports_reduction::<crate::hccl::F16Bits>(op));
            let prod = op == ReduceOp::Prod;
            assert_eq!(supports_reduction::<i16>(op), !prod);
            assert_eq!(supports_reduction::<crate::hccl::Bf16Bits>(op), !prod);
        }
    }

    #[test]
    fn a_refused_reduction_names_the_function_the_type_and_what_to_do() {
        let e = check_reduction("HcclAllReduce", u32::DATA_TYPE, ReduceOp::Sum).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("HcclAllReduce: HCCL does not reduce u32"),
            "{text}"
        );
        assert!(text.contains("convert to one of them"), "{text}");
        let e = check_reduction("HcclReduce", i16::DATA_TYPE, ReduceOp::Prod).unwrap_err();
        assert!(e.to_string().contains("use Sum, Max or Min"), "{e}");
        let unknown = HcclDataType(12);
        assert!(name(unknown).contains("12"));
    }
}
