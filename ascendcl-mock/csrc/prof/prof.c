/*
 * prof.c: the mock's profiler library, libmsprofiler.so: aclprofInit,
 * aclprofFinalize, aclprofCreateConfig, aclprofDestroyConfig, aclprofStart,
 * aclprofStop and aclprofSetConfig (acl/acl_prof.h); msproftx's step
 * records and stamps are tx.c's.
 *
 * Nothing is collected: each function applies CANN 8.5.0's argument and
 * state checks (src/dfx/msprof/collector/dvvp/msprofiler/prof_acl_api.cpp,
 * profimpl/adapter/src/msprofiler_acl_api.cpp, msprof/engine/src/
 * prof_acl_mgr.cpp), keeps the state they depend on (initialised or not,
 * which devices are being collected, the live configs) and is journaled,
 * counted and fault-injected by the mock (libascendcl.so) through the
 * aclmock_* entry points. All state is touched between aclmock_call_begin
 * and aclmock_call_end, under the mock's lock, and is dropped when the mock
 * is reset (aclmock_generation).
 */
#include <acl/acl_prof.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/aclmock_ext.h"
#include "tx.h"

#define PROF_EXPORT __attribute__((visibility("default")))

/* prof_acl_api.h:18 (PROF_MAX_DEV_NUM) and msprofiler_acl_api.cpp:73 */
#define PROF_MAX_DEV_NUM 64u
#define PROF_PATH_MAX 4096u
/* prof_acl_api.cpp:54 (CONFIG_MAX_LENGTH): aclprofSetConfig's longest value */
#define PROF_CONFIG_MAX_LENGTH 256u
/* the host's slot in a config's device list (PROF_DEFAULT_HOST_ID) */
#define PROF_HOST_SLOT 64u

/* aprof_pub.h:133-172 (pkg_inc/profiling): the bits CreateConfig adds */
#define PROF_TASK_TIME_BIT 0x0800ULL
#define PROF_TASK_TIME_L1_BIT 0x0002ULL
#define PROF_TASK_TIME_L2_BIT 0x2000ULL
#define PROF_OP_ATTR_BIT 0x4000ULL
#define PROF_TASK_TIME_L3_BIT 0x8000ULL
#define PROF_MSPROFTX_BIT 0x0080ULL
#define PROF_AICPU_MODEL_BIT 0x4000000000000000ULL
/* prof_api_common.h:28-31, release build: the switches aclprofStart takes */
#define PROF_SWITCH_SUPPORT (0x100FBFFULL | PROF_AICPU_MODEL_BIT)

/* misuse kinds (aclmock.h) */
#define MISUSE_DOUBLE_FREE 0
#define MISUSE_UNKNOWN_POINTER 1

struct aclprofConfig {
    uint32_t devices[PROF_MAX_DEV_NUM + 1];
    uint32_t nums; /* devices listed, the host included */
    aclprofAicoreMetrics metrics;
    uint64_t data_types;
};

static struct {
    uint64_t gen;
    bool ready; /* the state belongs to generation `gen` */
    bool inited;
    uint64_t collecting; /* bit d: device d started; bit 64 (host) kept apart */
    uint32_t options;    /* bit t: aclprofSetConfig set option t */
    bool host_collecting;
    aclprofConfig **configs; /* live configs */
    size_t nconfigs, capconfigs;
    aclprofConfig **dead; /* destroyed ones (addresses only, never read) */
    size_t ndead, capdead;
} P;

enum { F_INIT, F_FINALIZE, F_START, F_STOP, F_CREATE, F_DESTROY, F_SET_CONFIG };

/* Drops the state of an older mock generation. Call with the lock held. */
static void refresh(void)
{
    uint64_t gen = aclmock_generation();
    if (P.ready && gen == P.gen) {
        return;
    }
    for (size_t i = 0; i < P.nconfigs; i++) {
        free(P.configs[i]);
    }
    free(P.configs);
    free(P.dead);
    memset(&P, 0, sizeof(P));
    P.gen = gen;
    P.ready = true;
}

