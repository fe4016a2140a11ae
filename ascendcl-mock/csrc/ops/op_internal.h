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
    bool checked;   /* the replay / fault check of the call has run */
    bool dvpp;      /* an acldvpp op: statuses in the acldvpp family (mk_dvpp_status) */
} ph1;

/* An aclnn status as the acldvpp family spells it (CANN 8.5 docs,
 * operatorlist_00061: 106001 null, 106002 invalid, 306001 runtime, 506xxx
 * inner); other codes unchanged. */
aclnnStatus mk_dvpp_status(aclnnStatus rc);

/* Starts the journaled call of `fn` (the GetWorkspaceSize function of op). */
void ph1_begin(ph1 *p, int fn, const char *op);
/* Runs the call's replay and fault check once (after its arguments are
 * journaled; every checking helper below calls it first), then: no failure
 * so far. */
bool ph1_ok(ph1 *p);
/* Ends it: on success hands out the executor and its workspace size,
 * otherwise frees the executor. Returns the status. */
aclnnStatus ph1_end(ph1 *p, uint64_t *workspaceSize, aclOpExecutor **executor);
/* Journal fields. */
void ph1_arg_tensor(ph1 *p, const char *key, const aclTensor *t);
void ph1_arg_scalar(ph1 *p, const char *key, const aclScalar *s);
void ph1_arg_i64(ph1 *p, const char *key, int64_t v);
void ph1_arg_f64(ph1 *p, const char *key, double v);
void ph1_arg_ints(ph1 *p, const char *key, const aclIntArray *a);   /* "[1,2]", null, or "?ptr" */
void ph1_arg_bools(ph1 *p, const char *key, const aclBoolArray *a); /* "[true,false]", ... */

/* Validation helpers: each records the first failure in p->rc (with a
 * message naming the op and the parameter) and returns false once p->rc is
 * set, so a chain stops at the first problem. */
bool need_tensor(ph1 *p, const aclTensor *t, const char *name);   /* null -> 161001 */
bool opt_tensor(ph1 *p, const aclTensor *t, const char *name);    /* null allowed */
bool need_scalar(ph1 *p, const aclScalar *s, const char *name);
bool need_ptr(ph1 *p, const void *v, const char *name);
/* null -> 161001, not a live array -> 161002 */
bool need_ints(ph1 *p, const aclIntArray *a, const char *name);
bool need_bools(ph1 *p, const aclBoolArray *a, const char *name);
/* array a has exactly one of the lengths n1, n2 (n2 < 0: only n1), else 161002 */
bool check_len(ph1 *p, const aclIntArray *a, const char *name, uint64_t n1, int64_t n2);
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

/* ------------------------------------------------- convolution (op_conv.c) */

/* A convolution's attributes as the kernels use them, per spatial dim
 * (0: D, 1: H, 2: W). conv1d and conv2d are conv3d with the leading spatial
 * dims of size 1 (stride and dilation 1, padding 0). pb / pa: padding
 * before / after. */
typedef struct conv_geom {
    int64_t s[3], pb[3], pa[3], d[3], groups;
} conv_geom;
enum { CONV_GEOM_PARAMS = 13 }; /* job parameters conv_put stores */
/* Reads stride, padding, dilation for nsp spatial dims (3: conv3d, padding
 * 3 entries, symmetric; 2: conv2d, padding 2 or 4 entries [top, bottom,
 * left, right]; 1: conv1d, padding 1 entry, or [left, right] when pad2
 * allows it); 161002 with a message on a bad length or value. */
bool conv_attrs(ph1 *p, const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                int64_t groups, uint32_t nsp, bool pad2, conv_geom *g);
/* The shape of the other side of a convolution whose op input is x:
 * not transposed, x is the conv input (N,C,spatial..) and out gets the conv
 * output (N,O,spatial..); transposed, x plays the conv output and out gets
 * the conv input, with outpad (nsp entries) added at the end of each
 * spatial dim. The weight is (O, C/groups, K..) either way; x has 1, 2 or 3
 * spatial dims. Checks the channels against weight and groups; 161002 when
 * they do not fit. */
bool conv_shapes(ph1 *p, const aclTensor *x, const aclTensor *weight, const conv_geom *g, bool transposed,
                 const aclIntArray *outpad, int64_t *out);
/* Kernel cores on dense row-major double arrays with 5-D dims (b: conv
 * input, s: conv output, w: weight): conv_gather: s += conv(b, w);
 * conv_scatter: b += conv_transpose(s, w); conv_wgrad: dw += Σ b(tap)·s.
 * Threaded (op_conv_fast.c). */
