//! Fused attention: `aclnnFlashAttentionScore` and
//! `aclnnFlashAttentionScoreGrad` (hicann/ops-transformer; the third
//! operator set, batch `attention`).
//!
//! How CANN differs from PyTorch is on [`FlashAttention`].

use crate::error::{Error, Result};
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// How `query`, `key` and `value` are laid out (`inputLayout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionLayout {
    /// `[B, S, N·D]`.
    Bsh,
    /// `[S, B, N·D]`.
    Sbh,
    /// `[B, S, N, D]`.
    Bsnd,
    /// `[B, N, S, D]` (PyTorch's `scaled_dot_product_attention`).
    Bnsd,
}

impl AttentionLayout {
    /// The NUL-terminated name the op takes (declared `char *`).
    fn c_name(self) -> [u8; 5] {
        match self {
            AttentionLayout::Bsh => *b"BSH\0\0",
            AttentionLayout::Sbh => *b"SBH\0\0",
            AttentionLayout::Bsnd => *b"BSND\0",
            AttentionLayout::Bnsd => *b"BNSD\0",
        }
    }
}

/// How the attention mask is read (`sparseMode`; CANN's
/// `docs/context/sparse_mode参数说明.md`). Band and prefix modes (4–8) are
/// not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseMode {
    /// 0: the full mask, restricted to the band `-pre_tokens <= j - i <= next_tokens`.
    Default,
    /// 1: the full mask only (pre/next tokens ignored).
    AllMask,
    /// 2: causal from the top-left corner, with the compressed 2048 × 2048 mask.
    LeftUpCausal,
    /// 3: causal from the bottom-right corner, with the compressed 2048 × 2048 mask.
    RightDownCausal,
}

/// The attributes of [`flash_attention_score`] and its gradient.
///
/// # CANN against PyTorch's `scaled_dot_product_attention`
///
/// The forward computes `softmax(scale * Q Kᵀ, masked) V` as PyTorch's
/// `scaled_dot_product_attention(q, k, v, attn_mask, scale=scale)` does, with
/// these differences (hicann/ops-transformer commit c29bc106,
/// `attention/flash_attention_score/`):
///
/// * **The mask is inverted.** In CANN's `attenMask` a 1 (true) means *not
///   computed* (`docs/aclnnFlashAttentionScore.md:151`); PyTorch's boolean
///   `attn_mask` uses true for *take part*. Pass `!attn_mask`. Shapes:
///   `[S1, S2]`, `[1, 1, S1, S2]`, `[B, 1, S1, S2]`, `[B, N1, S1, S2]`, bool
///   or u8 (`op_host/flash_attention_score_tiling_general.cpp:1501-1561`).
/// * **Causal** is either an explicit upper-triangular mask with
///   [`SparseMode::Default`] (PyTorch's `is_causal=True` is
///   `mask[i][j] = j > i`), or [`SparseMode::LeftUpCausal`] /
///   [`SparseMode::RightDownCausal`] with CANN's *compressed* 2048 × 2048
///   triangle (`mask[r][c] = c > r`) whatever S is (`:1565-1569`); the
///   right-down form aligns the diagonal to the last key (S2 − S1 offset).
///   Without a mask every score is computed and the sparse mode is ignored
///   (`aclnnFlashAttentionScore.md:400`).
/// * **Layouts.** `query` is `[B, S, N·D]` (BSH), `[S, B, N·D]` (SBH),
///   `[B, S, N, D]` (BSND) or `[B, N, S, D]` (BNSD, PyTorch's); `head_num`
///   is N of `query`. Key/value may have fewer heads (GQA/MQA: N1 a multiple
///   of N2, `tiling_general.cpp:1098-1100`), which PyTorch spells
///   `enable_gqa=True`. The value head dim may be smaller than the key's.
/// * **`scale`** is not defaulted: pass `1/sqrt(D)` for PyTorch's default.
///   The kernel receives it as an f32 (`op_api/flash_attention_score.cpp:131`).
/// * **The saved statistics** have no PyTorch counterpart in the public API:
///   `softmax_max[b, n, i, :]` is `max_j` of the scaled, masked scores of row
///   i and `softmax_sum[b, n, i, :]` is `Σ_j exp(s_ij − max)`, both f32 of
///   shape `[B, N1, S1, 8]` (the value repeated 8 times,
///   `op_host/flash_attention_score_infershape.cpp:87-107`, `:161-163`);
///   PyTorch's flash kernel keeps one logsumexp `max + ln(sum)` per row
///   instead. The gradient rebuilds the probabilities from them, so hand them
///   back unchanged. `softmaxOut` is not produced by this op ("not used
///   now", `op_api/aclnn_flash_attention_score.cpp:822`) and is not exposed.
/// * **Fully masked rows**: a masked score is −FLT_MAX, not −inf
///   (`op_kernel/flash_attention_score_common.h:58`), so a row with every
///   score masked averages V uniformly (PyTorch gives NaN); with
///   `inner_precise = 2`, or a right-down causal mask with S1 > S2, its output
///   is 0 (`tiling_general.cpp:624-635`, `:661-686`).
/// * **Dropout** (`keep_prob < 1`) needs CANN's packed dropout mask, which
///   these wrappers do not build: `keep_prob` must be 1 (an
///   [`Error::InvalidArgument`](crate::Error::InvalidArgument) otherwise).
///
/// f16, bf16 and f32; query, key and value share one dtype.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlashAttention {
    /// N of `query` (`headNum`).
    pub head_num: i64,
    /// The layout of query, key, value and the output.
    pub layout: AttentionLayout,
    /// The factor on `Q Kᵀ` (`scaleValue`); PyTorch's default is `1/sqrt(D)`.
    pub scale: f64,
    /// Must be 1 (no dropout).
    pub keep_prob: f64,
    /// How the mask is read.
    pub sparse_mode: SparseMode,
    /// Band left edge for [`SparseMode::Default`] (`preTokens`).
    pub pre_tokens: i64,
    /// Band right edge for [`SparseMode::Default`] (`nextTokens`).
    pub next_tokens: i64,
    /// `innerPrecise`: 0 (default) or 2 (rows with every score masked give 0).
    pub inner_precise: i64,
}

