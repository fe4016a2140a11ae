#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/ops/ the way a consumer of the
format must (manifest, storage files, strided views, bf16 bit patterns) and
recomputes each expectation independently, in float64 with NumPy only, from
the aclnn formula of the op. Checks the written expectation against it with
the case's own tolerance. This checks that the files follow the format (a
wrong stride, offset or role shows up as a mismatch) and that the PyTorch
results mean what the README says they mean. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens.py
"""

import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops")

NPY_DTYPE = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "f64": "<f8", "i32": "<i4", "i64": "<i8", "u8": "|u1",
             "bool": "|b1"}


def decode(arr, dt):
    """Storage array -> float64 (floats) or int64 (ints) values."""
    assert arr.dtype == np.dtype(NPY_DTYPE[dt]), (arr.dtype, dt)
    if dt == "bf16":
        return (arr.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dt in ("f32", "f16", "f64"):
        return arr.astype(np.float64)
    return arr.astype(np.int64)


def round_to(x, dt):
    """float64 -> the value in dt (round to nearest even), back as float64."""
    if dt == "f32":
        return x.astype(np.float32).astype(np.float64)
    if dt == "f16":
        return x.astype(np.float16).astype(np.float64)
    if dt == "bf16":
        f = np.asarray(x, dtype=np.float32)
        b = f.view(np.uint32).astype(np.uint64)
        rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
        return rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    if dt in ("i32", "i64"):
        return np.trunc(x).astype(np.int64)
    return x


class T:
    """A tensor from the manifest: storage values plus its view."""

    def __init__(self, d, toks):
        self.dt = toks[0]
        self.storage_arr = np.load(os.path.join(d, toks[1]), allow_pickle=False)
        self.storage = decode(self.storage_arr, self.dt)
        self.view = None
        if len(toks) > 2:
            assert toks[2] == "view" and toks[4] == "strides" and toks[6] == "offset", toks
            shape = tuple(int(v) for v in toks[3].split(",") if v)
            strides = tuple(int(v) for v in toks[5].split(",") if v)
            off = int(toks[7])
            n = self.storage.size
            last = off + sum((s_ - 1) * st for s_, st in zip(shape, strides))
            assert 0 <= off and last < n, ("view out of bounds", shape, strides, off, n)
            self.view = (shape, strides, off)

    def flat_indices(self):
        if self.view is None:
            return np.arange(self.storage.size).reshape(self.storage.shape)
        shape, strides, off = self.view
        idx = np.full(shape, off, dtype=np.int64)
        for ax, (n, st) in enumerate(zip(shape, strides)):
            sh = [1] * len(shape)
            sh[ax] = n
            idx = idx + (np.arange(n) * st).reshape(sh)
        return idx

    def value(self):
        return self.storage.reshape(-1)[self.flat_indices()]

    def write(self, values):
        """In-place op: a new storage with the view's elements replaced."""
        s = self.storage.reshape(-1).copy()
        idx = self.flat_indices()
        s[idx.reshape(-1)] = np.broadcast_to(values, idx.shape).reshape(-1)
        return s.reshape(self.storage.shape)


def log_softmax(x, dim):
    m = np.max(x, axis=dim, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = x - m
        return z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True))


