/*
 * comm_reduce.c: element types and the reductions of the hub.
 *
 * Accepted types: those of hcomm's parameter check, HCCL_SUPPORT_DATA_TYPE in
 * hccl src/common/param_check.cc:63-77 (int8..uint64, fp16, fp32, fp64,
 * bf16, int128); anything else is HCCL_E_NOT_SUPPORT (:101-108). int128
 * moves but does not reduce in the mock (no C type for it on every target;
 * see docs/mock-conformance.md). What reduces is what hcomm's checks let
 * through on an Ascend 910B (comm_check.c): int8, int16, int32, int64, fp16,
 * fp32, bf16; unsigned integers and fp64 are refused at the call.
 *
 * Reductions run in rank order (rank 0's value, then rank 1's, ...), so the
 * result is deterministic and the same bits reach every rank. Integers wrap
 * on overflow (two's complement, computed unsigned). f16 and bf16 are
 * widened to f32, reduced in f32 across all ranks, and rounded once per
 * element to nearest even. f32 reduces in its own precision.
 */
#include "hccl_mock.h"

#include <string.h>

size_t hm_dtype_size(int32_t dt)
{
    switch (dt) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
        return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
        return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32:
        return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64:
        return 8;
    case HCCL_DATA_TYPE_INT128:
        return 16;
    default:
        return 0;
    }
}

bool hm_dtype_valid(int32_t dt) { return hm_dtype_size(dt) != 0; }

bool hm_op_valid(int32_t op) { return op >= HCCL_REDUCE_SUM && op <= HCCL_REDUCE_MIN; }

bool hm_can_reduce(int32_t dt)
{
    switch (dt) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_FP32:
    case HCCL_DATA_TYPE_BFP16: return true;
    default: return false;
    }
}

const char *hm_dtype_name(int32_t dt)
{
    switch (dt) {
    case HCCL_DATA_TYPE_INT8: return "int8";
    case HCCL_DATA_TYPE_INT16: return "int16";
    case HCCL_DATA_TYPE_INT32: return "int32";
    case HCCL_DATA_TYPE_FP16: return "fp16";
    case HCCL_DATA_TYPE_FP32: return "fp32";
    case HCCL_DATA_TYPE_INT64: return "int64";
    case HCCL_DATA_TYPE_UINT64: return "uint64";
    case HCCL_DATA_TYPE_UINT8: return "uint8";
    case HCCL_DATA_TYPE_UINT16: return "uint16";
    case HCCL_DATA_TYPE_UINT32: return "uint32";
    case HCCL_DATA_TYPE_FP64: return "fp64";
    case HCCL_DATA_TYPE_BFP16: return "bfp16";
    case HCCL_DATA_TYPE_INT128: return "int128";
    default: return "unknown";
    }
}

const char *hm_kind_name(uint32_t kind)
{
    static const char *const names[] = {"?", "AllReduce", "Broadcast", "AllGather", "ReduceScatter",
                                        "Reduce", "Scatter", "Barrier", "AlltoAll", "AlltoAllV",
                                        "AllGatherV", "ReduceScatterV", "Send", "Recv", "BatchSendRecv"};
    return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* Integer reductions, on the unsigned type of the same width for SUM and
 * PROD (wrapping, no undefined overflow), on T for MAX and MIN. */
#define RED_INT(T, U)                                                                                           \
    do {                                                                                                        \
        T *a = acc;                                                                                             \
        const T *s = src;                                                                                       \
        for (uint64_t i = 0; i < count; i++) {                                                                  \
            switch (op) {                                                                                       \
            case HCCL_REDUCE_SUM: a[i] = (T)(U)((U)a[i] + (U)s[i]); break;                                      \
            case HCCL_REDUCE_PROD: a[i] = (T)(U)((U)a[i] * (U)s[i]); break;                                     \
            case HCCL_REDUCE_MAX: a[i] = s[i] > a[i] ? s[i] : a[i]; break;                                      \
            default: a[i] = s[i] < a[i] ? s[i] : a[i]; break;                                                   \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

/* Floating reductions; MAX/MIN keep a NaN of either side (a NaN compares
 * false, so the accumulated NaN stays, and a new NaN is taken explicitly). */
#define RED_FLT(T)                                                                                              \
    do {                                                                                                        \
        T *a = acc;                                                                                             \
        const T *s = src;                                                                                       \
        for (uint64_t i = 0; i < count; i++) {                                                                  \
            switch (op) {                                                                                       \
            case HCCL_REDUCE_SUM: a[i] = a[i] + s[i]; break;                                                    \
            case HCCL_REDUCE_PROD: a[i] = a[i] * s[i]; break;                                                   \
            case HCCL_REDUCE_MAX: a[i] = (s[i] != s[i] || s[i] > a[i]) ? s[i] : a[i]; break;                    \
            default: a[i] = (s[i] != s[i] || s[i] < a[i]) ? s[i] : a[i]; break;                                 \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

void hm_reduce_into(int32_t dt, int32_t op, void *acc, const void *src, uint64_t count)
{
    switch (dt) {
    case HCCL_DATA_TYPE_INT8: RED_INT(int8_t, uint8_t); break;
    case HCCL_DATA_TYPE_INT16: RED_INT(int16_t, uint16_t); break;
    case HCCL_DATA_TYPE_INT32: RED_INT(int32_t, uint32_t); break;
    case HCCL_DATA_TYPE_INT64: RED_INT(int64_t, uint64_t); break;
    case HCCL_DATA_TYPE_FP32: RED_FLT(float); break;
    default: break;
    }
}

void hm_reduce_n(int32_t dt, int32_t op, void *out, const void *const *in, uint32_t n, uint64_t count)
{
    size_t es = hm_dtype_size(dt);
    if (!n || !count) {
        return;
    }
    if (dt == HCCL_DATA_TYPE_FP16 || dt == HCCL_DATA_TYPE_BFP16) {
        bool half = dt == HCCL_DATA_TYPE_FP16;
        uint16_t *o = out;
        /* a block of f32 accumulators at a time */
        enum { BLOCK = 1024 };
        float acc[BLOCK], src[BLOCK];
        for (uint64_t base = 0; base < count; base += BLOCK) {
            uint64_t m = count - base < BLOCK ? count - base : BLOCK;
            for (uint32_t r = 0; r < n; r++) {
                const uint16_t *x = (const uint16_t *)in[r] + base;
                float *dst = r == 0 ? acc : src;
                for (uint64_t i = 0; i < m; i++) {
                    dst[i] = half ? mk_f16_to_f32(x[i]) : mk_bf16_to_f32(x[i]);
                }
                if (r > 0) {
                    hm_reduce_into(HCCL_DATA_TYPE_FP32, op, acc, src, m);
                }
            }
            for (uint64_t i = 0; i < m; i++) {
                o[base + i] = half ? mk_f32_to_f16(acc[i]) : mk_f32_to_bf16(acc[i]);
            }
        }
        return;
    }
    if (out != in[0]) {
        memcpy(out, in[0], count * es);
    }
    for (uint32_t r = 1; r < n; r++) {
        hm_reduce_into(dt, op, out, in[r], count);
    }
}
