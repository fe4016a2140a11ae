/*
 * subscribe.c (libmsprofiler.so): model subscription and the getters of its
 * records (acl/acl_prof.h): aclprofCreateSubscribeConfig,
 * aclprofDestroySubscribeConfig, aclprofModelSubscribe,
 * aclprofModelUnSubscribe, aclprofGetOpDescSize, aclprofGetOpNum,
 * aclprofGetOpTypeLen, aclprofGetOpType, aclprofGetOpNameLen,
 * aclprofGetOpName, aclprofGetOpStart, aclprofGetOpEnd, aclprofGetOpDuration,
 * aclprofGetModelId, aclprofGetOpFlag and aclprofGetOpAttriValue.
 *
 * Rules of CANN 8.5.0 (hicann/runtime v8.5.0, src/dfx/msprof/collector/dvvp/):
 *  - CreateSubscribeConfig (msprofiler/prof_api_common.cpp:21-46): a null
 *    `fd` or a time switch other than 0 or 1 gives NULL; the metrics are
 *    not checked. DestroySubscribeConfig (:48-57): null -> 100000.
 *  - ModelSubscribe / ModelUnSubscribe (msprofiler/prof_acl_core.cpp:28-36
 *    -> profimpl/adapter/src/msprofiler_adaptor.cpp:130-153 ->
 *    msprofiler_acl_api.cpp:405-425, 461-469): the model id is looked up
 *    first, and an id no loaded model has gives ACL_ERROR_INVALID_MODEL_ID
 *    (100011), before the config is looked at. The mock loads no offline
 *    models (it has no aclmdlLoad*: its models are captured graphs, whose
 *    handles are not model ids), so every id is refused this way and no
 *    record is ever written to a subscriber's pipe. Written in
 *    docs/mock-conformance.md.
 *  - The record (analyze/inc/data_struct.h:192-205): 32-bit signature,
 *    model id, flag and thread id, then 64-bit op index, duration, start,
 *    end, execution time, cube and vector flops, then the 32-bit device id;
 *    80 bytes with the alignment of its 64-bit fields (GetOpDescSize,
 *    analyze/src/op_desc_parser.cpp:39-42).
 *  - Every getter (op_desc_parser.cpp:46-317): null data (or output) ->
 *    100000; the length, taken as 32 bits, must be a whole number of records
 *    and every record's signature must be the checksum of its other 76
 *    bytes (CheckData :300-317; the checksum, common/utils/utils.cpp:1253-
 *    1303, is CRC-32C reflected, started at ~0, with no final inversion);
 *    index + 1 records must fit (CHECK_INDEX_RET :27-33). Type and name
 *    come from the parser's tables, filled as records are written and
 *    emptied as each is read (:89-215): with no record ever written here,
 *    every lookup misses -> 100000. Times give 0 on any failure; the model
 *    id getter gives the error code in place of the id (msprofiler_acl_api
 *    .cpp:485-497); the flag and attribute getters check only null data and
 *    the index (:319-356).
 */
#include <acl/acl_prof.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/aclmock_ext.h"

#define SUB_EXPORT __attribute__((visibility("default")))

/* misuse kinds (aclmock.h) */
#define MISUSE_DOUBLE_FREE 0
#define MISUSE_UNKNOWN_POINTER 1

/* One subscription record, in the real layout (see the header comment). */
typedef struct {
    uint32_t signature;
    uint32_t model_id;
    uint32_t flag;
    uint32_t thread_id;
    uint64_t op_index;
    uint64_t duration;
    uint64_t start;
    uint64_t end;
    uint64_t execution_time;
    uint64_t cube_fops;
    uint64_t vector_fops;
    uint32_t device_id;
} sub_record;

_Static_assert(sizeof(sub_record) == 80, "a subscription record is 80 bytes");

struct aclprofSubscribeConfig {
    int8_t time_info;
    aclprofAicoreMetrics metrics;
    void *fd;
};

static struct {
    uint64_t gen;
    bool ready;
    aclprofSubscribeConfig **live;
    size_t nlive, caplive;
    const void **dead; /* destroyed configs (addresses only, never read) */
    size_t ndead, capdead;
} S;

