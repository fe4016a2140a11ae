/*
 * replay.c: replaying a recorded trace.
 *
 * Strict mode: every live call is matched against the next record of the
 * trace thread its thread is bound to (live threads are bound to trace
 * threads in order of their first call). The function and the arguments must
 * be the same; symbolic ids are compared through a bijection between the
 * trace's ids and the mock's, built from the out-values of the calls that
 * create them (and from first use). A recorded failure is returned as
 * recorded (code and message) without running the call, like an injected
 * fault; a recorded success runs the call in the mock, so its state stays
 * consistent, then takes its data out-values from the record. The first
 * difference fails the call with ACLMOCK_ERROR_REPLAY_DIVERGED and is kept
 * as the divergence report; later calls behave as the plain mock does.
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

/* ---------------------------------------------------------- symbolic ids */

typedef struct sym {
    int kind; /* index into R.fwd/R.rev */
    uint64_t id;
    bool has_off;
    uint64_t off;
} sym;

static bool sym_parse(const char *raw, sym *out)
{
    static const char kinds[] = "csepmhv";
    if (!raw || raw[0] != '"' || !raw[1]) {
        return false;
    }
    const char *k = strchr(kinds, raw[1]);
    if (!k || raw[2] < '0' || raw[2] > '9') {
        return false;
    }
    out->kind = (int)(k - kinds);
    char *end = NULL;
    out->id = strtoull(raw + 2, &end, 10);
    out->has_off = out->kind >= 4;
    out->off = 0;
    if (out->has_off) {
        if (strncmp(end, "+0x", 3) != 0) {
            return false;
        }
        out->off = strtoull(end + 3, &end, 16);
    }
    return strcmp(end, "\"") == 0;
}

/* Binds trace id t to live id l of one kind; false if either is bound to
 * another id already. The default stream s0 is itself on both sides. */
static bool bind_ids(int kind, uint64_t t, uint64_t l, bool create)
{
    if (kind == 1 && (t == 0 || l == 0)) {
        return t == l;
    }
    uint64_t have = 0;
    if (!create) {
        bool tf = pm_get(&R.fwd[kind], t + 2, &have);
        if (tf) {
            return have == l;
        }
        if (pm_get(&R.rev[kind], l + 2, &have)) {
            return false;
        }
    }
    pm_put(&R.fwd[kind], t + 2, l);
    pm_put(&R.rev[kind], l + 2, t);
    return true;
}

/* Compares one trace value with one live value. */
static bool same_value(const char *trace, const char *live)
{
    if (!trace || !live) {
        return trace == live;
    }
    sym a, b;
    bool sa = sym_parse(trace, &a), sb = sym_parse(live, &b);
    if (sa || sb) {
        return sa && sb && a.kind == b.kind && a.has_off == b.has_off && a.off == b.off &&
               bind_ids(a.kind, a.id, b.id, false);
    }
    /* handles and device addresses the runtime does not know: both unknown */
    if (trace[0] == '"' && live[0] == '"' && trace[1] == '?' && live[1] == '?') {
        return true;
    }
    return strcmp(trace, live) == 0;
}

/* Keys whose values differ from run to run (function pointers, OS ids). */
static bool ignored_key(const char *key) { return strcmp(key, "fn") == 0 || strcmp(key, "threadId") == 0; }

/* The first argument that differs, or NULL if all match. */
static const char *first_difference(const rp_obj *trace, const rp_obj *live)
{
    for (size_t i = 0; i < trace->n; i++) {
        const char *key = trace->kv[i].key;
        if (!ignored_key(key) && !same_value(trace->kv[i].raw, rj_get(live, key))) {
            return key;
        }
    }
    for (size_t i = 0; i < live->n; i++) {
        if (!ignored_key(live->kv[i].key) && !rj_get(trace, live->kv[i].key)) {
            return live->kv[i].key;
        }
    }
    return NULL;
}

static bool live_object(const char *body, rp_obj *out)
{
    size_t n = strlen(body);
    char *buf = malloc(n + 3);
    if (!buf) {
        abort();
    }
    buf[0] = '{';
    memcpy(buf + 1, body, n);
    buf[n + 1] = '}';
    buf[n + 2] = '\0';
    bool ok = rj_object(buf, n + 2, out);
    free(buf);
    return ok;
}

/* ------------------------------------------------------------ divergence */

static void side_json(strbuf *b, const char *fn, const char *args, const int *ret, const char *msg)
{
    char q[1100];
    sb_printf(b, "{\"fn\":\"%s\",\"args\":%s", fn, args);
    if (ret) {
        sb_printf(b, ",\"ret\":%d", *ret);
    }
    if (msg) {
        json_quote(msg, q, sizeof(q));
        sb_printf(b, ",\"msg\":%s", q);
    }
    sb_append(b, "}", 1);
}

