#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/ops2/ the way a consumer of
the format must (manifest, storage files, strided views, bf16 bit patterns,
`none`, empty `ints`, `unchecked`), checks that the manifest's lines follow
the op's aclnn parameter list, and recomputes each expectation independently
in float64 with NumPy only:

  Convolution / ConvolutionBackward   explicit loops over groups and kernel
                                      taps, 1-, 2- and 3-D (transposed
                                      convolution as the adjoint of the
                                      direct one)
  BatchNorm / BatchNormBackward       the doc formulas (saveInvstd = biased
                                      batch variance, A2/A3 convention)
  MaxPool2dWithIndices (+Backward)    window loops, first maximum wins,
                                      index h*W + w; scatter-add by indices
  AdaptiveAvgPool2d (+Backward)       PyTorch's floor/ceil bins
  UpsampleBicubic2d (+Backward),      per-axis interpolation matrices
  UpsampleBilinear2d                  (cubic A = -0.75)

and checks the written expectation against it with the case's own
tolerance. It ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens2.py
"""

import itertools
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops2")

# aclnn phase-1 parameter lists (CANN 8.5.0, hicann/ops-nn and ops-cv)
PARAMS = {
    "Convolution": "input weight bias stride padding dilation transposed outputPadding groups output cubeMathType",
    "ConvolutionBackward": "gradOutput input weight biasSizes stride padding dilation transposed outputPadding "
                           "groups outputMask cubeMathType gradInput gradWeight gradBias",
    "BatchNorm": "input weight bias runningMean runningVar training momentum eps output saveMean saveInvstd",
    "BatchNormBackward": "gradOut input weight runningMean runningVar saveMean saveInvstd training eps outputMask "
                         "gradInput gradWeight gradBias",
    "MaxPool2dWithIndices": "self kernelSize stride padding dilation ceilMode out indices",
    "MaxPool2dWithIndicesBackward": "gradOutput self indices kernelSize stride padding dilation ceilMode gradInput",
    "AdaptiveAvgPool2d": "self outputSize out",
    "AdaptiveAvgPool2dBackward": "gradOutput self out",
    "UpsampleBicubic2d": "self outputSize alignCorners scalesH scalesW out",
    "UpsampleBicubic2dBackward": "gradOut outputSize inputSize alignCorners scalesH scalesW gradInput",
    "UpsampleBilinear2d": "self outputSize alignCorners scalesH scalesW out",
}
# kinds allowed per parameter name (outputs: expect/none/unchecked)
KIND = {
    "stride": "ints", "padding": "ints", "dilation": "ints", "outputPadding": "ints", "kernelSize": "ints",
    "outputSize": "ints", "inputSize": "ints", "biasSizes": "ints", "outputMask": "bools",
    "transposed": "bool", "training": "bool", "ceilMode": "bool", "alignCorners": "bool",
    "groups": "int", "cubeMathType": "int", "momentum": "double", "eps": "double", "scalesH": "double",
    "scalesW": "double",
}
OUTPUTS = {
    "Convolution": {"output"},
    "ConvolutionBackward": {"gradInput", "gradWeight", "gradBias"},
    "BatchNorm": {"output", "saveMean", "saveInvstd"},
    "BatchNormBackward": {"gradInput", "gradWeight", "gradBias"},
    "MaxPool2dWithIndices": {"out", "indices"},
    "MaxPool2dWithIndicesBackward": {"gradInput"},
    "AdaptiveAvgPool2d": {"out"},
    "AdaptiveAvgPool2dBackward": {"out"},
    "UpsampleBicubic2d": {"out"},
    "UpsampleBicubic2dBackward": {"gradInput"},
    "UpsampleBilinear2d": {"out"},
}
INPLACE = {"BatchNorm": ("runningMean", "runningVar")}


# ---------------------------------------------------------------------------
# Convolution by loops over groups and kernel taps
# ---------------------------------------------------------------------------
def as3d(x):
    """NCL -> NC11L, NCHW -> NC1HW; NCDHW unchanged."""
    while x.ndim < 5:
        x = x[:, :, None]
    return x


def p3(v, fill):
    v = list(v)
    return [fill] * (3 - len(v)) + v


def conv_out(i, k, s, p, d):
    return (i + 2 * p - d * (k - 1) - 1) // s + 1


def taps(w, s, d, osp):
    """Every kernel tap (kd, kh, kw) with the strided slices of the padded
    input it reads for the output's spatial shape osp."""
    for k in itertools.product(*(range(n) for n in w.shape[2:])):
        yield k, tuple(slice(k[j] * d[j], k[j] * d[j] + s[j] * (osp[j] - 1) + 1, s[j]) for j in range(3))


