//! `ascendcl::tensor_file` `.npy` writer: the header numpy.save writes
//! (format 1.0, padded to 64 bytes), every dtype round-trips through the
//! reader, 64-bit integers are exact from slices, values an integer dtype
//! cannot hold are refused before a file exists, a failed write names the
//! path, half-precision rounding is to nearest-even, and NumPy itself reads
//! the files (when python3 with numpy is installed; CI sets
//! ASCENDCL_REQUIRE_NUMPY=1 so that it cannot skip).

mod tensor_file_common;

use std::process::Command;

use ascendcl::tensor_file::{
    self, DType, Tensor, TensorFileError, Values, bf16_bits_to_f32, f16_bits_to_f32,
    f32_to_bf16_bits, f32_to_f16_bits, parse_npy, slice_to_npy_bytes, to_npy_bytes,
};
use tensor_file_common::temp_dir;

/// The header text of a file (between the length and the data).
fn header_text(bytes: &[u8]) -> String {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "format 1.0");
    let len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    String::from_utf8(bytes[10..10 + len].to_vec()).unwrap()
}

/// One tensor of each dtype, with values its type holds (edges included).
fn one_of_each() -> Vec<Tensor> {
    let f64s =
        |dtype, shape: Vec<usize>, v: Vec<f64>| Tensor::new(dtype, shape, Values::F64(v)).unwrap();
    let f32s =
        |dtype, shape: Vec<usize>, v: Vec<f32>| Tensor::new(dtype, shape, Values::F32(v)).unwrap();
    vec![
        f32s(
            DType::F32,
            vec![2, 3],
            vec![0.0, -1.5, 3.25e-8, f32::MAX, f32::NAN, f32::NEG_INFINITY],
        ),
        f64s(DType::F64, vec![3], vec![1e300, -0.0, std::f64::consts::PI]),
        // exact float16 values: 1, -2, 65504 (max), 2^-24 (min subnormal)
        f32s(
            DType::F16,
            vec![4],
            vec![1.0, -2.0, 65504.0, 2f32.powi(-24)],
        ),
        f32s(DType::BF16, vec![2], vec![1.0, -3.0e38]),
        f64s(DType::I8, vec![2], vec![-128.0, 127.0]),
        f64s(DType::I16, vec![2], vec![-32768.0, 32767.0]),
        f64s(DType::I32, vec![2], vec![-2147483648.0, 2147483647.0]),
        f64s(
            DType::I64,
            vec![2],
            vec![-(2f64.powi(63)), 4503599627370497.0],
        ),
        f64s(DType::U8, vec![2], vec![0.0, 255.0]),
        f64s(DType::U16, vec![1, 1], vec![65535.0]),
        f64s(DType::U32, vec![2], vec![0.0, 4294967295.0]),
        f64s(DType::U64, vec![1], vec![2f64.powi(64) - 2048.0]),
        f64s(DType::Bool, vec![3], vec![1.0, 0.0, 1.0]),
        f32s(DType::F32, vec![], vec![42.0]),
        f32s(DType::F32, vec![0, 4], vec![]),
    ]
}

#[test]
fn the_header_is_numpy_format_1_0_padded_to_64_bytes() {
    for (shape, text) in [
        (vec![2, 3], "(2, 3)"),
        (vec![5], "(5,)"),
        (vec![], "()"),
        (vec![0, 1, 7], "(0, 1, 7)"),
    ] {
        let n = shape.iter().product();
        let bytes = slice_to_npy_bytes(&shape, &vec![0.5f32; n]).unwrap();
        let header = header_text(&bytes);
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {text}, }}");
        let padding = header.strip_prefix(&dict).expect("the dict first");
        assert!(
            padding.ends_with('\n') && padding.trim_end_matches('\n').bytes().all(|b| b == b' ')
        );
        assert_eq!((10 + header.len()) % 64, 0, "data starts 64-aligned");
        assert_eq!(bytes.len(), 10 + header.len() + 4 * n);
    }
    let descr = |dtype| {
        let t = Tensor::new(dtype, vec![1], Values::F64(vec![1.0])).unwrap();
        let header = header_text(&to_npy_bytes(&t).unwrap());
        header[11..14].to_owned()
    };
    for (dtype, code) in [
        (DType::Bool, "|b1"),
        (DType::U8, "|u1"),
        (DType::I8, "|i1"),
        (DType::U16, "<u2"),
        (DType::I32, "<i4"),
        (DType::U64, "<u8"),
        (DType::F16, "<f2"),
        (DType::BF16, "<f4"),
        (DType::F32, "<f4"),
        (DType::F64, "<f8"),
    ] {
        assert_eq!(descr(dtype), code, "{dtype}");
    }
}

