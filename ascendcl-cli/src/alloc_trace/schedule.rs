//! Batch sizes per training step.
//!
//! Real loaders do not always hand out the same batch: the last batch of an
//! epoch is short, samplers that bucket by size or drop corrupt samples
//! produce ragged batches, and dynamic batching varies the size on purpose.
//! The user's report that motivated this module saw "64, 65, 63, 80, …".
//! [`Schedule::varying`] reproduces that with a seeded SplitMix64 generator,
//! so a trace is the same on every machine and every run.
//!
//! The constructors reject a batch of zero samples with a [`ScheduleError`]
//! (it would allocate nothing), rather than panicking.

use std::fmt;

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

    /// A number uniformly distributed between `min` and `max` inclusive
    /// (Lemire's multiply-shift; the bias is below 2⁻³² for any range of
    /// `u32`s). The bounds may come in either order.
    pub fn in_range(&mut self, min: u32, max: u32) -> u32 {
        let (min, max) = (min.min(max), min.max(max));
        let span = u64::from(max - min) + 1;
        let offset = (u128::from(self.next_u64()) * u128::from(span)) >> 64;
        // offset < span <= 2^32, so min + offset fits in u32.
        min + offset as u32
    }
}

/// Why a [`Schedule`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleError {
    /// A batch of zero samples, which allocates nothing (for `varying`, a
    /// range starting at 0). `step` is where it is in an explicit list.
    ZeroBatch { step: Option<usize> },
    /// A `varying` range whose minimum is above its maximum.
    EmptyRange { min: u32, max: u32 },
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::ZeroBatch { step: None } => f.write_str("batch size must be at least 1"),
            ScheduleError::ZeroBatch { step: Some(step) } => {
                write!(f, "batch size must be at least 1, but step {step} has 0")
            }
            ScheduleError::EmptyRange { min, max } => {
                write!(f, "empty batch range {min}..={max}")
            }
        }
    }
}

impl std::error::Error for ScheduleError {}

/// The batch size of every step of a training run. The default is the
/// empty schedule (no step).
///
/// ```
/// use ascendcl_cli::alloc_trace::{Schedule, ScheduleError};
///
/// let schedule = Schedule::varying(7, 4, 48, 96)?;
/// assert_eq!(schedule.steps(), 4);
/// assert!(schedule.batches().iter().all(|n| (48..=96).contains(n)));
/// assert_eq!(Schedule::fixed(0, 4), Err(ScheduleError::ZeroBatch { step: None }));
/// # Ok::<(), ScheduleError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedule {
    batches: Vec<u32>,
}

impl Schedule {
    /// The same batch `n` for `steps` steps.
    ///
    /// # Errors
    /// [`ScheduleError::ZeroBatch`] if `n` is zero (an empty batch allocates
    /// nothing), whatever the number of steps.
    pub fn fixed(n: u32, steps: usize) -> Result<Self, ScheduleError> {
        if n == 0 {
            return Err(ScheduleError::ZeroBatch { step: None });
        }
        Ok(Schedule {
            batches: vec![n; steps],
        })
    }

    /// Batch sizes drawn uniformly from `min..=max`, deterministic for a
    /// `seed`.
    ///
    /// # Errors
    /// [`ScheduleError::ZeroBatch`] if `min` is zero,
    /// [`ScheduleError::EmptyRange`] if `min` is greater than `max`.
    pub fn varying(seed: u64, steps: usize, min: u32, max: u32) -> Result<Self, ScheduleError> {
        if min == 0 {
            return Err(ScheduleError::ZeroBatch { step: None });
        }
        if min > max {
            return Err(ScheduleError::EmptyRange { min, max });
        }
        Ok(Self::draw(seed, steps, min, max))
    }

    /// [`Schedule::varying`] over the default range
    /// [`DEFAULT_MIN_BATCH`]..=[`DEFAULT_MAX_BATCH`] (48–96), which cannot fail.
    pub fn varying_default(seed: u64, steps: usize) -> Self {
        Self::draw(seed, steps, DEFAULT_MIN_BATCH, DEFAULT_MAX_BATCH)
    }

    /// `steps` batch sizes drawn from `min..=max`, already checked.
    fn draw(seed: u64, steps: usize, min: u32, max: u32) -> Self {
        let mut rng = SplitMix64::new(seed);
        Schedule {
            batches: (0..steps).map(|_| rng.in_range(min, max)).collect(),
        }
    }

    /// An explicit list of batch sizes.
    ///
    /// # Errors
    /// [`ScheduleError::ZeroBatch`] naming the first step whose batch size
    /// is zero.
    pub fn from_batches(batches: Vec<u32>) -> Result<Self, ScheduleError> {
        match batches.iter().position(|&n| n == 0) {
            Some(step) => Err(ScheduleError::ZeroBatch { step: Some(step) }),
            None => Ok(Schedule { batches }),
        }
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
