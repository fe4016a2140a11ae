#!/usr/bin/env python3
"""PyTorch ground truth for the element-wise operators of the third set
(issue 20, batch `elementwise`): Div, Sqrt, Rsqrt, Exp, Log, Neg,
PowTensorScalar, Clamp, IsFinite.

Writes one directory per case under ascendcl/tests/goldens/elementwise/<case>/
in the manifest format of the first two sets (ascendcl/tests/goldens/ops/
README.md and ops2/README.md: `tensor ... [view ... strides ... offset ...]`,
`scalar`, `none`, `expect`); the README next to the cases lists them.

Every result is computed by PyTorch on the CPU (one thread) in the case's
dtype, from inputs drawn with fixed seeds (one per case, from its name), so
a rerun with the same torch version writes the same bytes. CI never runs
this; run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_op_goldens_elementwise.py   # rewrites elementwise/
    python3 scripts/goldens/check_op_goldens_elementwise.py  # NumPy only

Tolerances (|actual - expected| <= atol + rtol*|expected|), see TOL below.
"""

import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402  (layout, Rng, to_numpy, dtype tokens, Case)

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "elementwise")
DTYPES, TOKEN = g1.DTYPES, g1.TOKEN
Rng, layout = g1.Rng, g1.layout

# ---------------------------------------------------------------------------
# TOLERANCES
#
# One element-wise operation per output element, no accumulation. PyTorch's
# CPU computes f16/bf16 in f32 and rounds once (its opmath), as the mock and
# the device's vector unit (f16/bf16 inputs widened to f32) do; the only
# difference left is the f32 operation itself, which the device's vector
# unit may not round correctly (division, sqrt, exp, log are computed to a
# few ulps), and an f16/bf16 result that lands on the other side of a
# rounding tie because of it. So:
#   f32:  rtol 4e-6 (32 f32 ulps), atol 1e-30 (results that underflow)
#   f16:  rtol 1e-3 (one f16 ulp is 2^-10 = 9.8e-4 relative), atol 1e-5
#   bf16: rtol 8e-3 (one bf16 ulp is 2^-7 = 7.8e-3), atol 1e-5
#   f64:  rtol 1e-12
# Negation, and results that are selections (IsFinite, Clamp), are exact.
# ---------------------------------------------------------------------------
TOL = {"f32": (4e-6, 1e-30), "f16": (1e-3, 1e-5), "bf16": (8e-3, 1e-5), "f64": (1e-12, 0.0)}
EXACT = (0.0, 0.0)


def tol(dt):
    return TOL.get(dt, EXACT)


CASES = {}


class Case(g1.Case):
    """g1.Case writing into this set (and with a `none` line)."""

    def __init__(self, name, op):
        assert name not in CASES, name
        self.name, self.op = name, op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def none(self, role):
        self.lines.append(f"none {role}")

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


def values(r, shape, dt, kind):
    """normal: N(0, 2); edge: g1's specials (zeros, +-0, large, small);
    ints: uniform integers in [-20, 20)."""
    if dt.startswith("i") or dt == "u8":
        return r.ints(shape, 0 if dt == "u8" else -20, 20, dt)
    if kind == "edge":
        return r.edge(shape, dt)
    return r.normal(shape, dt, 2.0)