static void refresh(void)
{
    uint64_t gen = aclmock_generation();
    if (S.ready && gen == S.gen) {
        return;
    }
    for (size_t i = 0; i < S.nlive; i++) {
        free(S.live[i]);
    }
    free(S.live);
    free(S.dead);
    memset(&S, 0, sizeof(S));
    S.gen = gen;
    S.ready = true;
}

static int32_t begin(aclmock_call *c, const char *name)
{
    int32_t fault = aclmock_call_begin(c, aclmock_fn_id(name));
    refresh();
    return fault;
}

static bool push_ptr(void ***v, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        void **nv = realloc(*v, ncap * sizeof(*nv));
        if (!nv) {
            return false;
        }
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = p;
    return true;
}

/* CRC-32C, reflected, from ~0, not inverted at the end (utils.cpp:1253-1303). */
static uint32_t signature_of(const uint8_t *p, size_t n)
{
    uint32_t crc = ~0u;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
        }
    }
    return crc;
}

/* CheckData (op_desc_parser.cpp:300-317): a whole number of records, each
 * signed; false with the reason reported. The length is used as 32 bits, as
 * the parser takes it. */
static bool check_data(const void *data, size_t len_in)
{
    uint32_t len = (uint32_t)len_in;
    if (len % sizeof(sub_record) != 0) {
        aclmock_fail(ACL_ERROR_INVALID_PARAM, "%u bytes are not a whole number of %zu-byte records", len,
                     sizeof(sub_record));
        return false;
    }
    const uint8_t *bytes = data;
    for (uint32_t i = 0; i < len / sizeof(sub_record); i++) {
        const uint8_t *r = bytes + (size_t)i * sizeof(sub_record);
        uint32_t sig;
        memcpy(&sig, r, sizeof(sig));
        if (sig != signature_of(r + sizeof(uint32_t), sizeof(sub_record) - sizeof(uint32_t))) {
            aclmock_fail(ACL_ERROR_INVALID_PARAM, "record %u of the data has a wrong signature", i);
            return false;
        }
    }
    return true;
}

/* CHECK_INDEX_RET (op_desc_parser.cpp:27-33): record `index` of `data`, or
 * NULL with the reason reported. */
static const sub_record *indexed(const void *data, size_t len_in, uint32_t index)
{
    uint32_t len = (uint32_t)len_in;
    if (index + 1u == 0 || ((uint64_t)index + 1) * sizeof(sub_record) > len) {
        aclmock_fail(ACL_ERROR_INVALID_PARAM, "record %u is out of the data's %u bytes", index, len);
        return NULL;
    }
    return (const sub_record *)((const uint8_t *)data + (size_t)index * sizeof(sub_record));
}

/* The checked record `index`: CheckData, then the index. */
static const sub_record *record_at(const void *data, size_t len, uint32_t index)
{
    return check_data(data, len) ? indexed(data, len, index) : NULL;
}

SUB_EXPORT aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                                aclprofAicoreMetrics aicoreMetrics, void *fd)
{
    aclmock_call c;
    int32_t fault = begin(&c, "aclprofCreateSubscribeConfig");
    aclmock_arg_i64(&c, "timeInfoSwitch", timeInfoSwitch);
    aclmock_arg_i64(&c, "aicoreMetrics", (int64_t)aicoreMetrics);
    if (fault) {
        aclmock_call_end(&c, fault);
        return NULL;
    }
    const char *why = NULL;
    if (!fd) {
        why = "fd is null";
    } else if (timeInfoSwitch != 0 && timeInfoSwitch != 1) {
        why = "timeInfoSwitch is not 0 or 1";
    }
    aclprofSubscribeConfig *cfg = NULL;
    if (!why) {
        cfg = malloc(sizeof(*cfg));
        if (!cfg || !push_ptr((void ***)&S.live, &S.nlive, &S.caplive, cfg)) {
            free(cfg);
            cfg = NULL;
            why = "out of host memory";
        } else {
            *cfg = (aclprofSubscribeConfig){timeInfoSwitch, aicoreMetrics, fd};
        }
    }
    /* NULL is the only report a caller gets; the journal keeps the reason. */
    aclmock_call_end(&c, why ? aclmock_fail(ACL_ERROR_INVALID_PARAM, "%s", why) : ACL_SUCCESS);
    return cfg;
}

