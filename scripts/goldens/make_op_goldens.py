#!/usr/bin/env python3
"""PyTorch ground truth for the first aclnn operator set (issue 11).

Writes one directory per case under ascendcl/tests/goldens/ops/<case>/: the
inputs and expected outputs as .npy files and a manifest case.txt. The
format is described in ascendcl/tests/goldens/ops/README.md; in short:

    op <AclnnNameWithoutPrefix>
    tensor <role> <dtype> <file.npy> [view <d0,d1,...> strides <s0,s1,...> offset <k>]
    scalar <role> <dtype> <value>
    int <name> <value>
    bool <name> <0|1>
    ints <name> <v0,v1,...>
    dtype <name> <f32|f16|bf16|i32|i64>
    expect <role> <dtype> <file.npy> <rtol> <atol>

Lines come in the order of the aclnn phase-1 parameter list. A tensor file
holds the tensor's storage as a C-contiguous array; with `view` the tensor is
the strided view (shape, element strides, element offset) over the flattened
storage. Storage elements outside a view hold a sentinel value. For in-place
ops (role selfRef) the expectation file holds the whole storage after the op,
in the same shape as the input file, so elements outside the view must come
back untouched. bf16 is stored as its raw bit patterns ('<u2').

Every result is computed by PyTorch on the CPU in the case's dtype (f16 and
bf16 as PyTorch computes them: in f32 internally, rounded once), from inputs
drawn with fixed seeds, so a rerun with the same torch version writes the same
bytes. CI never runs this: it needs torch. Run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_op_goldens.py          # rewrites the directory

Tolerances (checked as |actual - expected| <= atol + rtol * |expected|) are
what the real operator should meet against PyTorch, see TOL below.
"""

import os
import shutil
import sys
import zlib

import numpy as np
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops")

DTYPES = {
    "f32": torch.float32,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f64": torch.float64,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "bool": torch.bool,
}
TOKEN = {v: k for k, v in DTYPES.items()}
FLOATS = ("f32", "f16", "bf16")

# ---------------------------------------------------------------------------
# Tolerances.
#
# "exact" ops (Add, Adds, InplaceAdd, Sub, Mul, Muls, InplaceMuls, Relu,
# ThresholdBackward, Cast, InplaceCopy, InplaceZero, InplaceFillScalar): each
# output element is one or two roundings of exact inputs.
#   f32:  rtol 1e-6, atol 0. One f32 ulp is <= 1.2e-7 relative; the slack
#         covers a fused vs. unfused multiply-add (PyTorch's CPU add uses an
#         FMA for self + alpha*other).
#   f16:  rtol 1e-3 (one f16 ulp is <= 9.8e-4 relative), atol 1e-5 (the
#         subnormal range, in case the device flushes f16 subnormals).
#   bf16: rtol 1e-2 (one bf16 ulp is <= 7.8e-3 relative), atol 1e-5.
#   self + alpha*other with alpha not +-1, and Adds (self + alpha*scalar):
#         atol raised to EPS[dtype] * max|alpha*other| (see term_atol), one
#         rounding of the term. Where the sum nearly cancels, whether that
#         term is rounded to the tensor's dtype first decides the last bits,
#         and PyTorch itself is not consistent: for f16/bf16 its vectorized
#         CPU loop computes a + alpha*b in f32, its scalar tail loop rounds
#         alpha*b to f16 first, and Adds converts the Python scalar to the
#         tensor's dtype before adding (Muls does not).
#   integer outputs (Cast to i32/i64, ArgMax, integer Add): 0 and 0.
# "accum" ops (Mm, Addmm, Matmul, ReduceSum, LogSoftmax, LogSoftmaxBackward,
# NLLLoss, NLLLossBackward): sums whose order the device chooses.
#   f32:  rtol 1e-5, atol 1e-6.
#   f16:  rtol 1e-3, atol 1e-3 (results are O(1); both sides accumulate in
#         f32 and round once, the atol covers results that cancel to ~0).
#   bf16: rtol 1e-2, atol 1e-2 (likewise, one bf16 ulp at 1 is 7.8e-3).
#   For matmuls and sums the atol is raised to rtol * max(sum |terms|) over
#   the outputs (see accum_atol): an error bound that any summation order
#   meets, needed where large magnitudes cancel.
# Matmul-class ops are given cubeMathType 0 (KEEP_DTYPE), so f32 stays f32 on
# the device (no HF32), which is what these tolerances assume.
# ---------------------------------------------------------------------------
TOL = {
    "exact": {"f32": (1e-6, 0.0), "f16": (1e-3, 1e-5), "bf16": (1e-2, 1e-5), "f64": (1e-12, 0.0)},
    "accum": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2), "f64": (1e-12, 1e-12)},
}
INT_TOL = (0.0, 0.0)

SENTINEL = {"f32": 1234.5, "f16": 1234.5, "bf16": 1232.0, "f64": 1234.5, "i32": 77, "i64": 77, "u8": 77, "bool": True}


def tol(kind, dt):
    if dt not in FLOATS and dt != "f64":
        return INT_TOL
    return TOL[kind][dt]


def fmt_float(x):
    return repr(float(x))


# ---------------------------------------------------------------------------
# Inputs: a logical value laid out contiguous, transposed or sliced.
# ---------------------------------------------------------------------------
class Input:
    """A tensor argument: its storage (written to the file) and the view the
    op sees (what PyTorch computes with)."""

    def __init__(self, storage, view, spec):
        self.storage = storage  # contiguous torch tensor, written as is
        self.view = view  # the tensor the op reads (a view of storage)
        self.spec = spec  # None, or (shape, strides, offset)

    @property
    def dtype(self):
        return TOKEN[self.storage.dtype]


