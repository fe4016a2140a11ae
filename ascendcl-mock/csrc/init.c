/*
 * init.c: aclInit/aclFinalize reference counting, versions, run mode and
 * SoC name.
 */
#include "mock.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_CANN_VERSION "8.5.0"
#define MOCK_DRIVER_VERSION "25.5.0"

/* Reads a config file; 0, or the aclInit error code. */
static aclError read_config(const char *path, strbuf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return fail(ACL_ERROR_INVALID_FILE, "cannot open config file \"%s\"", path);
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        sb_append(out, buf, n);
    }
    fclose(f);
    const char *p = out->s ? out->s : "";
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if (*p != '{') {
        return fail(ACL_ERROR_PARSE_FILE, "config file \"%s\" is not a JSON object", path);
    }
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclInit(const char *configPath)
{
    mock_call c;
    call_begin(&c, FN_aclInit);
    ja_str(&c, "configPath", configPath);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* acl.cpp:292-296 (v8.5.0): an initialized process counts one more
     * reference and returns 100002 without logging anything (no text) */
    if (G.init_count > 0) {
        G.init_count++;
        return call_end(&c, ACL_ERROR_REPEAT_INITIALIZE);
    }
    strbuf cfg = {0};
    if (configPath && *configPath) {
        aclError rc = read_config(configPath, &cfg);
        if (rc) {
            sb_free(&cfg);
            return call_end(&c, rc);
        }
    }
    const char *now = cfg.s ? cfg.s : "";
    if (G.init_config_known) {
        const char *first = G.init_config.s ? G.init_config.s : "";
        if (strcmp(first, now) != 0) {
            sb_free(&cfg);
            return call_end(&c, fail(ACL_ERROR_INVALID_PARAM,
                                     "re-initialization with a config different from the first aclInit"));
        }
        sb_free(&cfg);
    } else {
        G.init_config = cfg;
        G.init_config_known = true;
    }
    G.init_count = 1;
    G.finalized = false;
    G.acl_up = true;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclFinalize(void)
{
    mock_call c;
    call_begin(&c, FN_aclFinalize);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (G.finalized && G.init_count == 0) {
        return call_end(&c, fail(ACL_ERROR_REPEAT_FINALIZE, "ACL is already finalized"));
    }
    G.init_count = 0;
    G.finalized = true;
    G.acl_up = false;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
    mock_call c;
    call_begin(&c, FN_aclFinalizeReference);
    ja_ptr(&c, "refCount", refCount);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* acl.cpp:541-555 (v8.5.0): *refCount receives the count before the
     * checks; below 1 -> 100037 with text (ACL_LOG_INNER_ERROR) */
    if (G.init_count < 1) {
        if (refCount) {
            *refCount = G.init_count;
        }
        return call_end(&c, fail(ACL_ERROR_REPEAT_FINALIZE, "ACL is not initialized (reference count is 0)"));
    }
    G.init_count--;
    if (G.init_count == 0) {
        G.finalized = true;
        G.acl_up = false;
    }
    if (refCount) {
        *refCount = G.init_count;
    }
    jo_u64(&c, "refCount", G.init_count);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetVersion);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!majorVersion || !minorVersion || !patchVersion) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "an output pointer is null"));
    }
    int64_t v[3] = {ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION};
    replay_out_i64(&c, "major", &v[0]);
    replay_out_i64(&c, "minor", &v[1]);
    replay_out_i64(&c, "patch", &v[2]);
    *majorVersion = (int32_t)v[0];
    *minorVersion = (int32_t)v[1];
    *patchVersion = (int32_t)v[2];
    jo_i64(&c, "major", v[0]);
    jo_i64(&c, "minor", v[1]);
    jo_i64(&c, "patch", v[2]);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetRunMode);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!runMode) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "runMode is null"));
    }
    int64_t mode = ACL_HOST;
    replay_out_i64(&c, "runMode", &mode);
    *runMode = (aclrtRunMode)mode;
    jo_i64(&c, "runMode", mode);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT const char *aclrtGetSocName(void)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetSocName);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return NULL;
    }
    const char *name = G.soc_name;
    jo_str(&c, "name", name);
    call_end(&c, ACL_SUCCESS);
    return name;
}

/* ------------------------------------------------------------- versions */