void conv_gather(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                 const int64_t *sd, double *s);
void conv_scatter(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                  const int64_t *bd, double *b);
void conv_wgrad(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                const int64_t *wd, double *dw);
/* The same three as one sequential loop nest (op_conv_kernels.c): the
 * reference the threaded cores (op_conv_fast.c) match bit for bit, run
 * when ASCENDCL_MOCK_KERNEL_THREADS (or its alias ASCENDCL_MOCK_CONV_THREADS)
 * is 0. */
void conv_gather_ref(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                     const int64_t *sd, double *s);
void conv_scatter_ref(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                      const int64_t *bd, double *b);
void conv_wgrad_ref(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                    const int64_t *wd, double *dw);
/* The threaded cores on a given number of threads (op_conv_fast.c). */
void conv_gather_mt(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                    const int64_t *sd, double *s, int threads);
void conv_scatter_mt(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                     const int64_t *bd, double *b, int threads);
void conv_wgrad_mt(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                   const int64_t *wd, double *dw, int threads);
/* v's elements as a dense row-major double array (NULL when empty; on host
 * OOM NULL and *oom set). */
double *conv_dense(const mk_view *v, const void *buf, bool *oom);
/* Stores the row-major array a into the 5-D view v (plus bias[channel] when given). */
void conv_store(const mk_view *v, void *vb, const double *a, const mk_view *bias, const void *biasb);
/* v as 5-D (N, C, D, H, W): a 3-D (N, C, L) view gains D = H = 1, a 4-D
 * (N, C, H, W) view D = 1 (size-1 dims of stride 0). */
static inline mk_view as_ncdhw(const mk_view *v)
{
    mk_view r = *v;
    uint32_t add = v->ndim < 5 ? 5 - v->ndim : 0;
    if (add) {
        r.ndim = 5;
        for (uint32_t i = 2; i < v->ndim; i++) {
            r.dims[i + add] = v->dims[i];
            r.strides[i + add] = v->strides[i];
        }
        for (uint32_t i = 2; i < 2 + add; i++) {
            r.dims[i] = 1;
            r.strides[i] = 0;
        }
    }
    return r;
}
/* Stores / loads a geometry in job parameters from index at. */
void conv_put(mk_job *j, int at, const conv_geom *g);
void conv_get(const mk_job *j, int at, conv_geom *g);

/* ------------------------------------------------------------ phase 2 */

/* Defines aclnn<Name>, the standard phase 2. */
#define OP_PHASE2(Name)                                                                                             \
    OPS_EXPORT aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,            \
                                       aclrtStream stream)                                                          \
    {                                                                                                               \
        aclmock_call c;                                                                                             \
        aclmock_call_start(&c, MK_FN(aclnn##Name));                                                                 \
        return aclmock_call_end(&c, aclmocknn_executor_launch(&c, 0, "aclnn" #Name, workspace, workspaceSize,       \
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
/* Element offset of (n, c, h, w) in a 4-D view. */
static inline int64_t off4(const mk_view *v, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return n * v->strides[0] + c * v->strides[1] + h * v->strides[2] + w * v->strides[3];
}
/* v as (N, C, H, W): a 3-D (C, H, W) view gains a leading N of 1. */
static inline mk_view as_nchw(const mk_view *v)
{
    mk_view r = *v;
    if (v->ndim == 3) {
        r.ndim = 4;
        for (int i = 3; i > 0; i--) {
            r.dims[i] = v->dims[i - 1];
            r.strides[i] = v->strides[i - 1];
        }
        r.dims[0] = 1;
        r.strides[0] = 0;
    }
    return r;
}
/* A zeroed array of n doubles (calloc; NULL on OOM or n <= 0). */
double *dzeros(int64_t n);
/* An index read from device data (an nll_loss target, a max-pool index)
 * outside the range its kernel may address: on a card the kernel would read
 * or write out of bounds. Counted as misuse (OUT_OF_BOUNDS, which
 * ASCENDCL_MOCK_ABORT_ON_MISUSE turns into an abort); the mock's kernel
 * skips the index. Called from a kernel (takes the mock's lock). */
void mk_index_misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Normalizes a possibly negative dim against nd (nd 0 counts as 1). */
bool norm_dim(int64_t dim, uint32_t nd, uint32_t *out);

#endif
