/*
 * rec_api_nn_desc.c: recording wrappers of the aclnn descriptor functions
 * (libnnopbase.so): tensors, scalars, int/float/bool arrays and tensor
 * lists, created and destroyed, with the mock's journal keys
 * (csrc/ops/nn_desc.c). A tensor's data address is written as allocation +
 * offset like every device address; an array's values are written at its
 * creation and kept, so the operators it is passed to write them too.
 * A creation that returns null records the thread's last error (561000 if
 * the runtime holds none).
 */
#include "rec_nn.h"

#include <stdio.h>
#include <stdlib.h>

/* The status of a creation that returned null. */
static aclError null_status(void)
{
    aclError rc = rec_peek_error();
    return rc ? rc : ACLNN_ERR_INNER;
}

/* Calls `expr` (a creation returning a pointer) as REC_INVOKE does. */
#define REC_INVOKE_PTR(res, rc, ...)                                                                               \
    do {                                                                                                           \
        if (rec_on_) {                                                                                             \
            rec_invoke(&c, (void *)real_);                                                                         \
        }                                                                                                          \
        if (real_) {                                                                                               \
            (res) = real_(__VA_ARGS__);                                                                            \
            (rc) = (res) ? ACL_SUCCESS : null_status();                                                            \
        } else {                                                                                                   \
            (res) = NULL;                                                                                          \
            (rc) = rec_missing(&c);                                                                                \
        }                                                                                                          \
        if (rec_on_) {                                                                                             \
            rec_returned(&c, (rc));                                                                                \
        }                                                                                                          \
    } while (0)

static void ra_dims(rec_call *c, const char *key, const int64_t *d, uint64_t n)
{
    if (!c->on) {
        return;
    }
    jbuf b;
    jb_init(&b);
    rn_dims(&b, d, n, UINT64_MAX);
    ra_str(c, key, jb_str(&b));
    jb_free(&b);
}

REC_EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                      const int64_t *stride, int64_t offset, aclFormat format,
                                      const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    REC_BEGIN(aclCreateTensor);
    ra_dims(&c, "view", viewDims, viewDimsNum);
    ra_dims(&c, "stride", stride, viewDimsNum);
    ra_i64(&c, "offset", offset);
    ra_i64(&c, "dtype", dataType);
    ra_i64(&c, "format", format);
    ra_dims(&c, "storage", storageDims, storageDimsNum);
    ra_ptr(&c, "data", tensorData);
    aclTensor *t;
    aclError rc;
    REC_INVOKE_PTR(t, rc, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                   tensorData);
    ro_nn_new(&c, "handle", 't', t);
    REC_END(rc);
    return t;
}

REC_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    REC_BEGIN(aclCreateScalar);
    ra_i64(&c, "dtype", dataType);
    double v;
    if (c.on && rn_scalar_value(value, dataType, &v)) {
        char text[64];
        snprintf(text, sizeof(text), "%.9g", v);
        ra_str(&c, "value", text);
    }
    aclScalar *s;
    aclError rc;
    REC_INVOKE_PTR(s, rc, value, dataType);
    ro_nn_new(&c, "handle", 'k', s);
    REC_END(rc);
    return s;
}

/* An array's creation: "size", its values as "value" (kept for the
 * operators it is passed to), the new handle. */
#define REC_ARRAY_CREATE(T, fname, elem_t, letter, put)                                                            \
    REC_EXPORT T *fname(const elem_t *value, uint64_t size)                                                        \
    {                                                                                                              \
        REC_BEGIN(fname);                                                                                          \
        ra_u64(&c, "size", size);                                                                                  \
        jbuf text;                                                                                                 \
        jb_init(&text);                                                                                            \
        if (c.on && (value || !size)) {                                                                            \
            jb_printf(&text, "[");                                                                                 \
            for (uint64_t i = 0; i < size; i++) {                                                                  \
                jb_printf(&text, "%s", i ? "," : "");                                                              \
                put;                                                                                               \
            }                                                                                                      \
            jb_printf(&text, "]");                                                                                 \
            ra_str(&c, "value", jb_str(&text));                                                                    \
        }                                                                                                          \
        T *a;                                                                                                      \
        aclError rc;                                                                                               \
        REC_INVOKE_PTR(a, rc, value, size);                                                                        \
        ro_nn_new(&c, "handle", letter, a);                                                                        \
        if (c.on && a && text.len) {                                                                               \
            rn_keep_text(rec_nn_find(a), jb_str(&text));                                                           \
        }                                                                                                          \
        jb_free(&text);                                                                                            \
        REC_END(rc);                                                                                               \
        return a;                                                                                                  \
    }

REC_ARRAY_CREATE(aclIntArray, aclCreateIntArray, int64_t, 'i', jb_printf(&text, "%lld", (long long)value[i]))
REC_ARRAY_CREATE(aclFloatArray, aclCreateFloatArray, float, 'f', jb_printf(&text, "%.9g", (double)value[i]))
REC_ARRAY_CREATE(aclBoolArray, aclCreateBoolArray, bool, 'b', jb_printf(&text, "%s", value[i] ? "true" : "false"))

REC_EXPORT aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    REC_BEGIN(aclCreateTensorList);
    ra_u64(&c, "size", size);
    if (c.on && (value || !size)) {
        jbuf text;
        jb_init(&text);
        jb_printf(&text, "[");
        for (uint64_t i = 0; i < size; i++) {
            char sym[48];
            if (value[i]) {
                rn_symbol(sym, sizeof(sym), 't', value[i]);
            }
            jb_printf(&text, "%s%s", i ? "," : "", value[i] ? sym : "null");
        }
        jb_printf(&text, "]");
        ra_str(&c, "tensors", jb_str(&text));
        jb_free(&text);
    }
    aclTensorList *l;
    aclError rc;
    REC_INVOKE_PTR(l, rc, value, size);
    ro_nn_new(&c, "handle", 'l', l);
    REC_END(rc);
    return l;
}

/* A destruction: the handle under `key`. */
#define REC_DESTROY(T, fname, key, letter)                                                                         \
    REC_EXPORT aclnnStatus fname(const T *h)                                                                       \
    {                                                                                                              \
        REC_BEGIN(fname);                                                                                          \
        ra_nn(&c, key, letter, h);                                                                                 \
        aclError rc;                                                                                               \
        REC_INVOKE(rc, h);                                                                                         \
        return REC_END(rc);                                                                                        \
    }

REC_DESTROY(aclTensor, aclDestroyTensor, "tensor", 't')
REC_DESTROY(aclScalar, aclDestroyScalar, "scalar", 'k')
REC_DESTROY(aclIntArray, aclDestroyIntArray, "array", 'i')
REC_DESTROY(aclFloatArray, aclDestroyFloatArray, "array", 'f')
REC_DESTROY(aclBoolArray, aclDestroyBoolArray, "array", 'b')
REC_DESTROY(aclTensorList, aclDestroyTensorList, "array", 'l')
