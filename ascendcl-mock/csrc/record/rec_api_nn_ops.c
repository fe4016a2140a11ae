/*
 * rec_api_nn_ops.c: the recording wrappers of the aclnn operators, made
 * from rec_ops_table.h: for each line, phase 1 (aclnn<Name>GetWorkspaceSize)
 * records every parameter under its name in the form of its kind, and on
 * success the executor (x<N>, numbered with the descriptors) and the
 * workspace size it returned; phase 2 (aclnn<Name>) records the workspace
 * (allocation + offset), its size, the executor and the stream. The keys
 * are the mock's (csrc/ops/op_common.c ph1_*, nn_executor.c), so a card's
 * trace replays on the mock, and the mock checks what it replays.
 */
#include "rec_each.h"
#include "rec_nn.h"

#include <stdio.h>

/* ------------------------------------------------------- the kinds */

#define RN_TYPE_T const aclTensor *
#define RN_TYPE_TO aclTensor *
#define RN_TYPE_S const aclScalar *
#define RN_TYPE_IA const aclIntArray *
#define RN_TYPE_BA const aclBoolArray *
#define RN_TYPE_TL const aclTensorList *
#define RN_TYPE_TLO aclTensorList *
#define RN_TYPE_I8 int8_t
#define RN_TYPE_I32 int
#define RN_TYPE_I64 int64_t
#define RN_TYPE_U64 uint64_t
#define RN_TYPE_B bool
#define RN_TYPE_DT aclDataType
#define RN_TYPE_F64 double
#define RN_TYPE_F32 float
#define RN_TYPE_STR char *

#define RN_REC_T(n) ra_nn(&c, #n, 't', n)
#define RN_REC_TO(n) ra_nn(&c, #n, 't', n)
#define RN_REC_S(n) ra_nn(&c, #n, 'k', n)
#define RN_REC_IA(n) ra_nn_values(&c, #n, 'i', n)
#define RN_REC_BA(n) ra_nn_values(&c, #n, 'b', n)
#define RN_REC_TL(n) ra_nn(&c, #n, 'l', n)
#define RN_REC_TLO(n) ra_nn(&c, #n, 'l', n)
#define RN_REC_I8(n) ra_i64(&c, #n, n)
#define RN_REC_I32(n) ra_i64(&c, #n, n)
#define RN_REC_I64(n) ra_i64(&c, #n, n)
#define RN_REC_U64(n) ra_u64(&c, #n, n)
#define RN_REC_B(n) ra_i64(&c, #n, n)
#define RN_REC_DT(n) ra_i64(&c, #n, n)
#define RN_REC_F64(n) rn_f64(&c, #n, n)
/* a float as the mock's journal writes it: promoted to double */
#define RN_REC_F32(n) rn_f64(&c, #n, (double)n)
#define RN_REC_STR(n) ra_str(&c, #n, n)

static void rn_f64(rec_call *c, const char *key, double v)
{
    if (c->on) {
        char text[40];
        snprintf(text, sizeof(text), "%.17g", v);
        ra_str(c, key, text);
    }
}

/* (KIND, name) -> the parameter, its recording, its name */
#define RN_PARAM_(k, n) RN_TYPE_##k n
#define RN_RECORD_(k, n) RN_REC_##k(n)
#define RN_NAME_(k, n) n
#define RN_PARAM(p) RN_PARAM_ p
#define RN_RECORD(p) RN_RECORD_ p
#define RN_NAME(p) RN_NAME_ p

/* ------------------------------------------------------ the wrappers */

#define RN_OP(Name, ...)                                                                                           \
    REC_EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(RN_EACH(RN_PARAM, RN_COMMA, __VA_ARGS__),                 \
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)        \
    {                                                                                                              \
        REC_BEGIN(aclnn##Name##GetWorkspaceSize);                                                                  \
        if (rec_on_) {                                                                                             \
            RN_EACH(RN_RECORD, RN_SEMI, __VA_ARGS__);                                                              \
        }                                                                                                          \
        aclError rc;                                                                                               \
        REC_INVOKE(rc, RN_EACH(RN_NAME, RN_COMMA, __VA_ARGS__), workspaceSize, executor);                          \
        if (rec_on_ && rc == ACL_SUCCESS && executor && workspaceSize) {                                           \
            ro_nn_new(&c, "executor", 'x', *executor);                                                             \
            ro_u64(&c, "workspaceSize", *workspaceSize);                                                           \
        }                                                                                                          \
        return REC_END(rc);                                                                                        \
    }                                                                                                              \
    REC_EXPORT aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,           \
                                       aclrtStream stream)                                                         \
    {                                                                                                              \
        REC_BEGIN(aclnn##Name);                                                                                    \
        ra_ptr(&c, "workspace", workspace);                                                                        \
        ra_u64(&c, "workspaceSize", workspaceSize);                                                                \
        ra_nn(&c, "executor", 'x', executor);                                                                      \
        ra_stream(&c, "stream", stream);                                                                           \
        aclError rc;                                                                                               \
        REC_INVOKE(rc, workspace, workspaceSize, executor, stream);                                                \
        return REC_END(rc);                                                                                        \
    }

REC_OPS(RN_OP)
