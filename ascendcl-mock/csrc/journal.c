/*
 * journal.c: one JSON line per ACL call (trace format version 2, documented
 * in docs/trace-format.md and src/trace.rs), kept in a ring buffer and
 * optionally appended to the ASCENDCL_MOCK_TRACE file (after a header line);
 * per-function call counts; the call prologue/epilogue every exported
 * function goes through; symbolic names of handles.
 */
#include "mock.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const mock_fn_names[FN_COUNT] = {
#define MOCK_FN_NAME(n) #n,
    MOCK_FUNCTIONS(MOCK_FN_NAME)
    MOCK_OPS_FUNCTIONS(MOCK_FN_NAME)
    MOCK_HCCL_FUNCTIONS(MOCK_FN_NAME)
    MOCK_PROF_FUNCTIONS(MOCK_FN_NAME)
    MOCK_DVPP_FUNCTIONS(MOCK_FN_NAME)
#undef MOCK_FN_NAME
};

int mock_fn_lookup(const char *name)
{
    if (!name) {
        return -1;
    }
    for (int i = 0; i < FN_COUNT; i++) {
        if (strcmp(mock_fn_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------ call prologue */

void call_begin(mock_call *c, int fn)
{
    c->t0 = now_ns();
    mock_lock();
    mock_tls *t = tls();
    c->fn = fn;
    c->saved_fn = t->cur_fn;
    t->cur_fn = fn;
    jb_init(&c->args);
    jb_init(&c->out);
    c->faulted = false;
    c->fault_code = ACL_SUCCESS;
    c->fail_seq0 = t->fail_seq;
    c->rp_rec = -1;
    c->rp_check = false;
    c->rp_live = false;
    c->msg_len0 = t->msg_len;
    G.calls[fn]++;
    thread_small_id(); /* threads are numbered in order of their first call */
}

bool call_faulted(mock_call *c)
{
    const char *msg = NULL;
    aclError code = ACL_SUCCESS;
    if (replay_begin_locked(c, &code)) {
        /* the replay set the message (or, like the card, none) */
        c->faulted = true;
        c->fault_code = code;
        return true;
    }
    if (!fault_check_locked(c->fn, &code, &msg)) {
        return false;
    }
    c->faulted = true;
    c->fault_code = code;
    if (msg) {
        fail_verbatim(code, msg);
    } else {
        fail(code, "injected fault");
    }
    return true;
}

/* ---------------------------------------------------------- formatting */

/* Arguments and out-values grow as needed (jbuf): a field is never cut. */

static void put_key(jbuf *b, const char *key) { jb_printf(b, "%s\"%s\":", b->len ? "," : "", key); }

static void sym_obj(const void *h, int kind, char *out, size_t cap)
{
    static const char prefix[] = {'?', 'c', 's', 'e', 'p', 'b', 'm', 'y'};
    mock_obj *o = obj_lookup(h, kind);
    if (!o) {
        snprintf(out, cap, "?0x%llx", (unsigned long long)(uintptr_t)h);
    } else if (kind == OBJ_STREAM && ((mock_stream *)o)->is_default) {
        snprintf(out, cap, "s0");
    } else {
        snprintf(out, cap, "%c%llu", prefix[kind], (unsigned long long)o->id);
    }
}

static void put_addr(jbuf *b, const char *key, const void *p)
{
    char sym[96];
    put_key(b, key);
    if (!p) {
        jb_append(b, "null", 4);
        return;
    }
    sym_addr(p, sym, sizeof(sym));
    jb_printf(b, "\"%s\"", sym);
}

static void put_obj(jbuf *b, const char *key, const void *h, int kind)
{
    char sym[64];
    put_key(b, key);
    if (!h) {
        jb_append(b, "null", 4);
        return;
    }
    sym_obj(h, kind, sym, sizeof(sym));
    jb_printf(b, "\"%s\"", sym);
}

void ja_i64(mock_call *c, const char *key, int64_t v)
{
    put_key(&c->args, key);
    jb_printf(&c->args, "%lld", (long long)v);
}

void ja_u64(mock_call *c, const char *key, uint64_t v)
{
    put_key(&c->args, key);
    jb_printf(&c->args, "%llu", (unsigned long long)v);
}

void ja_hex(mock_call *c, const char *key, uint64_t v)
{
    put_key(&c->args, key);
    jb_printf(&c->args, "\"0x%llx\"", (unsigned long long)v);
}

void ja_str(mock_call *c, const char *key, const char *s)
{
    put_key(&c->args, key);
    jb_quote(&c->args, s);
}

void ja_ptr(mock_call *c, const char *key, const void *p) { put_addr(&c->args, key, p); }

void ja_obj(mock_call *c, const char *key, const void *h, int kind) { put_obj(&c->args, key, h, kind); }

void ja_stream(mock_call *c, const char *key, const void *s)
{
    if (!s) {
        put_key(&c->args, key);
        jb_append(&c->args, "\"s0\"", 4);
        return;
    }
    put_obj(&c->args, key, s, OBJ_STREAM);
}

void jo_i64(mock_call *c, const char *key, int64_t v)
{
    put_key(&c->out, key);
    jb_printf(&c->out, "%lld", (long long)v);
}

void jo_u64(mock_call *c, const char *key, uint64_t v)
{
    put_key(&c->out, key);
    jb_printf(&c->out, "%llu", (unsigned long long)v);
}

void jo_f64(mock_call *c, const char *key, double v)
{
    put_key(&c->out, key);
    jb_printf(&c->out, "%.6f", v);
}

void jo_str(mock_call *c, const char *key, const char *s)
{
    put_key(&c->out, key);
    jb_quote(&c->out, s);
}

void jo_ptr(mock_call *c, const char *key, const void *p) { put_addr(&c->out, key, p); }

void jo_obj(mock_call *c, const char *key, const void *h, int kind) { put_obj(&c->out, key, h, kind); }

/* --------------------------------------------------------------- ring */

static void ring_store(char *line)
{
    if (!G.ring) {
        G.ring = calloc(G.journal_cap, sizeof(char *));
        if (!G.ring) {
            free(line);
            return;
        }
        G.ring_cap = G.journal_cap;
    }
    uint64_t seq = G.next_seq;
    if (seq - G.first_seq + 1 > G.ring_cap) {
        size_t old = (size_t)((G.first_seq - 1) % G.ring_cap);
        free(G.ring[old]);
        G.ring[old] = NULL;
        G.first_seq++;
    }
    G.ring[(seq - 1) % G.ring_cap] = line;
}

/* The first line of a trace file: what produced it, and the device model. */
static void trace_header_locked(FILE *f)
{
    Dl_info info;
    const char *lib = "";
    if (dladdr((void *)&trace_header_locked, &info) && info.dli_fname) {
        lib = info.dli_fname;
    }
    char qlib[1200], qsoc[160];
    json_quote(lib, qlib, sizeof(qlib));
    json_quote(G.soc_name, qsoc, sizeof(qsoc));
    fprintf(f,
            "{\"format\":\"ascendcl-trace\",\"version\":2,\"producer\":\"aclmock\",\"library\":%s,\"pid\":%ld,"
            "\"device_count\":%u,\"hbm_bytes\":%llu,\"soc_name\":%s}\n",
            qlib, (long)getpid(), G.device_count, (unsigned long long)G.hbm_bytes, qsoc);
}

aclError call_end(mock_call *c, aclError rc)
{
    uint64_t t1 = now_ns();
    mock_tls *t = tls();
    if (c->rp_rec >= 0) {
        replay_end_locked(c, &rc);
    }
    uint64_t tid = thread_small_id();
    uint64_t seq = ++G.next_seq;
    jbuf line;
    jb_init(&line);
    jb_printf(&line, "{\"seq\":%llu,\"thread\":%llu,\"fn\":\"%s\",\"args\":{%s},\"out\":{%s},\"ret\":%d",
              (unsigned long long)seq, (unsigned long long)tid, mock_fn_names[c->fn], jb_str(&c->args),
              jb_str(&c->out), rc);
    /* A failing call's own error text, as aclGetRecentErrMsg would give it. */
    if (rc != ACL_SUCCESS && t->fail_seq != c->fail_seq0 && c->fn != FN_aclrtGetLastError &&
        c->fn != FN_aclrtPeekAtLastError) {
        jb_append(&line, ",\"msg\":", 7);
        jb_quote(&line, t->last_fail);
    }
    jb_printf(&line, ",\"t_ns\":%llu,\"dur_ns\":%llu}", (unsigned long long)(c->t0 - G.load_ns),
              (unsigned long long)(t1 - c->t0));
    char *copy = malloc(line.len + 1);
    if (copy) {
        memcpy(copy, jb_str(&line), line.len + 1);
        ring_store(copy);
    }
    if (G.trace) {
        if (G.trace_header_due) {
            trace_header_locked((FILE *)G.trace);
            G.trace_header_due = false;
        }
        fputs(jb_str(&line), (FILE *)G.trace);
        fputc('\n', (FILE *)G.trace);
        fflush((FILE *)G.trace);
    }
    jb_free(&line);
    jb_free(&c->args);
    jb_free(&c->out);
    t->cur_fn = c->saved_fn;
    mock_unlock();
    return rc;
}

static void ring_clear_locked(void)
{
    if (G.ring) {
        for (size_t i = 0; i < G.ring_cap; i++) {
            free(G.ring[i]);
            G.ring[i] = NULL;
        }
    }
    G.first_seq = G.next_seq + 1;
}

void journal_reset_locked(void)
{
    ring_clear_locked();
    free(G.ring);
    G.ring = NULL;
    G.ring_cap = 0;
    G.next_seq = 0;
    G.first_seq = 1;
    if (G.trace) {
        fclose((FILE *)G.trace);
        G.trace = NULL;
    }
    const char *path = getenv("ASCENDCL_MOCK_TRACE");
    if (path && *path) {
        G.trace = fopen(path, "a");
        G.trace_header_due = G.trace != NULL; /* written before the first call */
        if (!G.trace) {
            fprintf(stderr, "aclmock: cannot open ASCENDCL_MOCK_TRACE=%s\n", path);
        }
    }
}

/* ---------------------------------------------------------- control API */

ACLMOCK_EXPORT uint64_t aclmockJournalLen(void)
{
    mock_lock();
    uint64_t n = G.next_seq + 1 - G.first_seq;
    mock_unlock();
    return n;
}

ACLMOCK_EXPORT size_t aclmockJournalRead(uint64_t fromSeq, char *buf, size_t cap)
{
    mock_lock();
    uint64_t from = fromSeq > G.first_seq ? fromSeq : G.first_seq;
    size_t total = 0, written = 0;
    bool full = false;
    for (uint64_t s = from; s <= G.next_seq && G.ring; s++) {
        const char *line = G.ring[(s - 1) % G.ring_cap];
        if (!line) {
            continue;
        }
        size_t len = strlen(line);
        total += len + 1;
        if (!full && buf && written + len + 1 < cap) {
            memcpy(buf + written, line, len);
            buf[written + len] = '\n';
            written += len + 1;
        } else {
            full = true;
        }
    }
    if (buf && cap) {
        buf[written < cap ? written : cap - 1] = '\0';
    }
    mock_unlock();
    return total;
}

ACLMOCK_EXPORT void aclmockJournalClear(void)
{
    mock_lock();
    ring_clear_locked();
    mock_unlock();
}

ACLMOCK_EXPORT uint64_t aclmockCallCount(const char *function)
{
    int fn = mock_fn_lookup(function);
    if (fn < 0) {
        return 0;
    }
    mock_lock();
    uint64_t v = G.calls[fn];
    mock_unlock();
    return v;
}
