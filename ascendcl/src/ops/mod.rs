//! Operators: the aclnn two-phase API, safe.
//!
//! Every NPU framework runs its math through aclnn: phase 1
//! (`aclnnXxxGetWorkspaceSize`) checks the arguments on the host and builds an
//! executor; phase 2 (`aclnnXxx`) queues the operator on a stream. Here:
//!
//! * [`Tensor`] / [`TensorMut`] are views (shape, element strides, offset,
//!   dtype) over any tracked device memory — [`DeviceBuffer`](crate::DeviceBuffer),
//!   allocator [`Block`](crate::alloc::Block)s, VMM [`Mapping`](crate::vmm::Mapping)s;
//!   transposes and strided views cost no copy; layouts and the 32-byte
//!   address rule are checked before any FFI call;
//! * each operator function (`ops::add`, `ops::mm`, ...) is phase 1 and
//!   returns a [`Prepared`] operator; [`Prepared::launch`] is phase 2 and
//!   returns an [`OpPending`] that keeps inputs borrowed shared and outputs
//!   mutably until it is waited on. Launches follow the async-safety contract
//!   of copies ([`crate::safety`]): every tensor's memory learns the launch,
//!   so leaking the guard still orders later uses;
//! * the device workspace comes from a caching allocator or your buffer
//!   ([`Workspace`]) and is held until the stream has run the operator;
//! * a single-use executor is consumed by its launch (launching twice does
//!   not compile); [`Prepared::into_repeatable`] gives a [`Repeatable`]
//!   executor re-pointed at new memory per launch, the fast path for fixed
//!   shapes;
//! * errors carry the aclnn status, its name, the `aclGetRecentErrMsg` text
//!   and a hint, like runtime errors ([`AclError`](crate::AclError)).
//!
//! # Operator index
//!
//! Each wrapper is the CANN operator named beside it (phase 1 is
//! `aclnn<Name>GetWorkspaceSize`, phase 2 `aclnn<Name>`; the declarations cite CANN's headers in
//! `ascendcl-sys/include/aclnn/aclnn.h`). Where CANN's operator differs from
//! PyTorch's, the wrapper's docs say how.
//!
//! | wrapper | CANN operator |
//! |---|---|
//! | [`adaptive_avg_pool2d`] | `aclnnAdaptiveAvgPool2d` |
//! | [`adaptive_avg_pool2d_backward`] | `aclnnAdaptiveAvgPool2dBackward` |
//! | [`add`] | `aclnnAdd` |
//! | [`addmm`] | `aclnnAddmm` |
//! | [`adds`] | `aclnnAdds` |
//! | [`amax`] | `aclnnAmax` |
//! | [`apply_adam_w_v2`] | `aclnnApplyAdamWV2` |
//! | [`argmax`] | `aclnnArgMax` |
//! | [`batch_matmul`] | `aclnnBatchMatMul` |
//! | [`batch_norm`] | `aclnnBatchNorm` |
//! | [`batch_norm_backward`] | `aclnnBatchNormBackward` |
//! | [`cast`] | `aclnnCast` |
//! | [`cat`] | `aclnnCat` |
//! | [`clamp`] | `aclnnClamp` |
//! | [`convolution`] | `aclnnConvolution` |
//! | [`convolution_backward`] | `aclnnConvolutionBackward` |
//! | [`convolution_transposed`] | `aclnnConvolution` |
//! | [`convolution_transposed_backward`] | `aclnnConvolutionBackward` |
//! | [`div`] | `aclnnDiv` |
//! | [`dropout_backward`] | `aclnnDropoutBackward` |
//! | [`dropout_do_mask`] | `aclnnDropoutDoMask` |
//! | [`dropout_gen_mask`] | `aclnnDropoutGenMask` |
//! | [`dropout_gen_mask_v2`] | `aclnnDropoutGenMaskV2` |
//! | [`embedding`] | `aclnnEmbedding` |
//! | [`embedding_dense_backward`] | `aclnnEmbeddingDenseBackward` |
//! | [`exp`] | `aclnnExp` |
//! | [`flash_attention_score`] | `aclnnFlashAttentionScore` |
//! | [`flash_attention_score_grad`] | `aclnnFlashAttentionScoreGrad` |
//! | [`gelu`] | `aclnnGelu` |
//! | [`gelu_backward`] | `aclnnGeluBackward` |
//! | [`gelu_backward_v2`] | `aclnnGeluBackwardV2` |
//! | [`gelu_v2`] | `aclnnGeluV2` |
//! | [`inplace_add`] | `aclnnInplaceAdd` |
//! | [`inplace_addmm`] | `aclnnInplaceAddmm` |
//! | [`inplace_copy`] | `aclnnInplaceCopy` |
//! | [`inplace_fill_scalar`] | `aclnnInplaceFillScalar` |
//! | [`inplace_masked_fill_scalar`] | `aclnnInplaceMaskedFillScalar` |
//! | [`inplace_masked_fill_tensor`] | `aclnnInplaceMaskedFillTensor` |
//! | [`inplace_muls`] | `aclnnInplaceMuls` |
//! | [`inplace_sub`] | `aclnnInplaceSub` |
//! | [`inplace_zero`] | `aclnnInplaceZero` |
//! | [`isfinite`] | `aclnnIsFinite` |
//! | [`layer_norm`] | `aclnnLayerNorm` |
//! | [`layer_norm_backward`] | `aclnnLayerNormBackward` |
//! | [`log`] | `aclnnLog` |
//! | [`log_softmax`] | `aclnnLogSoftmax` |
//! | [`log_softmax_backward`] | `aclnnLogSoftmaxBackward` |
//! | [`matmul`] | `aclnnMatmul` |
//! | [`max_dim`] | `aclnnMaxDim` |
//! | [`max_pool2d_with_indices`] | `aclnnMaxPool2dWithIndices` |
//! | [`max_pool2d_with_indices_backward`] | `aclnnMaxPool2dWithIndicesBackward` |
//! | [`mean`] | `aclnnMean` |
//! | [`mm`] | `aclnnMm` |
//! | [`mul`] | `aclnnMul` |
//! | [`muls`] | `aclnnMuls` |
//! | [`neg`] | `aclnnNeg` |
//! | [`nll_loss`] | `aclnnNLLLoss` |
//! | [`nll_loss_backward`] | `aclnnNLLLossBackward` |
//! | [`permute`] | `aclnnPermute` |
//! | [`pow_tensor_scalar`] | `aclnnPowTensorScalar` |
//! | [`reduce_sum`] | `aclnnReduceSum` |
//! | [`relu`] | `aclnnRelu` |
//! | [`rsqrt`] | `aclnnRsqrt` |
//! | [`s_where`] | `aclnnSWhere` |
//! | [`sigmoid`] | `aclnnSigmoid` |
//! | [`sigmoid_backward`] | `aclnnSigmoidBackward` |
//! | [`silu`] | `aclnnSilu` |
//! | [`silu_backward`] | `aclnnSiluBackward` |
//! | [`softmax`] | `aclnnSoftmax` |
//! | [`softmax_backward`] | `aclnnSoftmaxBackward` |
//! | [`split_tensor`] | `aclnnSplitTensor` |
//! | [`split_with_size`] | `aclnnSplitWithSize` |
//! | [`sqrt`] | `aclnnSqrt` |
//! | [`sub`] | `aclnnSub` |
//! | [`tanh`] | `aclnnTanh` |
//! | [`tanh_backward`] | `aclnnTanhBackward` |
//! | [`threshold_backward`] | `aclnnThresholdBackward` |
//! | [`upsample_bicubic2d`] | `aclnnUpsampleBicubic2d` |
//! | [`upsample_bicubic2d_backward`] | `aclnnUpsampleBicubic2dBackward` |
//! | [`upsample_bilinear2d`] | `aclnnUpsampleBilinear2d` |
//! | [`sgd_step`] | none: `aclnnAdd`, `aclnnSub`, `aclnnMuls`, `aclnnInplaceAdd`, `aclnnInplaceMuls`, `aclnnInplaceCopy` in order |
//! | [`dropout_mask_len`] | (the mask length `dropout_gen_mask` needs; no call) |
//!
//! The libraries (`libnnopbase.so`, the op-API libraries) are loaded on the
//! first operator, next to the runtime library (see [`ascendcl_sys::aclnn`](mod@ascendcl_sys::aclnn)).
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
//! use ascendcl::prelude::*;
//! let ctx = Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0, -3.0, 4.0])?;
//! let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
//! ops::relu(&Tensor::new(&x, &[2, 2])?, TensorMut::new(&mut y, &[2, 2])?)?
//!     .launch(&stream, Workspace::none())?
//!     .wait()?;
//! assert_eq!(y.to_vec()?, vec![0.0, 2.0, 0.0, 4.0]);
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod activations;
mod cat;
mod conv;
mod descriptor;
mod device_tensor;
mod dropout;
mod dtype;
mod elementwise;
mod flash_attention;
mod layer_norm;
mod math;
mod max_dim;
mod nn;
mod norm_pool;
mod overlap;
mod pending;
pub(crate) mod phase1;
pub(crate) mod prepared;
mod reduce_dims;
mod repeatable;
mod scalar;
mod select;
mod slots;
mod split;
pub(crate) mod tensor;
mod unary;
pub(crate) mod workspace;

