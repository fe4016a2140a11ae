/*
 * ascendcl-sys: the profiling collection API (aclprof*), our own declarations.
 *
 * As in CANN 8.5.0 this is a header of its own that acl.h does not include:
 * the functions live in the profiler library (libmsprofiler.so), not in the
 * runtime library, and a program that profiles includes <acl/acl_prof.h> and
 * links (or, here, opens) that library besides the runtime. Declared subset:
 * initialise and finalise profiling, create and destroy a collection config,
 * start and stop collecting. Names, types and values are CANN's.
 */
#ifndef ASCENDCL_SYS_ACL_PROF_H
#define ASCENDCL_SYS_ACL_PROF_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to collect: bits of aclprofCreateConfig's dataTypeConfig. */
#define ACL_PROF_ACL_API        0x0001ULL
#define ACL_PROF_TASK_TIME      0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU          0x0008ULL
#define ACL_PROF_L2CACHE        0x0010ULL
#define ACL_PROF_HCCL_TRACE     0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX       0x0080ULL
#define ACL_PROF_RUNTIME_API    0x0100ULL
#define ACL_PROF_GE_API_L0      0x0200ULL
#define ACL_PROF_TASK_TIME_L0   0x0800ULL
#define ACL_PROF_TASK_MEMORY    0x1000ULL
#define ACL_PROF_TASK_TIME_L2   0x2000ULL
#define ACL_PROF_OP_ATTR        0x4000ULL
#define ACL_PROF_TASK_TIME_L3   0x8000ULL
#define ACL_PROF_GE_API_L1      0x01000000ULL

/* Which AI Core counters to sample (with ACL_PROF_AICORE_METRICS). */
typedef enum {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
    ACL_AICORE_MEMORY_ACCESS = 8,
    ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

/* What aclprofSetConfig sets (one option a call). */
typedef enum {
    ACL_PROF_ARGS_MIN = 0,
    ACL_PROF_STORAGE_LIMIT = 1,
    ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
    ACL_PROF_LLC_MODE = 4,
    ACL_PROF_SYS_IO_FREQ = 5,
    ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
    ACL_PROF_DVPP_FREQ = 7,
    ACL_PROF_HOST_SYS = 8,
    ACL_PROF_HOST_SYS_USAGE = 9,
    ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
    ACL_PROF_LOW_POWER_FREQ = 11,
    ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
    ACL_PROF_SYS_CPU_FREQ = 13,
    ACL_PROF_SCALE = 14,
    ACL_PROF_ARGS_MAX = 15
} aclprofConfigType;

/* msproftx step boundaries (aclprofGetStepTimestamp). */
typedef enum {
    ACL_STEP_START = 0,
    ACL_STEP_END = 1
} aclprofStepTag;

/* A collection config (devices, counters, data types); opaque. */
typedef struct aclprofConfig aclprofConfig;
/* Reserved: custom AI Core events; must be NULL. */
typedef struct aclprofAicoreEvents aclprofAicoreEvents;
/* One training or inference step of msproftx: a start and an end; opaque. */
typedef struct aclprofStepInfo aclprofStepInfo;

/* Profiling data goes under `profilerResultPath` (length = its strlen).
 * Init and Finalize pair up; Start and Stop take the same config. */
aclError aclprofInit(const char *profilerResultPath, size_t length);
aclError aclprofFinalize();
aclError aclprofStart(const aclprofConfig *profilerConfig);
aclError aclprofStop(const aclprofConfig *profilerConfig);
/* NULL when the arguments are invalid (no error code). */
aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig);
aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);
/* One more collection option, as text of strlen `configLength` (at most
 * 256), after aclprofInit and before aclprofStart; may be called again. */
aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength);

/* msproftx: user markers, collected while a config with ACL_PROF_MSPROFTX
 * is started (until aclprofFinalize). A stamp is NULL outside that window;
 * the functions returning aclError return -1 when the collector refuses. */
/* A step record (NULL without memory); each tag is taken once a step. */
aclprofStepInfo *aclprofCreateStepInfo();
aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream);
void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);
/* A marker from the collector's pool, its text (msgLen below 128), an
 * instant event recorded with it, and the marker given back. */
void *aclprofCreateStamp();
aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);
aclError aclprofMark(void *stamp);
void aclprofDestroyStamp(void *stamp);

/* ---- Model subscription: per-operator records of a loaded model's runs,
 * written to a pipe the caller reads, and the getters that parse them. */

/* What one subscription record describes. */
typedef enum {
    ACL_SUBSCRIBE_OP = 0,
    ACL_SUBSCRIBE_SUBGRAPH = 1,
    ACL_SUBSCRIBE_OP_THREAD = 2,
    ACL_SUBSCRIBE_NONE = 0xFF
} aclprofSubscribeOpFlag;

/* The extra attributes aclprofGetOpAttriValue can read. */
typedef enum {
    ACL_SUBSCRIBE_ATTRI_THREADID = 0,
    ACL_SUBSCRIBE_ATTRI_NONE
} aclprofSubscribeOpAttri;

/* Where and what to report for a subscribed model; opaque. */
typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;

/* `fd` points at the write end of a pipe (an int); `timeInfoSwitch` is 0 or
 * 1. NULL when the arguments are invalid (no error code). */
aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics,
                                                     void *fd);
aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig);
/* `modelId` must be a loaded model's. */
aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig);
aclError aclprofModelUnSubscribe(uint32_t modelId);
/* The size of one record; the data read from the pipe is a whole number of them. */
aclError aclprofGetOpDescSize(size_t *opDescSize);
aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber);
/* Record `index` of `opInfo`: the lengths count the terminating NUL; a name or
 * type can be read once. */
aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen);
aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType, size_t opTypeLen);
aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen);
aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName, size_t opNameLen);
/* Times in microseconds; 0 when the arguments are invalid. */
uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index);
uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index);
uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index);
/* The model id, or an error code in its place. */
size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index);
aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index);
/* Text owned by the library, valid until the next call; NULL when the record
 * has no such attribute. */
const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                   aclprofSubscribeOpAttri attri);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_ACL_PROF_H */
