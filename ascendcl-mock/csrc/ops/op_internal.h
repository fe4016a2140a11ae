/* op_internal.h: helpers shared by the op files of libopapi.so. */
#ifndef ACLMOCK_OPS_OP_INTERNAL_H
#define ACLMOCK_OPS_OP_INTERNAL_H

#include "aclnn_mock.h"

/* ------------------------------------------------------------ phase 1 */

/* One phase-1 call in progress. */
typedef struct ph1 {
    aclmock_call c;
    const char *op; /* "aclnnAdd": the phase-2 function's name */
    aclOpExecutor *e;
    aclnnStatus rc; /* first failure, 0 while everything is fine */
} ph1;

/* Starts the journaled call of `fn` (the GetWorkspaceSize function of op). */
void ph1_begin(ph1 *p, int fn, const char *op);
/* Ends it: on success hands out the executor and its workspace size,
 * otherwise frees the executor. Returns the status. */
aclnnStatus ph1_end(ph1 *p, uint64_t *workspaceSize, aclOpExecutor **executor);
/* Journal fields. */
void ph1_arg_tensor(ph1 *p, const char *key, const aclTensor *t);
void ph1_arg_scalar(ph1 *p, const char *key, const aclScalar *s);
void ph1_arg_i64(ph1 *p, const char *key, int64_t v);

/* Validation helpers: each records the first failure in p->rc (with a
 * message naming the op and the parameter) and returns false once p->rc is
 * set, so a chain stops at the first problem. */
bool need_tensor(ph1 *p, const aclTensor *t, const char *name);   /* null -> 161001 */
bool opt_tensor(ph1 *p, const aclTensor *t, const char *name);    /* null allowed */
bool need_scalar(ph1 *p, const aclScalar *s, const char *name);
bool need_ptr(ph1 *p, const void *v, const char *name);
/* dtype of t (non-null) in the list terminated by -1, else 161002 */
bool check_dtype(ph1 *p, const aclTensor *t, const char *name, const int32_t *allowed);
bool check_same_dtype(ph1 *p, const aclTensor *a, const char *an, const aclTensor *b, const char *bn);
bool check_shape(ph1 *p, const aclTensor *t, const char *name, const int64_t *dims, uint32_t nd);
bool check_ndim(ph1 *p, const aclTensor *t, const char *name, uint32_t lo, uint32_t hi);
bool invalid(ph1 *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* numpy broadcast of a and b into out (nd <= 8); false if incompatible */
bool bcast(const mk_view *a, const mk_view *b, int64_t *out, uint32_t *nd);
bool check_bcast_to(ph1 *p, const aclTensor *t, const char *name, const int64_t *dims, uint32_t nd);
/* Creates the executor; slots follow in the order the op adds them. */
bool make_exec(ph1 *p, mk_kernel k, uint64_t ws);
uint32_t add_in(ph1 *p, const aclTensor *t);
uint32_t add_out(ph1 *p, const aclTensor *t);
uint32_t add_inout(ph1 *p, const aclTensor *t);
/* A scalar's value as the op computes with it (float or integer). */
double scalar_f(const aclScalar *s);

extern const int32_t DT_FLOATS[];   /* f32, f16, bf16 */
extern const int32_t DT_NUMERIC[];  /* floats, f64, integers (no bool) */
extern const int32_t DT_ALL[];      /* every dtype the mock supports */
extern const int32_t DT_INDEX[];    /* int32, int64 */

/* ------------------------------------------------------------ phase 2 */

/* Defines aclnn<Name>, the standard phase 2. */
#define OP_PHASE2(Name)                                                                                             \
    OPS_EXPORT aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,            \
                                       aclrtStream stream)                                                          \
    {                                                                                                               \
        aclmock_call c;                                                                                             \
        int32_t fault = aclmock_call_begin(&c, MK_FN(aclnn##Name));                                                 \
        return aclmock_call_end(&c, aclmocknn_executor_launch(&c, fault, "aclnn" #Name, workspace, workspaceSize,   \
                                                              executor, stream));                                   \
    }

/* -------------------------------------------------------------- kernels */

int64_t numel(const mk_view *v);
/* For every element of the row-major iteration over dims[0..nd), its
 * element offset in v broadcast to dims (v's dims right-aligned; size-1 or
 * missing dims repeat). Returns a malloc'ed array (NULL if empty/OOM). */
int64_t *bcast_offsets(const mk_view *v, const int64_t *dims, uint32_t nd);
/* Same, for v's own shape. */
int64_t *view_offsets(const mk_view *v);
/* Splits v around axis `dim`: outer count, axis length, inner count. */
void split_axis(const mk_view *v, uint32_t dim, int64_t *outer, int64_t *len, int64_t *inner);
/* Element offset of (outer o, axis k, inner i) in v, for a split at dim. */
int64_t axis_offset(const mk_view *v, uint32_t dim, int64_t o, int64_t k, int64_t i);
/* Normalizes a possibly negative dim against nd (nd 0 counts as 1). */
bool norm_dim(int64_t dim, uint32_t nd, uint32_t *out);

#endif
