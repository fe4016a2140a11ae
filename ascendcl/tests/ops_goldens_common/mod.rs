//! Reading the PyTorch golden cases of `tests/goldens/ops` (format in its
//! README): manifests, raw `.npy` storage, and the per-element tolerance check.

#![allow(dead_code)]

pub mod counts;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ascendcl::ops::{DType, Tensor, TensorMut};
use ascendcl::prelude::*;
use ascendcl::tensor_file::{self, DType as VDType};
use ascendcl::validate;

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
    pub doubles: BTreeMap<String, f64>,
    pub bool_lists: BTreeMap<String, Vec<bool>>,
    pub nones: Vec<String>,
    /// Outputs to allocate but not compare: role, dtype, shape.
    pub unchecked: Vec<(String, String, Vec<usize>)>,
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
                    case.int_lists
                        .insert(t[1].to_string(), list(t.get(2).copied().unwrap_or("")));
                }
                "double" => {
                    case.doubles
                        .insert(t[1].to_string(), t[2].parse().expect("a double"));
                }
                "bools" => {
                    let values = list::<u8>(t.get(2).copied().unwrap_or(""));
                    case.bool_lists.insert(
                        t[1].to_string(),
                        values.into_iter().map(|v| v == 1).collect(),
                    );
                }
                "none" => case.nones.push(t[1].to_string()),
                "unchecked" => case.unchecked.push((
                    t[1].to_string(),
                    t[2].to_string(),
                    list(t.get(3).copied().unwrap_or("")),
                )),
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

/// Every case directory of the first set, sorted.
pub fn cases() -> Vec<PathBuf> {
    cases_in("ops")
}

/// `tests/goldens/<set>`.
pub fn set_root(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens")
        .join(set)
}

/// Every case directory of `tests/goldens/<set>`, sorted (none if absent).
pub fn cases_in(set: &str) -> Vec<PathBuf> {
    let root = set_root(set);
    if !root.exists() {
        return Vec::new();
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/goldens/<set>")
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
    let shape = tensor_file::parse_npy(&bytes)
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
    let expected =
        tensor_file::parse_raw(&expected_bytes, dtype, shape).map_err(|e| e.to_string())?;
    let actual = tensor_file::parse_raw(actual, dtype, shape).map_err(|e| e.to_string())?;
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

/// A case's tensors uploaded to the device, by role.
pub struct Uploaded {
    pub buffers: BTreeMap<String, DeviceBuffer<u8>>,
    pub specs: BTreeMap<String, (TensorSpec, Vec<usize>)>,
}

pub fn upload(ctx: &Context, case: &Case) -> ascendcl::Result<Uploaded> {
    let mut buffers = BTreeMap::new();
    let mut specs = BTreeMap::new();
    for (role, spec) in &case.tensors {
        let (shape, bytes) = npy_raw(&spec.file);
        // Empty storage still needs a buffer (the runtime refuses 0 bytes).
        let data = if bytes.is_empty() {
            vec![0u8; 32]
        } else {
            bytes
        };
        buffers.insert(role.clone(), DeviceBuffer::from_host(ctx, &data)?);
        specs.insert(role.clone(), (spec.clone(), shape));
    }
    for expect in &case.expects {
        if case.tensors.contains_key(&expect.role) {
            continue; // in place: the input's buffer is the output
        }
        let (shape, bytes) = npy_raw(&expect.file);
        buffers.insert(
            expect.role.clone(),
            DeviceBuffer::zeroed(ctx, bytes.len().max(32))?,
        );
        let spec = TensorSpec {
            dtype: expect.dtype.clone(),
            file: expect.file.clone(),
            view: None,
        };
        specs.insert(expect.role.clone(), (spec, shape));
    }
    for (role, dtype, shape) in &case.unchecked {
        let size = op_dtype(dtype).size() * shape.iter().product::<usize>();
        let spec = TensorSpec {
            dtype: dtype.clone(),
            file: case
                .tensors
                .values()
                .next()
                .map(|t| t.file.clone())
                .unwrap_or_default(),
            view: None,
        };
        buffers.insert(role.clone(), DeviceBuffer::zeroed(ctx, size.max(32))?);
        specs.insert(role.clone(), (spec, shape.clone()));
    }
    if case.op == "BatchNorm" {
        // Eval mode compares neither save output, but both are required.
        let channels = specs["input"].1.get(1).copied().unwrap_or(1);
        for role in ["saveMean", "saveInvstd"] {
            if !specs.contains_key(role) {
                let spec = TensorSpec {
                    dtype: "f32".into(),
                    file: case.tensors["input"].file.clone(),
                    view: None,
                };
                buffers.insert(
                    role.into(),
                    DeviceBuffer::zeroed(ctx, (channels * 4).max(32))?,
                );
                specs.insert(role.into(), (spec, vec![channels]));
            }
        }
    }
    if case.op == "NLLLoss" && !specs.contains_key("totalWeightOut") {
        // Reduction none: the op does not write totalWeightOut (nothing to
        // expect), but the argument is still required.
        let spec = TensorSpec {
            dtype: case.tensors["self"].dtype.clone(),
            file: case.tensors["self"].file.clone(),
            view: None,
        };
        buffers.insert("totalWeightOut".into(), DeviceBuffer::zeroed(ctx, 32)?);
        specs.insert("totalWeightOut".into(), (spec, Vec::new()));
    }
    Ok(Uploaded { buffers, specs })
}

pub fn view<'a>(
    spec: &(TensorSpec, Vec<usize>),
    buffer: &'a DeviceBuffer<u8>,
) -> ascendcl::Result<Tensor<'a>> {
    let dtype = op_dtype(&spec.0.dtype);
    match &spec.0.view {
        Some((shape, strides, offset)) => {
            Tensor::strided_as(buffer, shape, strides, *offset, dtype)
        }
        None => Tensor::strided_as(buffer, &spec.1, &contiguous(&spec.1), 0, dtype),
    }
}

