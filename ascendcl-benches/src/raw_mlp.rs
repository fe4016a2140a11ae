//! The raw-sys twin of one `train_mlp` step (the safe one is
//! `ascendcl_examples::mlp::trainer::Trainer::gradients` then `sgd_step`):
//! the same 25 operators with the same shapes, attributes and order, and the
//! same descriptors (one set per operator, as the safe wrappers make them),
//! through raw aclnn calls on preallocated buffers, with no tracking. Written once,
//! for the launch-cost bench.

use std::ffi::c_void;

use ascendcl::sys::{aclDataType, aclTensor};
use ascendcl_examples::mlp::{BATCH, C, D, H, LR, MOMENTUM};

use crate::raw_ops::RawOps;

/// The device addresses one step reads and writes (every buffer f32 but
/// `labels`, i64).
#[derive(Debug, Clone, Copy)]
pub struct MlpBuffers {
    /// Inputs `BATCH × D` and labels `BATCH`.
    pub x: *mut c_void,
    /// Class indices, i64.
    pub labels: *mut c_void,
    /// Parameters: w1 `H × D`, b1 `H`, w2 `C × H`, b2 `C`.
    pub params: [*mut c_void; 4],
    /// Gradients, shaped like `params`.
    pub grads: [*mut c_void; 4],
    /// Momentum, shaped like `params`.
    pub moms: [*mut c_void; 4],
    /// Class weights (`C` ones) and the 0-d one.
    pub weight: *mut c_void,
    /// dLoss/dLoss = 1.
    pub one: *mut c_void,
    /// Temporaries: pre, hidden (`BATCH × H`), logits, logp (`BATCH × C`),
    /// loss, total (0-d), g_logp, g_logits (`BATCH × C`), g_hidden, g_pre
    /// (`BATCH × H`).
    pub temps: [*mut c_void; 10],
}

/// Element counts of `MlpBuffers::params` (and grads, moms).
pub const PARAM_LENS: [usize; 4] = [H * D, H, C * H, C];

/// Element counts of `MlpBuffers::temps`.
pub const TEMP_LENS: [usize; 10] = [
    BATCH * H,
    BATCH * H,
    BATCH * C,
    BATCH * C,
    1,
    1,
    BATCH * C,
    BATCH * C,
    BATCH * H,
    BATCH * H,
];

const B: i64 = BATCH as i64;
const DI: i64 = D as i64;
const HI: i64 = H as i64;
const CI: i64 = C as i64;