def layout(value, how="contig"):
    """Lays the logical tensor `value` out in fresh storage.

    contig:     storage is the tensor itself.
    transposed: storage holds value with its last two dims swapped, the view
                swaps them back (strides like a .t() view, offset 0).
    sliced:     storage is 1-D with a prefix of 3 sentinel elements and two
                sentinel elements after every row (last dim); a 1-D value takes
                every other element. The view has a nonzero offset.
    """
    dt = TOKEN[value.dtype]
    if how == "contig":
        s = value.clone().contiguous()
        return Input(s, s, None)
    if how == "transposed":
        assert value.dim() >= 2
        base = value.transpose(-1, -2).contiguous()
        storage = base.reshape(-1).clone()
        view = storage.as_strided(base.transpose(-1, -2).shape, base.transpose(-1, -2).stride(), 0)
        assert torch.equal(view, value)
        return Input(storage, view, (tuple(view.shape), tuple(view.stride()), 0))
    if how == "sliced":
        off = 3
        shape = tuple(value.shape)
        if len(shape) == 0:
            raise ValueError("sliced 0-d")
        if len(shape) == 1:
            strides = (2,)
            n = off + 2 * shape[0] + 1
        else:
            row = shape[-1] + 2
            strides = []
            acc = 1
            padded = list(shape[:-1]) + [row]
            for d in reversed(padded):
                strides.insert(0, acc)
                acc *= d
            strides = tuple(strides)
            n = off + acc + 1
        storage = torch.full((n,), SENTINEL[dt], dtype=value.dtype)
        view = storage.as_strided(shape, strides, off)
        view.copy_(value)
        return Input(storage, view, (shape, strides, off))
    raise ValueError(how)


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------
class Rng:
    def __init__(self, name):
        self.g = torch.Generator().manual_seed(zlib.crc32(name.encode()))

    def normal(self, shape, dt="f32", scale=1.0):
        x = torch.randn(shape, generator=self.g, dtype=torch.float32) * scale
        return x.to(DTYPES[dt])

    def uniform(self, shape, lo, hi, dt="f32"):
        x = torch.rand(shape, generator=self.g, dtype=torch.float32) * (hi - lo) + lo
        return x.to(DTYPES[dt])

    def ints(self, shape, lo, hi, dt="i64"):
        return torch.randint(lo, hi, shape, generator=self.g, dtype=torch.int64).to(DTYPES[dt])

    def edge(self, shape, dt="f32", big=None):
        """Zeros, negative zero, negatives, ones, large magnitudes, small
        magnitudes, mixed with normal values; finite only."""
        if big is None:
            big = {"f32": 1e30, "f16": 3e4, "bf16": 1e30, "f64": 1e30}[dt]
        x = torch.randn(shape, generator=self.g, dtype=torch.float32).reshape(-1)
        specials = [0.0, -0.0, -1.0, 1.0, big, -big, big / 7, -3.5, 1e-3, -1e-3, 0.5, -0.5]
        for i, v in enumerate(specials):
            if i < x.numel():
                x[(i * 7) % x.numel()] = v
        return x.reshape(shape).to(DTYPES[dt])


EPS = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}


def term_atol(dt, term_max):
    """One ulp of the term alpha*other at its largest magnitude (see TOL)."""
    if dt not in EPS:
        return 0.0
    return EPS[dt] * term_max


def exact_alpha_atol(alpha, other, dt):
    """atol for self + alpha*other when alpha is not +-1 (see TOL)."""
    if abs(alpha) == 1.0:
        return None
    return term_atol(dt, other.double().abs().max().item() * abs(alpha))


def accum_atol(base, rtol, scale):
    return max(base, rtol * scale)


