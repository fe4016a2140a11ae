//! bf16 mixed precision ([`Precision::Bf16`](super::model::Precision::Bf16)): the matrix products of the
//! forward and backward, with bf16 inputs and bf16 results, as PyTorch's
//! CPU autocast (`torch.autocast("cpu", dtype=torch.bfloat16)`) runs the
//! reference script's model.
//!
//! Autocast casts the inputs of `matmul` (its lower-precision list) to
//! bf16 and returns a bf16 product; the ops it leaves alone run in their
//! inputs' dtype, and a bf16 product plus an f32 bias promotes to f32. So in
//! that model: every linear layer is `f32(bf16(x) @ bf16(W)ᵀ) + b` in f32;
//! the attention's scores, softmax and weighted sum are bf16 (here one
//! `aclnnFlashAttentionScore` in bf16: the mock computes it in f32 and
//! rounds its output once, where PyTorch rounds the scores, the scaled
//! scores, the probabilities and the product each to bf16); the tied
//! output projection is a bf16 product; embeddings, LayerNorms, GELU,
//! residuals and the cross-entropy stay f32. The backward follows
//! autograd: each product's gradients are bf16 products of the bf16
//! operands and the output gradient rounded to bf16, then f32.
//!
//! bf16 values live in `u16` memory, viewed as `DType::BF16` (no `half`
//! dependency). A cast of the same f32 values gives the same bf16 bits, so
//! the backward re-casts what the forward saved in f32 instead of keeping
//! bf16 copies.

use ascendcl::alloc::Block;
use ascendcl::ops::{self, AttentionSaved, AttentionStats, CubeMath, DType, Tensor, TensorMut};
use ascendcl::prelude::*;

use super::T;
use super::forward::{Consts, attention};
use super::model::Gpt;

/// An f32 matrix operand: `rows × cols` memory, used transposed when `t`.
#[derive(Debug, Clone, Copy)]
pub struct Mat<'b> {
    /// The memory.
    pub m: &'b Block<f32>,
    /// Rows as stored.
    pub rows: usize,
    /// Columns as stored.
    pub cols: usize,
    /// Whether the product uses its transpose.
    pub t: bool,
}

impl<'b> Mat<'b> {
    /// `m` as a `rows × cols` matrix.
    pub fn new(m: &'b Block<f32>, rows: usize, cols: usize) -> Self {
        Mat {
            m,
            rows,
            cols,
            t: false,
        }
    }

    /// Its transpose.
    pub fn t(self) -> Self {
        Mat { t: !self.t, ..self }
    }

    /// Rows and columns as the product sees them.
    fn dims(&self) -> (usize, usize) {
        if self.t {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        }
    }
}

/// bf16 memory holding `x`'s elements, viewed as `x` is used.
fn view<'b>(low: &'b Block<u16>, x: &Mat<'_>) -> ascendcl::Result<Tensor<'b>> {
    let v = bf16(low, &[x.rows, x.cols])?;
    if x.t { v.t() } else { Ok(v) }
}

/// bf16 memory viewed with `shape`.
fn bf16<'b>(b: &'b Block<u16>, shape: &[usize]) -> ascendcl::Result<Tensor<'b>> {
    Tensor::with_dtype(b, shape, DType::BF16)
}

fn bf16_mut<'b>(b: &'b mut Block<u16>, shape: &[usize]) -> ascendcl::Result<TensorMut<'b>> {
    TensorMut::with_dtype(b, shape, DType::BF16)
}

