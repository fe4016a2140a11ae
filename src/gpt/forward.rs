//! The forward pass, keeping what the backward needs.

use ascendcl::alloc::Block;
use ascendcl::ops::{
    self, AttentionLayout, AttentionStats, CubeMath, FlashAttention, GeluApproximate,
    LayerNormStats, Reduction, Tensor, TensorMut,
};
use ascendcl::prelude::*;

use super::model::{Gpt, Params, Precision, m2, t2};
use super::precision::Mat;
use super::{C, EPS, FF, L, LNF_W, NH, T, V, WPE, WTE, block, p};

/// Constants of every step: the causal mask, the position indices, the
/// loss's class weights and dLoss/dLoss.
#[derive(Debug)]
pub struct Consts {
    /// `[T, T]`, 1 where key j > query i (CANN's mask: 1 is *not* computed).
    pub mask: Block<u8>,
    /// The position of each row, for `g.rows()` rows (any fewer use a prefix).
    pub pos: Block<i64>,
    /// `[V]` ones.
    pub ones: Block<f32>,
    /// 1, 0-d.
    pub one: Block<f32>,
}

impl Consts {
    /// Uploads the constants, for up to `g.rows()` rows.
    pub fn new(g: &Gpt<'_>) -> ascendcl::Result<Consts> {
        let mask: Vec<u8> = (0..T * T).map(|i| u8::from(i % T > i / T)).collect();
        let pos: Vec<i64> = (0..g.rows()).map(|r| (r % T) as i64).collect();
        Ok(Consts {
            mask: g.upload(&mask)?,
            pos: g.upload(&pos)?,
            ones: g.upload(&[1.0f32; V])?,
            one: g.upload(&[1.0f32])?,
        })
    }
}

/// A LayerNorm's output and saved statistics (`[self.rows(), 1]` each).
#[derive(Debug)]
pub struct Normed {
    /// `[self.rows(), C]`.
    pub out: Block<f32>,
    /// Per-row mean.
    pub mean: Block<f32>,
    /// Per-row reciprocal standard deviation.
    pub rstd: Block<f32>,
}

/// What one block's backward needs.
#[derive(Debug)]
pub struct BlockSaved {
    /// The block's input, `[self.rows(), C]`.
    pub x: Block<f32>,
    /// LayerNorm 1.
    pub ln1: Normed,
    /// Queries, keys, values, `[B, T, C]` (BSH).
    pub q: Block<f32>,
    /// Keys.
    pub k: Block<f32>,
    /// Values.
    pub v: Block<f32>,
    /// The attention's output, `[B, T, C]`.
    pub y: Block<f32>,
    /// FlashAttention's softmax statistics, `[B, NH, T, 8]`.
    pub softmax_max: Block<f32>,
    /// Their sums.
    pub softmax_sum: Block<f32>,
    /// After the attention's residual.
    pub x1: Block<f32>,
    /// LayerNorm 2.
    pub ln2: Normed,
    /// The MLP's pre-activation, `[self.rows(), FF]`.
    pub f: Block<f32>,
    /// Its GELU.
    pub act: Block<f32>,
}

/// Everything the forward produced.
#[derive(Debug)]
pub struct Saved {
    /// Input tokens, `[self.rows()]`.
    pub idx: Block<i64>,
    /// Targets, `[self.rows()]`.
    pub targets: Block<i64>,
    /// Per block.
    pub blocks: Vec<BlockSaved>,
    /// The last block's output.
    pub x_last: Block<f32>,
    /// The final LayerNorm.
    pub ln_f: Normed,
    /// Log-probabilities, `[self.rows(), V]`.
    pub logp: Block<f32>,
    /// The mean loss, 0-d.
    pub loss: Block<f32>,
    /// nll_loss's total weight, 0-d.
    pub total: Block<f32>,
}

/// The attention's attributes: NH heads in BSH, PyTorch's default scale,
/// the explicit causal mask.
pub fn attention() -> FlashAttention {
    let d = (C / NH) as f64;
    FlashAttention::new(NH as i64, AttentionLayout::Bsh, 1.0 / d.sqrt())
}

