#!/usr/bin/env python3
"""PyTorch ground truth for the third aclnn operator set (issue 20), batch
"ops3a": Embedding, EmbeddingDenseBackward, BatchMatMul, Permute,
ApplyAdamWV2.

Writes one directory per case under ascendcl/tests/goldens/ops3a/<case>/ in
the manifest format of the first set (ascendcl/tests/goldens/ops/README.md;
the line kinds op, tensor, int, bool, ints, double and expect are used).
EmbeddingDenseBackward's `int paddingIdx -1` is "no padding" (CANN's
negative paddingIdx; the test passes None).

Every result is computed by PyTorch on the CPU (one thread) from inputs drawn
with fixed seeds (one per case, from its name), so a rerun with the same
torch version writes the same bytes. CI never runs this; run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_op_goldens_ops3a.py   # rewrites ops3a/
    python3 scripts/goldens/check_op_goldens_ops3a.py  # NumPy only

CANN versus PyTorch, as encoded here:
  * aclnnEmbeddingDenseBackward casts grad to f32 and sums there
    (ops-nn v8.5.0 index/embedding_dense_grad_v2/op_host/op_api/
    aclnn_embedding_dense_backward.cpp:341-345), then casts to out's dtype
    (:398), which need not be grad's: the goldens are PyTorch's
    embedding_dense_backward of grad in f32, rounded once into out's dtype
    (PyTorch's own f16 CPU kernel would accumulate in f16).
  * Its indices may be a float tensor (cast to int32, :387-391); PyTorch
    takes integer indices only, so that case's golden uses the same values
    as int64.

  * aclnnApplyAdamWV2's step tensor holds the steps taken before this one
    (its kernel adds 1: optim/apply_adam_w_v2/op_kernel/apply_adam_w_v2_fp.h:114),
    which is torch.optim.AdamW's state["step"] before the step; the
    goldens set that state and run one opt.step(). The hyper-parameters
    are rounded to f32 first (CANN takes floats). The in-place tensors'
    expectations are their whole storage (as the first set's InplaceAdd).

Tolerances (|actual - expected| <= atol + rtol*|expected|), see TOLERANCES.
"""

import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402  (layout, Rng, to_numpy, Case format)

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "ops3a")
DTYPES, TOKEN = g1.DTYPES, g1.TOKEN
Rng, layout = g1.Rng, g1.layout

# ---------------------------------------------------------------------------
# TOLERANCES
#
# "exact": Embedding copies rows, Permute elements; any difference is a bug
#   (0, 0).
# "accum": a sum over rows whose order the device chooses
#   (EmbeddingDenseBackward): f32 rtol 1e-5 atol 1e-6 (a few ulps of a short
#   sum of O(1) terms); f16 rtol 1e-3 atol 1e-3 and bf16 rtol 1e-2 atol 1e-2:
#   one ulp of the dtype (<= 9.8e-4 and <= 7.8e-3 relative) for a sum made
#   in f32 and rounded once on both sides, which may round a value near a
#   tie the other way; the atol for results near 0.
# BatchMatMul ("accum" too): the cube sums K products in f32; the atol is
#   the rtol times max over outputs of sum_k |a_ik b_kj| (g1.mm_scale), the
#   size of a reordering error of the sum, at least the base atol.
# "state": ApplyAdamWV2's updated var, m, v and running maximum, a few f32
#   operations per element (lerp, multiply-add, sqrt, divide) computed in f32
#   by both torch.optim.AdamW and the card (f16/bf16 tensors are cast to f32
#   and back, aclnn_apply_adam_w_v2.cpp:196-226): f32 rtol 1e-5 atol 1e-6
#   (tens of ulps; the atol for m and v near 0); f16 1e-3/1e-3 and bf16
#   1e-2/1e-2, one ulp of the dtype for a result rounded once from f32.
# ---------------------------------------------------------------------------
TOL = {
    "state": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)},
    "exact": {dt: (0.0, 0.0) for dt in DTYPES},
    "accum": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)},
}


def tol(kind, dt):
    return TOL[kind][dt]


class Case(g1.Case):
    """The first set's case, written under OUT and counted in CASES here."""

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


CASES = {}


