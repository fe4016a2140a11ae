/*
 * rec_nn_target.c: where the shim's aclnn wrappers forward to. The
 * descriptor and executor functions live in libnnopbase.so, the operators in
 * the op-API libraries (CANN 8.5: libopapi_math.so, libopapi_nn.so,
 * libopapi_cv.so and the aggregate libopapi.so; ascendcl-sys/src/aclnn
 * resolves them in this order). A function is looked up in the first of
 * these directories that holds libnnopbase.so:
 *
 *   1. ASCENDCL_RECORD_ACLNN_DIR: the real aclnn libraries;
 *   2. the directory of the runtime target (ASCENDCL_RECORD_TARGET or
 *      aclrecordStart's): CANN's lib64, or the mock's build directory;
 *   3. without either: the next definition (dlsym RTLD_NEXT, for
 *      LD_PRELOAD), else the libraries by name from the loader's path.
 *
 * Runs under the resolver lock of rec_core.c.
 */
#include "rec.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lib_names[] = {"libnnopbase.so", "libopapi_math.so", "libopapi_nn.so", "libopapi_cv.so",
                                        "libopapi.so"};
#define NLIBS (sizeof(lib_names) / sizeof(lib_names[0]))

static char opened_for[4096]; /* the directory the handles below are of ("" by name) */
static void *libs[NLIBS];
static bool tried;

static void *object_base_of(const void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

/* Opens the aclnn libraries of `dir` ("" for the loader's path), once. */
static void open_dir(const char *dir)
{
    if (tried && strcmp(opened_for, dir) == 0) {
        return;
    }
    /* handles of an earlier directory are never closed: code of them may run */
    tried = true;
    snprintf(opened_for, sizeof(opened_for), "%s", dir);
    for (size_t i = 0; i < NLIBS; i++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", lib_names[i]);
        libs[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* the split libraries are optional */
        if (!libs[i] && i == 0 && dir[0]) {
            fprintf(stderr, "ascendcl-record: cannot open the aclnn library %s: %s\n", path, dlerror());
        }
    }
}

void *rec_nn_lookup_locked(const char *name, const char *runtime_target, void *self_base)
{
    char dir[4096] = "";
    const char *env = getenv("ASCENDCL_RECORD_ACLNN_DIR");
    if (env && *env && strlen(env) < sizeof(dir)) {
        snprintf(dir, sizeof(dir), "%s", env);
    } else if (runtime_target && runtime_target[0]) {
        const char *slash = strrchr(runtime_target, '/');
        int dir_len = slash ? (int)(slash - runtime_target) : 0;
        snprintf(dir, sizeof(dir), "%.*s", dir_len, runtime_target);
        if (!slash) {
            snprintf(dir, sizeof(dir), ".");
        }
    } else {
        void *p = dlsym(RTLD_NEXT, name);
        if (p && object_base_of(p) != self_base) {
            return p;
        }
    }
    open_dir(dir);
    for (size_t i = 0; i < NLIBS; i++) {
        void *p = libs[i] ? dlsym(libs[i], name) : NULL;
        if (p && object_base_of(p) != self_base) {
            return p;
        }
    }
    return NULL;
}
