/*
 * capture.c: aclmdlRICaptureBegin/GetInfo/End/ThreadExchangeMode and the
 * checks other calls make while a capture is under way. Rules from
 * hicann/runtime v8.5.0 (paths under src/):
 * - acl/aclrt_impl/model_ri.cpp:50-70, 72-95, 97-117, 141-160: null stream,
 *   out-pointer or mode pointer -> 100000 from the acl layer; GetInfo with
 *   both out-pointers null -> 100000. A null stream is the default stream,
 *   so capture of the default stream is refused there.
 * - runtime/feature/src/api_impl/api_error.cc:5697-5705: mode outside
 *   [GLOBAL, RELAXED] -> 107000; 5786-5791 (ThreadExchangeCaptureMode): the
 *   same for the exchanged mode.
 * - runtime/feature/src/context/context.cc:4801-4807: Begin on a stream that
 *   is already capturing (or invalidated) -> 107027.
 * - context.cc:4855-4892 (CheckCaptureModelValidity, at End): every captured
 *   stream but the origin must end with an event record that a captured
 *   stream waited for, and at least one of those must be waited for by the
 *   origin -> 107025 otherwise.
 * - context.cc:5134-5163 (IsCaptureModeSupport): which threads a capture
 *   restricts, see mode_refuses below.
 * - common/errcode_manage.cc:128-150, 181, 229-231: the ACL codes (107005
 *   stream reused by too many models, 107025-107030, 107038, 507903).
 * Mock decisions (not in the source): a created handle of the default
 * stream is refused with 107000; End on a joined stream that is not the
 * origin -> 107029; a non-RELAXED capture ended from another thread ->
 * 107038 (the documented rule, code from errcode_manage.cc:150); End of an
 * invalidated capture -> 507903 and the model is destroyed, no model out.
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* errcode_manage.cc:128 RT_ERROR_STREAM_REUSE_LIMIT_MODEL_NUM: a stream can
 * be captured into at most this many live models. */
#define CAP_MODELS_PER_STREAM 256

static mock_model *live_models; /* every model not yet destroyed */

bool capture_is_capturing(const mock_model *m) { return m && (m->status == CAP_ACTIVE || m->status == CAP_INVALIDATED); }

bool capture_event_captured(const mock_event *ev) { return ev->cap && capture_is_capturing(ev->cap); }

void capture_invalidate(mock_model *m, const char *fmt, ...)
{
    if (!m || m->status != CAP_ACTIVE) {
        return;
    }
    m->status = CAP_INVALIDATED;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof(m->why), fmt, ap);
    va_end(ap);
}

static size_t stream_index(const mock_model *m, const mock_stream *s)
{
    for (size_t i = 0; i < m->nstreams; i++) {
        if (m->streams[i] == s) {
            return i;
        }
    }
    return (size_t)-1;
}

static bool model_add_stream(mock_model *m, mock_stream *s)
{
    if (m->nstreams == m->capstreams) {
        size_t ncap = m->capstreams ? m->capstreams * 2 : 4;
        mock_stream **ns = realloc(m->streams, ncap * sizeof(*ns));
        if (!ns) {
            return false;
        }
        m->streams = ns;
        uint64_t *nc = realloc(m->counts, ncap * sizeof(*nc));
        if (!nc) {
            return false;
        }
        m->counts = nc;
        m->capstreams = ncap;
    }
    m->streams[m->nstreams] = s;
    m->counts[m->nstreams++] = 0;
    s->cap = m;
    s->cap_reuse++;
    return true;
}

