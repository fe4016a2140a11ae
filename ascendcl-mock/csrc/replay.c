/*
 * replay.c: replaying a recorded trace, call by call.
 *
 * Strict mode: every live call is matched against the next record of the
 * trace thread its thread is bound to (a live thread's first call binds it
 * to the first trace thread not taken whose first call it is, else to the
 * first not taken; a thread's records are taken in the order they started,
 * so calls a callback makes inside aclrtProcessReport come after it). The function and the arguments must be the same
 * (replay_match.c). The first difference fails the call with
 * ACLMOCK_ERROR_REPLAY_DIVERGED and is kept as the divergence report; later
 * calls behave as the plain mock does. A trace that could not be loaded
 * fails every call the same way (error queries excepted).
 *
 * Order between threads (replay_order.c): a call waits until every call
 * that started before it in the recording (on any thread; polls excepted,
 * see below) has started in the replay, so a report thread's first
 * aclrtProcessReport cannot overtake the aclrtSubscribeReport of another
 * thread it depends on. The wait ends in a divergence as soon as the awaited
 * call can no longer start (its thread exited, or never came while every
 * thread waits), and at the latest at ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS.
 *
 * Results: a recorded failure is returned as recorded (code and message)
 * without running the call, like an injected fault - except a failure that
 * changes state (failure_with_effect), which runs in the mock, must fail
 * there the same way, and has its out-values checked. A recorded success
 * runs the call in the mock, so its state stays consistent, then takes its
 * data out-values from the record.
 *
 * Polls: how often a wait with a timeout (replay_poll_timeout: report
 * processing, synchronisation with a timeout) times out, and how many
 * callbacks one aclrtProcessReport runs, depend on timing, on the card as in
 * the mock. Recorded timeouts, and every aclrtProcessReport, are polls:
 * those the program does not repeat are skipped (also at the end of a
 * thread), extra ones after a recorded poll run in the mock unrecorded, and
 * a poll inside a running loop waits for its turn at most its own timeout
 * before it runs as an extra one (so a report thread keeps serving the
 * callbacks another thread waits for). aclrtProcessReport always runs in the
 * mock, which decides its result; what it is for - every callback run - the
 * mock enforces. Recorded timeouts of a synchronisation with a timeout
 * return at once; its recorded success runs in the mock, and if the mock
 * times out (the stream is slower here), that record stays the next call
 * (the program waits again), for at most the order timeout.
 *
 * Error queries (aclGetRecentErrMsg, aclrtGetLastError,
 * aclrtPeekAtLastError) the trace does not have at that point are served by
 * the mock, which holds the recorded failure's message: an edited trace that
 * turns a call into a failure still delivers its message.
 *
 * Lenient mode: only the device facts (count, HBM, SoC) and the answers of
 * fact queries (versions, run mode, memory totals, granularity) come from
 * the trace; everything else is the plain mock.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions whose return value is data (a code, not a failure). */
static bool returns_value(int fn) { return fn == FN_aclrtGetLastError || fn == FN_aclrtPeekAtLastError; }

static bool error_query(int fn) { return fn == FN_aclGetRecentErrMsg || returns_value(fn); }

int replay_poll_timeout(int fn)
{
    switch (fn) {
    case FN_aclrtProcessReport:
        return ACL_ERROR_RT_REPORT_TIMEOUT;
    case FN_aclrtSynchronizeStreamWithTimeout:
    case FN_aclrtSynchronizeDeviceWithTimeout:
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    case FN_aclrtSynchronizeEventWithTimeout:
        return ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
    default:
        return 0;
    }
}

/* A recorded failure that still changes the runtime's state, so the mock must
 * run it. A repeated aclInit raises the reference count, then returns
 * ACL_ERROR_REPEAT_INITIALIZE (hicann/runtime v8.5.0,
 * src/acl/aclrt_impl/acl.cpp:296-299, aclInitImpl). */
static bool failure_with_effect(const rp_rec *r) { return r->fn == FN_aclInit && r->ret == ACL_ERROR_REPEAT_INITIALIZE; }

/* ----------------------------------------------------------------- order */

