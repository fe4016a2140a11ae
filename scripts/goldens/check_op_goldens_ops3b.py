#!/usr/bin/env python3
"""Reads every case under ascendcl/tests/goldens/ops3b/ as a consumer of the
format must (manifest, storage files, strided views, bf16 bit patterns,
tensor lists as `<name>_<ii>` roles), checks that the lines follow the op's
aclnn parameter list, and recomputes each expectation independently with
NumPy only (float64 for floats, int64 for integers):

  Cat           np.concatenate of the members (1-d empty members dropped,
                as torch.cat does) along `dim`, in the promoted dtype
  SplitTensor   np.split at multiples of splitSections (the last piece
                shorter); SplitWithSize at the running sums of splitSize
  MaxDim        np.argmax along dim (the first maximum) and its value
  SWhere        np.where(condition != 0, self, other), broadcast
  MaskedFill    selfRef with value (converted to selfRef's dtype) where the
                broadcast mask is true
  Dropout*      x * bit * scale, the bits unpacked LSB first (bit i%8 of
                byte i/8), scale 1/(1-prob) (DoMask) or scale (Backward)

cast once into the output's dtype, and checks the written expectation
against it with the case's own tolerance. Ends with `N passed, N failed`. NumPy only, no torch:

    python3 scripts/goldens/check_op_goldens_ops3b.py
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_op_goldens import T, decode, round_to  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops3b")

# aclnn phase-1 parameter lists; `name*` is a tensor list (ops-math v8.5.0
# aclnn_cat.h:25-26)
PARAMS = {
    "Cat": "tensors* dim out",
    # aclnn_split_tensor.h:35-37, aclnn_split_with_size.h:36-38
    "SplitTensor": "self splitSections dim out*",
    "SplitWithSize": "self splitSize dim out*",
    # aclnn_max_dim.h:46-48
    "MaxDim": "self dim keepdim out indices",
    # aclnn_s_where.h:25-27, aclnn_masked_fill_scalar.h:55-57, aclnn_masked_fill_tensor.h:55-57
    "SWhere": "condition self other out",
    "InplaceMaskedFillScalar": "selfRef mask value selfRef",
    "InplaceMaskedFillTensor": "selfRef mask value selfRef",
    # aclnn_dropout_do_mask.h:25-27, aclnn_dropout_backward.h:25-27
    "DropoutDoMask": "self mask prob out",
    "DropoutBackward": "gradOutput mask scale out",
}
OUTPUTS = {
    "Cat": {"out"},
    "SplitTensor": {"out"},
    "SplitWithSize": {"out"},
    "MaxDim": {"out", "indices"},
    "SWhere": {"out"},
    "InplaceMaskedFillScalar": {"selfRef"},
    "InplaceMaskedFillTensor": {"selfRef"},
    "DropoutDoMask": {"out"},
    "DropoutBackward": {"out"},
}


def compute(op, t, lists, iv, ia, ba, dbl):
    if op == "Cat":
        members = [m.value() for m in lists["tensors"]]
        members = [m for m in members if not (m.ndim == 1 and m.shape[0] == 0)]
        return {"out": np.concatenate(members, axis=iv["dim"])}
    if op in ("SplitTensor", "SplitWithSize"):
        x = t["self"].value()
        ax = iv["dim"] % x.ndim
        if op == "SplitTensor":
            s = iv["splitSections"]
            sizes = [min(s, x.shape[ax] - i) for i in range(0, x.shape[ax], s)]
        else:
            sizes = ia["splitSize"]
        cuts = np.cumsum(sizes)[:-1]
        return {f"out_{i:02d}": p for i, p in enumerate(np.split(x, cuts, axis=ax))}
    if op == "MaxDim":
        x = t["self"].value()
        ax = iv["dim"] % max(x.ndim, 1)
        xx = x.reshape(1) if x.ndim == 0 else x
        # the first maximum, NaN winning (np.argmax takes the first NaN too)
        idx = np.argmax(xx, axis=ax)
        val = np.take_along_axis(xx, np.expand_dims(idx, ax), axis=ax)
        if x.ndim == 0:
            return {"out": val.reshape(()), "indices": idx.reshape(())}
        if not ba["keepdim"]:
            val = np.squeeze(val, axis=ax)
        else:
            idx = np.expand_dims(idx, ax)
        return {"out": val, "indices": idx}
    if op == "SWhere":
        c = t["condition"].value() != 0
        return {"out": np.where(c, t["self"].value(), t["other"].value())}
    if op.startswith("InplaceMaskedFill"):
        x = t["selfRef"].value().copy()
        m = np.broadcast_to(t["mask"].value() != 0, x.shape)
        v = dbl["value"] if op.endswith("Scalar") else float(t["value"].value())
        dt = t["selfRef"].dt
        if dt in ("i32", "i64"):
            v = int(v)  # the value converted to selfRef's dtype
        elif dt == "bool":
            v = 1 if v != 0 else 0
        x[m] = v
        return {"selfRef": t["selfRef"].write(x)}  # in place: the whole storage
    if op.startswith("Dropout"):
        x = t["self" if op == "DropoutDoMask" else "gradOutput"].value()
        bits = np.unpackbits(t["mask"].value().astype(np.uint8), bitorder="little")[:x.size]
        if op == "DropoutDoMask":
            p = dbl["prob"]
            scale = 0.0 if p == 1 else 1 / (1 - p)
        else:
            scale = dbl["scale"]
        return {"out": x * bits.reshape(x.shape) * scale}
    raise ValueError(f"unknown op {op}")


def base_name(role):
    m = re.fullmatch(r"(.+)_(\d\d)", role)
    return (m.group(1), int(m.group(2))) if m else (role, None)


def check_case(d):
    t, iv, ia, ba, dbl, exp, nones, names, problems = {}, {}, {}, {}, {}, [], set(), [], []
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
            elif tok[0] == "int":
                iv[tok[1]] = int(tok[2])
            elif tok[0] == "ints":
                ia[tok[1]] = [int(v) for v in tok[2].split(",")] if len(tok) > 2 else []
            elif tok[0] == "bool":
                ba[tok[1]] = tok[2] == "1"
            elif tok[0] == "double":
                dbl[tok[1]] = float(tok[2])
            elif tok[0] == "scalar":
                dbl[tok[1]] = float(tok[3])
            elif tok[0] == "dtype":
                pass
            elif tok[0] == "expect":
                exp.append(tok[1:])
            else:
                raise ValueError(f"unknown line kind {tok[0]}")
    # list members collapse to `name*`, numbered 00, 01, ... in order
    order, lists, seen = [], {}, {}
    for kind, n in names:
        b, i = base_name(n)
        if i is None:
            order.append(n)
            continue
        if seen.get(b, -1) + 1 != i:
            problems.append(f"list {b}: member {i} out of order")
        seen[b] = i
        if not order or order[-1] != b + "*":
            order.append(b + "*")
        if kind == "tensor":
            lists.setdefault(b, []).append(t[n])
    if order != PARAMS[op].split():
        problems.append(f"parameter order {order} != {PARAMS[op].split()}")
    for k, n in names:
        b, _ = base_name(n)
        out = n in OUTPUTS[op] or b in OUTPUTS[op]
        if not out and k == "expect":
            problems.append(f"input {n} given as expect")
        if out and k == "tensor" and not op.startswith("Inplace"):
            problems.append(f"output {n} given as an input")
    ref = compute(op, t, lists, iv, ia, ba, dbl)
    for role, dt, fname, rtol, atol in exp:
        got = decode(np.load(os.path.join(d, fname), allow_pickle=False), dt)
        # the reference in float64/int64, cast once into the output's dtype
        w = np.asarray(ref[role], dtype=np.int64 if got.dtype == np.int64 else np.float64)
        if got.dtype != np.int64:
            w = round_to(w, dt)
        if w.shape != got.shape:
            problems.append(f"{role}: shape {got.shape} != reference {w.shape}")
            continue
        with np.errstate(invalid="ignore"):
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
