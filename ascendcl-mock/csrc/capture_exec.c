/*
 * capture_exec.c: what a captured model does: aclmdlRIExecuteAsync queues a
 * copy of each of its tasks, in captured order, on the target stream;
 * aclmdlRIDestroy frees it; aclmdlRIDebugJsonPrint writes its task list.
 * Rules from hicann/runtime v8.5.0 (paths under src/):
 * - acl/aclrt_impl/model_ri.cpp:20-29, 31-40, 119-129: null model (and null
 *   path) -> 100000 from the acl layer;
 * - runtime/feature/src/api_impl/api_error.cc:3160-3172: executing on a
 *   stream that is being captured -> 107027;
 * - runtime/feature/src/model/capture_model.cc:165-172 and
 *   context/context.cc:2911-2919: executing or destroying a model that is
 *   still capturing -> 107026.
 * The runtime does not validate a destroyed model handle; the mock refuses
 * it with 107000 and counts a DESTROYED_HANDLE misuse.
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model behind a handle, or NULL (code in *rc, message set). */
static mock_model *model_arg(const void *handle, aclError *rc)
{
    if (!handle) {
        *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is null");
        return NULL;
    }
    mock_model *m = (mock_model *)obj_lookup(handle, OBJ_MODEL);
    if (!m || !m->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "model %p is %s", handle, m ? "destroyed" : "not a live model");
        *rc = fail(ACL_ERROR_RT_PARAM_INVALID, "model %p is %s", handle,
                   m ? "already destroyed" : "not a model of this runtime");
        return NULL;
    }
    return m;
}

/* A task of the model to queue once more; NULL for markers (event record
 * and wait: the single in-order list already keeps what they ordered). */
static mock_task *clone_task(const mock_task *t, bool *oom)
{
    *oom = false;
    if (t->kind == TASK_RECORD || t->kind == TASK_WAIT || t->kind == TASK_RESET_EVENT) {
        return NULL;
    }
    mock_task *n = t->kind == TASK_COMPUTE ? compute_task_clone(t) : task_new(t->kind);
    if (!n) {
        *oom = true;
        return NULL;
    }
    if (t->kind != TASK_COMPUTE) {
        n->u = t->u;
    }
    return n;
}

ACLMOCK_EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRIExecuteAsync);
    ja_obj(&c, "modelRI", modelRI, OBJ_MODEL);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError rc = ACL_SUCCESS;
    mock_model *m = model_arg(modelRI, &rc);
    if (!m) {
        return call_end(&c, rc);
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    rc = capture_refuse_stream_sync(s, "executing a model");
    if (rc) {
        return call_end(&c, rc);
    }
    if (capture_is_capturing(m)) {
        return call_end(&c, fail(ACL_ERROR_RT_MODEL_CAPTURED, "model m%llu is still capturing stream s%llu",
                                 (unsigned long long)m->h.id, (unsigned long long)m->origin->h.id));
    }
    if (s->device != m->device) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CONTEXT, "model m%llu was captured on device %d, stream s%llu is on device %d",
                                 (unsigned long long)m->h.id, m->device, (unsigned long long)s->h.id, s->device));
    }
    uint64_t queued = 0;
    for (const mock_task *t = m->head; t; t = t->next) {
        bool oom = false;
        mock_task *n = clone_task(t, &oom);
        if (oom) {
            return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory after %llu tasks",
                                     (unsigned long long)queued));
        }
        if (!n) {
            continue;
        }
        rc = stream_enqueue(s, n);
        if (rc) {
            return call_end(&c, rc);
        }
        n->origin = t->origin; /* still under the lock: the worker has not seen it */
        queued++;
    }
    m->replays++;
    jo_u64(&c, "tasks", queued);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRIDestroy);
    ja_obj(&c, "modelRI", modelRI, OBJ_MODEL);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError rc = ACL_SUCCESS;
    mock_model *m = model_arg(modelRI, &rc);
    if (!m) {
        return call_end(&c, rc);
    }
    if (capture_is_capturing(m)) {
        return call_end(&c, fail(ACL_ERROR_RT_MODEL_CAPTURED, "model m%llu is still capturing stream s%llu; end the capture first",
                                 (unsigned long long)m->h.id, (unsigned long long)m->origin->h.id));
    }
    /* queued replays hold their own copies of the tasks (compute jobs are
     * reference counted), so they still run after this */
    capture_free_model(m);
    return call_end(&c, ACL_SUCCESS);
}