/* How long a poll waits for its turn (replay_order.c) before it runs as an extra poll: only
 * inside a running loop (the thread's previous record polled the same
 * function), at most the poll's own timeout (100 ms for "forever"). The
 * first poll of a loop waits its full turn: it may depend on a subscription
 * another thread makes. */
static uint64_t poll_patience(const rp_thread *th, size_t at)
{
    const rp_rec *r = &R.recs[th->recs[at]];
    if (!r->poll || !at || !R.recs[th->recs[at - 1]].poll || R.recs[th->recs[at - 1]].fn != r->fn) {
        return 0;
    }
    int64_t ms = 0;
    rj_i64(rj_get(&r->args, "timeout"), &ms);
    uint64_t p = ms > 0 ? (uint64_t)ms : 100;
    return p < R.order_timeout_ms ? p : R.order_timeout_ms;
}

/* ------------------------------------------------------------- matching */

/* The record of thread th the live call stands for: the next one, or the
 * next after recorded timeouts of a poll the program did not repeat (these
 * are skipped). SIZE_MAX if none matches. */
static size_t next_match(rp_thread *th, const mock_call *c, size_t *skip)
{
    size_t i = th->next;
    *skip = 0;
    while (i < th->n) {
        const rp_rec *r = &R.recs[th->recs[i]];
        if (rm_matches(r, c)) {
            return i;
        }
        if (!r->poll) {
            break;
        }
        i++;
        (*skip)++;
    }
    *skip = 0;
    return SIZE_MAX;
}

/* The previous record of th if the live call repeats it and it is a
 * recorded timeout of a poll; else NULL. */
static const rp_rec *repeated_poll(const rp_thread *th, const mock_call *c)
{
    if (!th->next) {
        return NULL;
    }
    const rp_rec *p = &R.recs[th->recs[th->next - 1]];
    return p->poll && rm_matches(p, c) ? p : NULL;
}

static void describe_mismatch(const rp_rec *r, const mock_call *c, char *reason, size_t cap)
{
    if (r->fn != c->fn) {
        snprintf(reason, cap, "different function: the trace called %s, the program %s", r->fn_name,
                 mock_fn_names[c->fn]);
        return;
    }
    rp_obj live;
    if (!rm_live_object(jb_str(&c->args), &live)) {
        snprintf(reason, cap, "the live arguments could not be read");
        return;
    }
    const char *key = rm_first_difference(&r->args, &live, true);
    if (key) {
        const char *tv = rj_get(&r->args, key), *lv = rj_get(&live, key);
        snprintf(reason, cap, "different argument %s: trace %s, program %s", key, tv ? tv : "(absent)",
                 lv ? lv : "(absent)");
    }
    rj_free(&live);
}

static void fail_diverged(const mock_call *c, aclError *code, const char *reason)
{
    *code = ACLMOCK_ERROR_REPLAY_DIVERGED;
    fail(*code, "aclmock replay diverged from %s: %s (see aclmockReplayStatus)", R.path ? R.path : "?", reason);
}

/* A live thread's first call binds it to a trace thread not taken yet: the
 * first whose first call is this one, else the first in trace order. -1 if
 * every trace thread is taken. */
static int64_t bind_thread(const mock_call *c)
{
    int64_t pick = -1;
    for (size_t i = 0; i < R.nthreads; i++) {
        const rp_thread *th = &R.threads[i];
        if (th->taken) {
            continue;
        }
        if (th->n && rm_matches(&R.recs[th->recs[0]], c)) {
            pick = (int64_t)i;
            break;
        }
        if (pick < 0) {
            pick = (int64_t)i;
        }
    }
    if (pick >= 0) {
        R.threads[pick].taken = true;
        R.bound++;
        replay_thread_bound((size_t)pick);
    }
    return pick;
}

/* ----------------------------------------------------------------- hooks */

