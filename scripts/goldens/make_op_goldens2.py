#!/usr/bin/env python3
"""PyTorch ground truth for the second aclnn operator set (issue 12):
Convolution, ConvolutionBackward, BatchNorm, BatchNormBackward,
MaxPool2dWithIndices, MaxPool2dWithIndicesBackward, AdaptiveAvgPool2d,
AdaptiveAvgPool2dBackward, UpsampleBicubic2d, UpsampleBicubic2dBackward,
UpsampleBilinear2d.

Writes one directory per case under ascendcl/tests/goldens/ops2/<case>/, in
the manifest format of the first set (ascendcl/tests/goldens/ops/README.md)
extended by the line kinds `double`, `bools`, `none` and `unchecked` and by
empty `ints` lists; ascendcl/tests/goldens/ops2/README.md describes them and
the conventions encoded here (BatchNorm's saveInvstd on Atlas A2/A3, running
statistics, max-pool indices, upsample scales).

Every result is computed by PyTorch on the CPU (one thread) in the case's
dtype, from inputs drawn with fixed seeds (one per case, from its name), so a
rerun with the same torch version writes the same bytes. CI never runs this;
run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_op_goldens2.py       # rewrites ops2/
    python3 scripts/goldens/check_op_goldens2.py      # NumPy only

Tolerances: see TOLERANCES below (also in the README).
"""

import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402  (layout, Rng, to_numpy, dtype tokens)

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops2")
DTYPES, TOKEN = g1.DTYPES, g1.TOKEN
Rng = g1.Rng

# ---------------------------------------------------------------------------
# TOLERANCES (|actual - expected| <= atol + rtol*|expected|)
#
# Max pooling forward (values and indices): exact, rtol 0 atol 0 -- the
#   result is a selection of an input element; no arithmetic.
# Everything else is a sum whose order the device chooses ("accum"):
#   f32:  rtol 1e-5, atol 1e-6
#   f16:  rtol 1e-3, atol 1e-3
#   bf16: rtol 1e-2, atol 1e-2
#   and atol is raised to rtol * S, where S is the largest, over the output
#   elements, of the sum of the absolute values of the terms that make the
#   element (computed in float64 by running the same op on |inputs|, or by
#   the formula written out for BatchNorm): an error bound every summation
#   order meets where terms cancel. f16/bf16 results are rounded once from an
#   f32 accumulation (PyTorch's CPU opmath, and the device's cube/vector f32
#   accumulation); the tolerance is about two ulps of the dtype at S.
# Convolution-class ops get cubeMathType 0 (KEEP_DTYPE): f32 stays f32 on the
#   device (no HF32), which these tolerances assume.
# BatchNorm: S for `output` is max |weight*(x-mean)*invstd| + |bias|; for
#   saveMean/runningMean max |x| (mean) and for saveInvstd/runningVar the
#   largest (x-mean)^2 plus the previous running value; for the backward
#   gradInput |w|*invstd*(|g| + mean|g| + |xhat|*mean|g*xhat|), gradWeight
#   sum|g*xhat| and gradBias sum|g|. The variance is computed over the batch
#   with one f32 rounding; on the device it may be E[x^2]-E[x]^2 or Welford,
#   so inputs keep their mean within a few std of 0 (one case has mean 4, std
#   1, where f32 E[x^2]-E[x]^2 still meets 1e-5 * S).
# The check script (check_op_goldens2.py) recomputes the expectations in
# float64 from the f16/bf16/f32 inputs and checks PyTorch's values against
# them with these tolerances, so PyTorch itself is shown to meet them.
# ---------------------------------------------------------------------------
ACCUM = {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)}
EXACT = (0.0, 0.0)


def accum(dt, scale=0.0):
    rt, at = ACCUM[dt]
    return rt, max(at, rt * float(scale))


def fmt_float(x):
    return repr(float(x))


def layout(value, how):
    """g1.layout plus 'nhwc': a 4-D value stored channels-last (storage
    N,H,W,C, 1-D), seen through a permuted view (strides of
    .permute(0, 3, 1, 2)); 3-D values likewise with the channel last."""
    if how != "nhwc":
        return g1.layout(value, how)
    d = value.dim()
    perm = [0] + list(range(2, d)) + [1]
    base = value.permute(*perm).contiguous()
    storage = base.reshape(-1).clone()
    inv = [perm.index(i) for i in range(d)]
    v = base.permute(*inv)
    view = storage.as_strided(v.shape, v.stride(), 0)
    assert torch.equal(view, value)
    return g1.Input(storage, view, (tuple(view.shape), tuple(view.stride()), 0))


class Case:
    def __init__(self, name, op):
        assert name not in CASES, name
        self.name, self.op = name, op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def _file(self, stem, t):
        fname = f"{stem}.npy"
        assert fname not in self.files
        self.files[fname] = g1.to_numpy(t)
        return fname

    def tensor(self, role, inp):
        if inp is None:
            self.lines.append(f"none {role}")
            return
        fname = self._file(role, inp.storage)
        line = f"tensor {role} {inp.dtype} {fname}"
        if inp.spec is not None:
            shape, strides, off = inp.spec
            line += " view {} strides {} offset {}".format(
                ",".join(map(str, shape)), ",".join(map(str, strides)), off)
        self.lines.append(line)

    def none(self, role):
        self.lines.append(f"none {role}")

    def int_(self, name, v):
        self.lines.append(f"int {name} {int(v)}")

    def bool_(self, name, v):
        self.lines.append(f"bool {name} {1 if v else 0}")

    def ints(self, name, vs):
        s = ",".join(str(int(v)) for v in vs)
        self.lines.append(f"ints {name} {s}" if s else f"ints {name}")

    def bools(self, name, vs):
        self.lines.append(f"bools {name} {','.join('1' if v else '0' for v in vs)}")

    def double(self, name, v):
        self.lines.append(f"double {name} {fmt_float(v)}")

    def expect(self, role, t, rtol, atol, stem=None):
        dt = TOKEN[t.dtype]
        fname = self._file(stem or ("expect_" + role), t)
        self.lines.append(f"expect {role} {dt} {fname} {float(rtol)!r} {float(atol)!r}")

    def unchecked(self, role, dt, shape):
        self.lines.append(f"unchecked {role} {dt} {','.join(str(int(v)) for v in shape)}")

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


