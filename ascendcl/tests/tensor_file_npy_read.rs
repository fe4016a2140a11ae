//! `ascendcl::tensor_file` `.npy` reader: format versions, byte orders, dtypes,
//! Fortran order, odd shapes, and typed errors (never panics) for
//! unsupported, truncated or garbage files. `.npy` files are built by hand
//! here, so no Python is needed.

mod tensor_file_common;

use ascendcl::tensor_file::{self, DType, TensorFileError, Values, parse_npy};
use tensor_file_common::{dict, f64s, le_f32, npy, temp_dir};

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
    let tensor = tensor_file::read_npy(&path).unwrap();
    assert_eq!(tensor.dtype(), DType::F32);
    assert_eq!(tensor.shape(), &[2, 3]);
    assert_eq!(tensor.values(), &Values::F32(values.to_vec()));
    assert_eq!(tensor.get_at(&[1, 1]), Some(f64::from(f32::MAX)));
    assert!(tensor_file::is_npy_file(&path).unwrap());
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
            Err(TensorFileError::UnsupportedDtype { dtype, .. }) => assert_eq!(dtype, descr),
            other => panic!("{descr}: {other:?}"),
        }
    }
    let structured =
        "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }";
    let err = parse_npy(&npy(1, structured, &[0; 8])).unwrap_err();
    assert!(
        matches!(err, TensorFileError::UnsupportedDtype { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("astype"), "says what to do: {err}");
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
                TensorFileError::BadNpyHeader { .. } | TensorFileError::SizeMismatch { .. }
            ),
            "truncated to {len}: {err:?}"
        );
    }
    // Trailing bytes are a size mismatch too.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        parse_npy(&long),
        Err(TensorFileError::SizeMismatch { .. })
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
            matches!(parse_npy(&bytes), Err(TensorFileError::BadNpyHeader { .. })),
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
        Err(TensorFileError::ShapeOverflow { .. })
    ));
    let too_long = npy(1, &dict("<f4", false, "(99999999999999999999999,)"), &[]);
    assert!(matches!(
        parse_npy(&too_long),
        Err(TensorFileError::BadNpyHeader { .. })
    ));
    let absurd = npy(1, &dict("<f8", false, "(1099511627776,)"), &[0; 8]);
    assert!(matches!(
        parse_npy(&absurd),
        Err(TensorFileError::SizeMismatch { .. })
    ));
    let negative = npy(1, &dict("<f4", false, "(-1,)"), &[]);
    assert!(matches!(
        parse_npy(&negative),
        Err(TensorFileError::BadNpyHeader { .. })
    ));
    let missing_key = npy(1, "{'descr': '<f4', 'shape': (1,), }", &[0; 4]);
    let err = parse_npy(&missing_key).unwrap_err();
    assert!(err.to_string().contains("fortran_order"), "{err}");

    // A file without the magic, from disk.
    let dir = temp_dir("garbage");
    let path = dir.join("not-really.npy");
    std::fs::write(&path, b"hello, this is not an array").unwrap();
    let err = tensor_file::read_npy(&path).unwrap_err();
    assert!(matches!(err, TensorFileError::BadNpyHeader { .. }), "{err}");
    assert!(err.to_string().contains("not-really.npy"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
