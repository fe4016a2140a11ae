/*
 * ascendcl-sys: the aclnn operator API (CANN 8.5.0) that the ascendcl crates
 * support, in C.
 *
 * Our own declarations. Names, parameter types and orders are those of CANN
 * so that a program compiled against this header calls CANN's libraries
 * correctly; the text is written for this project. Sources of the facts
 * (tag v8.5.0 of each repository):
 *   descriptors   hicann/opbase   include/nnopbase/aclnn/acl_meta.h, aclnn_base.h
 *   math ops      hicann/ops-math math/<op>/op_api/aclnn_<op>.h (and op_host/op_api)
 *   nn ops        hicann/ops-nn   activation/, loss/, matmul/mat_mul_v3/ op_api headers
 * CANN's acl_meta.h is C++ only (it defines a constexpr); this header is C.
 *
 * Libraries: the descriptor functions live in libnnopbase.so, the operators
 * in libopapi_math.so / libopapi_nn.so (CANN 8.5 split) or libopapi.so.
 */
#ifndef ASCENDCL_SYS_ACLNN_H
#define ASCENDCL_SYS_ACLNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- descriptors */

/* Opaque objects owned by libnnopbase; created and destroyed below. */
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;

/* Result of every aclnn call; 0 is success. */
typedef int32_t aclnnStatus;

/*
 * aclnn status codes (hicann/opbase include/nnopbase/opdev/op_errno.h):
 * a null required argument, an invalid argument (shape, dtype, broadcast),
 * a runtime failure, and the internal-error family 5610xx/5611xx.
 */
#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107

/*
 * A tensor descriptor over device memory at `tensorData` (32-byte aligned):
 * a view of `viewDimsNum` dims with element `stride`s starting `offset`
 * elements in, over a storage of `storageDimsNum` dims. Null on failure.
 * Only the descriptor is created; the memory stays the caller's.
 */
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
/* A scalar holding a copy of the host value at `value`, of type `dataType`. */
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
/* Arrays holding copies of `size` host values. */
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
/* Lists referring to existing descriptors (which must outlive the list). */
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);

aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclnnStatus aclDestroyScalar(const aclScalar *scalar);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclDestroyScalarList(const aclScalarList *array);

/*
 * Keeps an executor alive after its launch so it can be launched again (call
 * right after phase 1); it must then be destroyed explicitly. Without it an
 * executor is freed by its one launch.
 */
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);
/*
 * Re-points the `index`th input / output / tensor of a repeatable executor
 * (and `tensor`) at device address `addr`.
 */
aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                  void *addr);
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                   void *addr);
aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                             void *addr);
/* Sets or reads the device address of a descriptor. */
aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);
aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);

/* Optional lighter init (aclInit also covers it); each at most once. */
aclnnStatus aclnnInit(const char *configPath);
aclnnStatus aclnnFinalize(void);

/* ------------------------------------------------------------- operators */
/*
 * Every operator Xxx comes as two functions:
 *   aclnnXxxGetWorkspaceSize(<inputs, attributes, outputs>, uint64_t *workspaceSize,
 *                            aclOpExecutor **executor)
 *     host only: checks the arguments, sizes the device workspace and builds
 *     the executor;
 *   aclnnXxx(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
 *            aclrtStream stream)
 *     queues the operator on the stream; the workspace (null when its size is
 *     0) must stay valid until the stream has run it.
 * cubeMathType: 0 keep dtype, 1 allow fp32 down-precision, 2 fp16, 3 hf32.
 * reduction: 0 none, 1 mean, 2 sum.
 */
#define ACLNN_LAUNCH(name) \
    aclnnStatus name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, \
                     aclrtStream stream)

/* self @ mat2, 2-D (hicann/ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_mm.h). */
aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                    int8_t cubeMathType, uint64_t *workspaceSize,
                                    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMm);
/* beta*self + alpha*(mat1 @ mat2), self broadcast (aclnn_addmm.h). */
aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1,
                                       const aclTensor *mat2, const aclScalar *beta,
                                       const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
                                       uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAddmm);