/* Starts a journaled call of function `which`, then brings the state to the
 * mock's generation (under the lock the call holds). */
static int32_t begin(aclmock_call *c, int which)
{
    static const char *const names[] = {"aclprofInit",          "aclprofFinalize",     "aclprofStart",
                                        "aclprofStop",          "aclprofCreateConfig", "aclprofDestroyConfig",
                                        "aclprofSetConfig"};
    int32_t fault = aclmock_call_begin(c, aclmock_fn_id(names[which]));
    refresh();
    return fault;
}

static bool push(aclprofConfig ***v, size_t *n, size_t *cap, aclprofConfig *p)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        aclprofConfig **nv = realloc(*v, ncap * sizeof(*nv));
        if (!nv) {
            return false;
        }
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = p;
    return true;
}

/* Index of a live config, or -1 (with misuse) for a destroyed or unknown one. */
static long config_index(const aclprofConfig *cfg)
{
    for (size_t i = 0; i < P.nconfigs; i++) {
        if (P.configs[i] == cfg) {
            return (long)i;
        }
    }
    for (size_t i = 0; i < P.ndead; i++) {
        if (P.dead[i] == cfg) {
            aclmock_misuse(MISUSE_DOUBLE_FREE, "profiling config %p was already destroyed", (const void *)cfg);
            return -1;
        }
    }
    aclmock_misuse(MISUSE_UNKNOWN_POINTER, "%p is not a config made by aclprofCreateConfig", (const void *)cfg);
    return -1;
}

PROF_EXPORT aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_INIT);
    aclmock_arg_str(&c, "path", profilerResultPath);
    aclmock_arg_u64(&c, "length", length);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    /* msprofiler_acl_api.cpp:64-80: a path whose strlen is `length`, in (0, 4096] */
    if (!profilerResultPath || strlen(profilerResultPath) != length) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profilerResultPath is null or its "
                                                 "length is not %zu", length));
    }
    if (length == 0 || length > PROF_PATH_MAX) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "the path's length %zu is not in (0, %u]",
                                                 length, PROF_PATH_MAX));
    }
    /* prof_acl_mgr.cpp:152-156: initialised already -> 100002 */
    if (P.inited) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_REPEAT_INITIALIZE, "profiling is already initialised"));
    }
    P.inited = true;
    return aclmock_call_end(&c, ACL_SUCCESS);
}

PROF_EXPORT aclError aclprofFinalize(void)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_FINALIZE);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    /* msprofiler_acl_api.cpp:124-131, prof_acl_mgr.cpp:171-173: not
     * initialised -> 100043, reported */
    if (!P.inited) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_PROF_NOT_RUN, "aclprofFinalize needs aclprofInit first"));
    }
    P.inited = false;
    P.collecting = 0;
    P.host_collecting = false;
    P.options = 0;
    /* prof_acl_mgr.cpp:388: msproftx stops with profiling (tx.c) */
    prof_tx_finalized();
    return aclmock_call_end(&c, ACL_SUCCESS);
}