aclError capture_take(mock_stream *s, mock_task *t)
{
    mock_model *m = s->cap;
    t->next = NULL;
    if (m->tail) {
        m->tail->next = t;
    } else {
        m->head = t;
    }
    m->tail = t;
    t->seq = ++m->ntasks;
    t->on = s;
    size_t i = stream_index(m, s);
    if (i != (size_t)-1) {
        m->counts[i]++;
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ refusals */

aclError capture_refuse_stream_sync(mock_stream *s, const char *what)
{
    if (!s || !capture_is_capturing(s->cap)) {
        return ACL_SUCCESS;
    }
    /* api_error.cc:1011 (synchronize), 1037 (query), 978 (destroy), 3166 (execute on it) */
    capture_invalidate(s->cap, "%s of captured stream s%llu", what, (unsigned long long)s->h.id);
    return fail(ACL_ERROR_RT_STREAM_CAPTURED, "%s of stream s%llu is not allowed while it is captured (model m%llu)",
                what, (unsigned long long)s->h.id, (unsigned long long)s->cap->h.id);
}

aclError capture_refuse_device_sync(mock_ctx *ctx)
{
    /* context.cc:700-712: a device synchronize refuses captured streams */
    aclError rc = ACL_SUCCESS;
    for (mock_model *m = live_models; m; m = m->next_live) {
        if (capture_is_capturing(m) && m->device == ctx->device) {
            capture_invalidate(m, "device synchronize during the capture");
            if (!rc) {
                rc = fail(ACL_ERROR_RT_STREAM_CAPTURED,
                          "synchronizing device %d is not allowed while stream s%llu is captured (model m%llu)",
                          ctx->device, (unsigned long long)m->origin->h.id, (unsigned long long)m->h.id);
            }
        }
    }
    return rc;
}

aclError capture_refuse_event_use(mock_event *ev, const char *what)
{
    if (!ev || !capture_event_captured(ev)) {
        return ACL_SUCCESS;
    }
    /* api_error.cc:1292 (synchronize), 1305, 1315, 1329 (queries), 1339
     * (elapsed time), 1356 (timestamp): Event::IsCapturing, event.cc:1230-1237 */
    capture_invalidate(ev->cap, "%s of captured event e%llu", what, (unsigned long long)ev->h.id);
    return fail(ACL_ERROR_RT_EVENT_CAPTURED, "%s of event e%llu is not allowed: it was recorded in the capture of model m%llu",
                what, (unsigned long long)ev->h.id, (unsigned long long)ev->cap->h.id);
}

/* context.cc:5134-5163 with the context's mode (GLOBAL if a GLOBAL capture
 * is under way, else that of any capture), the thread's own capture and its
 * exchanged mode. */
static bool mode_refuses(mock_ctx *ctx)
{
    int ctx_mode = -1;
    for (mock_model *m = live_models; m; m = m->next_live) {
        if (capture_is_capturing(m) && m->ctx == ctx && (ctx_mode < 0 || m->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)) {
            ctx_mode = m->mode;
        }
    }
    if (ctx_mode < 0) {
        return false;
    }
    int thread_mode = tls()->cap_mode - 1;
    int xmode = tls()->xmode;
    if (xmode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        return false;
    }
    if (xmode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) {
        return ctx_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    }
    return thread_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
}

aclError capture_refuse_unsafe_call(const char *what)
{
    mock_ctx *ctx = cur_ctx();
    if (!ctx || !live_models || !mode_refuses(ctx)) {
        return ACL_SUCCESS;
    }
    /* api_impl.cc:2691 (MemCopySync), 2724 (MemCopySyncEx), 3059 (MemSetSync),
     * 6599 (MemCopy2DSync), 6653 (MemcpyHostTask) -> 107030; the mock also
     * invalidates the captures that restrict this thread */
    uint64_t me = thread_small_id();
    for (mock_model *m = live_models; m; m = m->next_live) {
        if (capture_is_capturing(m) && m->ctx == ctx &&
            (m->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || (m->mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL && m->tid == me))) {
            capture_invalidate(m, "%s during the capture", what);
        }
    }
    return fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                "%s is not allowed on this thread while a capture is under way (thread mode %d, capture mode %d)", what,
                tls()->xmode, tls()->cap_mode - 1);
}

/* ------------------------------------------------------- events in capture */

/* api_impl.cc:2110-2125 (EventRecord): an event recorded on a captured stream
 * must be an Ex event (207000 otherwise, no text: COND_RETURN_WARN); the
 * default stream cannot record a captured event -> 107031. */
bool capture_record(mock_event *ev, mock_stream *s, aclError *rc)
{
    if (s->is_default && capture_event_captured(ev)) {
        *rc = fail(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, "the default stream cannot record event e%llu of a capture",
                   (unsigned long long)ev->h.id);
        return true;
    }
    if (!capture_is_capturing(s->cap)) {
        return false;
    }
    if (!ev->ex) {
        capture_invalidate(s->cap, "event e%llu (not an Ex event) recorded in the capture", (unsigned long long)ev->h.id);
        *rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return true;
    }
    mock_task *t = task_new(TASK_RECORD);
    if (!t) {
        *rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return true;
    }
    t->u.ev.ev = ev;
    t->origin = FN_aclrtRecordEvent;
    capture_take(s, t);
    ev->cap = s->cap;
    ev->cap_stream = s;
    size_t i = stream_index(s->cap, s);
    ev->cap_pos = i == (size_t)-1 ? 0 : s->cap->counts[i];
    ev->cap_waited = false;
    order_record(ev, s); /* the happens-before model sees the captured fork/join */
    *rc = ACL_SUCCESS;
    return true;
}

/* api_impl.cc:1533-1545 (StreamWaitEvent): a wait for a captured event
 * joins the waiting stream to the capture; the default stream cannot
 * -> 107031. */
bool capture_wait(mock_event *ev, mock_stream *s, aclError *rc)
{
    if (!capture_event_captured(ev)) {
        if (capture_is_capturing(s->cap)) {
            /* a captured stream waiting for outside work: the mock keeps
             * the order by completing that work first at capture time */
            return false;
        }
        return false;
    }
    mock_model *m = ev->cap;
    if (s->is_default) {
        capture_invalidate(m, "the default stream waited for captured event e%llu", (unsigned long long)ev->h.id);
        *rc = fail(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, "the default stream cannot wait for event e%llu of a capture",
                   (unsigned long long)ev->h.id);
        return true;
    }
    if (s->cap && s->cap != m && capture_is_capturing(s->cap)) {
        *rc = fail(ACL_ERROR_STREAM_CAPTURE_CONFLICT, "stream s%llu is captured into another model",
                   (unsigned long long)s->h.id);
        return true;
    }
    if (s->cap != m) {
        if (!model_add_stream(m, s)) {
            *rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
            return true;
        }
    }
    mock_task *t = task_new(TASK_WAIT);
    if (!t) {
        *rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return true;
    }
    t->u.ev.ev = ev;
    t->origin = FN_aclrtStreamWaitEvent;
    capture_take(s, t);
    order_wait(s, ev);
    if (ev->cap_stream != s) {
        ev->cap_waited = true;
    }
    *rc = ACL_SUCCESS;
    return true;
}

/* ------------------------------------------------------------ model life */

static void model_end_streams(mock_model *m)
{
    for (size_t i = 0; i < m->nstreams; i++) {
        if (m->streams[i]->cap == m) {
            m->streams[i]->cap = NULL;
            /* the accesses of captured tasks entered the happens-before
             * model when they were queued, but those tasks never run in the
             * stream's order: nothing of them is outstanding on it (a mock
             * simplification: work queued on the stream before the capture
             * began counts as known done too) */
            order_host_learn(&m->streams[i]->vc);
        }
    }
    if (tls()->cap_mode && m->tid == thread_small_id()) {
        tls()->cap_mode = 0;
    }
}

void capture_free_model(mock_model *m)
{
    model_end_streams(m);
    for (size_t i = 0; i < m->nstreams; i++) {
        if (m->streams[i]->cap_reuse) {
            m->streams[i]->cap_reuse--;
        }
    }
    mock_task *t = m->head;
    while (t) {
        mock_task *next = t->next;
        if (t->kind == TASK_COMPUTE) {
            t->u.compute.finish(t, false); /* releases the job (its last reference) */
        }
        task_free(t);
        t = next;
    }
    m->head = m->tail = NULL;
    free(m->streams);
    free(m->counts);
    m->streams = NULL;
    m->counts = NULL;
    m->nstreams = 0;
    m->h.alive = false;
    for (mock_model **link = &live_models; *link; link = &(*link)->next_live) {
        if (*link == m) {
            *link = m->next_live;
            break;
        }
    }
}

mock_model *capture_live_models(void) { return live_models; }

void capture_reset_locked(void)
{
    while (live_models) {
        capture_free_model(live_models);
    }
}

static bool valid_mode(int mode) { return mode >= ACL_MODEL_RI_CAPTURE_MODE_GLOBAL && mode <= ACL_MODEL_RI_CAPTURE_MODE_RELAXED; }

ACLMOCK_EXPORT aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRICaptureBegin);
    ja_stream(&c, "stream", stream);
    ja_i64(&c, "mode", (int64_t)mode);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null (the default stream cannot be captured)"));
    }
    if (!valid_mode((int)mode)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "capture mode %d is out of range [0, 2]", (int)mode));
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (s->is_default) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "the default stream cannot be captured"));
    }
    if (s->cap) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CAPTURED, "stream s%llu is already captured (model m%llu)",
                                 (unsigned long long)s->h.id, (unsigned long long)s->cap->h.id));
    }
    if (s->cap_reuse >= CAP_MODELS_PER_STREAM) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_MODEL, "stream s%llu is already used by %u models (at most %d)",
                                 (unsigned long long)s->h.id, s->cap_reuse, CAP_MODELS_PER_STREAM));
    }
    mock_model *m = calloc(1, sizeof(*m));
    if (!m) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    obj_register(&m->h, OBJ_MODEL, ++G.next_model);
    m->ctx = s->ctx;
    m->device = s->device;
    m->status = CAP_ACTIVE;
    m->mode = (int)mode;
    m->tid = thread_small_id();
    m->origin = s;
    if (!model_add_stream(m, s)) {
        m->h.alive = false;
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    m->next_live = live_models;
    live_models = m;
    tls()->cap_mode = (int)mode + 1;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRICaptureGetInfo);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null"));
    }
    if (!status && !modelRI) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "status and modelRI cannot both be null"));
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    mock_model *m = capture_is_capturing(s->cap) ? s->cap : NULL;
    int st = !m ? ACL_MODEL_RI_CAPTURE_STATUS_NONE
                : m->status == CAP_ACTIVE ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    if (status) {
        *status = (aclmdlRICaptureStatus)st;
    }
    if (modelRI) {
        *modelRI = m;
    }
    jo_i64(&c, "status", st);
    jo_obj(&c, "modelRI", m, OBJ_MODEL);
    return call_end(&c, ACL_SUCCESS);
}

