#!/usr/bin/env python3
"""PyTorch ground truth for the norm_shape batch of the third aclnn operator
set (issue 20): LayerNorm, LayerNormBackward, Mean, Amax.

Writes one directory per case under ascendcl/tests/goldens/norm_shape/<case>/
in the manifest format of the second set (ascendcl/tests/goldens/ops2/
README.md; this set's README says what it adds). Helpers (layouts, seeded
inputs, the Case writer) are the first two sets' scripts', imported.

Every result is computed by PyTorch on the CPU (one thread), from inputs
drawn with fixed seeds (one per case, from its name). CI never runs this:

    python3 scripts/goldens/make_op_goldens_norm_shape.py    # rewrites norm_shape/
    python3 scripts/goldens/check_op_goldens_norm_shape.py   # NumPy only

TOLERANCES (|actual - expected| <= atol + rtol*|expected|): every result is
a sum whose order the device chooses, so the second set's "accum" rule:
  f32 rtol 1e-5 atol 1e-6, f16 rtol 1e-3 atol 1e-3, bf16 rtol 1e-2 atol 1e-2,
  with atol raised to rtol * S, S the largest over the output of the sum of
  the absolute values of the terms that make an element:
    out          |weight * xhat| + |bias|
    mean         max |x| of the row
    rstd         rstd itself (a relative bound: the variance of N terms in
                 f32 is off by a few ulps; inputs keep |mean| within a few
                 std so no cancellation widens it)
    gradInput    rstd * (|g w| + mean|g w| + |xhat| mean|g w xhat|)
    gradWeight   sum over rows |g xhat|;  gradBias  sum over rows |g|
    Mean         the mean of |x| over the reduced dims (a mean is a sum
                 scaled once by 1/count)
Amax is exact (rtol 0, atol 0): a maximum picks one of its inputs, and NaN
matches NaN.
f16/bf16 results are rounded once from an f32 accumulation (PyTorch's CPU
opmath, the device's f32 vector path). Statistics of an f16/bf16 input are
asked for in f32 (as torch_npu allocates them): their expectation is
PyTorch's on the input upcast exactly to f32. Gradients take the input
dtype's tolerance even where they are f32 (weight f32 under an f16 input):
PyTorch's mixed-type CPU backward rounds its partial sums to the input dtype.
"""

import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402
import make_op_goldens2 as g2  # noqa: E402

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "norm_shape")
DTYPES = g1.DTYPES
Rng = g1.Rng
layout = g2.layout
accum = g2.accum
CASES = {}


class Case(g2.Case):
    """g2's manifest writer, registered in this set and written under OUT."""

    def __init__(self, name, op):
        assert name not in CASES, name
        self.name, self.op = name, op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def dtype(self, name, dt):
        self.lines.append(f"dtype {name} {dt}")

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


# ---------------------------------------------------------------------------
# LayerNorm, LayerNormBackward
# ---------------------------------------------------------------------------
# name, dtype, param dtype (None: no weight/bias), shape, normalized dims,
# has weight, has bias, stats dtype (None: not asked for), eps, input layout,
# input kind ("normal", "offset": mean 3 std 1, "const": constant rows)
LN_SPECS = [
    ("f32_rows", "f32", "f32", (4, 8), 1, True, True, "f32", 1e-5, "contig", "normal"),
    ("f32_3d_two_dims", "f32", "f32", (2, 3, 5), 2, True, True, "f32", 1e-5, "contig", "normal"),
    ("f32_no_affine", "f32", None, (3, 7), 1, False, False, "f32", 1e-5, "contig", "normal"),
    ("f32_weight_only", "f32", "f32", (2, 2, 6), 1, True, False, "f32", 1e-6, "contig", "normal"),
    ("f32_bias_only", "f32", "f32", (5, 4), 1, False, True, "f32", 1e-5, "contig", "normal"),
    ("f32_no_stats", "f32", "f32", (3, 9), 1, True, True, None, 1e-5, "contig", "normal"),
    ("f32_transposed_input", "f32", "f32", (6, 5), 1, True, True, "f32", 1e-5, "transposed", "normal"),
    ("f32_sliced_input", "f32", "f32", (3, 6), 1, True, True, "f32", 1e-5, "sliced", "normal"),
    ("f32_whole_tensor", "f32", "f32", (2, 3, 4), 3, True, True, "f32", 1e-5, "contig", "normal"),
    ("f32_offset_mean", "f32", "f32", (4, 16), 1, True, True, "f32", 1e-5, "contig", "offset"),
    ("f32_constant_rows_eps", "f32", "f32", (3, 8), 1, True, True, "f32", 1e-5, "contig", "const"),
    ("f16_f32_params", "f16", "f32", (4, 8), 1, True, True, "f32", 1e-5, "contig", "normal"),
    ("f16_f16_params", "f16", "f16", (2, 3, 8), 1, True, True, "f32", 1e-5, "contig", "normal"),
    ("bf16_bf16_params", "bf16", "bf16", (4, 8), 1, True, True, "f32", 1e-5, "contig", "normal"),
    ("bf16_f32_params_transposed", "bf16", "f32", (8, 6), 1, True, True, "f32", 1e-5, "transposed", "normal"),
]