PROF_EXPORT aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                               aclprofAicoreMetrics aicoreMetrics,
                                               const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_CREATE);
    aclmock_arg_u64(&c, "deviceNums", deviceNums);
    aclmock_arg_i64(&c, "aicoreMetrics", (int64_t)aicoreMetrics);
    aclmock_arg_u64(&c, "dataTypeConfig", dataTypeConfig);
    if (fault) {
        aclmock_call_end(&c, fault);
        return NULL;
    }
    /* prof_acl_api.cpp:55-81: a list for devices, no AI Core events, at
     * most 64 devices; 88-127: each id below the device count, none twice;
     * 172-174: no device needs ACL_PROF_MSPROFTX. NULL, with the reason
     * reported (the last one silently). */
    const char *why = NULL;
    uint32_t count = aclmock_device_count();
    if (deviceNums != 0 && !deviceIdList) {
        why = "deviceIdList is null";
    } else if (aicoreEvents) {
        why = "aicoreEvents must be null";
    } else if (deviceNums > PROF_MAX_DEV_NUM || deviceNums > count) {
        why = "too many devices";
    }
    uint64_t seen = 0;
    for (uint32_t i = 0; !why && i < deviceNums; i++) {
        uint32_t d = deviceIdList[i];
        if (d >= count) {
            why = "a device id is out of range";
        } else if (seen & (1ULL << d)) {
            why = "a device id is listed twice";
        }
        seen |= d < 64 ? 1ULL << d : 0;
    }
    if (why) {
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig: %s", why));
        return NULL;
    }
    if (deviceNums == 0 && !(dataTypeConfig & PROF_MSPROFTX_BIT)) {
        aclmock_call_end(&c, ACL_ERROR_INVALID_PARAM);
        return NULL;
    }
    aclprofConfig *cfg = calloc(1, sizeof(*cfg));
    if (!cfg || !push(&P.configs, &P.nconfigs, &P.capconfigs, cfg)) {
        free(cfg);
        aclmock_call_end(&c, aclmock_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
        return NULL;
    }
    /* prof_acl_api.cpp:185-206: the implied switches, then the host */
    uint64_t types = dataTypeConfig | PROF_AICPU_MODEL_BIT;
    if (dataTypeConfig & PROF_TASK_TIME_L1_BIT) {
        types |= PROF_TASK_TIME_BIT;
    }
    if (dataTypeConfig & (PROF_TASK_TIME_L2_BIT | PROF_OP_ATTR_BIT)) {
        types |= PROF_TASK_TIME_BIT | PROF_TASK_TIME_L1_BIT;
    }
    if (dataTypeConfig & PROF_TASK_TIME_L3_BIT) {
        types |= PROF_TASK_TIME_BIT | PROF_TASK_TIME_L1_BIT | PROF_TASK_TIME_L2_BIT;
    }
    for (uint32_t i = 0; i < deviceNums; i++) {
        cfg->devices[i] = deviceIdList[i];
    }
    cfg->devices[deviceNums] = PROF_HOST_SLOT;
    cfg->nums = deviceNums + 1;
    cfg->metrics = aicoreMetrics;
    cfg->data_types = types;
    aclmock_out_u64(&c, "dataTypes", types);
    aclmock_call_end(&c, ACL_SUCCESS);
    return cfg;
}

PROF_EXPORT aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_DESTROY);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    /* prof_acl_api.cpp:212-228: null -> 100000, reported */
    if (!profilerConfig) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig is null"));
    }
    long i = config_index(profilerConfig);
    if (i < 0) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig %p is not a live config",
                                                 (const void *)profilerConfig));
    }
    aclprofConfig *cfg = P.configs[i];
    P.configs[i] = P.configs[--P.nconfigs];
    free(cfg);
    /* the address is remembered to recognise a second destroy; never read */
    (void)push(&P.dead, &P.ndead, &P.capdead, cfg);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

/*
 * Start and stop (prof_acl_api.cpp:242-265, msprofiler_acl_api.cpp:152-305):
 * null -> 100000; preCheckProfConfig: switches outside PROF_SWITCH_SUPPORT
 * -> 200007; then the state (prof_acl_mgr.cpp:2499-2505, 2567-2571): not
 * initialised -> 100043. Stopping devices that were not started succeeds
 * (prof_acl_mgr.cpp:2409).
 */
