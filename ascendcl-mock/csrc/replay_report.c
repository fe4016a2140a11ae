/*
 * replay_report.c: what a replay tells: the first divergence (JSON and
 * text), the status (aclmockReplayStatus), loading from the environment, and
 * the verdict at exit.
 *
 * A replay started by ASCENDCL_MOCK_REPLAY that failed - the trace could not
 * be loaded, a call diverged, or (strict) the program made fewer calls than
 * the trace - makes the process fail: the report goes to stderr at exit and
 * the process ends with status ACLMOCK_REPLAY_FAILED_EXIT (86) whatever status it chose,
 * so a CI job running a replay cannot pass when the replay failed.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ divergence */

static void quoted(strbuf *b, const char *s)
{
    jbuf q;
    jb_init(&q);
    jb_quote(&q, s);
    sb_append(b, jb_str(&q), q.len);
    jb_free(&q);
}

static void side_json(strbuf *b, const char *fn, const char *args, const int *ret, const char *msg)
{
    sb_append(b, "{\"fn\":", 6);
    quoted(b, fn);
    sb_printf(b, ",\"args\":%s", args);
    if (ret) {
        sb_printf(b, ",\"ret\":%d", *ret);
    }
    if (msg) {
        sb_append(b, ",\"msg\":", 7);
        quoted(b, msg);
    }
    sb_append(b, "}", 1);
}

void replay_diverge(const mock_call *c, const rp_rec *r, int64_t thread, size_t call, const char *reason,
                    const int *live_ret)
{
    if (R.state != RP_REPLAYING) {
        return; /* the first divergence is the one reported */
    }
    R.state = RP_DIVERGED;
    jbuf la;
    jb_init(&la);
    jb_printf(&la, "{%s}", jb_str(&c->args));
    const char *live_args = jb_str(&la);
    const char *live_msg = live_ret && *live_ret && tls()->fail_seq != c->fail_seq0 ? tls()->last_fail : NULL;
    strbuf *d = &R.divergence;
    sb_printf(d, "{\"seq\":%llu,\"thread\":%lld,\"call\":%zu,\"reason\":", (unsigned long long)(r ? r->seq : 0),
              (long long)thread, call);
    quoted(d, reason);
    sb_append(d, ",\"expected\":", 12);
    if (r) {
        side_json(d, r->fn_name, r->args_raw, &r->ret, r->msg);
    } else {
        sb_append(d, "null", 4);
    }
    sb_append(d, ",\"actual\":", 10);
    side_json(d, mock_fn_names[c->fn], live_args, live_ret, live_msg);
    sb_append(d, "}", 1);

    strbuf *t = &R.text;
    if (r) {
        sb_printf(t, "strict replay of %s diverged at trace seq %llu (trace thread %lld, its call %zu): %s\n",
                  R.path, (unsigned long long)r->seq, (long long)thread, call, reason);
        sb_printf(t, "  expected: %s %s -> %d\n", r->fn_name, r->args_raw, r->ret);
    } else {
        sb_printf(t, "strict replay of %s diverged after %llu matched calls: %s\n", R.path,
                  (unsigned long long)R.matched, reason);
        sb_printf(t, "  expected: (no call)\n");
    }
    if (live_ret) {
        sb_printf(t, "  actual:   %s %s -> %d%s%s", mock_fn_names[c->fn], live_args, *live_ret,
                  live_msg ? ": " : "", live_msg ? live_msg : "");
    } else {
        sb_printf(t, "  actual:   %s %s", mock_fn_names[c->fn], live_args);
    }
    if (R.from_env) {
        fprintf(stderr, "aclmock: %s\n", R.text.s);
    }
    jb_free(&la);
    mock_broadcast(); /* threads waiting for their turn give up */
}

/* ---------------------------------------------------------------- status */

/* Calls of the trace not made yet; a thread's trailing polls (see replay.c)
 * are not missing: the program polled fewer times. */
static size_t remaining_calls(size_t *next)
{
    size_t remaining = 0;
    *next = SIZE_MAX;
    for (size_t i = 0; i < R.nthreads; i++) {
        const rp_thread *t = &R.threads[i];
        size_t end = t->n;
        while (end > t->next && R.recs[t->recs[end - 1]].poll) {
            end--;
        }
        if (end == t->next) {
            continue;
        }
        remaining += t->n - t->next;
        if (t->next < t->n && R.recs[t->recs[t->next]].rank < (*next == SIZE_MAX ? SIZE_MAX : R.recs[*next].rank)) {
            *next = t->recs[t->next];
        }
    }
    return remaining;
}

/* Whether a replay failed: it could not load, it diverged, or (strict) the
 * program did not make every call of the trace. */