SUB_EXPORT aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
    aclmock_call c;
    int32_t fault = begin(&c, "aclprofDestroySubscribeConfig");
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!profSubscribeConfig) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profSubscribeConfig is null"));
    }
    for (size_t i = 0; i < S.nlive; i++) {
        if (S.live[i] == profSubscribeConfig) {
            aclprofSubscribeConfig *cfg = S.live[i];
            S.live[i] = S.live[--S.nlive];
            free(cfg);
            (void)push_ptr((void ***)&S.dead, &S.ndead, &S.capdead, cfg);
            return aclmock_call_end(&c, ACL_SUCCESS);
        }
    }
    /* The real library deletes whatever it is given; the mock refuses a
     * pointer it did not make (a mock decision) and says which it was. */
    bool dead = false;
    for (size_t i = 0; i < S.ndead; i++) {
        dead |= S.dead[i] == (const void *)profSubscribeConfig;
    }
    if (dead) {
        aclmock_misuse(MISUSE_DOUBLE_FREE, "subscribe config %p was already destroyed",
                       (const void *)profSubscribeConfig);
    } else {
        aclmock_misuse(MISUSE_UNKNOWN_POINTER, "%p is not a config made by aclprofCreateSubscribeConfig",
                       (const void *)profSubscribeConfig);
    }
    return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profSubscribeConfig %p is not a live config",
                                             (const void *)profSubscribeConfig));
}

/* msprofiler_acl_api.cpp:405-415: the id is looked up before anything else. */
static aclError no_loaded_model(aclmock_call *c, uint32_t modelId)
{
    return aclmock_call_end(c, aclmock_fail(ACL_ERROR_INVALID_MODEL_ID,
                                            "model id %u is not loaded (the mock loads no offline models)", modelId));
}

SUB_EXPORT aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig)
{
    aclmock_call c;
    int32_t fault = begin(&c, "aclprofModelSubscribe");
    aclmock_arg_u64(&c, "modelId", modelId);
    (void)profSubscribeConfig; /* looked at only for a loaded model */
    return fault ? aclmock_call_end(&c, fault) : no_loaded_model(&c, modelId);
}

SUB_EXPORT aclError aclprofModelUnSubscribe(uint32_t modelId)
{
    aclmock_call c;
    int32_t fault = begin(&c, "aclprofModelUnSubscribe");
    aclmock_arg_u64(&c, "modelId", modelId);
    return fault ? aclmock_call_end(&c, fault) : no_loaded_model(&c, modelId);
}

SUB_EXPORT aclError aclprofGetOpDescSize(size_t *opDescSize)
{
    aclmock_call c;
    int32_t fault = begin(&c, "aclprofGetOpDescSize");
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!opDescSize) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opDescSize is null"));
    }
    *opDescSize = sizeof(sub_record);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/* Begins a getter's call; false (the call ended with `*rc`) on a fault. */
static bool getter(aclmock_call *c, const char *name, size_t len, uint32_t index, int32_t *rc)
{
    int32_t fault = begin(c, name);
    aclmock_arg_u64(c, "opInfoLen", len);
    aclmock_arg_u64(c, "index", index);
    if (fault) {
        *rc = aclmock_call_end(c, fault);
        return false;
    }
    return true;
}

SUB_EXPORT aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, "aclprofGetOpNum", opInfoLen, 0, &rc)) {
        return rc;
    }
    if (!opInfo || !opNumber) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo or opNumber is null"));
    }
    if (!check_data(opInfo, opInfoLen)) {
        return aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    uint32_t len = (uint32_t)opInfoLen;
    *opNumber = len / (uint32_t)sizeof(sub_record);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/* Type and name getters: the record is checked, then its op index is looked
 * up in tables nothing fills here (see the header comment). */
static aclError text_getter(const char *name, const void *opInfo, size_t opInfoLen, uint32_t index, bool out_ok)
{
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, name, opInfoLen, index, &rc)) {
        return rc;
    }
    if (!opInfo || !out_ok) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo or the output is null (or empty)"));
    }
    const sub_record *r = record_at(opInfo, opInfoLen, index);
    if (!r) {
        return aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "no type or name is known for op index %llu "
                                             "(never written, or read already)",
                                             (unsigned long long)r->op_index));
}

