/*
 * op_matmul_check.c (libopapi.so): a test hook, not a CANN function, that
 * runs the threaded matmul core (mm_mt, op_matmul_kernel.c) and the
 * sequential reference (mm_ref) on the same random operands and counts the
 * output elements whose bits differ (ascendcl-mock/tests/ops2_matmul_threads.rs).
 */
#include "op_internal.h"
#include "op_matmul_kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The hook's layout flags. */
enum {
    MMF_A_T = 1,       /* a stored [k][m] per batch (a transposed view) */
    MMF_B_T = 2,       /* b stored [n][k] per batch */
    MMF_A_BCAST = 4,   /* one a for every batch (stride 0) */
    MMF_B_BCAST = 8,   /* one b for every batch */
    MMF_SELF = 16,     /* addmm: self a row of n broadcast over m, in dtypes[3] */
    MMF_INPLACE = 32,  /* addmm in place: self is out (one batch) */
    MMF_OUT_T = 64,    /* out stored [n][m] per batch */
};

static size_t esize(int32_t dt) { return dt == ACL_FLOAT ? 4 : 2; }

/* Signed values over 2^-10..2^10 (xorshift from seed), so the order of a
 * float sum shows in its low bits. */
static void fill(void *buf, int32_t dt, int64_t n, uint64_t *seed)
{
    for (int64_t e = 0; e < n; e++) {
        uint64_t x = *seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *seed = x;
        float m = 1.0f + (float)(x >> 40) / 16777216.0f; /* [1, 2) */
        mk_stf(buf, dt, e, ldexpf(x & 1 ? -m : m, (int)((x >> 3) % 21) - 10));
    }
}

/* Test hook (not a CANN function): shape = {batches, m, n, k}, dtypes =
 * {a, b, out, self} (ACL dtype codes of f32, f16, bf16), flags MMF_*,
 * alpha and beta as addmm's; runs mm_mt on `threads` threads and mm_ref from
 * the same random out contents. Returns the number of out elements that
 * differ in any bit, -1 on host OOM, -2 for a bad request. */
OPS_EXPORT int64_t aclmockop_matmul_kernels_differ(const int64_t *shape, const int32_t *dtypes, int32_t flags,
                                                   float alpha, float beta, int threads, uint64_t seed)
{
    int64_t nb = shape[0], m = shape[1], n = shape[2], k = shape[3];
    bool self = flags & (MMF_SELF | MMF_INPLACE), inplace = flags & MMF_INPLACE;
    if (nb < 1 || m < 0 || n < 0 || k < 0 || (inplace && nb != 1)) {
        return -2;
    }
    int64_t na = (flags & MMF_A_BCAST ? 1 : nb) * m * k + 1, nbe = (flags & MMF_B_BCAST ? 1 : nb) * k * n + 1;
    int64_t no = nb * m * n;
    size_t sa = esize(dtypes[0]), sb = esize(dtypes[1]), so = esize(dtypes[2]), ss = esize(dtypes[3]);
    char *mem = malloc((size_t)na * sa + (size_t)nbe * sb + 2 * (size_t)no * so + (size_t)n * ss + 1);
    int64_t *offs = malloc((size_t)(3 * nb + m * n + 1) * sizeof(int64_t));
    if (!mem || !offs) {
        free(mem);
        free(offs);
        return -1;
    }
    void *a = mem, *b = mem + (size_t)na * sa, *ref = (char *)b + (size_t)nbe * sb;
    void *fast = (char *)ref + (size_t)no * so, *sv = (char *)fast + (size_t)no * so;
    seed |= 1;
    fill(a, dtypes[0], na, &seed);
    fill(b, dtypes[1], nbe, &seed);
    fill(ref, dtypes[2], no, &seed);
    fill(sv, dtypes[3], n, &seed);
    memcpy(fast, ref, (size_t)no * so);
    mm_args x = {.a = a, .b = b, .adt = dtypes[0], .bdt = dtypes[1], .odt = dtypes[2], .nb = nb, .m = m, .n = n,
                 .k = k, .has_self = self, .alpha = alpha, .beta = beta};
    x.offa = offs;
    x.offb = offs + nb;
    x.offo = offs + 2 * nb;
    int64_t *so_ = offs + 3 * nb;
    for (int64_t bi = 0; bi < nb; bi++) {
        /* a and b start one element in, as a view with an offset */
        offs[bi] = (flags & MMF_A_BCAST ? 0 : bi) * m * k + 1;
        offs[nb + bi] = (flags & MMF_B_BCAST ? 0 : bi) * k * n + 1;
        offs[2 * nb + bi] = bi * m * n;
    }
    x.sam = flags & MMF_A_T ? 1 : k;
    x.sak = flags & MMF_A_T ? m : 1;
    x.sbk = flags & MMF_B_T ? 1 : n;
    x.sbn = flags & MMF_B_T ? k : 1;
    x.som = flags & MMF_OUT_T ? 1 : n;
    x.son = flags & MMF_OUT_T ? m : 1;
    for (int64_t i = 0; i < m; i++) {
        for (int64_t c = 0; c < n; c++) {
            so_[i * n + c] = inplace ? i * x.som + c * x.son : c;
        }
    }
    if (self) {
        x.offs = so_;
        x.sdt = inplace ? dtypes[2] : dtypes[3];
    }
    x.out = ref;
    x.self = inplace ? ref : sv;
    mm_ref(&x);
    x.out = fast;
    x.self = inplace ? fast : sv;
    int64_t differ = -1;
    if (mm_mt(&x, threads)) {
        differ = 0;
        for (int64_t e = 0; e < no; e++) {
            differ += memcmp((char *)ref + e * so, (char *)fast + e * so, so) != 0;
        }
    }
    free(mem);
    free(offs);
    return differ;
}