def mm_scale(a, b):
    """max over outputs of sum_k |a_ik| |b_kj| (batched, broadcasting)."""
    return torch.matmul(a.double().abs(), b.double().abs()).max().item()


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------
def to_numpy(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view("<u2").copy()
    return t.numpy().copy()


class Case:
    def __init__(self, name, op):
        assert name not in CASES, name
        self.name = name
        self.op = op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def _file(self, stem, t):
        fname = f"{stem}.npy"
        assert fname not in self.files
        self.files[fname] = to_numpy(t)
        return fname

    def tensor(self, role, inp):
        fname = self._file(role, inp.storage)
        line = f"tensor {role} {inp.dtype} {fname}"
        if inp.spec is not None:
            shape, strides, off = inp.spec
            line += " view {} strides {} offset {}".format(
                ",".join(map(str, shape)) if shape else "", ",".join(map(str, strides)), off)
        self.lines.append(line)

    def scalar(self, role, dt, value):
        assert dt in ("f32", "f64", "i64")
        v = int(value) if dt == "i64" else fmt_float(value)
        self.lines.append(f"scalar {role} {dt} {v}")

    def int_(self, name, v):
        self.lines.append(f"int {name} {int(v)}")

    def bool_(self, name, v):
        self.lines.append(f"bool {name} {1 if v else 0}")

    def ints(self, name, vs):
        self.lines.append(f"ints {name} {','.join(str(int(v)) for v in vs)}")

    def dtype(self, name, dt):
        self.lines.append(f"dtype {name} {dt}")

    def expect(self, role, t, rtol, atol, stem=None):
        dt = TOKEN[t.dtype]
        fname = self._file(stem or ("expect_" + role), t)
        self.lines.append(f"expect {role} {dt} {fname} {float(rtol)!r} {float(atol)!r}")

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


CASES = {}


# ---------------------------------------------------------------------------
# Elementwise binary: Add, Sub, Mul (and their scalar / in-place forms)
# ---------------------------------------------------------------------------
def binary_cases(op, fn, has_alpha):
    """fn(a, b, alpha) -> result, computed by torch."""
    lower = op.lower()
    specs = [
        # name, self shape, other shape, self dt, other dt, layout self, layout other, alpha, alpha dt, edge
        ("f32_3x5", (3, 5), (3, 5), "f32", "f32", "contig", "contig", 1.0, "f32", False),
        ("f32_bcast_row", (3, 5), (5,), "f32", "f32", "contig", "contig", -0.1, "f64", False),
        ("f32_bcast_3d", (7, 1, 5), (3, 1), "f32", "f32", "contig", "contig", 2.0, "f32", False),
        ("f32_transposed_sliced", (3, 5), (3, 5), "f32", "f32", "transposed", "sliced", 0.5, "f32", False),
        ("f32_sliced_bcast", (7, 1, 5), (1, 5), "f32", "f32", "sliced", "transposed", -1.0, "f64", False),
        ("f32_edge", (4, 6), (4, 6), "f32", "f32", "contig", "contig", 1.0, "f32", True),
        ("f16_3x5", (3, 5), (3, 5), "f16", "f16", "contig", "contig", 1.0, "f32", False),
        ("f16_bcast_transposed", (5, 3), (3,), "f16", "f16", "transposed", "contig", -1.5, "f64", False),
        ("f16_edge", (4, 6), (4, 6), "f16", "f16", "contig", "contig", 1.0, "f32", True),
        ("bf16_3x5", (3, 5), (3, 5), "bf16", "bf16", "contig", "contig", 0.5, "f32", False),
        ("bf16_bcast_sliced", (7, 1, 5), (5,), "bf16", "bf16", "sliced", "contig", 1.0, "f64", False),
        ("bf16_edge", (4, 6), (4, 6), "bf16", "bf16", "contig", "contig", 1.0, "f32", True),
        ("mixed_f16_f32", (3, 5), (3, 5), "f16", "f32", "contig", "contig", 1.0, "f32", False),
        ("i64_3x5", (3, 5), (3, 5), "i64", "i64", "contig", "contig", 2, "i64", False),
    ]
    for name, sa, sb, da, db, la, lb, alpha, adt, edge in specs:
        if not has_alpha:
            alpha, adt = 1.0, None
            if name == "f32_transposed_sliced":
                pass
        cname = f"{lower}_{name}"
        r = Rng(cname)
        if da.startswith("i"):
            a = r.ints(sa, -50, 50, da)
            b = r.ints(sb, -50, 50, db)
        elif edge:
            a = r.edge(sa, da)
            b = r.edge(sb, db)
            if op == "Mul":
                # keep products finite: large values meet O(1) values only
                big = a.float().abs() > 100
                b = torch.where(big, torch.full_like(b, -0.25), b)
                bigb = b.float().abs() > 100
                a = torch.where(bigb, torch.full_like(a, 0.125), a)
            else:
                # keep sums finite (no big + big of the same sign overflow)
                b = torch.where((a.float().abs() > 100) & (b.float().abs() > 100), torch.full_like(b, 2.0), b)
        else:
            a = r.normal(sa, da, 2.0)
            b = r.normal(sb, db, 2.0)
        A = layout(a, la)
        B = layout(b, lb)
        c = Case(cname, op)
        c.tensor("self", A)
        c.tensor("other", B)
        if has_alpha:
            c.scalar("alpha", adt, alpha)
        out = fn(A.view, B.view, alpha)
        odt = TOKEN[out.dtype]
        rt, at = tol("exact", odt)
        if has_alpha:
            extra = exact_alpha_atol(alpha, B.view, odt)
            if extra is not None:
                at = max(at, extra)
        c.expect("out", out, rt, at)


def scalar_cases():
    # Adds: self + alpha*other (other a scalar); Muls: self*other.
    specs = [
        ("f32_3x5", (3, 5), "f32", "contig", 1.5, "f32", 1.0, "f32", False),
        ("f32_f64_scalar", (3, 5), "f32", "contig", -0.25, "f64", 2.0, "f64", False),
        ("f32_i64_scalar", (7, 1, 5), "f32", "contig", 3, "i64", 1, "i64", False),
        ("f32_transposed", (3, 5), "f32", "transposed", 0.1, "f64", 1.0, "f32", False),
        ("f32_sliced", (7, 1, 5), "f32", "sliced", -2.0, "f32", 0.5, "f32", False),
        ("f32_edge", (4, 6), "f32", "contig", 0.9, "f32", 1.0, "f32", True),
        ("f16_3x5", (3, 5), "f16", "contig", 0.9, "f64", 1.0, "f32", False),
        ("f16_sliced", (3, 5), "f16", "sliced", -1.5, "f32", 1.0, "f64", False),
        ("f16_edge", (4, 6), "f16", "contig", 0.5, "f32", 1.0, "f32", True),
        ("bf16_3x5", (3, 5), "bf16", "contig", 0.9, "f64", 1.0, "f32", False),
        ("bf16_transposed", (3, 5), "bf16", "transposed", 3.0, "f32", -1.0, "f32", False),
        ("bf16_edge", (4, 6), "bf16", "contig", 0.5, "f32", 1.0, "f32", True),
    ]
    for name, shape, dt, lay, other, odt_s, alpha, adt, edge in specs:
        for op in ("Adds", "Muls", "InplaceMuls"):
            cname = f"{op.lower()}_{name}"
            r = Rng(cname)
            x = r.edge(shape, dt) if edge else r.normal(shape, dt, 2.0)
            X = layout(x, lay)
            c = Case(cname, op)
            if op == "Adds":
                c.tensor("self", X)
                c.scalar("other", odt_s, other)
                c.scalar("alpha", adt, alpha)
                out = torch.add(X.view, other, alpha=alpha)
                rt, at = tol("exact", dt)
                c.expect("out", out, rt, max(at, term_atol(dt, abs(alpha * other))))
            elif op == "Muls":
                c.tensor("self", X)
                c.scalar("other", odt_s, other)
                out = torch.mul(X.view, other)
                c.expect("out", out, *tol("exact", dt))
            else:
                c.tensor("selfRef", X)
                c.scalar("other", odt_s, other)
                X.view.mul_(other)
                c.expect("selfRef", X.storage, *tol("exact", dt))


def inplace_add_cases():
    # InplaceAdd: selfRef += alpha*other; the SGD update p += (-lr)*buf.
    specs = [
        ("f32_sgd", (4, 32), (4, 32), "f32", "contig", "contig", -0.1, "f64"),
        ("f32_bcast_row", (3, 5), (5,), "f32", "contig", "contig", 1.0, "f32"),
        ("f32_transposed", (3, 5), (3, 5), "f32", "transposed", "contig", 0.5, "f32"),
        ("f32_sliced", (7, 1, 5), (7, 1, 5), "f32", "sliced", "transposed", -1.0, "f64"),
        ("f32_edge", (4, 6), (4, 6), "f32", "contig", "contig", 1.0, "f32"),
        ("f16_3x5", (3, 5), (3, 5), "f16", "contig", "contig", -0.1, "f64"),
        ("f16_sliced_bcast", (3, 5), (3, 1), "f16", "sliced", "contig", 1.0, "f32"),
        ("bf16_3x5", (3, 5), (3, 5), "bf16", "contig", "contig", -0.1, "f64"),
        ("bf16_transposed", (3, 5), (5,), "bf16", "transposed", "contig", 2.0, "f32"),
    ]
    for name, ss, so, dt, ls, lo, alpha, adt in specs:
        cname = f"inplaceadd_{name}"
        r = Rng(cname)
        if name.endswith("edge"):
            s = r.edge(ss, dt)
            o = r.edge(so, dt)
            o = torch.where((s.float().abs() > 100) & (o.float().abs() > 100), torch.full_like(o, 2.0), o)
        else:
            s = r.normal(ss, dt, 2.0)
            o = r.normal(so, dt, 2.0)
        S = layout(s, ls)
        O = layout(o, lo)
        c = Case(cname, "InplaceAdd")
        c.tensor("selfRef", S)
        c.tensor("other", O)
        c.scalar("alpha", adt, alpha)
        S.view.add_(O.view, alpha=alpha)
        rt, at = tol("exact", dt)
        extra = exact_alpha_atol(alpha, O.view, dt)
        c.expect("selfRef", S.storage, rt, max(at, extra or 0.0))


# ---------------------------------------------------------------------------
# Relu, ThresholdBackward
# ---------------------------------------------------------------------------
def relu_cases():
    specs = [
        ("f32_3x5", (3, 5), "f32", "contig", False),
        ("f32_7x1x5_sliced", (7, 1, 5), "f32", "sliced", False),
        ("f32_transposed", (3, 5), "f32", "transposed", False),
        ("f32_edge", (4, 6), "f32", "contig", True),
        ("f32_inf", (6,), "f32", "contig", "inf"),
        ("f16_3x5", (3, 5), "f16", "contig", False),
        ("f16_edge_sliced", (4, 6), "f16", "sliced", True),
        ("bf16_3x5", (3, 5), "bf16", "contig", False),
        ("bf16_edge_transposed", (4, 6), "bf16", "transposed", True),
    ]
    for name, shape, dt, lay, edge in specs:
        cname = f"relu_{name}"
        r = Rng(cname)
        if edge == "inf":
            x = torch.tensor([float("inf"), float("-inf"), -0.0, 0.0, -1e-30, 1e-30], dtype=DTYPES[dt])
        elif edge:
            x = r.edge(shape, dt)
        else:
            x = r.normal(shape, dt)
        X = layout(x, lay)
        c = Case(cname, "Relu")
        c.tensor("self", X)
        c.expect("out", torch.relu(X.view), *tol("exact", dt))


def threshold_backward_cases():
    # out = gradOutput where self > threshold else 0 (strictly greater).
    specs = [
        ("f32_relu", (3, 5), "f32", "contig", "contig", 0.0, "f64"),
        ("f32_threshold_half", (4, 6), "f32", "contig", "contig", 0.5, "f32"),
        ("f32_transposed_sliced", (3, 5), "f32", "transposed", "sliced", 0.0, "f32"),
        ("f32_7x1x5", (7, 1, 5), "f32", "sliced", "contig", -0.25, "f64"),
        ("f16_relu", (3, 5), "f16", "contig", "contig", 0.0, "f64"),
        ("f16_threshold_sliced", (4, 6), "f16", "sliced", "transposed", 0.5, "f32"),
        ("bf16_relu", (3, 5), "bf16", "contig", "contig", 0.0, "f64"),
        ("bf16_threshold", (4, 6), "bf16", "transposed", "contig", 0.5, "f32"),
    ]
    for name, shape, dt, lg, ls, th, tdt in specs:
        cname = f"thresholdbackward_{name}"
        r = Rng(cname)
        g = r.edge(shape, dt)
        x = r.normal(shape, dt)
        if th == 0.0:
            x = torch.relu(x)  # PyTorch's relu backward passes the forward result
        flat = x.reshape(-1)
        flat[:: 4] = th  # values equal to the threshold give 0
        x = flat.reshape(shape)
        G = layout(g, lg)
        X = layout(x, ls)
        c = Case(cname, "ThresholdBackward")
        c.tensor("gradOutput", G)
        c.tensor("self", X)
        c.scalar("threshold", tdt, th)
        out = torch.ops.aten.threshold_backward(G.view, X.view, th)
        c.expect("out", out, *tol("exact", dt))


# ---------------------------------------------------------------------------
# LogSoftmax, LogSoftmaxBackward
# ---------------------------------------------------------------------------
def log_softmax_cases():
    NEG = float("-inf")
    specs = [
        ("f32_3x5_dim1", (3, 5), "f32", "contig", 1, None),
        ("f32_3x5_dim0", (3, 5), "f32", "contig", 0, None),
        ("f32_7x1x5_dim1", (7, 1, 5), "f32", "contig", 1, None),  # size-1 dim: all zeros
        ("f32_7x1x5_dimneg1_sliced", (7, 1, 5), "f32", "sliced", -1, None),
        ("f32_transposed", (3, 5), "f32", "transposed", 1, None),
        ("f32_large", (4, 6), "f32", "contig", 1, "large"),
        ("f32_neginf", (4, 6), "f32", "contig", 1, "neginf"),
        ("f32_equal", (3, 5), "f32", "contig", 1, "equal"),
        ("f16_3x5", (3, 5), "f16", "contig", 1, None),
        ("f16_large_sliced", (4, 6), "f16", "sliced", 1, "large"),
        ("f16_neginf", (4, 6), "f16", "contig", -1, "neginf"),
        ("bf16_3x5", (3, 5), "bf16", "contig", 1, None),
        ("bf16_transposed_dim0", (4, 6), "bf16", "transposed", 0, "large"),
    ]
    for name, shape, dt, lay, dim, kind in specs:
        cname = f"logsoftmax_{name}"
        r = Rng(cname)
        x = r.normal(shape, "f32", 3.0)
        if kind == "large":
            big = 1e4 if dt != "f16" else 6e3
            x = x * (big / 3) + torch.sign(x) * big
            x.reshape(-1)[0] = 0.0
        elif kind == "neginf":
            # -inf where the row keeps finite values: PyTorch defines the
            # result (-inf there, the rest a softmax over the finite ones).
            # A row of only -inf gives NaN in PyTorch: not generated.
            x[0, 1] = NEG
            x[1, 0] = NEG
            x[1, 3] = NEG
            x[2, :] = torch.tensor([NEG] * (shape[1] - 1) + [1.5])
        elif kind == "equal":
            x[0, :] = 2.0
            x[1, :] = -1e-3
        x = x.to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "LogSoftmax")
        c.tensor("self", X)
        c.int_("dim", dim)
        out = torch.log_softmax(X.view, dim)
        c.expect("out", out, *tol("accum", dt))