static const char *task_name(task_kind k)
{
    switch (k) {
    case TASK_COPY: return "copy";
    case TASK_COPY2D: return "copy2d";
    case TASK_SET: return "memset";
    case TASK_RECORD: return "event_record";
    case TASK_RESET_EVENT: return "event_reset";
    case TASK_WAIT: return "event_wait";
    case TASK_HOSTFN: return "host_func";
    case TASK_CALLBACK: return "callback";
    case TASK_COMPUTE: return "kernel";
    case TASK_VALUE_WRITE: return "value_write";
    case TASK_VALUE_WAIT: return "value_wait";
    case TASK_NOTIFY_RECORD: return "notify_record";
    case TASK_NOTIFY_WAIT: return "notify_wait";
    }
    return "?";
}

ACLMOCK_EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclmdlRIDebugJsonPrint);
    ja_obj(&c, "modelRI", modelRI, OBJ_MODEL);
    ja_str(&c, "path", path);
    ja_u64(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError rc = ACL_SUCCESS;
    mock_model *m = model_arg(modelRI, &rc);
    if (!m) {
        return call_end(&c, rc);
    }
    if (!path) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "path is null"));
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "cannot write %s", path));
    }
    fprintf(f, "{\"model\":\"m%llu\",\"streams\":%zu,\"tasks\":[", (unsigned long long)m->h.id, m->nstreams);
    for (const mock_task *t = m->head; t; t = t->next) {
        fprintf(f, "%s{\"seq\":%llu,\"stream\":\"s%llu\",\"type\":\"%s\",\"api\":\"%s\"}", t == m->head ? "" : ",",
                (unsigned long long)t->seq, (unsigned long long)(t->on ? t->on->h.id : 0), task_name(t->kind),
                mock_fn_names[t->origin]);
    }
    fprintf(f, "]}\n");
    fclose(f);
    return call_end(&c, ACL_SUCCESS);
}

static bool task_touches(const mock_task *t, uintptr_t lo, uintptr_t hi)
{
    uintptr_t a, b;
    switch (t->kind) {
    case TASK_COPY:
        a = (uintptr_t)t->u.copy.dst, b = (uintptr_t)t->u.copy.src;
        return (a < hi && a + t->u.copy.count > lo) || (b < hi && b + t->u.copy.count > lo);
    case TASK_SET:
        a = (uintptr_t)t->u.set.dst;
        return a < hi && a + t->u.set.count > lo;
    case TASK_COPY2D: {
        size_t rows = t->u.copy2d.height ? t->u.copy2d.height - 1 : 0;
        a = (uintptr_t)t->u.copy2d.dst, b = (uintptr_t)t->u.copy2d.src;
        size_t da = t->u.copy2d.dpitch * rows + t->u.copy2d.width, sa = t->u.copy2d.spitch * rows + t->u.copy2d.width;
        return (a < hi && a + da > lo) || (b < hi && b + sa > lo);
    }
    case TASK_COMPUTE:
        return compute_task_touches(t, lo, hi);
    case TASK_VALUE_WRITE:
    case TASK_VALUE_WAIT:
        a = (uintptr_t)t->u.value.addr;
        return a < hi && a + sizeof(uint64_t) > lo;
    default:
        return false;
    }
}

void capture_note_free(const void *base, uint64_t size, const char *what)
{
    uintptr_t lo = (uintptr_t)base, hi = lo + size;
    for (mock_model *m = capture_live_models(); m; m = m->next_live) {
        for (const mock_task *t = m->head; t; t = t->next) {
            if (task_touches(t, lo, hi)) {
                char sym[96];
                sym_addr(base, sym, sizeof(sym));
                misuse(ACLMOCK_MISUSE_USE_AFTER_FREE,
                       "%s of %p (%s) while model m%llu, which uses it (task %llu, %s), is alive", what, base, sym,
                       (unsigned long long)m->h.id, (unsigned long long)t->seq, mock_fn_names[t->origin]);
                return;
            }
        }
    }
}
