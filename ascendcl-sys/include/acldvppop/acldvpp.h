/*
 * ascendcl-sys: the DVPP operator API ("acldvppop", CANN 8.5.0), our own
 * declarations, in C and C++.
 *
 * These operators do image work (JPEG decoding, resizing, cropping, flips,
 * normalisation) on the DVPP hardware, with the aclnn calling convention:
 * the operands are aclnn descriptors (aclTensor, aclIntArray, aclFloatArray)
 * and every operator is called in two phases. First
 * `acldvppXGetWorkspaceSize(operands..., &workspaceSize, &executor)` checks
 * the operands and says how much device workspace the run needs; then
 * `acldvppX(workspace, workspaceSize, executor, stream)` queues the run on
 * the stream and consumes the executor.
 *
 * The functions live in libacl_dvpp_op.so, a library of its own (neither the
 * runtime nor the aclnn libraries); the descriptors they take are created
 * with libnnopbase.so's functions (aclnn/aclnn.h). CANN spreads these
 * declarations over one header per operator under include/acldvppop/
 * (acldvpp_base.h, acldvpp_init.h, acldvpp_<op>.h), which are C++ only;
 * this header gathers the subset we support. Names, parameter types and
 * orders and the status values are CANN's, taken from the CANN 8.5.0 API
 * reference, "DVPP operators" section:
 *   https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/operatorlist_000NN.html
 * (the page of each declaration is named next to it).
 */
#ifndef ASCENDCL_SYS_ACLDVPP_H
#define ASCENDCL_SYS_ACLDVPP_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "aclnn/aclnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

/* What every acldvpp function returns; 0 is success. */
typedef int32_t acldvppStatus;

/*
 * The status codes (CANN: acldvppop/acldvpp_base.h), listed on
 * operatorlist_00061.html. 1060xx: an argument check failed (a null pointer
 * where one is required, an unsupported type or shape); 106101: an operator
 * was called before acldvppInit (or aclInit); 106102: initialised twice;
 * 206001: the call is not supported (the CANN and driver versions may not
 * match); 306001: a runtime call underneath failed; 506xxx: the library
 * failed internally (aclGetRecentErrMsg says more). That page also lists
 * the aclnn codes 5611xx (ACLNN_ERR_INNER_*, aclnn/aclnn.h): the
 * descriptor library can return them through these functions.
 */
#define ACLDVPP_SUCCESS 0
#define ACLDVPP_ERR_PARAM_NULLPTR 106001
#define ACLDVPP_ERR_PARAM_INVALID 106002
#define ACLDVPP_ERR_UNINITIALIZE 106101
#define ACLDVPP_ERR_REPEAT_INITIALIZE 106102
#define ACLDVPP_ERR_API_NOT_SUPPORT 206001
#define ACLDVPP_ERR_RUNTIME_ERROR 306001
#define ACLDVPP_ERR_INNER 506000
#define ACLDVPP_ERR_INNER_CREATE_EXECUTOR 506101
#define ACLDVPP_ERR_INNER_NOT_TRANS_EXECUTOR 506102
#define ACLDVPP_ERR_INNER_NULLPTR 506103

/* --------------------------------------------------------- set-up, tear-down */

/*
 * Prepares the DVPP operators for this process, before the first operator
 * call (CANN: acldvppop/acldvpp_init.h; operatorlist_00062.html).
 * `configPath` is reserved and must be NULL. aclInit prepares them too;
 * calling both, or this one again, is documented not to fail.
 */
acldvppStatus acldvppInit(const char *configPath);
/*
 * Releases what acldvppInit set up (operatorlist_00063.html); calling it
 * again, or after aclFinalize, is not an error.
 */
acldvppStatus acldvppFinalize(void);

/* -------------------------------------------------------------- operators */

/*
 * Decodes the JPEG file held in the UINT8 tensor `self` (the bytes of the
 * file, format ND) into `out`, an image of `channels` channels: 1 gives a
 * grey image, 3 an RGB one. `tryRecoverTruncated` is reserved; the
 * reference asks for true. (CANN: acldvppop/acldvpp_decode_jpeg.h;
 * operatorlist_00065.html)
 */
acldvppStatus acldvppDecodeJpegGetWorkspaceSize(const aclTensor *self, uint32_t channels, bool tryRecoverTruncated,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
acldvppStatus acldvppDecodeJpeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/*
 * Cuts the window of `height` x `width` pixels whose top-left corner is at
 * row `top`, column `left` out of the image `self` (UINT8 or FLOAT, NCHW or
 * NHWC, 1 or 3 channels) and scales it to `size` = {height, width}, which
 * must be the spatial size of `out`. `interpolationMode`: 0 bilinear,
 * 1 nearest, 2 bicubic. (CANN: acldvppop/acldvpp_crop_and_resize.h;
 * operatorlist_00077.html)
 */
acldvppStatus acldvppCropAndResizeGetWorkspaceSize(const aclTensor *self, uint32_t top, uint32_t left,
                                                   uint32_t height, uint32_t width, const aclIntArray *size,
                                                   uint32_t interpolationMode, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);
acldvppStatus acldvppCropAndResize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

/*
 * Scales the image `self` to the spatial size of `out` (same type and
 * layout). `interpolationMode` as for acldvppCropAndResize.
 * (CANN: acldvppop/acldvpp_resize.h; operatorlist_00066.html)
 */
acldvppStatus acldvppResizeGetWorkspaceSize(const aclTensor *self, uint32_t interpolationMode, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor);
acldvppStatus acldvppResize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/*
 * Mirrors the image `self` left to right into `out`, which has the same
 * shape, type and layout. (CANN: acldvppop/acldvpp_horizontal_flip.h;
 * operatorlist_00072.html)
 */
acldvppStatus acldvppHorizontalFlipGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);
acldvppStatus acldvppHorizontalFlip(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

/*
 * Per channel c: out = (self - mean[c]) / std[c]. `mean` and `std` hold one
 * value per channel of `self` (UINT8 or FLOAT); `out` is FLOAT, of the same
 * shape and layout. (CANN: acldvppop/acldvpp_normalize.h;
 * operatorlist_00064.html)
 */
acldvppStatus acldvppNormalizeGetWorkspaceSize(const aclTensor *self, const aclFloatArray *mean,
                                               const aclFloatArray *std, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);
acldvppStatus acldvppNormalize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_ACLDVPP_H */
