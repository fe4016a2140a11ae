//! Safe bindings to AscendCL (work in progress).
