//! Which headers each library's bindgen passes read: CANN's own when the
//! install has them, ours (`include/`) otherwise, decided per library.
//!
//! Compiled into the build script (feature `bindgen`) and into the drift test,
//! so both read CANN's headers the same way. CANN does not ship our header
//! names for every library:
//!
//! | library | ours | CANN's (under its `include/`) |
//! |---|---|---|
//! | runtime | `acl/acl.h`, `acl/acl_dump.h` | `acl/acl.h`, `acl/acl_dump.h` (hicann/runtime `include/external/acl/`) |
//! | profiler | `acl/acl_prof.h` | `acl/acl_prof.h` (same package) |
//! | aclnn | `aclnn/aclnn.h` | `aclnn/acl_meta.h`, `aclnn/aclnn_base.h` (hicann/opbase `include/nnopbase/aclnn/`), one `aclnnop/aclnn_<op>.h` per operator (ops-math, ops-nn, ops-cv), the status codes in `aclnn/opdev/op_errno.h` or `opdev/op_errno.h` |
//! | hccl | `hccl/hccl.h` | `hccl/hccl.h`, `hccl/hccl_types.h` (and, from 8.5, `hccl/hccl_comm.h`, included by `hccl.h`: hicann/hccl `include/hccl.h:16-17`) |
//! | dvpp | `acldvppop/acldvpp.h` | `acldvppop/acldvpp_base.h`, `acldvppop/acldvpp_init.h`, one `acldvppop/acldvpp_<op>.h` per operator (each includes `aclnn/acl_meta.h`) |
//!
//! A runtime-only install (a "CANN runtime" container image) has the first
//! two and none of the others. CANN's aclnn, HCCL and DVPP operator headers
//! are C++ only, so those passes parse them as C++; CANN's aclnn and DVPP
//! declarations are spread over many files, which a wrapper header written
//! into a scratch directory includes one by one.

use std::path::{Path, PathBuf};

use crate::bindgen_config::{self, Pass};

/// A library whose two bindgen passes (types, functions) read one header set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// `libascendcl.so` / `libacl_rt.so`: [`Pass::Types`], [`Pass::Functions`].
    Runtime,
    /// `libmsprofiler.so`: [`Pass::ProfTypes`], [`Pass::ProfFunctions`].
    Profiler,
    /// `libnnopbase.so`, `libopapi*.so`: [`Pass::AclnnTypes`], [`Pass::AclnnFunctions`].
    Aclnn,
    /// `libhccl.so`, `libhcomm.so`: [`Pass::HcclTypes`], [`Pass::HcclFunctions`].
    Hccl,
    /// `libacl_dvpp_op.so`: [`Pass::DvppTypes`], [`Pass::DvppFunctions`].
    Dvpp,
}

