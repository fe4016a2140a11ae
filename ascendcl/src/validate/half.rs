//! IEEE 754 half precision (`f16`) and bfloat16 (`bf16`) to `f32`, by hand.
//!
//! Both conversions are exact: every `f16` and every `bf16` value is an `f32`
//! value. Zeros keep their sign, subnormals become normal `f32` values,
//! infinities stay infinities and NaNs stay NaNs with their sign and payload
//! (shifted into the top of the `f32` mantissa, so a quiet NaN stays quiet).

/// Converts the bits of an IEEE 754 binary16 value to `f32`, exactly.
///
/// ```
/// use ascendcl::validate::f16_bits_to_f32;
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
/// use ascendcl::validate::bf16_bits_to_f32;
/// assert_eq!(bf16_bits_to_f32(0x3F80), 1.0);
/// assert_eq!(bf16_bits_to_f32(0xC000), -2.0);
/// assert_eq!(bf16_bits_to_f32(0x7F80), f32::INFINITY);
/// ```
pub fn bf16_bits_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}