SUB_EXPORT aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen)
{
    return text_getter("aclprofGetOpTypeLen", opInfo, opInfoLen, index, opTypeLen != NULL);
}

SUB_EXPORT aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
                                     size_t opTypeLen)
{
    return text_getter("aclprofGetOpType", opInfo, opInfoLen, index, opType != NULL && (uint32_t)opTypeLen != 0);
}

SUB_EXPORT aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen)
{
    return text_getter("aclprofGetOpNameLen", opInfo, opInfoLen, index, opNameLen != NULL);
}

SUB_EXPORT aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
                                     size_t opNameLen)
{
    return text_getter("aclprofGetOpName", opInfo, opInfoLen, index, opName != NULL && (uint32_t)opNameLen != 0);
}

enum time_field { T_START, T_END, T_DURATION };

static uint64_t time_getter(const char *name, const void *opInfo, size_t opInfoLen, uint32_t index,
                            enum time_field which)
{
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, name, opInfoLen, index, &rc)) {
        return 0;
    }
    if (!opInfo) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo is null"));
        return 0;
    }
    const sub_record *r = record_at(opInfo, opInfoLen, index);
    if (!r) {
        aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
        return 0;
    }
    aclmock_call_end(&c, ACL_SUCCESS);
    return which == T_START ? r->start : which == T_END ? r->end : r->duration;
}

SUB_EXPORT uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    return time_getter("aclprofGetOpStart", opInfo, opInfoLen, index, T_START);
}

SUB_EXPORT uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    return time_getter("aclprofGetOpEnd", opInfo, opInfoLen, index, T_END);
}

SUB_EXPORT uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    return time_getter("aclprofGetOpDuration", opInfo, opInfoLen, index, T_DURATION);
}

SUB_EXPORT size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, "aclprofGetModelId", opInfoLen, index, &rc)) {
        return (size_t)rc;
    }
    if (!opInfo) {
        return (size_t)aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo is null"));
    }
    const sub_record *r = record_at(opInfo, opInfoLen, index);
    if (!r) {
        return (size_t)aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    aclmock_call_end(&c, ACL_SUCCESS);
    return r->model_id;
}

SUB_EXPORT aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, "aclprofGetOpFlag", opInfoLen, index, &rc)) {
        return ACL_SUBSCRIBE_NONE;
    }
    if (!opInfo) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo is null"));
        return ACL_SUBSCRIBE_NONE;
    }
    const sub_record *r = indexed(opInfo, opInfoLen, index);
    aclmock_call_end(&c, r ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM);
    /* op_desc_parser.cpp:319-329: no signature check; an index out of range
     * gives 0 (ACL_SUBSCRIBE_OP), null data ACL_SUBSCRIBE_NONE */
    return r ? (aclprofSubscribeOpFlag)r->flag : ACL_SUBSCRIBE_OP;
}

SUB_EXPORT const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                              aclprofSubscribeOpAttri attri)
{
    /* one text per process, overwritten by the next call (:337-354) */
    static char text[24];
    aclmock_call c;
    int32_t rc;
    if (!getter(&c, "aclprofGetOpAttriValue", opInfoLen, index, &rc)) {
        return NULL;
    }
    aclmock_arg_i64(&c, "attri", (int64_t)attri);
    if (!opInfo) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "opInfo is null"));
        return NULL;
    }
    const sub_record *r = indexed(opInfo, opInfoLen, index);
    if (!r) {
        aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
        return NULL;
    }
    if (attri != ACL_SUBSCRIBE_ATTRI_THREADID || r->flag != ACL_SUBSCRIBE_OP_THREAD) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "the record (flag %u) has no attribute %d", r->flag,
                                          (int)attri));
        return NULL;
    }
    snprintf(text, sizeof(text), "%u", r->thread_id);
    aclmock_call_end(&c, ACL_SUCCESS);
    return text;
}
