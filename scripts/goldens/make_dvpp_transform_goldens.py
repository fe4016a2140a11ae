#!/usr/bin/env python3
"""torchvision ground truth for the DVPP image operators (issue 24):
acldvppCropAndResize, acldvppResize, acldvppHorizontalFlip, acldvppNormalize.

Writes ascendcl/tests/goldens/dvpp/manifest.txt, the input images
(input_<name>.npy, each once) and one <case>.expected.npy per case in the
same directory.
Every expected image is computed by torchvision's functional transforms on
the CPU from inputs drawn with a fixed seed, so a rerun with the same
torch/torchvision versions writes the same bytes. CI never runs this; run it
by hand:

    pip install torch torchvision numpy
    python3 scripts/goldens/make_dvpp_transform_goldens.py

What the goldens encode (the DVPP pages do not say which resampling the
hardware does; the mock follows torchvision, docs/mock-conformance.md "DVPP"):
  * CropAndResize = torchvision.transforms.functional.resized_crop on the
    image as float32, antialias=False (the plain interpolation of
    torch.nn.functional.interpolate, align_corners=False); Resize = resize
    of the whole image the same way;
  * a uint8 result is the float result rounded half to even and clamped to
    0..255 (what torchvision does after a float resize of a uint8 image);
  * Normalize = (x - mean) / std per channel in float32 (torchvision's
    normalize of the image as float32, mean and std in pixel units);
  * HorizontalFlip = torchvision's hflip.

Tolerances (checked by ascendcl/tests/dvpp_goldens.rs): uint8 results within
1 level (a tie rounded the other way after a different order of float
operations); float resamples within 1e-3 absolute on values up to 255 (the
mock interpolates in double, torch in float32, whose step near 255 is 1.5e-5:
a few steps of rounding, about 4e-6 relative); normalized values (about
-2.2..2.7) within 1e-4; flips exact.

Manifest line: case op layout dtype input params...
  crop_and_resize: top left height width out_h out_w mode(0 bilinear, 1 nearest, 2 bicubic)
  resize:          out_h out_w mode
  hflip:           (none)
  normalize:       mean0,mean1,mean2 std0,std1,std2 (one entry per channel)
Input and expected images are CHW (layout nchw) or HWC (layout nhwc).
"""

import os

import numpy as np
import torch
import torchvision
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "ascendcl", "tests", "goldens", "dvpp")
MODES = {0: InterpolationMode.BILINEAR, 1: InterpolationMode.NEAREST, 2: InterpolationMode.BICUBIC}