# ---------------------------------------------------------------------------
# Div (aclnnDiv: self, other, out)
# ---------------------------------------------------------------------------
# name, self shape, other shape, self dt, other dt, layouts, kind
DIV_SPECS = [
    ("f32_3x5", (3, 5), (3, 5), "f32", "f32", "contig", "contig", "normal"),
    ("f32_bcast_row", (3, 5), (5,), "f32", "f32", "contig", "contig", "normal"),
    ("f32_bcast_both", (4, 1, 3), (2, 1), "f32", "f32", "contig", "contig", "normal"),
    ("f32_transposed_sliced", (3, 5), (3, 5), "f32", "f32", "transposed", "sliced", "normal"),
    ("f32_edge_zero_divisors", (4, 6), (4, 6), "f32", "f32", "contig", "contig", "edge"),
    ("f16_3x5", (3, 5), (3, 5), "f16", "f16", "contig", "contig", "normal"),
    ("f16_bcast_transposed", (5, 3), (3,), "f16", "f16", "transposed", "contig", "normal"),
    ("f16_edge_zero_divisors", (4, 6), (4, 6), "f16", "f16", "contig", "contig", "edge"),
    ("bf16_3x5", (3, 5), (3, 5), "bf16", "bf16", "contig", "contig", "normal"),
    ("bf16_bcast_sliced", (2, 1, 5), (3, 1), "bf16", "bf16", "sliced", "contig", "normal"),
    ("mixed_f16_by_f32", (3, 5), (3, 5), "f16", "f32", "contig", "contig", "normal"),
    ("i64_by_i64_is_f32", (3, 5), (3, 5), "i64", "i64", "contig", "contig", "ints"),
    ("i32_by_f32_bcast", (3, 5), (1, 5), "i32", "f32", "contig", "contig", "ints"),
]


def div_cases():
    for name, sa, sb, da, db, la, lb, kind in DIV_SPECS:
        cname = f"div_{name}"
        r = Rng(cname)
        a = values(r, sa, da, kind)
        b = values(r, sb, db, kind)
        if name.startswith("i32_by_f32"):
            b = r.normal(sb, db, 2.0)
        if kind == "edge":
            # a few divisors exactly 0 (with +-0 and nonzero dividends: +-inf, nan)
            b.view(-1)[::5] = 0.0
        A, B = layout(a, la), layout(b, lb)
        c = Case(cname, "Div")
        c.tensor("self", A)
        c.tensor("other", B)
        out = torch.div(A.view, B.view)
        c.expect("out", out, *tol(TOKEN[out.dtype]))


# ---------------------------------------------------------------------------
# Sqrt, Rsqrt, Exp, Log, Neg (aclnn<Op>: self, out)
# ---------------------------------------------------------------------------
UNARY = {
    "Sqrt": torch.sqrt,
    "Rsqrt": torch.rsqrt,
    "Exp": torch.exp,
    "Log": torch.log,
    "Neg": torch.neg,
}
# the integer dtype each op's case uses (one the real op takes: Exp takes
# INT64 and BOOL only, Neg no UINT8/INT16)
UNARY_INT = {"Sqrt": "i32", "Rsqrt": "i32", "Exp": "i64", "Log": "i32", "Neg": "i64"}
# name, shape, dt, layout, kind
UNARY_SPECS = [
    ("f32_3x5", (3, 5), "f32", "contig", "normal"),
    ("f32_transposed", (4, 3), "f32", "transposed", "normal"),
    ("f32_sliced_3d", (2, 3, 4), "f32", "sliced", "normal"),
    ("f32_edge", (4, 6), "f32", "contig", "edge"),
    ("f16_3x5", (3, 5), "f16", "contig", "normal"),
    ("f16_edge", (4, 6), "f16", "contig", "edge"),
    ("bf16_3x5", (3, 5), "bf16", "contig", "normal"),
    ("bf16_sliced_edge", (4, 6), "bf16", "sliced", "edge"),
    ("int_3x5", (3, 5), None, "contig", "ints"),
]


def unary_input(op, r, shape, dt, kind):
    """Sqrt/Rsqrt/Log: mostly positive values over several decades (uniform
    exponent), edge cases add 0, -0, negatives (NaN) and large values. Exp:
    N(0, 3) values, edge cases add large negatives (underflow to 0) and
    large positives (overflow to inf). Neg: N(0, 2), edge g1's specials."""
    if kind == "ints":
        lo = 0 if op in ("Sqrt", "Rsqrt", "Log") else -20
        return r.ints(shape, lo, 50, dt)
    if op == "Neg":
        return r.edge(shape, dt) if kind == "edge" else r.normal(shape, dt, 2.0)
    if op == "Exp":
        x = r.normal(shape, "f32", 3.0)
        if kind == "edge":
            flat = x.view(-1)
            flat[0:6] = torch.tensor([0.0, -0.0, -120.0, 120.0, -30.0, 20.0])
        return x.to(DTYPES[dt])
    x = torch.pow(10.0, r.uniform(shape, -3.0, 3.0, "f32"))
    if kind == "edge":
        flat = x.view(-1)
        flat[0:6] = torch.tensor([0.0, -0.0, -1.0, 1.0, -2.5, 1e-30 if dt != "f16" else 1e-7])
    return x.to(DTYPES[dt])


