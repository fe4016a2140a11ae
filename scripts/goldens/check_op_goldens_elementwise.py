#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/elementwise/ the way a
consumer of the format must (manifest, storage files, strided views, bf16
bit patterns, `scalar`, `none`), checks that the manifest's lines follow the
op's aclnn parameter list, recomputes each expectation independently in
float64 with NumPy only (the op's formula, then one rounding to the output
dtype) and checks the written expectation against it with the case's own
tolerance. It ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens_elementwise.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode, round_to  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "elementwise")

# aclnn phase-1 parameter lists (CANN 8.5.0, hicann/ops-math v8.5.0 headers)
PARAMS = {
    "Div": "self other out",
    "Sqrt": "self out",
    "Rsqrt": "self out",
    "Exp": "self out",
    "Log": "self out",
    "Neg": "self out",
    "PowTensorScalar": "self exponent out",
    "Clamp": "self min max out",
    "IsFinite": "self out",
}
SCALARS = {"exponent", "min", "max"}
UNARY = {
    "Sqrt": np.sqrt,
    "Rsqrt": lambda x: 1.0 / np.sqrt(x),
    "Exp": np.exp,
    "Log": np.log,
    "Neg": np.negative,
}
OUTPUTS = {"out"}


def compute(op, t, sc):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if op == "Div":
            return {"out": t["self"].value().astype(np.float64) / t["other"].value().astype(np.float64)}
        if op in UNARY:
            x = t["self"].value()
            return {"out": UNARY[op](x) if x.dtype == np.int64 and op == "Neg" else UNARY[op](x.astype(np.float64))}
        if op == "PowTensorScalar":
            x, e = t["self"].value(), sc["exponent"]
            if x.dtype == np.int64 and e == int(e):
                return {"out": x ** int(e)}
            return {"out": np.power(x.astype(np.float64), e)}
        if op == "IsFinite":
            return {"out": np.isfinite(t["self"].value().astype(np.float64))}
        if op == "Clamp":
            # min(max(x, min), max) with comparisons, so NaN stays NaN and
            # min > max gives max everywhere (torch.clamp)
            v = t["self"].value()
            v = v if v.dtype == np.int64 else v.astype(np.float64)
            if sc["min"] is not None:
                v = np.where(v < sc["min"], sc["min"], v)
            if sc["max"] is not None:
                v = np.where(v > sc["max"], sc["max"], v)
            return {"out": v}
    raise ValueError(op)


def check_case(d):
    t, sc, exp, names, problems = {}, {}, [], [], []
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
            elif tok[0] == "scalar":
                sc[tok[1]] = float(tok[3])
            elif tok[0] == "none":
                sc[tok[1]] = None
            elif tok[0] == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {tok[0]}")
    if [n for _, n in names] != PARAMS[op].split():
        problems.append(f"parameter order {[n for _, n in names]} != {PARAMS[op].split()}")
    for k, n in names:
        if (n in OUTPUTS) != (k == "expect") or (n in SCALARS) != (k in ("scalar", "none")):
            problems.append(f"{n} given as {k}")
    ref = compute(op, t, sc)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        with np.errstate(over="ignore"):  # results beyond the dtype's range round to inf
            w = round_to(np.asarray(ref[role], dtype=np.float64), dt)
        if w.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {w.shape}")
            continue
        rtol, atol = float(rtol), float(atol)
        same = (np.isnan(got) & np.isnan(w)) | (np.isinf(w) & (got == w))
        with np.errstate(invalid="ignore"):
            ok = same | (np.abs(got - w) <= atol + rtol * np.abs(w))
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
