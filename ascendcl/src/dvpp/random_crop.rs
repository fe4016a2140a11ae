//! Seeded augmentation parameters: torchvision's `RandomResizedCrop`
//! sampling and a coin for the horizontal flip, from a generator of our own
//! (so one seed gives the same crops on every run and machine).

use crate::dvpp::Crop;

/// SplitMix64 (Steele, Lea, Flood 2014): a small, well-mixed 64-bit
/// generator; deterministic for a seed.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
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

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// Uniform integer in `[0, n)` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// torchvision's `RandomResizedCrop` parameters: a crop covering `scale`
/// of the image's area with an aspect ratio in `ratio`, tried ten times,
/// else a centre crop of the ratio clamped to the image
/// (`torchvision.transforms.RandomResizedCrop.get_params`), with the DVPP
/// minimum crop of 4 rows by 6 columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomResizedCrop {
    /// Area fraction range, torchvision's default (0.08, 1.0).
    pub scale: (f64, f64),
    /// Aspect-ratio (width / height) range, default (3/4, 4/3).
    pub ratio: (f64, f64),
}

impl Default for RandomResizedCrop {
    fn default() -> Self {
        RandomResizedCrop {
            scale: (0.08, 1.0),
            ratio: (3.0 / 4.0, 4.0 / 3.0),
        }
    }
}

impl RandomResizedCrop {
    /// A crop of an image of `height` x `width` (at least 4 x 6).
    pub fn sample(&self, rng: &mut SplitMix64, height: usize, width: usize) -> Crop {
        let area = (height * width) as f64;
        let (log_lo, log_hi) = (self.ratio.0.ln(), self.ratio.1.ln());
        for _ in 0..10 {
            let target = area * rng.uniform(self.scale.0, self.scale.1);
            let aspect = rng.uniform(log_lo, log_hi).exp();
            let w = (target * aspect).sqrt().round() as usize;
            let h = (target / aspect).sqrt().round() as usize;
            if (6..=width).contains(&w) && (4..=height).contains(&h) {
                let top = rng.below(height - h + 1);
                let left = rng.below(width - w + 1);
                return Crop {
                    top,
                    left,
                    height: h,
                    width: w,
                };
            }
        }
        // Fallback: the centre crop of the clamped ratio (torchvision's).
        let in_ratio = width as f64 / height as f64;
        let (mut w, mut h) = if in_ratio < self.ratio.0 {
            (width, (width as f64 / self.ratio.0).round() as usize)
        } else if in_ratio > self.ratio.1 {
            ((height as f64 * self.ratio.1).round() as usize, height)
        } else {
            (width, height)
        };
        w = w.clamp(6.min(width), width);
        h = h.clamp(4.min(height), height);
        Crop {
            top: (height - h) / 2,
            left: (width - w) / 2,
            height: h,
            width: w,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_gives_the_same_crops_and_every_crop_lies_inside_the_image() {
        let rrc = RandomResizedCrop::default();
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for i in 0..500 {
            let (h, w) = (4 + i % 300, 6 + (i * 7) % 500);
            let (ca, cb) = (rrc.sample(&mut a, h, w), rrc.sample(&mut b, h, w));
            assert_eq!(ca, cb);
            assert!(
                ca.top + ca.height <= h && ca.left + ca.width <= w,
                "{ca:?} in {h}x{w}"
            );
            assert!(ca.height >= 4 && ca.width >= 6, "{ca:?}");
        }
    }

    #[test]
    fn crops_cover_the_scale_range_they_are_asked_for() {
        let rrc = RandomResizedCrop {
            scale: (0.5, 0.6),
            ratio: (1.0, 1.0),
        };
        let mut rng = SplitMix64::new(1);
        for _ in 0..100 {
            let c = rrc.sample(&mut rng, 200, 200);
            let frac = (c.height * c.width) as f64 / 40000.0;
            assert!((0.48..=0.62).contains(&frac), "{c:?} covers {frac}");
        }
    }
}