# ---------------------------------------------------------------------------
# Embedding, EmbeddingDenseBackward
# ---------------------------------------------------------------------------
def embedding_cases():
    # name, weight shape, weight dtype, weight layout, indices shape,
    # indices dtype, indices layout
    specs = [
        ("f32_5x3_i64", (5, 3), "f32", "contig", (4,), "i64", "contig"),
        ("f16_6x4_i32_2d", (6, 4), "f16", "contig", (2, 3), "i32", "contig"),
        ("bf16_6x4_i64", (6, 4), "bf16", "contig", (5,), "i64", "contig"),
        ("f32_transposed_weight", (5, 4), "f32", "transposed", (2, 2), "i64", "contig"),
        ("f16_sliced_indices", (7, 3), "f16", "contig", (2, 4), "i32", "sliced"),
        ("i64_weight_exact", (4, 3), "i64", "contig", (3,), "i32", "contig"),
        ("f32_scalar_index", (5, 3), "f32", "contig", (), "i64", "contig"),
        ("f32_first_and_last_rows", (9, 2), "f32", "contig", (2, 2, 2), "i64", "contig"),
    ]
    for name, wshape, wdt, wlay, ishape, idt, ilay in specs:
        cname = f"embedding_{name}"
        r = Rng(cname)
        if wdt == "i64":
            # beyond 2^53: a copy through double would change them
            w = r.ints(wshape, -(2 ** 62), 2 ** 62, "i64")
        else:
            w = r.normal(wshape, "f32", 3.0).to(DTYPES[wdt])
        rows = wshape[0]
        if name == "f32_first_and_last_rows":
            idx = torch.tensor([0, rows - 1, rows - 1, 0, 0, 0, rows - 1, 1]).reshape(ishape)
        else:
            idx = r.ints(ishape, 0, rows, "i64")
        idx = idx.to(DTYPES[idt])
        W, I = layout(w, wlay), layout(idx, ilay)
        c = Case(cname, "Embedding")
        c.tensor("weight", W)
        c.tensor("indices", I)
        c.expect("out", F.embedding(I.view.long(), W.view), *tol("exact", wdt))


def embedding_dense_backward_cases():
    # name, grad shape, grad dtype, grad layout, indices dtype, numWeights,
    # paddingIdx (-1 none), scaleGradByFreq, out dtype
    specs = [
        ("f32_4x3", (4, 3), "f32", "contig", "i64", 5, -1, False, "f32"),
        ("f32_padding", (6, 3), "f32", "contig", "i64", 4, 1, False, "f32"),
        ("f32_scale_by_freq", (8, 3), "f32", "contig", "i64", 4, -1, True, "f32"),
        ("f32_scale_and_padding", (8, 3), "f32", "contig", "i32", 4, 2, True, "f32"),
        ("f16_2x3x4_i32", (2, 3, 4), "f16", "contig", "i32", 6, -1, False, "f16"),
        ("bf16_6x4", (6, 4), "bf16", "contig", "i64", 3, -1, False, "bf16"),
        ("f16_grad_f32_out", (6, 4), "f16", "contig", "i64", 3, 0, False, "f32"),
        ("f32_transposed_grad", (5, 4), "f32", "transposed", "i64", 3, -1, False, "f32"),
        ("f32_float_indices", (5, 3), "f32", "contig", "f32", 4, -1, False, "f32"),
    ]
    for name, gshape, gdt, glay, idt, nw, pad, scale, odt in specs:
        cname = f"embeddingdensebackward_{name}"
        r = Rng(cname)
        g = r.normal(gshape, "f32").to(DTYPES[gdt])
        ishape = gshape[:-1]
        idx = r.ints(ishape, 0, nw, "i64")
        if pad >= 0:
            idx.view(-1)[0] = pad  # at least one padded row
        G = layout(g, glay)
        I = layout(idx.to(DTYPES[idt]), "contig")
        c = Case(cname, "EmbeddingDenseBackward")
        c.tensor("grad", G)
        c.tensor("indices", I)
        c.int_("numWeights", nw)
        c.int_("paddingIdx", pad)
        c.bool_("scaleGradByFreq", scale)
        out = torch.ops.aten.embedding_dense_backward(G.view.float(), idx, nw, pad, scale)
        c.expect("out", out.to(DTYPES[odt]), *tol("accum", odt))


