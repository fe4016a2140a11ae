//! Training configurations shared by the trace tests.

#![allow(dead_code)]

use ascendcl_cli::alloc_trace::{Dtype, GradMode, Optimizer, TrainConfig};

/// The default configuration with activations in `dtype`.
pub fn config(dtype: Dtype) -> TrainConfig {
    TrainConfig {
        dtype,
        ..TrainConfig::default()
    }
}

/// Every combination of dtype, optimizer, gradient mode and input stream.
pub fn every_config() -> Vec<TrainConfig> {
    let mut all = Vec::new();
    for dtype in [Dtype::Fp32, Dtype::Fp16, Dtype::Bf16] {
        for optimizer in [Optimizer::SgdMomentum, Optimizer::Adam] {
            for grads in [GradMode::Keep, GradMode::SetToNone] {
                for input_stream in [0, 1] {
                    let workspace_cap_bytes = TrainConfig::default().workspace_cap_bytes;
                    all.push(TrainConfig {
                        dtype,
                        optimizer,
                        grads,
                        input_stream,
                        workspace_cap_bytes,
                    });
                }
            }
        }
    }
    all
}
