/*
 * foreign_hccl_allreduce.c: data-parallel gradient averaging the way a C++
 * trainer does it, linked against libhccl.so: communicators for devices 0
 * and 1 from HcclCommInitAll, one thread per rank that uploads its
 * gradients, all-reduces them (sum) in place on its own stream, waits and
 * reads them back. Exits 0 when both ranks hold the sum.
 */
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <pthread.h>
#include <stdio.h>

#define RANKS 2
#define COUNT 256

typedef struct rank_arg {
    int rank;
    HcclComm comm;
    pthread_barrier_t *both;
    int failed;
} rank_arg;

#define CHECK(expr)                                                                                            \
    do {                                                                                                       \
        int rc_ = (int)(expr);                                                                                 \
        if (rc_ != 0) {                                                                                        \
            fprintf(stderr, "rank %d: %s failed: %d\n", a->rank, #expr, rc_);                                  \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

typedef struct rank_state {
    float grads[COUNT];
    aclrtStream stream;
    void *dev;
} rank_state;

/* Up to the queued all-reduce. */
static int queue_work(rank_arg *a, rank_state *st)
{
    for (int i = 0; i < COUNT; i++) {
        st->grads[i] = (float)(a->rank + 1) * (float)(i % 7);
    }
    CHECK(aclrtSetDevice(a->rank));
    CHECK(aclrtCreateStream(&st->stream));
    CHECK(aclrtMalloc(&st->dev, sizeof(st->grads), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(st->dev, sizeof(st->grads), st->grads, sizeof(st->grads), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(HcclAllReduce(st->dev, st->dev, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, a->comm, st->stream));
    return 0;
}

/* Waits for the result, reads it back, checks it and cleans up. */
static int finish_work(rank_arg *a, rank_state *st)
{
    CHECK(aclrtSynchronizeStream(st->stream));
    CHECK(aclrtMemcpy(st->grads, sizeof(st->grads), st->dev, sizeof(st->grads), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtFree(st->dev));
    CHECK(aclrtDestroyStream(st->stream));
    CHECK(aclrtResetDevice(a->rank));
    for (int i = 0; i < COUNT; i++) {
        if (st->grads[i] != 3.0f * (float)(i % 7)) {
            fprintf(stderr, "rank %d: element %d is %g\n", a->rank, i, st->grads[i]);
            return 1;
        }
    }
    return 0;
}

static void *rank_main(void *p)
{
    rank_arg *a = p;
    rank_state st = {.stream = NULL, .dev = NULL};
    a->failed = queue_work(a, &st);
    /* both collectives are queued before either rank waits (a rank that
     * failed still meets the other here, so neither is left waiting) */
    pthread_barrier_wait(a->both);
    if (!a->failed) {
        a->failed = finish_work(a, &st);
    }
    return NULL;
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS) {
        return 1;
    }
    int32_t devices[RANKS] = {0, 1};
    HcclComm comms[RANKS] = {NULL, NULL};
    HcclResult rc = HcclCommInitAll(RANKS, devices, comms);
    if (rc != HCCL_SUCCESS) {
        fprintf(stderr, "HcclCommInitAll failed: %d\n", (int)rc);
        return 1;
    }
    pthread_barrier_t both;
    pthread_barrier_init(&both, NULL, RANKS);
    rank_arg args[RANKS];
    pthread_t threads[RANKS];
    for (int r = 0; r < RANKS; r++) {
        args[r] = (rank_arg){r, comms[r], &both, 0};
        pthread_create(&threads[r], NULL, rank_main, &args[r]);
    }
    int failed = 0;
    for (int r = 0; r < RANKS; r++) {
        pthread_join(threads[r], NULL);
        failed |= args[r].failed;
    }
    pthread_barrier_destroy(&both);
    for (int r = 0; r < RANKS; r++) {
        failed |= HcclCommDestroy(comms[r]) != HCCL_SUCCESS;
    }
    failed |= aclFinalize() != ACL_SUCCESS;
    return failed;
}
