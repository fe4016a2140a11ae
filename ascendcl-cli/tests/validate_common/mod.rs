//! Helpers of the `ascendcl validate` tests: running the command in this
//! process, temporary directories and `.npy` files.

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ascendcl_cli::{Command, Output, parse_from};

/// `ascendcl validate ARGS…`, run in this process.
pub fn validate<I, T>(args: I) -> Output
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let line: Vec<OsString> = ["ascendcl", "validate"]
        .into_iter()
        .map(OsString::from)
        .chain(args.into_iter().map(Into::into))
        .collect();
    match parse_from(line) {
        Ok(cli) => match cli.command {
            Command::Validate(args) => ascendcl_cli::validate::run(&args),
            other => panic!("parsed as another command: {other:?}"),
        },
        Err(output) => output,
    }
}

/// A fresh directory for one test's files.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ascendcl-validate-cli-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a v1 `.npy` file of little-endian f32 values.
pub fn write_npy(path: &Path, shape: &str, values: &[f32]) {
    let mut header =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}").into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(path, bytes).unwrap();
}
