#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/activations/ as a consumer of
the format must (manifest, storage files, strided views, bf16 bit patterns),
checks the manifest's parameters against the op's aclnn parameter list, and
recomputes each expectation in float64 with NumPy only, from the formulas:

  Softmax            exp(x - max) / sum, along dim
  SoftmaxBackward    y * (g - sum(g * y)), along dim
  Sigmoid (+Backward)   1 / (1 + exp(-x));      g * y * (1 - y)
  Tanh (+Backward)      tanh(x);                g * (1 - y^2)
  Gelu, GeluV2 tanh     0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  GeluV2 none           0.5 x (1 + erf(x / sqrt 2))
  GeluBackward(V2)      the derivative of the form above
  Silu (+Backward)      x sigmoid(x);           g s (1 + x (1 - s))

and checks the written expectation against it with the case's own
tolerance. It ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens_activations.py
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "activations")

# aclnn phase-1 parameter lists (hicann/ops-nn, ops-math v8.5.0)
PARAMS = {
    "Softmax": "self dim out",
    "SoftmaxBackward": "gradOutput output dim out",
    "Sigmoid": "self out",
    "SigmoidBackward": "gradOutput output gradInput",
    "Tanh": "self out",
    "TanhBackward": "gradOutput output gradInput",
    "Gelu": "self out",
    "GeluBackward": "gradOutput self gradInput",
    "GeluV2": "x approximate y",
    "GeluBackwardV2": "gradOutput self approximate gradInput",
    "Silu": "self out",
    "SiluBackward": "gradOutput self gradInput",
}
ERF = np.vectorize(math.erf)
K = math.sqrt(2.0 / math.pi)


def softmax(x, dim):
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    return e / np.sum(e, axis=dim, keepdims=True)


def sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def gelu(x, approx):
    if approx:
        return 0.5 * x * (1.0 + np.tanh(K * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def gelu_grad(x, approx):
    if approx:
        inner = K * (x + 0.044715 * x ** 3)
        t = np.tanh(inner)
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * K * (1.0 + 3 * 0.044715 * x * x)
    return 0.5 * (1.0 + ERF(x / math.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def compute(op, t, ints):
    if op == "Softmax":
        return {"out": softmax(t["self"].value(), ints["dim"])}
    if op == "SoftmaxBackward":
        g, y = t["gradOutput"].value(), t["output"].value()
        return {"out": y * (g - np.sum(g * y, axis=ints["dim"], keepdims=True))}
    if op in ("Sigmoid", "Tanh", "Gelu", "Silu"):
        x = t["self"].value()
        f = {"Sigmoid": sigmoid, "Tanh": np.tanh, "Gelu": lambda v: gelu(v, True),
             "Silu": lambda v: v * sigmoid(v)}[op]
        return {"out": f(x)}
    if op == "GeluV2":
        return {"y": gelu(t["x"].value(), ints["approximate"] == 1)}
    g = t["gradOutput"].value()
    if op == "SigmoidBackward":
        y = t["output"].value()
        return {"gradInput": g * y * (1.0 - y)}
    if op == "TanhBackward":
        y = t["output"].value()
        return {"gradInput": g * (1.0 - y * y)}
    x = t["self"].value()
    if op == "GeluBackward":
        return {"gradInput": g * gelu_grad(x, True)}
    if op == "GeluBackwardV2":
        return {"gradInput": g * gelu_grad(x, ints["approximate"] == 1)}
    if op == "SiluBackward":
        s = sigmoid(x)
        return {"gradInput": g * s * (1.0 + x * (1.0 - s))}
    raise ValueError(op)


def check_case(d):
    t, ints, exp, order = {}, {}, [], []
    op = None
    with open(os.path.join(d, "case.txt"), encoding="utf-8") as f:
        for line in f:
            tok = line.split()
            if not tok:
                continue
            kind = tok[0]
            if kind == "op":
                op = tok[1]
                continue
            order.append(tok[1])
            if kind == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif kind == "int":
                ints[tok[1]] = int(tok[2])
            elif kind == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {kind}")
    problems = []
    if order != PARAMS[op].split():
        problems.append(f"parameters {order} are not aclnn{op}'s {PARAMS[op].split()}")
    ref = compute(op, t, ints)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        want = np.asarray(ref[role], dtype=np.float64)
        if want.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {want.shape}")
            continue
        rtol, atol = float(rtol), float(atol)
        with np.errstate(invalid="ignore"):
            ok = (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want)) | (
                np.abs(got - want) <= atol + rtol * np.abs(want))
        if not ok.all():
            bad = np.argwhere(~ok)[:3]
            problems.append(f"{role}: {int((~ok).sum())} elements off, e.g. at {bad.tolist()}: "
                            f"{got[tuple(bad[0])]} vs reference {want[tuple(bad[0])]} (rtol {rtol}, atol {atol})")
    return op, problems


def main():
    cases = sorted(e for e in os.listdir(OPS) if os.path.isdir(os.path.join(OPS, e)))
    failed = 0
    for c in cases:
        op, problems = check_case(os.path.join(OPS, c))
        if problems:
            failed += 1
            print(f"FAIL {c} ({op})")
            for p in problems:
                print("    " + p)
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