def log_softmax_backward_cases():
    # out = gradOutput - exp(output) * sum(gradOutput, dim)
    specs = [
        ("f32_3x5_dim1", (3, 5), "f32", "contig", "contig", 1, False),
        ("f32_3x5_dim0", (3, 5), "f32", "contig", "contig", 0, False),
        ("f32_7x1x5_dim2", (7, 1, 5), "f32", "contig", "contig", 2, False),
        ("f32_transposed_sliced", (3, 5), "f32", "transposed", "sliced", 1, False),
        ("f32_neginf", (4, 6), "f32", "contig", "contig", 1, True),
        ("f32_cross_entropy_64x4", (64, 4), "f32", "contig", "contig", 1, False),
        ("f16_3x5", (3, 5), "f16", "contig", "contig", 1, False),
        ("f16_sliced", (4, 6), "f16", "sliced", "contig", -1, True),
        ("bf16_3x5", (3, 5), "bf16", "contig", "contig", 1, False),
        ("bf16_transposed", (4, 6), "bf16", "contig", "transposed", 0, False),
    ]
    for name, shape, dt, lg, lo, dim, neginf in specs:
        cname = f"logsoftmaxbackward_{name}"
        r = Rng(cname)
        x = r.normal(shape, "f32", 2.0)
        if neginf:
            x[0, 1] = float("-inf")
            x[2, 0] = float("-inf")
        g = r.normal(shape, "f32")
        x = x.to(DTYPES[dt])
        g = g.to(DTYPES[dt])
        output = torch.log_softmax(x, dim)  # the forward result, in dt
        G = layout(g, lg)
        O = layout(output, lo)
        c = Case(cname, "LogSoftmaxBackward")
        c.tensor("gradOutput", G)
        c.tensor("output", O)
        c.int_("dim", dim)
        out = torch._log_softmax_backward_data(G.view, O.view, dim, DTYPES[dt])
        c.expect("out", out, *tol("accum", dt))


# ---------------------------------------------------------------------------
# NLLLoss, NLLLossBackward
# ---------------------------------------------------------------------------
REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def nll_specs():
    # name, N (None: self is 1-D (C)), C, dtype, self layout, reduction,
    # ignore_index, which targets are ignored ("some", "all", "none"),
    # target dtype, reduced-output shape ("0d" as PyTorch/torch_npu, "1" as the aclnn doc)
    return [
        ("f32_mean_ignore", 6, 5, "f32", "contig", "mean", -100, "some", "i64", "0d"),
        ("f32_sum_ignore", 6, 5, "f32", "contig", "sum", -100, "some", "i64", "0d"),
        ("f32_none_ignore", 6, 5, "f32", "contig", "none", -100, "some", "i64", "0d"),
        ("f32_mean_ignore_class1", 7, 4, "f32", "contig", "mean", 1, "some", "i64", "1"),
        ("f32_mean_all_ignored", 3, 5, "f32", "contig", "mean", -100, "all", "i64", "0d"),
        ("f32_sum_all_ignored", 3, 5, "f32", "contig", "sum", -100, "all", "i64", "0d"),
        ("f32_mean_1d_self", None, 5, "f32", "contig", "mean", -100, "none", "i64", "0d"),
        ("f32_mean_transposed", 5, 3, "f32", "transposed", "mean", -100, "some", "i64", "0d"),
        ("f32_none_sliced", 6, 5, "f32", "sliced", "none", 2, "some", "i64", "0d"),
        ("f32_mean_i32_target", 6, 5, "f32", "contig", "mean", -100, "some", "i32", "0d"),
        ("f32_mean_64x4", 64, 4, "f32", "contig", "mean", -100, "none", "i64", "0d"),
        ("f16_mean_ignore", 6, 5, "f16", "contig", "mean", -100, "some", "i64", "0d"),
        ("f16_none_sliced", 6, 5, "f16", "sliced", "none", -100, "some", "i64", "0d"),
        ("bf16_mean_ignore", 6, 5, "bf16", "contig", "mean", -100, "some", "i64", "0d"),
        ("bf16_sum_transposed", 5, 3, "bf16", "transposed", "sum", 0, "some", "i64", "1"),
    ]


