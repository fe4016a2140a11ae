//! The acldvppop operators, safe: the two-phase shape of [`crate::ops`],
//! with the DVPP pages' rules checked before any FFI call.

use ascendcl_sys::{Dvpp, aclFormat};

use crate::context::Context;
use crate::dvpp::{ImageLayout, Interpolation, dvpp_for};
use crate::error::{Error, Result};
use crate::ops::phase1::Phase1;
use crate::ops::{DType, Prepared, Tensor, TensorMut};

/// An image tensor's height, width and channels, checked as every acldvpp
/// operator takes one (CANN 8.5 pages operatorlist_00064-00077: one image,
/// N 1 or absent, C 1 or 3, NCHW or NHWC, contiguous, uint8 or float).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageDims {
    /// Height.
    pub height: usize,
    /// Width.
    pub width: usize,
    /// Channels: 1 (GRAY) or 3 (RGB).
    pub channels: usize,
}

pub(crate) fn image_dims(
    op: &str,
    role: &str,
    shape: &[usize],
    dtype: DType,
    contiguous: bool,
    layout: ImageLayout,
    dtypes: &[DType],
) -> Result<ImageDims> {
    let bad = |why: String| Err(Error::invalid(format!("acldvpp{op}: `{role}` {why}")));
    if !dtypes.contains(&dtype) {
        return bad(format!("is {dtype:?}; this operator takes {dtypes:?}"));
    }
    let hwc = match shape {
        [1, a, b, c] | [a, b, c] => [*a, *b, *c],
        [n, _, _, _] => {
            return bad(format!(
                "holds {n} images; the DVPP operators take one (N is 1 or absent)"
            ));
        }
        _ => {
            return bad(format!(
                "has shape {shape:?}; an image is (1,)C,H,W or (1,)H,W,C"
            ));
        }
    };
    let d = match layout {
        ImageLayout::Nchw => ImageDims {
            channels: hwc[0],
            height: hwc[1],
            width: hwc[2],
        },
        ImageLayout::Nhwc => ImageDims {
            height: hwc[0],
            width: hwc[1],
            channels: hwc[2],
        },
    };
    if d.channels != 1 && d.channels != 3 {
        return bad(format!(
            "has {} channels ({layout:?}); the DVPP operators take 1 (GRAY) or 3 (RGB)",
            d.channels
        ));
    }
    if !contiguous {
        return bad("is not contiguous".to_string());
    }
    Ok(d)
}

fn dims_of(
    op: &str,
    role: &str,
    t: &Tensor<'_>,
    l: ImageLayout,
    dt: &[DType],
) -> Result<ImageDims> {
    image_dims(op, role, &t.shape(), t.dtype(), t.is_contiguous(), l, dt)
}

fn dims_of_mut(
    op: &str,
    role: &str,
    t: &TensorMut<'_>,
    l: ImageLayout,
    dt: &[DType],
) -> Result<ImageDims> {
    image_dims(op, role, &t.shape(), t.dtype(), t.is_contiguous(), l, dt)
}

fn format(layout: ImageLayout) -> aclFormat {
    match layout {
        ImageLayout::Nchw => aclFormat::ACL_FORMAT_NCHW,
        ImageLayout::Nhwc => aclFormat::ACL_FORMAT_NHWC,
    }
}

fn start<'a>(op: &'static str, ctx: &'a Context) -> Result<(Phase1<'a>, &'static Dvpp)> {
    let dvpp = dvpp_for(ctx)?;
    Ok((Phase1::new_dvpp(op, ctx)?, dvpp))
}

const PIXELS: &[DType] = &[DType::U8, DType::F32];

