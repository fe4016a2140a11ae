//! The committed PyTorch reference of `train_mlp`: per-step losses, per-epoch
//! accuracy, and the generator's outputs as `.npy` files.

use std::path::{Path, PathBuf};

/// `examples/reference` of this repository.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/reference")
}

/// The reference run: loss per step (1-based order) and accuracy per epoch.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    /// Loss of each step's forward pass, in order.
    pub losses: Vec<f64>,
    /// Accuracy after each epoch.
    pub accuracy: Vec<f64>,
}

impl Reference {
    /// Reads `train_mlp_losses.txt`.
    pub fn read() -> Result<Reference, String> {
        let path = dir().join("train_mlp_losses.txt");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reference = Reference::default();
        for line in text.lines() {
            let t: Vec<&str> = line.split_whitespace().collect();
            let value = |i: usize| -> Result<f64, String> {
                t.get(i)
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| format!("{}: bad line {line:?}", path.display()))
            };
            match t.first() {
                Some(&"step") => reference.losses.push(value(3)?),
                Some(&"epoch") => reference.accuracy.push(value(3)?),
                _ => {}
            }
        }
        Ok(reference)
    }

    /// Whether `ours` matches `reference` for a loss: within 1e-4 relative,
    /// plus 1e-6 absolute for the losses near the f32 quantum that a
    /// separable task reaches (the reference script explains why).
    pub fn loss_matches(ours: f64, reference: f64) -> bool {
        (ours - reference).abs() <= 1e-4 * reference.abs() + 1e-6
    }
}

/// The f32 values of a reference `.npy` file, or `None` if it is absent.
pub fn npy_f32(name: &str) -> Option<Vec<f32>> {
    let path = dir().join("train_mlp").join(name);
    let tensor = ascendcl::tensor_file::read_npy(&path).ok()?;
    Some(
        tensor
            .values()
            .to_f64_vec()
            .into_iter()
            .map(|v| v as f32)
            .collect(),
    )
}
