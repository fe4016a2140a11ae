"""Writes the safetensors file the `weights_safetensors` test loads.

PyTorch on the CPU saves a small state dict with `safetensors.torch.save_file`,
the way users save weights for the GPU-to-Ascend move. The values are
closed-form (arange-based), so the test states them without reading PyTorch:

  "linear.weight": float32 [3, 4], value i * 0.25 - 1.0 for flat index i
  "linear.bias":   float32 [3],    value 0.5 * i
  "embed.index":   int64   [2, 2], value 1000000000000 + i (past 2^32)
  "norm.scale":    bfloat16 [4],   value 1.0 + i / 8 (exact in bf16)

Run: python3 scripts/goldens/make_weights_safetensors.py (needs torch and
safetensors; not run in CI, the output is committed).
"""

import pathlib

import torch
from safetensors.torch import save_file

OUT = pathlib.Path(__file__).resolve().parents[2] / "ascendcl/tests/goldens/weights/pytorch_state_dict.safetensors"


def main():
    state = {
        "linear.weight": (torch.arange(12, dtype=torch.float32) * 0.25 - 1.0).reshape(3, 4),
        "linear.bias": torch.arange(3, dtype=torch.float32) * 0.5,
        "embed.index": (torch.arange(4, dtype=torch.int64) + 1_000_000_000_000).reshape(2, 2),
        "norm.scale": (1.0 + torch.arange(4, dtype=torch.float32) / 8).to(torch.bfloat16),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    save_file(state, str(OUT))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