def image(seed, c, h, w):
    """A CHW uint8 image with smooth gradients, hard edges and noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255.0 / max(w - 1, 1)), (y * 255.0 / max(h - 1, 1)), ((x + y) % 32) * 8.0])[:c]
    edges = ((x // 7 + y // 5) % 2) * 60.0
    noise = rng.normal(0, 12, size=(c, h, w))
    return np.clip(base + edges + noise, 0, 255).round().astype(np.uint8)


def to_u8(t):
    return torch.clamp(torch.round(t), 0, 255).to(torch.uint8)


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy") or f == "manifest.txt":
            os.remove(f"{OUT}/{f}")
    lines = [
        f"# made by scripts/goldens/make_dvpp_transform_goldens.py with torch {torch.__version__}, "
        f"torchvision {torchvision.__version__}, numpy {np.__version__}"
    ]

    inputs = {}

    def save(case, op, layout, dtype, params, inp, exp):
        if layout == "nhwc":
            inp, exp = np.transpose(inp, (1, 2, 0)), np.transpose(exp, (1, 2, 0))
        key = inp.tobytes() + str(inp.shape).encode() + str(inp.dtype).encode()
        if key not in inputs:
            inputs[key] = f"input_{len(inputs)}"
            np.save(f"{OUT}/{inputs[key]}.npy", np.ascontiguousarray(inp))
        np.save(f"{OUT}/{case}.expected.npy", np.ascontiguousarray(exp))
        lines.append(" ".join([case, op, layout, dtype, inputs[key]] + [str(p) for p in params]))

    rgb = image(1, 3, 48, 64)
    grey = image(2, 1, 41, 30)
    odd = image(3, 3, 37, 53)
    flt = image(4, 3, 40, 50).astype(np.float32) + np.random.default_rng(5).uniform(
        -0.5, 0.5, size=(3, 40, 50)
    ).astype(np.float32)

    crops = [
        ("rgb", rgb, 5, 7, 30, 40, 24, 24),
        ("rgb", rgb, 0, 0, 48, 64, 96, 128),
        ("grey", grey, 3, 2, 20, 17, 32, 32),
        ("odd", odd, 1, 4, 33, 41, 16, 20),
        ("odd", odd, 10, 12, 4, 6, 13, 11),
    ]
    for name, img, top, left, h, w, oh, ow in crops:
        for mode in (0, 1, 2):
            case = f"crop_{name}_{top}_{left}_{h}x{w}_to_{oh}x{ow}_m{mode}"
            res = TF.resized_crop(torch.from_numpy(img).float(), top, left, h, w, [oh, ow], MODES[mode], antialias=False)
            save(case, "crop_and_resize", "nchw", "u8", [top, left, h, w, oh, ow, mode], img, to_u8(res).numpy())
    for mode in (0, 2):
        res = TF.resized_crop(torch.from_numpy(flt), 3, 5, 30, 40, [20, 26], MODES[mode], antialias=False)
        save(f"crop_float_m{mode}", "crop_and_resize", "nchw", "f32", [3, 5, 30, 40, 20, 26, mode], flt, res.numpy())
    # the same crop of an interleaved (HWC) image
    res = TF.resized_crop(torch.from_numpy(rgb).float(), 5, 7, 30, 40, [24, 24], MODES[0], antialias=False)
    save("crop_rgb_nhwc_m0", "crop_and_resize", "nhwc", "u8", [5, 7, 30, 40, 24, 24, 0], rgb, to_u8(res).numpy())

    for mode in (0, 1, 2):
        res = TF.resize(torch.from_numpy(odd).float(), [20, 30], MODES[mode], antialias=False)
        save(f"resize_odd_m{mode}", "resize", "nchw", "u8", [20, 30, mode], odd, to_u8(res).numpy())

    save("hflip_rgb", "hflip", "nchw", "u8", [], rgb, TF.hflip(torch.from_numpy(rgb)).numpy())
    save("hflip_grey_nhwc", "hflip", "nhwc", "u8", [], grey, TF.hflip(torch.from_numpy(grey)).numpy())
    save("hflip_float", "hflip", "nchw", "f32", [], flt, TF.hflip(torch.from_numpy(flt)).numpy())

    mean, std = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]
    m32, s32 = [float(np.float32(v)) for v in mean], [float(np.float32(v)) for v in std]
    for name, img, layout in (("rgb", rgb, "nchw"), ("odd_nhwc", odd, "nhwc")):
        res = TF.normalize(torch.from_numpy(img).float(), m32, s32)
        save(f"normalize_{name}", "normalize", layout, "u8", [",".join(map(repr, m32)), ",".join(map(repr, s32))], img, res.numpy())
    res = TF.normalize(torch.from_numpy(grey).float(), [m32[0]], [s32[0]])
    save("normalize_grey", "normalize", "nchw", "u8", [repr(m32[0]), repr(s32[0])], grey, res.numpy())
    res = TF.normalize(torch.from_numpy(flt), m32, s32)
    save("normalize_float", "normalize", "nchw", "f32", [",".join(map(repr, m32)), ",".join(map(repr, s32))], flt, res.numpy())

    with open(f"{OUT}/manifest.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} cases to {OUT}")


if __name__ == "__main__":
    main()