/// CANN's operator headers that declare what `include/aclnn/aclnn.h` declares.
pub const CANN_ACLNN_HEADERS: &[&str] = &[
    "aclnn/acl_meta.h",
    "aclnn/aclnn_base.h",
    "aclnnop/aclnn_mm.h",
    "aclnnop/aclnn_addmm.h",
    "aclnnop/aclnn_matmul.h",
    "aclnnop/aclnn_add.h",
    "aclnnop/aclnn_mul.h",
    "aclnnop/aclnn_sub.h",
    "aclnnop/aclnn_relu.h",
    "aclnnop/aclnn_threshold_backward.h",
    "aclnnop/aclnn_logsoftmax.h",
    "aclnnop/aclnn_logsoftmax_backward.h",
    "aclnnop/aclnn_nll_loss.h",
    "aclnnop/aclnn_nll_loss_backward.h",
    "aclnnop/aclnn_reduce_sum.h",
    "aclnnop/aclnn_cast.h",
    "aclnnop/aclnn_copy.h",
    "aclnnop/aclnn_zero.h",
    "aclnnop/aclnn_fill_scalar.h",
    "aclnnop/aclnn_argmax.h",
    "aclnnop/aclnn_convolution.h",
    "aclnnop/aclnn_convolution_backward.h",
    "aclnnop/aclnn_batch_norm.h",
    "aclnnop/aclnn_batch_norm_backward.h",
    "aclnnop/aclnn_max_pool2d_with_indices.h",
    "aclnnop/aclnn_max_pool2d_with_indices_backward.h",
    "aclnnop/aclnn_adaptive_avg_pool2d.h",
    "aclnnop/aclnn_adaptive_avg_pool2d_backward.h",
    "aclnnop/aclnn_upsample_bicubic_2d.h",
    "aclnnop/aclnn_upsample_bicubic_2d_backward.h",
    "aclnnop/aclnn_upsample_bilinear_2d.h",
    // operators III, norm_shape batch
    "aclnnop/aclnn_layer_norm.h",
    "aclnnop/aclnn_layer_norm_backward.h",
    "aclnnop/aclnn_mean.h",
    "aclnnop/aclnn_amax.h",
    // operators III, activations batch
    "aclnnop/aclnn_softmax.h",
    "aclnnop/aclnn_softmax_backward.h",
    "aclnnop/aclnn_sigmoid.h",
    "aclnnop/aclnn_sigmoid_backward.h",
    "aclnnop/aclnn_tanh.h",
    "aclnnop/aclnn_tanh_backward.h",
    "aclnnop/aclnn_silu.h",
    "aclnnop/aclnn_silu_backward.h",
    // operators III, elementwise batch
    "aclnnop/aclnn_div.h",
    "aclnnop/aclnn_sqrt.h",
    "aclnnop/aclnn_rsqrt.h",
    "aclnnop/aclnn_exp.h",
    "aclnnop/aclnn_log.h",
    "aclnnop/aclnn_neg.h",
    "aclnnop/aclnn_pow.h",
    "aclnnop/aclnn_clamp.h",
    "aclnnop/aclnn_isfinite.h",
    // operators III, attention batch (hicann/ops-transformer)
    "aclnnop/aclnn_flash_attention_score.h",
    "aclnnop/aclnn_flash_attention_score_grad.h",
    // operators III, batch ops-a
    "aclnnop/aclnn_gelu.h",
    "aclnnop/aclnn_gelu_backward.h",
    "aclnnop/aclnn_gelu_v2.h",
    "aclnnop/aclnn_gelu_backward_v2.h",
    "aclnnop/aclnn_embedding.h",
    "aclnnop/aclnn_embedding_dense_backward.h",
    "aclnnop/aclnn_batch_matmul.h",
    "aclnnop/aclnn_permute.h",
    "aclnnop/aclnn_apply_adam_w_v2.h",
    // operators III, batch ops3b
    "aclnnop/aclnn_cat.h",
    "aclnnop/aclnn_split_tensor.h",
    "aclnnop/aclnn_split_with_size.h",
    "aclnnop/aclnn_max_dim.h",
    "aclnnop/aclnn_s_where.h",
    "aclnnop/aclnn_masked_fill_scalar.h",
    "aclnnop/aclnn_masked_fill_tensor.h",
    "aclnnop/aclnn_dropout_gen_mask.h",
    "aclnnop/aclnn_dropout_do_mask.h",
    "aclnnop/aclnn_dropout_backward.h",
];

/// Where CANN installs the aclnn status codes (`ACLNN_SUCCESS`, ...), in the
/// order looked at; the installs differ.
pub const CANN_ACLNN_STATUS_HEADERS: [&str; 2] = ["aclnn/opdev/op_errno.h", "opdev/op_errno.h"];

/// CANN's HCCL headers the HCCL passes need (8.5 adds `hccl/hccl_comm.h`,
/// which `hccl/hccl.h` includes itself).
pub const CANN_HCCL_HEADERS: &[&str] = &["hccl/hccl.h", "hccl/hccl_types.h"];

/// CANN's DVPP operator headers that declare what
/// `include/acldvppop/acldvpp.h` declares (CANN 8.5 installs them under
/// `include/acldvppop/`, beside the umbrella `acldvpp_op_api.h`).
pub const CANN_DVPP_HEADERS: &[&str] = &[
    "acldvppop/acldvpp_base.h",
    "acldvppop/acldvpp_init.h",
    "acldvppop/acldvpp_decode_jpeg.h",
    "acldvppop/acldvpp_crop_and_resize.h",
    "acldvppop/acldvpp_resize.h",
    "acldvppop/acldvpp_horizontal_flip.h",
    "acldvppop/acldvpp_normalize.h",
];

/// What CANN's DVPP operator headers include from elsewhere in the install
/// (the descriptor types, and through it `acl/acl_base.h`).
pub const CANN_DVPP_DEPENDENCIES: &[&str] = &["aclnn/acl_meta.h"];