def nll_inputs(cname, N, C, dt, ignore, which, tdt):
    r = Rng(cname)
    shape = (C,) if N is None else (N, C)
    x = torch.log_softmax(r.normal(shape, "f32", 2.0), -1).to(DTYPES[dt])
    # weights: multiples of 0.25 (sums exact in every dtype); one zero weight
    w = (r.ints((C,), 1, 9, "i64").float() * 0.25)
    if C > 3:
        w[C - 1] = 0.0
    w = w.to(DTYPES[dt])
    if N is None:
        t = r.ints((), 0, C, "i64")
    else:
        t = r.ints((N,), 0, C, "i64")
        valid = [k for k in range(C) if k != ignore]
        t = torch.tensor([valid[int(v) % len(valid)] for v in t], dtype=torch.int64)
        if which == "some":
            t[1] = ignore
            t[N - 2] = ignore
        elif which == "all":
            t[:] = ignore
    # totalWeight, computed here: the sum of weight[target] over targets that
    # are not ignoreIndex (the aclnn doc's formula, for every reduction).
    flat = t.reshape(-1)
    tw = sum(float(w[int(k)]) for k in flat if int(k) != ignore)
    return x, w, t, tw


def reduced_shape(t, shape_kind):
    return t.reshape(()) if shape_kind == "0d" else t.reshape((1,))


def nll_loss_cases():
    for name, N, C, dt, lay, red, ignore, which, tdt, rshape in nll_specs():
        cname = f"nllloss_{name}"
        x, w, t, tw = nll_inputs(cname, N, C, dt, ignore, which, tdt)
        X = layout(x, lay)
        c = Case(cname, "NLLLoss")
        c.tensor("self", X)
        c.tensor("target", layout(t.to(DTYPES[tdt]), "contig"))
        c.tensor("weight", layout(w, "contig"))
        c.int_("reduction", REDUCTION[red])
        c.int_("ignoreIndex", ignore)
        out, ptw = torch.ops.aten.nll_loss_forward(X.view, t, w, REDUCTION[red], ignore)
        if red != "none":
            # PyTorch's own total_weight agrees with ours for mean and sum
            # (for 'none' PyTorch leaves it 0; see README).
            assert float(ptw) == tw, (cname, float(ptw), tw)
            out = reduced_shape(out, rshape)
        rt, at = tol("accum", dt)
        c.expect("out", out, rt, at)
        # The real op writes totalWeightOut only for mean and sum: with
        # reduction none it is left untouched (hicann/ops-nn v8.5.0,
        # loss/nll_loss/op_api/aclnn_nll_loss.cpp, `if (reduction != 0)`
        # around the cast and view-copy of totalWeight). So no expectation.
        if red != "none":
            c.expect("totalWeightOut", reduced_shape(torch.tensor(tw, dtype=DTYPES[dt]), rshape), *tol("exact", dt))


def nll_loss_backward_cases():
    for name, N, C, dt, lay, red, ignore, which, tdt, rshape in nll_specs():
        cname = f"nlllossbackward_{name}"
        x, w, t, tw = nll_inputs(cname, N, C, dt, ignore, which, tdt)
        r = Rng(cname + "/grad")
        if red == "none" and N is not None:
            g = r.normal((N,), dt)
        else:
            g = reduced_shape(r.uniform((), 0.5, 2.0, dt), rshape)
        X = layout(x, lay)
        G = layout(g, "contig")
        TW = reduced_shape(torch.tensor(tw, dtype=DTYPES[dt]), rshape)
        c = Case(cname, "NLLLossBackward")
        c.tensor("gradOutput", G)
        c.tensor("self", X)
        c.tensor("target", layout(t.to(DTYPES[tdt]), "contig"))
        c.tensor("weight", layout(w, "contig"))
        c.int_("reduction", REDUCTION[red])
        c.int_("ignoreIndex", ignore)
        c.tensor("totalWeight", layout(TW, "contig"))
        out = torch.ops.aten.nll_loss_backward(G.view.reshape(g.shape if red == "none" else ()), X.view, t, w,
                                               REDUCTION[red], ignore, TW.reshape(()))
        c.expect("out", out, *tol("accum", dt))


# ---------------------------------------------------------------------------
# Mm, Addmm, Matmul
# ---------------------------------------------------------------------------
def mm_cases():
    specs = [
        ("f32_3x5_5x7", (3, 5), (5, 7), "f32", "contig", "contig", None),
        ("f32_transposed_mat1", (3, 5), (5, 7), "f32", "transposed", "contig", None),
        ("f32_sliced_mat2", (3, 5), (5, 7), "f32", "contig", "sliced", None),
        ("f32_both_transposed", (4, 6), (6, 3), "f32", "transposed", "transposed", None),
        ("f32_outer_7x1_1x5", (7, 1), (1, 5), "f32", "contig", "contig", None),
        ("f32_1x5_5x1", (1, 5), (5, 1), "f32", "sliced", "contig", None),
        ("f32_edge", (4, 6), (6, 3), "f32", "contig", "contig", "edge"),
        ("f32_zeros", (3, 5), (5, 2), "f32", "contig", "contig", "zeros"),
        ("f16_3x5_5x7", (3, 5), (5, 7), "f16", "contig", "contig", None),
        ("f16_transposed", (4, 6), (6, 3), "f16", "transposed", "sliced", None),
        ("bf16_3x5_5x7", (3, 5), (5, 7), "bf16", "contig", "contig", None),
        ("bf16_transposed", (4, 6), (6, 3), "bf16", "contig", "transposed", None),
    ]
    for name, sa, sb, dt, la, lb, kind in specs:
        cname = f"mm_{name}"
        r = Rng(cname)
        a = r.normal(sa, dt)
        b = r.normal(sb, dt)
        if kind == "edge":
            a = r.edge(sa, dt, big=1e15)
            b = r.edge(sb, dt, big=1e15)
            b = torch.where(b.abs() > 100, torch.full_like(b, -2.0), b)  # products stay finite
        elif kind == "zeros":
            a[1, :] = 0.0
            b[:, 0] = 0.0
            a[0, 2] = -0.0
        A, B = layout(a, la), layout(b, lb)
        c = Case(cname, "Mm")
        c.tensor("self", A)
        c.tensor("mat2", B)
        out = torch.mm(A.view, B.view)
        rt, at = tol("accum", dt)
        c.expect("out", out, rt, accum_atol(at, rt, mm_scale(A.view, B.view)))
        c.int_("cubeMathType", 0)


