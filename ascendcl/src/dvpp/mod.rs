//! The NPU's image engine (DVPP) for input pipelines: JPEG decode,
//! crop-and-resize, flip and normalize as stream-ordered operators, and a
//! batch [`Pipeline`] whose outputs cannot be reused while queued work
//! still reads or writes them.
//!
//! # The pit this closes
//! DVPP is asynchronous: a decode call returns when the task is queued. A
//! loader that decodes the next image into a buffer the previous batch is
//! still being read from gets "the next image's decode result overwrote the
//! buffer" — random data errors. The usual fix, a synchronize after every
//! call, throws the asynchrony away. Here every operator is a launch of
//! [`crate::ops`]: its tensors' memory learns the launch, so a host read
//! waits for it, a launch on another stream is ordered after it by an event
//! wait, and memory goes back to a pool only in order behind it. A
//! [`Batch`] hands the consumer its images with no host synchronize; its
//! buffers return to the pipeline's ring when it is dropped, and the next
//! decode into them is ordered after the consumer's queued reads.
//!
//! # API
//! CANN 8.5 has three DVPP APIs (capture-kernels-dvpp-facts.md §3): V1
//! `acldvpp*` picture descriptors (documented "sync before use"), V2
//! `hi_mpi` (not stream-ordered at all) and the acldvppop operators of
//! `libacl_dvpp_op.so` — two-phase operators on aclTensor, stream-ordered,
//! on Atlas A2/A3 (operatorlist_00065 …). This module wraps the last, the
//! one MindSpore and torchvision_npu use. The runtime's `aclInit`
//! initializes DVPP as well (acldvppInit's page, operatorlist_00062), so
//! nothing more is called before the first operator.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::dvpp::{self, ImageLayout, JpegHeader};
//! use ascendcl::ops::{Tensor, TensorMut, Workspace};
//! use ascendcl::prelude::*;
//! # let jpeg: &[u8] = include_bytes!("../../../examples/reference/dvpp/c444_q75.jpg");
//! let ctx = Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let header = JpegHeader::parse(jpeg)?;
//! let (h, w) = (header.height as usize, header.width as usize);
//! let bytes = DeviceBuffer::from_host(&ctx, jpeg)?;
//! let mut rgb = DeviceBuffer::<u8>::zeroed(&ctx, h * w * 3)?;
//! dvpp::decode_jpeg(
//!     &Tensor::new(&bytes, &[jpeg.len()])?,
//!     3,
//!     TensorMut::new(&mut rgb, &[h, w, 3])?,
//!     ImageLayout::Nhwc,
//! )?
//! .launch(&stream, Workspace::none())?
//! .wait()?;
//! assert_eq!(rgb.to_vec()?.len(), h * w * 3);
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod jpeg_header;
mod ops;
mod pipeline;
mod random_crop;

pub use jpeg_header::JpegHeader;
pub use ops::{Crop, ImageDims, crop_and_resize, decode_jpeg, horizontal_flip, normalize, resize};
pub use pipeline::{Batch, HostImage, Pipeline, PipelineConfig};
pub use random_crop::{RandomResizedCrop, SplitMix64};

use ascendcl_sys::Dvpp;

use crate::context::Context;
use crate::error::Result;

/// How an image tensor's axes are laid out (the aclTensor format the DVPP
/// operators read): channels first or last, with an optional leading N of 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageLayout {
    /// `(1,)C,H,W` (`ACL_FORMAT_NCHW`): what a training batch wants.
    Nchw,
    /// `(1,)H,W,C` (`ACL_FORMAT_NHWC`): interleaved pixels, as files hold them.
    Nhwc,
}

/// A resizing filter (`interpolationMode` of the resizing operators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Interpolation {
    /// Bilinear (mode 0).
    Bilinear = 0,
    /// Nearest neighbour (mode 1).
    Nearest = 1,
    /// Bicubic (mode 2).
    Bicubic = 2,
}

/// The DVPP operator library of `ctx`'s runtime, opened on first use.
pub(crate) fn dvpp_for(ctx: &Context) -> Result<&'static Dvpp> {
    Ok(ascendcl_sys::dvpp::dvpp_for(Some(ctx.lib()))?)
}

/// `acldvpp<op><suffix>` as a static string, for error reports.
pub(crate) fn function_name(op: &str, suffix: &str) -> &'static str {
    ascendcl_sys::DVPP_FUNCTIONS
        .iter()
        .find(|f| {
            f.strip_prefix("acldvpp")
                .and_then(|r| r.strip_suffix(suffix))
                .is_some_and(|r| r == op)
        })
        .copied()
        .unwrap_or("acldvpp operator")
}