static aclError start_stop(int which, const aclprofConfig *cfg)
{
    aclmock_call c;
    int32_t fault = begin(&c, which);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if (!cfg) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig is null"));
    }
    if (config_index(cfg) < 0) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig %p is not a live config",
                                                 (const void *)cfg));
    }
    aclmock_arg_u64(&c, "devNums", cfg->nums);
    aclmock_arg_u64(&c, "dataTypes", cfg->data_types);
    if (cfg->data_types & ~PROF_SWITCH_SUPPORT) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_PROF_MODULES_UNSUPPORTED, "data types 0x%llx are not "
                                                 "supported (supported: 0x%llx)",
                                                 (unsigned long long)(cfg->data_types & ~PROF_SWITCH_SUPPORT),
                                                 (unsigned long long)PROF_SWITCH_SUPPORT));
    }
    if (!P.inited) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_PROF_NOT_RUN, "%s needs aclprofInit first",
                                                 which == F_START ? "aclprofStart" : "aclprofStop"));
    }
    for (uint32_t i = 0; i < cfg->nums; i++) {
        uint32_t d = cfg->devices[i];
        if (d == PROF_HOST_SLOT) {
            P.host_collecting = which == F_START;
        } else if (which == F_START) {
            P.collecting |= 1ULL << d;
        } else {
            P.collecting &= ~(1ULL << d);
        }
    }
    /* prof_acl_mgr.cpp:2553, 2004-2015: a start with ACL_PROF_MSPROFTX turns
     * msproftx on (tx.c); a stop leaves it on */
    if (which == F_START && (cfg->data_types & PROF_MSPROFTX_BIT)) {
        prof_tx_started();
    }
    aclmock_out_u64(&c, "collecting", P.collecting);
    return aclmock_call_end(&c, ACL_SUCCESS);
}

PROF_EXPORT aclError aclprofStart(const aclprofConfig *profilerConfig) { return start_stop(F_START, profilerConfig); }

PROF_EXPORT aclError aclprofStop(const aclprofConfig *profilerConfig) { return start_stop(F_STOP, profilerConfig); }

/* The checks of prof_acl_api.cpp:273-290 in their order (a type in
 * (ACL_PROF_ARGS_MIN, ACL_PROF_ARGS_MAX), a value of at most 256 bytes whose
 * strlen is `configLength`: else 100000), then msprofiler_acl_api.cpp:310-313
 * (before aclprofInit: 100001). The value itself is not checked
 * (MsprofSetConfig parses it per type: a mock decision,
 * docs/mock-conformance.md); the option is remembered until Finalize. */
PROF_EXPORT aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
    aclmock_call c;
    int32_t fault = begin(&c, F_SET_CONFIG);
    aclmock_arg_u64(&c, "configType", (uint64_t)configType);
    /* never read past 257 bytes: a value over 256 is refused anyway */
    size_t len = config ? strnlen(config, PROF_CONFIG_MAX_LENGTH + 1) : 0;
    aclmock_arg_str(&c, "config", config && len <= PROF_CONFIG_MAX_LENGTH ? config : NULL);
    aclmock_arg_u64(&c, "configLength", configLength);
    if (fault) {
        return aclmock_call_end(&c, fault);
    }
    if ((int)configType <= (int)ACL_PROF_ARGS_MIN || (int)configType >= (int)ACL_PROF_ARGS_MAX) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "configType %d is not supported",
                                                 (int)configType));
    }
    if (configLength > PROF_CONFIG_MAX_LENGTH) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "the config's length %zu is over %u",
                                                 configLength, PROF_CONFIG_MAX_LENGTH));
    }
    if (!config || len != configLength) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_INVALID_PARAM, "config is null or its length is not %zu",
                                                 configLength));
    }
    if (!P.inited) {
        return aclmock_call_end(&c, aclmock_fail(ACL_ERROR_UNINITIALIZE, "aclprofSetConfig needs aclprofInit first"));
    }
    P.options |= 1u << (unsigned)configType;
    aclmock_out_u64(&c, "options", P.options);
    return aclmock_call_end(&c, ACL_SUCCESS);
}