/* Records the first divergence. r is the expected record (NULL: none);
 * live_ret is the live result (NULL: the call did not run). */
static void diverge(const mock_call *c, const rp_rec *r, int64_t thread, size_t call, const char *reason,
                    const int *live_ret)
{
    R.state = RP_DIVERGED;
    jbuf la;
    jb_init(&la);
    jb_printf(&la, "{%s}", jb_str(&c->args));
    const char *live_args = jb_str(&la);
    const char *live_msg = live_ret && *live_ret && tls()->fail_seq != c->fail_seq0 ? tls()->last_fail : NULL;
    char qreason[600];
    json_quote(reason, qreason, sizeof(qreason));
    strbuf *d = &R.divergence;
    sb_printf(d, "{\"seq\":%llu,\"thread\":%lld,\"call\":%zu,\"reason\":%s,\"expected\":",
              (unsigned long long)(r ? r->seq : 0), (long long)thread, call, qreason);
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
}

/* ----------------------------------------------------------------- hooks */

bool replay_begin_locked(mock_call *c, aclError *code)
{
    if (R.mode != ACLMOCK_REPLAY_STRICT || R.state != RP_REPLAYING) {
        return false;
    }
    mock_tls *t = tls();
    if (t->rp_gen != R.gen) {
        t->rp_gen = R.gen;
        t->rp_thread = R.bound < R.nthreads ? (int64_t)R.bound++ : -1;
    }
    const rp_rec *r = NULL;
    rp_thread *th = t->rp_thread >= 0 ? &R.threads[t->rp_thread] : NULL;
    char reason[400] = "";
    if (!th) {
        snprintf(reason, sizeof(reason), "a new thread called, but all %zu threads of the trace are taken",
                 R.nthreads);
    } else if (th->next >= th->n) {
        snprintf(reason, sizeof(reason), "trace thread %llu has no more calls (it made %zu)",
                 (unsigned long long)th->id, th->n);
    } else {
        r = &R.recs[th->recs[th->next]];
        if (r->fn != c->fn) {
            snprintf(reason, sizeof(reason), "different function: the trace called %s, the program %s", r->fn_name,
                     mock_fn_names[c->fn]);
        } else {
            rp_obj live;
            if (!live_object(jb_str(&c->args), &live)) {
                snprintf(reason, sizeof(reason), "the live arguments could not be read");
            } else {
                const char *key = first_difference(&r->args, &live);
                if (key) {
                    const char *tv = rj_get(&r->args, key), *lv = rj_get(&live, key);
                    snprintf(reason, sizeof(reason), "different argument %s: trace %s, program %s", key,
                             tv ? tv : "(absent)", lv ? lv : "(absent)");
                }
                rj_free(&live);
            }
        }
    }
    if (reason[0]) {
        int64_t tid = th ? (int64_t)th->id : -1;
        diverge(c, r, tid, th ? th->next + 1 : 0, reason, NULL);
        *code = ACLMOCK_ERROR_REPLAY_DIVERGED;
        fail(*code, "aclmock replay diverged from %s: %s (see aclmockReplayStatus)", R.path, reason);
        return true;
    }
    c->rp_rec = (int64_t)th->recs[th->next];
    th->next++;
    R.matched++;
    if (r->ret != ACL_SUCCESS && !returns_value(c->fn)) {
        if (r->msg) {
            fail_verbatim(r->ret, r->msg);
        } else {
            t->last_error = r->ret; /* the card gave no text */
        }
        *code = r->ret;
        return true;
    }
    return false;
}

void replay_end_locked(mock_call *c, aclError *rc)
{
    const rp_rec *r = &R.recs[c->rp_rec];
    if (c->faulted) {
        return;
    }
    if (returns_value(c->fn)) {
        *rc = r->ret;
        return;
    }
    if (*rc != ACL_SUCCESS) {
        if (R.state == RP_REPLAYING) {
            char reason[200];
            snprintf(reason, sizeof(reason), "the call succeeded in the trace but failed in the mock with %d", *rc);
            int64_t thread = tls()->rp_thread;
            diverge(c, r, (int64_t)r->thread, thread >= 0 ? R.threads[thread].next : 0, reason, rc);
        }
        return;
    }
    rp_obj live;
    if (!live_object(jb_str(&c->out), &live)) {
        return;
    }
    for (size_t i = 0; i < r->out.n; i++) {
        sym a, b;
        const char *lv = rj_get(&live, r->out.kv[i].key);
        if (lv && sym_parse(r->out.kv[i].raw, &a) && sym_parse(lv, &b) && a.kind == b.kind) {
            bind_ids(a.kind, a.id, b.id, true);
        }
    }
    rj_free(&live);
}

