/*
 * nn_desc.c (libnnopbase.so): tensor, scalar, array and tensor-list
 * descriptors (acl_meta.h, CANN 8.5.0). Creation validates its arguments;
 * a failure returns NULL and leaves its reason for aclGetRecentErrMsg.
 * Every call is journaled, counted and fault-injectable; live descriptors
 * are counted in the mock's live counts.
 */
#include "nn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_id;

uint64_t nn_next_id(void) { return ++next_id; }

static void arg_handle(aclmock_call *c, const char *key, char prefix, uint64_t id)
{
    char sym[32];
    snprintf(sym, sizeof(sym), "%c%llu", prefix, (unsigned long long)id);
    aclmock_arg_str(c, key, sym);
}

static void out_handle(aclmock_call *c, char prefix, uint64_t id)
{
    char sym[32];
    snprintf(sym, sizeof(sym), "%c%llu", prefix, (unsigned long long)id);
    aclmock_out_str(c, "handle", sym);
}

static bool format_known(int32_t f)
{
    switch (f) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
        return true;
    default:
        return false;
    }
}

static void dims_text(char *buf, size_t cap, const int64_t *d, uint64_t n)
{
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (uint64_t i = 0; d && i < n && k + 24 < cap; i++) {
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "", (long long)d[i]);
    }
    snprintf(buf + k, cap - k, "]");
}

/* Validates aclCreateTensor's arguments; 0 or the status (message set).
 * The real function (opbase v8.5.0 src/nnopbase/common/api/acl_op_api.cpp:28-45)
 * returns NULL only for null viewDims or storageDims with a nonzero count
 * (:32-34) and leaves the rest to each op; the mock also refuses what no op
 * could use (negative dims, strides or offset; a view reaching past its
 * storage; a null stride; unsupported dtypes and formats; more than 8 dims),
 * so the mistake is reported where it is made. */
static aclnnStatus tensor_check(const int64_t *viewDims, uint64_t viewDimsNum, int32_t dataType, const int64_t *stride,
                                int64_t offset, int32_t format, const int64_t *storageDims, uint64_t storageDimsNum)
{
    if (viewDimsNum > MK_MAX_DIMS || storageDimsNum > MK_MAX_DIMS) {
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "at most %d dimensions are supported (view %llu, storage %llu)",
                            MK_MAX_DIMS, (unsigned long long)viewDimsNum, (unsigned long long)storageDimsNum);
    }
    if (viewDimsNum && !viewDims) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "viewDims is null but viewDimsNum is %llu",
                            (unsigned long long)viewDimsNum);
    }
    if (viewDimsNum && !stride) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "stride is null but viewDimsNum is %llu",
                            (unsigned long long)viewDimsNum);
    }
    if (storageDimsNum && !storageDims) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "storageDims is null but storageDimsNum is %llu",
                            (unsigned long long)storageDimsNum);
    }
    if (!mk_dtype_size(dataType)) {
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "dataType %d is not supported", dataType);
    }
    if (!format_known(format)) {
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "format %d is not supported", format);
    }
    if (offset < 0) {
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "offset %lld is negative", (long long)offset);
    }
    bool empty = false;
    int64_t last = offset; /* element index of the view's last element */
    for (uint64_t i = 0; i < viewDimsNum; i++) {
        if (viewDims[i] < 0) {
            char d[200];
            dims_text(d, sizeof(d), viewDims, viewDimsNum);
            return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "view dimension %llu of %s is negative",
                                (unsigned long long)i, d);
        }
        if (stride[i] < 0) {
            return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "stride %llu is negative (%lld)", (unsigned long long)i,
                                (long long)stride[i]);
        }
        if (viewDims[i] == 0) {
            empty = true;
        } else {
            last += (viewDims[i] - 1) * stride[i];
        }
    }
    int64_t storage = 1;
    for (uint64_t i = 0; i < storageDimsNum; i++) {
        if (storageDims[i] < 0) {
            return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "storage dimension %llu is negative",
                                (unsigned long long)i);
        }
        storage *= storageDims[i];
    }
    if (!empty && last >= storage) {
        char v[200], s[200], st[200];
        dims_text(v, sizeof(v), viewDims, viewDimsNum);
        dims_text(s, sizeof(s), storageDims, storageDimsNum);
        dims_text(st, sizeof(st), stride, viewDimsNum);
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID,
                            "view %s with strides %s and offset %lld reaches element %lld, but storage %s holds %lld",
                            v, st, (long long)offset, (long long)last, s, (long long)storage);
    }
    return 0;
}

