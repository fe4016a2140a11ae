//! How the training loop is run: dtype, optimizer, `zero_grad` mode,
//! streams and workspace limits.

/// Activation dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dtype {
    /// Everything fp32.
    #[default]
    Fp32,
    /// Autocast to fp16 with a GradScaler; master weights stay fp32.
    Fp16,
    /// Autocast to bf16 (no scaler); master weights stay fp32.
    Bf16,
}

impl Dtype {
    /// Bytes per activation element.
    pub const fn bytes(self) -> u64 {
        match self {
            Dtype::Fp32 => 4,
            Dtype::Fp16 | Dtype::Bf16 => 2,
        }
    }

    /// Name in trace metadata: `fp32`, `fp16` or `bf16`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
        }
    }

    /// The dtype named `name` (see [`Dtype::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [Dtype::Fp32, Dtype::Fp16, Dtype::Bf16]
            .into_iter()
            .find(|d| d.as_str() == name)
    }
}

/// Optimizer, in its `foreach` implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Optimizer {
    /// SGD with momentum and weight decay: one state buffer per parameter.
    #[default]
    SgdMomentum,
    /// Adam: two state buffers per parameter.
    Adam,
}

impl Optimizer {
    /// Name in trace metadata: `sgd_momentum` or `adam`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Optimizer::SgdMomentum => "sgd_momentum",
            Optimizer::Adam => "adam",
        }
    }

    /// The optimizer named `name` (see [`Optimizer::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [Optimizer::SgdMomentum, Optimizer::Adam]
            .into_iter()
            .find(|o| o.as_str() == name)
    }
}

/// What `optimizer.zero_grad()` does with the `.grad` tensors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GradMode {
    /// `set_to_none=False`: zeroed in place, kept across steps (persistent).
    #[default]
    Keep,
    /// `set_to_none=True` (PyTorch ≥ 2.0 default): freed at each step's end.
    SetToNone,
}

impl GradMode {
    /// Name in trace metadata: `keep` or `set_to_none`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GradMode::Keep => "keep",
            GradMode::SetToNone => "set_to_none",
        }
    }

    /// The mode named `name` (see [`GradMode::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [GradMode::Keep, GradMode::SetToNone]
            .into_iter()
            .find(|g| g.as_str() == name)
    }
}

/// Default cap on a convolution workspace (256 MiB).
pub const DEFAULT_WORKSPACE_CAP: u64 = 256 << 20;

/// How the training loop is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainConfig {
    /// Activation dtype (default fp32).
    pub dtype: Dtype,
    /// Optimizer (default SGD with momentum).
    pub optimizer: Optimizer,
    /// `zero_grad` behaviour (default keep).
    pub grads: GradMode,
    /// Stream of the input batch and labels: 0 (default) or a data-loading
    /// copy stream such as 1.
    pub input_stream: u32,
    /// Largest convolution workspace (default [`DEFAULT_WORKSPACE_CAP`]).
    pub workspace_cap_bytes: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            dtype: Dtype::Fp32,
            optimizer: Optimizer::SgdMomentum,
            grads: GradMode::Keep,
            input_stream: 0,
            workspace_cap_bytes: DEFAULT_WORKSPACE_CAP,
        }
    }
}
