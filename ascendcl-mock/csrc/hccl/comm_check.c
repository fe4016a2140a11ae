/*
 * comm_check.c: the argument checks of the collectives, one function per
 * rule, each taken from the open sources of CANN 8.5.0 and cited there:
 *
 *   hcomm  hicann/hcomm tag v8.5.0: src/framework/common/src/param_check.cc
 *          (HcomCheck*), src/framework/communicator/impl/
 *          hccl_communicator_host.cc (HcclCommunicator::Check*), the entry
 *          points in src/framework/op_base/src/op_base.cc and
 *          op_base_host.cc (Hccl*Inner), src/pub_inc/hccl_common.h;
 *   hccl   hicann/hccl tag v8.5.0: src/ops/interface/hccl_collective_op.cc
 *          (HcclX forwards to hcomm's HcclXInner) and src/ops/scatter/.
 *
 * The collectives (coll_*.c) call them in the order of their entry point,
 * every one before anything is queued; a refused call leaves nothing a peer
 * would have to match. The mock's own rules (hm_chk_mock_*) come after every
 * check of the sources. Every failing check sets the message (aclmock_fail).
 */
#include "hccl_mock.h"

/* hcomm src/pub_inc/hccl_common.h:64: the largest count of one operation. */
#define HM_SYS_MAX_COUNT 0x7FFFFFFFFULL

HcclResult hm_chk_ptr(const void *p, const char *what)
{
    /* CHK_PTR_NULL, as every entry point uses it (e.g. op_base_host.cc:89-95) */
    if (!p) {
        return (HcclResult)aclmock_fail(HCCL_E_PTR, "%s is null", what);
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_count(uint64_t count, const char *what)
{
    /* HcomCheckCount, param_check.cc:154-162 */
    if (count > HM_SYS_MAX_COUNT) {
        return (HcclResult)aclmock_fail(HCCL_E_PARA, "%s %llu is larger than the largest count %llu", what,
                                        (unsigned long long)count, HM_SYS_MAX_COUNT);
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_dtype(int32_t dtype)
{
    /* HcomCheckDataType, param_check.cc:29-43 (HCCL_SUPPORT_DATA_TYPE) and 280-288 */
    if (!hm_dtype_valid(dtype)) {
        return (HcclResult)aclmock_fail(HCCL_E_NOT_SUPPORT, "data type %d is not supported", dtype);
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_op_param(uint64_t count, int32_t dtype, aclrtStream stream)
{
    /* HcomCheckOpParam, param_check.cc:400-432: the count, the dtype, then
     * the stream */
    HcclResult rc = hm_chk_count(count, "count");
    if (rc == HCCL_SUCCESS) {
        rc = hm_chk_dtype(dtype);
    }
    if (rc == HCCL_SUCCESS) {
        rc = hm_chk_ptr(stream, "stream");
    }
    return rc;
}

HcclResult hm_chk_reduction(int32_t dtype, int32_t op)
{
    /* HcomCheckReductionOp, param_check.cc:45-50 and 303-316: not one of
     * SUM, PROD, MAX, MIN is HCCL_E_NOT_SUPPORT */
    if (!hm_op_valid(op)) {
        return (HcclResult)aclmock_fail(HCCL_E_NOT_SUPPORT, "reduction op %d is not SUM, PROD, MAX or MIN", op);
    }
    /* HcomCheckReduceDataType, param_check.cc:318-338, for the mock's chip
     * (an Ascend 910B, DEV_TYPE_910B): PROD of int16 or bf16 is refused */
    if (op == HCCL_REDUCE_PROD && (dtype == HCCL_DATA_TYPE_INT16 || dtype == HCCL_DATA_TYPE_BFP16)) {
        return (HcclResult)aclmock_fail(HCCL_E_NOT_SUPPORT, "PROD of %s is not supported on an Ascend 910B",
                                        hm_dtype_name(dtype));
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_reduce_dtype(int32_t dtype)
{
    /* HcclCommunicator::CheckDataType(dataType, needReduce = true),
     * hccl_communicator_host.cc:788-804, reached through hcclComm's
     * AllReduceOutPlace (hccl_comm_host.cc:65), ReduceScatterOutPlace,
     * ReduceScatterVOutPlace and ReduceOutPlace (hccl_comm.cc:611, 674, 728):
     * unsigned integers and fp64 do not reduce */
    switch (dtype) {
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64:
        return (HcclResult)aclmock_fail(HCCL_E_NOT_SUPPORT,
                                        "%s does not reduce (reductions take int8, int16, int32, int64, fp16, "
                                        "fp32 and bfp16)",
                                        hm_dtype_name(dtype));
    default: return HCCL_SUCCESS;
    }
}

HcclResult hm_chk_rank(const hm_comm *c, uint32_t rank, const char *what)
{
    /* HcomCheckUserRank, param_check.cc:376-384 (and CheckUserRank,
     * hccl_communicator_host.cc:1802-1810) */
    if (rank >= c->nranks) {
        return (HcclResult)aclmock_fail(HCCL_E_PARA, "%s %u is out of range for %u ranks", what, rank, c->nranks);
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_counts(const uint64_t *counts, uint32_t n, const char *what, uint64_t *total)
{
    /* HcclAllGatherVInner op_base.cc:2066-2070, HcclReduceScatterVInner
     * :1745-1749: every count of the array at most SYS_MAX_COUNT */
    *total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (counts[i] > HM_SYS_MAX_COUNT) {
            return (HcclResult)aclmock_fail(HCCL_E_PARA, "%s[%u] %llu is larger than the largest count %llu", what,
                                            i, (unsigned long long)counts[i], HM_SYS_MAX_COUNT);
        }
        *total += counts[i];
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_enter(HcclComm comm, hm_comm **c)
{
    /* The mock's rule, where the sources first dereference the handle (the
     * operator lock, e.g. op_base_host.cc:97-98): an unknown or destroyed
     * handle is HCCL_E_PARA and counted as misuse (comm_registry.c). */
    HcclResult rc;
    *c = hm_comm_enter(comm, &rc);
    return *c ? HCCL_SUCCESS : rc;
}

HcclResult hm_chk_mock_reduce(int32_t dtype)
{
    /* The mock's rule: no check of the sources refuses an int128 reduction
     * at the call; the mock does not reduce int128 (no C type for it on every
     * target), docs/mock-conformance.md */
    if (!hm_can_reduce(dtype)) {
        return (HcclResult)aclmock_fail(HCCL_E_NOT_SUPPORT, "%s does not reduce in the mock",
                                        hm_dtype_name(dtype));
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_mock_stream(const hm_comm *c, aclrtStream stream)
{
    int32_t dev = -1;
    if (aclmock_stream_device(stream, &dev) != 0) {
        return (HcclResult)aclmock_fail(HCCL_E_RUNTIME, "the stream is not a valid stream (the runtime refused it)");
    }
    /* The mock's rule, not found in the sources: a communicator's work runs
     * on its own device, so a stream of another device is refused. */
    if (dev != c->device) {
        return (HcclResult)aclmock_fail(HCCL_E_PARA,
                                        "the stream belongs to device %d but the communicator (rank %u) to device %d",
                                        dev, c->rank, c->device);
    }
    return HCCL_SUCCESS;
}

HcclResult hm_chk_mock_peer(const hm_comm *c, uint32_t peer, const char *what)
{
    /* The mock's rule (no check of the sources refuses it at the call): a
     * rank does not send to or receive from itself. */
    if (peer == c->rank) {
        return (HcclResult)aclmock_fail(HCCL_E_PARA, "%s %u is this rank", what, peer);
    }
    return HCCL_SUCCESS;
}
