#!/usr/bin/env python3
"""PyTorch ground truth for the attention batch of the third aclnn operator
set (issue 20): FlashAttentionScore and FlashAttentionScoreGrad.

Writes one directory per case under ascendcl/tests/goldens/attention/<case>/
in the manifest format of the second set (helpers imported from the first
two sets' scripts). Layout codes (`int inputLayout`): 0 BSH, 1 SBH, 2 BSND,
3 BNSD. The attenMask is CANN's: true = masked (PyTorch's boolean attn_mask
inverted).

Expectations: the attention output from
torch.nn.functional.scaled_dot_product_attention on the inputs upcast
exactly to f32 (CPU, one thread), rounded once to the input dtype; CANN's
softmaxMax/softmaxSum ([B, N, S1, 8] f32, the row's max of the scaled
masked scores and sum of exp(score - max), repeated 8 times) from the same
f32 scores; the gradients from torch autograd through that f32
scaled_dot_product_attention, rounded once. GQA cases expand key/value over
the group (repeat_interleave), so autograd sums dk/dv over it.

    python3 scripts/goldens/make_op_goldens_attention.py    # rewrites attention/
    python3 scripts/goldens/check_op_goldens_attention.py   # NumPy only

TOLERANCES (|actual - expected| <= atol + rtol*|expected|), the second
set's "accum" rule (f32 rtol 1e-5 atol 1e-6, f16 1e-3/1e-3, bf16 1e-2/1e-2)
with atol raised to rtol * S, S the largest sum of absolute terms making an
element (computed in double):
  attention out   max |v| (a convex combination of value rows)
  softmaxMax      max |score|; softmaxSum  S2 (a sum of at most S2 terms <= 1)
  dv              max_j sum_i P_ij |dy_i|
  dq, dk          scale * max sum |dS| |k| (or |q|), |dS| <= P (|dP| + |D|)
f32 statistics get the f32 rule whatever the input dtype.
"""

import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402
import make_op_goldens2 as g2  # noqa: E402

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "attention")
DTYPES = g1.DTYPES
Rng = g1.Rng
layout = g2.layout
accum = g2.accum
CASES = {}
LAYOUTS = {"BSH": 0, "SBH": 1, "BSND": 2, "BNSD": 3}


class Case(g2.Case):
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


# name, dtype, layout, B, N1, N2, S1, S2, D, mask ("none", "causal", "random_b1", "bnss"), q scale
SPECS = [
    ("f32_bnsd_no_mask", "f32", "BNSD", 2, 2, 2, 4, 5, 8, "none", 1.0),
    ("f32_bsh_causal", "f32", "BSH", 2, 2, 2, 5, 5, 4, "causal", 1.0),
    ("f32_sbh_causal", "f32", "SBH", 1, 2, 2, 4, 4, 4, "causal", 1.0),
    ("f32_bsnd_random_mask_b1ss", "f32", "BSND", 2, 2, 2, 3, 6, 4, "random_b1", 1.0),
    ("f32_gqa_bnsd_causal", "f32", "BNSD", 1, 4, 2, 4, 4, 8, "causal", 1.0),
    ("f32_mqa_bsh_bnss_mask", "f32", "BSH", 1, 3, 1, 3, 4, 4, "bnss", 1.0),
    ("f32_large_scores", "f32", "BNSD", 1, 1, 1, 4, 4, 8, "causal", 30.0),
    ("f16_bnsd_causal", "f16", "BNSD", 2, 2, 2, 4, 4, 8, "causal", 1.0),
    ("f16_bsh_gqa", "f16", "BSH", 1, 4, 2, 3, 5, 8, "none", 1.0),
    ("bf16_bnsd_causal", "bf16", "BNSD", 1, 2, 2, 5, 5, 8, "causal", 1.0),
    ("bf16_bsh_random_mask", "bf16", "BSH", 2, 2, 2, 4, 4, 4, "random_b1", 1.0),
]