bool replay_begin_locked(mock_call *c, aclError *code)
{
    if (R.mode != ACLMOCK_REPLAY_STRICT) {
        return false;
    }
    if (R.state == RP_ERROR && !error_query(c->fn)) {
        char reason[600];
        snprintf(reason, sizeof(reason), "the trace could not be loaded: %s", R.error);
        fail_diverged(c, code, reason);
        return true;
    }
    if (R.state != RP_REPLAYING) {
        return false;
    }
    mock_tls *t = tls();
    if (t->rp_gen != R.gen) {
        t->rp_gen = R.gen;
        t->rp_thread = bind_thread(c);
    }
    rp_thread *th = t->rp_thread >= 0 ? &R.threads[t->rp_thread] : NULL;
    char reason[700] = "";
    size_t skip = 0, at = th ? next_match(th, c, &skip) : SIZE_MAX;
    if (th && at == SIZE_MAX && (repeated_poll(th, c) || error_query(c->fn))) {
        return false; /* an extra poll, or a query of the error a recorded failure set */
    }
    const rp_rec *r = NULL;
    if (!th) {
        snprintf(reason, sizeof(reason), "a new thread called, but all %zu threads of the trace are taken",
                 R.nthreads);
    } else if (th->next >= th->n) {
        snprintf(reason, sizeof(reason), "trace thread %llu has no more calls (it made %zu)",
                 (unsigned long long)th->id, th->n);
    } else if (at == SIZE_MAX) {
        r = &R.recs[th->recs[th->next]];
        describe_mismatch(r, c, reason, sizeof(reason));
        if (!reason[0]) {
            snprintf(reason, sizeof(reason), "the call does not match the trace");
        }
    } else {
        for (size_t i = th->next; i < at; i++) {
            replay_mark_begun(th->recs[i]); /* polls the program did not repeat */
            R.matched++;
        }
        th->next = at;
        r = &R.recs[th->recs[at]];
        enum rp_turn turn = replay_wait_turn(th->recs[at], poll_patience(th, at), reason, sizeof(reason));
        if (turn == RP_TURN_EXTRA || turn == RP_TURN_STOPPED) {
            return false; /* an extra poll; or the replay stopped (diverged elsewhere, reloaded) */
        }
        if (!reason[0]) {
            /* binds the ids seen first here; a conflict found only now
             * (one trace id for two live ones) is a difference */
            describe_mismatch(r, c, reason, sizeof(reason));
        }
    }
    if (reason[0]) {
        int64_t tid = th ? (int64_t)th->id : -1;
        replay_diverge(c, r, tid, th ? th->next + 1 : 0, reason, NULL);
        fail_diverged(c, code, reason);
        return true;
    }
    size_t rec = th->recs[th->next];
    c->rp_rec = (int64_t)rec;
    th->next++;
    R.matched++;
    replay_mark_begun(rec);
    if (r->live) {
        c->rp_live = true; /* the mock decides: timing */
        return false;
    }
    if (r->ret != ACL_SUCCESS && !returns_value(c->fn) && !failure_with_effect(r)) {
        if (r->msg) {
            fail_verbatim(r->ret, r->msg);
        } else {
            t->last_error = r->ret; /* the card gave no text */
        }
        *code = r->ret;
        return true;
    }
    c->rp_check = r->ret != ACL_SUCCESS;
    return false;
}

/* A recorded success of a synchronisation with a timeout timed out in the
 * mock (the replay got there sooner: recorded timeouts return at once): the
 * record stays the next call, the program sees the timeout and waits again,
 * for at most the order timeout. */
static bool retry_wait(mock_call *c, const rp_rec *r, aclError rc)
{
    int64_t ti = tls()->rp_thread;
    if (ti < 0 || r->ret != ACL_SUCCESS || !rc || rc != replay_poll_timeout(c->fn)) {
        return false;
    }
    rp_thread *th = &R.threads[ti];
    uint64_t now = now_ns();
    if (!th->retry_since) {
        th->retry_since = now;
    }
    if (now - th->retry_since > R.order_timeout_ms * 1000000ULL) {
        return false;
    }
    th->next--;
    R.matched--;
    return true;
}

/* A failure with effect ran in the mock: same code, same out-values; the
 * program gets the recorded message. */
