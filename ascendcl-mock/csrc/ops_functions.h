/*
 * ops_functions.h: the functions of the mock's operator libraries
 * (libnnopbase.so: descriptors and executors; libopapi.so: the aclnn ops),
 * as an X-macro. They are journaled, counted and fault-injected by the mock
 * (libascendcl.so) through the aclmock_* entry points of ext_ops.c, so their
 * names extend the mock's function list (mock.h, journal.c). The recording
 * shim does not export them.
 */
#ifndef ACLMOCK_OPS_FUNCTIONS_H
#define ACLMOCK_OPS_FUNCTIONS_H

#define MOCK_OPS_FUNCTIONS(X) \
    X(aclCreateTensor) X(aclDestroyTensor) X(aclCreateScalar) X(aclDestroyScalar) X(aclCreateIntArray)         \
    X(aclDestroyIntArray) X(aclCreateFloatArray) X(aclDestroyFloatArray) X(aclCreateBoolArray)                 \
    X(aclDestroyBoolArray) X(aclCreateTensorList) X(aclDestroyTensorList) X(aclSetAclOpExecutorRepeatable)     \
    X(aclDestroyAclOpExecutor) X(aclSetInputTensorAddr) X(aclSetOutputTensorAddr) X(aclSetTensorAddr)          \
    X(AclSetInputTensorAddr) X(AclSetOutputTensorAddr) X(AclSetTensorAddr) X(aclnnInit) X(aclnnFinalize)       \
    X(aclnnMmGetWorkspaceSize) X(aclnnMm) X(aclnnAddmmGetWorkspaceSize) X(aclnnAddmm)                          \
    X(aclnnInplaceAddmmGetWorkspaceSize) X(aclnnInplaceAddmm)                                                  \
    X(aclnnMatmulGetWorkspaceSize) X(aclnnMatmul) X(aclnnAddGetWorkspaceSize) X(aclnnAdd)                      \
    X(aclnnAddsGetWorkspaceSize) X(aclnnAdds) X(aclnnInplaceAddGetWorkspaceSize) X(aclnnInplaceAdd)            \
    X(aclnnMulGetWorkspaceSize) X(aclnnMul) X(aclnnMulsGetWorkspaceSize) X(aclnnMuls)                          \
    X(aclnnInplaceMulsGetWorkspaceSize) X(aclnnInplaceMuls) X(aclnnSubGetWorkspaceSize) X(aclnnSub)            \
    X(aclnnInplaceSubGetWorkspaceSize) X(aclnnInplaceSub)                                                      \
    X(aclnnReluGetWorkspaceSize) X(aclnnRelu) X(aclnnThresholdBackwardGetWorkspaceSize)                        \
    X(aclnnThresholdBackward) X(aclnnLogSoftmaxGetWorkspaceSize) X(aclnnLogSoftmax)                            \
    X(aclnnLogSoftmaxBackwardGetWorkspaceSize) X(aclnnLogSoftmaxBackward) X(aclnnNLLLossGetWorkspaceSize)      \
    X(aclnnNLLLoss) X(aclnnNLLLossBackwardGetWorkspaceSize) X(aclnnNLLLossBackward)                            \
    X(aclnnReduceSumGetWorkspaceSize) X(aclnnReduceSum) X(aclnnCastGetWorkspaceSize) X(aclnnCast)              \
    X(aclnnInplaceCopyGetWorkspaceSize) X(aclnnInplaceCopy) X(aclnnInplaceZeroGetWorkspaceSize)                \
    X(aclnnInplaceZero) X(aclnnInplaceFillScalarGetWorkspaceSize) X(aclnnInplaceFillScalar)                    \
    X(aclnnArgMaxGetWorkspaceSize) X(aclnnArgMax)                                                              \
    X(aclnnConvolutionGetWorkspaceSize) X(aclnnConvolution) X(aclnnConvolutionBackwardGetWorkspaceSize)        \
    X(aclnnConvolutionBackward) X(aclnnBatchNormGetWorkspaceSize) X(aclnnBatchNorm)                            \
    X(aclnnBatchNormBackwardGetWorkspaceSize) X(aclnnBatchNormBackward)                                        \
    X(aclnnMaxPool2dWithIndicesGetWorkspaceSize) X(aclnnMaxPool2dWithIndices)                                  \
    X(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize) X(aclnnMaxPool2dWithIndicesBackward)                  \
    X(aclnnAdaptiveAvgPool2dGetWorkspaceSize) X(aclnnAdaptiveAvgPool2d)                                        \
    X(aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize) X(aclnnAdaptiveAvgPool2dBackward)                        \
    X(aclnnUpsampleBicubic2dGetWorkspaceSize) X(aclnnUpsampleBicubic2d)                                        \
    X(aclnnUpsampleBicubic2dBackwardGetWorkspaceSize) X(aclnnUpsampleBicubic2dBackward)                        \
    X(aclnnUpsampleBilinear2dGetWorkspaceSize) X(aclnnUpsampleBilinear2d)                                      \
    /* operators III, norm_shape batch */                                                                      \
    X(aclnnLayerNormGetWorkspaceSize) X(aclnnLayerNorm)                                                        \
    X(aclnnLayerNormBackwardGetWorkspaceSize) X(aclnnLayerNormBackward) \
    X(aclnnMeanGetWorkspaceSize) X(aclnnMean) X(aclnnAmaxGetWorkspaceSize) X(aclnnAmax) \
    /* operators III, batch "activations" */ X(aclnnSoftmaxGetWorkspaceSize) X(aclnnSoftmax) \
    X(aclnnSoftmaxBackwardGetWorkspaceSize) X(aclnnSoftmaxBackward) \
    X(aclnnSigmoidGetWorkspaceSize) X(aclnnSigmoid) X(aclnnSigmoidBackwardGetWorkspaceSize) X(aclnnSigmoidBackward) \
    X(aclnnTanhGetWorkspaceSize) X(aclnnTanh) X(aclnnTanhBackwardGetWorkspaceSize) X(aclnnTanhBackward) \
    X(aclnnSiluGetWorkspaceSize) X(aclnnSilu) X(aclnnSiluBackwardGetWorkspaceSize) X(aclnnSiluBackward) \
    MOCK_OPS_FUNCTIONS_ELEMENTWISE(X) \
    MOCK_OPS_FUNCTIONS_ATTENTION(X) \
    MOCK_OPS_FUNCTIONS_OPS_A(X) \
    MOCK_OPS_FUNCTIONS_OPS3B(X)

