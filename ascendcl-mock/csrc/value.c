/*
 * value.c: stream tasks on one 64-bit word of device memory
 * (aclrtValueWrite, aclrtValueWait): a write stores a value, a wait holds its
 * stream until the word meets a condition. Streams synchronize through the
 * word: a wait queued on one stream is released by a write queued on another,
 * before or after it (runtime v8.5.0 example/memory/9_multistream_sync_memory).
 *
 * Rules from hicann/runtime v8.5.0: src/acl/aclrt_impl/memory.cpp,
 * src/runtime/feature/src/api/api_c_memory.cc, api_impl/api_error.cc,
 * api_impl/api_impl.cc, context/context.cc, and the conditions of
 * feature/inc/stars/stars_cond_isa_define.hpp.
 */
#include "mock.h"

#include <string.h>

/* stars_cond_isa_define.hpp:299-305: GEQ, EQ, AND, NOR; 4 is the bound. */
#define MEM_WAIT_VALUE_TYPE_MAX 4u

/* The checks both calls make, in the runtime's order. */
static aclError value_check(void *devAddr, uint32_t flag, bool wait, aclrtStream stream, mock_stream **s,
                            mem_range *r)
{
    /* memory.cpp:1370 (write), :1384 (wait): null -> 100000 */
    if (!devAddr) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "devAddr is null");
    }
    /* api_c_memory.cc:549-553, 568-572: RT_FEATURE_TASK_VALUE_WAIT, which the
     * Ascend910B chips have (platform/910_B_93/dev_info_reg.cc:45) */
    /* api_error.cc:6022: a write's flag is reserved, 0; api_error.cc:6039-6040:
     * a wait's condition is below MEM_WAIT_VALUE_TYPE_MAX -> else 107000 */
    if (!wait && flag != 0) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "flag %u is reserved and must be 0", flag);
    }
    if (wait && flag >= MEM_WAIT_VALUE_TYPE_MAX) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "flag %u is not an ACL_STREAM_WAIT_VALUE_* condition [0, %u)", flag,
                    MEM_WAIT_VALUE_TYPE_MAX);
    }
    /* api_error.cc:6026-6031, 6044-6049: the address's attributes
     * (PtrGetAttributes fails for device addresses nothing owns: 107000, as
     * the mock's aclrtPointerGetAttributes), then it must be device memory.
     * The word is 8 bytes (context.cc:5352, 5379: a 64-bit access); bounds as
     * for any access (arena.c: the padding a card adds is misuse, past it
     * refused). */
    aclError rc = mem_classify(devAddr, sizeof(uint64_t), !wait, false, r);
    if (rc) {
        return rc;
    }
    if (r->where != MEM_DEVICE) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "devAddr %p is %s memory, not device memory", devAddr,
                    r->where == MEM_PINNED ? "pinned host" : "host");
    }
    /* docs/api_docs/aclrtValueWrite.md:26: 8-byte aligned. No open-source
     * layer checks it (the access is the device's): refused by the mock
     * (docs/mock-conformance.md) */
    if ((uintptr_t)devAddr % sizeof(uint64_t)) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "devAddr %p is not 8-byte aligned", devAddr);
    }
    /* api_impl.cc:8634-8635, 8651-8652: no current context -> 107002 */
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    /* api_impl.cc:8637-8644, 8654-8661: NULL is the context's default
     * stream; a stream of another context -> 107003 */
    *s = stream_in_ctx(stream);
    if (!*s) {
        return tls()->last_rc;
    }
    return ACL_SUCCESS;
}

static aclError value_task(int fn, void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    bool wait = fn == FN_aclrtValueWait;
    mock_call c;
    call_begin(&c, fn);
    ja_ptr(&c, "devAddr", devAddr);
    ja_u64(&c, "value", value);
    ja_u64(&c, "flag", flag);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_stream *s = NULL;
    mem_range r;
    aclError rc = value_check(devAddr, flag, wait, stream, &s, &r);
    if (rc) {
        return call_end(&c, rc);
    }
    /* context.cc:5343-5353, 5370-5380: one task on the stream */
    mock_task *t = task_new(wait ? TASK_VALUE_WAIT : TASK_VALUE_WRITE);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.value.addr = devAddr;
    t->u.value.value = value;
    t->u.value.flag = flag;
    t->u.value.fp = r.fp;
    order_journal(&c, order_value_access(s, devAddr, !wait, fn));
    return call_end(&c, stream_enqueue(s, t));
}

ACLMOCK_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return value_task(FN_aclrtValueWrite, devAddr, value, flag, stream);
}

ACLMOCK_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return value_task(FN_aclrtValueWait, devAddr, value, flag, stream);
}

/* ------------------------------------------------------------- worker */

/* The word still names the memory it named when the task was queued. */
static bool word_still_valid(const mock_stream *s, const mock_task *t)
{
    mem_range r;
    if (mem_classify(t->u.value.addr, sizeof(uint64_t), t->kind == TASK_VALUE_WRITE, true, &r) == ACL_SUCCESS &&
        r.fp == t->u.value.fp) {
        return true;
    }
    char sym[96];
    sym_addr(t->u.value.addr, sym, sizeof(sym));
    misuse(ACLMOCK_MISUSE_USE_AFTER_FREE, "%s queued on s%llu: the word %p (%s) was freed before the task ran",
           mock_fn_names[t->origin], (unsigned long long)s->h.id, t->u.value.addr, sym);
    return false;
}

/* The conditions of aclrtValueWait (docs/api_docs/aclrtValueWait.md:28):
 * GEQ compares the signed difference, so it holds across a wrap. */
static bool condition_met(uint64_t word, uint64_t value, uint32_t flag)
{
    switch (flag) {
    case ACL_STREAM_WAIT_VALUE_GEQ:
        return (int64_t)(word - value) >= 0;
    case ACL_STREAM_WAIT_VALUE_EQ:
        return word == value;
    case ACL_STREAM_WAIT_VALUE_AND:
        return (word & value) != 0;
    default: /* ACL_STREAM_WAIT_VALUE_NOR */
        return ~(word | value) != 0;
    }
}

void value_task_write(mock_stream *s, mock_task *t)
{
    if (word_still_valid(s, t)) {
        mem_copy(t->u.value.addr, &t->u.value.value, sizeof(uint64_t));
    }
}

/* Holds the worker (lock held, released while waiting) until the word meets
 * the condition, the stream is being destroyed (a forced destroy or a reset:
 * a plain destroy waits for its tasks first), or the word's memory is freed.
 * Writes from other streams broadcast when their task completes; a host
 * write (aclrtMemcpy) does not, so the word is also looked at every 2 ms. */
void value_task_wait(mock_stream *s, mock_task *t)
{
    for (;;) {
        if (s->stopping || !word_still_valid(s, t)) {
            return;
        }
        uint64_t word;
        mem_copy(&word, t->u.value.addr, sizeof(word));
        if (condition_met(word, t->u.value.value, t->u.value.flag)) {
            return;
        }
        (void)mock_wait_until(deadline_after_ms(2));
    }
}
