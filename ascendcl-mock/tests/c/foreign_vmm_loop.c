/*
 * foreign_vmm_loop.c: a growing buffer on virtual memory, the way a caching
 * allocator does it: reserve one large range, then map physical chunks into
 * it one after another, fill each through a copy, read the whole range back,
 * and tear everything down in reverse. Exits 0 when every byte came back.
 */
#include <acl/acl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNKS 6
#define ROUNDS 3

#define CHECK(expr)                                                                                            \
    do {                                                                                                       \
        aclError rc_ = (expr);                                                                                 \
        if (rc_ != ACL_SUCCESS) {                                                                              \
            fprintf(stderr, "%s failed: %d (%s)\n", #expr, rc_, aclGetRecentErrMsg());                         \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
    if (gran == 0) {
        return 1;
    }
    unsigned char *host = malloc(gran * CHUNKS);
    if (!host) {
        return 1;
    }
    for (int round = 0; round < ROUNDS; round++) {
        void *va = NULL;
        CHECK(aclrtReserveMemAddress(&va, gran * CHUNKS, 0, NULL, 0));
        aclrtDrvMemHandle handles[CHUNKS];
        for (int i = 0; i < CHUNKS; i++) {
            char *at = (char *)va + gran * (size_t)i;
            CHECK(aclrtMallocPhysical(&handles[i], gran, &prop, 0));
            CHECK(aclrtMapMem(at, gran, 0, handles[i], 0));
            memset(host, round * 16 + i, gran);
            CHECK(aclrtMemcpy(at, gran, host, gran, ACL_MEMCPY_HOST_TO_DEVICE));
        }
        CHECK(aclrtMemcpy(host, gran * CHUNKS, va, gran * CHUNKS, ACL_MEMCPY_DEVICE_TO_HOST));
        for (int i = 0; i < CHUNKS; i++) {
            if (host[gran * (size_t)i] != (unsigned char)(round * 16 + i) ||
                host[gran * (size_t)i + gran - 1] != (unsigned char)(round * 16 + i)) {
                fprintf(stderr, "round %d: chunk %d came back wrong\n", round, i);
                return 1;
            }
        }
        for (int i = CHUNKS - 1; i >= 0; i--) {
            CHECK(aclrtUnmapMem((char *)va + gran * (size_t)i));
            CHECK(aclrtFreePhysical(handles[i]));
        }
        CHECK(aclrtReleaseMemAddress(va));
    }
    free(host);
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("ok %d rounds of %d chunks\n", ROUNDS, CHUNKS);
    return 0;
}
