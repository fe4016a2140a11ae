//! `ascendcl::validate`: .npy and raw readers, half-precision conversion,
//! comparison metrics, verdicts and typed errors. `.npy` files are built by
//! hand here, so no Python is needed.

use std::path::PathBuf;

use ascendcl::validate::{
    self, CompareOptions, DType, Metric, Tensor, Thresholds, ValidateError, Values, Verdict,
    bf16_bits_to_f32, f16_bits_to_f32, parse_npy, parse_raw,
};

/// A `.npy` file of format `version` (1, 2 or 3) with the given header dict
/// and data, padded like `numpy.save` pads it.
fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
    let preamble = if version == 1 { 10 } else { 12 };
    let mut header = dict.as_bytes().to_vec();
    while (preamble + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(&header);
    out.extend_from_slice(data);
    out
}

fn dict(descr: &str, fortran: bool, shape: &str) -> String {
    let fortran = if fortran { "True" } else { "False" };
    format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
}

fn le_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn f64s(tensor: &Tensor) -> Vec<f64> {
    tensor.values().to_f64_vec()
}

/// A fresh directory for one test's files.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-validate-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn f32_tensor(shape: &[usize], values: &[f32]) -> Tensor {
    Tensor::from_f32(shape.to_vec(), values.to_vec()).unwrap()
}

fn compare(expected: &Tensor, actual: &Tensor) -> validate::Report {
    validate::compare(expected, actual, &CompareOptions::default()).unwrap()
}

// --- .npy -----------------------------------------------------------------

#[test]
fn npy_v1_little_endian_f32_reads_back_shape_and_values() {
    let values = [0.0f32, 1.5, -2.25, 3.0e-8, f32::MAX, -0.0];
    let bytes = npy(1, &dict("<f4", false, "(2, 3)"), &le_f32(&values));
    assert_eq!(
        bytes.len() % 64,
        24,
        "header padded to 64 bytes like numpy.save"
    );

    let dir = temp_dir("npy_v1");
    let path = dir.join("a.npy");
    std::fs::write(&path, &bytes).unwrap();
    let tensor = validate::read_npy(&path).unwrap();
    assert_eq!(tensor.dtype(), DType::F32);
    assert_eq!(tensor.shape(), &[2, 3]);
    assert_eq!(tensor.values(), &Values::F32(values.to_vec()));
    assert_eq!(tensor.get_at(&[1, 1]), Some(f64::from(f32::MAX)));
    assert!(validate::is_npy_file(&path).unwrap());
    assert_eq!(parse_npy(&bytes).unwrap(), tensor);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn npy_v2_and_v3_headers_read_like_v1() {
    let data = le_f32(&[1.0, 2.0, 3.0]);
    let v1 = parse_npy(&npy(1, &dict("<f4", false, "(3,)"), &data)).unwrap();
    let v2 = parse_npy(&npy(2, &dict("<f4", false, "(3,)"), &data)).unwrap();
    // Version 3.0 headers are UTF-8 (numpy uses it for non-Latin-1 field names).
    let v3 = parse_npy(&npy(
        3,
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}",
        &data,
    ))
    .unwrap();
    assert_eq!(v1, v2);
    assert_eq!(v1, v3);
    assert_eq!(v1.shape(), &[3]);
}

#[test]
fn npy_big_endian_floats_read_like_little_endian() {
    let values = [1.0f32, -0.5, 1e-30];
    let be: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
    let t = parse_npy(&npy(1, &dict(">f4", false, "(3,)"), &be)).unwrap();
    assert_eq!(t.values(), &Values::F32(values.to_vec()));

    let doubles = [std::f64::consts::PI, -1e300];
    let be: Vec<u8> = doubles.iter().flat_map(|v| v.to_be_bytes()).collect();
    let le: Vec<u8> = doubles.iter().flat_map(|v| v.to_le_bytes()).collect();
    let big = parse_npy(&npy(1, &dict(">f8", false, "(2,)"), &be)).unwrap();
    let little = parse_npy(&npy(1, &dict("<f8", false, "(2,)"), &le)).unwrap();
    assert_eq!(big.dtype(), DType::F64);
    assert_eq!(big, little);
    assert_eq!(f64s(&big), doubles);

    // Half precision, both byte orders: 1.0, -2.0, smallest subnormal.
    let bits = [0x3C00u16, 0xC000, 0x0001];
    let le: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
    let be: Vec<u8> = bits.iter().flat_map(|b| b.to_be_bytes()).collect();
    let expected = vec![1.0, -2.0, 2f32.powi(-24)];
    for (descr, data) in [("<f2", le), (">f2", be)] {
        let t = parse_npy(&npy(1, &dict(descr, false, "(3,)"), &data)).unwrap();
        assert_eq!(t.dtype(), DType::F16);
        assert_eq!(t.values(), &Values::F32(expected.clone()), "{descr}");
    }
}