def unary_cases():
    for op, fn in UNARY.items():
        for name, shape, dt, lay, kind in UNARY_SPECS:
            if dt is None:
                dt = UNARY_INT[op]
                name = name.replace("int", dt)
            cname = f"{op.lower()}_{name}"
            r = Rng(cname)
            X = layout(unary_input(op, r, shape, dt, kind), lay)
            c = Case(cname, op)
            c.tensor("self", X)
            out = fn(X.view)
            c.expect("out", out, *tol(TOKEN[out.dtype]))


# ---------------------------------------------------------------------------
# PowTensorScalar (aclnnPowTensorScalar: self, exponent, out)
# ---------------------------------------------------------------------------
# name, shape, dt, layout, exponent, exponent dt, kind (positive: inputs in
# [0.1, 3]; signed: N(0, 1.5); edge: signed with 0 and -0)
POW_SPECS = [
    ("f32_square", (3, 5), "f32", "contig", 2.0, "f32", "signed"),
    ("f32_sqrt", (3, 5), "f32", "contig", 0.5, "f32", "positive"),
    ("f32_cube_transposed", (4, 3), "f32", "transposed", 3.0, "f32", "signed"),
    ("f32_reciprocal_sliced", (2, 3, 4), "f32", "sliced", -1.0, "f32", "positive"),
    ("f32_fractional_1p7_f64_exponent", (3, 5), "f32", "contig", 1.7, "f64", "positive"),
    ("f32_edge_zero_to_minus2", (4, 6), "f32", "contig", -2.0, "f32", "edge"),
    ("f16_square", (3, 5), "f16", "contig", 2.0, "f32", "signed"),
    ("f16_minus_half", (3, 5), "f16", "contig", -0.5, "f32", "positive"),
    ("bf16_cube", (3, 5), "bf16", "contig", 3.0, "f32", "signed"),
    ("bf16_fractional_2p5_sliced", (3, 5), "bf16", "sliced", 2.5, "f32", "positive"),
    ("i64_cube_int_exponent", (3, 5), "i64", "contig", 3, "i64", "ints"),
    ("i32_float_exponent_is_f32", (3, 5), "i32", "contig", 0.5, "f32", "ints"),
]


def pow_cases():
    for name, shape, dt, lay, e, edt, kind in POW_SPECS:
        cname = f"powtensorscalar_{name}"
        r = Rng(cname)
        if kind == "ints":
            x = r.ints(shape, 0 if edt == "f32" else -9, 10, dt)
        elif kind == "positive":
            x = r.uniform(shape, 0.1, 3.0, dt)
        else:
            x = r.normal(shape, "f32", 1.5)
            if kind == "edge":
                x.view(-1)[0:2] = torch.tensor([0.0, -0.0])
            x = x.to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "PowTensorScalar")
        c.tensor("self", X)
        c.scalar("exponent", edt, e)
        out = torch.pow(X.view, e)
        c.expect("out", out, *tol(TOKEN[out.dtype]))