/* operators III, batch `elementwise` (issue 20): op_div.c, op_unary.c, op_pow.c, op_clamp.c, op_isfinite.c */
#define MOCK_OPS_FUNCTIONS_ELEMENTWISE(X)                                                                  \
    X(aclnnDivGetWorkspaceSize) X(aclnnDiv) X(aclnnSqrtGetWorkspaceSize) X(aclnnSqrt)                             \
    X(aclnnRsqrtGetWorkspaceSize) X(aclnnRsqrt) X(aclnnExpGetWorkspaceSize) X(aclnnExp)                        \
    X(aclnnLogGetWorkspaceSize) X(aclnnLog) X(aclnnNegGetWorkspaceSize) X(aclnnNeg)                    \
    X(aclnnPowTensorScalarGetWorkspaceSize) X(aclnnPowTensorScalar)                                   \
    X(aclnnClampGetWorkspaceSize) X(aclnnClamp) X(aclnnIsFiniteGetWorkspaceSize) X(aclnnIsFinite)

/* operators III, batch `attention` (issue 20): op_flash_attention.c, op_flash_attention_grad.c */
#define MOCK_OPS_FUNCTIONS_ATTENTION(X)                                                                   \
    X(aclnnFlashAttentionScoreGetWorkspaceSize) X(aclnnFlashAttentionScore)                               \
    X(aclnnFlashAttentionScoreGradGetWorkspaceSize) X(aclnnFlashAttentionScoreGrad)
/* operators III, batch `ops-a` (issue 20): op_gelu.c, op_embedding.c, op_batch_matmul.c, op_permute.c,
 * op_adamw.c */
#define MOCK_OPS_FUNCTIONS_OPS_A(X)                                                                        \
    X(aclnnGeluGetWorkspaceSize) X(aclnnGelu) X(aclnnGeluBackwardGetWorkspaceSize) X(aclnnGeluBackward)     \
    X(aclnnGeluV2GetWorkspaceSize) X(aclnnGeluV2) X(aclnnGeluBackwardV2GetWorkspaceSize) X(aclnnGeluBackwardV2) \
    X(aclnnEmbeddingGetWorkspaceSize) X(aclnnEmbedding) X(aclnnEmbeddingDenseBackwardGetWorkspaceSize)      \
    X(aclnnEmbeddingDenseBackward) X(aclnnBatchMatMulGetWorkspaceSize) X(aclnnBatchMatMul) \
    X(aclnnPermuteGetWorkspaceSize) X(aclnnPermute) X(aclnnApplyAdamWV2GetWorkspaceSize) X(aclnnApplyAdamWV2)
/* operators III, batch `ops3b` (issue 20): op_cat.c, op_split.c, op_max_dim.c, op_where.c,
 * op_masked_fill.c, op_dropout_gen_mask.c, op_dropout.c */
#define MOCK_OPS_FUNCTIONS_OPS3B(X)                                                                             \
    X(aclnnCatGetWorkspaceSize) X(aclnnCat) X(aclnnSplitTensorGetWorkspaceSize) X(aclnnSplitTensor)             \
    X(aclnnSplitWithSizeGetWorkspaceSize) X(aclnnSplitWithSize) X(aclnnMaxDimGetWorkspaceSize) X(aclnnMaxDim) \
    X(aclnnSWhereGetWorkspaceSize) X(aclnnSWhere) X(aclnnInplaceMaskedFillScalarGetWorkspaceSize)                \
    X(aclnnInplaceMaskedFillScalar) X(aclnnInplaceMaskedFillTensorGetWorkspaceSize) X(aclnnInplaceMaskedFillTensor) \
    X(aclnnDropoutGenMaskGetWorkspaceSize) X(aclnnDropoutGenMask) X(aclnnDropoutGenMaskV2GetWorkspaceSize)       \
    X(aclnnDropoutGenMaskV2) X(aclnnDropoutDoMaskGetWorkspaceSize) X(aclnnDropoutDoMask)                         \
    X(aclnnDropoutBackwardGetWorkspaceSize) X(aclnnDropoutBackward)

#endif /* ACLMOCK_OPS_FUNCTIONS_H */