OPS_EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                      const int64_t *stride, int64_t offset, aclFormat format,
                                      const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclCreateTensor));
    char d[200];
    dims_text(d, sizeof(d), viewDims, viewDimsNum);
    aclmock_arg_str(&c, "view", d);
    dims_text(d, sizeof(d), stride, viewDimsNum);
    aclmock_arg_str(&c, "stride", d);
    aclmock_arg_i64(&c, "offset", offset);
    aclmock_arg_i64(&c, "dtype", dataType);
    aclmock_arg_i64(&c, "format", format);
    dims_text(d, sizeof(d), storageDims, storageDimsNum);
    aclmock_arg_str(&c, "storage", d);
    aclmock_arg_ptr(&c, "data", tensorData);
    int32_t rc = aclmock_call_check(&c);
    if (rc) {
        aclmock_call_end(&c, rc);
        return NULL;
    }
    rc = tensor_check(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum);
    aclTensor *t = NULL;
    if (!rc) {
        t = calloc(1, sizeof(*t));
        if (!t || !nn_reg_add(t, MK_TENSOR)) {
            free(t);
            t = NULL;
            rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
        }
    }
    if (t) {
        t->id = nn_next_id();
        t->v.dtype = dataType;
        t->v.ndim = (uint32_t)viewDimsNum;
        for (uint64_t i = 0; i < viewDimsNum; i++) {
            t->v.dims[i] = viewDims[i];
            t->v.strides[i] = stride[i];
        }
        t->v.offset = offset;
        t->v.addr = tensorData;
        t->format = format;
        t->sndim = (uint32_t)storageDimsNum;
        for (uint64_t i = 0; i < storageDimsNum; i++) {
            t->sdims[i] = storageDims[i];
        }
        aclmock_live_add(ACLMOCK_RES_ACLNN_TENSOR, 1);
        out_handle(&c, 't', t->id);
    }
    aclmock_call_end(&c, rc);
    return t;
}

/* Destroys a live tensor (lock held). */
static void tensor_free(aclTensor *t)
{
    nn_reg_del(t, MK_TENSOR);
    aclmock_live_add(ACLMOCK_RES_ACLNN_TENSOR, -1);
    free(t);
}

/* The common destroy: journals the handle (every descriptor starts with its
 * id), then the injected fault, null and liveness checks. */
static aclnnStatus destroy_common(aclmock_call *c, int32_t fault, const void *p, int kind, const char *what,
                                  const char *key, char prefix)
{
    if (p && aclmocknn_is_live(p, kind)) {
        arg_handle(c, key, prefix, *(const uint64_t *)p);
    } else {
        char sym[32];
        snprintf(sym, sizeof(sym), "?%p", p);
        aclmock_arg_str(c, key, p ? sym : NULL);
    }
    if (!fault) {
        fault = aclmock_call_check(c); /* after the arguments: a strict replay compares them */
    }
    if (fault) {
        return fault;
    }
    if (!p) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s is null", what);
    }
    if (!aclmocknn_is_live(p, kind)) {
        aclmock_misuse(ACLMOCK_MISUSE_DOUBLE_FREE, "%s %p is not a live %s (destroyed twice, or never created)", what,
                       p, what);
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "%s %p is not a live %s", what, p, what);
    }
    return 0;
}

OPS_EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclDestroyTensor));
    int32_t rc = 0;
    if (!(rc = destroy_common(&c, rc, tensor, MK_TENSOR, "tensor", "tensor", 't'))) {
        aclTensor *t = (aclTensor *)(uintptr_t)tensor;
        if (t->in_list) {
            rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "tensor t%llu belongs to a tensor list, which destroys it",
                              (unsigned long long)t->id);
        } else {
            tensor_free(t);
        }
    }
    return aclmock_call_end(&c, rc);
}

/* ------------------------------------------------------------- scalars */

OPS_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclCreateScalar));
    aclmock_arg_i64(&c, "dtype", dataType);
    if (value && mk_dtype_size(dataType)) {
        char v[64];
        snprintf(v, sizeof(v), "%.9g", mk_ldd(value, dataType, 0));
        aclmock_arg_str(&c, "value", v);
    }
    int32_t rc = aclmock_call_check(&c);
    if (rc) {
        aclmock_call_end(&c, rc);
        return NULL;
    }
    aclScalar *s = NULL;
    if (!value) {
        rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "value is null");
    } else if (!mk_dtype_size(dataType)) {
        rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "dataType %d is not supported for a scalar", dataType);
    } else if (!(s = calloc(1, sizeof(*s))) || !nn_reg_add(s, MK_SCALAR)) {
        free(s);
        s = NULL;
        rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
    } else {
        s->id = nn_next_id();
        s->dtype = dataType;
        /* the value is copied now (host memory the caller may reuse) */
        s->f = mk_ldd(value, dataType, 0);
        s->i = mk_ldi(value, dataType, 0);
        aclmock_live_add(ACLMOCK_RES_ACLNN_SCALAR, 1);
        out_handle(&c, 'k', s->id);
    }
    aclmock_call_end(&c, rc);
    return s;
}

