/*
 * op_dropout_gen_mask.c (libopapi.so), operators III batch ops3b:
 * aclnnDropoutGenMask and aclnnDropoutGenMaskV2, a random bit mask for
 * dropout. Parameter lists: ops-math v8.5.0 random/dsa_gen_bit_mask/
 * op_host/op_api/aclnn_dropout_gen_mask.h:29-31 and :40-42.
 *
 * Rules (aclnn_dropout_gen_mask.cpp, v8.5.0):
 * - shape, out null 161001 (:52-57); out UINT8 (:48, :59-64); prob in
 *   [0, 1] (:66-73); out of exactly align(prod(shape), 128) / 8 elements
 *   (:90-108); all 161002;
 * - an empty out succeeds and writes nothing (:287-291);
 * - prob 0 (within DBL_EPSILON) fills every byte with 0xFF, prob 1 with 0
 *   (:294-297, :340-343): a set bit keeps its element;
 * - otherwise the DSA unit's Philox generator fills align(n, 128) bits from
 *   (seed, offset) with prob rounded to f32 (V1, :171-184) or to
 *   probDataType (V2: f16, bf16 or f32, else the scalar cannot be made,
 *   561103: :145-165, :199-207, :348).
 *
 * What the mock decides (the DSA unit is hardware, not in the source): bit
 * i%8 of byte i/8 belongs to element i (LSB first, as the DropOutDoMask
 * kernel loads the bytes into a lane mask register: ops-math v8.5.0
 * random/drop_out_do_mask/op_kernel/arch35/drop_out_do_mask.h:246-253);
 * element i draws the 32-bit word number (offset + i) of the Philox4x32-10
 * stream keyed by seed (word w is lane w%4 of the block for counter
 * w/4), u = word / 2^32, and is kept when u >= prob. So the same seed and
 * offset give the same mask on every run, and offset k shifts the stream by
 * k elements. The real unit's bits differ: only the keep fraction and the
 * layout carry over.
 */
#include "op_dropout.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

bool dropout_prob_is(double prob, double v) { return fabs(prob - v) <= DBL_EPSILON; }

/* aclnn_dropout_gen_mask.cpp:49-50 */
static const int32_t DT_PROB[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, -1};
static const int32_t DT_U8[] = {ACL_UINT8, -1};

enum { IP_OUT, IP_FILL, IP_SEED, IP_OFFSET, IP_NOTHING };
enum { P_PROB };

/* Philox4x32-10 (Salmon et al., SC'11): one block of four words. */
static void philox(uint64_t counter, uint64_t key, uint32_t out[4])
{
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

static void k_gen_mask(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    const mk_view *o = &j->slot[j->ip[IP_OUT]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    if (ob && oo) {
        uint64_t key = (uint64_t)j->ip[IP_SEED], base = (uint64_t)j->ip[IP_OFFSET];
        double prob = j->p[P_PROB];
        for (int64_t b = 0; b < n; b++) {
            uint8_t byte = (uint8_t)j->ip[IP_FILL];
            if (j->ip[IP_FILL] < 0) {
                byte = 0;
                for (int bit = 0; bit < 8; bit++) {
                    uint64_t w = base + (uint64_t)(b * 8 + bit);
                    uint32_t block[4];
                    philox(w / 4, key, block);
                    double u = block[w % 4] / 4294967296.0;
                    byte |= (uint8_t)((u >= prob) << bit);
                }
            }
            mk_sti(ob, ACL_UINT8, oo[b], byte);
        }
    }
    free(oo);
}

/* The checks and executor of both versions; prob_dt -1 for V1 (f32). */
static void gen_mask(ph1 *p, const aclIntArray *shape, double prob, int64_t seed, int64_t offset, int32_t prob_dt,
                     aclTensor *out)
{
    if (!need_ints(p, shape, "shape") || !need_tensor(p, out, "out") || !check_dtype(p, out, "out", DT_U8)) {
        return;
    }
    if (prob > 1 || prob < 0 || isnan(prob)) {
        invalid(p, "prob %g must be in [0, 1]", prob);
        return;
    }
    int64_t n = 1;
    for (uint64_t i = 0; i < shape->n; i++) {
        if (shape->v[i] < 0) {
            invalid(p, "shape[%llu] = %lld is negative", (unsigned long long)i, (long long)shape->v[i]);
            return;
        }
        n *= shape->v[i];
    }
    if (numel(&out->v) != dropout_mask_bytes(n)) {
        invalid(p, "out must have %lld elements (the %lld elements of shape in bits, rounded up to 128) but has %lld",
                (long long)dropout_mask_bytes(n), (long long)n, (long long)numel(&out->v));
        return;
    }
    bool empty = numel(&out->v) == 0;
    int64_t fill = dropout_prob_is(prob, 0) ? 0xFF : dropout_prob_is(prob, 1) ? 0 : -1;
    double pr = 0;
    if (!empty && fill < 0) {
        int32_t dt = prob_dt < 0 ? ACL_FLOAT : prob_dt;
        bool ok = false;
        for (const int32_t *d = DT_PROB; *d >= 0; d++) {
            ok |= *d == dt;
        }
        if (!ok) {
            p->rc = aclmock_fail(ACLNN_ERR_INNER_NULLPTR, "%s: probDataType %s is not f16, bf16 or f32", p->op,
                                 mk_dtype_name(dt));
            return;
        }
        uint64_t tmp = 0;
        mk_stf(&tmp, dt, 0, (float)prob);
        pr = mk_ldd(&tmp, dt, 0);
    }
    if (!make_exec(p, k_gen_mask, 0)) {
        return;
    }
    p->e->job.ip[IP_NOTHING] = empty;
    if (!empty) {
        p->e->job.ip[IP_OUT] = add_out(p, out);
        p->e->job.ip[IP_FILL] = fill;
        p->e->job.ip[IP_SEED] = seed;
        p->e->job.ip[IP_OFFSET] = offset;
        p->e->job.p[P_PROB] = pr;
    }
}

OPS_EXPORT aclnnStatus aclnnDropoutGenMaskGetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed,
                                                           int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnDropoutGenMaskGetWorkspaceSize), "aclnnDropoutGenMask");
    ph1_arg_ints(&p, "shape", shape);
    ph1_arg_f64(&p, "prob", prob);
    ph1_arg_i64(&p, "seed", seed);
    ph1_arg_i64(&p, "offset", offset);
    ph1_arg_tensor(&p, "out", out);
    gen_mask(&p, shape, prob, seed, offset, -1, out);
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(DropoutGenMask)

OPS_EXPORT aclnnStatus aclnnDropoutGenMaskV2GetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed,
                                                             int64_t offset, aclDataType probDataType, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnDropoutGenMaskV2GetWorkspaceSize), "aclnnDropoutGenMaskV2");
    ph1_arg_ints(&p, "shape", shape);
    ph1_arg_f64(&p, "prob", prob);
    ph1_arg_i64(&p, "seed", seed);
    ph1_arg_i64(&p, "offset", offset);
    ph1_arg_i64(&p, "probDataType", probDataType);
    ph1_arg_tensor(&p, "out", out);
    gen_mask(&p, shape, prob, seed, offset, probDataType, out);
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(DropoutGenMaskV2)