#[test]
fn every_dtype_round_trips_through_the_reader() {
    for tensor in one_of_each() {
        let back = parse_npy(&to_npy_bytes(&tensor).unwrap()).unwrap();
        assert_eq!(back.shape(), tensor.shape(), "{}", tensor.dtype());
        // bfloat16 is written as float32, exactly
        let dtype = match tensor.dtype() {
            DType::BF16 => DType::F32,
            other => other,
        };
        assert_eq!(back.dtype(), dtype);
        let (a, b) = (tensor.values().to_f64_vec(), back.values().to_f64_vec());
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "{dtype}: {x} vs {y}"
            );
        }
    }
    // the file path does the same, and the slice writer exactly so for 64-bit integers
    let dir = temp_dir("npy_write_roundtrip");
    let path = dir.join("t.npy");
    let t = Tensor::from_f32(vec![2, 2], vec![1.0, 2.0, 3.0, 4.5]).unwrap();
    tensor_file::write_npy(&path, &t).unwrap();
    assert_eq!(tensor_file::read_npy(&path).unwrap(), t);
    let big = [i64::MIN, -1, 0, i64::MAX];
    tensor_file::write_npy_slice(&path, &[4], &big).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let data: Vec<u8> = big.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert!(bytes.ends_with(&data), "i64 written bit for bit");
    assert_eq!(tensor_file::read_npy(&path).unwrap().dtype(), DType::I64);
    let flags = slice_to_npy_bytes(&[3], &[true, false, true]).unwrap();
    assert!(flags.ends_with(&[1, 0, 1]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn values_an_integer_dtype_cannot_hold_are_refused_before_the_file_is_created() {
    let dir = temp_dir("npy_write_refused");
    for (dtype, value) in [
        (DType::I8, 128.0),
        (DType::U8, -1.0),
        (DType::I32, 0.5),
        (DType::U64, f64::NAN),
        (DType::I64, 2f64.powi(63)),
        (DType::Bool, 2.0),
    ] {
        let t = Tensor::new(dtype, vec![3], Values::F64(vec![0.0, 1.0, value])).unwrap();
        let path = dir.join(format!("{dtype}.npy"));
        match tensor_file::write_npy(&path, &t) {
            Err(TensorFileError::Unrepresentable {
                dtype: d,
                index: 2,
                value: v,
            }) => {
                assert_eq!(d, dtype);
                assert!(v.to_bits() == value.to_bits(), "{v}");
            }
            other => panic!("{dtype} {value}: {other:?}"),
        }
        assert!(!path.exists(), "no file for a refused tensor");
        assert!(to_npy_bytes(&t).is_err());
    }
    // a shape that does not match the values is an argument error
    assert!(matches!(
        slice_to_npy_bytes(&[2, 2], &[1.0f32; 3]),
        Err(TensorFileError::InvalidArgument(_))
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_failed_write_names_the_path() {
    let path = std::env::temp_dir()
        .join("ascendcl-no-such-dir-for-npy")
        .join("x.npy");
    let t = Tensor::from_f32(vec![1], vec![1.0]).unwrap();
    match tensor_file::write_npy(&path, &t) {
        Err(e @ TensorFileError::Write { .. }) => {
            assert!(
                e.to_string().contains("ascendcl-no-such-dir-for-npy/x.npy"),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn half_precision_rounds_to_nearest_even_and_round_trips_every_value() {
    for bits in 0..=u16::MAX {
        let x = f16_bits_to_f32(bits);
        let back = f32_to_f16_bits(x);
        if x.is_nan() {
            assert!(f16_bits_to_f32(back).is_nan(), "{bits:#06x}");
        } else {
            assert_eq!(back, bits, "f16 {bits:#06x}");
        }
        let y = bf16_bits_to_f32(bits);
        let back = f32_to_bf16_bits(y);
        if y.is_nan() {
            assert!(bf16_bits_to_f32(back).is_nan(), "{bits:#06x}");
        } else {
            assert_eq!(back, bits, "bf16 {bits:#06x}");
        }
    }
    // Between two neighbours: the nearer wins, a tie goes to the even one.
    // Every finite positive f16 below 65504 and the midpoints around it.
    for bits in 0u16..0x7BFF {
        let (lo, hi) = (f16_bits_to_f32(bits), f16_bits_to_f32(bits + 1));
        let mid = (f64::from(lo) + f64::from(hi)) / 2.0;
        let mid = mid as f32; // exact: one bit more than f16's mantissa
        let even = if bits % 2 == 0 { bits } else { bits + 1 };
        assert_eq!(f32_to_f16_bits(mid), even, "tie at {mid:e}");
        assert_eq!(f32_to_f16_bits(-mid), even | 0x8000, "tie at -{mid:e}");
        let above = f32::from_bits(mid.to_bits() + 1);
        let below = f32::from_bits(mid.to_bits() - 1);
        assert_eq!(f32_to_f16_bits(above), bits + 1, "just above {mid:e}");
        assert_eq!(f32_to_f16_bits(below), bits, "just below {mid:e}");
    }
    assert_eq!(f32_to_f16_bits(65519.996), 0x7BFF);
    assert_eq!(f32_to_f16_bits(65520.0), 0x7C00);
    assert_eq!(f32_to_f16_bits(1e-10), 0);
    assert_eq!(f32_to_f16_bits(-1e-10), 0x8000);
    assert_eq!(f32_to_bf16_bits(f32::from_bits(0x3F80_8001)), 0x3F81);
    assert_eq!(f32_to_bf16_bits(f32::from_bits(0x3F81_8000)), 0x3F82);
}

#[test]
fn numpy_reads_every_dtype_written() {
    let have_numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_numpy {
        assert!(
            std::env::var_os("ASCENDCL_REQUIRE_NUMPY").is_none(),
            "ASCENDCL_REQUIRE_NUMPY is set but python3 cannot import numpy"
        );
        eprintln!("skipped: python3 with numpy is not installed (pip install numpy to run it)");
        return;
    }
    let dir = temp_dir("npy_write_numpy");
    let mut expected = String::new();
    for (i, tensor) in one_of_each().into_iter().enumerate() {
        tensor_file::write_npy(dir.join(format!("{i:02}.npy")), &tensor).unwrap();
        let dtype = match tensor.dtype() {
            DType::BF16 => DType::F32,
            other => other,
        };
        let values: Vec<String> = tensor
            .values()
            .to_f64_vec()
            .iter()
            .map(|&x| {
                if dtype == DType::Bool {
                    (x != 0.0).to_string()
                } else {
                    repr(x)
                }
            })
            .collect();
        expected.push_str(&format!(
            "{} {:?} [{}]\n",
            dtype.name(),
            tensor.shape(),
            values.join(", ")
        ));
    }
    // numpy prints each file as: dtype shape [values as Python floats/bools]
    let script = r#"
import numpy, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/*.npy")):
    a = numpy.load(f, allow_pickle=False)
    vals = [repr(bool(x)) if a.dtype == bool else repr(float(x)) for x in a.reshape(-1)]
    print(a.dtype.name, list(a.shape), "[" + ", ".join(vals) + "]")
"#;
    let out = Command::new("python3")
        .args(["-c", script, dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        got,
        expected.replace("true", "True").replace("false", "False")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Python's `repr(float(x))`.
fn repr(x: f64) -> String {
    if x.is_nan() {
        "nan".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else if x == x.trunc() && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        // shortest round-trip digits, in Python's exponent style
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap();
        let e: i32 = e.parse().unwrap();
        if (-4..16).contains(&e) {
            format!("{x}")
        } else {
            format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
    }
}