impl Gpt<'_> {
    /// `len` bf16s of uninitialised device memory.
    pub fn empty_bf16(&self, len: usize) -> ascendcl::Result<Block<u16>> {
        self.alloc.alloc::<u16>(self.stream, len)
    }

    /// `x` rounded to bf16 (`aclnnCast`, round to nearest even).
    pub fn to_bf16(&self, x: &Block<f32>) -> ascendcl::Result<Block<u16>> {
        let mut out = self.empty_bf16(x.len())?;
        self.run(ops::cast(
            &Tensor::new(x, &[x.len()])?,
            DType::BF16,
            bf16_mut(&mut out, &[x.len()])?,
        ))?;
        Ok(out)
    }

    /// bf16 `x` as f32 (exact).
    pub fn from_bf16(&self, x: &Block<u16>) -> ascendcl::Result<Block<f32>> {
        let mut out = self.act(x.len())?;
        self.run(ops::cast(
            &bf16(x, &[x.len()])?,
            DType::F32,
            TensorMut::new(&mut out, &[x.len()])?,
        ))?;
        Ok(out)
    }

    /// `a · b` with both rounded to bf16 and the product rounded to bf16
    /// (autocast's `matmul`), as f32.
    pub fn mm_bf16(&self, a: Mat<'_>, b: Mat<'_>) -> ascendcl::Result<Block<f32>> {
        let mut out = self.act(a.dims().0 * b.dims().1)?;
        self.mm_bf16_into(a, b, &mut out)?;
        Ok(out)
    }

    /// [`Gpt::mm_bf16`] into `out`.
    pub fn mm_bf16_into(
        &self,
        a: Mat<'_>,
        b: Mat<'_>,
        out: &mut Block<f32>,
    ) -> ascendcl::Result<()> {
        let ((m, k), (k2, n)) = (a.dims(), b.dims());
        if k != k2 {
            return Err(ascendcl::Error::InvalidArgument(format!(
                "mm_bf16: {m}x{k} times {k2}x{n}"
            )));
        }
        let (a_low, b_low) = (self.to_bf16(a.m)?, self.to_bf16(b.m)?);
        let mut product = self.empty_bf16(m * n)?;
        self.run(ops::mm(
            &view(&a_low, &a)?,
            &view(&b_low, &b)?,
            bf16_mut(&mut product, &[m, n])?,
            CubeMath::KeepDtype,
        ))?;
        self.run(ops::cast(
            &bf16(&product, &[m * n])?,
            DType::F32,
            TensorMut::new(out, &[m * n])?,
        ))
    }

    /// `f32(bf16(x) @ bf16(w)ᵀ) + b` for `self.rows()` rows of `inputs` into
    /// `outputs`: a linear layer under autocast.
    pub fn linear_bf16(
        &self,
        x: &Block<f32>,
        w: &Block<f32>,
        b: &Block<f32>,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<Block<f32>> {
        let product = self.mm_bf16(
            Mat::new(x, self.rows(), inputs),
            Mat::new(w, outputs, inputs).t(),
        )?;
        let mut out = self.act(self.rows() * outputs)?;
        self.run(ops::add(
            &Tensor::new(&product, &[self.rows(), outputs])?,
            &Tensor::new(b, &[outputs])?,
            1.0f32,
            TensorMut::new(&mut out, &[self.rows(), outputs])?,
        ))?;
        Ok(out)
    }

    /// The causal attention of f32 `q`, `k`, `v` in bf16: its output (the
    /// bf16 result as f32) into `y`, its softmax statistics (f32) into
    /// `stats`.
    pub fn attention_bf16(
        &self,
        (q, k, v): (&Block<f32>, &Block<f32>, &Block<f32>),
        consts: &Consts,
        stats: AttentionStats<'_>,
    ) -> ascendcl::Result<Block<f32>> {
        let shape = [self.batch, T, super::C];
        let (q, k, v) = (self.to_bf16(q)?, self.to_bf16(k)?, self.to_bf16(v)?);
        let mut y = self.empty_bf16(self.rows() * super::C)?;
        self.run(ops::flash_attention_score(
            &bf16(&q, &shape)?,
            &bf16(&k, &shape)?,
            &bf16(&v, &shape)?,
            Some(&Tensor::new(&consts.mask, &[T, T])?),
            &attention(),
            stats,
            bf16_mut(&mut y, &shape)?,
        ))?;
        self.from_bf16(&y)
    }

    /// The attention's backward in bf16 from the forward's f32 `q`, `k`,
    /// `v`, output `y` (bf16-exact) and statistics, and the output's
    /// gradient `g_y`: the gradients of `q`, `k`, `v`, as f32.
    #[allow(clippy::type_complexity)]
    pub fn attention_back_bf16(
        &self,
        (q, k, v, y): (&Block<f32>, &Block<f32>, &Block<f32>, &Block<f32>),
        (softmax_max, softmax_sum): (&Block<f32>, &Block<f32>),
        g_y: &Block<f32>,
        consts: &Consts,
    ) -> ascendcl::Result<(Block<f32>, Block<f32>, Block<f32>)> {
        let shape = [self.batch, T, super::C];
        let [q, k, v, y, g] = [q, k, v, y, g_y].map(|x| self.to_bf16(x));
        let (q, k, v, y, g) = (q?, k?, v?, y?, g?);
        let mut d: Vec<Block<u16>> = (0..3)
            .map(|_| self.empty_bf16(self.rows() * super::C))
            .collect::<ascendcl::Result<_>>()?;
        let (dq, rest) = d.split_at_mut(1);
        let (dk, dv) = rest.split_at_mut(1);
        self.run(ops::flash_attention_score_grad(
            &bf16(&q, &shape)?,
            &bf16(&k, &shape)?,
            &bf16(&v, &shape)?,
            &bf16(&g, &shape)?,
            Some(&Tensor::new(&consts.mask, &[T, T])?),
            AttentionSaved {
                softmax_max: &Tensor::new(softmax_max, &self.stats())?,
                softmax_sum: &Tensor::new(softmax_sum, &self.stats())?,
                out: &bf16(&y, &shape)?,
            },
            &attention(),
            bf16_mut(&mut dq[0], &shape)?,
            bf16_mut(&mut dk[0], &shape)?,
            bf16_mut(&mut dv[0], &shape)?,
        ))?;
        Ok((
            self.from_bf16(&d[0])?,
            self.from_bf16(&d[1])?,
            self.from_bf16(&d[2])?,
        ))
    }
}
