#!/usr/bin/env python3
"""PyTorch ground truth for the third aclnn operator set (issue 20), batch
"activations": Softmax, SoftmaxBackward, Sigmoid, SigmoidBackward, Tanh,
TanhBackward, Gelu, GeluBackward, GeluV2, GeluBackwardV2, Silu, SiluBackward.

Writes one directory per case under ascendcl/tests/goldens/activations/<case>/
in the manifest format of the first set (ascendcl/tests/goldens/ops/README.md;
only the line kinds op, tensor, int and expect are used). The `approximate`
of GeluV2 and GeluBackwardV2 is written as `int approximate 0|1` (0 "none",
1 "tanh": GeluV2's integer; the test passes GeluBackwardV2 the string).

Every result is computed by PyTorch on the CPU (one thread) in the case's
dtype (f16/bf16 in f32 internally, rounded once), from inputs drawn with fixed
seeds (one per case, from its name), so a rerun with the same torch version
writes the same bytes. CI never runs this; run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_op_goldens_activations.py   # rewrites activations/
    python3 scripts/goldens/check_op_goldens_activations.py  # NumPy only

CANN versus PyTorch, as encoded here:
  * aclnnGelu is the tanh approximation (ops-nn v8.5.0 activation/gelu/docs/
    aclnnGelu.md:18; kernel gelu_dag.h:24-29), so its goldens are
    F.gelu(x, approximate='tanh'); PyTorch's default (erf) is GeluV2 with
    approximate 0.
  * aclnnGeluBackward is the gradient of that tanh approximation (the
    kernel's constants, see the mock's op_smooth_activations.c), so its
    goldens are torch's gelu_backward(approximate='tanh').

Tolerances (|actual - expected| <= atol + rtol*|expected|), see TOLERANCES.
"""

import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402  (layout, Rng, to_numpy, Case format)

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "activations")
DTYPES, TOKEN = g1.DTYPES, g1.TOKEN
Rng, layout = g1.Rng, g1.layout

# ---------------------------------------------------------------------------
# TOLERANCES
#
# Softmax, SoftmaxBackward: a sum over the row whose order the device
#   chooses ("accum", as LogSoftmax in the first set):
#   f32 rtol 1e-5 atol 1e-6; f16 1e-3/1e-3; bf16 1e-2/1e-2. The results are
#   probabilities (<= 1) or bounded by max|grad|, so the atol is an absolute
#   error bound on O(1) values.
# Pointwise activations and their gradients ("pointwise"): a few
#   transcendental evaluations (exp, tanh, erf) per element. The device's
#   f32 exp/tanh are accurate to a few ulps, so
#   f32 rtol 1e-5 atol 1e-6 (about 80 ulps relative; the atol for results
#   that cancel to ~0, e.g. GELU at large negative x, where the erf and the
#   exp forms of the same function differ in the last bits);
#   f16 rtol 1e-3 atol 1e-3 and bf16 rtol 1e-2 atol 1e-2: one ulp of the
#   dtype (<= 9.8e-4 and <= 7.8e-3 relative) for a result computed in f32 and
#   rounded once on both sides, which may round a value near a tie the other
#   way; the atol for results near 0.
# ---------------------------------------------------------------------------
TOL = {
    "accum": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)},
    "pointwise": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)},
}
NEG = float("-inf")


def tol(kind, dt):
    return TOL[kind][dt]


class Case(g1.Case):
    """The first set's case, written under OUT and counted in CASES here."""

    def __init__(self, name, op):
        assert name not in CASES, name
        self.name, self.op = name, op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


CASES = {}