/* selfRef = beta*selfRef + alpha*(mat1 @ mat2): Addmm with selfRef as out; selfRef
 * is declared const in CANN's header (ops-nn v8.5.0
 * matmul/mat_mul_v3/op_host/op_api/aclnn_addmm.h:32-34, :45-46). */
aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *mat1,
                                              const aclTensor *mat2, const aclScalar *beta,
                                              const aclScalar *alpha, int8_t cubeMathType,
                                              uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceAddmm);
/* torch.matmul: 1-D to 6-D with batch broadcasting (aclnn_matmul.h). */
aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                        aclTensor *out, int8_t cubeMathType,
                                        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMatmul);

/* self + alpha*other, broadcast (hicann/ops-math math/add/op_api/aclnn_add.h). */
aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     const aclScalar *alpha, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAdd);
/* self + alpha*other with a scalar other. */
aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                      const aclScalar *alpha, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAdds);
/* selfRef += alpha*other (selfRef is declared const in CANN's header). */
aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                            const aclScalar *alpha, uint64_t *workspaceSize,
                                            aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceAdd);
/* self * other, broadcast (math/mul/op_api/aclnn_mul.h). */
aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMul);
/* self * scalar. */
aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                      aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMuls);
/* selfRef *= scalar. */
aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceMuls);
/* self - alpha*other, broadcast (math/sub/op_api/aclnn_sub.h). */
aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     const aclScalar *alpha, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSub);
/* selfRef -= alpha*other, other broadcast to selfRef; selfRef is not const here
 * (ops-math v8.5.0 math/sub/op_api/aclnn_sub.h:89-91, :106-107). */
aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                            const aclScalar *alpha, uint64_t *workspaceSize,
                                            aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceSub);

/* max(self, 0); `out` is declared const in CANN's header (ops-nn activation/relu). */
aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnRelu);
/* gradOutput where self > threshold, else 0 (activation/threshold_grad_v2_d). */
aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                   const aclTensor *self,
                                                   const aclScalar *threshold, aclTensor *out,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnThresholdBackward);
/* log(softmax(self)) along dim (activation/logsoftmax_v2). */
aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnLogSoftmax);
/* Gradient of log_softmax given the forward output (activation/logsoftmax_grad). */
aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                    const aclTensor *output, int64_t dim,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnLogSoftmaxBackward);
/* Negative log likelihood with class weights (loss/nll_loss). */
aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                         const aclTensor *weight, int64_t reduction,
                                         int64_t ignoreIndex, aclTensor *out,
                                         aclTensor *totalWeightOut, uint64_t *workspaceSize,
                                         aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnNLLLoss);
/* Its gradient with respect to self (loss/nll_loss_grad). */
aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                 const aclTensor *self, const aclTensor *target,
                                                 const aclTensor *weight, int64_t reduction,
                                                 int64_t ignoreIndex,
                                                 const aclTensor *totalWeight, aclTensor *out,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnNLLLossBackward);

/* Sum over dims into dtype (ops-math math/reduce_sum_op). */
aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                           bool keepDims, aclDataType dtype, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnReduceSum);
/* Element type conversion (math/cast). */
aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
                                      aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnCast);
/* selfRef = src, broadcast and converted (conversion/view_copy). */
aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceCopy);
/* selfRef = 0 (math/zero_op). */
aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceZero);
/* selfRef = value (conversion/fill). */
aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceFillScalar);
/* Index of the maximum along dim (math/arg_max_v2). */
aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim,
                                        aclTensor *out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnArgMax);

/* ----------------------------------------- second set: a small ResNet
 * (hicann/ops-nn conv/, norm/batch_norm_v3/, norm/batch_norm_grad_v3/,
 * pooling/; hicann/ops-cv image/upsample_*). */

