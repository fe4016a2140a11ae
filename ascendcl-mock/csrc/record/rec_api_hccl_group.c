/*
 * rec_api_hccl_group.c: recording wrappers of HcclGroupStart/HcclGroupEnd
 * and the calling thread's group state. Inside a group, Send and Recv are
 * kept and launched together at the outermost HcclGroupEnd; the mock's
 * journal of HcclGroupEnd has their number under "kept" (csrc/hccl/
 * comm_group.c), which the shim counts itself: the successful Send/Recv of
 * at least one element since the outermost HcclGroupStart of the thread.
 */
#include "rec.h"

#include <hccl/hccl.h>

static __thread int depth;
static __thread uint64_t kept;

void rec_group_p2p(uint64_t count, int rc)
{
    if (depth > 0 && count > 0 && rc == HCCL_SUCCESS) {
        kept++;
    }
}

REC_EXPORT HcclResult HcclGroupStart(void)
{
    REC_BEGIN(HcclGroupStart);
    aclError rc;
    REC_INVOKE(rc);
    if (rc == HCCL_SUCCESS) {
        depth++;
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGroupEnd(void)
{
    REC_BEGIN(HcclGroupEnd);
    ra_u64(&c, "kept", kept);
    aclError rc;
    REC_INVOKE(rc);
    /* the outermost end launches the kept calls, whatever their outcome */
    if (depth > 0 && --depth == 0) {
        kept = 0;
    }
    return (HcclResult)REC_END(rc);
}
