#!/usr/bin/env python3
"""A small labelled JPEG set for `train_resnet --images DIR`.

Writes examples/reference/resnet_images/CLASS/NN.jpg: four classes, sixteen
images each, one directory per class (the label of a class is the index of
its directory name in sorted order, as torchvision's ImageFolder numbers
them):

    checks        a checkerboard
    gradient      a smooth two-colour gradient, no edges
    hstripes      horizontal stripes
    vstripes      vertical stripes

Colours, periods, phases and sizes (24..64 pixels a side, so the random
resized crop has something to crop) are drawn per image from a fixed seed,
with Gaussian noise on top; every class survives a horizontal flip and a
crop of a quarter of the image, so the augmented task stays learnable.
Qualities 70..95 and the subsamplings 4:2:0, 4:2:2 and 4:4:4 are mixed, and
two images per class are grey, so the decoder's paths are all exercised.

A rerun with the same Pillow (and the libjpeg-turbo inside it) writes the
same bytes. CI never runs this; the output is committed. Run it by hand:

    pip install pillow numpy
    python3 scripts/goldens/make_resnet_images.py
"""

import os
import shutil

import numpy as np
import PIL
from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "examples", "reference", "resnet_images")
PER_CLASS = 16
CLASSES = ["checks", "gradient", "hstripes", "vstripes"]
SUBSAMPLING = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}


def colour(rng):
    return rng.integers(0, 256, size=3).astype(np.float64)


def draw(kind, rng):
    h, w = (int(v) for v in rng.integers(24, 65, size=2))
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    a, b = colour(rng), colour(rng)
    while np.abs(a - b).sum() < 150:  # two colours that tell apart
        b = colour(rng)
    period = float(rng.uniform(5.0, 10.0))
    phase = float(rng.uniform(0.0, period))
    if kind == "hstripes":
        mask = ((y + phase) % period) < period / 2
    elif kind == "vstripes":
        mask = ((x + phase) % period) < period / 2
    elif kind == "checks":
        mask = (((y + phase) // (period / 2)) + ((x + phase) // (period / 2))) % 2 == 0
    else:
        angle = float(rng.uniform(0.0, np.pi))
        t = (x * np.cos(angle) + y * np.sin(angle)) / (w + h)
        t = (t - t.min()) / max(t.max() - t.min(), 1e-9)
        pixels = a * (1 - t[..., None]) + b * t[..., None]
        mask = None
    if mask is not None:
        pixels = np.where(mask[..., None], a, b)
    pixels = pixels + rng.normal(0.0, 12.0, size=pixels.shape)
    return np.clip(np.rint(pixels), 0, 255).astype(np.uint8)


def main():
    rng = np.random.default_rng(20261202)
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for kind in CLASSES:
        os.makedirs(os.path.join(OUT, kind))
        for i in range(PER_CLASS):
            pixels = draw(kind, rng)
            quality = int(rng.integers(70, 96))
            grey = i % 8 == 7
            image = Image.fromarray(pixels, "RGB")
            path = os.path.join(OUT, kind, f"{i:02}.jpg")
            if grey:
                image.convert("L").save(path, quality=quality)
            else:
                sub = SUBSAMPLING[int(rng.integers(0, 3))]
                image.save(path, quality=quality, subsampling=sub)
    total = sum(
        os.path.getsize(os.path.join(OUT, k, f)) for k in CLASSES for f in os.listdir(os.path.join(OUT, k))
    )
    print(f"wrote {len(CLASSES) * PER_CLASS} JPEGs ({total} bytes) to {OUT} with Pillow {PIL.__version__}")


if __name__ == "__main__":
    main()