impl FlashAttention {
    /// `head_num` heads in `layout`, factor `scale`; no dropout, the default
    /// sparse mode with an unlimited band (`2147483647` both ways, as
    /// torch_npu's `npu_fusion_attention` defaults).
    pub fn new(head_num: i64, layout: AttentionLayout, scale: f64) -> FlashAttention {
        FlashAttention {
            head_num,
            layout,
            scale,
            keep_prob: 1.0,
            sparse_mode: SparseMode::Default,
            pre_tokens: i32::MAX as i64,
            next_tokens: i32::MAX as i64,
            inner_precise: 0,
        }
    }

    /// The same with `sparse_mode`.
    pub fn sparse(self, sparse_mode: SparseMode) -> FlashAttention {
        FlashAttention {
            sparse_mode,
            ..self
        }
    }

    fn check(&self, op: &str) -> Result<()> {
        if self.keep_prob != 1.0 {
            return Err(Error::invalid(format!(
                "aclnn{op}: keep_prob {} asks for dropout, which needs CANN's packed dropMask; \
                 these wrappers support keep_prob = 1 only",
                self.keep_prob
            )));
        }
        Ok(())
    }

    fn sparse_code(&self) -> i64 {
        match self.sparse_mode {
            SparseMode::Default => 0,
            SparseMode::AllMask => 1,
            SparseMode::LeftUpCausal => 2,
            SparseMode::RightDownCausal => 3,
        }
    }
}

/// The statistics the forward saves for the gradient: `[B, N1, S1, 8]` f32
/// each (see [`FlashAttention`]).
#[derive(Debug)]
pub struct AttentionStats<'a> {
    /// Per row, the maximum scaled score (repeated 8 times).
    pub softmax_max: TensorMut<'a>,
    /// Per row, `Σ exp(score − max)` (repeated 8 times).
    pub softmax_sum: TensorMut<'a>,
}