OPS_EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclDestroyScalar));
    int32_t rc = 0;
    if (!(rc = destroy_common(&c, rc, scalar, MK_SCALAR, "scalar", "scalar", 'k'))) {
        nn_reg_del(scalar, MK_SCALAR);
        aclmock_live_add(ACLMOCK_RES_ACLNN_SCALAR, -1);
        free((void *)(uintptr_t)scalar);
    }
    return aclmock_call_end(&c, rc);
}

/* -------------------------------------------------------------- arrays */

/* Creates an array descriptor of `kind` holding a copy of n elements of
 * `esize` bytes; `T` is the descriptor type (all share the id, n, v layout). */
#define ARRAY_CREATE(T, fname, kind, elem_t, prefix)                                                                \
    OPS_EXPORT T *fname(const elem_t *value, uint64_t size)                                                         \
    {                                                                                                               \
        aclmock_call c;                                                                                             \
        aclmock_call_start(&c, MK_FN(fname));                                                                       \
        aclmock_arg_u64(&c, "size", size);                                                                          \
        if (value || !size) {                                                                                       \
            char *text = fname##_text(value, size);                                                                 \
            aclmock_arg_str(&c, "value", text ? text : "?");                                                        \
            free(text);                                                                                             \
        }                                                                                                           \
        int32_t rc = aclmock_call_check(&c);                                                                        \
        if (rc) {                                                                                                   \
            aclmock_call_end(&c, rc);                                                                               \
            return NULL;                                                                                            \
        }                                                                                                           \
        T *a = NULL;                                                                                                \
        if (!value && size) {                                                                                       \
            rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "value is null but size is %llu", (unsigned long long)size); \
        } else if (size > (1ull << 32)) {                                                                           \
            rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "size %llu is too large", (unsigned long long)size);         \
        } else if (!(a = calloc(1, sizeof(*a))) || !(a->v = calloc(size ? size : 1, sizeof(elem_t))) ||            \
                   !nn_reg_add(a, kind)) {                                                                          \
            if (a) {                                                                                                \
                free(a->v);                                                                                         \
            }                                                                                                       \
            free(a);                                                                                                \
            a = NULL;                                                                                               \
            rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");                                               \
        } else {                                                                                                    \
            a->id = nn_next_id();                                                                                   \
            a->n = size;                                                                                            \
            if (size) {                                                                                             \
                memcpy(a->v, value, size * sizeof(elem_t));                                                         \
            }                                                                                                       \
            aclmock_live_add(ACLMOCK_RES_ACLNN_ARRAY, 1);                                                           \
            out_handle(&c, prefix, a->id);                                                                          \
        }                                                                                                           \
        aclmock_call_end(&c, rc);                                                                                   \
        return a;                                                                                                   \
    }

#define ARRAY_DESTROY(T, fname, kind, prefix)                                                                       \
    OPS_EXPORT aclnnStatus fname(const T *array)                                                                    \
    {                                                                                                               \
        aclmock_call c;                                                                                             \
        aclmock_call_start(&c, MK_FN(fname));                                                                       \
        int32_t rc = 0;                                                                                             \
        if (!(rc = destroy_common(&c, rc, array, kind, "array", "array", prefix))) {                                \
            nn_reg_del(array, kind);                                                                                \
            aclmock_live_add(ACLMOCK_RES_ACLNN_ARRAY, -1);                                                          \
            free(array->v);                                                                                         \
            free((void *)(uintptr_t)array);                                                                         \
        }                                                                                                           \
        return aclmock_call_end(&c, rc);                                                                            \
    }

/* The values of an array as the journal writes them: "[1,2]" (malloc'd). */
static char *values_text(uint64_t n, void (*put)(char *, size_t, const void *, uint64_t), const void *v, size_t each)
{
    size_t cap = 3 + (size_t)n * each;
    char *t = n > (1ull << 32) ? NULL : malloc(cap);
    if (!t) {
        return NULL;
    }
    size_t k = (size_t)snprintf(t, cap, "[");
    for (uint64_t i = 0; i < n; i++) {
        if (i) {
            t[k++] = ',';
        }
        put(t + k, cap - k, v, i);
        k += strlen(t + k);
    }
    snprintf(t + k, cap - k, "]");
    return t;
}

static void put_int(char *o, size_t cap, const void *v, uint64_t i)
{
    snprintf(o, cap, "%lld", (long long)((const int64_t *)v)[i]);
}
static void put_float(char *o, size_t cap, const void *v, uint64_t i)
{
    snprintf(o, cap, "%.9g", (double)((const float *)v)[i]);
}
static void put_bool(char *o, size_t cap, const void *v, uint64_t i)
{
    snprintf(o, cap, "%s", ((const bool *)v)[i] ? "true" : "false");
}

OPS_EXPORT char *aclmocknn_int_text(const int64_t *v, uint64_t n) { return values_text(n, put_int, v, 22); }
static char *aclCreateIntArray_text(const int64_t *v, uint64_t n) { return aclmocknn_int_text(v, n); }
static char *aclCreateFloatArray_text(const float *v, uint64_t n) { return values_text(n, put_float, v, 18); }
static char *aclCreateBoolArray_text(const bool *v, uint64_t n) { return values_text(n, put_bool, v, 7); }

ARRAY_CREATE(aclIntArray, aclCreateIntArray, MK_INT_ARRAY, int64_t, 'i')
ARRAY_CREATE(aclFloatArray, aclCreateFloatArray, MK_FLOAT_ARRAY, float, 'f')
ARRAY_CREATE(aclBoolArray, aclCreateBoolArray, MK_BOOL_ARRAY, bool, 'b')
ARRAY_DESTROY(aclIntArray, aclDestroyIntArray, MK_INT_ARRAY, 'i')
ARRAY_DESTROY(aclFloatArray, aclDestroyFloatArray, MK_FLOAT_ARRAY, 'f')
ARRAY_DESTROY(aclBoolArray, aclDestroyBoolArray, MK_BOOL_ARRAY, 'b')

/* -------------------------------------------------------- tensor lists */

OPS_EXPORT aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclCreateTensorList));
    aclmock_arg_u64(&c, "size", size);
    if (value || !size) {
        char *text = size > (1ull << 24) ? NULL : malloc(3 + (size_t)size * 24);
        if (text) {
            size_t k = (size_t)sprintf(text, "[");
            for (uint64_t i = 0; i < size; i++) {
                if (!value[i]) {
                    k += (size_t)sprintf(text + k, "%snull", i ? "," : "");
                } else if (aclmocknn_is_live(value[i], MK_TENSOR)) {
                    k += (size_t)sprintf(text + k, "%st%llu", i ? "," : "", (unsigned long long)value[i]->id);
                } else {
                    k += (size_t)sprintf(text + k, "%s?%p", i ? "," : "", (const void *)value[i]);
                }
            }
            sprintf(text + k, "]");
        }
        aclmock_arg_str(&c, "tensors", text ? text : "?");
        free(text);
    }
    int32_t rc = aclmock_call_check(&c);
    if (rc) {
        aclmock_call_end(&c, rc);
        return NULL;
    }
    aclTensorList *l = NULL;
    if (!value && size) {
        rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "value is null but size is %llu", (unsigned long long)size);
    } else {
        for (uint64_t i = 0; i < size && !rc; i++) {
            if (!value[i]) {
                rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "tensor %llu of the list is null", (unsigned long long)i);
            } else if (!aclmocknn_is_live(value[i], MK_TENSOR)) {
                rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "tensor %llu of the list is not a live tensor",
                                  (unsigned long long)i);
            } else if (value[i]->in_list) {
                rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "tensor %llu already belongs to a tensor list",
                                  (unsigned long long)i);
            }
        }
        if (!rc && (!(l = calloc(1, sizeof(*l))) || !(l->v = calloc(size ? size : 1, sizeof(aclTensor *))) ||
                    !nn_reg_add(l, MK_TENSOR_LIST))) {
            if (l) {
                free(l->v);
            }
            free(l);
            l = NULL;
            rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
        }
    }
    if (l) {
        l->id = nn_next_id();
        l->n = size;
        for (uint64_t i = 0; i < size; i++) {
            l->v[i] = (aclTensor *)(uintptr_t)value[i];
            l->v[i]->in_list = true;
        }
        aclmock_live_add(ACLMOCK_RES_ACLNN_TENSOR_LIST, 1);
        out_handle(&c, 'l', l->id);
    }
    aclmock_call_end(&c, rc);
    return l;
}

/* The list owns its tensors: "The aclTensor in the aclTensorList does not
 * need to be destroyed again" (CANN 8.5.0 docs, aolapi operatorlist_00028,
 * aclDestroyTensorList, Constraints). */
OPS_EXPORT aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclDestroyTensorList));
    int32_t rc = 0;
    if (!(rc = destroy_common(&c, rc, array, MK_TENSOR_LIST, "tensor list", "array", 'l'))) {
        for (uint64_t i = 0; i < array->n; i++) {
            tensor_free(array->v[i]);
        }
        nn_reg_del(array, MK_TENSOR_LIST);
        aclmock_live_add(ACLMOCK_RES_ACLNN_TENSOR_LIST, -1);
        free(array->v);
        free((void *)(uintptr_t)array);
    }
    return aclmock_call_end(&c, rc);
}
