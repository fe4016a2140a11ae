//! Batch sizes per training step.
//!
//! Real loaders do not always hand out the same batch: the last batch of an
//! epoch is short, samplers that bucket by size or drop corrupt samples
//! produce ragged batches, and dynamic batching varies the size on purpose.
//! The user's report that motivated this module saw "64, 65, 63, 80, …".
//! [`Schedule::varying`] reproduces that with a seeded SplitMix64 generator,
//! so a trace is the same on every machine and every run.

/// Smallest batch of [`Schedule::varying_default`].
pub const DEFAULT_MIN_BATCH: u32 = 48;
/// Largest batch of [`Schedule::varying_default`].
pub const DEFAULT_MAX_BATCH: u32 = 96;

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, well-mixed, seedable
/// 64-bit generator. Not cryptographic; only used to pick batch sizes.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fully determined by `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniformly distributed in `min..=max` (Lemire's
    /// multiply-shift; the bias is below 2⁻³² for any range of `u32`s).
    pub fn in_range(&mut self, min: u32, max: u32) -> u32 {
        debug_assert!(min <= max);
        let span = u64::from(max - min) + 1;
        let offset = (u128::from(self.next_u64()) * u128::from(span)) >> 64;
        // offset < span <= 2^32, so min + offset fits in u32.
        min + offset as u32
    }
}

/// The batch size of every step of a training run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    batches: Vec<u32>,
}

impl Schedule {
    /// The same batch `n` for `steps` steps.
    ///
    /// # Panics
    /// If `n` is zero (an empty batch allocates nothing).
    pub fn fixed(n: u32, steps: usize) -> Self {
        assert!(n > 0, "batch size must be at least 1");
        Schedule {
            batches: vec![n; steps],
        }
    }

    /// Batch sizes drawn uniformly from `min..=max`, deterministic for a
    /// `seed`.
    ///
    /// # Panics
    /// If `min` is zero or greater than `max`.
    pub fn varying(seed: u64, steps: usize, min: u32, max: u32) -> Self {
        assert!(min > 0, "batch size must be at least 1");
        assert!(min <= max, "empty batch range {min}..={max}");
        let mut rng = SplitMix64::new(seed);
        Schedule {
            batches: (0..steps).map(|_| rng.in_range(min, max)).collect(),
        }
    }

    /// [`Schedule::varying`] over the default range
    /// [`DEFAULT_MIN_BATCH`]..=[`DEFAULT_MAX_BATCH`] (48–96).
    pub fn varying_default(seed: u64, steps: usize) -> Self {
        Self::varying(seed, steps, DEFAULT_MIN_BATCH, DEFAULT_MAX_BATCH)
    }

    /// An explicit list of batch sizes.
    ///
    /// # Panics
    /// If any batch size is zero.
    pub fn from_batches(batches: Vec<u32>) -> Self {
        assert!(
            batches.iter().all(|&n| n > 0),
            "batch size must be at least 1"
        );
        Schedule { batches }
    }

    /// Batch size of each step.
    pub fn batches(&self) -> &[u32] {
        &self.batches
    }

    /// Number of steps.
    pub fn steps(&self) -> usize {
        self.batches.len()
    }
}