def compute(op, t, sc, ints, bools, dts):
    """The reference, in float64: {role: (values, result dtype)}."""
    def alpha():
        return sc.get("alpha", 1.0)

    if op in ("Add", "Sub"):
        a, b = t["self"].value(), t["other"].value()
        sign = 1 if op == "Add" else -1
        return {"out": a + sign * alpha() * b}
    if op == "Mul":
        return {"out": t["self"].value() * t["other"].value()}
    if op == "Adds":
        return {"out": t["self"].value() + alpha() * sc["other"]}
    if op == "Muls":
        return {"out": t["self"].value() * sc["other"]}
    if op == "InplaceMuls":
        s = t["selfRef"]
        return {"selfRef": s.write(round_to(s.value() * sc["other"], s.dt))}
    if op == "InplaceAdd":
        s = t["selfRef"]
        return {"selfRef": s.write(round_to(s.value() + alpha() * t["other"].value(), s.dt))}
    if op == "InplaceSub":
        s = t["selfRef"]
        return {"selfRef": s.write(round_to(s.value() - alpha() * t["other"].value(), s.dt))}
    if op == "InplaceAddmm":
        s = t["selfRef"]
        mm = t["mat1"].value() @ t["mat2"].value()
        beta = sc["beta"]
        base = 0.0 if beta == 0 else beta * s.value()
        return {"selfRef": s.write(round_to(base + sc["alpha"] * mm, s.dt))}
    if op == "Relu":
        return {"out": np.maximum(t["self"].value(), 0.0)}
    if op == "ThresholdBackward":
        g, x = t["gradOutput"].value(), t["self"].value()
        return {"out": np.where(x > sc["threshold"], g, 0.0)}
    if op == "LogSoftmax":
        return {"out": log_softmax(t["self"].value(), ints["dim"])}
    if op == "LogSoftmaxBackward":
        g, o, d = t["gradOutput"].value(), t["output"].value(), ints["dim"]
        return {"out": g - np.exp(o) * np.sum(g, axis=d, keepdims=True)}
    if op in ("NLLLoss", "NLLLossBackward"):
        x, tgt, w = t["self"].value(), t["target"].value(), t["weight"].value()
        red, ign = ints["reduction"], ints["ignoreIndex"]
        shape = x.shape
        if x.ndim == 1:
            x, tgt = x[None, :], tgt.reshape(1)
        keep = tgt != ign
        safe = np.where(keep, tgt, 0)
        wn = np.where(keep, w[safe], 0.0)
        tw = wn.sum()
        if op == "NLLLoss":
            per = -wn * x[np.arange(x.shape[0]), safe]
            if red == 0:
                out = per
            elif red == 1:
                with np.errstate(invalid="ignore", divide="ignore"):
                    out = np.array(per.sum() / tw)
            else:
                out = np.array(per.sum())
            return {"out": out, "totalWeightOut": np.array(tw)}
        g = t["gradOutput"].value().reshape(-1)
        twi = t["totalWeight"].value().reshape(-1)[0]
        grad = np.zeros_like(x)
        for n in range(x.shape[0]):
            if not keep[n]:
                continue
            gn = g[n] if red == 0 else g[0]
            v = -wn[n] * gn
            if red == 1:
                with np.errstate(invalid="ignore", divide="ignore"):
                    v = v / twi
            grad[n, safe[n]] = v
        return {"out": grad.reshape(shape)}
    if op in ("Mm", "Matmul"):
        return {"out": np.matmul(t["self"].value(), t["mat2"].value())}
    if op == "Addmm":
        mm = t["mat1"].value() @ t["mat2"].value()
        beta = sc["beta"]
        base = 0.0 if beta == 0 else beta * t["self"].value()
        return {"out": base + sc["alpha"] * mm}
    if op == "ReduceSum":
        x = t["self"].value()
        dims = tuple(d % x.ndim for d in ints_arr["dims"])
        return {"out": np.sum(x, axis=dims, keepdims=bools["keepDims"])}
    if op == "ArgMax":
        x = t["self"].value()
        return {"out": np.argmax(x, axis=ints["dim"], keepdims=bools["keepdim"])}
    if op == "Cast":
        return {"out": t["self"].value()}
    if op == "InplaceCopy":
        s, src = t["selfRef"], t["src"]
        shape = s.flat_indices().shape
        return {"selfRef": s.write(round_to(np.broadcast_to(src.value(), shape), s.dt))}
    if op == "InplaceZero":
        return {"selfRef": t["selfRef"].write(0.0)}
    if op == "InplaceFillScalar":
        s = t["selfRef"]
        return {"selfRef": s.write(round_to(np.array(sc["value"]), s.dt))}
    raise ValueError(op)


def promote(a, b):
    order = ["i32", "i64", "bf16", "f16", "f32"]
    return max(a, b, key=order.index)


ints_arr = {}


def check_case(d):
    global ints_arr
    t, sc, ints, bools, dts, exp = {}, {}, {}, {}, {}, []
    ints_arr = {}
    op = None
    with open(os.path.join(d, "case.txt"), encoding="utf-8") as f:
        for line in f:
            tok = line.split()
            if not tok:
                continue
            kind = tok[0]
            if kind == "op":
                op = tok[1]
            elif kind == "tensor":
                t[tok[1]] = T(d, tok[2:])
            elif kind == "scalar":
                sc[tok[1]] = int(tok[3]) if tok[2] == "i64" else float(tok[3])
            elif kind == "int":
                ints[tok[1]] = int(tok[2])
            elif kind == "bool":
                assert tok[2] in ("0", "1")
                bools[tok[1]] = tok[2] == "1"
            elif kind == "ints":
                ints_arr[tok[1]] = [int(v) for v in tok[2].split(",")]
            elif kind == "dtype":
                dts[tok[1]] = tok[2]
            elif kind == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {kind}")
    ref = compute(op, t, sc, ints, bools, dts)
    problems = []
    for role, dt, fname, rtol, atol in exp:
        arr = np.load(os.path.join(d, fname), allow_pickle=False)
        got = decode(arr, dt)
        want = ref[role]
        if op == "Cast" or (op == "InplaceCopy" and dt in ("i32", "i64")):
            want = round_to(np.asarray(want, dtype=np.float64), dt)
        want = np.asarray(want)
        if role != "selfRef" and want.shape != got.shape:
            if want.size == got.size == 1:
                want = want.reshape(got.shape)  # reduced NLL outputs: () or (1,)
            else:
                problems.append(f"{role}: shape {got.shape} != reference {want.shape}")
                continue
        if role == "selfRef" and want.shape != got.shape:
            problems.append(f"{role}: storage shape {got.shape} != {want.shape}")
            continue
        if dt in ("i32", "i64") and op != "Cast":
            rtol = atol = 0.0
        rtol, atol = float(rtol), float(atol)
        g, w = got.astype(np.float64), want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w)
        same_inf = np.isinf(g) & (g == w)
        with np.errstate(invalid="ignore"):
            ok = both_nan | same_inf | (np.abs(g - w) <= atol + rtol * np.abs(w))
        if not ok.all():
            bad = np.argwhere(~ok)[:3]
            problems.append(f"{role}: {int((~ok).sum())} elements off, e.g. at {bad.tolist()}: "
                            f"{g[tuple(bad[0])]} vs reference {w[tuple(bad[0])]} (rtol {rtol}, atol {atol})")
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
