//! The program: on an Atlas card (CANN found), or wherever ASCENDCL_LIBRARY
//! points (e.g. an installed mock: `ascendcl-mock install --prefix DIR`).

use ascendcl::Runtime;

/// A failure prints the error's message and hints (its `Debug` is that
/// message) and exits with status 1.
fn main() -> ascendcl::Result<()> {
    let rt = Runtime::init()?;
    let (_device, weights) = ascendcl_downstream_example::load(
        &rt,
        &[
            ("w1", &[0.5, 0.25]),
            ("b1", &[1.0]),
            ("w2", &[2.0, 2.0, 2.0]),
        ],
    )?;
    println!(
        "{} tensors, checksum {}",
        weights.tensors.len(),
        weights.checksum()?
    );
    Ok(())
}
