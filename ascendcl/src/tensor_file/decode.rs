//! Decoding element bytes (either byte order) into [`Values`], in chunks, so
//! a large file is never held twice in memory.

use std::io::Read;
use std::path::PathBuf;

use super::dtype::DType;
use super::error::{TensorFileError, TensorFileResult};
use super::half::{bf16_bits_to_f32, f16_bits_to_f32};
use super::tensor::Values;

/// Byte order of multi-byte elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    /// The byte order of the machine running this code.
    pub(crate) const NATIVE: ByteOrder = if cfg!(target_endian = "big") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };
}

/// Bytes read per chunk: a multiple of every element size.
const CHUNK_BYTES: usize = 1 << 16;

/// Reads exactly `count` elements of `dtype` from `reader`.
///
/// The caller has already checked that the source holds
/// `count × dtype.size()` bytes, so the allocation below is bounded by the
/// size of the input.
pub(crate) fn decode<R: Read>(
    reader: &mut R,
    dtype: DType,
    order: ByteOrder,
    count: usize,
    origin: &str,
) -> TensorFileResult<Values> {
    let size = dtype.size();
    let per_chunk = CHUNK_BYTES / size;
    let mut buffer = vec![0u8; CHUNK_BYTES.min(count.saturating_mul(size))];
    let mut values = if dtype.stored_as_f32() {
        Values::F32(Vec::with_capacity(count))
    } else {
        Values::F64(Vec::with_capacity(count))
    };
    let mut remaining = count;
    while remaining > 0 {
        let n = remaining.min(per_chunk);
        let Some(bytes) = buffer.get_mut(..n * size) else {
            break; // unreachable: n * size <= buffer.len()
        };
        reader
            .read_exact(bytes)
            .map_err(|source| TensorFileError::Io {
                path: PathBuf::from(origin),
                source,
            })?;
        match &mut values {
            Values::F32(out) => {
                out.extend(bytes.chunks_exact(size).map(|c| to_f32(c, dtype, order)))
            }
            Values::F64(out) => {
                out.extend(bytes.chunks_exact(size).map(|c| to_f64(c, dtype, order)))
            }
        }
        remaining -= n;
    }
    Ok(values)
}

/// The first `N` bytes of `c` (always exactly `N` here: `chunks_exact`).
fn array<const N: usize>(c: &[u8]) -> [u8; N] {
    c.try_into().unwrap_or([0; N])
}

fn u16_of(c: &[u8], order: ByteOrder) -> u16 {
    match order {
        ByteOrder::Little => u16::from_le_bytes(array(c)),
        ByteOrder::Big => u16::from_be_bytes(array(c)),
    }
}

fn to_f32(c: &[u8], dtype: DType, order: ByteOrder) -> f32 {
    match dtype {
        DType::F16 => f16_bits_to_f32(u16_of(c, order)),
        DType::BF16 => bf16_bits_to_f32(u16_of(c, order)),
        _ => match order {
            ByteOrder::Little => f32::from_le_bytes(array(c)),
            ByteOrder::Big => f32::from_be_bytes(array(c)),
        },
    }
}

/// Decodes one element whose type is stored as `f64`. Integers wider than
/// 53 bits round to the nearest `f64`.
fn to_f64(c: &[u8], dtype: DType, order: ByteOrder) -> f64 {
    macro_rules! num {
        ($t:ty) => {
            match order {
                ByteOrder::Little => <$t>::from_le_bytes(array(c)),
                ByteOrder::Big => <$t>::from_be_bytes(array(c)),
            }
        };
    }
    match dtype {
        DType::Bool => f64::from(u8::from(num!(u8) != 0)),
        DType::U8 => f64::from(num!(u8)),
        DType::U16 => f64::from(num!(u16)),
        DType::U32 => f64::from(num!(u32)),
        DType::U64 => num!(u64) as f64,
        DType::I8 => f64::from(num!(i8)),
        DType::I16 => f64::from(num!(i16)),
        DType::I32 => f64::from(num!(i32)),
        DType::I64 => num!(i64) as f64,
        DType::F64 => num!(f64),
        DType::F16 | DType::BF16 | DType::F32 => f64::from(to_f32(c, dtype, order)),
    }
}
