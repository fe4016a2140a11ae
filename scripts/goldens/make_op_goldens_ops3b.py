#!/usr/bin/env python3
"""PyTorch ground truth for batch ops3b of the third aclnn operator set
(issue 20): Cat, SplitTensor, SplitWithSize, MaxDim, SWhere,
InplaceMaskedFillScalar, InplaceMaskedFillTensor, DropoutDoMask.

Writes one directory per case under ascendcl/tests/goldens/ops3b/<case>/ in
the manifest format of the second set (ascendcl/tests/goldens/ops2/
README.md; this set's README says what it adds: tensor lists). Helpers
(layouts, seeded inputs, the Case writer) are the first two sets' scripts',
imported.

A tensor list (Cat's `tensors`, SplitTensor's `out`) is one role per member,
`<name>_<ii>` with a two-digit index, in list order.

Every result is computed by PyTorch on the CPU (one thread), from inputs
drawn with fixed seeds (one per case, from its name). CI never runs this:

    python3 scripts/goldens/make_op_goldens_ops3b.py    # rewrites ops3b/
    python3 scripts/goldens/check_op_goldens_ops3b.py   # NumPy only

TOLERANCES (|actual - expected| <= atol + rtol*|expected|): Cat and the
splits copy values (cast once to the output's dtype), so they are exact
(rtol 0, atol 0); SWhere and MaskedFill select or fill values (cast once):
exact; DropoutDoMask and DropoutBackward (given a mask) multiply by a scale
that CANN and PyTorch round differently: f32 rtol 1e-6, f16 2e-3, bf16 2e-2
(half an ulp of the scale plus a rounding each side), atol 0; MaxDim picks one of its inputs, and its index: exact.
An f32 into f16 output is PyTorch's own rounding, the same
round-to-nearest-even the device's cast does.
"""

import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402
import make_op_goldens2 as g2  # noqa: E402

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops3b")
DTYPES = g1.DTYPES
Rng = g1.Rng
layout = g2.layout
CASES = {}


