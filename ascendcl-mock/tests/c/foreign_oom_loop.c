/*
 * foreign_oom_loop.c: allocate until the device says no, then recover, the
 * way a framework probes its memory: take blocks of device memory until
 * aclrtMalloc fails with ACL_ERROR_RT_MEMORY_ALLOCATION, read the error
 * text, give half of the blocks back, allocate again with a smaller block,
 * free everything and do it once more. Exits 0 when both rounds ran out of
 * memory, recovered, and the memory statistics add up.
 */
#include <acl/acl.h>
#include <stdio.h>
#include <string.h>

#define MAX_BLOCKS 512
#define BLOCK (64u << 20)

#define CHECK(expr)                                                                                            \
    do {                                                                                                       \
        aclError rc_ = (expr);                                                                                 \
        if (rc_ != ACL_SUCCESS) {                                                                              \
            fprintf(stderr, "%s failed: %d (%s)\n", #expr, rc_, aclGetRecentErrMsg());                         \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

static void *blocks[MAX_BLOCKS];

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    size_t free0 = 0, total = 0;
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    if (free0 > total || total == 0) {
        fprintf(stderr, "free %zu > total %zu\n", free0, total);
        return 1;
    }
    for (int round = 0; round < 2; round++) {
        int n = 0;
        aclError rc = ACL_SUCCESS;
        while (n < MAX_BLOCKS) {
            rc = aclrtMalloc(&blocks[n], BLOCK, ACL_MEM_MALLOC_HUGE_FIRST);
            if (rc != ACL_SUCCESS) {
                break;
            }
            n++;
        }
        if (rc != ACL_ERROR_RT_MEMORY_ALLOCATION) {
            fprintf(stderr, "round %d: %d blocks and no out-of-memory (%d)\n", round, n, rc);
            return 1;
        }
        const char *msg = aclGetRecentErrMsg();
        if (!msg || !*msg) {
            fprintf(stderr, "round %d: out of memory without a message\n", round);
            return 1;
        }
        for (int i = n - 1; i >= n / 2; i--) {
            CHECK(aclrtFree(blocks[i]));
        }
        int kept = n / 2;
        while (kept < MAX_BLOCKS && aclrtMalloc(&blocks[kept], BLOCK / 2, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) {
            kept++;
        }
        (void)aclGetRecentErrMsg(); /* the second failure's text, read and dropped */
        size_t f = 0, t = 0;
        CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
        if (f > t || t != total) {
            fprintf(stderr, "round %d: free %zu, total %zu (was %zu)\n", round, f, t, total);
            return 1;
        }
        for (int i = 0; i < kept; i++) {
            CHECK(aclrtFree(blocks[i]));
        }
    }
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("ok\n");
    return 0;
}