static bool replay_failed(void)
{
    size_t next;
    size_t remaining = remaining_calls(&next);
    return R.mode != ACLMOCK_REPLAY_OFF &&
           (R.state == RP_ERROR || R.state == RP_DIVERGED || (R.mode == ACLMOCK_REPLAY_STRICT && remaining));
}

static void status_json(strbuf *b)
{
    static const char *const modes[] = {"off", "strict", "lenient"};
    size_t next;
    size_t remaining = remaining_calls(&next);
    const char *state = "off";
    if (R.mode != ACLMOCK_REPLAY_OFF) {
        state = R.state == RP_ERROR      ? "error"
                : R.state == RP_DIVERGED ? "diverged"
                : R.mode == ACLMOCK_REPLAY_STRICT && remaining == 0 ? "complete"
                                                                     : "replaying";
    }
    int mode = R.mode >= 0 && R.mode <= 2 ? R.mode : 0;
    sb_printf(b, "{\"mode\":\"%s\",\"trace\":", modes[mode]);
    if (R.path) {
        quoted(b, R.path);
    } else {
        sb_append(b, "null", 4);
    }
    sb_printf(b, ",\"state\":\"%s\",\"matched\":%llu,\"calls\":%zu,\"remaining\":%zu", state,
              (unsigned long long)R.matched, R.nrecs, remaining);
    if (next != SIZE_MAX && R.mode == ACLMOCK_REPLAY_STRICT) {
        const rp_rec *r = &R.recs[next];
        sb_printf(b, ",\"next\":{\"seq\":%llu,\"thread\":%llu,\"fn\":", (unsigned long long)r->seq,
                  (unsigned long long)r->thread);
        quoted(b, r->fn_name);
        sb_printf(b, ",\"args\":%s}", r->args_raw);
    }
    sb_printf(b, ",\"facts\":{\"device_count\":%lld,\"hbm_bytes\":%llu,\"soc_name\":", (long long)R.fact_devices,
              (unsigned long long)R.fact_hbm);
    if (R.fact_soc[0]) {
        quoted(b, R.fact_soc);
    } else {
        sb_append(b, "null", 4);
    }
    sb_printf(b, "},\"divergence\":%s", R.divergence.len ? R.divergence.s : "null");
    if (R.state == RP_ERROR) {
        sb_append(b, ",\"error\":", 9);
        quoted(b, R.error);
    }
    strbuf text = {0};
    if (R.text.len) {
        sb_append(&text, R.text.s, R.text.len);
    } else if (R.mode == ACLMOCK_REPLAY_STRICT && R.state == RP_REPLAYING && next != SIZE_MAX) {
        const rp_rec *r = &R.recs[next];
        sb_printf(&text, "strict replay of %s: %llu of %zu calls matched; not made yet: trace seq %llu %s %s",
                  R.path, (unsigned long long)R.matched, R.nrecs, (unsigned long long)r->seq, r->fn_name,
                  r->args_raw);
    } else if (R.state == RP_REPLAYING && R.mode == ACLMOCK_REPLAY_LENIENT) {
        sb_printf(&text, "lenient replay of %s: the device model and fact queries come from its %zu calls", R.path,
                  R.nrecs);
    } else if (R.state == RP_REPLAYING) {
        sb_printf(&text, "%s replay of %s: %llu of %zu calls matched", modes[mode], R.path,
                  (unsigned long long)R.matched, R.nrecs);
    } else if (R.state == RP_ERROR) {
        sb_printf(&text, "cannot replay %s: %s", R.path ? R.path : "?", R.error);
    }
    sb_append(b, ",\"text\":", 8);
    quoted(b, text.s ? text.s : "");
    sb_append(b, "}", 1);
    sb_free(&text);
}

/* --------------------------------------------------------------- control */

static int mode_from_env(void)
{
    const char *m = getenv("ASCENDCL_MOCK_REPLAY_MODE");
    if (!m || !*m || strcmp(m, "strict") == 0) {
        return ACLMOCK_REPLAY_STRICT;
    }
    if (strcmp(m, "lenient") == 0) {
        return ACLMOCK_REPLAY_LENIENT;
    }
    fprintf(stderr, "aclmock: ASCENDCL_MOCK_REPLAY_MODE=%s is neither strict nor lenient; using strict\n", m);
    return ACLMOCK_REPLAY_STRICT;
}

/* ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS: 1 ms .. 10 min, else the default. */
static uint64_t order_timeout_from_env(void)
{
    const char *v = getenv("ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS");
    if (!v || !*v) {
        return RP_ORDER_TIMEOUT_MS;
    }
    char *end = NULL;
    unsigned long long ms = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
    if (!end || *end || ms < 1 || ms > 600000) {
        fprintf(stderr, "aclmock: ignoring ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS=%s (want 1..600000)\n", v);
        return RP_ORDER_TIMEOUT_MS;
    }
    return ms;
}

