#!/usr/bin/env python3
"""Pillow ground truth for the mock's JPEG decoder (acldvppDecodeJpeg).

Writes examples/reference/dvpp/: synthetic JPEG files NAME.jpg and, for each
one the decoder must accept, what Pillow (libjpeg-turbo with its defaults:
islow IDCT, fancy upsampling) decodes from it:

    NAME.npy        colour JPEG: HxWx3 uint8, Image.open(f).convert("RGB")
                    grey JPEG:   HxWx1 uint8, the grey samples
    NAME.gray.npy   colour JPEG only: HxWx1 uint8, libjpeg's grayscale output
                    (im.draft("L", im.size) before load: the Y plane of a
                    YCbCr file, 0.299 R + 0.587 G + 0.114 B of an RGB one)

and manifest.txt, one line per JPEG:

    name.jpg width height components subsampling quality restart progressive expected

subsampling is 4:4:4, 4:2:2, 4:2:0, 4:4:0 or gray (read back from the SOF),
quality the one Pillow encoded with, restart the DRI interval in MCUs (0:
none), progressive 0/1, expected ok, unsupported (progressive, arithmetic
coding) or corrupt (truncated in the middle of the entropy-coded data).
Header lines start with '#' and name the versions used.

The pictures are drawn with fixed seeds (gradients, saturated colour blocks
and a disc with hard edges, short 1-2 px strokes like text, Gaussian noise),
so a rerun with the same Pillow / libjpeg-turbo / jpegtran writes the same
bytes. Pillow cannot write 4:4:0, multi-scan sequential or arithmetic-coded
files; those are made losslessly from Pillow's output by jpegtran
(-transpose of a 4:2:2 file, -scans, -arithmetic). Sizes: mostly at least
32x32 (the real operator sends smaller images to its CPU fallback), plus a
few tiny odd ones for the edge cases of padding and upsampling.

CI never runs this. Run it by hand:

    pip install pillow numpy
    apt-get install libjpeg-turbo-progs      # jpegtran
    python3 scripts/goldens/make_dvpp_goldens.py   # rewrites the directory
"""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import PIL
from PIL import Image, features

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "examples", "reference", "dvpp")

PALETTE = [
    (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 0),
    (255, 0, 255), (0, 255, 255), (20, 20, 20), (250, 250, 250),
]


def seed_of(name):
    return zlib.crc32(name.encode())


