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
/* Whether text[0..len) is one valid JSON value (RFC 8259, nesting at most
 * 64 deep). text must be NUL-terminated at len. */
bool rj_valid(const char *text, size_t len);
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
    uint64_t t_ns; /* recorded start, 0 if absent */
    size_t rank;   /* position in the order calls started (t_ns, then seq) */
    size_t thread_ix; /* its trace thread, an index into R.threads */
    bool poll;     /* skippable: a timed-out wait (replay_poll_timeout) or any aclrtProcessReport */
    bool live;     /* run in the mock, whose result stands: aclrtProcessReport */
} rp_rec;

/* The calls of one trace thread, in order. */
typedef struct rp_thread {
    uint64_t id;
    size_t *recs; /* in the order they started */
    size_t n, cap, next;
    bool taken;  /* a live thread is bound to it */
    bool exited; /* that live thread has exited (replay_order.c) */
    uint64_t retry_since; /* a recorded success of a wait first timed out here (now_ns), 0 none */
} rp_thread;

enum rp_state_kind { RP_OFF = 0, RP_REPLAYING, RP_DIVERGED, RP_ERROR };

/* c s e p m h v (runtime), t k i f b l x (aclnn descriptors and executors),
 * comm (HCCL communicators, whose numbers depend on which rank's thread
 * initialised first) */
#define RP_KINDS 15
#define RP_KIND_COMM 14
#define RP_MAX_LINE (16u << 20) /* longest trace line read, bytes */
/* The trace format versions read (docs/trace-format.md, Versioning); the
 * writers (journal.c, record/rec_core.c) write the newest. */
#define RP_FORMAT_VERSION 2
#define RP_OLDEST_FORMAT_VERSION 1

typedef struct rp_state {
    int mode;  /* aclmockReplayMode */
    int state; /* enum rp_state_kind */
    bool from_env;
    bool sibling; /* the trace is a sibling of the one named (replay_pick.c) */
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
    /* order between threads: begun[rank] once the call of that rank started */
    bool *begun;
    size_t *by_rank;         /* rank -> record */
    size_t low;              /* every rank below has begun */
    uint64_t order_timeout_ms; /* longest wait for another thread's call */
    size_t waiting;          /* live threads waiting for their turn (replay_order.c) */
    size_t exited;           /* bound live threads that have exited */
    uint64_t stalled_since;  /* now_ns when every bound live thread was waiting, 0 if one runs */
    strbuf divergence; /* JSON object of the first divergence */
    strbuf text;       /* its human-readable form */
    char error[512];
    /* facts applied to the device model */
    int64_t fact_devices;
    uint64_t fact_hbm;
    char fact_soc[64];
} rp_state;

extern rp_state R;

/* Default of ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS. */
#define RP_ORDER_TIMEOUT_MS 20000u
/* Shortest wait for a trace thread no live thread has taken while every
 * live thread of the replay waits for its turn (replay_order.c). */
#define RP_ABSENT_GRACE_MS 1000u

/* Loads `path` (mode strict or lenient) into R, replacing what was there;
 * false with R.error set on failure (R.state is then RP_ERROR). */
bool replay_load_locked(const char *path, int mode);
/* The trace of a multi-process recording this process replays, given the
 * one named (replay_pick.c); malloc'd. NULL (with error) if two fit. */
char *replay_pick_trace(const char *named, char *error, size_t cap);
void replay_clear_locked(void);
/* Device count, HBM and SoC name from the trace, applied to G. */
void replay_apply_facts_locked(void);
/* Lenient: a successful record of c's function with the same arguments. */
const rp_rec *replay_fact_for(const mock_call *c);

/* The timeout code of a wait function (a poll), or 0 for other functions. */
int replay_poll_timeout(int fn);

/* ------------------------------------------ replay_order.c: between threads */

enum rp_turn { RP_TURN_OK, RP_TURN_LATE, RP_TURN_EXTRA, RP_TURN_STOPPED };

/* Record `rec` (an index into R.recs) has started. */
void replay_mark_begun(size_t rec);
/* Waits until every call that started before record `rec` in the recording
 * has started here: RP_TURN_LATE (reason set) when that can no longer
 * happen or the order timeout ran out, RP_TURN_EXTRA when `patience_ms` (a
 * poll in a running loop, 0 none) ran out first, RP_TURN_STOPPED when the
 * replay stopped meanwhile. */
enum rp_turn replay_wait_turn(size_t rec, uint64_t patience_ms, char *reason, size_t cap);
/* The calling live thread has taken trace thread `ix`: watch for its exit. */
void replay_thread_bound(size_t ix);

/* ------------------------------------------------- replay_match.c: values */

/* Whether a trace value and a live value are the same; symbolic ids compare
 * through the trace<->mock bijection, bound on first use when `bind`. */
bool rm_same_value(const char *trace, const char *live, bool bind);
/* The first key whose values differ, or NULL. */
const char *rm_first_difference(const rp_obj *trace, const rp_obj *live, bool bind);
/* Whether live call c is the call of record r (function and arguments),
 * binding nothing. */
bool rm_matches(const rp_rec *r, const mock_call *c);
/* Parses the members text of a live call ("k":v,...) as an object. */
bool rm_live_object(const char *body, rp_obj *out);
/* Binds the ids a call created (its out-values) to the record's. */
void rm_bind_outputs(const rp_obj *trace_out, const rp_obj *live_out);

/* ------------------------------------------------ replay_report.c: reports */

/* Records the first divergence (R.state becomes RP_DIVERGED). r is the
 * expected record (NULL: none); live_ret the live result (NULL: not run). */
void replay_diverge(const mock_call *c, const rp_rec *r, int64_t thread, size_t call, const char *reason,
                    const int *live_ret);

#endif /* ACLMOCK_INTERNAL_REPLAY_H */
