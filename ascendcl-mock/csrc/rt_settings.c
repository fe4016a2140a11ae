/*
 * rt_settings.c: the runtime's switches that start-up code of torch_npu,
 * pyACL and C++ programs sets: the floating-point overflow mode, operator
 * timeouts, the exception callback (and the getters of its argument), the
 * current context's default stream and options, a stream's failure mode and
 * overflow switch.
 *
 * Every setting is kept where CANN keeps it (process, context or stream) and
 * read back by its getter; rules cite hicann/runtime v8.5.0.
 */
#include "mock.h"

void settings_reset_locked(void)
{
    G.sat_mode = ACL_RT_OVERFLOW_MODE_SATURATION; /* runtime.hpp:904 */
    G.op_wait_timeout_s = 0;
    G.op_execute_timeout_s = 0;
    G.exception_cb = NULL;
}

/* ------------------------------------------------------ overflow mode */

ACLMOCK_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetDeviceSatMode);
    ja_i64(&c, "mode", (int64_t)mode);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* api_error.cc:4908-4911: SATURATION or INFNAN, else 107000. The mode is
     * the process's (Runtime::SetSatMode, api_impl.cc:6740): no context is
     * needed, and one current is updated too. The Ascend910B family can set
     * it (platform/910_B_93/dev_info_reg.cc:168, api_c.cc:3641-3651). */
    if ((unsigned)mode >= (unsigned)ACL_RT_OVERFLOW_MODE_UNDEF) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "mode %d is not SATURATION (0) or INFNAN (1)", (int)mode));
    }
    G.sat_mode = (int)mode;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceSatMode);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:258: null -> 100000; api_impl.cc:6745-6749: the process's mode */
    if (!mode) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "mode is null"));
    }
    *mode = (aclrtFloatOverflowMode)G.sat_mode;
    jo_i64(&c, "mode", G.sat_mode);
    return call_end(&c, ACL_SUCCESS);
}

/* ------------------------------------------------------- op timeouts */

/* event.cpp:264-271 and api_impl.cc:5783-5816: stored for the process, no
 * context needed on an Ascend910B (its eventWaitTimeout is
 * SET_OP_WAIT_TIMEOUT_CONFIG, platform/910_B_93/dev_info_reg.cc:162); the
 * mock runs no operator that waits on the device, so nothing times out. */
ACLMOCK_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetOpWaitTimeout);
    ja_u64(&c, "timeout", timeout);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    G.op_wait_timeout_s = timeout;
    return call_end(&c, ACL_SUCCESS);
}

/* event.cpp:273-286 and api_impl.cc:5818-5831: any value, for the process. */
ACLMOCK_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetOpExecuteTimeOut);
    ja_u64(&c, "timeout", timeout);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    G.op_execute_timeout_s = timeout;
    return call_end(&c, ACL_SUCCESS);
}

/* -------------------------------------------------- exception callback */

/* callback.cpp:37-48: registered for the acl module, NULL unregisters. The
 * mock's device tasks never fail with a device exception, so it is never
 * called (docs/mock-conformance.md). */
ACLMOCK_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetExceptionInfoCallback);
    ja_str(&c, "callback", callback ? "set" : "null");
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    G.exception_cb = callback;
    return call_end(&c, ACL_SUCCESS);
}

/* The runtime's rtExceptionInfo starts with these five fields (callback.cpp
 * reads taskid, streamid, tid, deviceid, retcode); the mock never makes one,
 * so only its own layout matters: a caller can only pass one it was given. */
struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
};

/* callback.cpp:22: what every getter answers for a NULL info. */
#define INVALID_EXCEPTION_INFO 0xFFFFFFFFU

/* The getters (callback.cpp:50-93): NULL -> 0xFFFFFFFF with a reported
 * error (ACL_LOG_INNER_ERROR), else the field. */
#define EXCEPTION_GETTER(name, field)                                                                          \
    ACLMOCK_EXPORT uint32_t name(const aclrtExceptionInfo *info)                                               \
    {                                                                                                          \
        mock_call c;                                                                                           \
        call_begin(&c, FN_##name);                                                                             \
        if (call_faulted(&c)) {                                                                                \
            call_end(&c, c.fault_code);                                                                        \
            return INVALID_EXCEPTION_INFO;                                                                     \
        }                                                                                                      \
        if (!info) {                                                                                           \
            call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "exception information is null"));                 \
            return INVALID_EXCEPTION_INFO;                                                                     \
        }                                                                                                      \
        uint32_t v = info->field;                                                                              \
        jo_u64(&c, #field, v);                                                                                 \
        call_end(&c, ACL_SUCCESS);                                                                             \
        return v;                                                                                              \
    }