impl Gpt<'_> {
    /// `[batch, T, C]` (BSH) view of `[rows, C]` memory.
    pub fn bsh<'b>(&self, b: &'b Block<f32>) -> ascendcl::Result<Tensor<'b>> {
        Tensor::new(b, &[self.batch, T, C])
    }

    /// Writable [`Gpt::bsh`].
    pub fn bsh_mut<'b>(&self, b: &'b mut Block<f32>) -> ascendcl::Result<TensorMut<'b>> {
        TensorMut::new(b, &[self.batch, T, C])
    }

    /// FlashAttention's statistics shape, `[batch, NH, T, 8]`.
    pub fn stats(&self) -> [usize; 4] {
        [self.batch, NH, T, 8]
    }

    /// `x @ wᵀ + b` for `rows` rows of `inputs` into `outputs`.
    pub fn linear(
        &self,
        x: &Block<f32>,
        w: &Block<f32>,
        b: &Block<f32>,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<Block<f32>> {
        if self.precision == Precision::Bf16 {
            return self.linear_bf16(x, w, b, inputs, outputs);
        }
        let mut out = self.act(self.rows() * outputs)?;
        self.run(ops::addmm(
            &Tensor::new(b, &[outputs])?,
            &t2(x, self.rows(), inputs)?,
            &t2(w, outputs, inputs)?.t()?,
            1.0f32,
            1.0f32,
            m2(&mut out, self.rows(), outputs)?,
            CubeMath::KeepDtype,
        ))?;
        Ok(out)
    }

    /// LayerNorm over C with weight `w` and bias `b`.
    pub fn layer_norm(
        &self,
        x: &Block<f32>,
        w: &Block<f32>,
        b: &Block<f32>,
    ) -> ascendcl::Result<Normed> {
        let (mut out, mut mean, mut rstd) = (
            self.act(self.rows() * C)?,
            self.act(self.rows())?,
            self.act(self.rows())?,
        );
        self.run(ops::layer_norm(
            &t2(x, self.rows(), C)?,
            &[C as i64],
            Some(&Tensor::new(w, &[C])?),
            Some(&Tensor::new(b, &[C])?),
            EPS,
            m2(&mut out, self.rows(), C)?,
            Some(LayerNormStats {
                mean: m2(&mut mean, self.rows(), 1)?,
                rstd: m2(&mut rstd, self.rows(), 1)?,
            }),
        ))?;
        Ok(Normed { out, mean, rstd })
    }

    /// `a + b`, `[self.rows(), C]`.
    pub fn add(&self, a: &Block<f32>, b: &Block<f32>) -> ascendcl::Result<Block<f32>> {
        let mut out = self.act(self.rows() * C)?;
        self.run(ops::add(
            &t2(a, self.rows(), C)?,
            &t2(b, self.rows(), C)?,
            1.0f32,
            m2(&mut out, self.rows(), C)?,
        ))?;
        Ok(out)
    }

    /// One block from its input `x`: what its backward needs, and its
    /// output.
    fn block(
        &self,
        ps: &Params,
        consts: &Consts,
        l: usize,
        x: Block<f32>,
    ) -> ascendcl::Result<(BlockSaved, Block<f32>)> {
        let w = |i: usize| &ps.values[block(l) + i];
        let ln1 = self.layer_norm(&x, w(p::LN1_W), w(p::LN1_B))?;
        let q = self.linear(&ln1.out, w(p::Q_W), w(p::Q_W + 1), C, C)?;
        let k = self.linear(&ln1.out, w(p::K_W), w(p::K_W + 1), C, C)?;
        let v = self.linear(&ln1.out, w(p::V_W), w(p::V_W + 1), C, C)?;
        // f32: the output is allocated first (the golden traces' order).
        let f32_out = match self.precision {
            Precision::F32 => Some(self.act(self.rows() * C)?),
            Precision::Bf16 => None,
        };
        let (mut softmax_max, mut softmax_sum) = (
            self.act(self.stats().iter().product())?,
            self.act(self.stats().iter().product())?,
        );
        let stats = AttentionStats {
            softmax_max: TensorMut::new(&mut softmax_max, &self.stats())?,
            softmax_sum: TensorMut::new(&mut softmax_sum, &self.stats())?,
        };
        let y = if let Some(mut y) = f32_out {
            self.run(ops::flash_attention_score(
                &self.bsh(&q)?,
                &self.bsh(&k)?,
                &self.bsh(&v)?,
                Some(&Tensor::new(&consts.mask, &[T, T])?),
                &attention(),
                stats,
                self.bsh_mut(&mut y)?,
            ))?;
            y
        } else {
            self.attention_bf16((&q, &k, &v), consts, stats)?
        };
        let o = self.linear(&y, w(p::O_W), w(p::O_W + 1), C, C)?;
        let x1 = self.add(&x, &o)?;
        let ln2 = self.layer_norm(&x1, w(p::LN2_W), w(p::LN2_B))?;
        let f = self.linear(&ln2.out, w(p::FC_W), w(p::FC_W + 1), C, FF)?;
        let mut act = self.act(self.rows() * FF)?;
        self.run(ops::gelu_v2(
            &t2(&f, self.rows(), FF)?,
            GeluApproximate::None,
            m2(&mut act, self.rows(), FF)?,
        ))?;
        let mlp = self.linear(&act, w(p::PROJ_W), w(p::PROJ_W + 1), FF, C)?;
        let out = self.add(&x1, &mlp)?;
        let saved = BlockSaved {
            x,
            ln1,
            q,
            k,
            v,
            y,
            softmax_max,
            softmax_sum,
            x1,
            ln2,
            f,
            act,
        };
        Ok((saved, out))
    }

    /// The forward pass of `inputs` (`[self.rows()]` tokens) against `targets`.
    pub fn forward(
        &self,
        ps: &Params,
        consts: &Consts,
        inputs: &[i64],
        targets: &[i64],
    ) -> ascendcl::Result<Saved> {
        let (idx, targets) = (self.upload(inputs)?, self.upload(targets)?);
        let (mut tok, mut pos) = (self.act(self.rows() * C)?, self.act(self.rows() * C)?);
        self.run(ops::embedding(
            &t2(&ps.values[WTE], V, C)?,
            &Tensor::new(&idx, &[self.rows()])?,
            m2(&mut tok, self.rows(), C)?,
        ))?;
        self.run(ops::embedding(
            &t2(&ps.values[WPE], T, C)?,
            &Tensor::new(&consts.pos.slice(..self.rows())?, &[self.rows()])?,
            m2(&mut pos, self.rows(), C)?,
        ))?;
        let mut x = self.add(&tok, &pos)?;
        let mut blocks = Vec::with_capacity(L);
        for l in 0..L {
            let (saved, out) = self.block(ps, consts, l, x)?;
            blocks.push(saved);
            x = out;
        }
        let ln_f = self.layer_norm(&x, &ps.values[LNF_W], &ps.values[LNF_W + 1])?;
        // Tied output projection: logits = h @ wteᵀ.
        let logits = if self.precision == Precision::Bf16 {
            self.mm_bf16(
                Mat::new(&ln_f.out, self.rows(), C),
                Mat::new(&ps.values[WTE], V, C).t(),
            )?
        } else {
            let mut logits = self.act(self.rows() * V)?;
            self.run(ops::mm(
                &t2(&ln_f.out, self.rows(), C)?,
                &t2(&ps.values[WTE], V, C)?.t()?,
                m2(&mut logits, self.rows(), V)?,
                CubeMath::KeepDtype,
            ))?;
            logits
        };
        let mut logp = self.act(self.rows() * V)?;
        self.run(ops::log_softmax(
            &t2(&logits, self.rows(), V)?,
            1,
            m2(&mut logp, self.rows(), V)?,
        ))?;
        let (mut loss, mut total) = (self.act(1)?, self.act(1)?);
        self.run(ops::nll_loss(
            &t2(&logp, self.rows(), V)?,
            &Tensor::new(&targets, &[self.rows()])?,
            &Tensor::new(&consts.ones, &[V])?,
            Reduction::Mean,
            -100,
            TensorMut::new(&mut loss, &[])?,
            TensorMut::new(&mut total, &[])?,
        ))?;
        Ok(Saved {
            idx,
            targets,
            blocks,
            x_last: x,
            ln_f,
            logp,
            loss,
            total,
        })
    }
}
