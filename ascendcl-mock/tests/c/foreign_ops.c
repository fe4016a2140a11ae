/*
 * foreign_ops.c: a C program using the aclnn operators as applications do
 * (linked against libopapi.so and libnnopbase.so): out = a + 2 * b with
 * aclnnAdd, then a repeatable aclnnMuls executor run twice on two inputs
 * re-pointed with aclSetInputTensorAddr, then aclnnReduceSum over dim 1;
 * the results are checked on the host. Recorded and replayed by
 * tests/record_ops.rs. Exit 0 when every result is right.
 */
#include <acl/acl.h>
#include <aclnn/aclnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8
#define CHECK(x)                                                                                                   \
    do {                                                                                                           \
        int rc_ = (int)(x);                                                                                        \
        if (rc_ != 0) {                                                                                            \
            fprintf(stderr, "foreign_ops: %s failed with %d: %s\n", #x, rc_, aclGetRecentErrMsg());                \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static aclTensor *vec(void *dev, int64_t rows)
{
    int64_t dims[2] = {rows, N / rows}, strides[2] = {N / rows, 1}, storage[1] = {N};
    return aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, dev);
}

/* Runs phase 2 with a workspace of the size phase 1 asked for. */
static void launch(aclnnStatus (*op)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t ws,
                   aclOpExecutor *ex, aclrtStream s, void **wsbuf)
{
    if (ws && !*wsbuf) {
        CHECK(aclrtMalloc(wsbuf, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    CHECK(op(ws ? *wsbuf : NULL, ws, ex, s));
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s;
    CHECK(aclrtCreateStream(&s));
    float ha[N], hb[N], out[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 1.0f + (float)i / 2.0f;
    }
    void *a, *b, *c, *d, *sum, *ws = NULL;
    size_t bytes = sizeof(ha);
    CHECK(aclrtMalloc(&a, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&b, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&c, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&sum, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(a, bytes, ha, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(b, bytes, hb, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    /* c = a + 2 * b */
    aclTensor *ta = vec(a, 2), *tb = vec(b, 2), *tc = vec(c, 2);
    float two = 2.0f;
    aclScalar *alpha = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t wsize = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &wsize, &ex));
    launch(aclnnAdd, wsize, ex, s, &ws);

    /* d = 0.5 * a, then d = 0.5 * b with the same executor */
    float half = 0.5f;
    aclScalar *k = aclCreateScalar(&half, ACL_FLOAT);
    aclTensor *td = vec(d, 2);
    CHECK(aclnnMulsGetWorkspaceSize(ta, k, td, &wsize, &ex));
    CHECK(aclSetAclOpExecutorRepeatable(ex));
    launch(aclnnMuls, wsize, ex, s, &ws);
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(out, bytes, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        if (fabsf(out[i] - 0.5f * ha[i]) > 1e-6f) {
            fprintf(stderr, "foreign_ops: muls[%d] = %g\n", i, out[i]);
            return 1;
        }
    }
    CHECK(aclSetInputTensorAddr(ex, 0, ta, b));
    launch(aclnnMuls, wsize, ex, s, &ws);
    CHECK(aclDestroyAclOpExecutor(ex));

    /* sum over dim 1 of c, as 2 x 4 */
    int64_t dim1[1] = {1};
    aclIntArray *dims = aclCreateIntArray(dim1, 1);
    int64_t sdims[1] = {2}, sstr[1] = {1};
    aclTensor *tsum = aclCreateTensor(sdims, 1, ACL_FLOAT, sstr, 0, ACL_FORMAT_ND, sdims, 1, sum);
    CHECK(aclnnReduceSumGetWorkspaceSize(tc, dims, false, ACL_FLOAT, tsum, &wsize, &ex));
    launch(aclnnReduceSum, wsize, ex, s, &ws);
    CHECK(aclrtSynchronizeStream(s));

    CHECK(aclrtMemcpy(out, bytes, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        if (fabsf(out[i] - 0.5f * hb[i]) > 1e-6f) {
            fprintf(stderr, "foreign_ops: re-pointed muls[%d] = %g\n", i, out[i]);
            return 1;
        }
    }
    float sums[2];
    CHECK(aclrtMemcpy(sums, sizeof(sums), sum, sizeof(sums), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int r = 0; r < 2; r++) {
        float want = 0;
        for (int j = 0; j < 4; j++) {
            want += ha[r * 4 + j] + 2.0f * hb[r * 4 + j];
        }
        if (fabsf(sums[r] - want) > 1e-4f) {
            fprintf(stderr, "foreign_ops: sum[%d] = %g, expected %g\n", r, sums[r], want);
            return 1;
        }
    }

    CHECK(aclDestroyTensor(ta));
    CHECK(aclDestroyTensor(tb));
    CHECK(aclDestroyTensor(tc));
    CHECK(aclDestroyTensor(td));
    CHECK(aclDestroyTensor(tsum));
    CHECK(aclDestroyScalar(alpha));
    CHECK(aclDestroyScalar(k));
    CHECK(aclDestroyIntArray(dims));
    void *blocks[] = {a, b, c, d, sum, ws};
    for (int i = 0; i < 6; i++) {
        if (blocks[i]) {
            CHECK(aclrtFree(blocks[i]));
        }
    }
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("foreign_ops: every result is right\n");
    return 0;
}
