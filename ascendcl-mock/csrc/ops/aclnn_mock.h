/*
 * aclnn_mock.h: private declarations of the mock's operator libraries
 * (libnnopbase.so and libopapi.so, CANN's file names). Our own declarations
 * of the nnopbase ABI (CANN 8.5.0: hicann/opbase include/nnopbase/aclnn/
 * acl_meta.h, aclnn_base.h) and the mock's layout of the opaque descriptors.
 * Self-contained (C only, no <acl/acl.h>): the runtime's aclDataType and
 * aclFormat are not in our runtime declaration header. Signatures: opbase
 * v8.5.0 include/nnopbase/aclnn/acl_meta.h:62-128 (descriptors, executor,
 * set-address calls), aclnn_base.h:47-48 (aclnnInit, aclnnFinalize).
 */
#ifndef ACLMOCK_OPS_ACLNN_MOCK_H
#define ACLMOCK_OPS_ACLNN_MOCK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclmock.h"
#include "aclmock_ext.h"

#define OPS_EXPORT __attribute__((visibility("default")))

/* The mock's id of an exported function (ops_functions.h), looked up once. */
#define MK_FN(name)                                                                                                 \
    ({                                                                                                              \
        static int id_ = -1;                                                                                        \
        int v_ = __atomic_load_n(&id_, __ATOMIC_RELAXED);                                                           \
        if (v_ < 0) {                                                                                               \
            v_ = aclmock_fn_id(#name);                                                                              \
            __atomic_store_n(&id_, v_, __ATOMIC_RELAXED);                                                           \
        }                                                                                                           \
        v_;                                                                                                         \
    })

typedef int32_t aclnnStatus;
typedef void *aclrtStream;

/* aclnnStatus values (opbase v8.5.0 include/nnopbase/opdev/op_errno.h:15-18, :24) */
#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_NULLPTR 561103

/* aclDataType values (hicann/runtime acl_base_rt.h; aclnn-facts.md A.2.2) */
typedef enum aclDataType {
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
    ACL_BF16 = 27
} aclDataType;

/* aclFormat: the values the mock accepts (aclnn-facts.md A.2.2) */
typedef enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47
} aclFormat;

#define MK_MAX_DIMS 8 /* CANN tensors have at most 8 dimensions */
/* Tensor slots an executor holds without growing; it grows past this (a
 * tensor list has no size limit: ops-math v8.5.0 aclnn_cat.cpp:216-252 cuts
 * any number of inputs into ConcatD calls of 32). */
#define MK_INLINE_SLOTS 8

/* A tensor as a kernel sees it: strides and offset in elements
 * (aclnn-facts.md A.2.2, aclCreateTensor). */
typedef struct mk_view {
    int32_t dtype; /* ACL_DT_UNDEFINED: an absent optional tensor */
    uint32_t ndim;
    int64_t dims[MK_MAX_DIMS];
    int64_t strides[MK_MAX_DIMS];
    int64_t offset;
    void *addr; /* the storage base (tensorData) */
} mk_view;

enum mk_kind { MK_TENSOR = 1, MK_SCALAR, MK_INT_ARRAY, MK_FLOAT_ARRAY, MK_BOOL_ARRAY, MK_TENSOR_LIST, MK_EXECUTOR };

typedef struct aclTensor {
    uint64_t id;
    mk_view v;
    int32_t format;
    uint32_t sndim;
    int64_t sdims[MK_MAX_DIMS];
    bool in_list; /* owned by a tensor list */
} aclTensor;

typedef struct aclScalar {
    uint64_t id;
    int32_t dtype;
    double f;  /* the value, as a float */
    int64_t i; /* the value, as an integer (truncated for float dtypes) */
} aclScalar;

typedef struct aclIntArray {
    uint64_t id;
    uint64_t n;
    int64_t *v;
} aclIntArray;

typedef struct aclFloatArray {
    uint64_t id;
    uint64_t n;
    float *v;
} aclFloatArray;

typedef struct aclBoolArray {
    uint64_t id;
    uint64_t n;
    bool *v;
} aclBoolArray;

typedef struct aclTensorList {
    uint64_t id;
    uint64_t n;
    aclTensor **v; /* owned (the doc: tensors of a list need no separate destroy) */
} aclTensorList;

