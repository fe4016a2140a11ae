//! `ascendcl::tensor_file` raw readers and element conversion: raw files of
//! every float dtype, size checks, I/O errors that keep the path, and
//! bit-exact f16/bf16 to f32 conversion.

mod tensor_file_common;

use ascendcl::tensor_file::{
    self, DType, TensorFileError, bf16_bits_to_f32, f16_bits_to_f32, parse_raw,
};
use tensor_file_common::{f64s, le_f32, temp_dir};

// --- raw ------------------------------------------------------------------

#[test]
fn raw_files_of_f32_f16_bf16_f64_read_back_little_endian() {
    let dir = temp_dir("raw_read");
    let cases: [(DType, Vec<u8>); 4] = [
        (DType::F32, le_f32(&[1.0, -2.0, 0.5, 8.0])),
        (
            DType::F16,
            [0x3C00u16, 0xC000, 0x3800, 0x4800]
                .iter()
                .flat_map(|b| b.to_le_bytes())
                .collect(),
        ),
        (
            DType::BF16,
            [0x3F80u16, 0xC000, 0x3F00, 0x4100]
                .iter()
                .flat_map(|b| b.to_le_bytes())
                .collect(),
        ),
        (
            DType::F64,
            [1.0f64, -2.0, 0.5, 8.0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
    ];
    for (dtype, bytes) in cases {
        let path = dir.join(format!("{dtype}.bin"));
        std::fs::write(&path, &bytes).unwrap();
        assert!(!tensor_file::is_npy_file(&path).unwrap());
        let t = tensor_file::read_raw(&path, dtype, &[2, 2]).unwrap();
        assert_eq!(t.dtype(), dtype);
        assert_eq!(t.shape(), &[2, 2]);
        assert_eq!(f64s(&t), [1.0, -2.0, 0.5, 8.0], "{dtype}");
        assert_eq!(t, parse_raw(&bytes, dtype, &[2, 2]).unwrap());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn raw_file_size_must_match_shape_times_dtype_size() {
    let bytes = le_f32(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]); // 24 bytes
    assert!(parse_raw(&bytes, DType::F32, &[2, 3]).is_ok());
    assert!(parse_raw(&bytes, DType::F16, &[3, 4]).is_ok());
    assert!(parse_raw(&bytes, DType::F64, &[3]).is_ok());

    for (dtype, shape, expected_bytes) in [
        (DType::F32, vec![2, 2], 16u64),
        (DType::F32, vec![7], 28),
        (DType::F64, vec![2, 3], 48),
        (DType::BF16, vec![2, 3], 12),
    ] {
        match parse_raw(&bytes, dtype, &shape) {
            Err(TensorFileError::SizeMismatch {
                dtype: d,
                shape: s,
                expected_bytes: e,
                actual_bytes: 24,
                ..
            }) => {
                assert_eq!((d, s, e), (dtype, shape.clone(), expected_bytes));
            }
            other => panic!("{dtype} {shape:?}: {other:?}"),
        }
    }
    let err = parse_raw(&bytes, DType::F32, &[5]).unwrap_err().to_string();
    assert!(
        err.contains("24 bytes") && err.contains("20 bytes") && err.contains("[5]"),
        "{err}"
    );

    // A shape whose product overflows is a typed error, not an allocation.
    let err = parse_raw(&bytes, DType::F32, &[usize::MAX, 2]).unwrap_err();
    assert!(
        matches!(err, TensorFileError::ShapeOverflow { .. }),
        "{err}"
    );
    // The product fits but the byte count does not.
    let err = parse_raw(&bytes, DType::F64, &[usize::MAX / 4]).unwrap_err();
    assert!(
        matches!(err, TensorFileError::ShapeOverflow { .. }),
        "{err}"
    );
    // Huge but representable: rejected by the length check before allocating.
    let err = parse_raw(&bytes, DType::F32, &[1 << 40]).unwrap_err();
    assert!(matches!(err, TensorFileError::SizeMismatch { .. }), "{err}");
}

#[test]
fn missing_files_are_io_errors_that_keep_the_path() {
    let path = std::env::temp_dir().join("ascendcl-validate-does-not-exist.npy");
    for err in [
        tensor_file::read_npy(&path).unwrap_err(),
        tensor_file::read_raw(&path, DType::F32, &[1]).unwrap_err(),
        tensor_file::is_npy_file(&path).unwrap_err(),
    ] {
        match &err {
            TensorFileError::Io { path: p, .. } => assert_eq!(p, &path),
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("does-not-exist.npy"), "{err}");
    }
}

// --- half precision -------------------------------------------------------

/// f16 bits to f64 by the textbook formula, independent of the code under test.
fn f16_reference(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1F);
    let mantissa = f64::from(bits & 0x3FF);
    match exponent {
        0 => sign * mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1024.0 + mantissa) * 2f64.powi(exponent - 25),
    }
}

#[test]
fn f16_and_bf16_conversion_is_bit_exact_including_subnormals_inf_and_nan() {
    // Known f16 bit patterns → exact f32 bit patterns.
    let f16_cases: [(u16, u32); 14] = [
        (0x0000, 0x0000_0000), // +0
        (0x8000, 0x8000_0000), // -0
        (0x3C00, 0x3F80_0000), // 1
        (0xC000, 0xC000_0000), // -2
        (0x3555, 0x3EAA_A000), // 0.333251953125
        (0x7BFF, 0x477F_E000), // 65504, largest normal
        (0x0400, 0x3880_0000), // 2^-14, smallest normal
        (0x03FF, 0x387F_C000), // largest subnormal
        (0x0200, 0x3800_0000), // 2^-15
        (0x0001, 0x3380_0000), // 2^-24, smallest subnormal
        (0x8001, 0xB380_0000), // -2^-24
        (0x7C00, 0x7F80_0000), // +inf
        (0xFC00, 0xFF80_0000), // -inf
        (0x7E00, 0x7FC0_0000), // quiet NaN
    ];
    for (h, f) in f16_cases {
        assert_eq!(f16_bits_to_f32(h).to_bits(), f, "f16 {h:#06x}");
    }
    // NaN payloads and signs survive: signalling NaN 0x7C01, negative NaN 0xFE00.
    assert_eq!(f16_bits_to_f32(0x7C01).to_bits(), 0x7F80_2000);
    assert_eq!(f16_bits_to_f32(0xFE00).to_bits(), 0xFFC0_0000);

    // Every one of the 65536 patterns agrees with the textbook formula.
    for bits in 0..=u16::MAX {
        let got = f16_bits_to_f32(bits);
        let want = f16_reference(bits);
        if want.is_nan() {
            assert!(got.is_nan(), "{bits:#06x}");
        } else {
            assert_eq!(f64::from(got), want, "{bits:#06x}");
            assert_eq!(got.is_sign_negative(), bits & 0x8000 != 0, "{bits:#06x}");
        }
    }

    // bf16 is the top half of an f32, bit for bit.
    let bf16_cases: [(u16, u32); 9] = [
        (0x0000, 0x0000_0000),
        (0x8000, 0x8000_0000),
        (0x3F80, 0x3F80_0000), // 1
        (0xC040, 0xC040_0000), // -3
        (0x0001, 0x0001_0000), // smallest subnormal, 2^-133
        (0x7F7F, 0x7F7F_0000), // largest finite
        (0x7F80, 0x7F80_0000), // +inf
        (0xFF80, 0xFF80_0000), // -inf
        (0x7FC1, 0x7FC1_0000), // NaN with payload
    ];
    for (b, f) in bf16_cases {
        assert_eq!(bf16_bits_to_f32(b).to_bits(), f, "bf16 {b:#06x}");
    }
    assert_eq!(f64::from(bf16_bits_to_f32(0x0001)), 2f64.powi(-133));
    for bits in 0..=u16::MAX {
        assert_eq!(bf16_bits_to_f32(bits).to_bits(), u32::from(bits) << 16);
    }
}
