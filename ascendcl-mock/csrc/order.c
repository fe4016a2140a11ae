/*
 * order.c: the happens-before model (see order.h for the rules).
 *
 * Cost: a vector clock is a short sorted array of (order id, clock) pairs
 * holding only the streams it has heard of; a stream joins the host's clock
 * only when the host learned something since its last join. An extent's
 * access log holds at most LOG_MAX records: an access drops every record it
 * covers and is ordered after (same or smaller range; a read never drops a
 * write), so a stream that keeps reusing one buffer keeps one record. When
 * the log is full the oldest record goes: the model may then miss a race,
 * never invent one.
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_MAX 16

typedef struct acc_rec {
    uint64_t lo, hi; /* bytes of the extent */
    uint64_t clk;    /* clock of the access in its order id */
    uint64_t sid;    /* stream id for messages (0: a default stream) */
    uint32_t ord;    /* ORDER_HOST or a stream's order id */
    int32_t dev;     /* device of the stream */
    int fn;          /* the call */
    bool write;
    bool free;       /* the host freeing the extent (a write) */
    bool value;      /* aclrtValueWrite/aclrtValueWait: never races another */
} acc_rec;

struct acc_log {
    uint32_t n;
    acc_rec v[LOG_MAX];
};

/* --------------------------------------------------------- vector clocks */

static uint32_t vc_find(const vclock *c, uint32_t id)
{
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->v[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static uint64_t vc_get(const vclock *c, uint32_t id)
{
    uint32_t i = vc_find(c, id);
    return i < c->n && c->v[i].id == id ? c->v[i].clk : 0;
}

/* Raises c[id] to at least clk; true if it grew. */
static bool vc_raise(vclock *c, uint32_t id, uint64_t clk)
{
    uint32_t i = vc_find(c, id);
    if (i < c->n && c->v[i].id == id) {
        if (c->v[i].clk >= clk) {
            return false;
        }
        c->v[i].clk = clk;
        return true;
    }
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 4;
        vc_ent *nv = realloc(c->v, ncap * sizeof(*nv));
        if (!nv) {
            abort();
        }
        c->v = nv;
        c->cap = ncap;
    }
    memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof(*c->v));
    c->v[i] = (vc_ent){id, clk};
    c->n++;
    return true;
}

void vc_free(vclock *c)
{
    free(c->v);
    *c = (vclock){0};
}

void vc_copy(vclock *dst, const vclock *src)
{
    dst->n = 0;
    for (uint32_t i = 0; i < src->n; i++) {
        vc_raise(dst, src->v[i].id, src->v[i].clk);
    }
}

static bool vc_join_grew(vclock *dst, const vclock *src)
{
    bool grew = false;
    for (uint32_t i = 0; i < src->n; i++) {
        grew |= vc_raise(dst, src->v[i].id, src->v[i].clk);
    }
    return grew;
}

void vc_join(vclock *dst, const vclock *src) { (void)vc_join_grew(dst, src); }

/* ------------------------------------------------------ streams, events */

void order_stream_init(mock_stream *s)
{
    s->ord = ORDER_HOST + ++G.next_ord;
    s->host_seen = 0;
}

/* Work the host queues is ordered after everything the host knows finished. */
static void bring_host(mock_stream *s)
{
    if (s->host_seen != G.host_ver) {
        vc_join(&s->vc, &G.host_vc);
        s->host_seen = G.host_ver;
    }
}

void order_enqueue(mock_stream *s, mock_task *t)
{
    bring_host(s);
    if (t->kind == TASK_HOSTFN || t->kind == TASK_CALLBACK) {
        vc_copy(&t->snap, &s->vc);
    }
}

void order_host_learn(const vclock *c)
{
    if (vc_join_grew(&G.host_vc, c)) {
        G.host_ver++;
    }
}

uint64_t order_callback_start(mock_stream *s, const mock_task *t)
{
    order_host_learn(&t->snap);
    return vc_get(&t->snap, s->ord);
}

void order_callback_enter(mock_stream *s, uint64_t clk)
{
    tls()->cb_stream = s;
    tls()->cb_clk = clk;
}

void order_callback_leave(void) { tls()->cb_stream = NULL; }

void order_record(mock_event *ev, mock_stream *s)
{
    bring_host(s);
    vc_copy(&ev->vc, &s->vc);
}

void order_wait(mock_stream *s, const mock_event *ev)
{
    bring_host(s);
    vc_join(&s->vc, &ev->vc);
}

/* dst becomes what both dst and src cover: for each participant, the lesser
 * clock (a participant missing from either is dropped). In place: the
 * entries kept are a subsequence of dst's. */