/* context.cc:4855-4892: 0, or what is wrong. */
static const char *unjoined(const mock_model *m, unsigned long long *sid)
{
    bool only_origin = true, back_to_origin = false;
    for (size_t i = 0; i < m->nstreams; i++) {
        const mock_stream *s = m->streams[i];
        if (s == m->origin) {
            continue;
        }
        only_origin = false;
        *sid = s->h.id;
        /* the stream's last captured task must be a record some captured stream waited for */
        const mock_task *last = NULL;
        for (const mock_task *t = m->head; t; t = t->next) {
            if (t->on == s) {
                last = t;
            }
        }
        if (!last || last->kind != TASK_RECORD) {
            return "its last captured task is not an event record";
        }
        const mock_event *ev = last->u.ev.ev;
        if (!ev->cap_waited || ev->cap_stream != s) {
            return "the event it recorded last was not waited for in the capture";
        }
        for (const mock_task *t = last->next; t; t = t->next) {
            if (t->kind == TASK_WAIT && t->u.ev.ev == ev && t->on == m->origin) {
                back_to_origin = true;
            }
        }
    }
    return only_origin || back_to_origin ? NULL : "no captured stream joined back to the origin stream";
}

ACLMOCK_EXPORT aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRICaptureEnd);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!stream || !modelRI) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", stream ? "modelRI" : "stream"));
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    mock_model *m = s->cap;
    if (!capture_is_capturing(m)) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream s%llu is not captured",
                                 (unsigned long long)s->h.id));
    }
    if (m->origin != s) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                                 "stream s%llu joined the capture of s%llu; end the capture on s%llu",
                                 (unsigned long long)s->h.id, (unsigned long long)m->origin->h.id,
                                 (unsigned long long)m->origin->h.id));
    }
    if (m->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && m->tid != thread_small_id()) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                                 "the capture of s%llu (mode %d) must end on the thread that began it",
                                 (unsigned long long)s->h.id, m->mode));
    }
    *modelRI = NULL;
    if (m->status == CAP_INVALIDATED) {
        char why[256];
        snprintf(why, sizeof(why), "%s", m->why);
        capture_free_model(m);
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                                 "the capture of stream s%llu was invalidated (%s); no model was made",
                                 (unsigned long long)s->h.id, why));
    }
    unsigned long long sid = 0;
    const char *bad = unjoined(m, &sid);
    if (bad) {
        capture_free_model(m);
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_UNJOINED, "captured stream s%llu did not rejoin s%llu: %s", sid,
                                 (unsigned long long)s->h.id, bad));
    }
    model_end_streams(m);
    m->status = CAP_READY;
    *modelRI = m;
    jo_obj(&c, "modelRI", m, OBJ_MODEL);
    jo_u64(&c, "tasks", m->ntasks);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRICaptureThreadExchangeMode);
    ja_i64(&c, "mode", mode ? (int64_t)*mode : -1);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!mode) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "mode is null"));
    }
    if (!valid_mode((int)*mode)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "capture mode %d is out of range [0, 2]", (int)*mode));
    }
    int old = tls()->xmode;
    tls()->xmode = (int)*mode;
    *mode = (aclmdlRICaptureMode)old;
    jo_i64(&c, "mode", old);
    return call_end(&c, ACL_SUCCESS);
}