def inplace_sub_cases():
    # InplaceSub: selfRef -= alpha*other (torch's sub_).
    specs = [
        ("f32_3x5", (3, 5), (3, 5), "f32", "contig", "contig", 1.0, "f32"),
        ("f32_bcast_transposed", (3, 5), (5,), "f32", "transposed", "contig", 0.5, "f64"),
        ("f16_3x5", (3, 5), (3, 5), "f16", "contig", "contig", -0.1, "f64"),
        ("bf16_sliced_bcast", (3, 5), (3, 1), "bf16", "sliced", "contig", 2.0, "f32"),
    ]
    for name, ss, so, dt, ls, lo, alpha, adt in specs:
        cname = f"inplacesub_{name}"
        r = Rng(cname)
        s = r.normal(ss, dt, 2.0)
        o = r.normal(so, dt, 2.0)
        S = layout(s, ls)
        O = layout(o, lo)
        c = Case(cname, "InplaceSub")
        c.tensor("selfRef", S)
        c.tensor("other", O)
        c.scalar("alpha", adt, alpha)
        S.view.sub_(O.view, alpha=alpha)
        rt, at = tol("exact", dt)
        extra = exact_alpha_atol(alpha, O.view, dt)
        c.expect("selfRef", S.storage, rt, max(at, extra or 0.0))


def inplace_addmm_cases():
    # InplaceAddmm: selfRef = beta*selfRef + alpha*(mat1 @ mat2), torch's
    # addmm_; beta = alpha = 1 is gradient accumulation in place.
    specs = [
        ("f32_accumulate", (4, 6), (6, 3), "f32", "contig", "contig", "contig", 1.0, "f32", 1.0, "f32"),
        ("f32_scaled_transposed", (3, 5), (5, 4), "f32", "transposed", "contig", "contig", 0.5, "f64", -2.0, "f64"),
        ("f32_sliced_self", (3, 5), (5, 4), "f32", "contig", "transposed", "sliced", 1.0, "f32", 0.25, "f32"),
        ("f16_accumulate", (4, 8), (8, 3), "f16", "contig", "transposed", "contig", 1.0, "f32", 1.0, "f32"),
        ("bf16_accumulate", (4, 8), (8, 3), "bf16", "contig", "contig", "contig", 1.0, "f32", 1.0, "f32"),
    ]
    for name, sa, sb, dt, la, lb, ls, beta, bdt, alpha, adt in specs:
        cname = f"inplaceaddmm_{name}"
        r = Rng(cname)
        a = r.normal(sa, dt)
        b = r.normal(sb, dt, 0.5)
        s = r.normal((sa[0], sb[1]), dt)
        A, B = layout(a, la), layout(b, lb)
        S = layout(s, ls)
        c = Case(cname, "InplaceAddmm")
        c.tensor("selfRef", S)
        c.tensor("mat1", A)
        c.tensor("mat2", B)
        c.scalar("beta", bdt, beta)
        c.scalar("alpha", adt, alpha)
        scale = abs(alpha) * mm_scale(A.view, B.view) + abs(beta) * s.double().abs().max().item()
        S.view.addmm_(A.view, B.view, beta=beta, alpha=alpha)
        rt, at = tol("accum", dt)
        c.expect("selfRef", S.storage, rt, accum_atol(at, rt, scale))
        c.int_("cubeMathType", 0)


def addmm_cases():
    # out = beta*self + alpha*(mat1 @ mat2); self broadcasts to (M, N).
    specs = [
        ("f32_linear_bias1d", (8, 16), (16, 32), (32,), "f32", "contig", "transposed", 1.0, "f64", 1.0, "f64"),
        ("f32_full_self", (3, 5), (5, 7), (3, 7), "f32", "contig", "contig", 0.5, "f32", -2.0, "f32"),
        ("f32_col_bias", (3, 5), (5, 7), (3, 1), "f32", "transposed", "sliced", 1.0, "f32", 1.0, "f32"),
        ("f32_sliced_bias", (7, 1), (1, 5), (5,), "f32", "contig", "contig", 2.0, "f64", 0.25, "f64"),
        ("f32_beta0", (3, 5), (5, 4), (4,), "f32", "contig", "contig", 0.0, "f64", 1.0, "f64"),
        ("f16_linear_bias1d", (8, 16), (16, 4), (4,), "f16", "contig", "transposed", 1.0, "f64", 1.0, "f64"),
        ("f16_full_self", (3, 5), (5, 7), (3, 7), "f16", "sliced", "contig", 0.5, "f32", 1.5, "f32"),
        ("bf16_linear_bias1d", (8, 16), (16, 4), (4,), "bf16", "contig", "transposed", 1.0, "f64", 1.0, "f64"),
        ("bf16_full_self", (3, 5), (5, 7), (1, 7), "bf16", "transposed", "contig", -1.0, "f32", 0.5, "f32"),
    ]
    for name, sa, sb, ss, dt, la, lb, beta, bdt, alpha, adt in specs:
        cname = f"addmm_{name}"
        r = Rng(cname)
        a = r.normal(sa, dt)
        b = r.normal(sb, dt, 0.5)
        s = r.normal(ss, dt)
        A, B = layout(a, la), layout(b, lb)
        S = layout(s, "sliced" if name == "f32_sliced_bias" else "contig")
        c = Case(cname, "Addmm")
        c.tensor("self", S)
        c.tensor("mat1", A)
        c.tensor("mat2", B)
        c.scalar("beta", bdt, beta)
        c.scalar("alpha", adt, alpha)
        out = torch.addmm(S.view, A.view, B.view, beta=beta, alpha=alpha)
        rt, at = tol("accum", dt)
        scale = abs(alpha) * mm_scale(A.view, B.view) + abs(beta) * s.double().abs().max().item()
        c.expect("out", out, rt, accum_atol(at, rt, scale))
        c.int_("cubeMathType", 0)


def matmul_cases():
    specs = [
        ("f32_2d", (3, 5), (5, 7), "f32", "contig", "contig"),
        ("f32_1d_2d", (5,), (5, 3), "f32", "contig", "contig"),
        ("f32_2d_1d", (3, 5), (5,), "f32", "contig", "sliced"),
        ("f32_3d_2d", (2, 3, 5), (5, 4), "f32", "contig", "contig"),
        ("f32_3d_3d", (2, 3, 5), (2, 5, 4), "f32", "contig", "contig"),
        ("f32_bcast_batch", (1, 3, 5), (4, 5, 2), "f32", "contig", "contig"),
        ("f32_2d_3d_bcast", (3, 5), (2, 5, 4), "f32", "transposed", "contig"),
        ("f32_3d_transposed", (2, 3, 5), (2, 5, 4), "f32", "sliced", "transposed"),
        ("f16_3d_2d", (2, 3, 5), (5, 4), "f16", "contig", "contig"),
        ("f16_bcast_transposed", (1, 3, 5), (2, 5, 4), "f16", "contig", "transposed"),
        ("bf16_2d", (3, 5), (5, 7), "bf16", "transposed", "contig"),
        ("bf16_3d_3d", (2, 3, 5), (2, 5, 4), "bf16", "contig", "contig"),
    ]
    for name, sa, sb, dt, la, lb in specs:
        cname = f"matmul_{name}"
        r = Rng(cname)
        a = r.normal(sa, dt)
        b = r.normal(sb, dt)
        A, B = layout(a, la), layout(b, lb)
        c = Case(cname, "Matmul")
        c.tensor("self", A)
        c.tensor("mat2", B)
        out = torch.matmul(A.view, B.view)
        rt, at = tol("accum", dt)
        c.expect("out", out, rt, accum_atol(at, rt, torch.matmul(A.view.double().abs(), B.view.double().abs()).max().item()))
        c.int_("cubeMathType", 0)