/// Decodes the JPEG whose bytes `bytes` holds (a contiguous uint8 tensor in
/// device memory) into `out`, a uint8 image of the JPEG's height and width
/// with `channels` channels: 3 gives RGB (a grey JPEG replicated), 1 GRAY
/// (a colour JPEG's luma) (`acldvppDecodeJpeg`, CANN 8.5 page
/// operatorlist_00065). Pixels come in stored order: the EXIF orientation
/// is not applied.
///
/// Read the size with [`JpegHeader::parse`](crate::dvpp::JpegHeader::parse)
/// first. The bytes are read on the device when the decode runs: a file the
/// decoder cannot take fails the stream, and an `out` of another size too;
/// [`Stream::synchronize`](crate::Stream::synchronize) reports why (the
/// operator's own `wait` waits on an event, which on the mock does not carry
/// a task's failure).
pub fn decode_jpeg<'a>(
    bytes: &Tensor<'a>,
    channels: usize,
    out: TensorMut<'a>,
    layout: ImageLayout,
) -> Result<Prepared<'a>> {
    const OP: &str = "DecodeJpeg";
    if bytes.dtype() != DType::U8 || !bytes.is_contiguous() || bytes.numel() == 0 {
        return Err(Error::invalid(
            "acldvppDecodeJpeg: `self` must be the JPEG's bytes: a non-empty contiguous uint8 tensor",
        ));
    }
    if channels != 1 && channels != 3 {
        return Err(Error::invalid(format!(
            "acldvppDecodeJpeg: channels is {channels}; it must be 1 (GRAY) or 3 (RGB)"
        )));
    }
    let d = dims_of_mut(OP, "out", &out, layout, &[DType::U8])?;
    if d.channels != channels {
        return Err(Error::invalid(format!(
            "acldvppDecodeJpeg: `out` has {} channels but channels is {channels}",
            d.channels
        )));
    }
    let (mut p, dvpp) = start(OP, bytes.storage.ctx)?;
    let s = p.input("self", bytes)?;
    p.format = format(layout);
    let o = p.output("out", out)?;
    let channels = channels as u32;
    // SAFETY: live descriptors and valid out-pointers (closure contract);
    // tryRecoverTruncated is reserved and must be true (operatorlist_00065).
    p.run_dvpp(dvpp, Dvpp::acldvppDecodeJpeg, |l, ws, ex| unsafe {
        l.acldvppDecodeJpegGetWorkspaceSize(s, channels, true, o, ws, ex)
    })
}

/// A crop of an image: its top-left corner and size, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crop {
    /// First row.
    pub top: usize,
    /// First column.
    pub left: usize,
    /// Rows, 4 to 32768.
    pub height: usize,
    /// Columns, 6 to 32768.
    pub width: usize,
}

fn u32_of(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::invalid(format!("acldvpp: {what} {v} does not fit in u32")))
}

/// Crops `crop` out of `self_` and resizes it to `out`'s height and width
/// (`acldvppCropAndResize`, operatorlist_00077): uint8 or float, `out` of
/// `self_`'s dtype and channels. Interpolation as torchvision's
/// `resized_crop` on a float tensor without antialiasing (a mock decision
/// where the page is silent: docs/mock-conformance.md, "DVPP").
pub fn crop_and_resize<'a>(
    self_: &Tensor<'a>,
    crop: Crop,
    interpolation: Interpolation,
    out: TensorMut<'a>,
    layout: ImageLayout,
) -> Result<Prepared<'a>> {
    const OP: &str = "CropAndResize";
    let (s, d) = same_kind(OP, self_, &out, layout)?;
    if !(4..=32768).contains(&crop.height) || !(6..=32768).contains(&crop.width) {
        return Err(Error::invalid(format!(
            "acldvppCropAndResize: the crop is {}x{} (height x width); it must be 4..=32768 x 6..=32768",
            crop.height, crop.width
        )));
    }
    if crop.top + crop.height > s.height || crop.left + crop.width > s.width {
        return Err(Error::invalid(format!(
            "acldvppCropAndResize: {crop:?} does not lie inside the {}x{} image",
            s.height, s.width
        )));
    }
    let (top, left) = (u32_of(crop.top, "top")?, u32_of(crop.left, "left")?);
    let (h, w) = (u32_of(crop.height, "height")?, u32_of(crop.width, "width")?);
    let mode = interpolation as u32;
    let (mut p, dvpp) = start(OP, self_.storage.ctx)?;
    p.format = format(layout);
    let (si, o) = (p.input("self", self_)?, p.output("out", out)?);
    let size = p.ints(&[d.height as i64, d.width as i64])?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run_dvpp(dvpp, Dvpp::acldvppCropAndResize, |l, ws, ex| unsafe {
        l.acldvppCropAndResizeGetWorkspaceSize(si, top, left, h, w, size, mode, o, ws, ex)
    })
}

