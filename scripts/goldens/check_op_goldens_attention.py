#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/attention/ and recomputes
each expectation independently in float64 with NumPy only (no torch):

  FlashAttentionScore      s = scale q k^T (masked: -FLT_MAX), P = softmax(s),
                           out = P v; softmaxMax = max s, softmaxSum = sum exp(s - max),
                           each repeated 8 times ([B, N, S1, 8])
  FlashAttentionScoreGrad  P from the case's softmaxMax/softmaxSum, D = rowsum(dy o),
                           dS = P (dy v^T - D), dq = scale dS k, dk = scale dS^T q,
                           dv = P^T dy (summed over a GQA group)

and checks the written expectation with the case's own tolerance. Ends with
`N passed, N failed`.

    python3 scripts/goldens/check_op_goldens_attention.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "attention")
LAYOUTS = {0: "BSH", 1: "SBH", 2: "BSND", 3: "BNSD"}
FLT_MAX = float(np.finfo(np.float32).max)


def to_bnsd(x, lay, n):
    if lay == "BNSD":
        return x
    if lay == "BSND":
        return x.transpose(0, 2, 1, 3)
    if lay == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, n, h // n).transpose(0, 2, 1, 3)
    s, b, h = x.shape
    return x.reshape(s, b, n, h // n).transpose(1, 2, 0, 3)


def from_bnsd(x, lay):
    b, n, s, d = x.shape
    if lay == "BNSD":
        return x
    if lay == "BSND":
        return x.transpose(0, 2, 1, 3)
    if lay == "BSH":
        return x.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    return x.transpose(2, 0, 1, 3).reshape(s, b, n * d)


def compute(op, t, ints, dbl):
    lay, n1 = LAYOUTS[ints["inputLayout"]], ints["headNum"]
    q = to_bnsd(t["query"].value(), lay, n1)
    d = q.shape[3]
    n2 = (t["key"].value().shape[2] // d) if lay in ("BSH", "SBH") else to_bnsd(t["key"].value(), lay, 0).shape[1]
    k = to_bnsd(t["key"].value(), lay, n2)
    v = to_bnsd(t["value"].value(), lay, n2)
    g = n1 // n2
    ke, ve = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = np.einsum("bnid,bnjd->bnij", q, ke) * float(np.float32(dbl["scaleValue"]))
    if "attenMaskOptional" in t:
        m = t["attenMaskOptional"].value() != 0
        s = np.where(np.broadcast_to(m, s.shape), -FLT_MAX, s)
    if op == "FlashAttentionScore":
        mx = s.max(-1)
        e = np.exp(s - mx[..., None])
        sm = e.sum(-1)
        out = np.einsum("bnij,bnjd->bnid", e / sm[..., None], ve)
        rep = lambda a: np.repeat(a[..., None], 8, axis=-1)  # noqa: E731
        return {"attentionOutOut": from_bnsd(out, lay), "softmaxMaxOut": rep(mx), "softmaxSumOut": rep(sm)}
    mx = t["softmaxMaxOptional"].value()[..., 0]
    sm = t["softmaxSumOptional"].value()[..., 0]
    p = np.exp(s - mx[..., None]) / sm[..., None]
    dy = to_bnsd(t["dy"].value(), lay, n1)
    o = to_bnsd(t["attentionInOptional"].value(), lay, n1)
    dd = (dy * o).sum(-1, keepdims=True)
    ds = p * (np.einsum("bnid,bnjd->bnij", dy, ve) - dd)
    scale = float(np.float32(dbl["scaleValue"]))
    dq = scale * np.einsum("bnij,bnjd->bnid", ds, ke)
    dk = scale * np.einsum("bnij,bnid->bnjd", ds, q)
    dv = np.einsum("bnij,bnid->bnjd", p, dy)
    fold = lambda a: a.reshape(a.shape[0], n2, g, *a.shape[2:]).sum(2)  # noqa: E731
    return {"dqOut": from_bnsd(dq, lay), "dkOut": from_bnsd(fold(dk), lay), "dvOut": from_bnsd(fold(dv), lay)}


def check_case(d):
    t, ints, dbl, exp, op, problems = {}, {}, {}, [], None, []
    with open(os.path.join(d, "case.txt"), encoding="utf-8") as f:
        for line in f:
            tok = line.split()
            if tok[0] == "op":
                op = tok[1]
            elif tok[0] == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif tok[0] == "int":
                ints[tok[1]] = int(tok[2])
            elif tok[0] == "double":
                dbl[tok[1]] = float(tok[2])
            elif tok[0] == "expect":
                exp.append(tok[1:])
            elif tok[0] != "none":
                raise ValueError(f"unknown line kind {tok[0]}")
    ref = compute(op, t, ints, dbl)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        w = np.asarray(ref[role], dtype=np.float64)
        if w.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {w.shape}")
            continue
        ok = np.abs(got - w) <= float(atol) + float(rtol) * np.abs(w)
        if not ok.all():
            bad = np.argwhere(~ok)[0]
            problems.append(f"{role}: {int((~ok).sum())} elements off, e.g. {got[tuple(bad)]} vs {w[tuple(bad)]}")
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