/* A kernel: reads the job's input slots and writes its output slots, in the
 * host copies bufs[slot] (each pointing at the view's first element). */
typedef struct mk_job mk_job;
typedef void (*mk_kernel)(const mk_job *job, void *const *bufs);

#define MK_PARAMS 64
/* A kernel that can fail (a DVPP decode of data that is not a JPEG it
 * takes): returns 0, or an ACL runtime code that fails the stream with msg
 * (nothing is written back then). */
typedef int32_t (*mk_status_kernel)(const mk_job *job, void *const *bufs, char *msg, size_t cap);
struct mk_job {
    mk_kernel kernel;
    mk_status_kernel status_kernel; /* used instead of kernel when set */
    uint32_t nslots;
    uint32_t cap;      /* slots allocated */
    mk_view *slot;     /* nslots views (heap; the job's own copy at launch) */
    bool *slot_write;  /* nslots flags */
    double p[MK_PARAMS]; /* op parameters (scalars, dims, flags) */
    int64_t ip[MK_PARAMS];
};

typedef struct aclOpExecutor {
    uint64_t id;
    const char *op; /* "aclnnAdd" */
    bool repeatable;
    uint64_t ws_size;
    const aclTensor **src; /* the descriptor each slot was built from (job.cap entries) */
    bool oom;              /* a slot could not be added (host OOM): phase 1 fails */
    mk_job job;
} aclOpExecutor;

/* ---------------------------------------- nnopbase internals for libopapi
 * (exported from libnnopbase.so; the lock is held). */

/* Handle registry: is p a live descriptor of `kind`? */
bool aclmocknn_is_live(const void *p, int kind);
/* "[1,2,...]" of n values (malloc'd; NULL on host OOM): how the journal
 * writes an int array, at its creation and where an operator takes it. */
char *aclmocknn_int_text(const int64_t *v, uint64_t n);
/* A new executor (counted live); NULL with a message on host OOM. */
aclOpExecutor *aclmocknn_executor_new(const char *op, mk_kernel kernel, uint64_t ws_size);
/* Adds a tensor to the executor as input and/or output; returns its slot
 * (on host OOM sets e->oom and returns 0: phase 1 then fails). */
uint32_t aclmocknn_executor_add(aclOpExecutor *e, const aclTensor *t, bool input, bool output);
/* Frees an executor created by phase 1 that is not handed out (phase-1 failure). */
void aclmocknn_executor_drop(aclOpExecutor *e);
/* The common phase 2 of op `op`, inside its journaled call: journals the
 * arguments; with `fault` (an injected failure) only consumes a single-use
 * executor and returns it; otherwise checks executor and workspace, queues
 * the kernel and frees a single-use executor. */
aclnnStatus aclmocknn_executor_launch(aclmock_call *c, int32_t fault, const char *op, void *workspace,
                                      uint64_t ws_size, aclOpExecutor *e, aclrtStream stream);

/* ------------------------------------------------ dtype.c (both libraries) */
size_t mk_dtype_size(int32_t dt); /* 0 if the mock does not support it */
const char *mk_dtype_name(int32_t dt);
bool mk_dtype_is_float(int32_t dt); /* f32, f16, bf16, f64 */
bool mk_dtype_is_int(int32_t dt);   /* signed/unsigned integers and bool */
float mk_f16_to_f32(uint16_t h);
uint16_t mk_f32_to_f16(float f); /* round to nearest even */
float mk_bf16_to_f32(uint16_t h);
uint16_t mk_f32_to_bf16(float f); /* round to nearest even */
/* Element e (an element offset from b) as float / double / int64, and stores. */
float mk_ldf(const void *b, int32_t dt, int64_t e);
double mk_ldd(const void *b, int32_t dt, int64_t e);
int64_t mk_ldi(const void *b, int32_t dt, int64_t e);
void mk_stf(void *b, int32_t dt, int64_t e, float v);
void mk_std(void *b, int32_t dt, int64_t e, double v);
void mk_sti(void *b, int32_t dt, int64_t e, int64_t v);

#endif /* ACLMOCK_OPS_ACLNN_MOCK_H */