static void check_failure(mock_call *c, const rp_rec *r, aclError *rc)
{
    int64_t ti = tls()->rp_thread;
    size_t call = ti >= 0 ? R.threads[ti].next : 0;
    char reason[400] = "";
    if (*rc != r->ret) {
        snprintf(reason, sizeof(reason), "the call failed in the trace with %d but returned %d in the mock", r->ret,
                 *rc);
    } else {
        rp_obj live;
        if (rm_live_object(jb_str(&c->out), &live)) {
            const char *key = rm_first_difference(&r->out, &live, true);
            if (key) {
                const char *tv = rj_get(&r->out, key), *lv = rj_get(&live, key);
                snprintf(reason, sizeof(reason), "different out-value %s: trace %s, mock %s", key,
                         tv ? tv : "(absent)", lv ? lv : "(absent)");
            }
            rj_free(&live);
        }
    }
    if (reason[0]) {
        replay_diverge(c, r, (int64_t)r->thread, call, reason, rc);
        return;
    }
    mock_tls *t = tls();
    if (r->msg && t->msg_len >= c->msg_len0) {
        t->msg_len = c->msg_len0; /* the card's text, not the mock's */
        t->msg[t->msg_len] = '\0';
        fail_verbatim(r->ret, r->msg);
    }
}

void replay_end_locked(mock_call *c, aclError *rc)
{
    const rp_rec *r = &R.recs[c->rp_rec];
    if (c->faulted || (c->rp_live && *rc != ACL_SUCCESS)) {
        return;
    }
    if (returns_value(c->fn)) {
        *rc = r->ret;
        return;
    }
    if (c->rp_check) {
        check_failure(c, r, rc);
        return;
    }
    if (*rc != ACL_SUCCESS) {
        if (retry_wait(c, r, *rc)) {
            return;
        }
        if (R.state == RP_REPLAYING) {
            char reason[200];
            snprintf(reason, sizeof(reason), "the call succeeded in the trace but failed in the mock with %d", *rc);
            int64_t thread = tls()->rp_thread;
            replay_diverge(c, r, (int64_t)r->thread, thread >= 0 ? R.threads[thread].next : 0, reason, rc);
        }
        return;
    }
    int64_t ti = tls()->rp_thread;
    if (ti >= 0) {
        R.threads[ti].retry_since = 0;
    }
    rp_obj live;
    if (!rm_live_object(jb_str(&c->out), &live)) {
        return;
    }
    rm_bind_outputs(&r->out, &live);
    rj_free(&live);
}

/* ------------------------------------------------------------ out-values */

/* Lenient aclrtGetMemInfo: the total from the trace, free memory the mock's
 * own - but never more than that total. */
static bool lenient_free(mock_call *c, uint64_t *v)
{
    const rp_rec *r = replay_fact_for(c);
    uint64_t total = 0;
    if (r && rj_u64(rj_get(&r->out, "total"), &total) && *v > total) {
        *v = total;
        return true;
    }
    return false;
}

static const char *out_raw(mock_call *c, const char *key)
{
    if (R.state == RP_ERROR) {
        return NULL;
    }
    if (R.mode == ACLMOCK_REPLAY_STRICT) {
        return c->rp_rec >= 0 && !c->rp_check && !c->rp_live ? rj_get(&R.recs[c->rp_rec].out, key) : NULL;
    }
    if (R.mode != ACLMOCK_REPLAY_LENIENT) {
        return NULL;
    }
    if (c->fn == FN_aclrtGetMemInfo && strcmp(key, "total") != 0) {
        return NULL; /* free memory is the mock's own */
    }
    const rp_rec *r = replay_fact_for(c);
    return r ? rj_get(&r->out, key) : NULL;
}

bool replay_out_i64(mock_call *c, const char *key, int64_t *v) { return rj_i64(out_raw(c, key), v); }

bool replay_out_u64(mock_call *c, const char *key, uint64_t *v)
{
    if (R.mode == ACLMOCK_REPLAY_LENIENT && R.state != RP_ERROR && c->fn == FN_aclrtGetMemInfo &&
        strcmp(key, "free") == 0) {
        return lenient_free(c, v);
    }
    return rj_u64(out_raw(c, key), v);
}

bool replay_out_f64(mock_call *c, const char *key, double *v) { return rj_f64(out_raw(c, key), v); }

bool replay_out_str(mock_call *c, const char *key, const char **s)
{
    /* strings live in the record's raw text; unescape into a per-thread copy */
    static __thread char *buf;
    const char *raw = out_raw(c, key);
    if (!raw) {
        return false;
    }
    free(buf);
    buf = rj_string(raw);
    *s = buf;
    return true;
}
