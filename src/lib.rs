//! Shared helpers of the examples and benches.
