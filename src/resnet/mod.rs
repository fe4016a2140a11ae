//! The synthetic image task of the `train_resnet` example, exactly as
//! `scripts/goldens/train_resnet_reference.py` specifies it (the PyTorch run
//! whose per-step losses the example must match).

mod graph_layers;
pub mod graph_step;
pub mod images;
pub mod pass;
pub mod trainer;

use crate::mlp::SplitMix64;

/// Images.
pub const N: usize = 64;
/// Classes.
pub const C: usize = 4;
/// Image channels, height, width.
pub const IMAGE: [usize; 3] = [3, 16, 16];
/// Samples per step.
pub const BATCH: usize = 16;
/// Epochs (each `N / BATCH` steps).
pub const EPOCHS: usize = 5;
/// SGD learning rate and momentum.
pub const LR: f32 = 0.05;
/// SGD momentum.
pub const MOMENTUM: f32 = 0.9;
/// Batch-norm momentum and epsilon (PyTorch's defaults).
pub const BN_MOMENTUM: f64 = 0.1;
/// Batch-norm epsilon.
pub const BN_EPS: f64 = 1e-5;

/// The convolutions of the model in drawing order: (out, in, kernel, stride, padding).
pub const CONVS: [(usize, usize, usize, i64, i64); 6] = [
    (8, 3, 3, 1, 1),   // conv1 (stem)
    (8, 8, 3, 1, 1),   // convA1
    (8, 8, 3, 1, 1),   // convA2
    (16, 8, 3, 2, 1),  // convB1
    (16, 16, 3, 1, 1), // convB2
    (16, 8, 1, 2, 0),  // convS (projection shortcut)
];

/// Data and initial parameters.
#[derive(Debug, Clone)]
pub struct Task {
    /// Images, `N × 3 × 16 × 16`.
    pub x: Vec<f32>,
    /// Labels.
    pub labels: Vec<i64>,
    /// Convolution weights in [`CONVS`] order, `[out, in, k, k]` row-major.
    pub convs: Vec<Vec<f32>>,
    /// Linear weight `[C, 16]`.
    pub fc_w: Vec<f32>,
    /// Linear bias `[C]`.
    pub fc_b: Vec<f32>,
}

impl Task {
    /// Generates everything from seed 7, in the spec's order.
    pub fn generate() -> Task {
        let mut rng = SplitMix64::new(7);
        let pixels: usize = IMAGE.iter().product();
        let templates: Vec<f32> = (0..C * pixels).map(|_| rng.uniform() * 2.0 - 1.0).collect();
        let mut x = Vec::with_capacity(N * pixels);
        let mut labels = Vec::with_capacity(N);
        for _ in 0..N {
            let label = (rng.next_u64() % C as u64) as usize;
            labels.push(label as i64);
            for j in 0..pixels {
                let noise = (rng.uniform() * 2.0 - 1.0) * 0.5;
                x.push(templates[label * pixels + j] * 0.8 + noise);
            }
        }
        let mut uniform = |count: usize, fan_in: usize| -> Vec<f32> {
            let bound = 1.0f32 / (fan_in as f32).sqrt();
            (0..count)
                .map(|_| (rng.uniform() * 2.0 - 1.0) * bound)
                .collect()
        };
        let convs = CONVS
            .iter()
            .map(|&(out, inp, k, _, _)| uniform(out * inp * k * k, inp * k * k))
            .collect();
        let fc_w = uniform(C * 16, 16);
        let fc_b = uniform(C, 16);
        Task {
            x,
            labels,
            convs,
            fc_w,
            fc_b,
        }
    }
}
