//! What the DVPP pipeline suites share: the sample JPEGs, synthetic
//! pixels, the pipeline's configuration and a no-FFI-call check.

use std::sync::OnceLock;

use ascendcl::dvpp::{self, HostImage};

pub fn read(name: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
    std::fs::read(dir.join(name)).unwrap()
}

/// Four 64x48 JPEGs the decoder takes.
pub fn jpegs() -> Vec<&'static [u8]> {
    static J: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let names = [
        "c420_q75.jpg",
        "c444_q50.jpg",
        "grey_64x48_q75.jpg",
        "c422_q95.jpg",
    ];
    let j = J.get_or_init(|| names.iter().map(|n| read(n)).collect());
    j.iter().map(Vec::as_slice).collect()
}

/// Four synthetic planar RGB 48x64 images.
pub fn pixels() -> Vec<HostImage<'static>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let make = |i| (0..3 * 48 * 64).map(move |k| ((k * 7 + i * 53) % 251) as u8);
    let p = P.get_or_init(|| (0..4).map(|i| make(i).collect()).collect());
    p.iter().map(|px| host(px, 48, 64)).collect()
}

pub fn host(pixels: &[u8], height: usize, width: usize) -> HostImage<'_> {
    HostImage {
        pixels,
        height,
        width,
    }
}

/// Asserts that no FFI call was made since the journal was cleared.
pub fn assert_no_calls(env: &super::Env, what: &str) {
    let calls = env.calls();
    assert!(calls.is_empty(), "FFI calls by {what}: {calls:?}");
}

pub fn config() -> dvpp::PipelineConfig {
    dvpp::PipelineConfig::imagenet(20, 24, 42)
}
