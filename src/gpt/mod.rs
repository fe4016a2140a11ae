//! The small decoder-only transformer of the `train_gpt` example, exactly as
//! `scripts/goldens/train_gpt_reference.py` specifies it (the PyTorch run
//! whose initial weights, batches, per-step losses and step-1 gradients the
//! example reads from `examples/reference/train_gpt/`).

pub mod backward;
pub mod data_parallel;
pub mod forward;
pub mod grad_scaler;
pub mod mixed;
pub mod model;
pub mod precision;
pub mod reference;
pub mod step;

/// Vocabulary.
pub const V: usize = 64;
/// Sequence length.
pub const T: usize = 16;
/// Sequences per step.
pub const B: usize = 4;
/// Model width.
pub const C: usize = 32;
/// Attention heads (of `C / NH` each).
pub const NH: usize = 2;
/// Transformer blocks.
pub const L: usize = 2;
/// MLP hidden width.
pub const FF: usize = 128;
/// Training steps (one batch each).
pub const STEPS: usize = 8;
/// AdamW learning rate.
pub const LR: f32 = 3e-3;
/// AdamW weight decay.
pub const WD: f32 = 0.01;
/// LayerNorm epsilon.
pub const EPS: f64 = 1e-5;
/// Rows of every activation: `B · T`.
pub const N: usize = B * T;

/// Parameters per block.
pub const PER_BLOCK: usize = 16;
/// Offsets of a block's parameters from [`block`].
pub mod p {
    /// LayerNorm 1 weight, bias.
    pub const LN1_W: usize = 0;
    /// LayerNorm 1 bias.
    pub const LN1_B: usize = 1;
    /// Query projection weight (`[C, C]`); its bias follows.
    pub const Q_W: usize = 2;
    /// Key projection weight; its bias follows.
    pub const K_W: usize = 4;
    /// Value projection weight; its bias follows.
    pub const V_W: usize = 6;
    /// Output projection weight; its bias follows.
    pub const O_W: usize = 8;
    /// LayerNorm 2 weight.
    pub const LN2_W: usize = 10;
    /// LayerNorm 2 bias.
    pub const LN2_B: usize = 11;
    /// MLP up projection weight (`[FF, C]`); its bias follows.
    pub const FC_W: usize = 12;
    /// MLP down projection weight (`[C, FF]`); its bias follows.
    pub const PROJ_W: usize = 14;
}
/// Token embedding (`[V, C]`, also the output projection).
pub const WTE: usize = 0;
/// Position embedding (`[T, C]`).
pub const WPE: usize = 1;
/// Final LayerNorm weight (its bias follows).
pub const LNF_W: usize = 2 + L * PER_BLOCK;

/// Index of block `l`'s first parameter.
pub const fn block(l: usize) -> usize {
    2 + l * PER_BLOCK
}

/// Every parameter's name and shape, in the reference's order (the
/// optimizer's and `init.safetensors`').
pub fn parameters() -> Vec<(String, Vec<usize>)> {
    let mut out = vec![
        ("wte".to_string(), vec![V, C]),
        ("wpe".to_string(), vec![T, C]),
    ];
    for l in 0..L {
        let h = |n: &str| format!("h{l}.{n}");
        for (name, shape) in [
            ("ln1.weight", vec![C]),
            ("ln1.bias", vec![C]),
            ("attn.q.weight", vec![C, C]),
            ("attn.q.bias", vec![C]),
            ("attn.k.weight", vec![C, C]),
            ("attn.k.bias", vec![C]),
            ("attn.v.weight", vec![C, C]),
            ("attn.v.bias", vec![C]),
            ("attn.o.weight", vec![C, C]),
            ("attn.o.bias", vec![C]),
            ("ln2.weight", vec![C]),
            ("ln2.bias", vec![C]),
            ("mlp.fc.weight", vec![FF, C]),
            ("mlp.fc.bias", vec![FF]),
            ("mlp.proj.weight", vec![C, FF]),
            ("mlp.proj.bias", vec![C]),
        ] {
            out.push((h(name), shape));
        }
    }
    out.push(("ln_f.weight".to_string(), vec![C]));
    out.push(("ln_f.bias".to_string(), vec![C]));
    out
}
