/*
 * A C program on the installed mock: a host -> device -> host round trip,
 * then an injected out-of-memory fault through the mock's control API
 * (aclmock.h), and a check that nothing is left alive.
 *
 *   ascendcl-mock install --prefix DIR
 *   cc mock_roundtrip.c -IDIR/include -LDIR/lib -lascendcl -o mock_roundtrip
 *   LD_LIBRARY_PATH=DIR/lib ./mock_roundtrip
 *
 * Exit status 0 and "mock_roundtrip: ok" when every check holds.
 */
#include <acl/acl.h>
#include <aclmock.h>

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        aclError check_code_ = (call);                                           \
        if (check_code_ != ACL_SUCCESS) {                                        \
            fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__,  \
                    #call, (int)check_code_, aclGetRecentErrMsg());              \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(void)
{
    CHECK(aclInit(NULL));
    uint32_t devices = 0;
    CHECK(aclrtGetDeviceCount(&devices));
    CHECK(aclrtSetDevice(0));

    float input[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    float output[4] = {0};
    void *on_device = NULL;
    CHECK(aclrtMalloc(&on_device, sizeof input, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(on_device, sizeof input, input, sizeof input, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(output, sizeof output, on_device, sizeof input, ACL_MEMCPY_DEVICE_TO_HOST));
    if (memcmp(input, output, sizeof input) != 0) {
        fprintf(stderr, "the round trip changed the data\n");
        return 1;
    }

    /* The next aclrtMalloc fails as a card out of HBM would. */
    CHECK(aclmockInjectFault("aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION, NULL));
    void *refused = NULL;
    aclError code = aclrtMalloc(&refused, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST);
    if (code != ACL_ERROR_RT_MEMORY_ALLOCATION || refused != NULL) {
        fprintf(stderr, "expected the injected fault 207001, got %d\n", (int)code);
        return 1;
    }

    CHECK(aclrtFree(on_device));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (aclmockLiveCount(ACLMOCK_RES_DEVICE_BUFFER) != 0 || aclmockMisuseCount(ACLMOCK_MISUSE_COUNT) != 0) {
        fprintf(stderr, "leaked buffers or misuse\n");
        return 1;
    }
    printf("mock_roundtrip: ok (%u devices, %llu aclrtMalloc calls)\n", devices,
           (unsigned long long)aclmockCallCount("aclrtMalloc"));
    return 0;
}
