/*
 * dump.c: the dump API of acl/acl_dump.h: the data-dump callback
 * (acldumpRegCallback, acldumpUnregCallback) and recording operator
 * arguments (aclopStartDumpArgs, aclopStopDumpArgs).
 *
 * In CANN 8.5.0 these are libascend_dump.so's (src/dfx/adump/), which the
 * runtime library links in (src/acl/aclrt_impl/CMakeLists.txt:91); the mock
 * serves them from libascendcl.so. Rules cite hicann/runtime v8.5.0.
 *
 * The callback replaces the dump files: the dump record thread hands it each
 * chunk of dump data that arrives from the device while a data dump is
 * configured (acl.json "dump", adump/adx_dump_record.cpp:655-689, and the
 * statistics path :594-596 through DumpDataToCallback :527-557). That data is
 * the device's dump of each operator's tensors, whose format the device-side
 * dumper (not in these sources) decides: the mock produces no dump data, so
 * it keeps the registration but never calls the callback. Likewise the args
 * record is written by the operator libraries through AdumpSaveToFile
 * (adump_api_platform.cpp:48-51) when the switch is on: the mock keeps the
 * switch and the directory, and writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <acl/acl_dump.h>

#include "mock.h"

static struct {
    bool args_on; /* dump_manager.cpp:479: OP_INFO_RECORD_DUMP in the switch */
    bool registered; /* adx_dump_process.cpp:21 (init_) */
    int32_t (*callback)(const acldumpChunk *, int32_t);
    char args_path[ACL_DUMP_MAX_FILE_PATH_LENGTH];
} D;

void dump_reset_locked(void) { memset(&D, 0, sizeof(D)); }

/* Adx::Path::CreateDirectory(true): each missing parent, then the path. */
static bool make_dirs(const char *path)
{
    char buf[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    size_t n = strlen(path);
    if (n >= sizeof(buf)) {
        return false;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char keep = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0750) != 0 && errno != EEXIST) {
                return false;
            }
            buf[i] = keep;
        }
    }
    return true;
}

/* adx_datadump_callback.cpp:41-57: flag other than 0 -> 500001, a null
 * callback -> 500001; adx_dump_process.cpp:14-22: while one is registered
 * a second registration is logged and ignored, and the call succeeds. */
ACLMOCK_EXPORT aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t),
                                           int32_t flag)
{
    mock_call c;
    call_begin(&c, FN_acldumpRegCallback);
    ja_str(&c, "messageCallback", messageCallback ? "set" : "null");
    ja_i64(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (flag != 0) {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "flag %d is not 0", (int)flag));
    }
    if (!messageCallback) {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "messageCallback is null"));
    }
    if (D.registered) {
        jo_i64(&c, "ignored", 1);
        return call_end(&c, ACL_SUCCESS);
    }
    D.registered = true;
    D.callback = messageCallback;
    return call_end(&c, ACL_SUCCESS);
}

/* adx_dump_process.cpp:34-42: clears the registration (a warning when there
 * is none) */
ACLMOCK_EXPORT void acldumpUnregCallback(void)
{
    mock_call c;
    call_begin(&c, FN_acldumpUnregCallback);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return;
    }
    jo_i64(&c, "was_registered", D.registered);
    D.registered = false;
    D.callback = NULL;
    call_end(&c, ACL_SUCCESS);
}

/*
 * adump_api_platform.cpp:64-73: only ACL_OP_DUMP_OP_AICORE_ARGS does
 * anything (other bits: success); then dump_manager.cpp:455-488: already on
 * -> -1, an empty path -> -1, a missing directory is created (failure -> -1),
 * a path that is not a directory -> -1; each -1 is 500001. A null path
 * would construct a std::string from NULL (:67): refused here, as misuse.
 */
ACLMOCK_EXPORT aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
    mock_call c;
    call_begin(&c, FN_aclopStartDumpArgs);
    ja_u64(&c, "dumpType", dumpType);
    ja_str(&c, "path", path);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) != ACL_OP_DUMP_OP_AICORE_ARGS) {
        return call_end(&c, ACL_SUCCESS);
    }
    if (!path) {
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "aclopStartDumpArgs: path is null (CANN builds a std::string "
               "from it)");
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "path is null"));
    }
    if (D.args_on) {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "the args dump is already on (into %s)", D.args_path));
    }
    if (path[0] == '\0') {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "the path is empty"));
    }
    struct stat st;
    if (stat(path, &st) != 0 && !make_dirs(path)) {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "cannot create %s: %s", path, strerror(errno)));
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return call_end(&c, acl_fail(ACL_ERROR_FAILURE, "%s is not a directory", path));
    }
    D.args_on = true;
    snprintf(D.args_path, sizeof(D.args_path), "%s", path);
    return call_end(&c, ACL_SUCCESS);
}

/* adump_api_platform.cpp:84-92, dump_manager.cpp:491-505: off already is a
 * success; other bits do nothing. */
ACLMOCK_EXPORT aclError aclopStopDumpArgs(uint32_t dumpType)
{
    mock_call c;
    call_begin(&c, FN_aclopStopDumpArgs);
    ja_u64(&c, "dumpType", dumpType);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == ACL_OP_DUMP_OP_AICORE_ARGS) {
        jo_i64(&c, "was_on", D.args_on);
        D.args_on = false;
    }
    return call_end(&c, ACL_SUCCESS);
}