/* N-d convolution (NCL/NCHW/NCDHW); `groups` is 64-bit here... */
aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                             const aclTensor *bias, const aclIntArray *stride,
                                             const aclIntArray *padding,
                                             const aclIntArray *dilation, bool transposed,
                                             const aclIntArray *outputPadding,
                                             const int64_t groups, aclTensor *output,
                                             int8_t cubeMathType, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnConvolution);
/* ...and a plain int in its backward (the ABI trap). outputMask has three
 * entries: gradInput, gradWeight, gradBias; biasSizes may be null. */
aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *input, const aclTensor *weight,
    const aclIntArray *biasSizes, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool transposed, const aclIntArray *outputPadding, int groups,
    const aclBoolArray *outputMask, int8_t cubeMathType, aclTensor *gradInput,
    aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnConvolutionBackward);
/* Batch normalization over the channel axis (1); training updates the
 * running statistics in place. On Atlas A2/A3 saveInvstd receives the biased
 * batch variance, on 950 1/std (the op's documentation). */
aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                           const aclTensor *bias, aclTensor *runningMean,
                                           aclTensor *runningVar, bool training, double momentum,
                                           double eps, aclTensor *output, aclTensor *saveMean,
                                           aclTensor *saveInvstd, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnBatchNorm);
/* Its gradients; saveMean/saveInvstd are the forward's, handed back as is. */
aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight,
    const aclTensor *runningMean, const aclTensor *runningVar, const aclTensor *saveMean,
    const aclTensor *saveInvstd, bool training, double eps, const aclBoolArray *outputMask,
    aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnBatchNormBackward);
/* 2-D max pooling with PyTorch-style flat indices; an empty stride means
 * the kernel size. */
aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor *self,
                                                      const aclIntArray *kernelSize,
                                                      const aclIntArray *stride,
                                                      const aclIntArray *padding,
                                                      const aclIntArray *dilation, bool ceilMode,
                                                      aclTensor *out, aclTensor *indices,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMaxPool2dWithIndices);
/* Its gradient: gradOutput scattered to the indices. */
aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMaxPool2dWithIndicesBackward);
/* Average pooling to an output size (PyTorch's bins). */
aclnnStatus aclnnAdaptiveAvgPool2dGetWorkspaceSize(const aclTensor *self,
                                                   const aclIntArray *outputSize, aclTensor *out,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAdaptiveAvgPool2d);
/* Its gradient (`self` gives the input shape). */
aclnnStatus aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                           const aclTensor *self, aclTensor *out,
                                                           uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAdaptiveAvgPool2dBackward);
/* Bicubic resize to outputSize [H, W], cubic coefficient -0.75 as PyTorch. */
aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(const aclTensor *self,
                                                   const aclIntArray *outputSize,
                                                   const bool alignCorners, const double scalesH,
                                                   const double scalesW, aclTensor *out,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnUpsampleBicubic2d);
/* Its gradient; inputSize is [N, C, H, W]. */
aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor *gradInput,
    uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnUpsampleBicubic2dBackward);
/* Bilinear resize, same parameters as bicubic. */
aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor *self,
                                                    const aclIntArray *outputSize,
                                                    const bool alignCorners, const double scalesH,
                                                    const double scalesW, aclTensor *out,
                                                    uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnUpsampleBilinear2d);

/* ------------------------------------------- operators III: norm_shape batch */
/*
 * Layer normalization over the trailing dims named by normalizedShape
 * (hicann/ops-nn v8.5.0 norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.h:25-28).
 * weight/bias and the mean/rstd outputs may be null; mean and rstd have the
 * input's shape with the normalized dims set to 1; rstd is 1/sqrt(var + eps).
 */
aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input,
                                           const aclIntArray *normalizedShape,
                                           const aclTensor *weightOptional,
                                           const aclTensor *biasOptional, double eps,
                                           aclTensor *out, aclTensor *meanOutOptional,
                                           aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnLayerNorm);
/* Its gradients from the forward's mean and rstd; outputMask has 3 entries
 * (ops-nn v8.5.0 norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.h:25-29). */
aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnLayerNormBackward);
/* Mean over the dims in `dim` (all of them when it is empty), computed in
 * `dtype` and cast to out (ops-math v8.5.0 math/reduce_mean/op_api/aclnn_mean.h:24-26). */
aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                      aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMean);
/* Maximum over the dims in `dim` (all of them when it is empty); out has
 * self's dtype (ops-math v8.5.0 math/reduce_max/op_host/op_api/aclnn_amax.h:37-38). */
aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnAmax);
/* ------------------------------------------- end of the norm_shape batch */
/* ---- operators III, batch "activations": softmax, sigmoid, tanh, GELU, SiLU
 * and their gradients. Parameter lists as in hicann/ops-nn v8.5.0 (ops-math for
 * tanh); `out`/`gradInput` constness as there. */
/* softmax(self) along dim (ops-nn activation/softmax_v2/op_api/aclnn_softmax.h:23-24). */
aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSoftmax);
/* Its gradient given the forward output
 * (activation/softmax_grad/op_host/op_api/aclnn_softmax_backward.h:25-27). */
aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                 const aclTensor *output, int64_t dim,
                                                 aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSoftmaxBackward);
/* 1 / (1 + exp(-self)) (activation/sigmoid/op_api/aclnn_sigmoid.h:33-34). */
aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSigmoid);
/* gradOutput * output * (1 - output), broadcast
 * (activation/sigmoid_grad/op_api/aclnn_sigmoid_backward.h:35-37). */
aclnnStatus aclnnSigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                 const aclTensor *output, aclTensor *gradInput,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSigmoidBackward);
/* tanh(self); integer and bool inputs give a float result
 * (ops-math v8.5.0 math/tanh/op_api/aclnn_tanh.h:50-51). */
aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnTanh);
/* gradOutput * (1 - output^2), broadcast
 * (ops-math v8.5.0 math/tanh_grad/op_api/aclnn_tanh_backward.h:47-49). */
aclnnStatus aclnnTanhBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                              const aclTensor *output, aclTensor *gradInput,
                                              uint64_t *workspaceSize,
                                              aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnTanhBackward);
/* self * sigmoid(self), out of self's dtype
 * (ops-nn v8.5.0 activation/swish/op_api/aclnn_silu.h:25-26). */
aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSilu);
/* Its gradient given the forward input self
 * (activation/silu_grad/op_api/aclnn_silu_backward.h:25-27). */
aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                              const aclTensor *self, aclTensor *gradInput,
                                              uint64_t *workspaceSize,
                                              aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSiluBackward);
/* ---- end of batch "activations" */
/* ---- operators III, batch `elementwise` (issue 20) ---- */
/* out = self / other, broadcast; integer operands are divided in float
 * (ops-math v8.5.0 math/div/op_api/aclnn_div.h:40-41). */
aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnDiv);
/* sqrt(self); integer and bool inputs give a float result (ops-math v8.5.0 math/sqrt/op_api/aclnn_sqrt.h:51-52). */
aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSqrt);
/* 1/sqrt(self); out is a floating dtype (ops-math v8.5.0 math/rsqrt/op_api/aclnn_rsqrt.h:33-34). */
aclnnStatus aclnnRsqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnRsqrt);
/* e^self; of the integers only INT64 and BOOL, computed in float (ops-math v8.5.0 math/exp/op_api/aclnn_exp.h:53-54). */
aclnnStatus aclnnExpGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnExp);
/* natural log; out is a floating dtype (ops-math v8.5.0 math/log/op_api/aclnn_log.h:50-51). */
aclnnStatus aclnnLogGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnLog);
/* -self in self's dtype (ops-math v8.5.0 math/neg/op_api/aclnn_neg.h:46-47). */
aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnNeg);
/* out = self ** exponent for a scalar exponent; `out` is declared const in
 * CANN's header (ops-math v8.5.0 math/pow/op_api/aclnn_pow.h:36-38). */
aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent,
                                                 const aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnPowTensorScalar);
/* out = min(max(self, min), max); either bound may be null, not both
 * (ops-math v8.5.0 conversion/clip_by_value_v2/op_api/aclnn_clamp.h:24-26). */
aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                       const aclScalar *clipValueMax, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnClamp);
/* out (BOOL) = isfinite(self); integers and bool give true (ops-math v8.5.0
 * math/is_finite/op_api/aclnn_isfinite.h:49-50, :60-61). */
aclnnStatus aclnnIsFiniteGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnIsFinite);
/* ---- end of batch `elementwise` ---- */

/* ---- operators III, batch `attention` (issue 20): FlashAttentionScore and its grad.
 * Parameter lists from hicann/ops-transformer (no tags; commit c29bc106)
 * attention/flash_attention_score/op_host/op_api/aclnn_flash_attention_score.h:24-30
 * and attention/flash_attention_score_grad/op_host/op_api/aclnn_flash_attention_score_grad.h:24-32.
 * Installed as aclnnop/aclnn_flash_attention_score.h and _grad.h; the
 * library is libopapi_transformer.so (ops-transformer
 * scripts/package/module/ascend/OpsTransformer.xml:6-8).
 * The outputs are declared const in CANN's header. inputLayout is a
 * NUL-terminated "BSH", "SBH", "BSND", "BNSD" or "TND" (declared char *). */
aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
    int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *softmaxMaxOut,
    const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnFlashAttentionScore);
/* The gradients dq, dk, dv (and dpse) from the forward's inputs, dy, its
 * softmaxMax/softmaxSum and its attention output (attentionInOptional). */
aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout,
    int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut,
    const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnFlashAttentionScoreGrad);
/* ---- end of batch `attention` ---- */
/* ---- operators III, batch `ops-a` (issue 20): GELU, Embedding, BatchMatMul,
 * Permute, ApplyAdamWV2. Parameter lists as in hicann/ops-nn v8.5.0; constness
 * as there. */
/* GELU, the tanh approximation 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)));
 * out of self's dtype and shape (activation/gelu/op_api/aclnn_gelu.h:46-47). */
aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnGelu);
/* The gradient of that approximation given the forward input self, broadcast;
 * gradInput is const in CANN's header
 * (activation/gelu_grad/op_host/op_api/aclnn_gelu_backward.h:70-72). */
aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnGeluBackward);
/* GELU with approximate 0 (erf, "none") or 1 ("tanh")
 * (activation/gelu_v2/op_host/op_api/aclnn_gelu_v2.h:47-48). */
aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y,
                                        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnGeluV2);
/* Its gradient; approximate is the string "none" or "tanh" (a non-const char
 * pointer in CANN's header, activation/gelu_grad_v2/op_host/op_api/aclnn_gelu_backward_v2.h:38-40). */
aclnnStatus aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                char *approximate, aclTensor *gradInput,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnGeluBackwardV2);
/* out = weight[indices, :] (a gather along dim 0); out is const in CANN's header
 * (index/gather_v2/op_host/op_api/aclnn_embedding.h:48-50). */
aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
                                           const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnEmbedding);
/* Its dense gradient: grad's rows summed into out[numWeights, D] by index;
 * paddingIdx negative (as int64) for none; out is const in CANN's header
 * (index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.h:58-60). */
aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *indices,
                                                        uint64_t numWeights, uint64_t paddingIdx,
                                                        bool scaleGradByFreq, const aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnEmbeddingDenseBackward);
/* out[b] = self[b] @ mat2[b], 3-D, a batch dim of 1 broadcast
 * (matmul/batch_mat_mul_v3/op_host/op_api/aclnn_batch_matmul.h:24-26). */
aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                             int8_t cubeMathType, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnBatchMatMul);
/* out = self permuted by dims, materialized; negative dims count from the end
 * (ops-math v8.5.0 conversion/transpose/op_api/aclnn_permute.h:25-26). */
aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnPermute);
/* One fused AdamW step on varRef, mRef, vRef (and maxGradNormOptionalRef with
 * amsgrad) in place; step holds the steps taken so far (the kernel adds 1)
 * (optim/apply_adam_w_v2/op_host/op_api/aclnn_apply_adam_w_v2.h:25-28). */
aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef,
                                              aclTensor *maxGradNormOptionalRef, const aclTensor *grad,
                                              const aclTensor *step, float lr, float beta1, float beta2,
                                              float weightDecay, float eps, bool amsgrad, bool maximize,
                                              uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnApplyAdamWV2);
/* ---- end of batch `ops-a` ---- */
/* ---- operators III, batch `ops3b` (issue 20): Cat, Split, MaxDim, SWhere,
 * MaskedFill, Dropout. Parameter lists as in hicann/ops-math v8.5.0. ---- */
/* Concatenation of `tensors` along `dim` into out (ops-math v8.5.0
 * conversion/concat_d/op_api/aclnn_cat.h:25-26). */
aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnCat);
/* self split along dim into pieces of splitSections (the last shorter), written
 * into the list out (ops-math v8.5.0 conversion/split_v/op_api/aclnn_split_tensor.h:35-37). */
aclnnStatus aclnnSplitTensorGetWorkspaceSize(const aclTensor *self, uint64_t splitSections, int64_t dim,
                                             aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSplitTensor);
/* self split along dim into pieces of the sizes in splitSize, one per tensor of out
 * (ops-math v8.5.0 conversion/split_v/op_api/aclnn_split_with_size.h:36-38). */
aclnnStatus aclnnSplitWithSizeGetWorkspaceSize(const aclTensor *self, const aclIntArray *splitSize, int64_t dim,
                                               aclTensorList *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSplitWithSize);
/* The maximum of self along dim into out (self's dtype) and its index into indices
 * (ops-math v8.5.0 math/arg_max_with_value/op_api/aclnn_max_dim.h:46-48). */
aclnnStatus aclnnMaxDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                        aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnMaxDim);
/* out = condition ? self : other, broadcast (ops-math v8.5.0 math/select/op_api/aclnn_s_where.h:25-27). */
aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *condition, const aclTensor *self, const aclTensor *other,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnSWhere);
/* selfRef[mask] = value, in place, for a scalar value (ops-math v8.5.0
 * conversion/masked_fill/op_api/aclnn_masked_fill_scalar.h:55-57). */
aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                         const aclScalar *value, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceMaskedFillScalar);
/* selfRef[mask] = value, in place, for a 0-d tensor value (ops-math v8.5.0
 * conversion/masked_fill/op_api/aclnn_masked_fill_tensor.h:55-57). */
aclnnStatus aclnnInplaceMaskedFillTensorGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                         const aclTensor *value, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnInplaceMaskedFillTensor);
/* A dropout bit mask (UINT8, align(prod(shape), 128) / 8 bytes) dropping with probability
 * prob, from seed and offset (ops-math v8.5.0 random/dsa_gen_bit_mask/op_host/op_api/
 * aclnn_dropout_gen_mask.h:29-31); V2 rounds prob to probDataType (same header :40-42). */
aclnnStatus aclnnDropoutGenMaskGetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed, int64_t offset,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnDropoutGenMask);
aclnnStatus aclnnDropoutGenMaskV2GetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed, int64_t offset,
                                                  aclDataType probDataType, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnDropoutGenMaskV2);
/* out = self * mask / (1 - prob) (ops-math v8.5.0 random/drop_out_do_mask/op_api/
 * aclnn_dropout_do_mask.h:25-27). */
aclnnStatus aclnnDropoutDoMaskGetWorkspaceSize(const aclTensor *self, const aclTensor *mask, double prob,
                                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnDropoutDoMask);
/* out = gradOutput * mask * scale (ops-math v8.5.0 random/drop_out_do_mask/op_api/
 * aclnn_dropout_backward.h:25-27). */
aclnnStatus aclnnDropoutBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *mask, double scale,
                                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_LAUNCH(aclnnDropoutBackward);
/* ---- end of batch `ops3b` ---- */

#undef ACLNN_LAUNCH

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_ACLNN_H */
