/*
 * foreign_pipeline.c: a double-buffered copy pipeline written the way an
 * application does it, not for the mock: two streams take turns; each round
 * uploads a host buffer, downloads it back and queues a
 * blocking callback that a report thread runs (aclrtSubscribeReport +
 * aclrtProcessReport polling with a timeout, aclrtLaunchCallback). Before a
 * buffer is reused the program waits for its stream. Exits 0 when every
 * callback ran and every round trip kept its data.
 */
#include <acl/acl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 12
#define BYTES (64 * 1024)
#define POLL_MS 20

#define CHECK(expr)                                                                                            \
    do {                                                                                                       \
        aclError rc_ = (expr);                                                                                 \
        if (rc_ != ACL_SUCCESS) {                                                                              \
            fprintf(stderr, "%s failed: %d (%s)\n", #expr, rc_, aclGetRecentErrMsg());                         \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

static atomic_int stop;
static atomic_int callbacks;
static aclrtContext ctx;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int subscribed;

static void done(void *arg)
{
    atomic_fetch_add(&callbacks, 1);
    *(int *)arg += 1;
}

/* The report thread: waits until the streams are subscribed to it, then
 * polls until told to stop. A timeout (507012) only means "nothing yet". */
static void *report_loop(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&gate);
    while (!subscribed) {
        pthread_cond_wait(&gate_cv, &gate);
    }
    pthread_mutex_unlock(&gate);
    if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) {
        return (void *)1;
    }
    while (!atomic_load(&stop)) {
        aclError rc = aclrtProcessReport(POLL_MS);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT) {
            fprintf(stderr, "aclrtProcessReport failed: %d\n", rc);
            return (void *)1;
        }
    }
    return NULL;
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtGetCurrentContext(&ctx));
    aclrtStream streams[2];
    void *dev[2], *host[2];
    int finished[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtCreateStream(&streams[i]));
        CHECK(aclrtMalloc(&dev[i], BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtMallocHost(&host[i], BYTES));
    }
    pthread_t reporter;
    if (pthread_create(&reporter, NULL, report_loop, NULL) != 0) {
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtSubscribeReport((uint64_t)reporter, streams[i]));
    }
    pthread_mutex_lock(&gate);
    subscribed = 1;
    pthread_cond_signal(&gate_cv);
    pthread_mutex_unlock(&gate);

    for (int round = 0; round < ROUNDS; round++) {
        int b = round % 2;
        if (round >= 2) {
            CHECK(aclrtSynchronizeStream(streams[b])); /* the buffer is free again */
            if (((unsigned char *)host[b])[BYTES - 1] != (unsigned char)(round - 2)) {
                fprintf(stderr, "round %d: buffer %d came back wrong\n", round - 2, b);
                return 1;
            }
        }
        memset(host[b], round, BYTES);
        CHECK(aclrtMemcpyAsync(dev[b], BYTES, host[b], BYTES, ACL_MEMCPY_HOST_TO_DEVICE, streams[b]));
        CHECK(aclrtMemcpyAsync(host[b], BYTES, dev[b], BYTES, ACL_MEMCPY_DEVICE_TO_HOST, streams[b]));
        CHECK(aclrtLaunchCallback(done, &finished[b], ACL_CALLBACK_BLOCK, streams[b]));
    }
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtSynchronizeStream(streams[i]));
    }
    atomic_store(&stop, 1);
    void *failed = NULL;
    pthread_join(reporter, &failed);
    if (failed) {
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtUnSubscribeReport((uint64_t)reporter, streams[i]));
        CHECK(aclrtDestroyStream(streams[i]));
        CHECK(aclrtFree(dev[i]));
        CHECK(aclrtFreeHost(host[i]));
    }
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (atomic_load(&callbacks) != ROUNDS || finished[0] + finished[1] != ROUNDS) {
        fprintf(stderr, "%d of %d callbacks ran\n", atomic_load(&callbacks), ROUNDS);
        return 1;
    }
    printf("ok %d rounds\n", ROUNDS);
    return 0;
}
