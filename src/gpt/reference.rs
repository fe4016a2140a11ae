//! What the PyTorch reference run wrote (`examples/reference/train_gpt/`):
//! initial weights, batches, per-step losses, step-1 gradients.

use std::path::PathBuf;

use ascendcl::tensor_file;
use ascendcl::weights::Weights;

use super::{B, STEPS, T, parameters};

/// The reference directory.
pub fn dir() -> PathBuf {
    PathBuf::from(crate::REFERENCE_DIR).join("train_gpt")
}

/// The reference's inputs and expected numbers.
#[derive(Debug)]
pub struct Reference {
    /// Every parameter's initial values, in [`parameters`] order.
    pub init: Vec<Vec<f32>>,
    /// `[STEPS, B, T + 1]` tokens: inputs `[.., ..T]`, targets `[.., 1..]`.
    pub batches: Vec<i64>,
    /// The loss of each step's forward pass.
    pub losses: Vec<f64>,
    /// The loss of batch 0 under the final parameters.
    pub final_loss: f64,
}

fn text(name: &str) -> Result<String, String> {
    let path = dir().join(name);
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

impl Reference {
    /// Reads every file (an error names the file).
    pub fn read() -> Result<Reference, String> {
        let weights = Weights::read(dir().join("init.safetensors")).map_err(|e| e.to_string())?;
        let init = parameters()
            .iter()
            .map(|(name, shape)| weights.to_host::<f32>(name, shape))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let path = dir().join("batches.npy");
        let batches =
            tensor_file::read_npy(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let want = vec![STEPS, B, T + 1];
        if batches.shape() != want.as_slice() {
            return Err(format!(
                "{}: shape {:?}, expected {want:?}",
                path.display(),
                batches.shape()
            ));
        }
        let batches: Vec<i64> = batches
            .values()
            .to_f64_vec()
            .iter()
            .map(|&v| v as i64)
            .collect();
        let losses: Vec<f64> = text("losses.txt")?
            .lines()
            .filter_map(|l| l.split_whitespace().nth(3)?.parse().ok())
            .collect();
        if losses.len() != STEPS {
            return Err(format!(
                "losses.txt: {} losses, expected {STEPS}",
                losses.len()
            ));
        }
        let final_loss = text("final_loss.txt")?
            .trim()
            .parse()
            .map_err(|e| format!("final_loss.txt: {e}"))?;
        Ok(Reference {
            init,
            batches,
            losses,
            final_loss,
        })
    }

    /// Step `k`'s inputs and targets, `B · T` each.
    pub fn batch(&self, k: usize) -> (Vec<i64>, Vec<i64>) {
        let rows = &self.batches[k * B * (T + 1)..(k + 1) * B * (T + 1)];
        let mut inputs = Vec::with_capacity(B * T);
        let mut targets = Vec::with_capacity(B * T);
        for seq in rows.chunks(T + 1) {
            inputs.extend_from_slice(&seq[..T]);
            targets.extend_from_slice(&seq[1..]);
        }
        (inputs, targets)
    }
}