# ---------------------------------------------------------------------------
# Softmax, SoftmaxBackward
# ---------------------------------------------------------------------------
def softmax_cases():
    # name, shape, dtype, layout, dim, kind
    specs = [
        ("f32_3x5_dim1", (3, 5), "f32", "contig", 1, "normal"),
        ("f32_3x5_dim0", (3, 5), "f32", "contig", 0, "normal"),
        ("f32_2x3x4_dimneg2", (2, 3, 4), "f32", "contig", -2, "normal"),
        ("f16_4x6", (4, 6), "f16", "contig", -1, "normal"),
        ("bf16_4x6", (4, 6), "bf16", "contig", 1, "normal"),
        ("f32_transposed", (4, 6), "f32", "transposed", 1, "normal"),
        ("f16_sliced", (3, 5), "f16", "sliced", 1, "normal"),
        ("bf16_transposed_dim0", (4, 6), "bf16", "transposed", 0, "normal"),
        ("f32_large_negative", (3, 6), "f32", "contig", 1, "large_negative"),
        ("f16_large_negative", (3, 6), "f16", "contig", 1, "large_negative"),
        ("f32_neginf", (3, 5), "f32", "contig", 1, "neginf"),
        ("f32_large_spread", (3, 6), "f32", "contig", -1, "large"),
    ]
    for name, shape, dt, lay, dim, kind in specs:
        cname = f"softmax_{name}"
        r = Rng(cname)
        x = r.normal(shape, "f32", 2.0)
        if kind == "large_negative":
            # every entry large and negative: exp underflows without the max
            # subtraction; the result must still be a distribution.
            big = 1e4 if dt != "f16" else 6e4
            x = -big + x * (8.0 if dt != "f16" else 32.0)
        elif kind == "large":
            x = x * 1e3
        elif kind == "neginf":
            # -inf where the row keeps finite values (0 there). A row of only
            # -inf is NaN in PyTorch: not generated.
            x[0, 1] = NEG
            x[1, 0] = NEG
            x[1, 4] = NEG
        x = x.to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "Softmax")
        c.tensor("self", X)
        c.int_("dim", dim)
        c.expect("out", torch.softmax(X.view, dim), *tol("accum", dt))


def softmax_backward_cases():
    # out = output * (gradOutput - sum(gradOutput * output, dim))
    specs = [
        ("f32_3x5_dim1", (3, 5), "f32", "contig", "contig", 1),
        ("f32_3x5_dim0", (3, 5), "f32", "contig", "contig", 0),
        ("f32_2x3x4_dimneg1", (2, 3, 4), "f32", "contig", "contig", -1),
        ("f16_4x6", (4, 6), "f16", "contig", "contig", 1),
        ("bf16_4x6", (4, 6), "bf16", "contig", "contig", 1),
        ("f32_transposed_output", (4, 6), "f32", "contig", "transposed", 1),
        ("f16_sliced_grad", (3, 5), "f16", "sliced", "contig", 1),
        ("bf16_transposed_dim0", (4, 6), "bf16", "transposed", "contig", 0),
        ("f32_saturated", (3, 5), "f32", "contig", "contig", 1),
    ]
    for name, shape, dt, lg, lo, dim in specs:
        cname = f"softmaxbackward_{name}"
        r = Rng(cname)
        x = r.normal(shape, "f32", 2.0)
        if name.endswith("saturated"):
            x = x * 50.0  # probabilities of exactly 0 and 1 in f32
        g = r.normal(shape, "f32")
        x, g = x.to(DTYPES[dt]), g.to(DTYPES[dt])
        output = torch.softmax(x, dim)  # the forward result, in dt
        G, O = layout(g, lg), layout(output, lo)
        c = Case(cname, "SoftmaxBackward")
        c.tensor("gradOutput", G)
        c.tensor("output", O)
        c.int_("dim", dim)
        out = torch._softmax_backward_data(G.view, O.view, dim, DTYPES[dt])
        c.expect("out", out, *tol("accum", dt))


# ---------------------------------------------------------------------------
# Pointwise activations: Sigmoid, Tanh, Gelu, GeluV2, Silu, and gradients
# ---------------------------------------------------------------------------
# name suffix, shape, dtype, layout, value kind
FORWARD_SPECS = [
    ("f32_3x5", (3, 5), "f32", "contig", "normal"),
    ("f16_4x6", (4, 6), "f16", "contig", "normal"),
    ("bf16_4x6", (4, 6), "bf16", "contig", "normal"),
    ("f32_transposed", (4, 6), "f32", "transposed", "normal"),
    ("f16_sliced", (3, 5), "f16", "sliced", "normal"),
    ("f32_large", (4, 8), "f32", "contig", "large"),
    ("f16_large", (4, 8), "f16", "contig", "large"),
    ("bf16_large", (4, 8), "bf16", "contig", "large"),
]


def forward_values(r, shape, dt, kind):
    x = r.normal(shape, "f32", 3.0)
    if kind == "large":
        # saturation on both sides: |x| up to 100 (f32/bf16) or 60 (f16),
        # plus 0 and -0
        big = 100.0 if dt != "f16" else 60.0
        x = x.reshape(-1)
        x[0::4] = torch.linspace(-big, big, x[0::4].numel())
        x[1] = 0.0
        x[2] = -0.0
        x = x.reshape(shape)
    return x.to(DTYPES[dt])


