/*
 * tx.c: msproftx in the mock's libmsprofiler.so: step records
 * (aclprofCreateStepInfo, aclprofGetStepTimestamp, aclprofDestroyStepInfo)
 * and markers (aclprofCreateStamp, aclprofSetStampTraceMessage, aclprofMark,
 * aclprofDestroyStamp).
 *
 * CANN 8.5.0 (src/dfx/msprof/collector/dvvp/): the step functions are
 * msprofiler/prof_acl_core.cpp:43-107; the stamp ones forward through
 * profimpl/adapter/src/msproftx_adaptor.cpp to the tx manager
 * (msprof/msproftx/src/msprof_tx_manager.cpp) and its stamp pool
 * (prof_stamp_pool.cpp). The manager is initialised (stamps can be made) from
 * an aclprofStart whose config has ACL_PROF_MSPROFTX (prof_acl_mgr.cpp:2553
 * -> MsprofTxApiHandle 2004-2015 -> DoHostHandle 1989-1994 -> MsprofTxInit,
 * msproftx_adaptor.cpp:139-146), which succeeds because aclprofInit registered
 * the reporter first (prof_acl_inner_api.cpp:19-23 -> ProfTxInit,
 * prof_cann_plugin.cpp:213-219 -> msprof_tx_manager.cpp:361-368, needed by
 * Init at :48-51); aclprofFinalize uninitialises it (prof_acl_mgr.cpp:388 ->
 * msprof_tx_manager.cpp:76-85). The manager's refusals are PROFILING_FAILED,
 * -1 (error_code.h:21), passed through unchanged as the aclError.
 *
 * Nothing is written: a mark is journaled with its message. State is
 * touched under the mock's lock and dropped on a mock reset, as prof.c's.
 */
#include <acl/acl_prof.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/aclmock_ext.h"
#include "tx.h"

#define PROF_EXPORT __attribute__((visibility("default")))

/* prof_stamp_pool.h:25 (CURRENT_STAMP_SIZE): the pool's stamps */
#define TX_STAMPS 100u
/* msprof_tx_manager.cpp:175 (MAX_MSG_LEN): a message is shorter */
#define TX_MAX_MSG_LEN 128u
/* error_code.h:21 (PROFILING_FAILED) */
#define TX_FAILED (-1)

/* misuse kinds (aclmock.h) */
#define MISUSE_DOUBLE_FREE 0
#define MISUSE_UNKNOWN_POINTER 1
#define MISUSE_DESTROYED_HANDLE 2

/* prof_acl_core.cpp:43-47 */
struct aclprofStepInfo {
    bool started;
    bool ended;
    uint64_t index;
};

struct tx_stamp {
    char message[TX_MAX_MSG_LEN];
    bool used;
};

static struct {
    uint64_t gen;
    bool ready;
    bool on;           /* MsprofTxManager::isInit_ */
    uint64_t next_step; /* prof_acl_core.cpp:26: the first index is 1 */
    uint64_t marks;
    struct tx_stamp stamps[TX_STAMPS];
    uint32_t used;
    aclprofStepInfo **steps, **dead_steps;
    size_t nsteps, capsteps, ndead, capdead;
} T;

enum { F_CREATE_STEP, F_STEP_TIME, F_DESTROY_STEP, F_CREATE_STAMP, F_SET_MESSAGE, F_MARK, F_DESTROY_STAMP };

static void refresh(void)
{
    uint64_t gen = aclmock_generation();
    if (T.ready && gen == T.gen) {
        return;
    }
    for (size_t i = 0; i < T.nsteps; i++) {
        free(T.steps[i]);
    }
    free(T.steps);
    free(T.dead_steps);
    memset(&T, 0, sizeof(T));
    T.gen = gen;
    T.ready = true;
    T.next_step = 1;
}

static int32_t begin(aclmock_call *c, int which)
{
    static const char *const names[] = {"aclprofCreateStepInfo", "aclprofGetStepTimestamp",
                                        "aclprofDestroyStepInfo", "aclprofCreateStamp",
                                        "aclprofSetStampTraceMessage", "aclprofMark",
                                        "aclprofDestroyStamp"};
    int32_t fault = aclmock_call_begin(c, aclmock_fn_id(names[which]));
    refresh();
    return fault;
}

void prof_tx_started(void)
{
    refresh();
    T.on = true;
}

/* The pool stays while a stamp is taken (prof_stamp_pool.cpp:86-89): the
 * stamps keep their slots, and a later start finds them taken (:43-45). */
