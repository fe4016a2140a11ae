#!/usr/bin/env python3
"""PyTorch reference run for the Rust example `train_gpt` (issue 23).

Writes everything the example starts from and checks against, under
examples/reference/train_gpt/ (run from the repository root, PyTorch on the
CPU, float32, one thread; outside CI):

  init.safetensors   the initial parameters, by name (see PARAMETERS)
  batches.npy        int64 [STEPS, B, T + 1]: step k trains on batches[k]
                     (inputs [:, :T], next-token targets [:, 1:])
  losses.txt         'step <k> loss <value>' for k = 1..STEPS ('%.9g'), the
                     loss of each step's forward pass, before its update
  grads/<name>.npy   float32 gradients of step 1 (before the first update),
                     one file per parameter, named as in init.safetensors
                     with '.' kept: compared by `ascendcl validate DIR DIR`
  final_loss.txt     the loss of batches[0] under the final parameters

`--bf16` instead trains the same model in bf16 mixed precision, as
`train_gpt --bf16` does: the forward under
torch.autocast("cpu", dtype=torch.bfloat16), the backward from the loss
scaled by torch.amp.GradScaler("cpu") (its defaults: scale 2**16, backoff
0.5, growth 2 every 2000 steps), scaler.step(opt) and scaler.update(); fp32
parameters and AdamW state. It writes under bf16/:

  losses.txt         'step <k> loss <value> scale <s> next <s2>': the loss
                     (an f32 value) of each step's autocast forward, the
                     scale its backward used and the scale after update
  overflow.txt       the same with an overflow injected at step OVERFLOW
                     (wte.grad[0, 0] = inf after the backward): the step
                     is skipped and the scale halved
  gap.txt            the largest relative difference of losses.txt from the
                     f32 run's losses.txt: how far bf16 rounding alone moves
                     this model's losses (train_gpt's tolerance is derived
                     from it)

`--evaluate FILE` instead loads parameters from a safetensors file (what
`train_gpt --save FILE` writes) and prints the loss of batches[0] under
them, which must equal final_loss.txt (to f32 rounding).

The model (a decoder-only transformer, written out with explicit ops so the
Rust side can follow it one operator at a time):

  x   = wte[idx] + wpe[pos]                       (idx, pos: [B, T])
  per block l (L of them), pre-LayerNorm:
    h   = layer_norm(x, ln1)
    q,k,v = h @ Wq^T + bq, h @ Wk^T + bk, h @ Wv^T + bv    ([B, T, C])
    y   = softmax(q_h k_h^T / sqrt(D) + causal) v_h per head h (NH heads of
          D = C / NH, the head dim the last one of C), causal: key j > query i
          is masked
    x   = x + (y @ Wo^T + bo)
    h2  = layer_norm(x, ln2)
    x   = x + (gelu(h2 @ Wfc^T + bfc) @ Wpr^T + bpr)    (gelu: erf form)
  h   = layer_norm(x, ln_f)
  logits = h @ wte^T                              (tied output projection)
  loss   = cross_entropy(logits.view(-1, V), targets.view(-1))  (mean)

layer_norm: eps 1e-5, affine. Optimizer: torch.optim.AdamW(lr=LR,
betas=(0.9, 0.999), eps=1e-8, weight_decay=WD) over every parameter, in
PARAMETERS order; zero_grad before each step.

Data: a synthetic corpus with structure to learn: token t+1 = (3 * t + 1) %
V with probability 0.8, else uniform, from torch.Generator seed 1234.
Parameters: normal(0, 0.02) for the matrices and embeddings (torch.Generator
seed 7, drawn in PARAMETERS order), LayerNorm weights 1 and biases 0, linear
biases 0.
"""

import math
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

V, T, B, C, NH, L, FF = 64, 16, 4, 32, 2, 2, 128
STEPS = 8
LR, WD = 3e-3, 0.01
EPS = 1e-5

OUT = os.path.join("examples", "reference", "train_gpt")