impl RawOps<'_> {
    /// `out = x @ wᵀ + b` (`wᵀ` a transposed view of `w`, as the safe one).
    ///
    /// # Safety
    /// Live buffers of the shapes named.
    unsafe fn linear(
        &self,
        (x, w, b, out): (*mut c_void, *mut c_void, *mut c_void, *mut c_void),
        inputs: i64,
        outputs: i64,
    ) {
        // SAFETY: as the caller says; wᵀ is w's storage with swapped strides.
        let (tb, tx, twt, tout) = unsafe {
            (
                self.f32s(b, &[outputs]),
                self.f32s(x, &[B, inputs]),
                self.tensor(
                    w,
                    &[inputs, outputs],
                    &[1, inputs],
                    inputs * outputs,
                    aclDataType::ACL_FLOAT,
                ),
                self.f32s(out, &[B, outputs]),
            )
        };
        let (beta, alpha) = (self.scalar(1.0), self.scalar(1.0));
        let aclnn = self.aclnn;
        self.launch(
            "Addmm",
            // SAFETY: live descriptors and valid out-pointers.
            Box::new(|ws, ex| unsafe {
                aclnn
                    .aclnnAddmmGetWorkspaceSize(tb, tx, twt, beta, alpha, tout, 0, ws, ex)
                    .unwrap()
            }),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnAddmm(w, n, ex, s) }.unwrap()),
        );
        self.drop_scalars(&[beta, alpha]);
        self.drop_tensors(&[tb, tx, twt, tout]);
    }

    /// `out = a @ b` where `a` is `[m, k]` (transposed view of a `[k, m]`
    /// buffer when `a_t`) and `b` is `[k, n]`.
    ///
    /// # Safety
    /// Live buffers of the shapes named.
    unsafe fn mm(
        &self,
        (a, b, out): (*mut c_void, *mut c_void, *mut c_void),
        a_t: bool,
        m: i64,
        k: i64,
        n: i64,
    ) {
        let strides = if a_t { [1, m] } else { [k, 1] };
        // SAFETY: as the caller says.
        let (ta, tb, tout) = unsafe {
            (
                self.tensor(a, &[m, k], &strides, m * k, aclDataType::ACL_FLOAT),
                self.f32s(b, &[k, n]),
                self.f32s(out, &[m, n]),
            )
        };
        let aclnn = self.aclnn;
        self.launch(
            "Mm",
            Box::new(|ws, ex| {
                // SAFETY: live descriptors and valid out-pointers.
                unsafe { aclnn.aclnnMmGetWorkspaceSize(ta, tb, tout, 0, ws, ex) }.unwrap()
            }),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnMm(w, n, ex, s) }.unwrap()),
        );
        self.drop_tensors(&[ta, tb, tout]);
    }

    /// `out = sum(g, dim 0)` of a `[B, n]` buffer.
    ///
    /// # Safety
    /// Live buffers of the shapes named.
    unsafe fn sum_rows(&self, g: *mut c_void, out: *mut c_void, n: i64) {
        // SAFETY: as the caller says.
        let (tg, tout) = unsafe { (self.f32s(g, &[B, n]), self.f32s(out, &[n])) };
        let dims = self.ints(&[0]);
        let aclnn = self.aclnn;
        self.launch(
            "ReduceSum",
            Box::new(|ws, ex| {
                // SAFETY: live descriptors and valid out-pointers.
                unsafe {
                    aclnn.aclnnReduceSumGetWorkspaceSize(
                        tg,
                        dims,
                        false,
                        aclDataType::ACL_FLOAT,
                        tout,
                        ws,
                        ex,
                    )
                }
                .unwrap()
            }),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnReduceSum(w, n, ex, s) }.unwrap()),
        );
        self.drop_ints(&[dims]);
        self.drop_tensors(&[tg, tout]);
    }

    /// `m = μ·m + g; p -= lr·m` over `n` elements (three in-place ops).
    ///
    /// # Safety
    /// Live buffers of `n` f32.
    unsafe fn sgd(&self, p: *mut c_void, g: *mut c_void, m: *mut c_void, n: i64) {
        let aclnn = self.aclnn;
        // SAFETY: as the caller says.
        let tm = unsafe { self.f32s(m, &[n]) };
        let mu = self.scalar(MOMENTUM);
        self.launch(
            "InplaceMuls",
            Box::new(|ws, ex| {
                // SAFETY: live descriptors and valid out-pointers.
                unsafe { aclnn.aclnnInplaceMulsGetWorkspaceSize(tm, mu, ws, ex) }.unwrap()
            }),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnInplaceMuls(w, n, ex, s) }.unwrap()),
        );
        self.drop_scalars(&[mu]);
        self.drop_tensors(&[tm]);
        for (target, source, alpha) in [(m, g, 1.0), (p, m, -LR)] {
            // SAFETY: as the caller says.
            let (tt, ts) = unsafe { (self.f32s(target, &[n]), self.f32s(source, &[n])) };
            let alpha = self.scalar(alpha);
            self.launch(
                "InplaceAdd",
                Box::new(|ws, ex| {
                    // SAFETY: live descriptors and valid out-pointers.
                    unsafe { aclnn.aclnnInplaceAddGetWorkspaceSize(tt, ts, alpha, ws, ex) }.unwrap()
                }),
                // SAFETY: the executor phase 1 returned, a live stream.
                Box::new(|w, n, ex, s| unsafe { aclnn.aclnnInplaceAdd(w, n, ex, s) }.unwrap()),
            );
            self.drop_scalars(&[alpha]);
            self.drop_tensors(&[tt, ts]);
        }
    }

    /// One training step (not the first: momentum is accumulated).
    ///
    /// # Safety
    /// Every address of `buf` is live device memory of the length
    /// [`PARAM_LENS`]/[`TEMP_LENS`] give, on the stream's device.
    pub unsafe fn mlp_step(&self, buf: &MlpBuffers) {
        let [
            pre,
            hidden,
            logits,
            logp,
            loss,
            total,
            g_logp,
            g_logits,
            g_hidden,
            g_pre,
        ] = buf.temps;
        let [w1, b1, w2, b2] = buf.params;
        let [gw1, gb1, gw2, gb2] = buf.grads;
        let aclnn = self.aclnn;
        // SAFETY: (every call below) the buffers are live with the lengths
        // the caller promised; descriptors are destroyed after their launch.
        unsafe {
            self.linear((buf.x, w1, b1, pre), DI, HI);
            let (tpre, thid) = (self.f32s(pre, &[B, HI]), self.f32s(hidden, &[B, HI]));
            self.launch(
                "Relu",
                Box::new(|ws, ex| aclnn.aclnnReluGetWorkspaceSize(tpre, thid, ws, ex).unwrap()),
                Box::new(|w, n, ex, s| aclnn.aclnnRelu(w, n, ex, s).unwrap()),
            );
            self.drop_tensors(&[tpre, thid]);
            self.linear((hidden, w2, b2, logits), HI, CI);

            // One set of descriptors per operator, as the safe step makes.
            let (tlog, tlp) = (self.f32s(logits, &[B, CI]), self.f32s(logp, &[B, CI]));
            self.launch(
                "LogSoftmax",
                Box::new(|ws, ex| {
                    aclnn
                        .aclnnLogSoftmaxGetWorkspaceSize(tlog, 1, tlp, ws, ex)
                        .unwrap()
                }),
                Box::new(|w, n, ex, s| aclnn.aclnnLogSoftmax(w, n, ex, s).unwrap()),
            );
            self.drop_tensors(&[tlog, tlp]);
            let target = |ops: &Self| -> *mut aclTensor {
                ops.tensor(buf.labels, &[B], &[1], B, aclDataType::ACL_INT64)
            };
            let (tlp, tt, tw) = (
                self.f32s(logp, &[B, CI]),
                target(self),
                self.f32s(buf.weight, &[CI]),
            );
            let (tloss, ttotal) = (self.f32s(loss, &[]), self.f32s(total, &[]));
            self.launch(
                "NLLLoss",
                Box::new(|ws, ex| {
                    aclnn
                        .aclnnNLLLossGetWorkspaceSize(tlp, tt, tw, 1, -100, tloss, ttotal, ws, ex)
                        .unwrap()
                }),
                Box::new(|w, n, ex, s| aclnn.aclnnNLLLoss(w, n, ex, s).unwrap()),
            );
            self.drop_tensors(&[tlp, tt, tw, tloss, ttotal]);
            let (tone, tlp, tt, tw) = (
                self.f32s(buf.one, &[]),
                self.f32s(logp, &[B, CI]),
                target(self),
                self.f32s(buf.weight, &[CI]),
            );
            let (ttotal, tglp) = (self.f32s(total, &[]), self.f32s(g_logp, &[B, CI]));
            self.launch(
                "NLLLossBackward",
                Box::new(|ws, ex| {
                    aclnn
                        .aclnnNLLLossBackwardGetWorkspaceSize(
                            tone, tlp, tt, tw, 1, -100, ttotal, tglp, ws, ex,
                        )
                        .unwrap()
                }),
                Box::new(|w, n, ex, s| aclnn.aclnnNLLLossBackward(w, n, ex, s).unwrap()),
            );
            self.drop_tensors(&[tone, tlp, tt, tw, ttotal, tglp]);
            let (tglp, tlp, tgl) = (
                self.f32s(g_logp, &[B, CI]),
                self.f32s(logp, &[B, CI]),
                self.f32s(g_logits, &[B, CI]),
            );
            self.launch(
                "LogSoftmaxBackward",
                Box::new(|ws, ex| {
                    aclnn
                        .aclnnLogSoftmaxBackwardGetWorkspaceSize(tglp, tlp, 1, tgl, ws, ex)
                        .unwrap()
                }),
                Box::new(|w, n, ex, s| aclnn.aclnnLogSoftmaxBackward(w, n, ex, s).unwrap()),
            );
            self.drop_tensors(&[tglp, tlp, tgl]);

            self.mm((g_logits, hidden, gw2), true, CI, B, HI);
            self.sum_rows(g_logits, gb2, CI);
            self.mm((g_logits, w2, g_hidden), false, B, CI, HI);
            let (tgh, thid, tgp) = (
                self.f32s(g_hidden, &[B, HI]),
                self.f32s(hidden, &[B, HI]),
                self.f32s(g_pre, &[B, HI]),
            );
            let zero = self.scalar(0.0);
            self.launch(
                "ThresholdBackward",
                Box::new(|ws, ex| {
                    aclnn
                        .aclnnThresholdBackwardGetWorkspaceSize(tgh, thid, zero, tgp, ws, ex)
                        .unwrap()
                }),
                Box::new(|w, n, ex, s| aclnn.aclnnThresholdBackward(w, n, ex, s).unwrap()),
            );
            self.drop_scalars(&[zero]);
            self.drop_tensors(&[tgh, thid, tgp]);
            self.mm((g_pre, buf.x, gw1), true, HI, B, DI);
            self.sum_rows(g_pre, gb1, HI);

            for (i, len) in PARAM_LENS.iter().enumerate() {
                self.sgd(buf.params[i], buf.grads[i], buf.moms[i], *len as i64);
            }
        }
    }
}