EXCEPTION_GETTER(aclrtGetTaskIdFromExceptionInfo, taskid)
EXCEPTION_GETTER(aclrtGetStreamIdFromExceptionInfo, streamid)
EXCEPTION_GETTER(aclrtGetThreadIdFromExceptionInfo, tid)
EXCEPTION_GETTER(aclrtGetDeviceIdFromExceptionInfo, deviceid)
EXCEPTION_GETTER(aclrtGetErrorCodeFromExceptionInfo, retcode)

/* -------------------------------------------------------- the context */

ACLMOCK_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtCtxGetCurrentDefaultStream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* context.cpp:217: null -> 100000; api_impl.cc:7405-7411: the current
     * context's default stream, 107002 without one */
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null"));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    *stream = ctx->default_stream;
    jo_obj(&c, "stream", ctx->default_stream, OBJ_STREAM);
    return call_end(&c, ACL_SUCCESS);
}

/* context.cpp:103, 137: only the three aclSysParamOpt values -> else 100000 */
static bool sysopt_valid(aclSysParamOpt opt)
{
    return opt == ACL_OPT_DETERMINISTIC || opt == ACL_OPT_ENABLE_DEBUG_KERNEL || opt == ACL_OPT_STRONG_CONSISTENCY;
}

ACLMOCK_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    mock_call c;
    call_begin(&c, FN_aclrtCtxSetSysParamOpt);
    ja_i64(&c, "opt", (int64_t)opt);
    ja_i64(&c, "value", value);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!sysopt_valid(opt)) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "opt %d is not 0, 1 or 2", (int)opt));
    }
    /* api_error.cc:5014-5017: value in [0, SYS_OPT_MAX = 2) -> else 107000
     * (rt_external_base.h:109); api_impl.cc:6857-6858: 107002 */
    if (value < 0 || value >= 2) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "value %lld is not 0 or 1", (long long)value));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    ctx->sysopt[opt] = value;
    ctx->sysopt_set[opt] = true;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    mock_call c;
    call_begin(&c, FN_aclrtCtxGetSysParamOpt);
    ja_i64(&c, "opt", (int64_t)opt);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* context.cpp:102-112: value null, then opt -> 100000 */
    if (!value) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "value is null"));
    }
    if (!sysopt_valid(opt)) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "opt %d is not 0, 1 or 2", (int)opt));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    /* context.cpp:120-123: an option never set is 107021, a warning only
     * (no reported text); the runtime's context table is not open source,
     * the code is what the acl layer expects */
    if (!ctx->sysopt_set[opt]) {
        return call_end(&c, ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    }
    *value = ctx->sysopt[opt];
    jo_i64(&c, "value", *value);
    return call_end(&c, ACL_SUCCESS);
}

/* ------------------------------------------------------------ streams */

ACLMOCK_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetStreamFailureMode);
    ja_stream(&c, "stream", stream);
    ja_u64(&c, "mode", mode);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* api_error.cc:1132-1135: the default stream (NULL) -> 207000, returned
     * without a thread error (api_c_stream.cc:310) but reported by the acl
     * layer (stream.cpp:277) */
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the default stream has no failure mode"));
    }
    /* api_impl.cc:1867-1868: 107002 without a context */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    /* api_impl.cc:1875-1893: only bit 0 counts; the same mode succeeds;
     * STOP cannot go back to CONTINUE -> 207000 (as above) */
    bool stop = (mode & ACL_STOP_ON_FAILURE) != 0;
    if (s->stop_on_failure && !stop) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "s%llu stops on failure; it cannot go back "
                                     "to ACL_CONTINUE_ON_FAILURE", (unsigned long long)s->h.id));
    }
    s->stop_on_failure = stop;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetStreamOverflowSwitch);
    ja_stream(&c, "stream", stream);
    ja_u64(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:300-303: 0 or 1, else 100000 (logged only, no text) */
    if (flag > 1) {
        return call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    /* api_impl.cc:6767-6777: context (107002), the process's overflow mode
     * must be SATURATION (207000), NULL is the default stream, a stream of
     * another context is 107003 */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (G.sat_mode != ACL_RT_OVERFLOW_MODE_SATURATION) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the overflow switch needs the SATURATION mode "
                                 "(aclrtSetDeviceSatMode), current mode is %d", G.sat_mode));
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    s->overflow = flag;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetStreamOverflowSwitch);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:287: null -> 100000; api_impl.cc:6783-6793: context,
     * default stream, stream's context; the switch as set (off at creation),
     * as on a STARS chip like the Ascend910B (dev_info_reg.cc:160; others
     * always answer 1) */
    if (!flag) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "flag is null"));
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    *flag = s->overflow;
    jo_u64(&c, "flag", s->overflow);
    return call_end(&c, ACL_SUCCESS);
}