static const char *package_version(const char *pkg)
{
    static const char *const cann[] = {"runtime", "bisheng-compiler", "bisheng_compiler", "hccl",
                                       "oam-tools", "oam_tools", "ops-legacy", "ops_legacy"};
    for (size_t i = 0; i < sizeof(cann) / sizeof(cann[0]); i++) {
        if (strcmp(pkg, cann[i]) == 0) {
            return MOCK_CANN_VERSION;
        }
    }
    if (strcmp(pkg, "driver") == 0 || strcmp(pkg, "firmware") == 0) {
        return MOCK_DRIVER_VERSION;
    }
    return NULL;
}

static int32_t version_number(const char *v)
{
    int major = 0, minor = 0, patch = 0;
    if (sscanf(v, "%d.%d.%d", &major, &minor, &patch) != 3) {
        return 0;
    }
    return major * 10000000 + minor * 100000 + patch * 1000;
}

ACLMOCK_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    mock_call c;
    call_begin(&c, FN_aclsysGetCANNVersion);
    ja_i64(&c, "name", (int64_t)name);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!version) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "version is null"));
    }
    if ((unsigned)name > (unsigned)ACL_PKG_NAME_DRIVER) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "unknown package name %d", (int)name));
    }
    const char *v = name == ACL_PKG_NAME_DRIVER ? MOCK_DRIVER_VERSION : MOCK_CANN_VERSION;
    int major = 0, minor = 0, patch = 0;
    sscanf(v, "%d.%d.%d", &major, &minor, &patch);
    memset(version, 0, sizeof(*version));
    snprintf(version->version, sizeof(version->version), "%s", v);
    snprintf(version->majorVersion, sizeof(version->majorVersion), "%d", major);
    snprintf(version->minorVersion, sizeof(version->minorVersion), "%d", minor);
    snprintf(version->releaseVersion, sizeof(version->releaseVersion), "%d", patch);
    snprintf(version->patchVersion, sizeof(version->patchVersion), "%d", 0);
    static const struct {
        const char *key;
        size_t off, cap;
    } fields[] = {
        {"version", offsetof(aclCANNPackageVersion, version), ACL_PKG_VERSION_MAX_SIZE},
        {"majorVersion", offsetof(aclCANNPackageVersion, majorVersion), ACL_PKG_VERSION_PARTS_MAX_SIZE},
        {"minorVersion", offsetof(aclCANNPackageVersion, minorVersion), ACL_PKG_VERSION_PARTS_MAX_SIZE},
        {"releaseVersion", offsetof(aclCANNPackageVersion, releaseVersion), ACL_PKG_VERSION_PARTS_MAX_SIZE},
        {"patchVersion", offsetof(aclCANNPackageVersion, patchVersion), ACL_PKG_VERSION_PARTS_MAX_SIZE},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        char *field = (char *)version + fields[i].off;
        const char *recorded = NULL;
        if (replay_out_str(&c, fields[i].key, &recorded) && recorded) {
            snprintf(field, fields[i].cap, "%s", recorded);
        }
        jo_str(&c, fields[i].key, field);
    }
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    mock_call c;
    call_begin(&c, FN_aclsysGetVersionStr);
    ja_str(&c, "pkgName", pkgName);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!pkgName || !versionStr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "pkgName or versionStr is null"));
    }
    const char *v = package_version(pkgName);
    if (!v) {
        return call_end(&c, fail(ACL_ERROR_INVALID_FILE, "no version information for package \"%s\"", pkgName));
    }
    const char *recorded = NULL;
    if (replay_out_str(&c, "versionStr", &recorded) && recorded) {
        v = recorded;
    }
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", v);
    jo_str(&c, "versionStr", versionStr);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    mock_call c;
    call_begin(&c, FN_aclsysGetVersionNum);
    ja_str(&c, "pkgName", pkgName);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!pkgName || !versionNum) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "pkgName or versionNum is null"));
    }
    const char *v = package_version(pkgName);
    if (!v) {
        return call_end(&c, fail(ACL_ERROR_INVALID_FILE, "no version information for package \"%s\"", pkgName));
    }
    int64_t num = version_number(v);
    replay_out_i64(&c, "versionNum", &num);
    *versionNum = (int32_t)num;
    jo_i64(&c, "versionNum", *versionNum);
    return call_end(&c, ACL_SUCCESS);
}