pub use activations::{
    sigmoid, sigmoid_backward, silu, silu_backward, softmax, softmax_backward, tanh, tanh_backward,
};
pub use conv::{
    ConvGrads, GradMask, Window, convolution, convolution_backward, convolution_transposed,
    convolution_transposed_backward,
};
pub use device_tensor::{DeviceTensor, SHOWN_ELEMENTS};
pub use dtype::{DType, Element};
pub use elementwise::{clamp, div, pow_tensor_scalar};
pub use math::{
    add, adds, argmax, cast, inplace_add, inplace_copy, inplace_fill_scalar, inplace_muls,
    inplace_sub, inplace_zero, mul, muls, reduce_sum, sub,
};
pub use nn::{
    CubeMath, Reduction, addmm, inplace_addmm, log_softmax, log_softmax_backward, matmul, mm,
    nll_loss, nll_loss_backward, relu, threshold_backward,
};
pub use norm_pool::{
    Resize, RunningStats, adaptive_avg_pool2d, adaptive_avg_pool2d_backward, batch_norm,
    batch_norm_backward, max_pool2d_with_indices, max_pool2d_with_indices_backward,
    upsample_bicubic2d, upsample_bicubic2d_backward, upsample_bilinear2d,
};
pub use pending::OpPending;
pub use prepared::Prepared;
pub use repeatable::Repeatable;
pub use scalar::Scalar;
pub use tensor::{ADDRESS_ALIGNMENT, MAX_DIMS, Tensor, TensorMut};
pub use unary::{exp, isfinite, log, neg, rsqrt, sqrt};
pub use workspace::Workspace;
// operators III, norm_shape batch
pub use layer_norm::{LayerNormStats, layer_norm, layer_norm_backward};
pub use reduce_dims::{amax, mean};
// operators III, attention batch
pub use flash_attention::{
    AttentionLayout, AttentionSaved, AttentionStats, FlashAttention, SparseMode,
    flash_attention_score, flash_attention_score_grad,
};
// operators III, batch ops-a
mod gelu;
pub use gelu::{GeluApproximate, gelu, gelu_backward, gelu_backward_v2, gelu_v2};
mod embedding;
pub use embedding::{embedding, embedding_dense_backward};
mod batch_matmul;
pub use batch_matmul::batch_matmul;
mod permute;
pub use permute::permute;
mod adamw;
pub use adamw::{AdamW, apply_adam_w_v2};
// operators III, batch ops3b
pub use cat::cat;
pub use dropout::{
    dropout_backward, dropout_do_mask, dropout_gen_mask, dropout_gen_mask_v2, dropout_mask_len,
};
pub use max_dim::max_dim;
pub use select::{inplace_masked_fill_scalar, inplace_masked_fill_tensor, s_where};
pub use split::{split_tensor, split_with_size};
// SGD, composed from the element-wise operators
mod sgd;
pub use sgd::{MomentumBuffer, Sgd, sgd_step};