#[test]
fn npy_integer_and_bool_dtypes_convert_to_f64() {
    let i4: Vec<u8> = [-7i32, 0, i32::MAX]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let i8: Vec<u8> = [-1i64, 1 << 40, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let i8_be: Vec<u8> = [-1i64, 1 << 40, 3]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let cases: [(&str, Vec<u8>, DType, Vec<f64>); 6] = [
        ("<i4", i4, DType::I32, vec![-7.0, 0.0, f64::from(i32::MAX)]),
        ("<i8", i8, DType::I64, vec![-1.0, (1u64 << 40) as f64, 3.0]),
        (
            ">i8",
            i8_be,
            DType::I64,
            vec![-1.0, (1u64 << 40) as f64, 3.0],
        ),
        ("<u1", vec![0, 7, 255], DType::U8, vec![0.0, 7.0, 255.0]),
        ("|u1", vec![0, 7, 255], DType::U8, vec![0.0, 7.0, 255.0]),
        ("|b1", vec![0, 1, 2], DType::Bool, vec![0.0, 1.0, 1.0]),
    ];
    for (descr, data, dtype, expected) in cases {
        let t = parse_npy(&npy(1, &dict(descr, false, "(3,)"), &data)).unwrap();
        assert_eq!(t.dtype(), dtype, "{descr}");
        assert_eq!(t.values(), &Values::F64(expected), "{descr}");
    }
}

#[test]
fn npy_fortran_order_is_transposed_into_c_order() {
    // numpy.asfortranarray(numpy.arange(6, dtype='<f4').reshape(2, 3)) stores
    // the columns: 0 3 1 4 2 5.
    let data = le_f32(&[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let t = parse_npy(&npy(1, &dict("<f4", true, "(2, 3)"), &data)).unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(f64s(&t), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);

    // Three dimensions: element [i, j, k] = 100i + 10j + k, stored with i fastest.
    let shape = [2usize, 3, 4];
    let mut fortran = Vec::new();
    for k in 0..4 {
        for j in 0..3 {
            for i in 0..2 {
                fortran.push((100 * i + 10 * j + k) as f32);
            }
        }
    }
    let t = parse_npy(&npy(1, &dict("<f4", true, "(2, 3, 4)"), &le_f32(&fortran))).unwrap();
    assert_eq!(t.shape(), &shape);
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                assert_eq!(t.get_at(&[i, j, k]), Some((100 * i + 10 * j + k) as f64));
            }
        }
    }
}

#[test]
fn npy_scalar_empty_and_python2_long_shapes_parse() {
    let scalar = parse_npy(&npy(1, &dict("<f4", false, "()"), &le_f32(&[2.5]))).unwrap();
    assert_eq!(scalar.shape(), &[] as &[usize]);
    assert_eq!(f64s(&scalar), [2.5]);

    let empty = parse_npy(&npy(1, &dict("<f4", false, "(0, 5)"), &[])).unwrap();
    assert_eq!(empty.shape(), &[0, 5]);
    assert!(empty.is_empty());

    // Python 2 numpy wrote longs: (2L, 1L).
    let long = parse_npy(&npy(
        1,
        &dict("<f4", false, "(2L, 1L)"),
        &le_f32(&[1.0, 2.0]),
    ))
    .unwrap();
    assert_eq!(long.shape(), &[2, 1]);
}