# ---------------------------------------------------------------------------
# Clamp (aclnnClamp: self, clipValueMin, clipValueMax, out; a missing bound
# is a `none` line). CANN on 910B computes in out's dtype with the bounds
# converted to it (aclnn_clamp.cpp:352-366), which equals PyTorch's result
# whenever the bounds' dtype does not promote self (float bounds of a float
# self, integer bounds of an integer self): only such cases are here.
# ---------------------------------------------------------------------------
# name, shape, dt, layout, min, max, bound dt, out dt, kind
CLAMP_SPECS = [
    ("f32_both", (3, 5), "f32", "contig", -1.0, 1.0, "f32", "f32", "normal"),
    ("f32_min_only_transposed", (4, 3), "f32", "transposed", 0.0, None, "f32", "f32", "normal"),
    ("f32_max_only_sliced", (2, 3, 4), "f32", "sliced", None, 0.5, "f32", "f32", "normal"),
    ("f32_edge_inf_nan", (4, 6), "f32", "contig", -2.0, 3.0, "f32", "f32", "edge"),
    ("f32_min_above_max_gives_max", (3, 5), "f32", "contig", 1.0, -1.0, "f32", "f32", "normal"),
    ("f32_into_f16_out", (3, 5), "f32", "contig", -0.3, 0.7, "f64", "f16", "normal"),
    ("f16_both_unrepresentable_bounds", (3, 5), "f16", "contig", -0.3, 0.7, "f32", "f16", "normal"),
    ("f16_edge", (4, 6), "f16", "contig", -100.0, 1000.0, "f32", "f16", "edge"),
    ("bf16_both", (3, 5), "bf16", "contig", -1.5, 2.5, "f32", "bf16", "normal"),
    ("bf16_min_only_sliced", (3, 5), "bf16", "sliced", -0.1, None, "f32", "bf16", "normal"),
    ("i32_both", (3, 5), "i32", "contig", -5, 7, "i64", "i32", "ints"),
    ("i64_max_only_transposed", (5, 3), "i64", "transposed", None, 0, "i64", "i64", "ints"),
]


def clamp_cases():
    for name, shape, dt, lay, lo, hi, bdt, odt, kind in CLAMP_SPECS:
        cname = f"clamp_{name}"
        r = Rng(cname)
        x = values(r, shape, dt, kind)
        if kind == "edge":
            flat = x.view(-1)
            flat[1:4] = torch.tensor([float("inf"), float("-inf"), float("nan")])
        X = layout(x, lay)
        c = Case(cname, "Clamp")
        c.tensor("self", X)
        for role, v in (("min", lo), ("max", hi)):
            if v is None:
                c.none(role)
            else:
                c.scalar(role, bdt, v)
        out = torch.clamp(X.view, lo, hi).to(DTYPES[odt])
        c.expect("out", out, *EXACT)


# ---------------------------------------------------------------------------
# IsFinite (aclnnIsFinite: self, out BOOL)
# ---------------------------------------------------------------------------
# name, shape, dt, layout, kind (specials: +-inf and NaN among the values)
ISFINITE_SPECS = [
    ("f32_specials", (4, 6), "f32", "contig", "specials"),
    ("f32_transposed_specials", (4, 3), "f32", "transposed", "specials"),
    ("f32_all_finite_sliced", (2, 3, 4), "f32", "sliced", "edge"),
    ("f16_specials_and_overflow", (4, 6), "f16", "contig", "specials"),
    ("bf16_specials_sliced", (3, 5), "bf16", "sliced", "specials"),
    ("i32_always_finite", (3, 5), "i32", "contig", "ints"),
]


def isfinite_cases():
    for name, shape, dt, lay, kind in ISFINITE_SPECS:
        cname = f"isfinite_{name}"
        r = Rng(cname)
        if kind == "specials":
            x = r.normal(shape, "f32", 2.0).reshape(-1)
            # 1e5 overflows f16 to inf; 1e38 stays finite in bf16 and f32
            # (NaN only in contiguous cases: g1.layout checks its views with torch.equal)
            nan = float("nan") if lay == "contig" else 3.0e3
            x[0:7] = torch.tensor([float("inf"), float("-inf"), nan, 0.0, -0.0, 1e5, 1e38])
            x = x.reshape(shape).to(DTYPES[dt])
        else:
            x = values(r, shape, dt, kind)
        X = layout(x, lay)
        c = Case(cname, "IsFinite")
        c.tensor("self", X)
        c.expect("out", torch.isfinite(X.view), *EXACT)


# ---------------------------------------------------------------------------
def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    div_cases()
    unary_cases()
    pow_cases()
    clamp_cases()
    isfinite_cases()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens_elementwise.py with torch "
                f"{torch.__version__}, numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    print(f"{sum(counts.values())} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