impl Library {
    /// Every library, in generation order.
    pub const ALL: [Library; 5] = [
        Library::Runtime,
        Library::Profiler,
        Library::Aclnn,
        Library::Hccl,
        Library::Dvpp,
    ];

    /// The library's name in build output.
    pub fn name(self) -> &'static str {
        match self {
            Library::Runtime => "runtime",
            Library::Profiler => "profiler",
            Library::Aclnn => "aclnn",
            Library::Hccl => "hccl",
            Library::Dvpp => "dvpp",
        }
    }

    /// The two passes over this library's headers.
    pub fn passes(self) -> [Pass; 2] {
        match self {
            Library::Runtime => [Pass::Types, Pass::Functions],
            Library::Profiler => [Pass::ProfTypes, Pass::ProfFunctions],
            Library::Aclnn => [Pass::AclnnTypes, Pass::AclnnFunctions],
            Library::Hccl => [Pass::HcclTypes, Pass::HcclFunctions],
            Library::Dvpp => [Pass::DvppTypes, Pass::DvppFunctions],
        }
    }

    /// Our header for this library, relative to `include/`.
    pub fn our_header(self) -> &'static str {
        match self {
            Library::Runtime => "acl/acl.h",
            Library::Profiler => "acl/acl_prof.h",
            Library::Aclnn => "aclnn/aclnn.h",
            Library::Hccl => "hccl/hccl.h",
            Library::Dvpp => "acldvppop/acldvpp.h",
        }
    }

    /// The headers of CANN's that the passes read, as build output names them.
    pub fn cann_headers_summary(self) -> &'static str {
        match self {
            Library::Runtime => "acl/acl.h, acl/acl_dump.h",
            Library::Profiler => "acl/acl_prof.h",
            Library::Aclnn => "aclnn/acl_meta.h, aclnn/aclnn_base.h, aclnnop/aclnn_*.h, op_errno.h",
            Library::Hccl => "hccl/hccl.h, hccl/hccl_types.h",
            Library::Dvpp => "acldvppop/acldvpp_base.h, acldvpp_init.h, acldvpp_<op>.h",
        }
    }

    /// The headers this library's passes need that `cann_include` lacks
    /// (empty: CANN's headers are there).
    pub fn missing_in(self, cann_include: &Path) -> Vec<String> {
        let required: &[&str] = match self {
            Library::Runtime => &["acl/acl.h", "acl/acl_dump.h"],
            Library::Profiler => &["acl/acl_prof.h"],
            Library::Aclnn => CANN_ACLNN_HEADERS,
            Library::Hccl => CANN_HCCL_HEADERS,
            Library::Dvpp => CANN_DVPP_HEADERS,
        };
        let dependencies: &[&str] = match self {
            Library::Dvpp => CANN_DVPP_DEPENDENCIES,
            _ => &[],
        };
        let mut missing: Vec<String> = required
            .iter()
            .chain(dependencies)
            .filter(|h| !cann_include.join(h).is_file())
            .map(|h| h.to_string())
            .collect();
        if self == Library::Aclnn && cann_aclnn_status_header(cann_include).is_none() {
            missing.push(CANN_ACLNN_STATUS_HEADERS.join(" or "));
        }
        missing
    }
}

/// The aclnn status-code header of a CANN include directory, if installed.
pub fn cann_aclnn_status_header(cann_include: &Path) -> Option<&'static str> {
    CANN_ACLNN_STATUS_HEADERS
        .into_iter()
        .find(|h| cann_include.join(h).is_file())
}

/// The headers one library's passes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Headers {
    /// Our declaration headers: the include directory of this crate.
    Ours(PathBuf),
    /// CANN's own headers: the include directory of an install (the parent
    /// of `acl/`).
    Cann(PathBuf),
}

impl Headers {
    /// The include directory.
    pub fn include_dir(&self) -> &Path {
        match self {
            Headers::Ours(dir) | Headers::Cann(dir) => dir,
        }
    }

    /// `ours` or `cann`.
    pub fn source(&self) -> &'static str {
        match self {
            Headers::Ours(_) => "ours",
            Headers::Cann(_) => "cann",
        }
    }

    /// What these headers are for `library`, for build output.
    pub fn describe(&self, library: Library) -> String {
        match self {
            Headers::Ours(dir) => format!(
                "our declaration header {}",
                dir.join(library.our_header()).display()
            ),
            Headers::Cann(dir) => format!(
                "CANN's headers in {} ({})",
                dir.display(),
                library.cann_headers_summary()
            ),
        }
    }
}