def synth(w, h, seed):
    """An HxWx3 uint8 picture with real chroma detail."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.empty((h, w, 3))
    img[..., 0] = 255.0 * xx / max(w - 1, 1)
    img[..., 1] = 255.0 * yy / max(h - 1, 1)
    img[..., 2] = 128.0 + 100.0 * np.sin((xx + 2.0 * yy) / 5.0)
    for _ in range(4):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        x1 = x0 + rng.integers(1, max(2, w // 2))
        y1 = y0 + rng.integers(1, max(2, h // 2))
        img[y0:y1, x0:x1] = PALETTE[rng.integers(len(PALETTE))]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    r = rng.uniform(1.5, max(2.0, min(w, h) / 3.0))
    img[(xx - cx) ** 2 + (yy - cy) ** 2 < r * r] = PALETTE[rng.integers(len(PALETTE))]
    for _ in range(max(2, w * h // 250)):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        n, t = rng.integers(2, 9), rng.integers(1, 3)
        col = PALETTE[rng.integers(len(PALETTE))]
        if rng.random() < 0.5:
            img[y0:y0 + t, x0:x0 + n] = col
        else:
            img[y0:y0 + n, x0:x0 + t] = col
    img += rng.normal(0.0, 6.0, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def picture(name, w, h, grey=False):
    im = Image.fromarray(synth(w, h, seed_of(name)), "RGB")
    return im.convert("L") if grey else im


def pillow_jpeg(im, **kw):
    buf = io.BytesIO()
    im.save(buf, "JPEG", **kw)
    return buf.getvalue()


def jpegtran(data, *args):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.jpg")
        with open(src, "wb") as f:
            f.write(data)
        cmd = ["jpegtran", "-copy", "none"]
        for a in args:
            if a.startswith("@"):  # a scan script given inline
                script = os.path.join(tmp, "scans.txt")
                with open(script, "w") as f:
                    f.write(a[1:])
                cmd += ["-scans", script]
            else:
                cmd.append(a)
        return subprocess.run(cmd + [src], check=True, capture_output=True).stdout


def parse(data):
    """(width, height, [(h, v)], restart, sof) from the marker segments."""
    pos, dri, sof = 2, 0, None
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise ValueError("lost in markers")
        m = data[pos + 1]
        n = (data[pos + 2] << 8) | data[pos + 3]
        seg = data[pos + 4:pos + 2 + n]
        if m == 0xDD:
            dri = (seg[0] << 8) | seg[1]
        elif 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
            hgt, wid, nf = (seg[1] << 8) | seg[2], (seg[3] << 8) | seg[4], seg[5]
            samp = [(seg[7 + 3 * i] >> 4, seg[7 + 3 * i] & 15) for i in range(nf)]
            sof = (m, wid, hgt, samp)
        elif m == 0xDA:
            break
        pos += 2 + n
    m, wid, hgt, samp = sof
    return wid, hgt, samp, dri, m


def subsampling_name(samp):
    if len(samp) == 1:
        return "gray"
    names = {(1, 1): "4:4:4", (2, 1): "4:2:2", (2, 2): "4:2:0", (1, 2): "4:4:0"}
    if all(s == (1, 1) for s in samp[1:]) and samp[0] in names:
        return names[samp[0]]
    return ",".join("%dx%d" % s for s in samp)


def cases():
    """(name, jpeg bytes, quality, expected) in manifest order."""
    out = []

    def add(name, data, q, expected="ok"):
        out.append((name, data, q, expected))

    for sub, tag in ((0, "444"), (1, "422"), (2, "420")):
        for q in (50, 75, 95):
            name = "c%s_q%d" % (tag, q)
            add(name, pillow_jpeg(picture(name, 64, 48), quality=q, subsampling=sub), q)
    add("c420_160x120_q85", pillow_jpeg(picture("c420_160x120_q85", 160, 120), quality=85, subsampling=2), 85)
    # odd sizes: partial MCUs at the right and bottom edges
    for name, w, h, sub, q in (
        ("odd_37x23_420", 37, 23, 2, 75),
        ("odd_61x45_422", 61, 45, 1, 80),
        ("odd_61x45_420", 61, 45, 2, 60),
        ("odd_33x35_444", 33, 35, 0, 90),
        # tiny: a 1x1 image in a 16x16 MCU, chroma 3 wide (fancy), 2 wide
        # (libjpeg-turbo repeats samples), 1 wide, 1 high
        ("tiny_1x1_420", 1, 1, 2, 75),
        ("tiny_8x8_420", 8, 8, 2, 75),
        ("tiny_16x16_422", 16, 16, 1, 75),
        ("tiny_5x3_420", 5, 3, 2, 90),
        ("tiny_3x3_420", 3, 3, 2, 90),
        ("tiny_4x6_422", 4, 6, 1, 90),
        ("tiny_1x17_422", 1, 17, 1, 90),
        ("tiny_17x1_420", 17, 1, 2, 90),
    ):
        add(name, pillow_jpeg(picture(name, w, h), quality=q, subsampling=sub), q)
    # 4:4:0: a 4:2:2 file of the transposed picture, transposed losslessly
    for name, w, h, q in (("c440_64x48_q75", 64, 48, 75), ("c440_37x23_q90", 37, 23, 90)):
        src = picture(name, w, h).transpose(Image.Transpose.TRANSPOSE)
        add(name, jpegtran(pillow_jpeg(src, quality=q, subsampling=1), "-transpose"), q)
    # grey
    for name, w, h, q in (("grey_64x48_q75", 64, 48, 75), ("grey_37x23_q90", 37, 23, 90),
                          ("grey_100x75_q50", 100, 75, 50)):
        add(name, pillow_jpeg(picture(name, w, h, grey=True), quality=q), q)
    # restart intervals (the 96x72 one has 26 restarts: RST7 wraps to RST0)
    add("rst_61x45_420_b3", pillow_jpeg(picture("rst_61x45_420_b3", 61, 45), quality=75,
                                        subsampling=2, restart_marker_blocks=3), 75)
    add("rst_96x72_422_b2", pillow_jpeg(picture("rst_96x72_422_b2", 96, 72), quality=75,
                                        subsampling=1, restart_marker_blocks=2), 75)
    add("rst_64x48_444_rows1", pillow_jpeg(picture("rst_64x48_444_rows1", 64, 48), quality=75,
                                           subsampling=0, restart_marker_rows=1), 75)
    add("rst_grey_61x45_b5", pillow_jpeg(picture("rst_grey_61x45_b5", 61, 45, grey=True),
                                         quality=75, restart_marker_blocks=5), 75)
    # optimized Huffman tables
    add("opt_80x60_420_q75", pillow_jpeg(picture("opt_80x60_420_q75", 80, 60), quality=75,
                                         subsampling=2, optimize=True), 75)
    # SOF1: quantization tables with entries > 255 are written 16-bit
    qt = [min(1000, 4 + 14 * i) for i in range(64)]
    add("sof1_64x48_420", pillow_jpeg(picture("sof1_64x48_420", 64, 48), qtables=[qt, qt],
                                      subsampling=2), 0)
    # RGB stored as RGB (Adobe APP14 transform 0; Pillow refuses to
    # subsample it)
    add("rgb_48x40_444", pillow_jpeg(picture("rgb_48x40_444", 48, 40), quality=80,
                                     subsampling=0, keep_rgb=True), 80)
    # sequential files of several scans: one per component; Y then Cb+Cr
    base = pillow_jpeg(picture("scans_61x45_420", 61, 45), quality=75, subsampling=2)
    add("scans3_61x45_420", jpegtran(base, "@0;\n1;\n2;\n"), 75)
    add("scans2_61x45_420", jpegtran(base, "@0;\n1 2;\n"), 75)
    # APP1 EXIF (orientation 6: not applied) and a COM segment
    exif = Image.Exif()
    exif[0x0112] = 6
    add("exif_64x48_420", pillow_jpeg(picture("exif_64x48_420", 64, 48), quality=75, subsampling=2,
                                      exif=exif.tobytes(), comment=b"mock dvpp golden"), 75)
    # refused
    add("prog_64x48_420", pillow_jpeg(picture("prog_64x48_420", 64, 48), quality=75, subsampling=2,
                                      progressive=True), 75, "unsupported")
    add("arith_64x48_420", jpegtran(pillow_jpeg(picture("arith_64x48_420", 64, 48), quality=75,
                                                subsampling=2), "-arithmetic"), 75, "unsupported")
    full = pillow_jpeg(picture("trunc_64x48_420", 64, 48), quality=75, subsampling=2)
    sos = full.index(b"\xff\xda")
    add("trunc_64x48_420", full[:sos + (len(full) - sos) // 2], 75, "corrupt")
    return out


def decode_rgb(data):
    im = Image.open(io.BytesIO(data))
    if im.mode == "L":
        return np.asarray(im)[:, :, None]
    return np.asarray(im.convert("RGB"))


def decode_gray(data):
    im = Image.open(io.BytesIO(data))
    im.draft("L", im.size)
    if im.mode != "L" or im.size != Image.open(io.BytesIO(data)).size:
        sys.exit("draft('L') did not switch libjpeg to grayscale output (mode %s)" % im.mode)
    return np.asarray(im)[:, :, None]


def main():
    if shutil.which("jpegtran") is None:
        sys.exit("jpegtran not found (apt-get install libjpeg-turbo-progs)")
    tran = subprocess.run(["jpegtran", "-version"], capture_output=True, text=True)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    lines = [
        "# JPEG goldens for the mock's acldvppDecodeJpeg: scripts/goldens/make_dvpp_goldens.py",
        "# Pillow %s, libjpeg-turbo %s, numpy %s, jpegtran: %s" % (
            PIL.__version__, features.version("libjpeg_turbo"), np.__version__,
            (tran.stderr or tran.stdout).strip().splitlines()[0]),
        "# name width height components subsampling quality restart progressive expected",
    ]
    for name, data, q, expected in cases():
        with open(os.path.join(OUT, name + ".jpg"), "wb") as f:
            f.write(data)
        w, h, samp, dri, sof = parse(data)
        if expected == "ok":
            np.save(os.path.join(OUT, name + ".npy"), decode_rgb(data))
            if len(samp) == 3:
                np.save(os.path.join(OUT, name + ".gray.npy"), decode_gray(data))
        elif expected == "corrupt":
            try:
                Image.open(io.BytesIO(data)).load()
                sys.exit("%s: Pillow decoded the truncated file" % name)
            except OSError:
                pass
        lines.append("%s.jpg %d %d %d %s %s %d %d %s" % (
            name, w, h, len(samp), subsampling_name(samp), q if q else "-", dri,
            int(sof in (0xC2, 0xC6, 0xCA, 0xCE)), expected))
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print("wrote %d files, %d bytes, to %s" % (len(os.listdir(OUT)), total, OUT))


if __name__ == "__main__":
    main()
