/*
 * replay.h: internal types of trace replay (replay_json.c, replay_load.c,
 * replay.c). The trace format is documented in docs/trace-format.md.
 */
#ifndef ACLMOCK_INTERNAL_REPLAY_H
#define ACLMOCK_INTERNAL_REPLAY_H

#include "mock.h"

/* ------------------------------------------------------- flat JSON objects */

/* One member of a JSON object: its key and the raw JSON text of its value
 * (strings keep their quotes and escapes; nested objects stay text). */
typedef struct rp_kv {
    char *key;
    char *raw;
} rp_kv;

typedef struct rp_obj {
    rp_kv *kv;
    size_t n;
} rp_obj;

/* Parses the object in text[0..len). False (and *out empty) if malformed. */
bool rj_object(const char *text, size_t len, rp_obj *out);
void rj_free(rp_obj *o);
/* The raw value of `key`, or NULL. */
const char *rj_get(const rp_obj *o, const char *key);
/* A raw JSON string, unescaped (malloc'd); NULL for null or a non-string. */
char *rj_string(const char *raw);
bool rj_u64(const char *raw, uint64_t *v);
bool rj_i64(const char *raw, int64_t *v);
bool rj_f64(const char *raw, double *v);

/* ------------------------------------------------------------ the trace */

typedef struct rp_rec {
    uint64_t seq, thread;
    int fn; /* enum mock_fn, -1 for a function the mock does not have */
    char *fn_name;
    int ret;
    rp_obj args, out;
    char *args_raw; /* "{...}", for reports */
    bool has_msg;
    char *msg; /* unescaped "msg" of a failing call, NULL if none */
} rp_rec;

/* The calls of one trace thread, in order. */
typedef struct rp_thread {
    uint64_t id;
    size_t *recs;
    size_t n, cap, next;
} rp_thread;

enum rp_state_kind { RP_OFF = 0, RP_REPLAYING, RP_DIVERGED, RP_ERROR };

#define RP_KINDS 7 /* c s e p m h v */

typedef struct rp_state {
    int mode;  /* aclmockReplayMode */
    int state; /* enum rp_state_kind */
    bool from_env;
    uint64_t gen; /* bumped by every load: threads re-bind */
    char *path;
    char *header; /* the header line, or NULL */
    rp_rec *recs;
    size_t nrecs, caprecs;
    rp_thread *threads;
    size_t nthreads, bound;
    size_t *facts; /* lenient: successful records of fact functions */
    size_t nfacts;
    ptrmap fwd[RP_KINDS]; /* trace id + 2 -> live id */
    ptrmap rev[RP_KINDS]; /* live id + 2 -> trace id */
    uint64_t matched;
    strbuf divergence; /* JSON object of the first divergence */
    strbuf text;       /* its human-readable form */
    char error[512];
    /* facts applied to the device model */
    int64_t fact_devices;
    uint64_t fact_hbm;
    char fact_soc[64];
} rp_state;

extern rp_state R;

/* Loads `path` (mode strict or lenient) into R, replacing what was there;
 * false with R.error set on failure (R.state is then RP_ERROR). */
bool replay_load_locked(const char *path, int mode);
void replay_clear_locked(void);
/* Device count, HBM and SoC name from the trace, applied to G. */
void replay_apply_facts_locked(void);
/* Lenient: a successful record of c's function with the same arguments. */
const rp_rec *replay_fact_for(const mock_call *c);

#endif /* ACLMOCK_INTERNAL_REPLAY_H */
