/*
 * record_probe.c: a C program linked against libascendcl.so (the mock, by
 * the build script), for the LD_PRELOAD test of the recording shim: run with
 * LD_PRELOAD=libascendcl_record.so it must be recorded without a target set
 * (the shim finds the next definition). Prints "ok" and exits 0 on success.
 */
#include <acl/acl.h>
#include <stdio.h>
#include <string.h>

#define CHECK(expr)                                                                                            \
    do {                                                                                                       \
        aclError rc_ = (expr);                                                                                 \
        if (rc_ != ACL_SUCCESS) {                                                                              \
            fprintf(stderr, "%s failed: %d\n", #expr, rc_);                                                    \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    uint32_t count = 0;
    CHECK(aclrtGetDeviceCount(&count));
    void *dev = NULL, *host = NULL;
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMallocHost(&host, 4096));
    memset(host, 7, 4096);
    CHECK(aclrtMemcpy(dev, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy((char *)host + 16, 64, (char *)dev + 64, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    if (aclrtSetDevice(999) == ACL_SUCCESS) {
        fprintf(stderr, "aclrtSetDevice(999) succeeded\n");
        return 1;
    }
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, "999")) {
        fprintf(stderr, "the error text of the failure was lost: %s\n", msg ? msg : "(null)");
        return 1;
    }
    CHECK(aclrtFree(dev));
    CHECK(aclrtFreeHost(host));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("ok %u devices\n", count);
    return 0;
}
