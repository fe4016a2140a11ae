//! The generated bindings: committed files by default, regenerated into
//! `OUT_DIR` with the `bindgen` feature (see `build.rs`).

/// Types, enum newtypes and constants of the declared AscendCL subset.
#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    missing_debug_implementations,
    // bindgen's helper for a trailing `uint8_t x[0]` (acldumpChunk::dataBuf)
    unsafe_op_in_unsafe_fn,
    clippy::all
)]
pub mod types {
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/types.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/types.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/aclnn_types.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/aclnn_types.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/hccl_types.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/hccl_types.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/prof_types.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/prof_types.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/dvpp_types.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/dvpp_types.rs"));
}

/// The C declarations of the functions. Never called: they exist so that
/// `api.rs` can check its run-time-loaded signatures against them.
#[allow(
    non_camel_case_types,
    non_snake_case,
    dead_code,
    clashing_extern_declarations,
    clippy::all
)]
pub(crate) mod functions {
    use super::types::*;
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/functions.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/functions.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/aclnn_functions.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/aclnn_functions.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/hccl_functions.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/hccl_functions.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/prof_functions.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/prof_functions.rs"));
    #[cfg(not(ascendcl_regenerated_bindings))]
    include!("bindings/dvpp_functions.rs");
    #[cfg(ascendcl_regenerated_bindings)]
    include!(concat!(env!("OUT_DIR"), "/dvpp_functions.rs"));
}
