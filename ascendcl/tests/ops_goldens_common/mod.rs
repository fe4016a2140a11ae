//! Reading the PyTorch golden cases of `tests/goldens/ops` (format in its
//! README): manifests, raw `.npy` storage, and the per-element tolerance check.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ascendcl::ops::DType;
use ascendcl::validate::{self, DType as VDType};

/// One `tensor` line.
#[derive(Debug, Clone)]
pub struct TensorSpec {
    pub dtype: String,
    pub file: PathBuf,
    /// View shape, strides, offset; `None` for the whole file.
    pub view: Option<(Vec<usize>, Vec<usize>, usize)>,
}

/// One `expect` line.
#[derive(Debug, Clone)]
pub struct Expect {
    pub role: String,
    pub dtype: String,
    pub file: PathBuf,
    pub rtol: f64,
    pub atol: f64,
}

/// A parsed `case.txt`.
#[derive(Debug, Default)]
pub struct Case {
    pub name: String,
    pub op: String,
    pub tensors: BTreeMap<String, TensorSpec>,
    pub scalars: BTreeMap<String, (String, String)>,
    pub ints: BTreeMap<String, i64>,
    pub bools: BTreeMap<String, bool>,
    pub int_lists: BTreeMap<String, Vec<i64>>,
    pub dtypes: BTreeMap<String, String>,
    pub expects: Vec<Expect>,
}

fn list<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if text.is_empty() {
        return Vec::new();
    }
    text.split(',')
        .map(|v| v.parse().expect("a number in a list"))
        .collect()
}

impl Case {
    pub fn read(dir: &Path) -> Case {
        let text = std::fs::read_to_string(dir.join("case.txt")).expect("case.txt");
        let mut case = Case {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            ..Case::default()
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let t: Vec<&str> = line.split(' ').collect();
            match t[0] {
                "op" => case.op = t[1].to_string(),
                "tensor" => {
                    let view = (t.len() > 4).then(|| {
                        assert_eq!((t[4], t[6], t[8]), ("view", "strides", "offset"), "{line}");
                        (list(t[5]), list(t[7]), t[9].parse().unwrap())
                    });
                    case.tensors.insert(
                        t[1].to_string(),
                        TensorSpec {
                            dtype: t[2].to_string(),
                            file: dir.join(t[3]),
                            view,
                        },
                    );
                }
                "scalar" => {
                    case.scalars
                        .insert(t[1].to_string(), (t[2].to_string(), t[3].to_string()));
                }
                "int" => {
                    case.ints.insert(t[1].to_string(), t[2].parse().unwrap());
                }
                "bool" => {
                    case.bools.insert(t[1].to_string(), t[2] == "1");
                }
                "ints" => {
                    case.int_lists.insert(t[1].to_string(), list(t[2]));
                }
                "dtype" => {
                    case.dtypes.insert(t[1].to_string(), t[2].to_string());
                }
                "expect" => case.expects.push(Expect {
                    role: t[1].to_string(),
                    dtype: t[2].to_string(),
                    file: dir.join(t[3]),
                    rtol: t[4].parse().unwrap(),
                    atol: t[5].parse().unwrap(),
                }),
                other => panic!("{}: unknown manifest item {other}", case.name),
            }
        }
        case
    }
}

/// Every case directory, sorted.
pub fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens/ops");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/goldens/ops")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.txt").exists())
        .collect();
    dirs.sort();
    dirs
}

/// The dtype named in a manifest.
pub fn op_dtype(name: &str) -> DType {
    match name {
        "f32" => DType::F32,
        "f16" => DType::F16,
        "bf16" => DType::BF16,
        "f64" => DType::F64,
        "i8" => DType::I8,
        "i16" => DType::I16,
        "i32" => DType::I32,
        "i64" => DType::I64,
        "u8" => DType::U8,
        "bool" => DType::Bool,
        other => panic!("unknown dtype {other}"),
    }
}

/// The validate dtype of the same name (bf16 decoded from its bits).
pub fn validate_dtype(name: &str) -> VDType {
    VDType::from_name(name).unwrap_or_else(|| panic!("unknown dtype {name}"))
}

/// The shape and raw little-endian data bytes of an `.npy` file.
pub fn npy_raw(path: &Path) -> (Vec<usize>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let shape = validate::parse_npy(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .shape()
        .to_vec();
    let header_len = match bytes[6] {
        1 => u16::from_le_bytes([bytes[8], bytes[9]]) as usize + 10,
        _ => u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize + 12,
    };
    (shape, bytes[header_len..].to_vec())
}

/// Checks `actual` (raw bytes of `expect.dtype`, C order, `shape`) against
/// the expectation file element by element: `|a − e| ≤ atol + rtol·|e|`,
/// NaN matches NaN, an infinity the same infinity. Returns a report on
/// failure (the validate module's summary plus the first bad element).
pub fn check(expect: &Expect, shape: &[usize], actual: &[u8]) -> Result<(), String> {
    let dtype = validate_dtype(&expect.dtype);
    let (_, expected_bytes) = npy_raw(&expect.file);
    let expected = validate::parse_raw(&expected_bytes, dtype, shape).map_err(|e| e.to_string())?;
    let actual = validate::parse_raw(actual, dtype, shape).map_err(|e| e.to_string())?;
    let (e, a) = (expected.values().to_f64_vec(), actual.values().to_f64_vec());
    let bad = e.iter().zip(&a).position(|(&e, &a)| {
        let same_special = (e.is_nan() && a.is_nan()) || (e.is_infinite() && e == a);
        !(same_special || (a - e).abs() <= expect.atol + expect.rtol * e.abs())
    });
    match bad {
        None => Ok(()),
        Some(i) => {
            let report =
                validate::compare(&expected, &actual, &validate::CompareOptions::default())
                    .map(|r| r.reason())
                    .unwrap_or_default();
            Err(format!(
                "{}: element {i} is {} but PyTorch says {} (rtol {}, atol {}); {report}",
                expect.role, a[i], e[i], expect.rtol, expect.atol
            ))
        }
    }
}