def conv3d(x, w, s, p, d, g):
    """Direct convolution (cross-correlation). x [N,C,D,H,W], w [Co,C/g,kd,kh,kw]."""
    N, C = x.shape[:2]
    Co, Cg = w.shape[:2]
    osp = [conv_out(x.shape[2 + j], w.shape[2 + j], s[j], p[j], d[j]) for j in range(3)]
    xp = np.zeros((N, C) + tuple(x.shape[2 + j] + 2 * p[j] for j in range(3)))
    xp[(slice(None), slice(None)) + tuple(slice(p[j], p[j] + x.shape[2 + j]) for j in range(3))] = x
    y = np.zeros((N, Co) + tuple(osp))
    cog = Co // g
    for gi in range(g):
        for k, sl in taps(w, s, d, osp):
            patch = xp[(slice(None), slice(gi * Cg, (gi + 1) * Cg)) + sl]
            y[:, gi * cog:(gi + 1) * cog] += np.einsum("ncdhw,oc->nodhw", patch, w[(slice(gi * cog, (gi + 1) * cog), slice(None)) + k])
    return y


def conv3d_adj_x(gy, w, xshape, s, p, d, g):
    """Adjoint of conv3d with respect to x (scatter of gy through the taps)."""
    N, C = xshape[:2]
    Co, Cg = w.shape[:2]
    osp = gy.shape[2:]
    # room for every tap, also taps that land beyond the input (dropped)
    room = tuple(max(xshape[2 + j] + 2 * p[j], s[j] * (osp[j] - 1) + d[j] * (w.shape[2 + j] - 1) + 1) for j in range(3))
    gp = np.zeros((N, C) + room)
    cog = Co // g
    for gi in range(g):
        for k, sl in taps(w, s, d, osp):
            gp[(slice(None), slice(gi * Cg, (gi + 1) * Cg)) + sl] += \
                np.einsum("nodhw,oc->ncdhw", gy[:, gi * cog:(gi + 1) * cog], w[(slice(gi * cog, (gi + 1) * cog), slice(None)) + k])
    return gp[(slice(None), slice(None)) + tuple(slice(p[j], p[j] + xshape[2 + j]) for j in range(3))]


def conv3d_adj_w(gy, x, wshape, s, p, d, g):
    N, C = x.shape[:2]
    Co, Cg = wshape[:2]
    osp = gy.shape[2:]
    xp = np.zeros((N, C) + tuple(x.shape[2 + j] + 2 * p[j] + s[j] * osp[j] + d[j] * wshape[2 + j] for j in range(3)))
    xp[(slice(None), slice(None)) + tuple(slice(p[j], p[j] + x.shape[2 + j]) for j in range(3))] = x
    gw = np.zeros(wshape)
    cog = Co // g
    for gi in range(g):
        for k, sl in taps(np.zeros(wshape), s, d, osp):
            patch = xp[(slice(None), slice(gi * Cg, (gi + 1) * Cg)) + sl]
            gw[(slice(gi * cog, (gi + 1) * cog), slice(None)) + k] = np.einsum("nodhw,ncdhw->oc", gy[:, gi * cog:(gi + 1) * cog], patch)
    return gw


def conv_params(ia):
    return p3(ia["stride"], 1), p3(ia["padding"], 0), p3(ia["dilation"], 1), p3(ia["outputPadding"], 0)


def flat(y, nd):
    """Drops the size-1 leading spatial dims as3d added to an nd-D value."""
    return y.reshape(y.shape[:2] + y.shape[5 - (nd - 2):])


def convolution(t, ia, b, i):
    nd = t["input"].value().ndim
    x, w = as3d(t["input"].value()), as3d(t["weight"].value())
    s, p, d, op = conv_params(ia)
    g = i["groups"]
    if not b["transposed"]:
        y = conv3d(x, w, s, p, d, g)
    else:
        # transposed: the adjoint of the direct convolution that maps the
        # output space back to the input (weight [Cin, Cout/g, k..])
        co = w.shape[1] * g
        osp = tuple((x.shape[2 + j] - 1) * s[j] - 2 * p[j] + d[j] * (w.shape[2 + j] - 1) + op[j] + 1 for j in range(3))
        y = conv3d_adj_x(x, w, (x.shape[0], co) + osp, s, p, d, g)
    if "bias" in t:
        y = y + t["bias"].value()[None, :, None, None, None]
    return {"output": flat(y, nd)}