def ln_inputs(cname, dt, pdt, shape, nd, has_w, has_b, kind):
    r = Rng(cname)
    norm = shape[len(shape) - nd:]
    if kind == "const":
        x = r.normal(shape[:len(shape) - nd] + (1,) * nd, "f32").expand(shape).contiguous()
    elif kind == "offset":
        x = r.normal(shape, "f32") + 3.0
    else:
        x = r.normal(shape, "f32", 1.5)
    x = x.to(DTYPES[dt])
    w = r.uniform(norm, 0.5, 1.5, pdt) if has_w else None
    b = r.normal(norm, pdt, 0.3) if has_b else None
    return r, x, w, b, list(norm)


def stats_f32(x, norm, eps):
    """PyTorch's mean and rstd of x upcast exactly to f32."""
    _, m, rs = torch.ops.aten.native_layer_norm(x.float(), norm, None, None, eps)
    return m, rs


def xhat64(x, m, rs):
    return (x.double() - m.double()) * rs.double()


def layer_norm_cases():
    for name, dt, pdt, shape, nd, has_w, has_b, sdt, eps, lx, kind in LN_SPECS:
        cname = f"layernorm_{name}"
        r, x, w, b, norm = ln_inputs(cname, dt, pdt, shape, nd, has_w, has_b, kind)
        X = layout(x, lx)
        c = Case(cname, "LayerNorm")
        c.tensor("input", X)
        c.ints("normalizedShape", norm)
        c.tensor("weightOptional", layout(w, "contig") if has_w else None)
        c.tensor("biasOptional", layout(b, "contig") if has_b else None)
        c.double("eps", eps)
        out, m, rs = torch.ops.aten.native_layer_norm(X.view, norm, w, b, eps)
        m32, r32 = stats_f32(x, norm, eps)
        xh = xhat64(x, m32, r32)
        wd = w.double().abs() if has_w else 1.0
        bd = b.double().abs() if has_b else 0.0
        c.expect("out", out, *accum(dt, (wd * xh.abs() + bd).max().item()))
        if sdt is None:
            c.none("meanOutOptional")
            c.none("rstdOutOptional")
        else:
            if dt == "f32":
                assert torch.equal(m, m32) and torch.equal(rs, r32), cname
            c.expect("meanOutOptional", m32, *accum("f32", g2.absmax(x)))
            c.expect("rstdOutOptional", r32, *accum("f32", 0.0))


# name, forward spec, outputMask, layouts (gradOut, input)
LNB_SPECS = [
    ("f32_rows", "f32_rows", (1, 1, 1), ("contig", "contig")),
    ("f32_3d_two_dims", "f32_3d_two_dims", (1, 1, 1), ("contig", "contig")),
    ("f32_no_weight_input_only", "f32_no_affine", (1, 0, 0), ("contig", "contig")),
    ("f32_mask_weight_bias", "f32_rows", (0, 1, 1), ("contig", "contig")),
    ("f32_mask_input_bias", "f32_weight_only", (1, 0, 1), ("contig", "contig")),
    ("f32_views", "f32_transposed_input", (1, 1, 1), ("transposed", "sliced")),
    ("f32_whole_tensor", "f32_whole_tensor", (1, 1, 1), ("contig", "contig")),
    ("f32_offset_mean", "f32_offset_mean", (1, 1, 1), ("contig", "contig")),
    ("f16_f32_params", "f16_f32_params", (1, 1, 1), ("contig", "contig")),
    ("bf16_bf16_params", "bf16_bf16_params", (1, 1, 1), ("contig", "contig")),
]


