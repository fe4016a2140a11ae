#!/usr/bin/env python3
"""PyTorch ground truth for ascendcl::ops::sgd_step (issue 20: SGD with
momentum and weight decay through the operators that exist).

Writes one directory per case under ascendcl/tests/goldens/sgd/<case>/ in the
manifest format of the first set (ascendcl/tests/goldens/ops/README.md; the
line kinds op, tensor, int, double, bool and expect are used), and
CASES.txt with the case count:

  op SGD
  tensor param f32 param.npy          the parameter before the first step
  tensor grads f32 grads.npy          [steps, *shape]: the gradient of each step
  int steps N
  double lr|momentum|dampening|weightDecay <value rounded to f32>
  bool nesterov|maximize 0/1
  expect param f32 ...                the parameter after the N steps
  expect momentumBuffer f32 ...       the momentum buffer after them
                                      (only with a momentum)

Each case runs torch.optim.SGD (single-tensor, foreach=False) on the CPU,
one thread, for N steps from a fresh optimizer (so the first step sets the
momentum buffer to the gradient), with inputs drawn with a fixed seed per
case (from its name): a rerun with the same torch version writes the same
bytes. The hyper-parameters are rounded to f32 first (the operators take
f32 scalars). CI never runs this; run it by hand:

    pip install torch numpy
    python3 scripts/goldens/make_sgd_goldens.py   # rewrites goldens/sgd/

Tolerance (|actual - expected| <= atol + rtol*|expected|), f32 only: rtol
1e-5, atol 1e-6. Each step is two to five element-wise operations per
element, each rounded to f32 on both sides, but not in the same way:
PyTorch's CPU add with alpha may fuse the multiply-add, the composed step
rounds `alpha*other` and the sum separately, and the maximize path computes
`grad - wd*param` where PyTorch computes `-grad + wd*param` (the same value
negated). Over three steps that is a few ulps (1.2e-7 relative each) of
O(1) values; the atol for entries near 0 after a cancellation.
"""

import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_goldens as g1  # noqa: E402  (layout, Rng, Case format)

ROOT = g1.ROOT
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "sgd")
Rng, layout = g1.Rng, g1.layout

RTOL, ATOL = 1e-5, 1e-6


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


def f32(x):
    """x rounded to f32, as a Python float: torch computes with exactly the
    value the operators get."""
    return float(np.float32(x))


def run_sgd(param, grads, hp):
    """torch.optim.SGD for len(grads) steps from a fresh optimizer; returns
    the parameter and the momentum buffer (None without momentum)."""
    p = torch.nn.Parameter(param.clone())
    opt = torch.optim.SGD([p], lr=hp["lr"], momentum=hp["momentum"], dampening=hp["dampening"],
                          weight_decay=hp["weightDecay"], nesterov=hp["nesterov"],
                          maximize=hp["maximize"], foreach=False)
    for g in grads:
        p.grad = g.clone()
        opt.step()
    return p.detach(), opt.state[p].get("momentum_buffer")


def sgd_cases():
    # name, shape, steps, lr, momentum, dampening, weight decay, nesterov,
    # maximize
    specs = [
        ("plain", (4, 5), 2, 0.1, 0.0, 0.0, 0.0, False, False),
        ("plain_maximize", (7,), 2, 0.05, 0.0, 0.0, 0.0, False, True),
        ("weight_decay", (4, 5), 3, 0.1, 0.0, 0.0, 0.01, False, False),
        ("weight_decay_maximize", (3, 4), 3, 0.1, 0.0, 0.0, 0.05, False, True),
        ("momentum", (4, 5), 3, 0.1, 0.9, 0.0, 0.0, False, False),
        ("momentum_one_step", (6,), 1, 0.1, 0.9, 0.5, 0.0, False, False),
        ("momentum_dampening", (4, 5), 3, 0.1, 0.9, 0.3, 0.0, False, False),
        ("momentum_maximize", (2, 3, 4), 3, 0.05, 0.8, 0.0, 0.0, False, True),
        ("momentum_weight_decay", (4, 5), 3, 0.1, 0.9, 0.0, 1e-2, False, False),
        ("momentum_weight_decay_dampening_maximize", (5, 3), 3, 0.1, 0.9, 0.25, 0.02, False, True),
        ("nesterov", (4, 5), 3, 0.1, 0.9, 0.0, 0.0, True, False),
        ("nesterov_maximize", (8,), 2, 0.1, 0.5, 0.0, 0.0, True, True),
        ("nesterov_weight_decay", (4, 5), 3, 0.1, 0.9, 0.0, 1e-2, True, False),
        ("nesterov_weight_decay_maximize", (3, 5), 3, 0.02, 0.95, 0.0, 0.1, True, True),
    ]
    for name, shape, steps, lr, mom, damp, wd, nesterov, maximize in specs:
        cname = f"sgd_{name}"
        r = Rng(cname)
        param = r.normal(shape, "f32")
        grads = r.normal((steps,) + shape, "f32")
        hp = {"lr": f32(lr), "momentum": f32(mom), "dampening": f32(damp), "weightDecay": f32(wd),
              "nesterov": nesterov, "maximize": maximize}
        c = Case(cname, "SGD")
        c.tensor("param", layout(param))
        c.tensor("grads", layout(grads))
        c.int_("steps", steps)
        for k in ("lr", "momentum", "dampening", "weightDecay"):
            c.lines.append(f"double {k} {hp[k]!r}")
        c.bool_("nesterov", nesterov)
        c.bool_("maximize", maximize)
        out, buf = run_sgd(param, list(grads), hp)
        c.expect("param", out, RTOL, ATOL)
        if mom != 0.0:
            c.expect("momentumBuffer", buf, RTOL, ATOL)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    sgd_cases()

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
        f.write(f"# generated by scripts/goldens/make_sgd_goldens.py with torch {torch.__version__}, "
                f"numpy {np.__version__}\n")
        for op in sorted(counts):
            f.write(f"{op} {counts[op]}\n")
    print(f"{sum(counts.values())} cases in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