static void vc_meet(vclock *dst, const vclock *src)
{
    uint32_t i = 0, j = 0, n = 0;
    while (i < dst->n && j < src->n) {
        if (dst->v[i].id < src->v[j].id) {
            i++;
        } else if (dst->v[i].id > src->v[j].id) {
            j++;
        } else {
            uint64_t clk = dst->v[i].clk < src->v[j].clk ? dst->v[i].clk : src->v[j].clk;
            dst->v[n].id = dst->v[i].id;
            dst->v[n++].clk = clk;
            i++;
            j++;
        }
    }
    dst->n = n;
}

void order_notify_record(mock_notify *n, mock_stream *s)
{
    bring_host(s);
    if (n->recs) {
        vc_meet(&n->vc, &s->vc);
    } else {
        vc_copy(&n->vc, &s->vc);
        n->recs = true;
    }
}

void order_notify_wait(mock_stream *s, mock_notify *n)
{
    bring_host(s);
    if (n->recs) {
        vc_join(&s->vc, &n->vc);
    }
    n->recs = false;
    n->vc.n = 0;
}

/* ---------------------------------------------------------- access logs */

void order_log_free(acc_log **log)
{
    free(*log);
    *log = NULL;
}

static void who(const acc_rec *r, char *buf, size_t cap)
{
    if (r->ord == ORDER_HOST) {
        snprintf(buf, cap, "the host");
    } else if (r->sid == 0) {
        snprintf(buf, cap, "the default stream of device %d", (int)r->dev);
    } else {
        snprintf(buf, cap, "s%llu", (unsigned long long)r->sid);
    }
}

static int report(const acc_rec *me, const acc_rec *r, char tag, uint64_t xid, bool pinned)
{
    char a[48], b[48];
    who(me, a, sizeof(a));
    who(r, b, sizeof(b));
    aclmockMisuse kind =
        pinned && me->ord == ORDER_HOST ? ACLMOCK_MISUSE_PINNED_HOST_ACCESS : ACLMOCK_MISUSE_UNORDERED_ACCESS;
    misuse(kind,
           "%s of %c%llu[0x%llx, 0x%llx) by %s is not ordered after the %s of %c%llu[0x%llx, 0x%llx) by %s "
           "(queued by %s): no event record/wait chain or host synchronize between them",
           me->free ? "free" : me->write ? "write" : "read", tag, (unsigned long long)xid, (unsigned long long)me->lo,
           (unsigned long long)me->hi, a, r->write ? "write" : "read", tag, (unsigned long long)xid,
           (unsigned long long)r->lo, (unsigned long long)r->hi, b, mock_fn_names[r->fn]);
    return (int)kind;
}

/* Checks `me` against the log of one extent, then logs it. Returns the
 * misuse kind reported, or -1. */
static int log_access(acc_log **plog, char tag, uint64_t xid, bool pinned, const acc_rec *me, const vclock *vc)
{
    acc_log *lg = *plog;
    if (!lg) {
        lg = calloc(1, sizeof(*lg));
        if (!lg) {
            abort();
        }
        *plog = lg;
    }
    int reported = -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < lg->n; i++) {
        const acc_rec *r = &lg->v[i];
        bool ordered = r->ord == me->ord || vc_get(vc, r->ord) >= r->clk;
        bool overlap = r->lo < me->hi && me->lo < r->hi;
        bool sync = r->value && me->value;
        if (!ordered && overlap && (r->write || me->write) && !sync && reported < 0) {
            reported = report(me, r, tag, xid, pinned);
        }
        bool covered = ordered && r->lo >= me->lo && r->hi <= me->hi && (me->write || !r->write);
        if (!covered) {
            lg->v[k++] = *r;
        }
    }
    lg->n = k;
    if (lg->n == LOG_MAX) {
        memmove(&lg->v[0], &lg->v[1], (LOG_MAX - 1) * sizeof(lg->v[0]));
        lg->n--;
    }
    lg->v[lg->n++] = *me;
    return reported;
}

/* The next clock of an accessor, and the clock its accesses are judged by. */
static const vclock *tick(mock_stream *s, acc_rec *me)
{
    mock_stream *cb = s ? NULL : tls()->cb_stream;
    if (cb && cb->h.alive) {
        /* a host function blocks its stream: what it does happens after the
         * stream's earlier work and before its later work */
        me->ord = cb->ord;
        me->sid = cb->h.id;
        me->dev = cb->device;
        me->clk = tls()->cb_clk;
        return &G.host_vc;
    }
    if (!s) {
        me->ord = ORDER_HOST;
        me->clk = vc_get(&G.host_vc, ORDER_HOST) + 1;
        vc_raise(&G.host_vc, ORDER_HOST, me->clk);
        G.host_ver++;
        return &G.host_vc;
    }
    bring_host(s);
    me->ord = s->ord;
    me->sid = s->h.id;
    me->dev = s->device;
    me->clk = vc_get(&s->vc, s->ord) + 1;
    vc_raise(&s->vc, s->ord, me->clk);
    return &s->vc;
}

