#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/norm_shape/ as a consumer of
the format must (manifest, storage files, strided views, bf16 bit patterns,
`none`), checks that the lines follow the op's aclnn parameter list, and
recomputes each expectation independently in float64 with NumPy only:

  LayerNorm           mean, biased variance, rstd = 1/sqrt(var + eps) per row
                      over the trailing normalizedShape dims
  LayerNormBackward   dx = rstd (dy - mean(dy) - xhat mean(dy xhat)), dy = g w;
                      dw = sum g xhat, db = sum g over the rows
  Mean                the mean over `dim` (every dim when it is empty)
  Amax                the maximum over `dim` (NaN propagating, as np.max)

and checks the written expectation against it with the case's own
tolerance. Ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens_norm_shape.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "norm_shape")

# aclnn phase-1 parameter lists (ops-nn v8.5.0 aclnn_layer_norm.h:25-28,
# aclnn_layer_norm_backward.h:25-29)
PARAMS = {
    "LayerNorm": "input normalizedShape weightOptional biasOptional eps out meanOutOptional rstdOutOptional",
    "LayerNormBackward": "gradOut input normalizedShape mean rstd weightOptional biasOptional outputMask "
                         "gradInputOut gradWeightOut gradBiasOut",
    # ops-math v8.5.0 aclnn_mean.h:24-26
    "Mean": "self dim keepDim dtype out",
    # ops-math v8.5.0 aclnn_amax.h:37-38
    "Amax": "self dim keepDim out",
}
OUTPUTS = {
    "LayerNorm": {"out", "meanOutOptional", "rstdOutOptional"},
    "LayerNormBackward": {"gradInputOut", "gradWeightOut", "gradBiasOut"},
    "Mean": {"out"},
    "Amax": {"out"},
}


def rows(x, k):
    """x as (M, N) over its last k dims."""
    return x.reshape(int(np.prod(x.shape[:x.ndim - k], dtype=np.int64)), -1)


def compute(op, t, ia, ba, dbl):
    if op == "Mean":
        x = t["self"].value()
        dims = tuple(ia["dim"]) if ia["dim"] else tuple(range(x.ndim))
        return {"out": x.mean(axis=dims, keepdims=ba["keepDim"])}
    if op == "Amax":
        x = t["self"].value()
        dims = tuple(ia["dim"]) if ia["dim"] else tuple(range(x.ndim))
        return {"out": np.max(x, axis=dims, keepdims=ba["keepDim"])}
    k = len(ia["normalizedShape"])
    x = t["input"].value()
    shape = x.shape
    stat_shape = shape[:x.ndim - k] + (1,) * k
    xr = rows(x, k)
    w = t["weightOptional"].value().reshape(-1) if "weightOptional" in t else np.ones(xr.shape[1])
    if op == "LayerNorm":
        b = t["biasOptional"].value().reshape(-1) if "biasOptional" in t else np.zeros(xr.shape[1])
        mean = xr.mean(axis=1, keepdims=True)
        rstd = 1.0 / np.sqrt(((xr - mean) ** 2).mean(axis=1, keepdims=True) + dbl["eps"])
        out = (xr - mean) * rstd * w + b
        return {"out": out.reshape(shape), "meanOutOptional": mean.reshape(stat_shape),
                "rstdOutOptional": rstd.reshape(stat_shape)}
    g = rows(t["gradOut"].value(), k)
    mean = t["mean"].value().reshape(-1, 1)
    rstd = t["rstd"].value().reshape(-1, 1)
    xh = (xr - mean) * rstd
    dy = g * w
    dx = rstd * (dy - dy.mean(axis=1, keepdims=True) - xh * (dy * xh).mean(axis=1, keepdims=True))
    norm = tuple(ia["normalizedShape"])
    return {"gradInputOut": dx.reshape(shape), "gradWeightOut": (g * xh).sum(axis=0).reshape(norm),
            "gradBiasOut": g.sum(axis=0).reshape(norm)}


def check_case(d):
    t, ia, ba, dbl, exp, nones, names, problems = {}, {}, {}, {}, [], set(), [], []
    op = None
    with open(os.path.join(d, "case.txt"), encoding="utf-8") as f:
        for line in f:
            assert line.endswith("\n") and line.strip() == line[:-1], f"stray whitespace: {line!r}"
            tok = line.split()
            if tok[0] == "op":
                op = tok[1]
                continue
            names.append((tok[0], tok[1]))
            if tok[0] == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif tok[0] == "none":
                nones.add(tok[1])
            elif tok[0] == "ints":
                ia[tok[1]] = [int(v) for v in tok[2].split(",")] if len(tok) > 2 else []
            elif tok[0] == "bools":
                ba[tok[1]] = [v == "1" for v in tok[2].split(",")]
            elif tok[0] == "bool":
                ba[tok[1]] = tok[2] == "1"
            elif tok[0] == "dtype":
                pass
            elif tok[0] == "double":
                dbl[tok[1]] = float(tok[2])
            elif tok[0] == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {tok[0]}")
    if [n for _, n in names] != PARAMS[op].split():
        problems.append(f"parameter order {[n for _, n in names]} != {PARAMS[op].split()}")
    for k, n in names:
        if n in OUTPUTS[op] and k not in ("expect", "none"):
            problems.append(f"output {n} given as {k}")
        if n not in OUTPUTS[op] and k == "expect":
            problems.append(f"input {n} given as expect")
    if "outputMask" in ba:
        for m, role in zip(ba["outputMask"], ("gradInputOut", "gradWeightOut", "gradBiasOut")):
            if m == (role in nones):
                problems.append(f"outputMask {ba['outputMask']} but {role} {'none' if role in nones else 'given'}")
    ref = compute(op, t, ia, ba, dbl)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        w = np.asarray(ref[role], dtype=np.float64)
        if w.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {w.shape}")
            continue
        with np.errstate(invalid="ignore"):  # inf - inf and 0 * inf (Amax's -inf rows)
            ok = (np.abs(got - w) <= float(atol) + float(rtol) * np.abs(w)) | (got == w) | (np.isnan(got) & np.isnan(w))
        if not ok.all():
            bad = np.argwhere(~ok)[:3]
            problems.append(f"{role}: {int((~ok).sum())} elements off, e.g. at {bad.tolist()}: "
                            f"{got[tuple(bad[0])]} vs reference {w[tuple(bad[0])]} (rtol {rtol}, atol {atol})")
    return op, problems


def main():
    cases = sorted(e for e in os.listdir(OPS) if os.path.isdir(os.path.join(OPS, e)))
    failed = 0
    for c in cases:
        try:
            op, problems = check_case(os.path.join(OPS, c))
        except Exception as e:  # a format error is a failure, not a crash
            op, problems = "?", [f"{type(e).__name__}: {e}"]
        if problems:
            failed += 1
            print(f"FAIL {c} ({op})")
            for p in problems:
                print("    " + p)
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