/// `self_` and `out` as images of one dtype and channel count.
fn same_kind(
    op: &str,
    self_: &Tensor<'_>,
    out: &TensorMut<'_>,
    layout: ImageLayout,
) -> Result<(ImageDims, ImageDims)> {
    let s = dims_of(op, "self", self_, layout, PIXELS)?;
    let d = dims_of_mut(op, "out", out, layout, PIXELS)?;
    let (sd, od) = (self_.dtype(), out.dtype());
    if sd != od || s.channels != d.channels {
        return Err(Error::invalid(format!(
            "acldvpp{op}: `out` ({od:?}, {} channels) must have `self`'s dtype and channels ({sd:?}, {})",
            d.channels, s.channels
        )));
    }
    Ok((s, d))
}

/// Resizes `self_` to `out`'s height and width (`acldvppResize`,
/// operatorlist_00066), as [`crop_and_resize`] of the whole image.
pub fn resize<'a>(
    self_: &Tensor<'a>,
    interpolation: Interpolation,
    out: TensorMut<'a>,
    layout: ImageLayout,
) -> Result<Prepared<'a>> {
    const OP: &str = "Resize";
    same_kind(OP, self_, &out, layout)?;
    let mode = interpolation as u32;
    let (mut p, dvpp) = start(OP, self_.storage.ctx)?;
    p.format = format(layout);
    let (si, o) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run_dvpp(dvpp, Dvpp::acldvppResize, |l, ws, ex| unsafe {
        l.acldvppResizeGetWorkspaceSize(si, mode, o, ws, ex)
    })
}

/// Mirrors `self_` left to right into `out` (same dtype and shape;
/// `acldvppHorizontalFlip`, operatorlist_00072).
pub fn horizontal_flip<'a>(
    self_: &Tensor<'a>,
    out: TensorMut<'a>,
    layout: ImageLayout,
) -> Result<Prepared<'a>> {
    const OP: &str = "HorizontalFlip";
    let (s, d) = same_kind(OP, self_, &out, layout)?;
    if s != d {
        return Err(Error::invalid(format!(
            "acldvppHorizontalFlip: `out` is {d:?}, `self` {s:?}: they must be equal"
        )));
    }
    let (mut p, dvpp) = start(OP, self_.storage.ctx)?;
    p.format = format(layout);
    let (si, o) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run_dvpp(dvpp, Dvpp::acldvppHorizontalFlip, |l, ws, ex| unsafe {
        l.acldvppHorizontalFlipGetWorkspaceSize(si, o, ws, ex)
    })
}

/// `out = (self - mean[c]) / std[c]` per channel, in float
/// (`acldvppNormalize`, operatorlist_00064): `self_` uint8 or float, `out`
/// float of `self_`'s shape; `mean` and `std` one entry per channel, in the
/// pixel scale of `self_` (for uint8 input, torchvision's 0..1 constants
/// times 255); the image 6x4 to 4096x8192 (width x height).
pub fn normalize<'a>(
    self_: &Tensor<'a>,
    mean: &[f32],
    std: &[f32],
    out: TensorMut<'a>,
    layout: ImageLayout,
) -> Result<Prepared<'a>> {
    const OP: &str = "Normalize";
    let s = dims_of(OP, "self", self_, layout, PIXELS)?;
    let d = dims_of_mut(OP, "out", &out, layout, &[DType::F32])?;
    if s != d {
        return Err(Error::invalid(format!(
            "acldvppNormalize: `out` is {d:?}, `self` {s:?}: they must be equal"
        )));
    }
    if mean.len() != s.channels || std.len() != s.channels {
        return Err(Error::invalid(format!(
            "acldvppNormalize: mean and std need {} entries each (one per channel), got {} and {}",
            s.channels,
            mean.len(),
            std.len()
        )));
    }
    if !(6..=4096).contains(&s.width) || !(4..=8192).contains(&s.height) {
        return Err(Error::invalid(format!(
            "acldvppNormalize: the image is {}x{} (width x height); it must be 6x4 to 4096x8192",
            s.width, s.height
        )));
    }
    let (mut p, dvpp) = start(OP, self_.storage.ctx)?;
    p.format = format(layout);
    let (si, o) = (p.input("self", self_)?, p.output("out", out)?);
    let (m, sd) = (p.floats(mean)?, p.floats(std)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run_dvpp(dvpp, Dvpp::acldvppNormalize, |l, ws, ex| unsafe {
        l.acldvppNormalizeGetWorkspaceSize(si, m, sd, o, ws, ex)
    })
}