void prof_tx_finalized(void)
{
    refresh();
    T.on = false;
}

static bool push(aclprofStepInfo ***v, size_t *n, size_t *cap, aclprofStepInfo *p)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        aclprofStepInfo **nv = realloc(*v, ncap * sizeof(*nv));
        if (!nv) {
            return false;
        }
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = p;
    return true;
}

/* Index of a live step record, or -1 with misuse `dead_kind` for a
 * destroyed one and UNKNOWN_POINTER for any other pointer. */
static long step_index(const aclprofStepInfo *s, int dead_kind)
{
    for (size_t i = 0; i < T.nsteps; i++) {
        if (T.steps[i] == s) {
            return (long)i;
        }
    }
    for (size_t i = 0; i < T.ndead; i++) {
        if (T.dead_steps[i] == s) {
            aclmock_misuse(dead_kind, "step info %p was already destroyed", (const void *)s);
            return -1;
        }
    }
    aclmock_misuse(MISUSE_UNKNOWN_POINTER, "%p is not a step info made by aclprofCreateStepInfo", (const void *)s);
    return -1;
}

/* The pool's stamp at `p`, or NULL with misuse `free_kind` for one given
 * back and UNKNOWN_POINTER for a pointer outside the pool. */
static struct tx_stamp *stamp_at(const void *p, int free_kind)
{
    for (uint32_t i = 0; i < TX_STAMPS; i++) {
        if (p == (const void *)&T.stamps[i]) {
            if (T.stamps[i].used) {
                return &T.stamps[i];
            }
            aclmock_misuse(free_kind, "stamp %p was given back by aclprofDestroyStamp", p);
            return NULL;
        }
    }
    aclmock_misuse(MISUSE_UNKNOWN_POINTER, "%p is not a stamp made by aclprofCreateStamp", p);
    return NULL;
}

/* prof_acl_core.cpp:81-95: a zeroed record with the next index */
PROF_EXPORT aclprofStepInfo *aclprofCreateStepInfo(void)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_CREATE_STEP);
    if (fault) {
        aclmock_call_end(&c, fault);
        return NULL;
    }
    aclprofStepInfo *s = calloc(1, sizeof(*s));
    if (!s || !push(&T.steps, &T.nsteps, &T.capsteps, s)) {
        free(s);
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
        return NULL;
    }
    s->index = T.next_step++;
    aclmock_out_u64(&c, "indexId", s->index);
    aclmock_call_end(&c, ACL_SUCCESS);
    return s;
}

/*
 * prof_acl_core.cpp:51-79: null -> 100000; a second start or a second end
 * -> 100000; the flag is set, then the step goes to the GE module's
 * profiling handler (profSetStepInfo, prof_cann_plugin.cpp:589-608), whose
 * refusal is 500002. A tag other than START is taken as the end (:67-71).
 * No GE module is in the runtime's sources; the mock, whose libascendcl
 * serves the model API, accepts the step (a mock decision,
 * docs/mock-conformance.md). The stream is journaled, not checked: the
 * profiler only passes it on.
 */
PROF_EXPORT aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_STEP_TIME);
    aclmock_arg_i64(&c, "tag", (int64_t)tag);
    aclmock_arg_stream(&c, "stream", stream);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!stepInfo) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "stepInfo is null"));
    }
    if (step_index(stepInfo, MISUSE_DESTROYED_HANDLE) < 0) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "stepInfo %p is not a live step info",
                                                 (const void *)stepInfo));
    }
    aclmock_arg_u64(&c, "indexId", stepInfo->index);
    if (stepInfo->started && tag == ACL_STEP_START) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "this step already started"));
    }
    if (stepInfo->ended && tag == ACL_STEP_END) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "this step already ended"));
    }
    if (tag == ACL_STEP_START) {
        stepInfo->started = true;
    } else {
        stepInfo->ended = true;
    }
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/* prof_acl_core.cpp:97-107: null is reported (EK0003), nothing else */
PROF_EXPORT void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_DESTROY_STEP);
    if (fault) {
        aclmock_call_end(&c, fault);
        return;
    }
    if (!stepinfo) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "stepInfo is null"));
        return;
    }
    long i = step_index(stepinfo, MISUSE_DOUBLE_FREE);
    if (i < 0) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "stepInfo %p is not a live step info",
                                          (const void *)stepinfo));
        return;
    }
    T.steps[i] = T.steps[--T.nsteps];
    free(stepinfo);
    /* the address is remembered to recognise a second destroy; never read */
    (void)push(&T.dead_steps, &T.ndead, &T.capdead, stepinfo);
    aclmock_call_end(&c, ACL_SUCCESS);
}