def convolution_backward(t, ia, b, i):
    nd = t["input"].value().ndim
    gy, x, w = as3d(t["gradOutput"].value()), as3d(t["input"].value()), as3d(t["weight"].value())
    s, p, d, op = conv_params(ia)
    g = i["groups"]
    if not b["transposed"]:
        gx = conv3d_adj_x(gy, w, x.shape, s, p, d, g)
        gw = conv3d_adj_w(gy, x, w.shape, s, p, d, g)
    else:
        gx = conv3d(gy, w, s, p, d, g)
        gw = conv3d_adj_w(x, gy, w.shape, s, p, d, g)
    gb = gy.sum(axis=(0, 2, 3, 4))
    return {"gradInput": flat(gx, nd), "gradWeight": flat(gw, nd), "gradBias": gb}


# ---------------------------------------------------------------------------
# BatchNorm
# ---------------------------------------------------------------------------
def chan(v, nd):
    return v.reshape((1, -1) + (1,) * (nd - 2))


def batch_norm(t, dbl, b):
    x = t["input"].value()
    nd, C = x.ndim, x.shape[1]
    axes = (0,) + tuple(range(2, nd))
    n = x.size // C
    w = t["weight"].value() if "weight" in t else np.ones(C)
    bias = t["bias"].value() if "bias" in t else np.zeros(C)
    eps, mom = dbl["eps"], dbl["momentum"]
    res = {}
    if b["training"]:
        mean = x.mean(axis=axes)
        var = ((x - chan(mean, nd)) ** 2).mean(axis=axes)
        res["saveMean"], res["saveInvstd"] = mean, var  # A2/A3: the variance
        if "runningMean" in t:
            res["runningMean"] = t["runningMean"].write((1 - mom) * t["runningMean"].value() + mom * mean)
            res["runningVar"] = t["runningVar"].write((1 - mom) * t["runningVar"].value() + mom * var * n / (n - 1))
    else:
        mean, var = t["runningMean"].value(), t["runningVar"].value()
        res["runningMean"] = t["runningMean"].storage
        res["runningVar"] = t["runningVar"].storage
    res["output"] = (x - chan(mean, nd)) / np.sqrt(chan(var, nd) + eps) * chan(w, nd) + chan(bias, nd)
    return res


def batch_norm_backward(t, dbl, b):
    g, x = t["gradOut"].value(), t["input"].value()
    nd, C = x.ndim, x.shape[1]
    axes = (0,) + tuple(range(2, nd))
    n = x.size // C
    w = t["weight"].value() if "weight" in t else np.ones(C)
    eps = dbl["eps"]
    if b["training"]:
        mean, var = t["saveMean"].value(), t["saveInvstd"].value()  # saveInvstd holds the variance
    else:
        mean, var = t["runningMean"].value(), t["runningVar"].value()
    inv = 1.0 / np.sqrt(var + eps)
    xhat = (x - chan(mean, nd)) * chan(inv, nd)
    sg = g.sum(axis=axes)
    sgx = (g * xhat).sum(axis=axes)
    if b["training"]:
        gx = chan(w * inv / n, nd) * (n * g - chan(sg, nd) - xhat * chan(sgx, nd))
    else:
        gx = g * chan(w * inv, nd)
    return {"gradInput": gx, "gradWeight": sgx, "gradBias": sg}


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------
def pool_out(i, k, s, p, d, ceil):
    num = i + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1  # the last window must start inside the input or left padding
    return o


def pool_params(ia):
    k = ia["kernelSize"]
    s = ia["stride"] or k
    return k, s, ia["padding"], ia["dilation"]


def max_pool(t, ia, b):
    x = t["self"].value()
    x4 = x if x.ndim == 4 else x[None]
    k, s, p, d = pool_params(ia)
    N, C, H, W = x4.shape
    OH, OW = pool_out(H, k[0], s[0], p[0], d[0], b["ceilMode"]), pool_out(W, k[1], s[1], p[1], d[1], b["ceilMode"])
    out = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    best, bi = -np.inf, -1
                    for kh in range(k[0]):
                        h = oh * s[0] - p[0] + kh * d[0]
                        if not 0 <= h < H:
                            continue
                        for kw in range(k[1]):
                            w_ = ow * s[1] - p[1] + kw * d[1]
                            if 0 <= w_ < W and (x4[n, c, h, w_] > best or bi < 0):
                                best, bi = x4[n, c, h, w_], h * W + w_
                    out[n, c, oh, ow], idx[n, c, oh, ow] = best, bi
    if x.ndim == 3:
        out, idx = out[0], idx[0]
    return {"out": out, "indices": idx}