# ---------------------------------------------------------------------------
# ReduceSum, ArgMax
# ---------------------------------------------------------------------------
def reduce_sum_cases():
    specs = [
        ("f32_bias_grad", (16, 32), "f32", "contig", [0], False, "f32", None),
        ("f32_3x5_dim1_keep", (3, 5), "f32", "contig", [1], True, "f32", None),
        ("f32_7x1x5_dims02_keep", (7, 1, 5), "f32", "contig", [0, 2], True, "f32", None),
        ("f32_7x1x5_dimneg1", (7, 1, 5), "f32", "sliced", [-1], False, "f32", None),
        ("f32_transposed_dim0", (5, 3), "f32", "transposed", [0], False, "f32", None),
        ("f32_all_dims", (3, 5), "f32", "sliced", [0, 1], False, "f32", None),
        ("f32_edge", (4, 6), "f32", "contig", [1], False, "f32", "edge"),
        ("f16_dim0", (6, 5), "f16", "contig", [0], False, "f16", None),
        ("f16_to_f32", (6, 5), "f16", "transposed", [1], True, "f32", None),
        ("f16_edge", (4, 6), "f16", "contig", [1], False, "f16", "edge"),
        ("bf16_dim0", (6, 5), "bf16", "contig", [0], False, "bf16", None),
        ("bf16_to_f32", (7, 1, 5), "bf16", "sliced", [0, 1], False, "f32", None),
        ("i32_to_i64", (3, 5), "i32", "contig", [0], False, "i64", None),
    ]
    for name, shape, dt, lay, dims, keep, odt, kind in specs:
        cname = f"reducesum_{name}"
        r = Rng(cname)
        if dt.startswith("i"):
            x = r.ints(shape, -1000, 1000, dt)
        elif kind == "edge":
            x = r.edge(shape, dt, big={"f32": 1e30, "f16": 1e4}[dt])
        else:
            x = r.normal(shape, dt)
        X = layout(x, lay)
        c = Case(cname, "ReduceSum")
        c.tensor("self", X)
        c.ints("dims", dims)
        c.bool_("keepDims", keep)
        c.dtype("dtype", odt)
        out = torch.sum(X.view, dim=dims, keepdim=keep, dtype=DTYPES[odt])
        rt, at = tol("accum", odt)
        if not odt.startswith("i"):
            scale = torch.sum(X.view.double().abs(), dim=dims).max().item()
            at = accum_atol(at, rt, scale)
        c.expect("out", out, rt, at)


def argmax_cases():
    specs = [
        ("f32_3x5_dim1", (3, 5), "f32", "contig", 1, False, None),
        ("f32_3x5_dim0_keep", (3, 5), "f32", "contig", 0, True, None),
        ("f32_ties", (4, 6), "f32", "contig", 1, False, "ties"),
        ("f32_7x1x5_dimneg1", (7, 1, 5), "f32", "sliced", -1, False, None),
        ("f32_7x1x5_dim1_size1", (7, 1, 5), "f32", "contig", 1, True, None),
        ("f32_transposed", (3, 5), "f32", "transposed", 1, False, "edge"),
        ("f32_neginf", (3, 5), "f32", "contig", 1, False, "neginf"),
        ("f16_ties", (4, 6), "f16", "contig", 1, False, "ties"),
        ("f16_sliced_dim0", (4, 6), "f16", "sliced", 0, True, None),
        ("bf16_ties", (4, 6), "bf16", "contig", 1, False, "ties"),
        ("bf16_transposed", (4, 6), "bf16", "transposed", 0, False, "edge"),
    ]
    for name, shape, dt, lay, dim, keep, kind in specs:
        cname = f"argmax_{name}"
        r = Rng(cname)
        x = r.normal(shape, "f32")
        if kind == "ties":
            # ties: PyTorch returns the first index of the maximum
            x[0, :] = 1.0
            x[1, 1] = x[1, 4] = 9.0
            x[2, :] = -2.0
            x[2, 3] = x[2, 5] = -1.0
            x[3, :] = 0.5
            x[3, 0] = 1.0
            x[3, 2] = 1.0 + 2.0 ** -9  # the max in f32 and f16; a tie with 1.0 in bf16
        elif kind == "edge":
            x = r.edge(shape, "f32", big=1e30 if dt != "f16" else 3e4)
        elif kind == "neginf":
            x[0, :] = float("-inf")  # all -inf: the first index
            x[1, 2] = float("-inf")
            x[2, :] = -x[2, :].abs() - 1.0
        x = x.to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "ArgMax")
        c.tensor("self", X)
        c.int_("dim", dim)
        c.bool_("keepdim", keep)
        out = torch.argmax(X.view, dim=dim, keepdim=keep)
        c.expect("out", out, *INT_TOL)


# ---------------------------------------------------------------------------
# Cast, InplaceCopy, InplaceZero, InplaceFillScalar
# ---------------------------------------------------------------------------
def cast_values(r, shape):
    x = r.normal(shape, "f32", 3.0).reshape(-1)
    special = [
        0.0, -0.0, 1.0 + 2.0 ** -8,  # a bf16 tie: rounds to even (1.0)
        1.0 + 3 * 2.0 ** -8,  # a bf16 tie: rounds to even (1 + 2^-6)
        1.0 + 2.0 ** -11,  # an f16 tie: rounds to even (1.0)
        -2.7, 2.5, -0.5, 65504.0, -60000.0, 1e-6,  # f16 subnormal
        1e-40,  # an f32 subnormal
        3.0e38, 1234.567,
    ]
    for i, v in enumerate(special):
        if i < x.numel():
            x[i] = v
    return x.reshape(shape)


