//! The synthetic classification task of the `train_mlp` example, exactly as
//! `scripts/goldens/train_mlp_reference.py` specifies it (the PyTorch run
//! whose per-step losses the example must match).

pub mod graph_step;
pub mod reference;
pub mod trainer;

/// Features per sample.
pub const D: usize = 16;
/// Classes.
pub const C: usize = 4;
/// Samples.
pub const N: usize = 512;
/// Hidden units.
pub const H: usize = 32;
/// Samples per step.
pub const BATCH: usize = 64;
/// Epochs (each `N / BATCH` steps).
pub const EPOCHS: usize = 5;
/// SGD learning rate.
pub const LR: f32 = 0.1;
/// SGD momentum.
pub const MOMENTUM: f32 = 0.9;

/// splitmix64: the generator both sides use.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1): the top 24 bits, exact in f32.
    pub fn uniform(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }
}

/// The data set and the initial parameters.
#[derive(Debug, Clone)]
pub struct Task {
    /// Class centers, `C × D` row-major.
    pub centers: Vec<f32>,
    /// Features, `N × D` row-major.
    pub x: Vec<f32>,
    /// Labels, `N`.
    pub labels: Vec<i64>,
    /// `H × D` (torch.nn.Linear layout: y = x Wᵀ + b).
    pub w1: Vec<f32>,
    /// `H`.
    pub b1: Vec<f32>,
    /// `C × H`.
    pub w2: Vec<f32>,
    /// `C`.
    pub b2: Vec<f32>,
}

impl Task {
    /// Generates everything from seed 42, in the spec's order.
    pub fn generate() -> Task {
        let mut rng = SplitMix64::new(42);
        let centers: Vec<f32> = (0..C * D).map(|_| rng.uniform() * 4.0 - 2.0).collect();
        let mut x = Vec::with_capacity(N * D);
        let mut labels = Vec::with_capacity(N);
        for _ in 0..N {
            let label = (rng.next_u64() % C as u64) as usize;
            labels.push(label as i64);
            for j in 0..D {
                let noise = (rng.uniform() * 2.0 - 1.0) * 0.75;
                x.push(centers[label * D + j] + noise);
            }
        }
        let mut param = |count: usize, fan_in: usize| -> Vec<f32> {
            let bound = 1.0f32 / (fan_in as f32).sqrt();
            (0..count)
                .map(|_| (rng.uniform() * 2.0 - 1.0) * bound)
                .collect()
        };
        let w1 = param(H * D, D);
        let b1 = param(H, D);
        let w2 = param(C * H, H);
        let b2 = param(C, H);
        Task {
            centers,
            x,
            labels,
            w1,
            b1,
            w2,
            b2,
        }
    }
}