def max_pool_backward(t, ia, b):
    x = t["self"].value()
    g, idx = t["gradOutput"].value(), t["indices"].value()
    k, s, p, d = pool_params(ia)
    H, W = x.shape[-2:]
    OH = pool_out(H, k[0], s[0], p[0], d[0], b["ceilMode"])
    OW = pool_out(W, k[1], s[1], p[1], d[1], b["ceilMode"])
    assert g.shape[-2:] == (OH, OW) and idx.shape == g.shape, (g.shape, idx.shape, OH, OW)
    gi = np.zeros(x.shape).reshape(-1, H * W)
    gf, idf = g.reshape(gi.shape[0], -1), idx.reshape(gi.shape[0], -1)
    for r in range(gi.shape[0]):
        np.add.at(gi[r], idf[r], gf[r])
    return {"gradInput": gi.reshape(x.shape)}


def adaptive_matrix(i, o):
    m = np.zeros((o, i))
    for a in range(o):
        lo, hi = (a * i) // o, -(-((a + 1) * i) // o)
        m[a, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool(t, ia):
    x = t["self"].value()
    oh, ow = ia["outputSize"]
    mh, mw = adaptive_matrix(x.shape[-2], oh), adaptive_matrix(x.shape[-1], ow)
    return {"out": np.einsum("ah,...hw,bw->...ab", mh, x, mw)}


def adaptive_avg_pool_backward(t):
    x, g = t["self"].value(), t["gradOutput"].value()
    mh, mw = adaptive_matrix(x.shape[-2], g.shape[-2]), adaptive_matrix(x.shape[-1], g.shape[-1])
    return {"out": np.einsum("ah,...ab,bw->...hw", mh, g, mw)}


# ---------------------------------------------------------------------------
# Upsampling
# ---------------------------------------------------------------------------
A = -0.75


def cubic_weights(tt):
    def c1(x):  # |x| <= 1
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):  # 1 < |x| < 2
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    return [c2(tt + 1), c1(tt), c1(1 - tt), c2(2 - tt)]