CASES = {}


def absmax(t):
    return t.detach().double().abs().max().item() if t.numel() else 0.0


# ---------------------------------------------------------------------------
# Convolution, ConvolutionBackward
# ---------------------------------------------------------------------------
# name, dt, input shape, Cout, kernel, stride, padding, dilation, groups,
# bias, transposed, outputPadding, input layout, weight layout
CONV_SPECS = [
    ("f32_basic_bias", "f32", (2, 3, 7, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, True, False, (0, 0), "contig", "contig"),
    ("f32_stride2_pad_nobias", "f32", (2, 3, 9, 7), 4, (3, 3), (2, 2), (1, 2), (1, 1), 1, False, False, (0, 0), "contig", "contig"),
    ("f32_asym_kernel_stride", "f32", (1, 2, 8, 7), 3, (3, 2), (2, 1), (0, 1), (1, 1), 1, True, False, (0, 0), "contig", "contig"),
    ("f32_dilation2", "f32", (2, 2, 9, 8), 3, (3, 3), (1, 1), (2, 2), (2, 2), 1, True, False, (0, 0), "contig", "contig"),
    ("f32_dilation_stride_nopad", "f32", (1, 3, 11, 9), 2, (2, 3), (2, 3), (0, 0), (3, 2), 1, False, False, (0, 0), "contig", "contig"),
    ("f32_groups2", "f32", (2, 4, 6, 5), 6, (3, 3), (1, 1), (1, 1), (1, 1), 2, True, False, (0, 0), "contig", "contig"),
    ("f32_groups3_stride2", "f32", (1, 6, 7, 7), 3, (3, 3), (2, 2), (1, 1), (1, 1), 3, False, False, (0, 0), "contig", "contig"),
    ("f32_depthwise", "f32", (2, 4, 7, 6), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4, True, False, (0, 0), "contig", "contig"),
    ("f32_depthwise_mult2", "f32", (1, 3, 6, 7), 6, (3, 3), (2, 1), (1, 1), (1, 1), 3, False, False, (0, 0), "contig", "contig"),
    ("f32_1x1_stride2_shortcut", "f32", (1, 8, 7, 7), 4, (1, 1), (2, 2), (0, 0), (1, 1), 1, False, False, (0, 0), "contig", "contig"),
    ("f32_nhwc_input", "f32", (2, 3, 6, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, True, False, (0, 0), "nhwc", "contig"),
    ("f32_transposed_hw_views", "f32", (2, 3, 5, 6), 4, (3, 2), (1, 2), (1, 0), (1, 1), 1, True, False, (0, 0), "transposed", "transposed"),
    ("f32_sliced_input_groups2", "f32", (1, 4, 5, 7), 2, (2, 2), (1, 1), (1, 1), (1, 1), 2, True, False, (0, 0), "sliced", "nhwc"),
    ("f32_kernel_covers_input", "f32", (2, 2, 3, 3), 3, (3, 3), (1, 1), (0, 0), (1, 1), 1, True, False, (0, 0), "contig", "contig"),
    ("f32_convtranspose_s2_op1", "f32", (2, 3, 4, 5), 2, (3, 3), (2, 2), (1, 1), (1, 1), 1, True, True, (1, 1), "contig", "contig"),
    ("f32_convtranspose_groups2_dil", "f32", (1, 4, 3, 4), 4, (2, 3), (2, 1), (0, 1), (2, 1), 2, False, True, (1, 0), "contig", "contig"),
    ("f32_conv1d_ncl", "f32", (2, 3, 11), 4, (3,), (2,), (1,), (1,), 1, True, False, (0,), "contig", "contig"),
    ("f16_basic_bias", "f16", (2, 3, 7, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, True, False, (0, 0), "contig", "contig"),
    ("f16_stride2_groups2_nhwc", "f16", (1, 4, 7, 6), 4, (3, 3), (2, 2), (1, 1), (1, 1), 2, False, False, (0, 0), "nhwc", "contig"),
    ("bf16_basic_bias", "bf16", (2, 3, 7, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, True, False, (0, 0), "contig", "contig"),
    ("bf16_dilation_depthwise", "bf16", (1, 3, 8, 7), 3, (3, 3), (1, 2), (2, 1), (2, 1), 3, True, False, (0, 0), "transposed", "contig"),
    # conv3d (NCDHW): three padding entries, each padding both sides of its dim
    ("f32_conv3d_basic_bias", "f32", (2, 3, 5, 6, 4), 4, (3, 3, 2), (1, 1, 1), (1, 1, 0), (1, 1, 1), 1, True, False, (0, 0, 0), "contig", "contig"),
    ("f32_conv3d_stride_dil_groups2", "f32", (1, 4, 7, 6, 7), 6, (2, 3, 3), (2, 1, 2), (1, 0, 1), (1, 2, 1), 2, False, False, (0, 0, 0), "nhwc", "contig"),
    ("f32_conv3d_transposed_s2_op1", "f32", (1, 4, 3, 4, 3), 4, (3, 3, 3), (2, 2, 1), (1, 1, 1), (1, 1, 1), 2, True, True, (1, 0, 0), "contig", "contig"),
    ("f16_conv3d_basic_bias", "f16", (1, 3, 4, 5, 4), 4, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, True, False, (0, 0, 0), "contig", "contig"),
    ("bf16_conv3d_basic_bias", "bf16", (1, 3, 4, 5, 4), 4, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, True, False, (0, 0, 0), "contig", "contig"),
]


def conv_inputs(cname, dt, ishape, cout, k, groups, bias, transposed):
    r = Rng(cname)
    cin = ishape[1]
    if transposed:
        wshape = (cin, cout // groups) + tuple(k)
    else:
        wshape = (cout, cin // groups) + tuple(k)
    x = r.normal(ishape, dt)
    fan = (cin // groups) * int(np.prod(k))
    w = r.normal(wshape, dt, 1.0 / np.sqrt(fan))
    b = r.normal((cout,), dt, 0.5) if bias else None
    return r, x, w, b


def conv_fwd(x, w, b, st, pd, dl, tr, op, g):
    return torch.ops.aten.convolution(x, w, b, list(st), list(pd), list(dl), tr, list(op), g)


def convolution_cases():
    for name, dt, ish, cout, k, st, pd, dl, g, bias, tr, op, lx, lw in CONV_SPECS:
        cname = f"convolution_{name}"
        r, x, w, b = conv_inputs(cname, dt, ish, cout, k, g, bias, tr)
        X, W = layout(x, lx), layout(w, lw)
        B = layout(b, "contig") if b is not None else None
        c = Case(cname, "Convolution")
        c.tensor("input", X)
        c.tensor("weight", W)
        c.tensor("bias", B)
        c.ints("stride", st)
        c.ints("padding", pd)
        c.ints("dilation", dl)
        c.bool_("transposed", tr)
        c.ints("outputPadding", op)
        c.int_("groups", g)
        out = conv_fwd(X.view, W.view, B.view if B else None, st, pd, dl, tr, op, g)
        babs = b.double().abs() if b is not None else None
        scale = absmax(conv_fwd(x.double().abs(), w.double().abs(), babs, st, pd, dl, tr, op, g))
        c.expect("output", out, *accum(dt, scale))
        c.int_("cubeMathType", 0)


# name, index into CONV_SPECS (by name), outputMask, layouts (gradOutput, input, weight)
CONVB_SPECS = [
    ("f32_basic_bias", "f32_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_stride2_pad_nobias", "f32_stride2_pad_nobias", (1, 1, 0), ("contig", "contig", "contig")),
    ("f32_asym_kernel_stride", "f32_asym_kernel_stride", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_dilation2", "f32_dilation2", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_dilation_stride_nopad", "f32_dilation_stride_nopad", (1, 1, 0), ("contig", "contig", "contig")),
    ("f32_groups2", "f32_groups2", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_groups3_stride2_mask_input_only", "f32_groups3_stride2", (1, 0, 0), ("contig", "contig", "contig")),
    ("f32_depthwise_mask_weight_bias", "f32_depthwise", (0, 1, 1), ("contig", "contig", "contig")),
    ("f32_depthwise_mult2", "f32_depthwise_mult2", (1, 1, 0), ("contig", "contig", "contig")),
    ("f32_1x1_stride2_shortcut", "f32_1x1_stride2_shortcut", (1, 1, 0), ("contig", "contig", "contig")),
    ("f32_nhwc_views", "f32_nhwc_input", (1, 1, 1), ("nhwc", "nhwc", "contig")),
    ("f32_transposed_hw_views", "f32_transposed_hw_views", (1, 1, 1), ("transposed", "sliced", "transposed")),
    ("f32_mask_bias_only", "f32_basic_bias", (0, 0, 1), ("contig", "contig", "contig")),
    ("f32_mask_weight_only_groups2", "f32_sliced_input_groups2", (0, 1, 0), ("contig", "contig", "contig")),
    ("f32_convtranspose_s2_op1", "f32_convtranspose_s2_op1", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_conv1d_ncl", "f32_conv1d_ncl", (1, 1, 1), ("contig", "contig", "contig")),
    ("f16_basic_bias", "f16_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
    ("f16_stride2_groups2", "f16_stride2_groups2_nhwc", (1, 1, 0), ("nhwc", "contig", "contig")),
    ("bf16_basic_bias", "bf16_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
    ("bf16_dilation_depthwise", "bf16_dilation_depthwise", (1, 1, 1), ("contig", "transposed", "contig")),
    ("f32_conv3d_basic_bias", "f32_conv3d_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
    ("f32_conv3d_stride_dil_groups2", "f32_conv3d_stride_dil_groups2", (1, 1, 0), ("nhwc", "nhwc", "contig")),
    ("f32_conv3d_transposed_s2_op1", "f32_conv3d_transposed_s2_op1", (1, 1, 1), ("contig", "contig", "contig")),
    ("f16_conv3d_basic_bias", "f16_conv3d_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
    ("bf16_conv3d_basic_bias", "bf16_conv3d_basic_bias", (1, 1, 1), ("contig", "contig", "contig")),
]


def convolution_backward_cases():
    by_name = {s[0]: s for s in CONV_SPECS}
    for name, fwd, mask, (lg, lx, lw) in CONVB_SPECS:
        _, dt, ish, cout, k, st, pd, dl, g, bias, tr, op, _, _ = by_name[fwd]
        cname = f"convolutionbackward_{name}"
        r, x, w, b = conv_inputs(cname, dt, ish, cout, k, g, bias, tr)
        oshape = conv_fwd(x.float(), w.float(), None, st, pd, dl, tr, op, g).shape
        gout = r.normal(tuple(oshape), dt)
        G, X, W = layout(gout, lg), layout(x, lx), layout(w, lw)
        bias_sizes = [cout] if mask[2] else []
        c = Case(cname, "ConvolutionBackward")
        c.tensor("gradOutput", G)
        c.tensor("input", X)
        c.tensor("weight", W)
        c.ints("biasSizes", bias_sizes)
        c.ints("stride", st)
        c.ints("padding", pd)
        c.ints("dilation", dl)
        c.bool_("transposed", tr)
        c.ints("outputPadding", op)
        c.int_("groups", g)
        c.bools("outputMask", mask)
        c.int_("cubeMathType", 0)
        res = torch.ops.aten.convolution_backward(G.view, X.view, W.view, bias_sizes if mask[2] else None,
                                                  list(st), list(pd), list(dl), tr, list(op), g,
                                                  [bool(m) for m in mask])
        sc = torch.ops.aten.convolution_backward(gout.double().abs(), x.double().abs(), w.double().abs(),
                                                 [cout], list(st), list(pd), list(dl), tr, list(op), g,
                                                 [True, True, True])
        for i, role in enumerate(("gradInput", "gradWeight", "gradBias")):
            if mask[i]:
                c.expect(role, res[i], *accum(dt, absmax(sc[i])))
            else:
                c.none(role)


# ---------------------------------------------------------------------------
# BatchNorm, BatchNormBackward
# ---------------------------------------------------------------------------
# name, input dtype, param dtype, shape, training, affine, running stats,
# momentum, eps, input layout, mean offset
BN_SPECS = [
    ("f32_train_nchw", "f32", "f32", (3, 4, 5, 7), True, True, True, 0.1, 1e-5, "contig", 0.0),
    ("f32_train_nc_2d", "f32", "f32", (6, 5), True, True, True, 0.1, 1e-5, "contig", 0.0),
    ("f32_train_ncl_3d_momentum03", "f32", "f32", (2, 3, 7), True, True, True, 0.3, 1e-3, "contig", 0.0),
    ("f32_train_no_affine", "f32", "f32", (2, 3, 5, 5), True, False, True, 0.1, 1e-5, "contig", 0.0),
    ("f32_train_no_running_stats", "f32", "f32", (2, 3, 4, 5), True, True, False, 0.1, 1e-5, "contig", 0.0),
    ("f32_train_nhwc_view", "f32", "f32", (2, 4, 5, 3), True, True, True, 0.1, 1e-5, "nhwc", 0.0),
    ("f32_train_transposed_view", "f32", "f32", (2, 3, 6, 5), True, True, True, 0.1, 1e-5, "transposed", 0.0),
    ("f32_train_batch1", "f32", "f32", (1, 3, 3, 5), True, True, True, 0.1, 1e-5, "contig", 0.0),
    ("f32_train_mean4", "f32", "f32", (4, 2, 4, 4), True, True, True, 0.1, 1e-5, "contig", 4.0),
    ("f32_eval_nchw", "f32", "f32", (3, 4, 5, 7), False, True, True, 0.1, 1e-5, "contig", 0.0),
    ("f32_eval_sliced_no_affine", "f32", "f32", (2, 3, 4, 5), False, False, True, 0.1, 1e-5, "sliced", 0.0),
    ("f16_train_f32_params", "f16", "f32", (2, 4, 5, 7), True, True, True, 0.1, 1e-5, "contig", 0.0),
    ("f16_eval_f32_params", "f16", "f32", (2, 4, 5, 7), False, True, True, 0.1, 1e-5, "contig", 0.0),
    ("bf16_train_f32_params", "bf16", "f32", (2, 4, 5, 7), True, True, True, 0.1, 1e-5, "contig", 0.0),
    ("bf16_eval_f32_params", "bf16", "f32", (2, 4, 5, 7), False, True, True, 0.1, 1e-5, "nhwc", 0.0),
]


def bn_inputs(cname, dt, pdt, shape, affine, running, offset):
    r = Rng(cname)
    C = shape[1]
    x = (r.normal(shape, "f32", 1.5) + r.normal((1, C) + (1,) * (len(shape) - 2), "f32", 0.5) + offset).to(DTYPES[dt])
    w = r.uniform((C,), 0.5, 1.5, pdt) if affine else None
    b = r.normal((C,), pdt, 0.3) if affine else None
    rm = r.normal((C,), pdt, 0.2) if running else None
    rv = r.uniform((C,), 0.5, 2.0, pdt) if running else None
    return r, x, w, b, rm, rv


def batch_stats(x):
    """Biased batch mean and variance per channel, float64."""
    dims = [0] + list(range(2, x.dim()))
    xd = x.double()
    mean = xd.mean(dim=dims)
    var = ((xd - mean.reshape((1, -1) + (1,) * (x.dim() - 2))) ** 2).mean(dim=dims)
    return mean, var, int(x.numel() // x.shape[1])


def chan(t, nd):
    return t.reshape((1, -1) + (1,) * (nd - 2))


def batch_norm_cases():
    for name, dt, pdt, shape, train, affine, running, mom, eps, lx, off in BN_SPECS:
        cname = f"batchnorm_{name}"
        r, x, w, b, rm, rv = bn_inputs(cname, dt, pdt, shape, affine, running, off)
        X = layout(x, lx)
        RM = layout(rm, "contig") if running else None
        RV = layout(rv, "contig") if running else None
        c = Case(cname, "BatchNorm")
        c.tensor("input", X)
        c.tensor("weight", layout(w, "contig") if affine else None)
        c.tensor("bias", layout(b, "contig") if affine else None)
        c.tensor("runningMean", RM)
        c.tensor("runningVar", RV)
        c.bool_("training", train)
        c.double("momentum", mom)
        c.double("eps", eps)
        rm_t = RM.view if running else None
        rv_t = RV.view if running else None
        out, smean, sinvstd = torch.ops.aten.native_batch_norm(X.view, w, b, rm_t, rv_t, train, mom, eps)
        nd = x.dim()
        C = shape[1]
        wd = w.double() if affine else torch.ones(C, dtype=torch.float64)
        bd = b.double() if affine else torch.zeros(C, dtype=torch.float64)
        if train:
            mean, var, n = batch_stats(x)
            invstd = 1.0 / torch.sqrt(var + eps)
            # PyTorch's save_invstd really is 1/sqrt(var_biased + eps):
            assert torch.allclose(sinvstd.double(), invstd, rtol=1e-5), cname
            xhat = (x.double() - chan(mean, nd)) * chan(invstd, nd)
        else:
            xhat = (x.double() - chan(rm.double(), nd)) / torch.sqrt(chan(rv.double(), nd) + eps)
        out_scale = (chan(wd.abs(), nd) * xhat.abs() + chan(bd.abs(), nd)).max().item()
        c.expect("output", out, *accum(dt, out_scale))
        sdt = "f32" if train else dt
        if train:
            # The saved statistics are f32 in training (torch_npu allocates
            # them so). saveInvstd holds the biased batch VARIANCE, the
            # Atlas A2/A3 convention (facts file section D, the v8.5.0
            # aclnnBatchNorm doc): not PyTorch's 1/sqrt(var + eps).
            c.expect("saveMean", smean.float(), *accum("f32", absmax(x)))
            c.expect("saveInvstd", var.float(),
                     *accum("f32", ((x.double() - chan(mean, nd)) ** 2).max().item()))
        else:
            # eval: the op needs the tensors, their content is unspecified
            c.unchecked("saveMean", sdt, (C,))
            c.unchecked("saveInvstd", sdt, (C,))
        if running:
            if train:
                # in place: running = (1-momentum)*running + momentum*batch,
                # with the UNBIASED batch variance var*n/(n-1) for runningVar
                assert torch.allclose(RM.view.double(), (1 - mom) * rm.double() + mom * mean, rtol=1e-5, atol=1e-6)
                assert torch.allclose(RV.view.double(), (1 - mom) * rv.double() + mom * var * n / (n - 1),
                                      rtol=1e-5, atol=1e-6)
                sm = (1 - mom) * rm.double().abs() + mom * absmax(x)
                sv = (1 - mom) * rv.double().abs() + mom * ((x.double() - chan(mean, nd)) ** 2).max() * n / (n - 1)
                c.expect("runningMean", RM.storage, *accum(pdt, sm.max().item()))
                c.expect("runningVar", RV.storage, *accum(pdt, sv.max().item()))
            else:
                # eval leaves the running statistics untouched
                c.expect("runningMean", RM.storage, *EXACT)
                c.expect("runningVar", RV.storage, *EXACT)


# name, forward spec (by name), outputMask, layouts (gradOut, input)
BNB_SPECS = [
    ("f32_train_nchw", "f32_train_nchw", (1, 1, 1), ("contig", "contig")),
    ("f32_train_nc_2d", "f32_train_nc_2d", (1, 1, 1), ("contig", "contig")),
    ("f32_train_ncl_3d", "f32_train_ncl_3d_momentum03", (1, 1, 1), ("contig", "contig")),
    ("f32_train_mask_input_only", "f32_train_nchw", (1, 0, 0), ("contig", "contig")),
    ("f32_train_mask_weight_bias", "f32_train_nchw", (0, 1, 1), ("contig", "contig")),
    ("f32_train_no_weight", "f32_train_no_affine", (1, 0, 0), ("contig", "contig")),
    ("f32_train_views", "f32_train_nhwc_view", (1, 1, 1), ("nhwc", "transposed")),
    ("f32_train_batch1", "f32_train_batch1", (1, 1, 1), ("contig", "contig")),
    ("f32_eval_nchw", "f32_eval_nchw", (1, 1, 1), ("contig", "contig")),
    ("f32_eval_mask_input_bias", "f32_eval_sliced_no_affine", (1, 0, 1), ("sliced", "contig")),
    ("f16_train_f32_params", "f16_train_f32_params", (1, 1, 1), ("contig", "contig")),
    ("f16_eval_f32_params", "f16_eval_f32_params", (1, 1, 1), ("contig", "contig")),
    ("bf16_train_f32_params", "bf16_train_f32_params", (1, 1, 1), ("contig", "contig")),
]


def batch_norm_backward_cases():
    by_name = {s[0]: s for s in BN_SPECS}
    for name, fwd, mask, (lg, lx) in BNB_SPECS:
        _, dt, pdt, shape, train, affine, _, mom, eps, _, off = by_name[fwd]
        cname = f"batchnormbackward_{name}"
        # running stats are always passed to the backward (eval reads them)
        r, x, w, b, rm, rv = bn_inputs(cname, dt, pdt, shape, affine, True, off)
        gout = r.normal(shape, dt)
        nd, C = x.dim(), shape[1]
        mean, var, n = batch_stats(x)
        smean = mean.float()
        svar = var.float()
        # PyTorch's backward takes 1/sqrt(var+eps); the aclnn op takes the
        # variance (A2/A3) and computes the same thing from it.
        sinv = (1.0 / torch.sqrt(svar.double() + eps)).float()
        G, X = layout(gout, lg), layout(x, lx)
        c = Case(cname, "BatchNormBackward")
        c.tensor("gradOut", G)
        c.tensor("input", X)
        c.tensor("weight", layout(w, "contig") if affine else None)
        c.tensor("runningMean", layout(rm, "contig"))
        c.tensor("runningVar", layout(rv, "contig"))
        # saveMean/saveInvstd: the training forward's outputs (f32, variance
        # in saveInvstd). In eval they hold the batch statistics too, which
        # the op must NOT use (eval uses the running statistics).
        c.tensor("saveMean", layout(smean, "contig"))
        c.tensor("saveInvstd", layout(svar, "contig"))
        c.bool_("training", train)
        c.double("eps", eps)
        c.bools("outputMask", mask)
        res = torch.ops.aten.native_batch_norm_backward(G.view, X.view, w, rm, rv, smean, sinv, train, eps,
                                                        [bool(m) for m in mask])
        gd = gout.double()
        wd = w.double().abs() if affine else torch.ones(C, dtype=torch.float64)
        dims = [0] + list(range(2, nd))
        if train:
            inv = 1.0 / torch.sqrt(var + eps)
            xhat = (x.double() - chan(mean, nd)) * chan(inv, nd)
            si = (chan(wd * inv, nd) * (gd.abs() + chan(gd.abs().mean(dims), nd)
                                         + xhat.abs() * chan((gd * xhat).abs().mean(dims), nd))).max().item()
        else:
            inv = 1.0 / torch.sqrt(rv.double() + eps)
            xhat = (x.double() - chan(rm.double(), nd)) * chan(inv, nd)
            si = (chan(wd * inv, nd) * gd.abs()).max().item()
        sw = (gd * xhat).abs().sum(dims).max().item()
        sb = gd.abs().sum(dims).max().item()
        for i, (role, s) in enumerate((("gradInput", si), ("gradWeight", sw), ("gradBias", sb))):
            if mask[i]:
                t = res[i]
                odt = dt if i == 0 else TOKEN[t.dtype]
                c.expect(role, t, *accum(odt, s))
            else:
                c.none(role)


# ---------------------------------------------------------------------------
# MaxPool2dWithIndices and its backward
# ---------------------------------------------------------------------------
# name, dt, shape, kernel, stride ([] = kernel), padding, dilation, ceil,
# indices dtype, layout, values ("normal" or "ties")
MP_SPECS = [
    ("f32_k2s2_resnet", "f32", (2, 3, 8, 8), (2, 2), (2, 2), (0, 0), (1, 1), False, "i64", "contig", "normal"),
    ("f32_k3s2p1_odd", "f32", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False, "i64", "contig", "normal"),
    ("f32_k3s2p1_odd_i32", "f32", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False, "i32", "contig", "normal"),
    ("f32_empty_stride", "f32", (1, 2, 7, 6), (3, 2), (), (0, 1), (1, 1), False, "i64", "contig", "normal"),
    ("f32_asym_k_s_p", "f32", (1, 3, 9, 7), (3, 2), (2, 1), (1, 0), (1, 1), False, "i64", "contig", "normal"),
    ("f32_ceil_mode", "f32", (1, 2, 7, 6), (2, 2), (2, 2), (0, 0), (1, 1), True, "i64", "contig", "normal"),
    ("f32_ceil_mode_last_window_dropped", "f32", (1, 2, 5, 8), (3, 3), (3, 3), (1, 1), (1, 1), True, "i64", "contig", "normal"),
    ("f32_dilation2", "f32", (1, 2, 9, 8), (3, 2), (1, 2), (1, 1), (2, 3), False, "i64", "contig", "normal"),
    ("f32_3d_chw", "f32", (3, 7, 5), (3, 3), (2, 2), (1, 1), (1, 1), False, "i64", "contig", "normal"),
    ("f32_nhwc_view", "f32", (2, 4, 6, 5), (2, 2), (2, 1), (1, 0), (1, 1), False, "i64", "nhwc", "normal"),
    ("f32_transposed_view_i32", "f32", (2, 3, 6, 7), (3, 3), (2, 2), (1, 1), (1, 1), True, "i32", "transposed", "normal"),
    ("f32_ties_first_index", "f32", (1, 2, 6, 6), (3, 3), (2, 2), (1, 1), (1, 1), False, "i64", "contig", "ties"),
    ("f16_k3s2p1", "f16", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False, "i64", "contig", "normal"),
    ("f16_ceil_i32", "f16", (1, 3, 7, 6), (2, 2), (2, 2), (1, 0), (1, 1), True, "i32", "sliced", "normal"),
    ("bf16_k3s2p1", "bf16", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False, "i64", "contig", "normal"),
    ("bf16_k2s2_i32", "bf16", (1, 4, 8, 6), (2, 2), (2, 2), (0, 0), (1, 1), False, "i32", "nhwc", "normal"),
]


def mp_input(cname, dt, shape, kind):
    r = Rng(cname)
    if kind == "ties":
        # few distinct values: many windows hold their maximum twice or more.
        # PyTorch keeps the FIRST maximum in window scan order (row by row).
        x = r.ints(shape, 0, 3, "i64").float()
    else:
        x = r.normal(shape, "f32")
    return r, x.to(DTYPES[dt])


def mp_forward(xv, k, st, pd, dl, ceil):
    return torch.ops.aten.max_pool2d_with_indices(xv, list(k), list(st), list(pd), list(dl), ceil)


def max_pool_cases():
    for name, dt, shape, k, st, pd, dl, ceil, idt, lx, kind in MP_SPECS:
        cname = f"maxpool2dwithindices_{name}"
        r, x = mp_input(cname, dt, shape, kind)
        X = layout(x, lx)
        c = Case(cname, "MaxPool2dWithIndices")
        c.tensor("self", X)
        c.ints("kernelSize", k)
        c.ints("stride", st)
        c.ints("padding", pd)
        c.ints("dilation", dl)
        c.bool_("ceilMode", ceil)
        out, idx = mp_forward(X.view, k, st, pd, dl, ceil)
        c.expect("out", out, *EXACT)
        c.expect("indices", idx.to(DTYPES[idt]), *EXACT)


# The A2/A3 backward supports f32 only, int32 indices only, dilation 1 only
# (facts B.1.2); most cases are in that domain, two use int64 indices
# (PyTorch's own dtype) and are named so.
MPB_SPECS = [
    ("f32_k2s2_resnet_i32", "f32", (2, 3, 8, 8), (2, 2), (2, 2), (0, 0), False, "i32", ("contig", "contig"), "normal"),
    ("f32_k3s2p1_overlap_i32", "f32", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), False, "i32", ("contig", "contig"), "normal"),
    ("f32_k3s2p1_overlap_i64", "f32", (2, 3, 7, 9), (3, 3), (2, 2), (1, 1), False, "i64", ("contig", "contig"), "normal"),
    ("f32_empty_stride_i32", "f32", (1, 2, 7, 6), (3, 2), (), (0, 1), False, "i32", ("contig", "contig"), "normal"),
    ("f32_stride1_overlap_i32", "f32", (1, 2, 6, 5), (3, 3), (1, 1), (1, 1), False, "i32", ("contig", "contig"), "normal"),
    ("f32_ceil_mode_i32", "f32", (1, 2, 7, 6), (2, 2), (2, 2), (0, 0), True, "i32", ("contig", "contig"), "normal"),
    ("f32_ceil_last_window_dropped_i32", "f32", (1, 2, 5, 8), (3, 3), (3, 3), (1, 1), True, "i32", ("contig", "contig"), "normal"),
    ("f32_3d_chw_i32", "f32", (3, 7, 5), (3, 3), (2, 2), (1, 1), False, "i32", ("contig", "contig"), "normal"),
    ("f32_views_i32", "f32", (2, 4, 6, 5), (2, 2), (2, 1), (1, 0), False, "i32", ("transposed", "nhwc"), "normal"),
    ("f32_ties_i64", "f32", (1, 2, 6, 6), (3, 3), (1, 1), (1, 1), False, "i64", ("contig", "contig"), "ties"),
]


def max_pool_backward_cases():
    for name, dt, shape, k, st, pd, ceil, idt, (lg, lx), kind in MPB_SPECS:
        cname = f"maxpool2dwithindicesbackward_{name}"
        r, x = mp_input(cname, dt, shape, kind)
        dl = (1, 1)
        out, idx = mp_forward(x, k, st, pd, dl, ceil)
        gout = r.normal(tuple(out.shape), dt)
        G, X = layout(gout, lg), layout(x, lx)
        c = Case(cname, "MaxPool2dWithIndicesBackward")
        c.tensor("gradOutput", G)
        c.tensor("self", X)
        c.tensor("indices", layout(idx.to(DTYPES[idt]), "contig"))
        c.ints("kernelSize", k)
        c.ints("stride", st)
        c.ints("padding", pd)
        c.ints("dilation", dl)
        c.bool_("ceilMode", ceil)
        gi = torch.ops.aten.max_pool2d_with_indices_backward(G.view, X.view, list(k), list(st), list(pd),
                                                             list(dl), ceil, idx)
        scale = torch.ops.aten.max_pool2d_with_indices_backward(gout.double().abs(), x.double(), list(k),
                                                                list(st), list(pd), list(dl), ceil, idx)
        c.expect("gradInput", gi, *accum(dt, absmax(scale)))


# ---------------------------------------------------------------------------
# AdaptiveAvgPool2d and its backward
# ---------------------------------------------------------------------------
AAP_SPECS = [
    ("f32_global_1x1", "f32", (2, 16, 4, 4), (1, 1), "contig"),
    ("f32_7x5_to_3x2", "f32", (2, 3, 7, 5), (3, 2), "contig"),
    ("f32_8x8_to_4x4", "f32", (1, 3, 8, 8), (4, 4), "contig"),
    ("f32_5x3_to_7x4_upsample", "f32", (1, 2, 5, 3), (7, 4), "contig"),
    ("f32_9x7_to_4x5", "f32", (1, 2, 9, 7), (4, 5), "contig"),
    ("f32_3d_chw_to_2x3", "f32", (3, 7, 6), (2, 3), "contig"),
    ("f32_nhwc_view", "f32", (2, 4, 6, 5), (4, 3), "nhwc"),
    ("f32_transposed_view", "f32", (2, 3, 5, 7), (2, 2), "transposed"),
    ("f32_sliced_global", "f32", (2, 3, 5, 5), (1, 1), "sliced"),
    ("f16_7x5_to_3x2", "f16", (2, 3, 7, 5), (3, 2), "contig"),
    ("f16_global_nhwc", "f16", (2, 8, 4, 4), (1, 1), "nhwc"),
    ("bf16_7x5_to_3x2", "bf16", (2, 3, 7, 5), (3, 2), "contig"),
    ("bf16_global", "bf16", (2, 8, 4, 4), (1, 1), "contig"),
]


def adaptive_avg_pool_cases():
    for name, dt, shape, osz, lx in AAP_SPECS:
        cname = f"adaptiveavgpool2d_{name}"
        r = Rng(cname)
        x = r.normal(shape, dt)
        X = layout(x, lx)
        c = Case(cname, "AdaptiveAvgPool2d")
        c.tensor("self", X)
        c.ints("outputSize", osz)
        out = torch.ops.aten._adaptive_avg_pool2d(X.view, list(osz))
        c.expect("out", out, *accum(dt, absmax(x)))

    for name, dt, shape, osz, lx in AAP_SPECS:
        cname = f"adaptiveavgpool2dbackward_{name}"
        r = Rng(cname)
        x = r.normal(shape, dt)
        oshape = tuple(shape[:-2]) + tuple(osz)
        gout = r.normal(oshape, dt)
        G, X = layout(gout, lx), layout(x, "contig")
        c = Case(cname, "AdaptiveAvgPool2dBackward")
        c.tensor("gradOutput", G)
        c.tensor("self", X)
        gi = torch.ops.aten._adaptive_avg_pool2d_backward(G.view, X.view)
        scale = torch.ops.aten._adaptive_avg_pool2d_backward(gout.double().abs(), x.double())
        c.expect("out", gi, *accum(dt, absmax(scale)))


# ---------------------------------------------------------------------------
# UpsampleBicubic2d (+ backward), UpsampleBilinear2d
# ---------------------------------------------------------------------------
# scales: 0.0 means "not given" (the size ratio in/out is used), as torch_npu
# passes scales_h.value_or(0). With scales > 0 and alignCorners false the
# source index uses 1/scale; outputSize is floor(in * scale).
# name, dt, shape, outputSize, alignCorners, scalesH, scalesW, layout
UP_SPECS = [
    ("f32_up_5x4_to_9x7", "f32", (1, 2, 5, 4), (9, 7), False, 0.0, 0.0, "contig"),
    ("f32_up_5x4_to_9x7_align", "f32", (1, 2, 5, 4), (9, 7), True, 0.0, 0.0, "contig"),
    ("f32_down_9x8_to_4x5", "f32", (2, 2, 9, 8), (4, 5), False, 0.0, 0.0, "contig"),
    ("f32_down_9x8_to_4x5_align", "f32", (2, 2, 9, 8), (4, 5), True, 0.0, 0.0, "contig"),
    ("f32_scales_1p7_2p5", "f32", (1, 2, 5, 3), (8, 7), False, 1.7, 2.5, "contig"),
    ("f32_scales_0p6_down", "f32", (1, 2, 7, 9), (4, 5), False, 0.6, 0.6, "contig"),
    ("f32_scales_ignored_align", "f32", (1, 2, 5, 3), (8, 7), True, 1.7, 2.5, "contig"),
    ("f32_same_size", "f32", (1, 2, 4, 5), (4, 5), False, 0.0, 0.0, "contig"),
    ("f32_to_1x1", "f32", (1, 2, 4, 5), (1, 1), True, 0.0, 0.0, "contig"),
    ("f32_transposed_view", "f32", (2, 2, 5, 6), (7, 4), False, 0.0, 0.0, "transposed"),
    ("f32_nhwc_view_align", "f32", (1, 3, 4, 4), (6, 7), True, 0.0, 0.0, "nhwc"),
    ("f16_up_5x4_to_9x7", "f16", (1, 2, 5, 4), (9, 7), False, 0.0, 0.0, "contig"),
    ("f16_down_align", "f16", (2, 2, 9, 8), (4, 5), True, 0.0, 0.0, "sliced"),
    ("bf16_up_5x4_to_9x7", "bf16", (1, 2, 5, 4), (9, 7), False, 0.0, 0.0, "contig"),
    ("bf16_scales_align_off", "bf16", (1, 2, 5, 3), (8, 7), False, 1.7, 2.5, "contig"),
]
UP_BACKWARD = ["f32_up_5x4_to_9x7", "f32_up_5x4_to_9x7_align", "f32_down_9x8_to_4x5", "f32_down_9x8_to_4x5_align",
               "f32_scales_1p7_2p5", "f32_scales_0p6_down", "f32_same_size", "f32_transposed_view",
               "f16_up_5x4_to_9x7", "f16_down_align", "bf16_up_5x4_to_9x7", "bf16_scales_align_off"]
BILINEAR = ["f32_up_5x4_to_9x7", "f32_up_5x4_to_9x7_align", "f32_down_9x8_to_4x5", "f32_down_9x8_to_4x5_align",
            "f32_scales_1p7_2p5", "f32_scales_0p6_down", "f32_to_1x1", "f32_transposed_view", "f32_nhwc_view_align",
            "f16_up_5x4_to_9x7", "f16_down_align", "bf16_up_5x4_to_9x7", "bf16_scales_align_off"]


def opt_scale(s):
    return None if s == 0.0 else s


def upsample_operator(fn, hw, osz, ac, sh, sw):
    """The op as a matrix [OH*OW, H*W] (float64), from one-hot images: for
    the error bound S (sum of |weight * value| over an output's terms)."""
    H, W = hw
    basis = torch.eye(H * W, dtype=torch.float64).reshape(H * W, 1, H, W)
    return fn(basis, list(osz), ac, opt_scale(sh), opt_scale(sw)).reshape(H * W, -1).T


def upsample_cases():
    for mode, op, names in (("bicubic", "UpsampleBicubic2d", [s[0] for s in UP_SPECS]),
                            ("bilinear", "UpsampleBilinear2d", BILINEAR)):
        fn = torch.ops.aten.upsample_bicubic2d if mode == "bicubic" else torch.ops.aten.upsample_bilinear2d
        for name, dt, shape, osz, ac, sh, sw, lx in UP_SPECS:
            if name not in names:
                continue
            if sh:
                assert osz == (int(np.floor(shape[2] * sh)), int(np.floor(shape[3] * sw))), name
            cname = f"{op.lower()}_{name}"
            r = Rng(cname)
            x = r.normal(shape, dt)
            X = layout(x, lx)
            c = Case(cname, op)
            c.tensor("self", X)
            c.ints("outputSize", osz)
            c.bool_("alignCorners", ac)
            c.double("scalesH", sh)
            c.double("scalesW", sw)
            out = fn(X.view, list(osz), ac, opt_scale(sh), opt_scale(sw))
            K = upsample_operator(fn, shape[2:], osz, ac, sh, sw)
            xs = x.double().abs().reshape(shape[0] * shape[1], -1)
            c.expect("out", out, *accum(dt, (xs @ K.abs().T).max().item()))

    for name, dt, shape, osz, ac, sh, sw, lx in UP_SPECS:
        if name not in UP_BACKWARD:
            continue
        cname = f"upsamplebicubic2dbackward_{name}"
        r = Rng(cname)
        gout = r.normal(tuple(shape[:2]) + tuple(osz), dt)
        G = layout(gout, lx)
        c = Case(cname, "UpsampleBicubic2dBackward")
        c.tensor("gradOut", G)
        c.ints("outputSize", osz)
        c.ints("inputSize", shape)
        c.bool_("alignCorners", ac)
        c.double("scalesH", sh)
        c.double("scalesW", sw)
        gi = torch.ops.aten.upsample_bicubic2d_backward(G.view, list(osz), list(shape), ac, opt_scale(sh),
                                                        opt_scale(sw))
        # S: |operator|^T applied to |gradOut|
        K = upsample_operator(torch.ops.aten.upsample_bicubic2d, shape[2:], osz, ac, sh, sw)
        gs = gout.double().abs().reshape(shape[0] * shape[1], -1)
        c.expect("gradInput", gi, *accum(dt, (gs @ K.abs()).max().item()))


# ---------------------------------------------------------------------------
def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    convolution_cases()
    convolution_backward_cases()
    batch_norm_cases()
    batch_norm_backward_cases()
    max_pool_cases()
    max_pool_backward_cases()
    adaptive_avg_pool_cases()
    upsample_cases()

    if os.path.isdir(OUT):
        for entry in os.listdir(OUT):
            p = os.path.join(OUT, entry)
            if os.path.isdir(p):
                shutil.rmtree(p)
    os.makedirs(OUT, exist_ok=True)
    for case in CASES.values():
        case.write()
    counts = {}
    for case in CASES.values():
        counts[case.op] = counts.get(case.op, 0) + 1
    with open(os.path.join(OUT, "CASES.txt"), "w", encoding="utf-8") as f:
        f.write(f"# generated by scripts/goldens/make_op_goldens2.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
