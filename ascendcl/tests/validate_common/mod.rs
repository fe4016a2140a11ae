//! Helpers shared by the `ascendcl::validate` reader tests: little-endian
//! bytes, values as f64 and a scratch directory.

#![allow(dead_code)]

use std::path::PathBuf;

use ascendcl::validate::Tensor;

pub fn le_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn f64s(tensor: &Tensor) -> Vec<f64> {
    tensor.values().to_f64_vec()
}

/// A fresh directory for one test's files.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-validate-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