def src_scale(i, o, align, scale):
    if align:
        return (i - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / scale if scale > 0 else i / o


def interp_matrix(i, o, align, scale, mode):
    m = np.zeros((o, i))
    sc = src_scale(i, o, align, scale)
    for a in range(o):
        if align:
            src = a * sc
        else:
            src = (a + 0.5) * sc - 0.5
            if mode == "linear":
                src = max(src, 0.0)
        i0 = math.floor(src)
        tt = src - i0
        if mode == "linear":
            i1 = min(i0 + 1, i - 1)
            m[a, i0] += 1 - tt
            m[a, i1] += tt
        else:
            for k, wk in zip(range(-1, 3), cubic_weights(tt)):
                m[a, min(max(i0 + k, 0), i - 1)] += wk
    return m


def upsample(t, ia, b, dbl, mode):
    x = t["self"].value()
    oh, ow = ia["outputSize"]
    mh = interp_matrix(x.shape[2], oh, b["alignCorners"], dbl["scalesH"], mode)
    mw = interp_matrix(x.shape[3], ow, b["alignCorners"], dbl["scalesW"], mode)
    return {"out": np.einsum("ah,nchw,bw->ncab", mh, x, mw)}


def upsample_backward(t, ia, b, dbl):
    g = t["gradOut"].value()
    oh, ow = ia["outputSize"]
    N, C, H, W = ia["inputSize"]
    assert g.shape == (N, C, oh, ow), g.shape
    mh = interp_matrix(H, oh, b["alignCorners"], dbl["scalesH"], "cubic")
    mw = interp_matrix(W, ow, b["alignCorners"], dbl["scalesW"], "cubic")
    return {"gradInput": np.einsum("ah,ncab,bw->nchw", mh, g, mw)}


# ---------------------------------------------------------------------------
def compute(op, t, i, b, ia, ba, dbl):
    if op == "Convolution":
        return convolution(t, ia, b, i)
    if op == "ConvolutionBackward":
        return convolution_backward(t, ia, b, i)
    if op == "BatchNorm":
        return batch_norm(t, dbl, b)
    if op == "BatchNormBackward":
        return batch_norm_backward(t, dbl, b)
    if op == "MaxPool2dWithIndices":
        return max_pool(t, ia, b)
    if op == "MaxPool2dWithIndicesBackward":
        return max_pool_backward(t, ia, b)
    if op == "AdaptiveAvgPool2d":
        return adaptive_avg_pool(t, ia)
    if op == "AdaptiveAvgPool2dBackward":
        return adaptive_avg_pool_backward(t)
    if op == "UpsampleBicubic2d":
        return upsample(t, ia, b, dbl, "cubic")
    if op == "UpsampleBilinear2d":
        return upsample(t, ia, b, dbl, "linear")
    if op == "UpsampleBicubic2dBackward":
        return upsample_backward(t, ia, b, dbl)
    raise ValueError(op)


def check_case(d):
    t, i, b, ia, ba, dbl, exp, unchecked, nones = {}, {}, {}, {}, {}, {}, [], {}, set()
    op = None
    names = []  # (kind, name) in manifest order
    problems = []
    with open(os.path.join(d, "case.txt"), encoding="utf-8") as f:
        for line in f:
            assert line.endswith("\n") and line.strip() == line[:-1], f"stray whitespace: {line!r}"
            tok = line.split()
            kind = tok[0]
            if kind == "op":
                op = tok[1]
                continue
            names.append((kind, tok[1]))
            if kind == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif kind == "none":
                assert len(tok) == 2
                nones.add(tok[1])
            elif kind == "int":
                i[tok[1]] = int(tok[2])
            elif kind == "bool":
                assert tok[2] in ("0", "1")
                b[tok[1]] = tok[2] == "1"
            elif kind == "ints":
                ia[tok[1]] = [int(v) for v in tok[2].split(",")] if len(tok) > 2 else []
            elif kind == "bools":
                assert all(v in ("0", "1") for v in tok[2].split(","))
                ba[tok[1]] = [v == "1" for v in tok[2].split(",")]
            elif kind == "double":
                dbl[tok[1]] = float(tok[2])
            elif kind == "expect":
                exp.append(tok[1:])
            elif kind == "unchecked":
                unchecked[tok[1]] = (tok[2], tuple(int(v) for v in tok[3].split(",")))
            else:
                raise ValueError(f"unknown line kind {kind}")
    # the lines follow the aclnn parameter list; in-place results come last
    want = PARAMS[op].split()
    inplace = [n for k, n in names if k == "expect" and n in INPLACE.get(op, ())]
    seq = [n for k, n in names if not (k == "expect" and n in INPLACE.get(op, ()))]
    if seq != want:
        problems.append(f"parameter order {seq} != {want}")
    if inplace and [n for k, n in names[-len(inplace):]] != inplace:
        problems.append("in-place expectations must come last")
    for k, n in names:
        if n in KIND and k != KIND[n]:
            problems.append(f"{n}: line kind {k}, want {KIND[n]}")
        if n in OUTPUTS[op] and k not in ("expect", "none", "unchecked"):
            problems.append(f"output {n} given as {k}")
        if n not in OUTPUTS[op] and k in ("expect", "unchecked") and n not in INPLACE.get(op, ()):
            problems.append(f"input {n} given as {k}")
    # outputMask and `none` outputs agree
    if "outputMask" in ba:
        for m, role in zip(ba["outputMask"], ("gradInput", "gradWeight", "gradBias")):
            if m == (role in nones):
                problems.append(f"outputMask {ba['outputMask']} but {role} {'none' if role in nones else 'given'}")
    if op == "ConvolutionBackward":
        if ba["outputMask"][2] != bool(ia["biasSizes"]):
            problems.append("biasSizes empty iff gradBias not requested")
    b.update({k: v for k, v in ba.items()})
    ref = compute(op, t, i, b, ia, ba, dbl)
    for role, (dt, shape) in unchecked.items():
        C = t["input"].value().shape[1]
        if shape != (C,) or dt not in ("f32", "f16", "bf16"):
            problems.append(f"unchecked {role}: {dt} {shape}")
    for role, dt, fname, rtol, atol in exp:
        arr = np.load(os.path.join(d, fname), allow_pickle=False)
        got = decode(arr, dt)
        w = np.asarray(ref[role], dtype=np.float64)
        if w.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {w.shape}")
            continue
        if dt in ("i32", "i64"):
            if not np.array_equal(got, w):
                problems.append(f"{role}: indices differ at {np.argwhere(got != w)[:3].tolist()}")
            continue
        rtol, atol = float(rtol), float(atol)
        ok = np.abs(got - w) <= atol + rtol * np.abs(w)
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