static int access_as(mock_stream *s, const void *p, size_t n, bool write, int fn, bool value)
{
    uintptr_t a = (uintptr_t)p;
    int dev = -1;
    bool vmm = false;
    acc_rec me = {.write = write, .fn = fn, .dev = -1, .value = value};
    if (!mem_window(a, &dev, &vmm)) {
        mock_host *h = host_find(a, true);
        if (!h) {
            return -1; /* pageable host memory: the runtime touches it synchronously */
        }
        const vclock *vc = tick(s, &me);
        me.lo = a - h->addr;
        me.hi = me.lo + n;
        return log_access(&h->log, 'h', h->id, true, &me, vc);
    }
    mock_device *d = &G.devices[dev];
    if (!vmm) {
        mock_alloc *al = alloc_find(d, a - d->mwin, true);
        if (!al) {
            return -1;
        }
        const vclock *vc = tick(s, &me);
        me.lo = a - d->mwin - al->off;
        me.hi = me.lo + n;
        return log_access(&al->log, 'm', al->id, false, &me, vc);
    }
    uint64_t voff = a - d->vwin;
    mock_resv *r = resv_find(d, voff);
    if (!r) {
        return -1;
    }
    const vclock *vc = tick(s, &me);
    uint64_t cur = voff - r->off, end = cur + n;
    int reported = -1;
    while (cur < end) {
        mock_map *m = map_find(r, cur);
        if (!m) {
            break;
        }
        uint64_t stop = m->off + m->size < end ? m->off + m->size : end;
        me.lo = cur - m->off;
        me.hi = stop - m->off;
        int k = log_access(&m->phys->log, 'p', m->phys->h.id, false, &me, vc);
        reported = reported < 0 ? k : reported;
        cur = stop;
    }
    return reported;
}

int order_access(mock_stream *s, const void *p, size_t n, bool write, int fn)
{
    return access_as(s, p, n, write, fn, false);
}

/* The words value writes were queued to, with the writer's clock after the
 * latest one; the oldest is forgotten when full (a later wait then misses
 * an ordering: the model may report a race it could have seen past, which
 * only a program with more than VALUE_SYNC_MAX live value words can meet). */
#define VALUE_SYNC_MAX 64

typedef struct value_sync {
    uintptr_t addr;
    vclock vc;
} value_sync;

static value_sync syncs[VALUE_SYNC_MAX];
static uint32_t nsyncs;

static value_sync *sync_find(uintptr_t a)
{
    for (uint32_t i = 0; i < nsyncs; i++) {
        if (syncs[i].addr == a) {
            return &syncs[i];
        }
    }
    return NULL;
}

int order_value_access(mock_stream *s, const void *p, bool write, int fn)
{
    int reported = access_as(s, p, sizeof(uint64_t), write, fn, true);
    uintptr_t a = (uintptr_t)p;
    value_sync *v = sync_find(a);
    if (!write) {
        if (v) {
            vc_join(&s->vc, &v->vc);
        }
        return reported;
    }
    if (!v) {
        if (nsyncs == VALUE_SYNC_MAX) {
            vc_free(&syncs[0].vc);
            memmove(&syncs[0], &syncs[1], (VALUE_SYNC_MAX - 1) * sizeof(syncs[0]));
            syncs[--nsyncs] = (value_sync){0};
        }
        v = &syncs[nsyncs++];
        v->addr = a;
    }
    vc_copy(&v->vc, &s->vc);
    return reported;
}

int order_free(acc_log **log, char tag, uint64_t id, uint64_t size)
{
    int reported = -1;
    if (*log) {
        acc_rec me = {.write = true, .free = true, .fn = tls()->cur_fn >= 0 ? tls()->cur_fn : FN_aclrtFree, .dev = -1};
        const vclock *vc = tick(NULL, &me);
        me.lo = 0;
        me.hi = size;
        reported = log_access(log, tag, id, tag == 'h', &me, vc);
    }
    order_log_free(log);
    return reported;
}

void order_journal(mock_call *c, int kind)
{
    if (kind >= 0) {
        jo_str(c, "misuse", misuse_name((aclmockMisuse)kind));
    }
}

void order_obj_free(mock_obj *o)
{
    if (o->kind == OBJ_STREAM) {
        vc_free(&((mock_stream *)o)->vc);
    } else if (o->kind == OBJ_EVENT) {
        vc_free(&((mock_event *)o)->vc);
    } else if (o->kind == OBJ_NOTIFY) {
        vc_free(&((mock_notify *)o)->vc);
    } else if (o->kind == OBJ_PHYS) {
        order_log_free(&((mock_phys *)o)->log);
    }
}

void order_reset_locked(void)
{
    for (uint32_t i = 0; i < nsyncs; i++) {
        vc_free(&syncs[i].vc);
    }
    nsyncs = 0;
    vc_free(&G.host_vc);
    G.host_ver = 0;
    G.next_ord = 0;
}