/// Which headers a library's passes should read first, and why not CANN's
/// when it is ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// CANN's headers are all there.
    Cann(PathBuf),
    /// Ours, because of the reason given.
    Ours {
        /// Why not CANN's (no install, or which headers it lacks).
        why: String,
    },
}

/// CANN's headers for `library` when `cann_include` (an install's include
/// directory, if one was found) holds every one it needs; ours otherwise.
pub fn choose(library: Library, cann_include: Option<&Path>) -> Choice {
    let Some(include) = cann_include else {
        return Choice::Ours {
            why: "no CANN install with headers was found".to_string(),
        };
    };
    let missing = library.missing_in(include);
    if missing.is_empty() {
        return Choice::Cann(include.to_path_buf());
    }
    const SHOWN: usize = 3;
    let mut listed = missing[..missing.len().min(SHOWN)].join(", ");
    if missing.len() > SHOWN {
        listed.push_str(&format!(" and {} more", missing.len() - SHOWN));
    }
    Choice::Ours {
        why: format!("the CANN install at {} lacks {listed}", include.display()),
    }
}

/// The bindgen builder of `pass` over `headers`.
///
/// CANN's aclnn passes read a wrapper header that includes each of
/// [`CANN_ACLNN_HEADERS`], the dvpp passes one that includes each of
/// [`CANN_DVPP_HEADERS`]; they are written into `scratch` (only when their
/// text changed, so that a build script that reads them is not rerun for
/// nothing).
pub fn builder(headers: &Headers, pass: Pass, scratch: &Path) -> std::io::Result<bindgen::Builder> {
    let cann = match headers {
        Headers::Ours(include) => return Ok(bindgen_config::builder(include, pass)),
        Headers::Cann(include) => include,
    };
    Ok(if pass.is_aclnn() {
        let wrapper_include = write_aclnn_wrapper(cann, scratch)?;
        bindgen_config::builder(&wrapper_include, pass)
            .clang_arg(format!("-I{}", cann.display()))
            // CANN's operator headers include "aclnn_util.h" from their own directory.
            .clang_arg(format!("-I{}", cann.join("aclnnop").display()))
            .clang_args(bindgen_config::CXX_ARGS)
    } else if pass.is_hccl() {
        bindgen_config::builder(cann, pass).clang_args(bindgen_config::CXX_ARGS)
    } else if pass.is_dvpp() {
        let wrapper_include = write_dvpp_wrapper(scratch)?;
        bindgen_config::builder(&wrapper_include, pass)
            .clang_arg(format!("-I{}", cann.display()))
            .clang_args(bindgen_config::CXX_ARGS)
    } else {
        bindgen_config::builder(cann, pass)
    })
}

/// Writes `<scratch>/dvpp/acldvppop/acldvpp.h`, including every CANN DVPP
/// operator header the passes read (found through `-I<CANN include>`), and
/// returns `<scratch>/dvpp` (the include directory to give
/// [`bindgen_config::builder`]). A directory of its own: nothing else in it
/// can shadow a CANN header.
fn write_dvpp_wrapper(scratch: &Path) -> std::io::Result<PathBuf> {
    let mut text = String::from("/* Generated by ascendcl-sys: CANN's DVPP operator headers. */\n");
    for header in CANN_DVPP_HEADERS {
        text.push_str(&format!("#include \"{header}\"\n"));
    }
    let include = scratch.join("dvpp");
    let dir = include.join("acldvppop");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("acldvpp.h");
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&file, text)?;
    }
    Ok(include)
}

/// Writes `<scratch>/aclnn/aclnn.h`, including every CANN aclnn header the
/// passes read, and returns `scratch` (the include directory to give
/// [`bindgen_config::builder`]).
fn write_aclnn_wrapper(cann_include: &Path, scratch: &Path) -> std::io::Result<PathBuf> {
    let mut text = String::from("/* Generated by ascendcl-sys: CANN's aclnn headers. */\n");
    text.push_str("#include <stdbool.h>\n");
    for header in CANN_ACLNN_HEADERS
        .iter()
        .copied()
        .chain(cann_aclnn_status_header(cann_include))
    {
        text.push_str(&format!("#include \"{header}\"\n"));
    }
    let dir = scratch.join("aclnn");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("aclnn.h");
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&file, text)?;
    }
    Ok(scratch.to_path_buf())
}