void replay_reset_locked(void)
{
    replay_clear_locked();
    const char *path = getenv("ASCENDCL_MOCK_REPLAY");
    if (!path || !*path) {
        return;
    }
    char why[sizeof(R.error)];
    char *chosen = replay_pick_trace(path, why, sizeof(why));
    bool loaded = chosen && replay_load_locked(chosen, mode_from_env());
    if (!chosen) {
        replay_clear_locked();
        R.mode = mode_from_env();
        R.path = strdup(path);
        R.state = RP_ERROR;
        snprintf(R.error, sizeof(R.error), "%s", why);
    }
    if (!loaded) {
        fprintf(stderr,
                "aclmock: cannot replay ASCENDCL_MOCK_REPLAY=%s: %s\n"
                "aclmock: every call fails with %d, and the process will exit with status %d\n",
                path, R.error, ACLMOCK_ERROR_REPLAY_DIVERGED, ACLMOCK_REPLAY_FAILED_EXIT);
    }
    R.sibling = chosen && strcmp(chosen, path) != 0;
    free(chosen);
    R.from_env = true;
    R.order_timeout_ms = order_timeout_from_env();
    replay_apply_facts_locked();
}

ACLMOCK_EXPORT int32_t aclmockReplayLoad(const char *path, int32_t mode)
{
    if (mode != ACLMOCK_REPLAY_OFF && mode != ACLMOCK_REPLAY_STRICT && mode != ACLMOCK_REPLAY_LENIENT) {
        return ACL_ERROR_INVALID_PARAM;
    }
    mock_lock();
    int32_t rc = ACL_SUCCESS;
    if (!path || mode == ACLMOCK_REPLAY_OFF) {
        replay_clear_locked();
    } else if (!replay_load_locked(path, mode)) {
        rc = strstr(R.error, "cannot open") ? ACL_ERROR_INVALID_FILE : ACL_ERROR_PARSE_FILE;
    } else {
        R.order_timeout_ms = order_timeout_from_env();
        replay_apply_facts_locked();
    }
    mock_broadcast();
    mock_unlock();
    return rc;
}

ACLMOCK_EXPORT size_t aclmockReplayStatus(char *buf, size_t cap)
{
    strbuf b = {0};
    mock_lock();
    status_json(&b);
    mock_unlock();
    size_t len = b.len;
    if (buf && cap) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, b.s, n);
        buf[n] = '\0';
    }
    sb_free(&b);
    return len;
}

/* At exit, a replay started by the environment reports how it went, and a
 * failed one makes the process fail. */
__attribute__((destructor)) static void replay_report_at_exit(void)
{
    mock_lock();
    if (!R.from_env) {
        mock_unlock();
        return;
    }
    strbuf b = {0};
    status_json(&b);
    const char *report = getenv("ASCENDCL_MOCK_REPLAY_REPORT");
    /* The other processes of a multi-process replay report beside it. */
    char own_report[4200];
    if (report && *report && R.sibling) {
        snprintf(own_report, sizeof(own_report), "%s.%ld", report, (long)getpid());
        report = own_report;
    }
    FILE *f = report && *report ? fopen(report, "w") : NULL;
    if (f) {
        fprintf(f, "%s\n", b.s);
        fclose(f);
    }
    sb_free(&b);
    if (!replay_failed()) {
        mock_unlock();
        return;
    }
    size_t next;
    size_t remaining = remaining_calls(&next);
    if (R.state == RP_ERROR) {
        fprintf(stderr, "aclmock: replay failed: cannot replay %s: %s\n", R.path ? R.path : "?", R.error);
    } else if (R.state == RP_DIVERGED) {
        fprintf(stderr, "aclmock: replay failed: %s\n", R.text.s ? R.text.s : "diverged");
    } else {
        const rp_rec *r = &R.recs[next];
        fprintf(stderr,
                "aclmock: replay failed: strict replay of %s did not complete: %llu of %zu calls matched, %zu not "
                "made; the first: trace seq %llu %s %s\n",
                R.path, (unsigned long long)R.matched, R.nrecs, remaining, (unsigned long long)r->seq, r->fn_name,
                r->args_raw);
    }
    fprintf(stderr, "aclmock: exiting with status %d (replay failed)\n", ACLMOCK_REPLAY_FAILED_EXIT);
    fflush(NULL);
    _exit(ACLMOCK_REPLAY_FAILED_EXIT);
}