/// Fused attention (`aclnnFlashAttentionScore`): `out = softmax(scale · Q Kᵀ
/// masked) V` per batch and head, `out` shaped as `query` with value's head
/// dim, plus the statistics the gradient needs. See [`FlashAttention`]
/// for how it differs from PyTorch.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, AttentionLayout, AttentionStats, FlashAttention, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// // B = 1, S = 2, one head of D = 2 (BSH): query row 0 sees only key 0 (causal).
/// let q = DeviceBuffer::from_host(&ctx, &[1.0f32, 0.0, 0.0, 1.0])?;
/// let v = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let mask = DeviceBuffer::from_host(&ctx, &[0u8, 1, 0, 0])?; // 1 = masked
/// let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// let (mut mx, mut sum) = (DeviceBuffer::<f32>::zeroed(&ctx, 16)?, DeviceBuffer::<f32>::zeroed(&ctx, 16)?);
/// let stats = AttentionStats {
///     softmax_max: TensorMut::new(&mut mx, &[1, 1, 2, 8])?,
///     softmax_sum: TensorMut::new(&mut sum, &[1, 1, 2, 8])?,
/// };
/// let qt = Tensor::new(&q, &[1, 2, 2])?;
/// ops::flash_attention_score(
///     &qt, &qt, &Tensor::new(&v, &[1, 2, 2])?, Some(&Tensor::new(&mask, &[2, 2])?),
///     &FlashAttention::new(1, AttentionLayout::Bsh, 1.0), stats, TensorMut::new(&mut out, &[1, 2, 2])?,
/// )?
/// .launch(&stream, Workspace::none())?
/// .wait()?;
/// let out = out.to_vec()?;
/// assert_eq!(out[..2], [1.0, 2.0]); // row 0: value 0 only
/// assert_eq!(sum.to_vec()?[0], 1.0); // one unmasked score, exp(0)
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn flash_attention_score<'a>(
    query: &Tensor<'a>,
    key: &Tensor<'a>,
    value: &Tensor<'a>,
    atten_mask: Option<&Tensor<'a>>,
    attrs: &FlashAttention,
    stats: AttentionStats<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    attrs.check("FlashAttentionScore")?;
    let mut p = Phase1::new("FlashAttentionScore", query.storage.ctx)?;
    let (q, k, v) = (
        p.input("query", query)?,
        p.input("key", key)?,
        p.input("value", value)?,
    );
    let m = p.input_opt("attenMaskOptional", atten_mask)?;
    let mx = p.output("softmaxMaxOut", stats.softmax_max)?;
    let sm = p.output("softmaxSumOut", stats.softmax_sum)?;
    let o = p.output("attentionOutOut", out)?;
    let mut layout = attrs.layout.c_name();
    let a = *attrs;
    let null = std::ptr::null();
    // SAFETY: live descriptors or null for the optional inputs the op takes
    // as absent (pse, dropMask, paddingMask, prefix, softmaxOut); `layout`
    // is a NUL-terminated string alive for the call, which only reads it;
    // valid out-pointers (closure contract).
    p.run(Aclnn::aclnnFlashAttentionScore, |l, ws, ex| unsafe {
        l.aclnnFlashAttentionScoreGetWorkspaceSize(
            q,
            k,
            v,
            null,
            null,
            null,
            m,
            std::ptr::null(),
            a.scale,
            a.keep_prob,
            a.pre_tokens,
            a.next_tokens,
            a.head_num,
            layout.as_mut_ptr().cast(),
            a.inner_precise,
            a.sparse_code(),
            mx,
            sm,
            null,
            o,
            ws,
            ex,
        )
    })
}

/// The forward's tensors [`flash_attention_score_grad`] reads back.
#[derive(Debug, Clone, Copy)]
pub struct AttentionSaved<'t, 'a> {
    /// The forward's `softmax_max`.
    pub softmax_max: &'t Tensor<'a>,
    /// The forward's `softmax_sum`.
    pub softmax_sum: &'t Tensor<'a>,
    /// The forward's output (`attentionInOptional`).
    pub out: &'t Tensor<'a>,
}

/// The gradients of [`flash_attention_score`]
/// (`aclnnFlashAttentionScoreGrad`): `dq`, `dk`, `dv` shaped as query, key,
/// value, from `dy` (shaped as the output), the same mask and attributes,
/// and what the forward saved. With GQA, `dk`/`dv` sum over the query heads
/// of each group, as PyTorch's autograd does with `enable_gqa=True`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attention_score_grad<'a>(
    query: &Tensor<'a>,
    key: &Tensor<'a>,
    value: &Tensor<'a>,
    dy: &Tensor<'a>,
    atten_mask: Option<&Tensor<'a>>,
    saved: AttentionSaved<'_, 'a>,
    attrs: &FlashAttention,
    dq: TensorMut<'a>,
    dk: TensorMut<'a>,
    dv: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    attrs.check("FlashAttentionScoreGrad")?;
    let mut p = Phase1::new("FlashAttentionScoreGrad", query.storage.ctx)?;
    let (q, k, v, g) = (
        p.input("query", query)?,
        p.input("keyIn", key)?,
        p.input("value", value)?,
        p.input("dy", dy)?,
    );
    let m = p.input_opt("attenMaskOptional", atten_mask)?;
    let mx = p.input("softmaxMaxOptional", saved.softmax_max)?;
    let sm = p.input("softmaxSumOptional", saved.softmax_sum)?;
    let o = p.input("attentionInOptional", saved.out)?;
    let (gq, gk, gv) = (
        p.output("dqOut", dq)?,
        p.output("dkOut", dk)?,
        p.output("dvOut", dv)?,
    );
    let mut layout = attrs.layout.c_name();
    let a = *attrs;
    let null = std::ptr::null();
    // SAFETY: as in `flash_attention_score`; pse, dropMask, paddingMask,
    // softmaxIn, prefix and dpse are absent (null).
    p.run(Aclnn::aclnnFlashAttentionScoreGrad, |l, ws, ex| unsafe {
        l.aclnnFlashAttentionScoreGradGetWorkspaceSize(
            q,
            k,
            v,
            g,
            null,
            null,
            null,
            m,
            mx,
            sm,
            null,
            o,
            std::ptr::null(),
            a.scale,
            a.keep_prob,
            a.pre_tokens,
            a.next_tokens,
            a.head_num,
            layout.as_mut_ptr().cast(),
            a.inner_precise,
            a.sparse_code(),
            gq,
            gk,
            gv,
            null,
            ws,
            ex,
        )
    })
}