#[test]
fn npy_unsupported_dtypes_are_typed_errors() {
    for descr in ["<c8", "|S3", "<V2", "<f16", "<M8[ns]", "O"] {
        let bytes = npy(1, &dict(descr, false, "(1,)"), &[0; 16]);
        match parse_npy(&bytes) {
            Err(ValidateError::UnsupportedDtype { dtype, .. }) => assert_eq!(dtype, descr),
            other => panic!("{descr}: {other:?}"),
        }
    }
    let structured =
        "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }";
    let err = parse_npy(&npy(1, structured, &[0; 8])).unwrap_err();
    assert!(
        matches!(err, ValidateError::UnsupportedDtype { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("astype"), "says what to do: {err}");
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
        assert!(!validate::is_npy_file(&path).unwrap());
        let t = validate::read_raw(&path, dtype, &[2, 2]).unwrap();
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
            Err(ValidateError::SizeMismatch {
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
    assert!(matches!(err, ValidateError::ShapeOverflow { .. }), "{err}");
    // The product fits but the byte count does not.
    let err = parse_raw(&bytes, DType::F64, &[usize::MAX / 4]).unwrap_err();
    assert!(matches!(err, ValidateError::ShapeOverflow { .. }), "{err}");
    // Huge but representable: rejected by the length check before allocating.
    let err = parse_raw(&bytes, DType::F32, &[1 << 40]).unwrap_err();
    assert!(matches!(err, ValidateError::SizeMismatch { .. }), "{err}");
}

#[test]
fn missing_files_are_io_errors_that_keep_the_path() {
    let path = std::env::temp_dir().join("ascendcl-validate-does-not-exist.npy");
    for err in [
        validate::read_npy(&path).unwrap_err(),
        validate::read_raw(&path, DType::F32, &[1]).unwrap_err(),
        validate::is_npy_file(&path).unwrap_err(),
    ] {
        match &err {
            ValidateError::Io { path: p, .. } => assert_eq!(p, &path),
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("does-not-exist.npy"), "{err}");
    }
}

// --- robustness -----------------------------------------------------------

#[test]
fn truncated_or_garbage_files_are_typed_errors_not_panics() {
    let good = npy(1, &dict("<f4", false, "(2, 3)"), &le_f32(&[1.0; 6]));
    // Every truncation.
    for len in 0..good.len() {
        let err = parse_npy(&good[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                ValidateError::BadNpyHeader { .. } | ValidateError::SizeMismatch { .. }
            ),
            "truncated to {len}: {err:?}"
        );
    }
    // Trailing bytes are a size mismatch too.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        parse_npy(&long),
        Err(ValidateError::SizeMismatch { .. })
    ));

    // Every single-byte corruption of the preamble and header: an error or a
    // (different) tensor, never a panic.
    for i in 0..good.len() - 24 {
        for value in [0u8, b' ', b'(', b')', b'\'', b'{', b'9', b'-', 0xFF] {
            let mut bad = good.clone();
            bad[i] = value;
            let _ = parse_npy(&bad);
        }
    }

    // Pseudo-random garbage, with and without a valid magic.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for round in 0..2000 {
        let len = (round % 300) as usize;
        let mut bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        if round % 2 == 0 && len >= 10 {
            bytes[..8].copy_from_slice(b"\x93NUMPY\x01\x00");
        }
        assert!(parse_npy(&bytes).is_err(), "garbage round {round} parsed");
    }

    // Headers that lie about their length, in every version.
    for (version, len_bytes) in [
        (1u8, vec![0xFF, 0xFF]),
        (2, vec![0xFF, 0xFF, 0xFF, 0xFF]),
        (3, vec![0xFF, 0xFF, 0xFF, 0x7F]),
    ] {
        let mut bytes = b"\x93NUMPY".to_vec();
        bytes.extend_from_slice(&[version, 0]);
        bytes.extend_from_slice(&len_bytes);
        bytes.extend_from_slice(b"{'descr': '<f4'}");
        assert!(
            matches!(parse_npy(&bytes), Err(ValidateError::BadNpyHeader { .. })),
            "v{version}"
        );
    }

    // Unknown versions, shapes whose product overflows, and absurd shapes.
    let err = parse_npy(&[&b"\x93NUMPY\x04\x00\x00\x00"[..], &[b' '; 64]].concat()).unwrap_err();
    assert!(err.to_string().contains("version 4.0"), "{err}");
    let huge = npy(
        1,
        &dict("<f4", false, "(4294967296, 4294967296, 4294967296)"),
        &[],
    );
    assert!(matches!(
        parse_npy(&huge),
        Err(ValidateError::ShapeOverflow { .. })
    ));
    let too_long = npy(1, &dict("<f4", false, "(99999999999999999999999,)"), &[]);
    assert!(matches!(
        parse_npy(&too_long),
        Err(ValidateError::BadNpyHeader { .. })
    ));
    let absurd = npy(1, &dict("<f8", false, "(1099511627776,)"), &[0; 8]);
    assert!(matches!(
        parse_npy(&absurd),
        Err(ValidateError::SizeMismatch { .. })
    ));
    let negative = npy(1, &dict("<f4", false, "(-1,)"), &[]);
    assert!(matches!(
        parse_npy(&negative),
        Err(ValidateError::BadNpyHeader { .. })
    ));
    let missing_key = npy(1, "{'descr': '<f4', 'shape': (1,), }", &[0; 4]);
    let err = parse_npy(&missing_key).unwrap_err();
    assert!(err.to_string().contains("fortran_order"), "{err}");

    // A file without the magic, from disk.
    let dir = temp_dir("garbage");
    let path = dir.join("not-really.npy");
    std::fs::write(&path, b"hello, this is not an array").unwrap();
    let err = validate::read_npy(&path).unwrap_err();
    assert!(matches!(err, ValidateError::BadNpyHeader { .. }), "{err}");
    assert!(err.to_string().contains("not-really.npy"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

// --- comparison -----------------------------------------------------------

#[test]
fn identical_tensors_are_clean_with_zero_errors() {
    let values: Vec<f32> = (0..24).map(|i| i as f32 * 0.37 - 4.0).collect();
    let a = f32_tensor(&[2, 3, 4], &values);
    let report = compare(&a, &a.clone());
    assert_eq!(report.verdict, Verdict::Clean);
    assert_eq!(report.elements, 24);
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.max_rel_error, 0.0);
    assert_eq!(report.mean_abs_error, 0.0);
    assert_eq!(report.rmse, 0.0);
    assert!((report.cosine_similarity - 1.0).abs() < 1e-12);
    assert_eq!(report.nonfinite_mismatches, 0);
    assert_eq!(report.over_threshold, Default::default());
    assert!(report.worst.is_empty());
    assert_eq!(report.max_abs_error_index, None);

    // Same values stored as different dtypes still compare equal.
    let as_f64 = Tensor::from_f64(
        vec![2, 3, 4],
        values.iter().map(|&v| f64::from(v)).collect(),
    )
    .unwrap();
    assert_eq!(compare(&a, &as_f64).verdict, Verdict::Clean);

    // Empty tensors and all-zero tensors are clean too.
    let empty = f32_tensor(&[0, 3], &[]);
    assert_eq!(compare(&empty, &empty).verdict, Verdict::Clean);
    let zeros = f32_tensor(&[3], &[0.0; 3]);
    assert_eq!(compare(&zeros, &zeros).cosine_similarity, 1.0);
}

#[test]
fn metrics_match_hand_computed_values() {
    let expected = Tensor::from_f64(vec![4], vec![1.0, -2.0, 4.0, 0.0]).unwrap();
    let actual = Tensor::from_f64(vec![4], vec![1.0, -2.5, 4.0, 0.25]).unwrap();
    let report = compare(&expected, &actual);
    assert_eq!(report.max_abs_error, 0.5);
    assert_eq!(report.max_abs_error_index, Some(vec![1]));
    // |0.25 - 0| / max(0, 1e-12) = 2.5e11: the floor at work.
    assert_eq!(report.max_rel_error, 0.25 / 1e-12);
    assert_eq!(report.max_rel_error_index, Some(vec![3]));
    assert_eq!(report.mean_abs_error, 0.75 / 4.0);
    assert!((report.rmse - ((0.25 + 0.0625) / 4.0f64).sqrt()).abs() < 1e-15);
    let dot = 1.0 + 5.0 + 16.0;
    let cos = dot / ((1.0f64 + 4.0 + 16.0).sqrt() * (1.0f64 + 6.25 + 16.0 + 0.0625).sqrt());
    assert!((report.cosine_similarity - cos).abs() < 1e-12);
    assert_eq!(report.over_threshold.clean, 2);
    assert_eq!(report.over_threshold.investigate, 2);
    assert_eq!(report.verdict, Verdict::FindTheOperator);

    // A user-set floor tames the relative error of near-zero values.
    let options = CompareOptions {
        relative_floor: 1.0,
        metric: Metric::Relative,
        ..Default::default()
    };
    let report = validate::compare(&expected, &actual, &options).unwrap();
    assert_eq!(report.max_rel_error, 0.25);
    assert_eq!(report.verdict_error, 0.25);
    let bad_floor = CompareOptions {
        relative_floor: 0.0,
        ..Default::default()
    };
    assert!(matches!(
        validate::compare(&expected, &actual, &bad_floor),
        Err(ValidateError::InvalidArgument(_))
    ));
}

#[test]
fn worst_elements_are_reported_with_their_multi_dimensional_indices() {
    let shape = [2usize, 3, 4];
    let expected = vec![1.0f32; 24];
    let mut actual = expected.clone();
    actual[23] += 0.5; // [1, 2, 3]
    actual[6] -= 0.25; // [0, 1, 2]
    actual[13] += 0.25; // [1, 0, 1], ties with [0, 1, 2]: lower flat index first
    actual[0] += 0.125; // [0, 0, 0]
    let options = CompareOptions {
        top_k: 3,
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&shape, &expected),
        &f32_tensor(&shape, &actual),
        &options,
    )
    .unwrap();
    let got: Vec<(Vec<usize>, usize, f64, f64, f64)> = report
        .worst
        .iter()
        .map(|w| {
            (
                w.index.clone(),
                w.flat_index,
                w.expected,
                w.actual,
                w.abs_error,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (vec![1, 2, 3], 23, 1.0, 1.5, 0.5),
            (vec![0, 1, 2], 6, 1.0, 0.75, 0.25),
            (vec![1, 0, 1], 13, 1.0, 1.25, 0.25),
        ]
    );
    assert_eq!(report.worst[0].rel_error, 0.5);
    assert_eq!(report.max_abs_error_index, Some(vec![1, 2, 3]));
    assert_eq!(validate::unravel_index(&shape, 23), vec![1, 2, 3]);

    // Asking for more than there are lists only the elements that differ.
    let options = CompareOptions {
        top_k: 100,
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&shape, &expected),
        &f32_tensor(&shape, &actual),
        &options,
    )
    .unwrap();
    assert_eq!(report.worst.len(), 4);
    assert_eq!(report.worst[3].index, vec![0, 0, 0]);

    // The table and the JSON carry the indices.
    let table = report.to_string();
    assert!(
        table.contains("[1, 2, 3]") && table.contains("FIND-THE-OPERATOR"),
        "{table}"
    );
    let json = report.to_json();
    assert!(
        json.contains("\"index\":[1,2,3],\"flat_index\":23"),
        "{json}"
    );
    assert!(json.contains("\"verdict\":\"find-the-operator\""), "{json}");
}

#[test]
fn verdict_thresholds_follow_the_migration_checklist() {
    let t = Thresholds::default();
    assert_eq!(
        (t.clean(), t.acceptable(), t.investigate()),
        (1e-5, 1e-4, 1e-3)
    );
    for (error, verdict) in [
        (0.0, Verdict::Clean),
        (1e-5, Verdict::Clean),
        (1.5e-5, Verdict::Acceptable),
        (1e-4, Verdict::Acceptable),
        (1.01e-4, Verdict::Investigate),
        (1e-3, Verdict::Investigate),
        (1.01e-3, Verdict::FindTheOperator),
        (f64::INFINITY, Verdict::FindTheOperator),
        (f64::NAN, Verdict::FindTheOperator),
    ] {
        assert_eq!(t.verdict(error), verdict, "{error:e}");
    }
    assert!(Verdict::Clean.passes() && Verdict::Acceptable.passes());
    assert!(!Verdict::Investigate.passes() && !Verdict::FindTheOperator.passes());
    assert!(Verdict::Clean < Verdict::FindTheOperator);

    // End to end: one element off by each amount (in f64, so the error is exact).
    for (delta, verdict) in [
        (5e-6, Verdict::Clean),
        (5e-5, Verdict::Acceptable),
        (5e-4, Verdict::Investigate),
        (5e-3, Verdict::FindTheOperator),
    ] {
        let e = Tensor::from_f64(vec![2], vec![0.5, 0.25]).unwrap();
        let a = Tensor::from_f64(vec![2], vec![0.5, 0.25 + delta]).unwrap();
        let report = compare(&e, &a);
        assert_eq!(report.verdict, verdict, "{delta:e}: {}", report.reason());
    }

    // Relative metric and custom thresholds.
    let e = Tensor::from_f64(vec![1], vec![1000.0]).unwrap();
    let a = Tensor::from_f64(vec![1], vec![1000.05]).unwrap(); // abs 5e-2, rel 5e-5
    assert_eq!(compare(&e, &a).verdict, Verdict::FindTheOperator);
    let relative = CompareOptions {
        metric: Metric::Relative,
        ..Default::default()
    };
    assert_eq!(
        validate::compare(&e, &a, &relative).unwrap().verdict,
        Verdict::Acceptable
    );
    let loose = CompareOptions {
        thresholds: Thresholds::new(0.1, 0.2, 0.3).unwrap(),
        ..Default::default()
    };
    assert_eq!(
        validate::compare(&e, &a, &loose).unwrap().verdict,
        Verdict::Clean
    );
    assert!(Thresholds::new(1e-3, 1e-4, 1e-5).is_err());
    assert!(Thresholds::new(-1.0, 1e-4, 1e-3).is_err());
    assert!(Thresholds::new(1e-5, 1e-4, f64::NAN).is_err());
}

#[test]
fn nan_in_one_tensor_only_is_the_worst_verdict() {
    let e = f32_tensor(&[2, 2], &[1.0, f32::NAN, 3.0, f32::INFINITY]);
    // NaN in both at [0, 1] and +inf in both at [1, 1]: equal.
    let same = compare(&e, &e.clone());
    assert_eq!(same.verdict, Verdict::Clean);
    assert_eq!(same.matched_nonfinite, 2);
    assert_eq!(same.nonfinite_mismatches, 0);

    // NaN in the actual tensor only: the worst verdict, however small the other errors.
    let a = f32_tensor(&[2, 2], &[f32::NAN, f32::NAN, 3.0, f32::INFINITY]);
    let report = compare(&e, &a);
    assert_eq!(report.verdict, Verdict::FindTheOperator);
    assert_eq!(report.nonfinite_mismatches, 1);
    assert_eq!(report.max_abs_error, 0.0, "metrics cover finite pairs only");
    assert_eq!(report.worst.len(), 1);
    assert_eq!(report.worst[0].index, vec![0, 0]);
    assert!(report.worst[0].actual.is_nan());
    assert_eq!(report.worst[0].abs_error, f64::INFINITY);
    assert_eq!(report.over_threshold.investigate, 1);
    assert!(report.reason().contains("NaN/Inf"), "{}", report.reason());
    assert!(report.to_json().contains("\"actual\":\"NaN\""));

    // NaN in the expected tensor only, opposite infinities, inf vs finite.
    for (x, y) in [
        (f32::NAN, 1.0),
        (f32::INFINITY, f32::NEG_INFINITY),
        (1.0, f32::INFINITY),
    ] {
        let report = compare(&f32_tensor(&[1], &[x]), &f32_tensor(&[1], &[y]));
        assert_eq!(report.verdict, Verdict::FindTheOperator, "{x} vs {y}");
        assert_eq!(report.nonfinite_mismatches, 1);
    }
    // Even with the loosest thresholds.
    let loose = CompareOptions {
        thresholds: Thresholds::new(1e300, 1e300, 1e300).unwrap(),
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&[1], &[f32::NAN]),
        &f32_tensor(&[1], &[0.0]),
        &loose,
    )
    .unwrap();
    assert_eq!(report.verdict, Verdict::FindTheOperator);
}

#[test]
fn shape_mismatch_is_a_typed_error_naming_both_shapes() {
    let e = f32_tensor(&[2, 3], &[0.0; 6]);
    let a = f32_tensor(&[3, 2], &[0.0; 6]);
    let err = validate::compare(&e, &a, &CompareOptions::default()).unwrap_err();
    match &err {
        ValidateError::ShapeMismatch { expected, actual } => {
            assert_eq!(
                (expected.as_slice(), actual.as_slice()),
                (&[2, 3][..], &[3, 2][..])
            );
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("[2, 3]") && message.contains("[3, 2]"),
        "{message}"
    );
    // Same element count, different rank: still a mismatch.
    let flat = f32_tensor(&[6], &[0.0; 6]);
    assert!(validate::compare(&e, &flat, &CompareOptions::default()).is_err());
    // A tensor is only built when values and shape agree.
    assert!(matches!(
        Tensor::from_f32(vec![2, 3], vec![0.0; 5]),
        Err(ValidateError::InvalidArgument(_))
    ));
}
