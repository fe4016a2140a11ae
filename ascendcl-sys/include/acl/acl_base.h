/*
 * ascendcl-sys: base types and ACL-level error codes.
 *
 * Our own declarations of the part of the AscendCL (CANN 8.5.0) API that the
 * ascendcl crates support. Names, types and values are those of the runtime so
 * that this header and CANN's are interchangeable for the declared subset; the
 * text is written for this project. The mock runtime compiles against it and
 * bindgen reads it to produce the committed bindings.
 */
#ifndef ASCENDCL_SYS_ACL_BASE_H
#define ASCENDCL_SYS_ACL_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "error_codes/ge_error_codes.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque runtime handles. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;

/* Every API result; 0 is success. */
typedef int aclError;

/* A (pointer, length) pair describing a block of memory; opaque, made by
 * aclCreateDataBuffer. */
typedef struct aclDataBuffer aclDataBuffer;

/*
 * Element types of tensors, scalars and casts. Values as in the runtime's
 * acl_base_rt.h (hicann/runtime v8.5.0, include/external/acl/acl_base_rt.h
 * lines 136-165); the gaps (5, 14, 15, 18-26, 28, 31, 32) are unassigned.
 */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
} aclDataType;

/*
 * Memory layouts of tensors (same file, lines 167-188). ND is the plain
 * row-major layout the aclnn operators take by default; note the one value
 * spelled without FORMAT_.
 */
typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
} aclFormat;

/*
 * ACL-level error codes. They are `static const int` objects (not macros) in
 * the runtime's own header, and bindgen turns them into `c_int` constants.
 *   1000xx/1480xx  caller error    2000xx  resource or unsupported
 *   300000         storage limit   5000xx  internal failure
 */
static const int ACL_ERROR_NONE                            = 0;
static const int ACL_SUCCESS                               = 0;
static const int ACL_ERROR_INVALID_PARAM                   = 100000;
static const int ACL_ERROR_UNINITIALIZE                    = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE               = 100002;
static const int ACL_ERROR_INVALID_FILE                    = 100003;
static const int ACL_ERROR_WRITE_FILE                      = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE               = 100005;
static const int ACL_ERROR_PARSE_FILE                      = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR               = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID               = 100008;
static const int ACL_ERROR_INVALID_DUMP_CONFIG             = 100009;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG        = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID                = 100011;
static const int ACL_ERROR_DESERIALIZE_MODEL               = 100012;
static const int ACL_ERROR_PARSE_MODEL                     = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE              = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID              = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR              = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH           = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH          = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC               = 100019;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH               = 100020;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH              = 100021;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH             = 100022;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH               = 100023;
static const int ACL_ERROR_OP_NOT_FOUND                    = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED                  = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE           = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH                = 100027;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED     = 100028;
static const int ACL_ERROR_KERNEL_NOT_FOUND                = 100029;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED = 100030;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED       = 100031;
static const int ACL_ERROR_INVALID_QUEUE_ID                = 100032;
static const int ACL_ERROR_REPEAT_SUBSCRIBE                = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE            = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE            = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT           = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE                 = 100037;
static const int ACL_ERROR_NOT_STATIC_AIPP                 = 100038;
static const int ACL_ERROR_COMPILING_STUB_MODE             = 100039;
static const int ACL_ERROR_GROUP_NOT_SET                   = 100040;
static const int ACL_ERROR_GROUP_NOT_CREATE                = 100041;
static const int ACL_ERROR_PROF_ALREADY_RUN                = 100042;
static const int ACL_ERROR_PROF_NOT_RUN                    = 100043;
static const int ACL_ERROR_DUMP_ALREADY_RUN                = 100044;
static const int ACL_ERROR_DUMP_NOT_RUN                    = 100045;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE           = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT               = 148047;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG  = 148048;
static const int ACL_ERROR_INVALID_OPP_PATH                = 148049;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC          = 148050;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED   = 148051;
static const int ACL_ERROR_UNSUPPORTED_JPEG                = 148052;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID         = 148053;
static const int ACL_ERROR_BAD_ALLOC                       = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT                 = 200001;
static const int ACL_ERROR_INVALID_DEVICE                  = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED        = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH              = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE         = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED             = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED        = 200007;
static const int ACL_ERROR_STORAGE_OVER_LIMIT              = 300000;
static const int ACL_ERROR_INTERNAL_ERROR                  = 500000;
static const int ACL_ERROR_FAILURE                         = 500001;
static const int ACL_ERROR_GE_FAILURE                      = 500002;
static const int ACL_ERROR_RT_FAILURE                      = 500003;
static const int ACL_ERROR_DRV_FAILURE                     = 500004;
static const int ACL_ERROR_PROFILING_FAILURE               = 500005;

/* Options of aclrtCtxSetSysParamOpt / aclrtCtxGetSysParamOpt (acl_base_rt.h
 * lines 203-207 of CANN 8.5.0). */
typedef enum {
    ACL_OPT_DETERMINISTIC = 0,
    ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
    ACL_OPT_STRONG_CONSISTENCY = 2
} aclSysParamOpt;

/* Features whose availability aclGetCannAttribute reports (same file, lines
 * 209-214). */
typedef enum {
    ACL_CANN_ATTR_UNDEFINED = -1,
    ACL_CANN_ATTR_INF_NAN = 0,
    ACL_CANN_ATTR_BF16 = 1,
    ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

/* Data buffers: a heap descriptor of (data, size); the memory itself is the
 * caller's. Destroying the descriptor does not free the memory. The getters
 * answer NULL / 0 for a NULL descriptor. */
aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/* Which optional features this CANN and SoC offer: the list of available
 * ones (a static array owned by the runtime), or one attribute's 0/1. */
aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);

/* SoC name of device 0 ("Ascend910B1", ...), or NULL when unknown. */
const char *aclrtGetSocName();

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_ACL_BASE_H */