def to_bnsd(x, lay, n):
    """A layout's tensor as [B, N, S, D]."""
    if lay == "BNSD":
        return x
    if lay == "BSND":
        return x.permute(0, 2, 1, 3)
    if lay == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, n, h // n).permute(0, 2, 1, 3)
    s, b, h = x.shape
    return x.reshape(s, b, n, h // n).permute(1, 2, 0, 3)


def from_bnsd(x, lay):
    b, n, s, d = x.shape
    if lay == "BNSD":
        return x.contiguous()
    if lay == "BSND":
        return x.permute(0, 2, 1, 3).contiguous()
    if lay == "BSH":
        return x.permute(0, 2, 1, 3).reshape(b, s, n * d).contiguous()
    return x.permute(2, 0, 1, 3).reshape(s, b, n * d).contiguous()


def make_inputs(cname, dt, lay, B, N1, N2, S1, S2, D, mask_kind, qscale):
    r = Rng(cname)
    q4 = r.normal((B, N1, S1, D), "f32") * qscale
    k4 = r.normal((B, N2, S2, D), "f32")
    v4 = r.normal((B, N2, S2, D), "f32")
    q4, k4, v4 = (t.to(DTYPES[dt]).float() for t in (q4, k4, v4))  # exact in dt
    if mask_kind == "none":
        mask = None
    elif mask_kind == "causal":
        mask = torch.ones(S1, S2, dtype=torch.bool).triu(1)
    else:
        shape = (B, 1, S1, S2) if mask_kind == "random_b1" else (B, N1, S1, S2)
        mask = torch.rand(shape, generator=r.g) < 0.4
        mask[..., 0] = False  # no row wholly masked (CANN and PyTorch differ there)
    return q4, k4, v4, mask, r


def reference(q4, k4, v4, mask, scale, N1, N2):
    """f32 attention, its statistics and the grad graph (inputs require grad)."""
    g = N1 // N2
    q, k, v = (t.clone().requires_grad_(True) for t in (q4, k4, v4))
    ke, ve = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
    allowed = None if mask is None else ~mask
    out = F.scaled_dot_product_attention(q, ke, ve, attn_mask=allowed, scale=scale)
    s = (q.detach() @ ke.detach().transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(mask, -torch.finfo(torch.float32).max)
    mx = s.max(dim=-1).values
    sm = torch.exp(s - mx[..., None]).sum(dim=-1)
    return q, k, v, out, mx, sm


def expand8(t):
    return t[..., None].expand(*t.shape, 8).contiguous()


def common(c, cname, dt, lay, N1, scale, mask):
    c.int_("headNum", N1)
    c.int_("inputLayout", LAYOUTS[lay])
    c.double("scaleValue", scale)
    c.double("keepProb", 1.0)
    c.int_("preTokens", 2147483647)
    c.int_("nextTokens", 2147483647)
    c.int_("sparseMode", 0)
    c.int_("innerPrecise", 0)
    c.tensor("attenMaskOptional", layout(mask, "contig") if mask is not None else None)


def cases():
    for name, dt, lay, B, N1, N2, S1, S2, D, mk, qs in SPECS:
        scale = 1.0 / math.sqrt(D)
        for op in ("FlashAttentionScore", "FlashAttentionScoreGrad"):
            cname = f"{op.lower()}_{name}"
            q4, k4, v4, mask, r = make_inputs(f"fa_{name}", dt, lay, B, N1, N2, S1, S2, D, mk, qs)
            q, k, v, out, mx, sm = reference(q4, k4, v4, mask, scale, N1, N2)
            T = DTYPES[dt]
            Q, K, V = (layout(from_bnsd(t.detach(), lay).to(T), "contig") for t in (q4, k4, v4))
            c = Case(cname, op)
            c.tensor("query", Q)
            c.tensor("key", K)
            c.tensor("value", V)
            common(c, cname, dt, lay, N1, scale, mask)
            if op == "FlashAttentionScore":
                c.expect("attentionOutOut", from_bnsd(out.detach(), lay).to(T), *accum(dt, g2.absmax(v4)))
                c.expect("softmaxMaxOut", expand8(mx), *accum("f32", g2.absmax(mx)))
                c.expect("softmaxSumOut", expand8(sm), *accum("f32", S2))
                continue
            dy4 = r.normal((B, N1, S1, D), dt).float()
            out.backward(dy4)
            o_t = from_bnsd(out.detach(), lay).to(T)
            c.tensor("dy", layout(from_bnsd(dy4, lay).to(T), "contig"))
            c.tensor("softmaxMaxOptional", layout(expand8(mx), "contig"))
            c.tensor("softmaxSumOptional", layout(expand8(sm), "contig"))
            # the forward's output as the device gives it (rounded to dt)
            c.tensor("attentionInOptional", layout(o_t, "contig"))
            g = N1 // N2
            ke = k4.double().repeat_interleave(g, dim=1)
            ve = v4.double().repeat_interleave(g, dim=1)
            s = (q4.double() @ ke.transpose(-1, -2)) * scale
            if mask is not None:
                s = s.masked_fill(mask, float("-inf"))
            P = torch.softmax(s, dim=-1)
            dP = dy4.double() @ ve.transpose(-1, -2)
            Dd = (dy4.double() * out.detach().double()).sum(-1, keepdim=True)
            dS_abs = P * (dP.abs() + Dd.abs())
            s_dv = (P.transpose(-1, -2) @ dy4.double().abs()).max().item() * g
            s_dq = scale * (dS_abs @ ke.abs()).max().item()
            s_dk = scale * (dS_abs.transpose(-1, -2) @ q4.double().abs()).max().item() * g
            c.expect("dqOut", from_bnsd(q.grad, lay).to(T), *accum(dt, s_dq))
            c.expect("dkOut", from_bnsd(k.grad, lay).to(T), *accum(dt, s_dk))
            c.expect("dvOut", from_bnsd(v.grad, lay).to(T), *accum(dt, s_dv))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cases()
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
        f.write(f"# generated by scripts/goldens/make_op_goldens_attention.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    print(f"{sum(counts.values())} cases in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
