/*
 * rec_hccl_target.c: where the shim's HCCL wrappers forward to. CANN splits
 * HCCL into libhccl.so (collectives) and libhcomm.so (communicators; older
 * CANN has everything in libhccl.so), so a function is looked up in
 * libhccl.so first, then in libhcomm.so, of the first of:
 *
 *   1. ASCENDCL_RECORD_HCCL_TARGET: the real libhccl.so (libhcomm.so is
 *      looked up beside it);
 *   2. the directory of the runtime target (ASCENDCL_RECORD_TARGET or
 *      aclrecordStart's), as ascendcl-sys finds HCCL beside the runtime;
 *   3. without a runtime target: the next definition (dlsym RTLD_NEXT, for
 *      LD_PRELOAD), else libhccl.so / libhcomm.so from the loader's path.
 *
 * Runs under the resolver lock of rec_core.c.
 */
#include "rec.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char opened_for[4096]; /* the libhccl.so path the handles below are of */
static void *libs[2];         /* libhccl.so, libhcomm.so */
static bool tried;

static void *object_base_of(const void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

/* Opens libhccl.so at `path` and libhcomm.so beside it, once per path. */
static void open_pair(const char *path)
{
    if (tried && strcmp(opened_for, path) == 0) {
        return;
    }
    /* handles of an earlier target are never closed: code of them may run */
    tried = true;
    snprintf(opened_for, sizeof(opened_for), "%s", path);
    libs[0] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!libs[0]) {
        fprintf(stderr, "ascendcl-record: cannot open the HCCL library %s: %s\n", path, dlerror());
    }
    char hcomm[4200];
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    snprintf(hcomm, sizeof(hcomm), "%.*slibhcomm.so", dir_len, path);
    libs[1] = dlopen(hcomm, RTLD_NOW | RTLD_LOCAL); /* optional */
}

void *rec_hccl_lookup_locked(const char *name, const char *runtime_target, void *self_base)
{
    char path[4200] = "";
    const char *env = getenv("ASCENDCL_RECORD_HCCL_TARGET");
    if (env && *env && strlen(env) < sizeof(opened_for)) {
        snprintf(path, sizeof(path), "%s", env);
    } else if (runtime_target && runtime_target[0]) {
        const char *slash = strrchr(runtime_target, '/');
        int dir_len = slash ? (int)(slash - runtime_target + 1) : 0;
        snprintf(path, sizeof(path), "%.*slibhccl.so", dir_len, runtime_target);
    }
    if (!path[0] || strlen(path) >= sizeof(opened_for)) {
        void *p = dlsym(RTLD_NEXT, name);
        if (p && object_base_of(p) != self_base) {
            return p;
        }
        path[0] = '\0';
        if (!tried) {
            tried = true;
            libs[0] = dlopen("libhccl.so", RTLD_NOW | RTLD_LOCAL);
            libs[1] = dlopen("libhcomm.so", RTLD_NOW | RTLD_LOCAL);
        }
    } else {
        open_pair(path);
    }
    for (int i = 0; i < 2; i++) {
        void *p = libs[i] ? dlsym(libs[i], name) : NULL;
        if (p) {
            return p;
        }
    }
    return NULL;
}