def parameters():
    """(name, shape) in the order the optimizer and the generator see them."""
    p = [("wte", (V, C)), ("wpe", (T, C))]
    for l in range(L):
        h = f"h{l}."
        p += [
            (h + "ln1.weight", (C,)), (h + "ln1.bias", (C,)),
            (h + "attn.q.weight", (C, C)), (h + "attn.q.bias", (C,)),
            (h + "attn.k.weight", (C, C)), (h + "attn.k.bias", (C,)),
            (h + "attn.v.weight", (C, C)), (h + "attn.v.bias", (C,)),
            (h + "attn.o.weight", (C, C)), (h + "attn.o.bias", (C,)),
            (h + "ln2.weight", (C,)), (h + "ln2.bias", (C,)),
            (h + "mlp.fc.weight", (FF, C)), (h + "mlp.fc.bias", (FF,)),
            (h + "mlp.proj.weight", (C, FF)), (h + "mlp.proj.bias", (C,)),
        ]
    p += [("ln_f.weight", (C,)), ("ln_f.bias", (C,))]
    return p


def init():
    g = torch.Generator().manual_seed(7)
    out = {}
    for name, shape in parameters():
        if name.endswith("ln1.weight") or name.endswith("ln2.weight") or name == "ln_f.weight":
            t = torch.ones(shape)
        elif len(shape) == 1:
            t = torch.zeros(shape)
        else:
            t = torch.normal(0.0, 0.02, shape, generator=g)
        out[name] = t.float().contiguous()
    return out


def corpus():
    g = torch.Generator().manual_seed(1234)
    n = STEPS * B * (T + 1)
    tokens = torch.empty(n, dtype=torch.int64)
    tokens[0] = torch.randint(0, V, (1,), generator=g)
    for i in range(1, n):
        if torch.rand(1, generator=g).item() < 0.8:
            tokens[i] = (3 * tokens[i - 1] + 1) % V
        else:
            tokens[i] = torch.randint(0, V, (1,), generator=g)
    return tokens.view(STEPS, B, T + 1)


def forward(p, idx, targets):
    pos = torch.arange(T).expand(B, T)
    x = p["wte"][idx] + p["wpe"][pos]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    d = C // NH
    for l in range(L):
        h = f"h{l}."
        a = F.layer_norm(x, (C,), p[h + "ln1.weight"], p[h + "ln1.bias"], EPS)
        q = a @ p[h + "attn.q.weight"].T + p[h + "attn.q.bias"]
        k = a @ p[h + "attn.k.weight"].T + p[h + "attn.k.bias"]
        v = a @ p[h + "attn.v.weight"].T + p[h + "attn.v.bias"]
        heads = lambda t: t.view(B, T, NH, d).transpose(1, 2)  # noqa: E731
        s = heads(q) @ heads(k).transpose(-1, -2) / math.sqrt(d)
        s = s.masked_fill(mask, float("-inf"))
        y = (torch.softmax(s, dim=-1) @ heads(v)).transpose(1, 2).reshape(B, T, C)
        x = x + (y @ p[h + "attn.o.weight"].T + p[h + "attn.o.bias"])
        a2 = F.layer_norm(x, (C,), p[h + "ln2.weight"], p[h + "ln2.bias"], EPS)
        m = F.gelu(a2 @ p[h + "mlp.fc.weight"].T + p[h + "mlp.fc.bias"])
        x = x + (m @ p[h + "mlp.proj.weight"].T + p[h + "mlp.proj.bias"])
    x = F.layer_norm(x, (C,), p["ln_f.weight"], p["ln_f.bias"], EPS)
    logits = x @ p["wte"].T
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))


OVERFLOW = 3