def forward_cases(op, fn, approximate=None):
    for name, shape, dt, lay, kind in FORWARD_SPECS:
        cname = f"{op.lower()}_{name}" if approximate is None else f"{op.lower()}_{approximate}_{name}"
        r = Rng(cname)
        X = layout(forward_values(r, shape, dt, kind), lay)
        c = Case(cname, op)
        if op == "GeluV2":
            c.tensor("x", X)
            c.int_("approximate", {"none": 0, "tanh": 1}[approximate])
            c.expect("y", fn(X.view), *tol("pointwise", dt))
        else:
            c.tensor("self", X)
            c.expect("out", fn(X.view), *tol("pointwise", dt))


# name suffix, grad shape, second operand shape, dtype, grad layout, operand layout, kind
BACKWARD_SPECS = [
    ("f32_3x5", (3, 5), (3, 5), "f32", "contig", "contig", "normal"),
    ("f16_4x6", (4, 6), (4, 6), "f16", "contig", "contig", "normal"),
    ("bf16_4x6", (4, 6), (4, 6), "bf16", "contig", "contig", "normal"),
    ("f32_transposed", (4, 6), (4, 6), "f32", "transposed", "contig", "normal"),
    ("f16_sliced", (3, 5), (3, 5), "f16", "contig", "sliced", "normal"),
    ("f32_large", (4, 8), (4, 8), "f32", "contig", "contig", "large"),
    ("bf16_large", (4, 8), (4, 8), "bf16", "contig", "contig", "large"),
    ("f32_broadcast", (1, 5), (3, 5), "f32", "contig", "contig", "normal"),
]


def backward_cases(op, second, forward, grad, approximate=None, broadcast=True):
    """second: the role of the forward tensor the gradient takes ("output"
    or "self"); forward(x) gives it from the input; grad(g, v) the result."""
    for name, gshape, vshape, dt, lg, lv, kind in BACKWARD_SPECS:
        if name.endswith("broadcast") and not broadcast:
            continue
        cname = f"{op.lower()}_{name}" if approximate is None else f"{op.lower()}_{approximate}_{name}"
        r = Rng(cname)
        x = forward_values(r, vshape, dt, kind)
        v = forward(x)  # in dt, as the forward pass saved it
        g = r.normal(gshape, "f32").to(DTYPES[dt])
        G, V = layout(g, lg), layout(v, lv)
        c = Case(cname, op)
        c.tensor("gradOutput", G)
        c.tensor(second, V)
        if approximate is not None:
            c.int_("approximate", {"none": 0, "tanh": 1}[approximate])
        gb, vb = torch.broadcast_tensors(G.view, V.view)
        c.expect("gradInput", grad(gb.contiguous(), vb.contiguous()), *tol("pointwise", dt))


def gelu_backward(approximate):
    return lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate=approximate)


OPS = {
    "Softmax": softmax_cases,
    "SoftmaxBackward": softmax_backward_cases,
    "Sigmoid": lambda: forward_cases("Sigmoid", torch.sigmoid),
    "SigmoidBackward": lambda: backward_cases(
        "SigmoidBackward", "output", torch.sigmoid, torch.ops.aten.sigmoid_backward),
    "Tanh": lambda: forward_cases("Tanh", torch.tanh),
    "TanhBackward": lambda: backward_cases(
        "TanhBackward", "output", torch.tanh, torch.ops.aten.tanh_backward),
    "Gelu": lambda: forward_cases("Gelu", lambda x: F.gelu(x, approximate="tanh")),
    "GeluBackward": lambda: backward_cases(
        "GeluBackward", "self", lambda x: x, gelu_backward("tanh")),
    "GeluV2": lambda: [forward_cases("GeluV2", lambda x, a=a: F.gelu(x, approximate=a), a)
                       for a in ("none", "tanh")],
    "GeluBackwardV2": lambda: [backward_cases("GeluBackwardV2", "self", lambda x: x, gelu_backward(a), a)
                               for a in ("none", "tanh")],
    "Silu": lambda: forward_cases("Silu", F.silu),
    # SiluBackward: no broadcasting on 910B (aclnn_silu_backward.cpp:94-97)
    "SiluBackward": lambda: backward_cases(
        "SiluBackward", "self", lambda x: x,
        lambda g, x: torch.ops.aten.silu_backward(g, x), broadcast=False),
}
# The operators whose cases are generated (in the order they were added).
ACTIVE = ["Softmax", "SoftmaxBackward", "Sigmoid", "SigmoidBackward", "Tanh", "TanhBackward",
          "Silu", "SiluBackward", "Gelu", "GeluBackward", "GeluV2", "GeluBackwardV2"]


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for op in ACTIVE:
        OPS[op]()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens_activations.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