def cast_cases():
    specs = [
        ("f32_to_f16", (4, 6), "f32", "f16", "contig"),
        ("f32_to_bf16", (4, 6), "f32", "bf16", "contig"),
        ("f16_to_f32", (3, 5), "f16", "f32", "contig"),
        ("bf16_to_f32", (3, 5), "bf16", "f32", "transposed"),
        ("f32_to_i32", (3, 5), "f32", "i32", "contig"),
        ("f32_to_i64_sliced", (7, 1, 5), "f32", "i64", "sliced"),
        ("i64_to_f32", (3, 5), "i64", "f32", "contig"),
        ("i32_to_f16", (3, 5), "i32", "f16", "contig"),
        ("f16_to_bf16", (3, 5), "f16", "bf16", "sliced"),
        ("bf16_to_f16", (3, 5), "bf16", "f16", "contig"),
        ("f32_to_f16_transposed", (3, 5), "f32", "f16", "transposed"),
        ("i64_to_i32", (3, 5), "i64", "i32", "contig"),
    ]
    for name, shape, src, dst, lay in specs:
        cname = f"cast_{name}"
        r = Rng(cname)
        if src.startswith("i"):
            x = r.ints(shape, -3000, 3000, src)
            x.reshape(-1)[0] = 2 ** 24 + 1 if src == "i64" and dst == "f32" else x.reshape(-1)[0]
            x.reshape(-1)[1] = -(2 ** 24 + 3) if src == "i64" and dst == "f32" else x.reshape(-1)[1]
        else:
            v = cast_values(r, shape)
            # keep every value representable in the destination's range
            # (overflow is chip-configurable: inf or saturation; not tested)
            if dst in ("f16",) or src == "f16":
                v = torch.where(v.abs() > 60000.0, torch.sign(v) * 60000.0, v)
                if src == "bf16":
                    v = torch.where(v.abs() > 30000.0, torch.sign(v) * 30000.0, v)
            if dst.startswith("i"):
                v = torch.where(v.abs() > 1e6, torch.sign(v) * 123456.75, v)
            x = v.to(DTYPES[src])
        X = layout(x, lay)
        c = Case(cname, "Cast")
        c.tensor("self", X)
        c.dtype("dtype", dst)
        out = X.view.to(DTYPES[dst])
        c.expect("out", out, *tol("exact", dst))


def inplace_copy_cases():
    specs = [
        ("f32_3x5", (3, 5), (3, 5), "f32", "f32", "contig", "contig"),
        ("f32_into_transposed", (3, 5), (3, 5), "f32", "f32", "transposed", "contig"),
        ("f32_from_sliced", (3, 5), (3, 5), "f32", "f32", "contig", "sliced"),
        ("f32_bcast_row_into_sliced", (3, 5), (5,), "f32", "f32", "sliced", "contig"),
        ("f32_bcast_col", (3, 5), (3, 1), "f32", "f32", "contig", "contig"),
        ("f32_bcast_3d", (7, 1, 5), (1, 5), "f32", "f32", "contig", "transposed"),
        ("f16_from_f32", (4, 6), (4, 6), "f16", "f32", "contig", "contig"),
        ("f32_from_bf16", (3, 5), (3, 5), "f32", "bf16", "transposed", "contig"),
        ("bf16_from_f32", (4, 6), (4, 6), "bf16", "f32", "contig", "contig"),
        ("f16_from_f16_sliced", (3, 5), (3, 5), "f16", "f16", "sliced", "transposed"),
        ("i32_from_f32", (3, 5), (3, 5), "i32", "f32", "contig", "contig"),
        ("f32_from_i64_bcast", (3, 5), (5,), "f32", "i64", "contig", "contig"),
    ]
    for name, sd, ss, ddt, sdt, ld, ls in specs:
        cname = f"inplacecopy_{name}"
        r = Rng(cname)
        if ddt.startswith("i"):
            d = r.ints(sd, -9, 9, ddt)
        else:
            d = r.normal(sd, ddt)
        if sdt.startswith("i"):
            s = r.ints(ss, -3000, 3000, sdt)
        else:
            s = cast_values(r, ss) if len(ss) == 2 and ss[0] * ss[1] >= 15 else r.normal(ss, "f32", 3.0)
            if ddt == "f16":
                s = torch.where(s.abs() > 60000.0, torch.sign(s) * 60000.0, s)
            if ddt.startswith("i"):
                s = torch.where(s.abs() > 1e6, torch.sign(s) * 4321.5, s)
            s = s.to(DTYPES[sdt])
        D, S = layout(d, ld), layout(s, ls)
        c = Case(cname, "InplaceCopy")
        c.tensor("selfRef", D)
        c.tensor("src", S)
        D.view.copy_(S.view)
        c.expect("selfRef", D.storage, *tol("exact", ddt))


def inplace_zero_cases():
    specs = [
        ("f32_3x5", (3, 5), "f32", "contig"),
        ("f32_sliced", (7, 1, 5), "f32", "sliced"),
        ("f32_transposed", (3, 5), "f32", "transposed"),
        ("f16_sliced", (3, 5), "f16", "sliced"),
        ("bf16_3x5", (3, 5), "bf16", "contig"),
        ("i64_3x5", (3, 5), "i64", "contig"),
    ]
    for name, shape, dt, lay in specs:
        cname = f"inplacezero_{name}"
        r = Rng(cname)
        x = r.ints(shape, -9, 9, dt) if dt.startswith("i") else r.edge(shape, dt)
        X = layout(x, lay)
        c = Case(cname, "InplaceZero")
        c.tensor("selfRef", X)
        X.view.zero_()
        c.expect("selfRef", X.storage, *tol("exact", dt))


def inplace_fill_cases():
    specs = [
        ("f32_one_f64", (3, 5), "f32", "contig", 1.0, "f64"),
        ("f32_sliced_f32", (7, 1, 5), "f32", "sliced", -2.5, "f32"),
        ("f32_i64_value", (3, 5), "f32", "transposed", 3, "i64"),
        ("f32_0d_loss_seed", (), "f32", "contig", 1.0, "f64"),
        ("f16_tenth", (3, 5), "f16", "contig", 0.1, "f64"),
        ("f16_sliced_large", (3, 5), "f16", "sliced", 60000.0, "f32"),
        ("bf16_tenth", (3, 5), "bf16", "contig", 0.1, "f64"),
        ("bf16_transposed", (4, 6), "bf16", "transposed", 3.14159, "f32"),
        ("i32_i64_value", (3, 5), "i32", "contig", -7, "i64"),
    ]
    for name, shape, dt, lay, value, vdt in specs:
        cname = f"inplacefillscalar_{name}"
        r = Rng(cname)
        x = r.ints(shape, -9, 9, dt) if dt.startswith("i") else r.normal(shape, dt)
        X = layout(x, lay)
        c = Case(cname, "InplaceFillScalar")
        c.tensor("selfRef", X)
        c.scalar("value", vdt, value)
        X.view.fill_(value)
        c.expect("selfRef", X.storage, *tol("exact", dt))


# ---------------------------------------------------------------------------
def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    binary_cases("Add", lambda a, b, al: torch.add(a, b, alpha=al), True)
    binary_cases("Sub", lambda a, b, al: torch.sub(a, b, alpha=al), True)
    binary_cases("Mul", lambda a, b, al: torch.mul(a, b), False)
    scalar_cases()
    inplace_add_cases()
    relu_cases()
    threshold_backward_cases()
    log_softmax_cases()
    log_softmax_backward_cases()
    nll_loss_cases()
    nll_loss_backward_cases()
    mm_cases()
    addmm_cases()
    inplace_sub_cases()
    inplace_addmm_cases()
    matmul_cases()
    reduce_sum_cases()
    argmax_cases()
    cast_cases()
    inplace_copy_cases()
    inplace_zero_cases()
    inplace_fill_cases()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