def layer_norm_backward_cases():
    by_name = {s[0]: s for s in LN_SPECS}
    for name, fwd, mask, (lg, lx) in LNB_SPECS:
        _, dt, pdt, shape, nd, has_w, has_b, _, eps, _, kind = by_name[fwd]
        cname = f"layernormbackward_{name}"
        r, x, w, b, norm = ln_inputs(cname, dt, pdt, shape, nd, has_w, has_b, kind)
        gout = r.normal(shape, dt)
        m32, r32 = stats_f32(x, norm, eps)
        G, X = layout(gout, lg), layout(x, lx)
        c = Case(cname, "LayerNormBackward")
        c.tensor("gradOut", G)
        c.tensor("input", X)
        c.ints("normalizedShape", norm)
        c.tensor("mean", layout(m32, "contig"))
        c.tensor("rstd", layout(r32, "contig"))
        c.tensor("weightOptional", layout(w, "contig") if has_w else None)
        c.tensor("biasOptional", layout(b, "contig") if has_b else None)
        c.bools("outputMask", mask)
        bm = [bool(v) for v in mask]
        if dt != "f32" and pdt == dt:
            # PyTorch's CPU backward takes statistics in the input's dtype
            # when the weight is too: compute on the inputs upcast exactly to
            # f32 (PyTorch's opmath) and round each result once.
            up = torch.ops.aten.native_layer_norm_backward(G.view.float(), X.view.float(), norm, m32, r32,
                                                           w.float(), torch.zeros(norm), bm)
            res = [t.to(DTYPES[dt]) if t is not None else None for t in up]
        else:
            # no weight: ones, as the op builds them (aclnn_layer_norm_backward.cpp:343-346;
            # torch 2.15's CPU backward fails on a None weight, "tensor does not have a device")
            # (a None bias too; the gradients do not depend on the bias)
            wt = w if has_w else torch.ones(norm, dtype=x.dtype)
            bt = b if has_b else torch.zeros(norm, dtype=wt.dtype)
            res = torch.ops.aten.native_layer_norm_backward(G.view, X.view, norm, m32, r32, wt, bt, bm)
        red = tuple(range(len(shape) - nd))
        per = tuple(range(len(shape) - nd, len(shape)))
        gd = gout.double()
        gw = gd * (w.double() if has_w else 1.0)
        xh = xhat64(x, m32, r32)
        si = (r32.double() * (gw.abs() + gw.abs().mean(per, keepdim=True)
                              + xh.abs() * (gw * xh).abs().mean(per, keepdim=True))).max().item()
        sw = (gd * xh).abs().sum(red).max().item()
        sb = gd.abs().sum(red).max().item()
        for i, (role, s) in enumerate((("gradInputOut", si), ("gradWeightOut", sw), ("gradBiasOut", sb))):
            if not mask[i]:
                c.none(role)
                continue
            # the input dtype's tolerance even for an f32 gradWeight/gradBias
            # under an f16 input: PyTorch's CPU mixed-type backward rounds
            # its partial sums to f16 (-3.65625 where f64 gives -3.6566)
            c.expect(role, res[i], *accum(dt, s))