pub fn view_mut<'a>(
    spec: &(TensorSpec, Vec<usize>),
    buffer: &'a mut DeviceBuffer<u8>,
) -> ascendcl::Result<TensorMut<'a>> {
    let dtype = op_dtype(&spec.0.dtype);
    match &spec.0.view {
        Some((shape, strides, offset)) => {
            TensorMut::strided_as(buffer, shape, strides, *offset, dtype)
        }
        None => TensorMut::strided_as(buffer, &spec.1, &contiguous(&spec.1), 0, dtype),
    }
}

pub fn contiguous(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(1);
    }
    strides
}

/// The uploaded tensors as views: written roles (expected outputs, in-place
/// tensors, outputs without a file) mutably, the rest shared.
#[allow(clippy::type_complexity)]
pub fn split<'a, 'u>(
    case: &Case,
    up: &'u mut Uploaded,
) -> ascendcl::Result<(
    BTreeMap<&'u str, Tensor<'u>>,
    BTreeMap<&'u str, TensorMut<'u>>,
)>
where
    'u: 'a,
{
    let specs = &up.specs;
    let written: Vec<String> = specs
        .keys()
        .filter(|role| {
            !case.tensors.contains_key(*role) || case.expects.iter().any(|e| &e.role == *role)
        })
        .cloned()
        .collect();
    let mut outs = BTreeMap::new();
    let mut ins = BTreeMap::new();
    for (role, buffer) in up.buffers.iter_mut() {
        let spec = &specs[role];
        if written.contains(role) {
            outs.insert(role.as_str(), view_mut(spec, buffer)?);
        } else {
            ins.insert(role.as_str(), view(spec, &*buffer)?);
        }
    }
    Ok((ins, outs))
}

/// Phase 1 of a case's operator over its uploaded tensors.
pub type Prepare =
    for<'a> fn(&Case, &'a mut Uploaded) -> ascendcl::Result<ascendcl::ops::Prepared<'a>>;

/// Which cases a set's runner treats specially.
#[derive(Debug, Default)]
pub struct Exceptions<'a> {
    /// Cases the real operator refuses on the default SoC (Atlas A2/A3):
    /// phase 1 must fail with 161002.
    pub refused: &'a [&'a str],
    /// Cases for what neither the safe wrapper nor the mock models yet: not
    /// run (each must exist, so the list stays honest).
    pub not_modelled: &'a [&'a str],
}

/// Runs every case of `tests/goldens/<set>` through `prepare` and a launch
/// on the mock, checks each expectation, and fails with every difference.
/// Returns how many cases ran (refused ones included, not-modelled ones
/// not); first fails unless the case directories are exactly those the
/// set's `CASES.txt` lists ([`counts::check_counts`]).
pub fn run_goldens(ctx: &Context, set: &str, prepare: Prepare) -> ascendcl::Result<usize> {
    run_goldens_except(ctx, set, prepare, &Exceptions::default())
}

/// As [`run_goldens`], with `exceptions`.
pub fn run_goldens_except(
    ctx: &Context,
    set: &str,
    prepare: Prepare,
    exceptions: &Exceptions<'_>,
) -> ascendcl::Result<usize> {
    use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
    let stream = Stream::new(ctx)?;
    let allocator = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    if let Err(why) = counts::check_counts(&set_root(set)) {
        panic!("{why}");
    }
    let mut failures = Vec::new();
    let mut ran = 0;
    let dirs = cases_in(set);
    for listed in exceptions.refused.iter().chain(exceptions.not_modelled) {
        assert!(
            dirs.iter().any(|d| d.ends_with(listed)),
            "no case {listed} in {set}"
        );
    }
    for dir in dirs {
        let case = Case::read(&dir);
        if exceptions.not_modelled.contains(&case.name.as_str()) {
            continue;
        }
        let mut up = upload(ctx, &case)?;
        if exceptions.refused.contains(&case.name.as_str()) {
            match prepare(&case, &mut up) {
                Err(error) if error.code() == Some(ascendcl::sys::ACLNN_ERR_PARAM_INVALID) => {
                    ran += 1
                }
                Err(error) => failures.push(format!(
                    "{}: refused with the wrong error: {error}",
                    case.name
                )),
                Ok(_) => failures.push(format!(
                    "{}: accepted, but the real op refuses it on A2/A3",
                    case.name
                )),
            }
            continue;
        }
        let launched = prepare(&case, &mut up).and_then(|p| p.launch(&stream, &allocator)?.wait());
        if let Err(error) = launched {
            failures.push(format!("{}: {error}", case.name));
            continue;
        }
        for expect in &case.expects {
            let (shape, expected_bytes) = npy_raw(&expect.file);
            let mut actual = vec![0u8; up.buffers[&expect.role].len()];
            up.buffers[&expect.role].copy_to_host(&mut actual)?;
            actual.truncate(expected_bytes.len());
            if let Err(why) = check(expect, &shape, &actual) {
                failures.push(format!("{}: {why}", case.name));
            }
        }
        ran += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of the cases differ from PyTorch:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Ok(ran)
}
