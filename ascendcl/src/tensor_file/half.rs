//! IEEE 754 half precision (`f16`) and bfloat16 (`bf16`) to and from `f32`,
//! by hand.
//!
//! To `f32` is exact: every `f16` and every `bf16` value is an `f32` value.
//! Zeros keep their sign, subnormals become normal `f32` values, infinities
//! stay infinities and NaNs stay NaNs with their sign and payload (shifted
//! into the top of the `f32` mantissa, so a quiet NaN stays quiet). From
//! `f32` rounds to the nearest value, ties to even (IEEE 754's default, what
//! NumPy's `astype` does); too large becomes ±∞, too small ±0, and a NaN
//! stays a NaN (its payload's top bits kept, never turned into ∞).

/// Converts the bits of an IEEE 754 binary16 value to `f32`, exactly.
///
/// ```
/// use ascendcl::tensor_file::f16_bits_to_f32;
/// assert_eq!(f16_bits_to_f32(0x3C00), 1.0);
/// assert_eq!(f16_bits_to_f32(0x0001), 2f32.powi(-24)); // smallest subnormal
/// assert_eq!(f16_bits_to_f32(0xFC00), f32::NEG_INFINITY);
/// assert!(f16_bits_to_f32(0x7E00).is_nan());
/// ```
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits & 0x8000) << 16;
    let exponent = u32::from((bits >> 10) & 0x1F);
    let mantissa = u32::from(bits & 0x03FF);
    let magnitude = match (exponent, mantissa) {
        // ±0.
        (0, 0) => 0,
        // Subnormal: mantissa × 2^-24. Shift the mantissa up until its
        // leading one reaches the implicit-bit position (bit 10), lowering
        // the exponent once per shift.
        (0, _) => {
            let mut m = mantissa;
            let mut e: u32 = 127 - 15 + 1; // biased f32 exponent of 2^-14
            while m & 0x0400 == 0 {
                m <<= 1;
                e -= 1;
            }
            (e << 23) | ((m & 0x03FF) << 13)
        }
        // ±infinity, and NaN with its payload.
        (0x1F, _) => 0x7F80_0000 | (mantissa << 13),
        // Normal: rebias the exponent from 15 to 127.
        _ => ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// Converts the bits of a bfloat16 value to `f32`, exactly (bfloat16 is the
/// top half of an `f32`).
///
/// ```
/// use ascendcl::tensor_file::bf16_bits_to_f32;
/// assert_eq!(bf16_bits_to_f32(0x3F80), 1.0);
/// assert_eq!(bf16_bits_to_f32(0xC000), -2.0);
/// assert_eq!(bf16_bits_to_f32(0x7F80), f32::INFINITY);
/// ```
pub fn bf16_bits_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// Converts an `f32` to the bits of the nearest IEEE 754 binary16 value
/// (ties to even). Exact for every value [`f16_bits_to_f32`] returns.
///
/// ```
/// use ascendcl::tensor_file::f32_to_f16_bits;
/// assert_eq!(f32_to_f16_bits(1.0), 0x3C00);
/// assert_eq!(f32_to_f16_bits(65504.0), 0x7BFF); // the largest f16
/// assert_eq!(f32_to_f16_bits(65520.0), 0x7C00); // rounds to infinity
/// assert_eq!(f32_to_f16_bits(2f32.powi(-24)), 0x0001); // smallest subnormal
/// assert_eq!(f32_to_f16_bits(2f32.powi(-25)), 0x0000); // a tie: to even (0)
/// assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7C00, 0x7C00);
/// ```
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xFF) as i32;
    let mantissa = bits & 0x007F_FFFF;
    if exponent == 0xFF {
        if mantissa == 0 {
            return sign | 0x7C00; // ±infinity
        }
        let payload = (mantissa >> 13) as u16;
        // A NaN whose payload lives only in the low bits stays a (quiet) NaN.
        return sign | 0x7C00 | if payload == 0 { 0x0200 } else { payload };
    }
    // The exponent rebiased from 127 to 15.
    let e = exponent - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00; // too large: infinity
    }
    // Keeps `value >> shift`, rounded to nearest, ties to even; a carry out
    // of the mantissa raises the exponent (up to infinity), as it should.
    let round = |value: u32, shift: u32| {
        let kept = value >> shift;
        let rest = value & ((1u32 << shift) - 1);
        let half = 1u32 << (shift - 1);
        kept + u32::from(rest > half || (rest == half && kept & 1 == 1))
    };
    if e <= 0 {
        if e < -10 {
            return sign; // below half the smallest subnormal: ±0
        }
        // Subnormal: (1.mantissa) × 2^(e - 15) = m × 2^-24.
        let m = mantissa | 0x0080_0000;
        return sign | round(m, (14 - e) as u32) as u16;
    }
    sign | round(((e as u32) << 23) | mantissa, 13) as u16
}

/// Converts an `f32` to the bits of the nearest bfloat16 value (ties to
/// even). Exact for every value [`bf16_bits_to_f32`] returns.
///
/// ```
/// use ascendcl::tensor_file::f32_to_bf16_bits;
/// assert_eq!(f32_to_bf16_bits(1.0), 0x3F80);
/// assert_eq!(f32_to_bf16_bits(-2.0), 0xC000);
/// assert_eq!(f32_to_bf16_bits(1.0 + 2f32.powi(-8)), 0x3F80); // a tie: to even
/// assert_eq!(f32_to_bf16_bits(f32::MAX), 0x7F80); // rounds to infinity
/// ```
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let top = (bits >> 16) as u16;
    if x.is_nan() {
        // Keep the sign and the payload's top bits; never turn into infinity.
        return if top & 0x007F == 0 { top | 0x0040 } else { top };
    }
    let rest = bits & 0xFFFF;
    top + u16::from(rest > 0x8000 || (rest == 0x8000 && top & 1 == 1))
}
