/*
 * replay_match.c: comparing a live call with a trace record. Symbolic ids
 * (c3, s1, m2+0x40...) are compared through a bijection between the trace's
 * ids and the mock's, built from the out-values of the calls that create
 * them (and from first use), aclnn descriptors (t1, k2, x3...) included; handles and addresses neither side knows
 * ("?...") are equal; everything else compares as JSON text.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

typedef struct sym {
    int kind; /* index into R.fwd/R.rev */
    uint64_t id;
    bool has_off;
    uint64_t off;
} sym;

static bool sym_parse(const char *raw, sym *out)
{
    static const char kinds[] = "csepmhvtkifblx";
    if (!raw || raw[0] != '"' || !raw[1]) {
        return false;
    }
    size_t letters = 1;
    if (strncmp(raw + 1, "comm", 4) == 0) {
        out->kind = RP_KIND_COMM;
        letters = 4;
    } else {
        const char *k = strchr(kinds, raw[1]);
        if (!k) {
            return false;
        }
        out->kind = (int)(k - kinds);
    }
    if (raw[1 + letters] < '0' || raw[1 + letters] > '9') {
        return false;
    }
    char *end = NULL;
    out->id = strtoull(raw + 1 + letters, &end, 10);
    out->has_off = out->kind >= 4 && out->kind <= 6; /* m, h, v: addresses */
    out->off = 0;
    if (out->has_off) {
        if (strncmp(end, "+0x", 3) != 0) {
            return false;
        }
        out->off = strtoull(end + 3, &end, 16);
    }
    return strcmp(end, "\"") == 0;
}

/* Whether trace id t and live id l of one kind may stand for each other;
 * binds them when `bind` (create: a new object replaces old bindings). The
 * default stream s0 is itself on both sides. */
static bool bind_ids(int kind, uint64_t t, uint64_t l, bool create, bool bind)
{
    if (kind == 1 && (t == 0 || l == 0)) {
        return t == l;
    }
    uint64_t have = 0;
    if (!create) {
        if (pm_get(&R.fwd[kind], t + 2, &have)) {
            return have == l;
        }
        if (pm_get(&R.rev[kind], l + 2, &have)) {
            return false;
        }
    }
    if (bind) {
        pm_put(&R.fwd[kind], t + 2, l);
        pm_put(&R.rev[kind], l + 2, t);
    }
    return true;
}

bool rm_same_value(const char *trace, const char *live, bool bind)
{
    if (!trace || !live) {
        return trace == live;
    }
    sym a, b;
    bool sa = sym_parse(trace, &a), sb = sym_parse(live, &b);
    if (sa || sb) {
        return sa && sb && a.kind == b.kind && a.has_off == b.has_off && a.off == b.off &&
               bind_ids(a.kind, a.id, b.id, false, bind);
    }
    /* handles and device addresses the runtime does not know: both unknown */
    if (trace[0] == '"' && live[0] == '"' && trace[1] == '?' && live[1] == '?') {
        return true;
    }
    return strcmp(trace, live) == 0;
}

/* Keys whose values differ from run to run (function pointers, OS ids, the
 * hash of an HCCL root info, which holds host addresses). */
static bool ignored_key(const char *key)
{
    return strcmp(key, "fn") == 0 || strcmp(key, "threadId") == 0 || strcmp(key, "rootInfo") == 0;
}

const char *rm_first_difference(const rp_obj *trace, const rp_obj *live, bool bind)
{
    for (size_t i = 0; i < trace->n; i++) {
        const char *key = trace->kv[i].key;
        if (!ignored_key(key) && !rm_same_value(trace->kv[i].raw, rj_get(live, key), bind)) {
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

bool rm_live_object(const char *body, rp_obj *out)
{
    jbuf b;
    jb_init(&b);
    jb_printf(&b, "{%s}", body);
    bool ok = rj_object(jb_str(&b), b.len, out);
    jb_free(&b);
    return ok;
}

bool rm_matches(const rp_rec *r, const mock_call *c)
{
    if (r->fn != c->fn) {
        return false;
    }
    rp_obj live;
    if (!rm_live_object(jb_str(&c->args), &live)) {
        return false;
    }
    bool same = rm_first_difference(&r->args, &live, false) == NULL;
    rj_free(&live);
    return same;
}

void rm_bind_outputs(const rp_obj *trace_out, const rp_obj *live_out)
{
    for (size_t i = 0; i < trace_out->n; i++) {
        sym a, b;
        const char *lv = rj_get(live_out, trace_out->kv[i].key);
        if (lv && sym_parse(trace_out->kv[i].raw, &a) && sym_parse(lv, &b) && a.kind == b.kind) {
            bind_ids(a.kind, a.id, b.id, true, true);
        }
    }
}
