/* op_flash_attention.h: what aclnnFlashAttentionScore and its grad share
 * (op_flash_attention.c, op_flash_attention_grad.c; operators III, batch
 * `attention`). Sources: hicann/ops-transformer, no tags, commit c29bc106
 * (2025-11-15), under attention/flash_attention_score/ ("aclnn.cpp" below is
 * op_host/op_api/aclnn_flash_attention_score.cpp, "tiling.cpp"
 * op_host/flash_attention_score_tiling_general.cpp, "infershape.cpp"
 * op_host/flash_attention_score_infershape.cpp, "doc" docs/aclnnFlashAttentionScore.md). */
#ifndef ACLMOCK_OPS_OP_FLASH_ATTENTION_H
#define ACLMOCK_OPS_OP_FLASH_ATTENTION_H

#include "op_internal.h"

enum { FA_BSH, FA_SBH, FA_BSND, FA_BNSD };

/* How the kernel decides that score (i, j) is masked. */
enum {
    FA_MASK_NONE,     /* no attenMask: every score (doc:400, tiling.cpp:799-801) */
    FA_MASK_DENSE,    /* sparseMode 0/1: attenMask[.., i, j] (0/1 also the pre/next band) */
    FA_MASK_COMPRESS, /* sparseMode 2/3: the 2048x2048 compressed triangle, looked up by j - i */
};

/* The axes and the sparse setup of one call, as the job keeps them. */
typedef struct fa_geom {
    int64_t layout, b, n1, n2, s1, s2, d, dv;
    int64_t mask_kind;
    int64_t mask_b, mask_n; /* attenMask's B and N extents (1: broadcast) */
    int64_t pre, next;      /* band, left-up origin (FA_MASK_DENSE) */
    int64_t diag;           /* FA_MASK_COMPRESS: the diagonal's offset (S2 - S1 for rightDownCausal) */
    int64_t invalid_line;   /* fully masked rows give 0 (innerPrecise 2 or the band rule) */
    double scale;           /* scaleValue as the kernel gets it: a float attribute */
} fa_geom;

/* Number of job params a geometry takes (stored from index 0 of ip[]/p[]). */
#define FA_GEOM_IP 15

/* Reads layout, axes, dtypes, attenMask, sparseMode, preTokens/nextTokens,
 * innerPrecise and keepProb and refuses what the real op refuses (each rule
 * cited in op_flash_attention.c) or what the mock does not emulate.
 * `dq_like`/`dk_like`/`dv_like` name the tensors shaped as query/key/value in
 * messages. */
bool fa_analyze(ph1 *p, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                const aclTensor *attenMask, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
                int64_t headNum, const char *inputLayout, int64_t innerPrecise, int64_t sparseMode, fa_geom *g);
/* The [B, N1, S1, 8] f32 shape of softmaxMax/softmaxSum (infershape.cpp:100-107, :161-163). */
bool fa_check_stat(ph1 *p, const aclTensor *t, const char *name, const fa_geom *g);
/* The attention output's shape: query's with value's head dim (infershape.cpp:119-150). */
void fa_out_shape(const aclTensor *query, const fa_geom *g, int64_t *dims);

void fa_put(mk_job *j, const fa_geom *g);
void fa_get(const mk_job *j, fa_geom *g);

/* Element offset of (batch, head, seq, dim) in a q/k/v-like view whose head dim is hd. */
int64_t fa_off(const mk_view *v, int64_t layout, int64_t hd, int64_t b, int64_t n, int64_t s, int64_t d);
/* Is score (i, j) of (batch b, query head n) masked? mask/mb: the attenMask slot (NULL when none). */
bool fa_masked(const fa_geom *g, const mk_view *mask, const void *mb, int64_t b, int64_t n, int64_t i, int64_t j);
/* The masked score: -FLT_MAX (flash_attention_score_common.h:58, NEGATIVE_MIN_VAULE_FP32 0xFF7FFFFF). */
double fa_masked_score(void);

#endif