static const char *out_raw(mock_call *c, const char *key)
{
    if (R.state == RP_ERROR) {
        return NULL;
    }
    if (R.mode == ACLMOCK_REPLAY_STRICT) {
        return c->rp_rec >= 0 ? rj_get(&R.recs[c->rp_rec].out, key) : NULL;
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

bool replay_out_u64(mock_call *c, const char *key, uint64_t *v) { return rj_u64(out_raw(c, key), v); }

bool replay_out_f64(mock_call *c, const char *key, double *v) { return rj_f64(out_raw(c, key), v); }

bool replay_out_str(mock_call *c, const char *key, const char **s)
{
    /* strings live in the record's raw text; unescape into a per-thread copy */
    static __thread char buf[4096];
    const char *raw = out_raw(c, key);
    if (!raw) {
        return false;
    }
    char *v = rj_string(raw);
    if (v) {
        snprintf(buf, sizeof(buf), "%s", v);
        free(v);
        *s = buf;
    } else {
        *s = NULL;
    }
    return true;
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

void replay_reset_locked(void)
{
    replay_clear_locked();
    const char *path = getenv("ASCENDCL_MOCK_REPLAY");
    if (!path || !*path) {
        return;
    }
    if (!replay_load_locked(path, mode_from_env())) {
        fprintf(stderr, "aclmock: cannot replay ASCENDCL_MOCK_REPLAY=%s: %s\n", path, R.error);
    }
    R.from_env = true;
    replay_apply_facts_locked();
}

static void status_json(strbuf *b)
{
    static const char *const modes[] = {"off", "strict", "lenient"};
    char q[1200];
    size_t remaining = 0, next = SIZE_MAX;
    for (size_t i = 0; i < R.nthreads; i++) {
        const rp_thread *t = &R.threads[i];
        remaining += t->n - t->next;
        if (t->next < t->n && t->recs[t->next] < next) {
            next = t->recs[t->next];
        }
    }
    const char *state = "off";
    if (R.mode != ACLMOCK_REPLAY_OFF) {
        state = R.state == RP_ERROR      ? "error"
                : R.state == RP_DIVERGED ? "diverged"
                : R.mode == ACLMOCK_REPLAY_STRICT && remaining == 0 ? "complete"
                                                                     : "replaying";
    }
    int mode = R.mode >= 0 && R.mode <= 2 ? R.mode : 0;
    json_quote(R.path ? R.path : "", q, sizeof(q));
    sb_printf(b, "{\"mode\":\"%s\",\"trace\":%s,\"state\":\"%s\",\"matched\":%llu,\"calls\":%zu,\"remaining\":%zu",
              modes[mode], R.path ? q : "null", state, (unsigned long long)R.matched, R.nrecs, remaining);
    if (next != SIZE_MAX && R.mode == ACLMOCK_REPLAY_STRICT) {
        const rp_rec *r = &R.recs[next];
        sb_printf(b, ",\"next\":{\"seq\":%llu,\"thread\":%llu,\"fn\":\"%s\",\"args\":%s}", (unsigned long long)r->seq,
                  (unsigned long long)r->thread, r->fn_name, r->args_raw);
    }
    json_quote(R.fact_soc, q, sizeof(q));
    sb_printf(b, ",\"facts\":{\"device_count\":%lld,\"hbm_bytes\":%llu,\"soc_name\":%s}", (long long)R.fact_devices,
              (unsigned long long)R.fact_hbm, R.fact_soc[0] ? q : "null");
    sb_printf(b, ",\"divergence\":%s", R.divergence.len ? R.divergence.s : "null");
    if (R.state == RP_ERROR) {
        json_quote(R.error, q, sizeof(q));
        sb_printf(b, ",\"error\":%s", q);
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
    char *qt = malloc(text.len * 6 + 8);
    if (!qt) {
        abort();
    }
    json_quote(text.s ? text.s : "", qt, text.len * 6 + 8);
    sb_printf(b, ",\"text\":%s}", qt);
    free(qt);
    sb_free(&text);
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
        replay_apply_facts_locked();
    }
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

/* At exit, a replay started by the environment reports how it went. */
__attribute__((destructor)) static void replay_report_at_exit(void)
{
    mock_lock();
    if (R.from_env) {
        strbuf b = {0};
        status_json(&b);
        const char *report = getenv("ASCENDCL_MOCK_REPLAY_REPORT");
        FILE *f = report && *report ? fopen(report, "w") : NULL;
        if (f) {
            fprintf(f, "%s\n", b.s);
            fclose(f);
        }
        bool done = strstr(b.s, "\"state\":\"complete\"") || R.mode == ACLMOCK_REPLAY_LENIENT;
        if (!done && R.state != RP_DIVERGED) {
            fprintf(stderr, "aclmock: strict replay of %s did not complete: %llu of %zu calls matched\n", R.path,
                    (unsigned long long)R.matched, R.nrecs);
        }
        sb_free(&b);
    }
    mock_unlock();
}