# ---------------------------------------------------------------------------
# Mean
# ---------------------------------------------------------------------------
# name, shape, dtype, layout, dims, keepDim, op dtype (the result's too), kind
MEAN_SPECS = [
    ("f32_rows", (4, 8), "f32", "contig", [1], False, "f32", "normal"),
    ("f32_3d_dims02_keep", (3, 4, 5), "f32", "contig", [0, 2], True, "f32", "normal"),
    ("f32_negative_dim", (2, 3, 6), "f32", "contig", [-1], False, "f32", "normal"),
    ("f32_all_dims_empty_list", (3, 5), "f32", "contig", [], False, "f32", "normal"),
    ("f32_all_dims_empty_list_keep", (2, 3, 4), "f32", "contig", [], True, "f32", "normal"),
    ("f32_transposed", (6, 5), "f32", "transposed", [0], False, "f32", "normal"),
    ("f32_sliced", (3, 6), "f32", "sliced", [1], True, "f32", "normal"),
    ("f32_large_offset", (4, 64), "f32", "contig", [1], False, "f32", "offset"),
    ("f16_rows", (4, 16), "f16", "contig", [1], False, "f16", "normal"),
    ("f16_to_f32", (6, 5), "f16", "transposed", [0], True, "f32", "normal"),
    ("bf16_rows", (4, 16), "bf16", "contig", [-1], False, "bf16", "normal"),
    ("bf16_to_f32_all", (3, 4, 2), "bf16", "sliced", [0, 1, 2], False, "f32", "normal"),
]


def mean_cases():
    for name, shape, dt, lay, dims, keep, odt, kind in MEAN_SPECS:
        cname = f"mean_{name}"
        r = Rng(cname)
        x = r.normal(shape, dt, 1.5)
        if kind == "offset":
            x = (x.float() + 1000.0).to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "Mean")
        c.tensor("self", X)
        c.ints("dim", dims)
        c.bool_("keepDim", keep)
        c.dtype("dtype", odt)
        out = torch.mean(X.view, dim=dims, keepdim=keep, dtype=DTYPES[odt])
        red = dims if dims else list(range(len(shape)))
        scale = X.view.double().abs().mean(dim=red).max().item()
        c.expect("out", out, *accum(odt, scale))


# ---------------------------------------------------------------------------
# Amax
# ---------------------------------------------------------------------------
# name, shape, dtype, layout, dims, keepDim, kind
AMAX_SPECS = [
    ("f32_rows", (4, 8), "f32", "contig", [1], False, "normal"),
    ("f32_3d_dims01_keep", (3, 4, 5), "f32", "contig", [0, 1], True, "normal"),
    ("f32_negative_dims", (2, 3, 6), "f32", "contig", [-1, -3], False, "normal"),
    ("f32_all_dims_empty_list", (3, 5), "f32", "contig", [], False, "normal"),
    ("f32_transposed", (6, 5), "f32", "transposed", [0], True, "normal"),
    ("f32_sliced", (3, 6), "f32", "sliced", [1], False, "normal"),
    ("f32_edge_values", (4, 6), "f32", "contig", [1], False, "edge"),
    ("f32_nan_and_neg_inf", (3, 4), "f32", "contig", [1], False, "nan"),
    ("f16_rows", (4, 16), "f16", "contig", [1], False, "edge"),
    ("bf16_transposed", (8, 6), "bf16", "transposed", [-1], True, "edge"),
    ("i32_rows", (3, 7), "i32", "contig", [1], False, "ints"),
]


def amax_cases():
    for name, shape, dt, lay, dims, keep, kind in AMAX_SPECS:
        cname = f"amax_{name}"
        r = Rng(cname)
        if kind == "ints":
            x = r.ints(shape, -1000, 1000, dt)
        elif kind == "edge":
            x = r.edge(shape, dt)
        else:
            x = r.normal(shape, dt, 2.0)
        if kind == "nan":
            x = x.clone()
            x[0, 1] = float("nan")  # row 0: NaN wins
            x[1, :] = float("-inf")  # row 1: all -inf
            x[2, 2] = float("-inf")
        X = layout(x, lay)
        c = Case(cname, "Amax")
        c.tensor("self", X)
        c.ints("dim", dims)
        c.bool_("keepDim", keep)
        out = torch.amax(X.view, dim=dims, keepdim=keep)
        c.expect("out", out, 0.0, 0.0)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    layer_norm_cases()
    layer_norm_backward_cases()
    mean_cases()
    amax_cases()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens_norm_shape.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