# ---------------------------------------------------------------------------
# BatchMatMul
# ---------------------------------------------------------------------------
def batch_matmul_cases():
    # name, self shape, mat2 shape, self dtype, mat2 dtype, out dtype,
    # self layout, mat2 layout, cubeMathType
    specs = [
        ("f32_2x3x4_2x4x5", (2, 3, 4), (2, 4, 5), "f32", "f32", "f32", "contig", "contig", 0),
        ("f16_3x4x8_3x8x2", (3, 4, 8), (3, 8, 2), "f16", "f16", "f16", "contig", "contig", 0),
        ("bf16_2x5x6_2x6x3", (2, 5, 6), (2, 6, 3), "bf16", "bf16", "bf16", "contig", "contig", 0),
        ("f32_mat2_batch_broadcast", (3, 2, 4), (1, 4, 5), "f32", "f32", "f32", "contig", "contig", 0),
        ("f16_self_batch_broadcast", (1, 3, 4), (2, 4, 2), "f16", "f16", "f16", "contig", "contig", 0),
        ("f32_transposed_mat2", (2, 3, 4), (2, 4, 5), "f32", "f32", "f32", "contig", "transposed", 0),
        ("bf16_transposed_self", (2, 4, 3), (2, 3, 2), "bf16", "bf16", "bf16", "transposed", "contig", 0),
        ("f16_sliced_self", (2, 3, 4), (2, 4, 3), "f16", "f16", "f16", "sliced", "contig", 0),
        ("f16_and_f32_into_f32", (2, 3, 4), (2, 4, 2), "f16", "f32", "f32", "contig", "contig", 0),
        ("f16_use_fp16", (2, 3, 4), (2, 4, 5), "f16", "f16", "f16", "contig", "contig", 2),
        ("f32_k_0_gives_zeros", (2, 3, 0), (2, 0, 4), "f32", "f32", "f32", "contig", "contig", 0),
    ]
    for name, ashape, bshape, adt, bdt, odt, alay, blay, cube in specs:
        cname = f"batchmatmul_{name}"
        r = Rng(cname)
        a = r.normal(ashape, "f32").to(DTYPES[adt])
        b = r.normal(bshape, "f32").to(DTYPES[bdt])
        A, B = layout(a, alay), layout(b, blay)
        c = Case(cname, "BatchMatMul")
        c.tensor("self", A)
        c.tensor("mat2", B)
        # the cube accumulates in f32 whatever the storage dtype; rounded once
        out = torch.matmul(A.view.float(), B.view.float())
        scale = g1.mm_scale(A.view.float(), B.view.float()) if out.numel() else 0.0
        rtol, base = tol("accum", odt)
        c.expect("out", out.to(DTYPES[odt]), rtol, g1.accum_atol(base, rtol, scale))
        c.int_("cubeMathType", cube)  # after out, in aclnnBatchMatMul's order


# ---------------------------------------------------------------------------
# Permute
# ---------------------------------------------------------------------------
def permute_cases():
    # name, shape, dtype, layout, dims
    specs = [
        ("f32_2x3x4_201", (2, 3, 4), "f32", "contig", [2, 0, 1]),
        ("f16_negative_dims", (2, 3, 4), "f16", "contig", [-1, -3, -2]),
        ("bf16_4d", (2, 1, 3, 2), "bf16", "contig", [3, 1, 0, 2]),
        ("i64_exact", (3, 4), "i64", "contig", [1, 0]),
        ("bool_3d", (2, 2, 3), "bool", "contig", [1, 2, 0]),
        ("f32_transposed_self", (3, 5), "f32", "transposed", [1, 0]),
        ("f16_sliced_self", (2, 3, 4), "f16", "sliced", [0, 2, 1]),
        ("f32_identity", (5,), "f32", "contig", [0]),
        ("f32_scalar", (), "f32", "contig", []),
    ]
    for name, shape, dt, lay, dims in specs:
        cname = f"permute_{name}"
        r = Rng(cname)
        if dt == "i64":
            x = r.ints(shape, -(2 ** 62), 2 ** 62, "i64")
        elif dt == "bool":
            x = r.ints(shape, 0, 2, "i64").bool()
        else:
            x = r.normal(shape, "f32", 3.0).to(DTYPES[dt])
        X = layout(x, lay)
        c = Case(cname, "Permute")
        c.tensor("self", X)
        c.ints("dims", dims)
        c.expect("out", X.view.permute(dims).contiguous(), *tol("exact", dt))


# ---------------------------------------------------------------------------
# ApplyAdamWV2
# ---------------------------------------------------------------------------
def f32(x):
    """x rounded to f32 (CANN takes the hyper-parameters as float), as a
    Python float, so torch computes with exactly the value the op gets."""
    return float(np.float32(x))


def adamw_step(var, m, v, mx, grad, step, hp):
    """One torch.optim.AdamW step (single-tensor, in f32) from the given
    state; step is state["step"] before the step (the op adds 1 itself)."""
    p = torch.nn.Parameter(var.float().clone())
    opt = torch.optim.AdamW([p], lr=hp["lr"], betas=(hp["beta1"], hp["beta2"]), eps=hp["eps"],
                            weight_decay=hp["weightDecay"], amsgrad=hp["amsgrad"], maximize=hp["maximize"],
                            foreach=False)
    p.grad = grad.float().clone()
    state = opt.state[p]
    state["step"] = torch.tensor(float(step))
    state["exp_avg"] = m.float().clone()
    state["exp_avg_sq"] = v.float().clone()
    if hp["amsgrad"]:
        state["max_exp_avg_sq"] = mx.float().clone()
    with torch.no_grad():
        opt.step()
    return p.detach(), state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq")


