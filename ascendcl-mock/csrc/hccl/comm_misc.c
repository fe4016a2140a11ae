/*
 * comm_misc.c: libhcomm.so's barrier, error strings and the process-wide
 * determinism switch.
 */
#include "hccl_mock.h"

#include <stdio.h>

/* Our own wording of what each code means (hccl-facts.md §1.2). */
HM_EXPORT const char *HcclGetErrorString(HcclResult code)
{
    HM_BEGIN(HcclGetErrorString);
    aclmock_arg_i64(&call_, "code", code);
    (void)HM_FAULTED(); /* returns text, not a status: a fault cannot change it */
    const char *s;
    switch (code) {
    case HCCL_SUCCESS: s = "no error"; break;
    case HCCL_E_PARA: s = "an argument is invalid"; break;
    case HCCL_E_PTR: s = "a required pointer is null"; break;
    case HCCL_E_MEMORY: s = "memory operation failed"; break;
    case HCCL_E_INTERNAL: s = "internal failure of the library"; break;
    case HCCL_E_NOT_SUPPORT: s = "the feature is not supported"; break;
    case HCCL_E_NOT_FOUND: s = "a resource was not found"; break;
    case HCCL_E_UNAVAIL: s = "a resource is unavailable"; break;
    case HCCL_E_SYSCALL: s = "a system call failed"; break;
    case HCCL_E_TIMEOUT: s = "timed out waiting for a peer"; break;
    case HCCL_E_OPEN_FILE_FAILURE: s = "a file could not be opened"; break;
    case HCCL_E_TCP_CONNECT: s = "a TCP connection could not be made"; break;
    case HCCL_E_ROCE_CONNECT: s = "a RoCE connection could not be made"; break;
    case HCCL_E_TCP_TRANSFER: s = "a TCP transfer failed"; break;
    case HCCL_E_ROCE_TRANSFER: s = "a RoCE transfer failed"; break;
    case HCCL_E_RUNTIME: s = "a runtime (acl) call failed"; break;
    case HCCL_E_DRV: s = "a driver call failed"; break;
    case HCCL_E_PROFILING: s = "a profiling call failed"; break;
    case HCCL_E_CCE: s = "a CCE call failed"; break;
    case HCCL_E_NETWORK: s = "a network call failed"; break;
    case HCCL_E_AGAIN: s = "busy: call again later"; break;
    case HCCL_E_REMOTE: s = "an RDMA completion reported an error"; break;
    case HCCL_E_SUSPENDING: s = "the communicator is suspending"; break;
    case HCCL_E_OPRETRY_FAIL: s = "retrying the operation failed"; break;
    case HCCL_E_OOM: s = "out of memory"; break;
    case HCCL_E_IN_STATUS: s = "the error is in the status"; break;
    default: s = "unknown HCCL error code"; break;
    }
    aclmock_out_str(&call_, "string", s);
    aclmock_call_end(&call_, 0);
    return s;
}

static int32_t deterministic; /* HCCL_DETERMINISTIC; the mock always is */

HM_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    HM_BEGIN(HcclSetConfig);
    aclmock_arg_i64(&call_, "config", config);
    aclmock_arg_i64(&call_, "value", configValue.value);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (config != HCCL_DETERMINISTIC) {
        return HM_FAIL(HCCL_E_NOT_SUPPORT, "config %d is not supported", config);
    }
    if (configValue.value < 0 || configValue.value > 2) {
        return HM_FAIL(HCCL_E_PARA, "HCCL_DETERMINISTIC takes 0, 1 or 2, not %d", configValue.value);
    }
    deterministic = configValue.value;
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    HM_BEGIN(HcclGetConfig);
    aclmock_arg_i64(&call_, "config", config);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!configValue) {
        return HM_FAIL(HCCL_E_PTR, "configValue is null");
    }
    if (config != HCCL_DETERMINISTIC) {
        return HM_FAIL(HCCL_E_NOT_SUPPORT, "config %d is not supported", config);
    }
    configValue->value = deterministic;
    aclmock_out_u64(&call_, "value", (uint64_t)deterministic);
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclBarrier);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclBarrier, op_base_host.cc:166-167 */
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    if (!c) {
        return HM_END(rc);
    }
    hm_xfer *x = rc == HCCL_SUCCESS ? hm_xfer_new(HK_BARRIER, HCCL_DATA_TYPE_FP32, 0, 0, 0, 0, 0, 0) : NULL;
    if (rc == HCCL_SUCCESS && !x) {
        rc = HCCL_E_MEMORY;
        aclmock_fail(rc, "out of host memory");
    }
    if (x) {
        rc = hm_enqueue(&call_, c, stream, NULL, 0, x);
    }
    hm_comm_leave(c);
    return HM_END(rc);
}
