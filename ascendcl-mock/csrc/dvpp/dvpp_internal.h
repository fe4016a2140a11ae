/*
 * dvpp_internal.h: what the files of the mock's libacl_dvpp_op.so share.
 *
 * The acldvppop operators are aclnn-style two-phase operators on aclTensor
 * descriptors (CANN 8.5 docs, "DVPP operator APIs", operatorlist_00061 to
 * 00077 under https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/).
 * The mock builds them on the aclnn operator helpers (op_common.c, compiled
 * into this library too: its symbols are hidden), with statuses mapped to
 * the acldvpp family (mk_dvpp_status) and kernels run on the stream workers
 * like every aclnn kernel, so a decoded image is visible only after a
 * synchronize and every tensor an op reads or writes is an access of the
 * mock's happens-before model (an unordered overwrite is a misuse).
 */
#ifndef ACLMOCK_DVPP_INTERNAL_H
#define ACLMOCK_DVPP_INTERNAL_H

#include "../ops/op_internal.h"

typedef int32_t acldvppStatus;

#define ACLDVPP_SUCCESS 0
#define ACLDVPP_ERR_PARAM_NULLPTR 106001
#define ACLDVPP_ERR_PARAM_INVALID 106002
#define ACLDVPP_ERR_UNINITIALIZE 106101

/* ACL_ERROR_RT_INTERNAL_ERROR: what a DVPP task the mock cannot run (a
 * decode of bytes that are not a JPEG the decoder takes, an output of the
 * wrong size) fails its stream with. The docs name no code for a failed
 * DVPP task: a mock decision (docs/mock-conformance.md, "DVPP"). */
#define DVPP_TASK_FAILED 507000

/* Whether DVPP is initialized: acldvppInit ran (and acldvppFinalize not
 * since) in this mock generation, or aclInit ran (the docs: either
 * initializes DVPP, operatorlist_00062). Call inside a call. */
bool dvpp_ready(void);

/* Starts the phase 1 of an acldvpp op: journals nothing yet; after the
 * arguments, dvpp_check_init refuses an uninitialized library (106101). */
void dvpp_begin(ph1 *p, int fn, const char *op);
bool dvpp_check_init(ph1 *p);

/* An image tensor as the acldvpp ops take it (each op's page: "N is 1 or
 * absent, C is 1 or 3", format NCHW or NHWC, contiguous). */
typedef struct dv_image {
    int64_t h, w, c;
    bool nchw;
    int64_t sh, sw, sc; /* element strides of the h, w, c axes */
} dv_image;

/* Row-major dense (size-1 dims may have any stride). */
bool dv_contiguous(const mk_view *v);
/* Checks t (non-null) as an image of one of `dtypes` (terminated by -1) and
 * fills img; 106002 with a message naming the parameter otherwise. */
bool dv_image_of(ph1 *p, const aclTensor *t, const char *name, const int32_t *dtypes, dv_image *img);
/* out has self's dtype and format, and the given h, w, c. */
bool dv_same_kind(ph1 *p, const aclTensor *out, const aclTensor *self);
bool dv_check_hw(ph1 *p, const char *name, const dv_image *img, int64_t h, int64_t w, int64_t c);
/* Stores / loads an image's geometry in job parameters from index at (7 entries). */
void dv_put(mk_job *j, int at, const dv_image *img);
void dv_get(const mk_job *j, int at, dv_image *img);

/* Element (y, x, ch) of img in buf, as a double / stored from a double
 * (uint8: rounded half to even and clamped to 0..255; float: as is). */
double dv_load(const void *buf, int32_t dtype, const dv_image *img, int64_t y, int64_t x, int64_t ch);
void dv_store(void *buf, int32_t dtype, const dv_image *img, int64_t y, int64_t x, int64_t ch, double v);

extern const int32_t DV_U8[];     /* uint8 */
extern const int32_t DV_U8_F32[]; /* uint8, float */
extern const int32_t DV_F32[];    /* float */

/* The standard phase 2 of acldvpp<Name>. */
#define DVPP_PHASE2(Name)                                                                                           \
    OPS_EXPORT acldvppStatus acldvpp##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,        \
                                           aclrtStream stream)                                                      \
    {                                                                                                               \
        aclmock_call c;                                                                                             \
        aclmock_call_start(&c, MK_FN(acldvpp##Name));                                                               \
        return aclmock_call_end(&c, mk_dvpp_status(aclmocknn_executor_launch(                                       \
                                        &c, 0, "acldvpp" #Name, workspace, workspaceSize, executor, stream)));      \
    }

#endif
