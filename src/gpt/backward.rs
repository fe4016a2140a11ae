//! The backward pass, written out by hand: every parameter's gradient of
//! the mean loss into `Params::grads`.

use ascendcl::alloc::Block;
use ascendcl::ops::{
    self, AttentionSaved, CubeMath, DType, GeluApproximate, GradMask, Reduction, Tensor, TensorMut,
};
use ascendcl::prelude::*;

use super::forward::{BlockSaved, Consts, Normed, Saved, attention};
use super::model::{Gpt, Params, Precision, m2, t2};
use super::precision::Mat;
use super::{C, FF, L, LNF_W, T, V, WPE, WTE, block, p};

/// Gradients that become final together in the backward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Block `l`'s sixteen parameters.
    Block(usize),
    /// The embeddings and the final LayerNorm.
    Rest,
}

impl Bucket {
    /// The indices (into `Params`) of the bucket's parameters.
    pub fn params(self) -> Vec<usize> {
        match self {
            Bucket::Block(l) => (block(l)..block(l) + super::PER_BLOCK).collect(),
            Bucket::Rest => vec![WTE, WPE, LNF_W, LNF_W + 1],
        }
    }
}

impl Gpt<'_> {
    /// For `out = x @ wᵀ + b` (`self.rows()` rows, `inputs` → `outputs`) and the
    /// output's gradient `g`: `w`'s and `b`'s gradients into `gw`, `gb`, and
    /// the input's gradient (a new block).
    #[allow(clippy::too_many_arguments)]
    fn linear_back(
        &self,
        g: &Block<f32>,
        x: &Block<f32>,
        w: &Block<f32>,
        gw: &mut Block<f32>,
        gb: &mut Block<f32>,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<Block<f32>> {
        self.weight_back(g, x, gw, gb, inputs, outputs)?;
        if self.precision == Precision::Bf16 {
            return self.mm_bf16(
                Mat::new(g, self.rows(), outputs),
                Mat::new(w, outputs, inputs),
            );
        }
        let mut gx = self.act(self.rows() * inputs)?;
        self.run(ops::mm(
            &t2(g, self.rows(), outputs)?,
            &t2(w, outputs, inputs)?,
            m2(&mut gx, self.rows(), inputs)?,
            CubeMath::KeepDtype,
        ))?;
        Ok(gx)
    }

    /// `gw = gᵀ x`, `gb = Σ_rows g`.
    fn weight_back(
        &self,
        g: &Block<f32>,
        x: &Block<f32>,
        gw: &mut Block<f32>,
        gb: &mut Block<f32>,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<()> {
        if self.precision == Precision::Bf16 {
            self.mm_bf16_into(
                Mat::new(g, self.rows(), outputs).t(),
                Mat::new(x, self.rows(), inputs),
                gw,
            )?;
        } else {
            self.run(ops::mm(
                &t2(g, self.rows(), outputs)?.t()?,
                &t2(x, self.rows(), inputs)?,
                m2(gw, outputs, inputs)?,
                CubeMath::KeepDtype,
            ))?;
        }
        self.run(ops::reduce_sum(
            &t2(g, self.rows(), outputs)?,
            &[0],
            false,
            DType::F32,
            TensorMut::new(gb, &[outputs])?,
        ))
    }

    /// LayerNorm's backward: the input's gradient (a new block), the
    /// weight's and bias's into `gw`, `gb`.
    #[allow(clippy::too_many_arguments)]
    fn layer_norm_back(
        &self,
        g: &Block<f32>,
        x: &Block<f32>,
        n: &Normed,
        w: &Block<f32>,
        b: &Block<f32>,
        gw: &mut Block<f32>,
        gb: &mut Block<f32>,
    ) -> ascendcl::Result<Block<f32>> {
        let mut gx = self.act(self.rows() * C)?;
        self.run(ops::layer_norm_backward(
            &t2(g, self.rows(), C)?,
            &t2(x, self.rows(), C)?,
            &[C as i64],
            &t2(&n.mean, self.rows(), 1)?,
            &t2(&n.rstd, self.rows(), 1)?,
            Some(&Tensor::new(w, &[C])?),
            Some(&Tensor::new(b, &[C])?),
            GradMask::ALL,
            Some(m2(&mut gx, self.rows(), C)?),
            Some(TensorMut::new(gw, &[C])?),
            Some(TensorMut::new(gb, &[C])?),
        ))?;
        Ok(gx)
    }

    /// `acc += g`, `[self.rows(), C]`.
    fn accumulate(&self, acc: &mut Block<f32>, g: &Block<f32>) -> ascendcl::Result<()> {
        self.run(ops::inplace_add(
            m2(acc, self.rows(), C)?,
            &t2(g, self.rows(), C)?,
            1.0f32,
        ))
    }

    /// FlashAttention's backward in f32: the gradients of `q`, `k`, `v`.
    fn attention_back(
        &self,
        s: &BlockSaved,
        g_y: &Block<f32>,
        consts: &Consts,
    ) -> ascendcl::Result<(Block<f32>, Block<f32>, Block<f32>)> {
        let (mut dq, mut dk, mut dv) = (
            self.act(self.rows() * C)?,
            self.act(self.rows() * C)?,
            self.act(self.rows() * C)?,
        );
        self.run(ops::flash_attention_score_grad(
            &self.bsh(&s.q)?,
            &self.bsh(&s.k)?,
            &self.bsh(&s.v)?,
            &self.bsh(g_y)?,
            Some(&Tensor::new(&consts.mask, &[T, T])?),
            AttentionSaved {
                softmax_max: &Tensor::new(&s.softmax_max, &self.stats())?,
                softmax_sum: &Tensor::new(&s.softmax_sum, &self.stats())?,
                out: &self.bsh(&s.y)?,
            },
            &attention(),
            self.bsh_mut(&mut dq)?,
            self.bsh_mut(&mut dk)?,
            self.bsh_mut(&mut dv)?,
        ))?;
        Ok((dq, dk, dv))
    }

    /// One block's backward from its output's gradient `gx`: the gradient
    /// of its input.
    fn block_back(
        &self,
        ps: &mut Params,
        consts: &Consts,
        l: usize,
        s: &BlockSaved,
        gx: Block<f32>,
    ) -> ascendcl::Result<Block<f32>> {
        let base = block(l);
        let Params { values, grads, .. } = ps;
        let w = |i: usize| &values[base + i];
        let (head, tail) = grads.split_at_mut(base + p::PROJ_W + 1);
        let (gw, gb) = (&mut head[base + p::PROJ_W], &mut tail[0]);
        // x2 = x1 + act @ Wprojᵀ + bproj.
        let g_act = self.linear_back(&gx, &s.act, w(p::PROJ_W), gw, gb, FF, C)?;
        let mut g_f = self.act(self.rows() * FF)?;
        self.run(ops::gelu_backward_v2(
            &t2(&g_act, self.rows(), FF)?,
            &t2(&s.f, self.rows(), FF)?,
            GeluApproximate::None,
            m2(&mut g_f, self.rows(), FF)?,
        ))?;
        let (head, tail) = grads.split_at_mut(base + p::FC_W + 1);
        let g_ln2 = self.linear_back(
            &g_f,
            &s.ln2.out,
            w(p::FC_W),
            &mut head[base + p::FC_W],
            &mut tail[0],
            C,
            FF,
        )?;
        let (head, tail) = grads.split_at_mut(base + p::LN2_B);
        let mut g_x1 = self.layer_norm_back(
            &g_ln2,
            &s.x1,
            &s.ln2,
            w(p::LN2_W),
            w(p::LN2_B),
            &mut head[base + p::LN2_W],
            &mut tail[0],
        )?;
        // x1 = x + y @ Woᵀ + bo: the residual adds gx.
        self.accumulate(&mut g_x1, &gx)?;
        let (head, tail) = grads.split_at_mut(base + p::O_W + 1);
        let g_y = self.linear_back(
            &g_x1,
            &s.y,
            w(p::O_W),
            &mut head[base + p::O_W],
            &mut tail[0],
            C,
            C,
        )?;
        let (dq, dk, dv) = if self.precision == Precision::Bf16 {
            self.attention_back_bf16(
                (&s.q, &s.k, &s.v, &s.y),
                (&s.softmax_max, &s.softmax_sum),
                &g_y,
                consts,
            )?
        } else {
            self.attention_back(s, &g_y, consts)?
        };
        // q, k, v = ln1 @ Wᵀ + b: ln1's gradient sums the three.
        let mut g_ln1 = self.act(self.rows() * C)?;
        for (i, (d, wi)) in [(&dq, p::Q_W), (&dk, p::K_W), (&dv, p::V_W)]
            .into_iter()
            .enumerate()
        {
            let (head, tail) = grads.split_at_mut(base + wi + 1);
            self.weight_back(d, &s.ln1.out, &mut head[base + wi], &mut tail[0], C, C)?;
            if self.precision == Precision::Bf16 {
                let g = self.mm_bf16(Mat::new(d, self.rows(), C), Mat::new(w(wi), C, C))?;
                if i == 0 {
                    g_ln1 = g;
                } else {
                    self.accumulate(&mut g_ln1, &g)?;
                }
                continue;
            }
            let beta = if i == 0 { 0.0f32 } else { 1.0f32 };
            self.run(ops::inplace_addmm(
                m2(&mut g_ln1, self.rows(), C)?,
                &t2(d, self.rows(), C)?,
                &t2(w(wi), C, C)?,
                beta,
                1.0f32,
                CubeMath::KeepDtype,
            ))?;
        }
        let (head, tail) = grads.split_at_mut(base + p::LN1_B);
        let mut g_x = self.layer_norm_back(
            &g_ln1,
            &s.x,
            &s.ln1,
            w(p::LN1_W),
            w(p::LN1_B),
            &mut head[base + p::LN1_W],
            &mut tail[0],
        )?;
        self.accumulate(&mut g_x, &g_x1)?;
        Ok(g_x)
    }

    /// The backward of `s` (the forward of the same parameters): every
    /// gradient into `ps.grads`.
    pub fn backward(&self, ps: &mut Params, consts: &Consts, s: &Saved) -> ascendcl::Result<()> {
        self.backward_with(ps, consts, s, &mut |_, _| Ok(()))
    }

    /// As [`Gpt::backward`], calling `ready(ps, bucket)` as soon as a
    /// bucket's gradients are final, in the order the backward finishes
    /// them (the last block first, [`Bucket::Rest`] last), while the rest
    /// of the backward is still to be queued: where data parallelism starts
    /// a bucket's all-reduce.
    pub fn backward_with(
        &self,
        ps: &mut Params,
        consts: &Consts,
        s: &Saved,
        ready: &mut dyn FnMut(&mut Params, Bucket) -> ascendcl::Result<()>,
    ) -> ascendcl::Result<()> {
        let mut g_logp = self.act(self.rows() * V)?;
        self.run(ops::nll_loss_backward(
            &Tensor::new(self.loss_seed.unwrap_or(&consts.one), &[])?,
            &t2(&s.logp, self.rows(), V)?,
            &Tensor::new(&s.targets, &[self.rows()])?,
            &Tensor::new(&consts.ones, &[V])?,
            Reduction::Mean,
            -100,
            &Tensor::new(&s.total, &[])?,
            m2(&mut g_logp, self.rows(), V)?,
        ))?;
        let mut g_logits = self.act(self.rows() * V)?;
        self.run(ops::log_softmax_backward(
            &t2(&g_logp, self.rows(), V)?,
            &t2(&s.logp, self.rows(), V)?,
            1,
            m2(&mut g_logits, self.rows(), V)?,
        ))?;
        // logits = h @ wteᵀ: wte's gradient starts here, h's is g @ wte.
        let g_h = if self.precision == Precision::Bf16 {
            self.mm_bf16_into(
                Mat::new(&g_logits, self.rows(), V).t(),
                Mat::new(&s.ln_f.out, self.rows(), C),
                &mut ps.grads[WTE],
            )?;
            self.mm_bf16(
                Mat::new(&g_logits, self.rows(), V),
                Mat::new(&ps.values[WTE], V, C),
            )?
        } else {
            self.run(ops::mm(
                &t2(&g_logits, self.rows(), V)?.t()?,
                &t2(&s.ln_f.out, self.rows(), C)?,
                m2(&mut ps.grads[WTE], V, C)?,
                CubeMath::KeepDtype,
            ))?;
            let mut g_h = self.act(self.rows() * C)?;
            self.run(ops::mm(
                &t2(&g_logits, self.rows(), V)?,
                &t2(&ps.values[WTE], V, C)?,
                m2(&mut g_h, self.rows(), C)?,
                CubeMath::KeepDtype,
            ))?;
            g_h
        };
        let (head, tail) = ps.grads.split_at_mut(LNF_W + 1);
        let mut g_x = self.layer_norm_back(
            &g_h,
            &s.x_last,
            &s.ln_f,
            &ps.values[LNF_W],
            &ps.values[LNF_W + 1],
            &mut head[LNF_W],
            &mut tail[0],
        )?;
        for l in (0..L).rev() {
            g_x = self.block_back(ps, consts, l, &s.blocks[l], g_x)?;
            ready(ps, Bucket::Block(l))?;
        }
        // x = wte[idx] + wpe[pos].
        let mut g_tok = self.act(V * C)?;
        self.run(ops::embedding_dense_backward(
            &t2(&g_x, self.rows(), C)?,
            &Tensor::new(&s.idx, &[self.rows()])?,
            V as u64,
            None,
            false,
            m2(&mut g_tok, V, C)?,
        ))?;
        self.run(ops::inplace_add(
            m2(&mut ps.grads[WTE], V, C)?,
            &t2(&g_tok, V, C)?,
            1.0f32,
        ))?;
        self.run(ops::embedding_dense_backward(
            &t2(&g_x, self.rows(), C)?,
            &Tensor::new(&consts.pos.slice(..self.rows())?, &[self.rows()])?,
            T as u64,
            None,
            false,
            m2(&mut ps.grads[WPE], T, C)?,
        ))?;
        ready(ps, Bucket::Rest)
    }
}