/* msprof_tx_manager.cpp:91-99: NULL while the manager is not initialised;
 * prof_stamp_pool.cpp:102-105: NULL when all 100 stamps are taken. */
PROF_EXPORT void *aclprofCreateStamp(void)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_CREATE_STAMP);
    if (fault) {
        aclmock_call_end(&c, fault);
        return NULL;
    }
    if (!T.on) {
        aclmock_call_end(&c, aclmock_fail(TX_FAILED, "msproftx is not on: aclprofStart a config with "
                                          "ACL_PROF_MSPROFTX first"));
        return NULL;
    }
    if (T.used >= TX_STAMPS) {
        aclmock_call_end(&c, aclmock_fail(TX_FAILED, "all %u stamps are taken", TX_STAMPS));
        return NULL;
    }
    struct tx_stamp *s = NULL;
    for (uint32_t i = 0; i < TX_STAMPS && !s; i++) {
        s = T.stamps[i].used ? NULL : &T.stamps[i];
    }
    memset(s->message, 0, sizeof(s->message));
    s->used = true;
    T.used++;
    aclmock_out_u64(&c, "stamps", T.used);
    aclmock_call_end(&c, ACL_SUCCESS);
    return s;
}

/*
 * msprof_tx_manager.cpp:166-191 (no initialisation check): a null stamp or
 * msgLen of 128 or more -> -1; then strncpy_s into 127 bytes, which refuses
 * a null msg and a copy of 127 bytes (securec: the count must leave room for
 * the NUL), -1; the copy stops at a NUL within msgLen.
 */
PROF_EXPORT aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_SET_MESSAGE);
    aclmock_arg_u64(&c, "msgLen", msgLen);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!stamp) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "stamp is null"));
    }
    struct tx_stamp *s = stamp_at(stamp, MISUSE_DESTROYED_HANDLE);
    if (!s) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "stamp %p is not a taken stamp", stamp));
    }
    if (msgLen >= TX_MAX_MSG_LEN) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "msgLen %u is not below %u", msgLen, TX_MAX_MSG_LEN));
    }
    size_t n = msg ? strnlen(msg, msgLen) : 0;
    if (!msg || n >= TX_MAX_MSG_LEN - 1) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "%s", msg ? "a message of 127 bytes leaves no room "
                                                 "for its NUL" : "msg is null"));
    }
    memcpy(s->message, msg, n);
    s->message[n] = '\0';
    aclmock_arg_str(&c, "msg", s->message);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/* msprof_tx_manager.cpp:194-211: not initialised -> -1, null stamp -> -1;
 * the instant is reported (:336-344). */
PROF_EXPORT aclError aclprofMark(void *stamp)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_MARK);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!T.on) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "msproftx is not on"));
    }
    if (!stamp) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "stamp is null"));
    }
    struct tx_stamp *s = stamp_at(stamp, MISUSE_DESTROYED_HANDLE);
    if (!s) {
        return aclmock_call_end(&c, aclmock_fail(TX_FAILED, "stamp %p is not a taken stamp", stamp));
    }
    aclmock_arg_str(&c, "message", s->message);
    T.marks++;
    aclmock_out_u64(&c, "marks", T.marks);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/* prof_acl_core.cpp:114-120: null is ignored; msprof_tx_manager.cpp:
 * 105-118: not initialised, nothing happens (the stamp stays taken);
 * else it goes back to the pool (prof_stamp_pool.cpp:126-150). */
PROF_EXPORT void aclprofDestroyStamp(void *stamp)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_DESTROY_STAMP);
    if (fault || !stamp) {
        aclmock_call_end(&c, fault);
        return;
    }
    struct tx_stamp *s = stamp_at(stamp, MISUSE_DOUBLE_FREE);
    if (!s) {
        aclmock_call_end(&c, aclmock_fail(TX_FAILED, "stamp %p is not a taken stamp", stamp));
        return;
    }
    if (!T.on) {
        aclmock_call_end(&c, aclmock_fail(TX_FAILED, "msproftx is not on: the stamp stays taken"));
        return;
    }
    s->used = false;
    T.used--;
    aclmock_out_u64(&c, "stamps", T.used);
    aclmock_call_end(&c, ACL_SUCCESS);
}
