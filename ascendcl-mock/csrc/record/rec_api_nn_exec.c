/*
 * rec_api_nn_exec.c: recording wrappers of the aclnn executor functions
 * (libnnopbase.so) with the mock's journal keys (csrc/ops/nn_executor.c):
 * making an executor repeatable, re-pointing its tensors
 * (aclSet{Input,Output,}TensorAddr and their Acl* spellings, the address as
 * allocation + offset), destroying it; and aclnnInit/aclnnFinalize.
 */
#include "rec_nn.h"

/* The Acl* spellings exist in CANN's acl_meta.h (opbase v8.5.0
 * include/nnopbase/aclnn/acl_meta.h:103-128) but not in our header. */
aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);

REC_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    REC_BEGIN(aclSetAclOpExecutorRepeatable);
    ra_nn(&c, "executor", 'x', executor);
    aclError rc;
    REC_INVOKE(rc, executor);
    return REC_END(rc);
}

REC_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    REC_BEGIN(aclDestroyAclOpExecutor);
    ra_nn(&c, "executor", 'x', executor);
    aclError rc;
    REC_INVOKE(rc, executor);
    return REC_END(rc);
}

#define REC_SET_ADDR(fname)                                                                                        \
    REC_EXPORT aclnnStatus fname(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)       \
    {                                                                                                              \
        REC_BEGIN(fname);                                                                                          \
        ra_nn(&c, "executor", 'x', executor);                                                                      \
        ra_u64(&c, "index", index);                                                                                \
        ra_nn(&c, "tensor", 't', tensor);                                                                          \
        ra_ptr(&c, "addr", addr);                                                                                  \
        aclError rc;                                                                                               \
        REC_INVOKE(rc, executor, index, tensor, addr);                                                             \
        return REC_END(rc);                                                                                        \
    }

REC_SET_ADDR(aclSetInputTensorAddr)
REC_SET_ADDR(aclSetOutputTensorAddr)
REC_SET_ADDR(aclSetTensorAddr)
REC_SET_ADDR(AclSetInputTensorAddr)
REC_SET_ADDR(AclSetOutputTensorAddr)
REC_SET_ADDR(AclSetTensorAddr)

REC_EXPORT aclnnStatus aclnnInit(const char *configPath)
{
    REC_BEGIN(aclnnInit);
    ra_str(&c, "configPath", configPath);
    aclError rc;
    REC_INVOKE(rc, configPath);
    return REC_END(rc);
}

REC_EXPORT aclnnStatus aclnnFinalize(void)
{
    REC_BEGIN(aclnnFinalize);
    aclError rc;
    REC_INVOKE(rc);
    return REC_END(rc);
}