class Case(g2.Case):
    """g2's manifest writer, registered in this set and written under OUT."""

    def __init__(self, name, op):
        assert name not in CASES, name
        self.name, self.op = name, op
        self.lines = [f"op {op}"]
        self.files = {}
        CASES[name] = self

    def scalar(self, role, dt, value):
        assert dt in ("f32", "f64", "i64")
        v = int(value) if dt == "i64" else g1.fmt_float(value)
        self.lines.append(f"scalar {role} {dt} {v}")

    def tensor_list(self, name, inputs):
        for i, inp in enumerate(inputs):
            self.tensor(f"{name}_{i:02d}", inp)

    def expect_list(self, name, ts, rtol, atol):
        for i, t in enumerate(ts):
            self.expect(f"{name}_{i:02d}", t, rtol, atol)

    def write(self):
        d = os.path.join(OUT, self.name)
        os.makedirs(d)
        for fname, arr in self.files.items():
            np.save(os.path.join(d, fname), arr, allow_pickle=False)
        with open(os.path.join(d, "case.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


def values(r, shape, dt):
    if dt in ("i32", "i64", "u8"):
        return r.ints(shape, 0 if dt == "u8" else -100, 100, dt)
    if dt == "bool":
        return r.ints(shape, 0, 2, "i64").to(torch.bool)
    return r.normal(shape, dt, 2.0)


# ---------------------------------------------------------------------------
# Cat (ops-math v8.5.0 aclnn_cat.h:25-26: tensors, dim, out)
# ---------------------------------------------------------------------------
# name, [(shape, dtype, layout)], dim, out dtype
CAT_SPECS = [
    ("f32_columns", [((2, 3), "f32", "contig"), ((2, 1), "f32", "contig"), ((2, 4), "f32", "contig")], 1, "f32"),
    ("f32_rows_negative_dim", [((1, 3), "f32", "contig"), ((3, 3), "f32", "contig")], -2, "f32"),
    ("f16_3d_middle_dim", [((2, 2, 3), "f16", "contig"), ((2, 3, 3), "f16", "contig")], 1, "f16"),
    ("bf16_last_dim", [((3, 2), "bf16", "contig"), ((3, 5), "bf16", "contig")], -1, "bf16"),
    ("f32_strided_members", [((4, 3), "f32", "transposed"), ((2, 3), "f32", "sliced")], 0, "f32"),
    ("f16_with_f32_promotes_to_f32", [((2, 2), "f16", "contig"), ((2, 3), "f32", "contig")], 1, "f32"),
    ("i32_with_i64_promotes_to_i64", [((3,), "i32", "contig"), ((4,), "i64", "contig")], 0, "i64"),
    ("bool_rows", [((1, 4), "bool", "contig"), ((2, 4), "bool", "contig")], 0, "bool"),
    ("f32_empty_1d_member_skipped", [((0,), "f32", "contig"), ((2, 3), "f32", "contig"),
                                     ((1, 3), "f32", "contig")], 0, "f32"),
    # 40 members: past the 32 CANN concatenates at once (aclnn_cat.cpp:216)
    ("f32_forty_members", [((2, 1 + (i % 3)), "f32", "contig") for i in range(40)], 1, "f32"),
]


def cat_cases():
    for name, members, dim, odt in CAT_SPECS:
        cname = f"cat_{name}"
        r = Rng(cname)
        ins = [layout(values(r, shape, dt), lay) for shape, dt, lay in members]
        c = Case(cname, "Cat")
        c.tensor_list("tensors", ins)
        c.int_("dim", dim)
        out = torch.cat([i.view for i in ins], dim=dim).to(DTYPES[odt])
        c.expect("out", out, 0.0, 0.0)


# ---------------------------------------------------------------------------
# SplitTensor (aclnn_split_tensor.h:35-37: self, splitSections, dim, out) and
# SplitWithSize (aclnn_split_with_size.h:36-38: self, splitSize, dim, out)
# ---------------------------------------------------------------------------
# name, shape, dtype, layout, sections (int) or sizes (list), dim, out dtype
SPLIT_SPECS = [
    ("f32_even_rows", (6, 3), "f32", "contig", 2, 0, "f32"),
    ("f32_last_piece_shorter", (2, 7), "f32", "contig", 3, 1, "f32"),
    ("f16_negative_dim", (2, 3, 4), "f16", "contig", 2, -1, "f16"),
    ("bf16_middle_dim", (2, 5, 2), "bf16", "contig", 2, 1, "bf16"),
    ("f32_transposed_self", (4, 6), "f32", "transposed", 4, 1, "f32"),
    ("f32_sliced_self", (5, 3), "f32", "sliced", 2, 0, "f32"),
    ("f32_sections_past_the_size", (3, 2), "f32", "contig", 8, 0, "f32"),
    ("i64_into_i32", (9,), "i64", "contig", 4, 0, "i32"),
    # 40 pieces: past the 32 SplitV makes at once (aclnn_split_tensor.cpp:268-270)
    ("f32_forty_pieces", (40, 2), "f32", "contig", 1, 0, "f32"),
    ("with_size_f32_columns", (3, 6), "f32", "contig", [1, 3, 2], 1, "f32"),
    ("with_size_f16_rows_with_a_zero", (5, 2), "f16", "contig", [2, 0, 3], -2, "f16"),
    ("with_size_bf16_transposed", (4, 5), "bf16", "transposed", [4], 0, "bf16"),
    ("with_size_f32_into_f16", (4, 2), "f32", "sliced", [1, 3], 0, "f16"),
]


def split_cases():
    for name, shape, dt, lay, sec, dim, odt in SPLIT_SPECS:
        op = "SplitWithSize" if isinstance(sec, list) else "SplitTensor"
        cname = f"split_{name}"
        r = Rng(cname)
        X = layout(values(r, shape, dt), lay)
        c = Case(cname, op)
        c.tensor("self", X)
        if op == "SplitTensor":
            c.int_("splitSections", sec)
        else:
            c.ints("splitSize", sec)
        c.int_("dim", dim)
        pieces = torch.split(X.view, sec, dim=dim)
        c.expect_list("out", [p.to(DTYPES[odt]) for p in pieces], 0.0, 0.0)


# ---------------------------------------------------------------------------
# MaxDim (ops-math v8.5.0 aclnn_max_dim.h:46-48: self, dim, keepdim, out,
# indices)
# ---------------------------------------------------------------------------
# name, shape, dtype, layout, dim, keepdim, kind
MAX_DIM_SPECS = [
    ("f32_rows", (4, 6), "f32", "contig", 1, False, "normal"),
    ("f32_keepdim_first_dim", (5, 3), "f32", "contig", 0, True, "normal"),
    ("f32_3d_negative_dim", (2, 4, 3), "f32", "contig", -2, False, "normal"),
    ("f16_rows", (3, 7), "f16", "contig", -1, True, "normal"),
    ("bf16_columns", (6, 4), "bf16", "contig", 0, False, "normal"),
    ("f32_transposed", (5, 4), "f32", "transposed", 1, False, "normal"),
    ("f32_sliced", (3, 5), "f32", "sliced", 1, True, "normal"),
    ("f32_edge_values", (4, 6), "f32", "contig", 1, False, "edge"),
    ("i64_rows_with_ties", (4, 5), "i64", "contig", 1, False, "ints"),
    ("bool_rows_with_ties", (3, 4), "bool", "contig", 1, False, "bool"),
    ("f32_0d", (), "f32", "contig", 0, False, "normal"),
]


def max_dim_cases():
    for name, shape, dt, lay, dim, keep, kind in MAX_DIM_SPECS:
        cname = f"max_dim_{name}"
        r = Rng(cname)
        if kind == "edge":
            x = r.edge(shape, dt)
        elif kind == "ints":
            x = r.ints(shape, -3, 3, dt)  # ties on purpose
        else:
            x = values(r, shape, dt)
        X = layout(x, lay)
        c = Case(cname, "MaxDim")
        c.tensor("self", X)
        c.int_("dim", dim)
        c.bool_("keepdim", keep)
        v, i = torch.max(X.view, dim=dim, keepdim=keep)
        c.expect("out", v, 0.0, 0.0)
        c.expect("indices", i, 0.0, 0.0)


# ---------------------------------------------------------------------------
# SWhere (ops-math v8.5.0 math/select/op_api/aclnn_s_where.h:25-27:
# condition, self, other, out)
# ---------------------------------------------------------------------------
# name, cond (shape, dtype), self (shape, dtype, layout), other (shape, dtype), out dtype
SWHERE_SPECS = [
    ("f32_same_shapes", ((3, 4), "bool"), ((3, 4), "f32", "contig"), ((3, 4), "f32"), "f32"),
    ("f16_broadcast_condition_row", ((1, 5), "bool"), ((3, 5), "f16", "contig"), ((3, 5), "f16"), "f16"),
    ("bf16_broadcast_other_column", ((2, 3), "bool"), ((2, 3), "bf16", "contig"), ((2, 1), "bf16"), "bf16"),
    ("f32_all_three_broadcast", ((4, 1), "bool"), ((1, 3), "f32", "contig"), ((4, 3), "f32"), "f32"),
    ("f32_u8_condition", ((2, 4), "u8"), ((2, 4), "f32", "contig"), ((2, 4), "f32"), "f32"),
    ("f32_transposed_self", ((4, 3), "bool"), ((4, 3), "f32", "transposed"), ((4, 3), "f32"), "f32"),
    ("f32_sliced_self", ((3, 4), "bool"), ((3, 4), "f32", "sliced"), ((3, 4), "f32"), "f32"),
    ("f16_with_f32_promotes_to_f32", ((2, 3), "bool"), ((2, 3), "f16", "contig"), ((2, 3), "f32"), "f32"),
    ("i32_with_i64_promotes_to_i64", ((5,), "bool"), ((5,), "i32", "contig"), ((5,), "i64"), "i64"),
    ("bool_self_and_other", ((2, 3), "bool"), ((2, 3), "bool", "contig"), ((2, 3), "bool"), "bool"),
]


def swhere_cases():
    for name, (cs, cdt), (ss, sdt, lay), (os_, odt), outdt in SWHERE_SPECS:
        cname = f"swhere_{name}"
        r = Rng(cname)
        cond = r.ints(cs, 0, 2 if cdt == "bool" else 4, "i64").to(DTYPES[cdt])
        S = layout(values(r, ss, sdt), lay)
        O = layout(values(r, os_, odt), "contig")
        c = Case(cname, "SWhere")
        c.tensor("condition", layout(cond, "contig"))
        c.tensor("self", S)
        c.tensor("other", O)
        out = torch.where(cond.to(torch.bool), S.view, O.view).to(DTYPES[outdt])
        c.expect("out", out, 0.0, 0.0)


# ---------------------------------------------------------------------------
# InplaceMaskedFillScalar (aclnn_masked_fill_scalar.h:55-57: selfRef, mask,
# value) and InplaceMaskedFillTensor (aclnn_masked_fill_tensor.h:55-57:
# selfRef, mask, value as a 0-d tensor)
# ---------------------------------------------------------------------------
# name, op, self (shape, dtype, layout), mask shape, value (dtype, number)
MASKED_FILL_SPECS = [
    ("scalar_f32_same_shape", "Scalar", ((3, 4), "f32", "contig"), (3, 4), ("f32", -1.5)),
    ("scalar_f32_neg_inf_broadcast_row", "Scalar", ((4, 5), "f32", "contig"), (1, 5), ("f32", float("-inf"))),
    ("scalar_f16_broadcast_column", "Scalar", ((3, 4), "f16", "contig"), (3, 1), ("f64", 0.1)),
    ("scalar_bf16", "Scalar", ((2, 6), "bf16", "contig"), (2, 6), ("f32", 3.25)),
    ("scalar_f32_transposed_self", "Scalar", ((4, 3), "f32", "transposed"), (4, 3), ("f32", 7.0)),
    ("scalar_f32_sliced_self", "Scalar", ((3, 4), "f32", "sliced"), (4,), ("f32", 0.0)),
    ("scalar_i32", "Scalar", ((2, 5), "i32", "contig"), (2, 5), ("i64", -7)),
    ("scalar_bool", "Scalar", ((3, 3), "bool", "contig"), (3, 3), ("i64", 1)),
    ("tensor_f32", "Tensor", ((3, 4), "f32", "contig"), (1, 4), ("f32", 2.5)),
    ("tensor_f16_value_f32", "Tensor", ((2, 3), "f16", "contig"), (2, 3), ("f32", -0.3)),
    ("tensor_i64_value_i32", "Tensor", ((4,), "i64", "contig"), (4,), ("i32", 42)),
]


def masked_fill_cases():
    for name, kind, (ss, sdt, lay), ms, (vdt, v) in MASKED_FILL_SPECS:
        cname = f"masked_fill_{name}"
        r = Rng(cname)
        S = layout(values(r, ss, sdt), lay)
        mask = r.ints(ms, 0, 2, "i64").to(torch.bool)
        c = Case(cname, f"InplaceMaskedFill{kind}")
        c.tensor("selfRef", S)
        c.tensor("mask", layout(mask, "contig"))
        if kind == "Scalar":
            c.scalar("value", vdt, v)
            fill = v
        else:
            vt = torch.tensor(v, dtype=DTYPES[vdt])
            c.tensor("value", layout(vt, "contig"))
            fill = vt.to(DTYPES[sdt])
        S.view.masked_fill_(mask, fill)
        # in place: the expectation is the whole storage (the format's rule)
        c.expect("selfRef", S.storage, 0.0, 0.0)


# ---------------------------------------------------------------------------
# DropoutDoMask (aclnn_dropout_do_mask.h:25-27: self, mask, prob, out) and
# DropoutBackward (aclnn_dropout_backward.h:25-27: gradOutput, mask, scale,
# out), given a mask: PyTorch cannot say which bits CANN's generator sets,
# so the mask is drawn here (torch.bernoulli, seeded) and packed one bit per
# element, bit i%8 of byte i/8, padded to 128 bits (aclnn_dropout_do_mask.cpp:109)
# ---------------------------------------------------------------------------
# name, op, shape, dtype, layout, prob (DoMask) or scale (Backward), extra mask bytes
DROPOUT_SPECS = [
    ("do_mask_f32_p03_padded", "DropoutDoMask", (10, 100), "f32", "contig", 0.3, 0),
    ("do_mask_f16_p05", "DropoutDoMask", (4, 64), "f16", "contig", 0.5, 0),
    ("do_mask_bf16_p01", "DropoutDoMask", (3, 50), "bf16", "contig", 0.1, 0),
    ("do_mask_f32_transposed", "DropoutDoMask", (6, 7), "f32", "transposed", 0.4, 0),
    ("do_mask_f32_sliced", "DropoutDoMask", (5, 9), "f32", "sliced", 0.25, 0),
    ("do_mask_f32_longer_mask", "DropoutDoMask", (20,), "f32", "contig", 0.5, 16),
    ("do_mask_f32_p0_copies", "DropoutDoMask", (3, 5), "f32", "contig", 0.0, 0),
    ("do_mask_f32_p1_zeros", "DropoutDoMask", (3, 5), "f32", "contig", 1.0, 0),
    ("backward_f32_scale_1_over_07", "DropoutBackward", (8, 33), "f32", "contig", 1 / 0.7, 0),
    ("backward_f16_scale_2", "DropoutBackward", (5, 30), "f16", "contig", 2.0, 0),
    ("backward_bf16_scale_125", "DropoutBackward", (4, 40), "bf16", "contig", 1.25, 0),
    ("backward_f32_transposed", "DropoutBackward", (9, 4), "f32", "transposed", 1.5, 0),
    ("backward_f32_scale_0_zeros", "DropoutBackward", (3, 4), "f32", "contig", 0.0, 0),
    ("backward_f32_scale_1_copies", "DropoutBackward", (3, 4), "f32", "contig", 1.0, 0),
]
# |CANN - PyTorch|: CANN rounds 1 - p to the input's dtype and multiplies by
# its f32 reciprocal (drop_out_do_mask.h:225), PyTorch multiplies by
# 1 / (1 - p): the scales differ by up to half an ulp of the dtype, plus one
# rounding of the result each side
DROPOUT_RTOL = {"f32": 1e-6, "f16": 2e-3, "bf16": 2e-2}


def pack_mask(keep, extra):
    bits = keep.reshape(-1).numpy().astype(np.uint8)
    nbytes = (bits.size + 127) // 128 * 16
    padded = np.zeros(nbytes * 8, dtype=np.uint8)
    padded[:bits.size] = bits
    packed = np.packbits(padded, bitorder="little")
    return torch.from_numpy(np.concatenate([packed, np.zeros(extra, dtype=np.uint8)]))


def dropout_cases():
    for name, op, shape, dt, lay, pv, extra in DROPOUT_SPECS:
        cname = f"dropout_{name}"
        r = Rng(cname)
        X = layout(values(r, shape, dt), lay)
        drop = pv if op == "DropoutDoMask" else (1.0 if pv == 0 else 1 - 1 / pv)
        keep = torch.bernoulli(torch.full(shape, 1 - drop), generator=r.g).to(torch.bool)
        c = Case(cname, op)
        c.tensor("self" if op == "DropoutDoMask" else "gradOutput", X)
        c.tensor("mask", layout(pack_mask(keep, extra), "contig"))
        c.double("prob" if op == "DropoutDoMask" else "scale", pv)
        if op == "DropoutDoMask" and pv == 1.0:
            out = torch.zeros_like(X.view)
        else:
            scale = 1 / (1 - pv) if op == "DropoutDoMask" else pv
            out = torch.ops.aten.native_dropout_backward(X.view, keep, scale)
        c.expect("out", out, DROPOUT_RTOL[dt], 0.0)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cat_cases()
    split_cases()
    max_dim_cases()
    swhere_cases()
    masked_fill_cases()
    dropout_cases()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens_ops3b.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