def train_bf16(inject=None):
    """Lines of `losses.txt` for the bf16 mixed-precision run (an overflow
    injected at step `inject`, 1-based, if given)."""
    batches = corpus()
    params = {n: t.clone().requires_grad_(True) for n, t in init().items()}
    order = [params[n] for n, _ in parameters()]
    opt = torch.optim.AdamW(order, lr=LR, betas=(0.9, 0.999), eps=1e-8, weight_decay=WD)
    scaler = torch.amp.GradScaler("cpu")
    lines, losses = [], []
    for k in range(STEPS):
        opt.zero_grad()
        batch = batches[k]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = forward(params, batch[:, :T], batch[:, 1:])
        scaler.scale(loss).backward()
        if inject == k + 1:
            with torch.no_grad():
                params["wte"].grad[0, 0] = float("inf")
        used = scaler.get_scale()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        lines.append(f"step {k + 1} loss {loss.item():.9g} scale {used:g} next {scaler.get_scale():g}")
    return lines, losses


def bf16_main():
    torch.set_num_threads(1)
    out = os.path.join(OUT, "bf16")
    os.makedirs(out, exist_ok=True)
    lines, losses = train_bf16()
    with open(os.path.join(out, "losses.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    overflow, _ = train_bf16(OVERFLOW)
    with open(os.path.join(out, "overflow.txt"), "w") as f:
        f.write("\n".join(overflow) + "\n")
    with open(os.path.join(OUT, "losses.txt")) as f:
        fp32 = [float(line.split()[3]) for line in f if line.strip()]
    gap = max(abs(a - b) / abs(b) for a, b in zip(losses, fp32))
    with open(os.path.join(out, "gap.txt"), "w") as f:
        f.write(f"{gap:.6g}\n")
    print("\n".join(lines))
    print(f"overflow at step {OVERFLOW}:")
    print("\n".join(overflow))
    print(f"largest relative difference from the f32 run: {gap:.6g}")


def evaluate(path):
    from safetensors.torch import load_file

    torch.set_num_threads(1)
    import numpy as np

    weights = load_file(path)
    missing = [n for n, _ in parameters() if n not in weights]
    if missing:
        raise SystemExit(f"{path}: missing {missing}")
    batch = torch.from_numpy(np.load(os.path.join(OUT, "batches.npy")))[0]
    with torch.no_grad():
        loss = forward(weights, batch[:, :T], batch[:, 1:])
    with open(os.path.join(OUT, "final_loss.txt")) as f:
        expected = float(f.read())
    print(f"loss of batch 0 under {path}: {loss.item():.9g} (final_loss.txt: {expected:.9g})")
    if abs(loss.item() - expected) > 1e-5 * abs(expected):
        raise SystemExit("DOES NOT match final_loss.txt")


def main():
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--evaluate":
        return evaluate(sys.argv[2])
    if len(sys.argv) == 2 and sys.argv[1] == "--bf16":
        return bf16_main()
    torch.set_num_threads(1)
    os.makedirs(os.path.join(OUT, "grads"), exist_ok=True)
    weights = init()
    save_file(weights, os.path.join(OUT, "init.safetensors"))
    batches = corpus()
    import numpy as np

    np.save(os.path.join(OUT, "batches.npy"), batches.numpy())
    params = {n: t.clone().requires_grad_(True) for n, t in weights.items()}
    order = [params[n] for n, _ in parameters()]
    opt = torch.optim.AdamW(order, lr=LR, betas=(0.9, 0.999), eps=1e-8, weight_decay=WD)
    lines = []
    for k in range(STEPS):
        opt.zero_grad()
        batch = batches[k]
        loss = forward(params, batch[:, :T], batch[:, 1:])
        loss.backward()
        if k == 0:
            for name, _ in parameters():
                np.save(os.path.join(OUT, "grads", f"{name}.npy"), params[name].grad.numpy())
        lines.append(f"step {k + 1} loss {loss.item():.9g}")
        opt.step()
    with open(os.path.join(OUT, "losses.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with torch.no_grad():
        final = forward(params, batches[0][:, :T], batches[0][:, 1:])
    with open(os.path.join(OUT, "final_loss.txt"), "w") as f:
        f.write(f"{final.item():.9g}\n")
    print("\n".join(lines))
    print(f"final loss on batch 0: {final.item():.9g}")


if __name__ == "__main__":
    main()
