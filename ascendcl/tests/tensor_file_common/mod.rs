//! Helpers shared by the `ascendcl::tensor_file` tests: little-endian
//! bytes, values as f64 and a scratch directory.

#![allow(dead_code)]

use std::path::PathBuf;

use ascendcl::tensor_file::Tensor;

pub fn le_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn f64s(tensor: &Tensor) -> Vec<f64> {
    tensor.values().to_f64_vec()
}

/// A fresh directory for one test's files.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ascendcl-tensor-file-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `.npy` file of format `version` (1, 2 or 3) with the given header dict
/// and data, padded like `numpy.save` pads it.
pub fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
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

pub fn dict(descr: &str, fortran: bool, shape: &str) -> String {
    let fortran = if fortran { "True" } else { "False" };
    format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
}
