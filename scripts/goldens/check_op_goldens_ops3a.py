#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/ops3a/ as a consumer of the
format must (manifest, storage files, strided views, bf16 bit patterns),
checks the manifest's parameters against the op's aclnn parameter list, and
recomputes each expectation in float64 (int64 for integer data) with NumPy
only, from the formulas:

  Embedding               out[i..] = weight[indices[i..]]
  EmbeddingDenseBackward  out[w] = sum of grad rows r with indices[r] == w
                          (/ count of w if scaleGradByFreq; paddingIdx rows
                          skipped; float indices truncated)
  BatchMatMul             out[b] = self[b] @ mat2[b] (a batch of 1 broadcast)
  Permute                 out = transpose(self, dims)
  ApplyAdamWV2            one AdamW step with t = step + 1 (var, m, v and,
                          with amsgrad, the running maximum, in place)

and checks the written expectation against it with the case's own
tolerance. It ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens_ops3a.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops3a")

# aclnn phase-1 parameter lists (hicann/ops-nn v8.5.0)
PARAMS = {
    "Embedding": "weight indices out",
    "EmbeddingDenseBackward": "grad indices numWeights paddingIdx scaleGradByFreq out",
    "BatchMatMul": "self mat2 out cubeMathType",
    "Permute": "self dims out",
    "ApplyAdamWV2": "varRef mRef vRef maxGradNormOptionalRef grad step lr beta1 beta2 weightDecay eps "
                    "amsgrad maximize",
}


def adamw(t, d, bools):
    """One AdamW step in float64 (the kernel's order); the in-place results
    written back into each tensor's storage."""
    var, m, v, g = (t[k].value() for k in ("varRef", "mRef", "vRef", "grad"))
    step = float(t["step"].value().reshape(-1)[0]) + 1.0
    if bools["maximize"]:
        g = -g
    lr, b1, b2, wd, eps = (d[k] for k in ("lr", "beta1", "beta2", "weightDecay", "eps"))
    var = var * (1.0 - lr * wd)
    m = m + (g - m) * (1.0 - b1)
    v = v * b2 + g * g * (1.0 - b2)
    used = v
    out = {}
    if bools["amsgrad"]:
        used = np.maximum(t["maxGradNormOptionalRef"].value(), v)
        out["maxGradNormOptionalRef"] = t["maxGradNormOptionalRef"].write(used)
    elif "maxGradNormOptionalRef" in t:
        out["maxGradNormOptionalRef"] = t["maxGradNormOptionalRef"].storage
    denom = np.sqrt(used) / np.sqrt(1.0 - b2 ** step) + eps
    var = var - lr / (1.0 - b1 ** step) * m / denom
    out.update({"varRef": t["varRef"].write(var), "mRef": t["mRef"].write(m), "vRef": t["vRef"].write(v)})
    return out


def compute(op, t, ints, bools, doubles):
    if op == "Embedding":
        idx = t["indices"].value().astype(np.int64)
        return {"out": t["weight"].value()[idx]}
    if op == "EmbeddingDenseBackward":
        g = t["grad"].value()
        idx = np.trunc(t["indices"].value()).astype(np.int64).reshape(-1)
        nw, pad = ints["numWeights"], ints["paddingIdx"]
        g = g.reshape(-1, g.shape[-1])
        out = np.zeros((nw, g.shape[1]))
        counts = np.bincount(idx, minlength=nw)
        for r, w in enumerate(idx):
            if w == pad:
                continue
            out[w] += g[r] / (counts[w] if bools["scaleGradByFreq"] else 1.0)
        return {"out": out}
    if op == "BatchMatMul":
        return {"out": np.matmul(t["self"].value(), t["mat2"].value())}
    if op == "ApplyAdamWV2":
        return adamw(t, doubles, bools)
    if op == "Permute":
        return {"out": np.transpose(t["self"].value(), ints["dims"])}
    raise ValueError(op)


def check_case(d):
    t, ints, bools, doubles, exp, order = {}, {}, {}, {}, [], []
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
            if kind != "expect" or tok[1] not in order:
                order.append(tok[1])
            if kind == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif kind == "int":
                ints[tok[1]] = int(tok[2])
            elif kind == "ints":
                ints[tok[1]] = [int(v) for v in tok[2].split(",")] if len(tok) > 2 else []
            elif kind == "double":
                doubles[tok[1]] = float(tok[2])
            elif kind == "none":
                pass
            elif kind == "bool":
                bools[tok[1]] = tok[2] == "1"
            elif kind == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {kind}")
    problems = []
    if order != PARAMS[op].split():
        problems.append(f"parameters {order} are not aclnn{op}'s {PARAMS[op].split()}")
    ref = compute(op, t, ints, bools, doubles)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        want = np.asarray(ref[role])
        if want.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {want.shape}")
            continue
        rtol, atol = float(rtol), float(atol)
        if got.dtype == np.int64:
            ok = got == want.astype(np.int64)
        else:
            want = want.astype(np.float64)
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