def adamw_cases():
    # name, shape, state dtype, grad dtype, step (value, dtype), amsgrad,
    # maximize, var layout, maxGradNorm given without amsgrad
    specs = [
        ("f32_first_step", (4, 6), "f32", "f32", (0, "f32"), False, False, "contig", False),
        ("f32_step_5_int64", (4, 6), "f32", "f32", (5, "i64"), False, False, "contig", False),
        ("f32_amsgrad", (4, 6), "f32", "f32", (3, "f32"), True, False, "contig", False),
        ("f32_maximize", (4, 6), "f32", "f32", (2, "i64"), False, True, "contig", False),
        ("f32_amsgrad_maximize", (3, 5), "f32", "f32", (7, "f32"), True, True, "contig", False),
        ("f16_state_and_grad", (4, 6), "f16", "f16", (1, "f32"), False, False, "contig", False),
        ("bf16_state_and_grad", (4, 6), "bf16", "bf16", (4, "i64"), True, False, "contig", False),
        ("f32_master_f16_grad", (4, 6), "f32", "f16", (2, "f32"), False, False, "contig", False),
        ("f32_master_bf16_grad", (4, 6), "f32", "bf16", (9, "i64"), False, False, "contig", False),
        ("f32_transposed_var", (4, 6), "f32", "f32", (1, "f32"), False, False, "transposed", False),
        ("f32_max_given_without_amsgrad", (3, 4), "f32", "f32", (1, "f32"), False, False, "contig", True),
    ]
    hp_base = {"lr": f32(1e-3), "beta1": f32(0.9), "beta2": f32(0.999), "weightDecay": f32(1e-2),
               "eps": f32(1e-8)}
    for name, shape, sdt, gdt, (step, stdt), amsgrad, maximize, vlay, max_plain in specs:
        cname = f"applyadamwv2_{name}"
        r = Rng(cname)
        var = r.normal(shape, "f32").to(DTYPES[sdt])
        if step == 0:
            m = torch.zeros(shape, dtype=DTYPES[sdt])
            v = torch.zeros(shape, dtype=DTYPES[sdt])
        else:
            m = (r.normal(shape, "f32") * 0.1).to(DTYPES[sdt])
            v = (r.normal(shape, "f32").abs() * 0.01).to(DTYPES[sdt])
        # the running maximum: above v for about half the entries
        mx = (v.float() * (2 * r.uniform(shape, 0.0, 1.0))).to(DTYPES[sdt])
        grad = r.normal(shape, "f32").to(DTYPES[gdt])
        hp = dict(hp_base, amsgrad=amsgrad, maximize=maximize)
        if name.startswith("f32_first"):
            hp["lr"] = f32(0.1)
        V, M, S, X = layout(var, vlay), layout(m), layout(v), layout(mx)
        G, T = layout(grad), layout(torch.tensor([step], dtype=DTYPES[stdt]))
        c = Case(cname, "ApplyAdamWV2")
        c.tensor("varRef", V)
        c.tensor("mRef", M)
        c.tensor("vRef", S)
        if amsgrad or max_plain:
            c.tensor("maxGradNormOptionalRef", X)
        else:
            c.lines.append("none maxGradNormOptionalRef")
        c.tensor("grad", G)
        c.tensor("step", T)
        for k in ("lr", "beta1", "beta2", "weightDecay", "eps"):
            c.lines.append(f"double {k} {hp[k]!r}")
        c.bool_("amsgrad", amsgrad)
        c.bool_("maximize", maximize)
        nv, nm, ns, nx = adamw_step(V.view, M.view, S.view, X.view, G.view, step, hp)
        # in place: each expectation is its tensor's whole storage
        rt, at = tol("state", sdt)
        with torch.no_grad():
            V.view.copy_(nv.to(DTYPES[sdt]))
        c.expect("varRef", V.storage, rt, at)
        c.expect("mRef", nm.to(DTYPES[sdt]), rt, at)
        c.expect("vRef", ns.to(DTYPES[sdt]), rt, at)
        if amsgrad:
            c.expect("maxGradNormOptionalRef", nx.to(DTYPES[sdt]), rt, at)
        elif max_plain:
            c.expect("maxGradNormOptionalRef", X.storage, *tol("exact", sdt))


OPS = {
    "Embedding": embedding_cases,
    "EmbeddingDenseBackward": embedding_dense_backward_cases,
    "BatchMatMul": batch_matmul_cases,
    "Permute": permute_cases,
    "ApplyAdamWV2": adamw_cases,
}
# The operators whose cases are generated (in the order they were added).
ACTIVE = ["Embedding", "EmbeddingDenseBackward", "BatchMatMul", "Permute", "ApplyAdamWV2"]


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for op in ACTIVE:
        OPS[op]()

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
        f.write(f"# generated by scripts/goldens/make_op_goldens_ops3a.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    total = sum(counts.values())
    print(f"{total} cases in {OUT}", file=sys.stderr)
    for op in sorted(counts):
        print(f"  {op}: {counts[op]}", file=sys.stderr)


if __name__ == "__main__":
    main()
