/*
 * nn_executor.c (libnnopbase.so): op executors. Phase 1 of an op (libopapi)
 * builds one with aclmocknn_executor_new/_add; phase 2 runs it through
 * aclmocknn_executor_launch, which queues the op's kernel on the stream.
 *
 * Rules (opbase v8.5.0 src/nnopbase/composite_op/aclnn_engine/op_executor.cpp,
 * CommonOpExecutorRun, is the phase 2 of every op):
 * - a null executor is 161001 (op_executor.cpp:1386-1389);
 * - workspaceSize > 0 with a null workspace is 161001, and the executor is
 *   deleted, repeatable or not (op_executor.cpp:1390-1394, DeleteExecutorForError
 *   at :1371-1381);
 * - after running, a single-use executor is deleted whatever the result, a
 *   repeatable one kept (op_executor.cpp:1416-1420); it becomes repeatable
 *   only through aclSetAclOpExecutorRepeatable (:186) and is then freed by
 *   aclDestroyAclOpExecutor (aclnn-facts.md A.2.2);
 * - a second launch of a single-use executor uses deleted memory in the real
 *   library: the source cannot decide a code. The mock answers 161002 with a
 *   message and counts a DESTROYED_HANDLE misuse;
 * - the real library does not compare workspaceSize with the size phase 1
 *   returned; the mock rejects a smaller one with 161002 (a device would
 *   write past the buffer), consuming a single-use executor like a failed run;
 * - a phase-2 call failed by an injected fault consumes a single-use
 *   executor too (the mock's rule, like a failed run);
 * - the tensors' addresses are read at launch time from the executor, so
 *   aclSet*TensorAddr re-points a repeatable executor.
 */
#include "nn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void arg_exec(aclmock_call *c, const aclOpExecutor *e)
{
    char sym[32];
    if (e && aclmocknn_is_live(e, MK_EXECUTOR)) {
        snprintf(sym, sizeof(sym), "x%llu", (unsigned long long)e->id);
        aclmock_arg_str(c, "executor", sym);
    } else {
        snprintf(sym, sizeof(sym), "?%p", (const void *)e);
        aclmock_arg_str(c, "executor", e ? sym : NULL);
    }
}

/* The "tensor" argument of the re-pointing functions. */
static void arg_tensor(aclmock_call *c, const aclTensor *t)
{
    char sym[32];
    if (t && aclmocknn_is_live(t, MK_TENSOR)) {
        snprintf(sym, sizeof(sym), "t%llu", (unsigned long long)t->id);
        aclmock_arg_str(c, "tensor", sym);
    } else {
        snprintf(sym, sizeof(sym), "?%p", (const void *)t);
        aclmock_arg_str(c, "tensor", t ? sym : NULL);
    }
}

OPS_EXPORT aclOpExecutor *aclmocknn_executor_new(const char *op, mk_kernel kernel, uint64_t ws_size)
{
    aclOpExecutor *e = calloc(1, sizeof(*e));
    if (!e || !nn_reg_add(e, MK_EXECUTOR)) {
        free(e);
        aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
        return NULL;
    }
    e->id = nn_next_id();
    e->op = op;
    e->ws_size = ws_size;
    e->job.kernel = kernel;
    aclmock_live_add(ACLMOCK_RES_ACLNN_EXECUTOR, 1);
    return e;
}

/* Room for one more slot: the three per-slot arrays grow together. */
static bool slots_reserve(aclOpExecutor *e)
{
    if (e->job.nslots < e->job.cap) {
        return true;
    }
    uint32_t cap = e->job.cap ? e->job.cap * 2 : MK_INLINE_SLOTS;
    mk_view *slot = realloc(e->job.slot, cap * sizeof(*slot));
    if (slot) {
        e->job.slot = slot;
    }
    bool *w = slot ? realloc(e->job.slot_write, cap * sizeof(*w)) : NULL;
    if (w) {
        e->job.slot_write = w;
    }
    const aclTensor **src = w ? realloc(e->src, cap * sizeof(*src)) : NULL;
    if (!src) {
        return false; /* the arrays that grew stay valid at their old length */
    }
    e->src = src;
    e->job.cap = cap;
    return true;
}

OPS_EXPORT uint32_t aclmocknn_executor_add(aclOpExecutor *e, const aclTensor *t, bool input, bool output)
{
    (void)input;
    if (!slots_reserve(e)) {
        if (!e->oom) {
            aclmock_fail(ACLNN_ERR_INNER, "%s: out of host memory adding tensor slot %u", e->op, e->job.nslots);
        }
        e->oom = true;
        return 0;
    }
    uint32_t s = e->job.nslots++;
    e->src[s] = t;
    if (t) {
        e->job.slot[s] = t->v;
    } else {
        memset(&e->job.slot[s], 0, sizeof(e->job.slot[s]));
        e->job.slot[s].dtype = ACL_DT_UNDEFINED;
    }
    e->job.slot_write[s] = output;
    return s;
}

static void executor_free(aclOpExecutor *e)
{
    nn_reg_del(e, MK_EXECUTOR);
    aclmock_live_add(ACLMOCK_RES_ACLNN_EXECUTOR, -1);
    free(e->job.slot);
    free(e->job.slot_write);
    free(e->src);
    free(e);
}

OPS_EXPORT void aclmocknn_executor_drop(aclOpExecutor *e)
{
    if (e) {
        executor_free(e);
    }
}

static int64_t view_numel(const mk_view *v)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < v->ndim; i++) {
        n *= v->dims[i];
    }
    return n;
}

static void run_job(void *job, void *const *bufs)
{
    const mk_job *j = job;
    j->kernel(j, bufs);
}

static int32_t run_status_job(void *job, void *const *bufs, char *msg, size_t cap)
{
    const mk_job *j = job;
    return j->status_kernel(j, bufs, msg, cap);
}

/* A queued job owns copies of the slot arrays (the executor may be freed or
 * re-pointed before the stream runs it). */
static void free_job(void *job)
{
    mk_job *j = job;
    free(j->slot);
    free(j->slot_write);
    free(j);
}

/* A span's role: it must outlive the task (compute_finish names it). */
static const char *slot_role(uint32_t i)
{
    static const char *const roles[] = {"tensor 0",  "tensor 1",  "tensor 2",  "tensor 3",  "tensor 4",
                                        "tensor 5",  "tensor 6",  "tensor 7",  "tensor 8",  "tensor 9",
                                        "tensor 10", "tensor 11", "tensor 12", "tensor 13", "tensor 14",
                                        "tensor 15"};
    return i < sizeof(roles) / sizeof(roles[0]) ? roles[i] : "a tensor past the 16th";
}

/* Checks the executor and workspace and queues the kernel. */
static aclnnStatus launch(aclmock_call *c, void *workspace, uint64_t wsSize, aclOpExecutor *e, aclrtStream stream)
{
    if (e->ws_size && (wsSize < e->ws_size || !workspace)) {
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID,
                            "%s needs a workspace of %llu bytes (from its GetWorkspaceSize) but got %llu bytes at %p",
                            e->op, (unsigned long long)e->ws_size, (unsigned long long)wsSize, workspace);
    }
    uint32_t ns = e->job.nslots;
    aclmock_span *spans = calloc(ns + 1, sizeof(*spans));
    mk_job *copy = malloc(sizeof(*copy));
    mk_view *slot = malloc((ns ? ns : 1) * sizeof(*slot));
    bool *slot_write = malloc((ns ? ns : 1) * sizeof(*slot_write));
    if (!spans || !copy || !slot || !slot_write) {
        free(spans);
        free(copy);
        free(slot);
        free(slot_write);
        return aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < ns; i++) {
        const mk_view *v = &e->job.slot[i];
        aclmock_span *sp = &spans[n++];
        sp->role = slot_role(i);
        sp->use = e->job.slot_write[i] ? ACLMOCK_SPAN_WRITE : ACLMOCK_SPAN_READ;
        if (v->dtype == ACL_DT_UNDEFINED || view_numel(v) == 0) {
            continue;
        }
        /* device addresses must be 32-byte aligned (aclnn-facts.md A.2.2, aclCreateTensor) */
        if ((uintptr_t)v->addr % 32) {
            aclnnStatus rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s address %p is not 32-byte aligned", e->op,
                                          sp->role, v->addr);
            free(spans);
            free(copy);
            free(slot);
            free(slot_write);
            return rc;
        }
        int64_t last = 0;
        for (uint32_t d = 0; d < v->ndim; d++) {
            last += (v->dims[d] - 1) * v->strides[d];
        }
        size_t es = mk_dtype_size(v->dtype);
        sp->addr = (const char *)v->addr + v->offset * (int64_t)es;
        sp->bytes = (uint64_t)(last + 1) * es;
    }
    if (e->ws_size) {
        aclmock_span *sp = &spans[n++];
        sp->addr = workspace;
        sp->bytes = e->ws_size;
        sp->use = ACLMOCK_SPAN_CHECK;
        sp->role = "workspace";
    }
    memcpy(copy, &e->job, sizeof(*copy));
    if (ns) {
        memcpy(slot, e->job.slot, ns * sizeof(*slot));
        memcpy(slot_write, e->job.slot_write, ns * sizeof(*slot_write));
    }
    copy->slot = slot;
    copy->slot_write = slot_write;
    copy->cap = ns;
    aclnnStatus rc = copy->status_kernel
                         ? aclmock_compute_enqueue_status(c, stream, spans, n, run_status_job, free_job, copy)
                         : aclmock_compute_enqueue(c, stream, spans, n, run_job, free_job, copy);
    free(spans);
    return rc;
}

OPS_EXPORT aclnnStatus aclmocknn_executor_launch(aclmock_call *c, int32_t fault, const char *op, void *workspace,
                                                 uint64_t ws_size, aclOpExecutor *e, aclrtStream stream)
{
    aclmock_arg_ptr(c, "workspace", workspace);
    aclmock_arg_u64(c, "workspaceSize", ws_size);
    arg_exec(c, e);
    aclmock_arg_stream(c, "stream", stream);
    if (!fault) {
        fault = aclmock_call_check(c); /* after the arguments: a strict replay compares them */
    }
    if (fault) {
        /* consumed like a failed run (see the rules above) */
        if (e && aclmocknn_is_live(e, MK_EXECUTOR) && !e->repeatable) {
            executor_free(e);
        }
        return fault;
    }
    if (!e) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    }
    if (!aclmocknn_is_live(e, MK_EXECUTOR)) {
        aclmock_misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "executor %p launched after it was freed", (void *)e);
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID,
                            "executor %p is not live: a single-use executor is freed by its first launch "
                            "(aclSetAclOpExecutorRepeatable makes one reusable), and a destroyed one is gone",
                            (void *)e);
    }
    aclnnStatus rc;
    if (ws_size > 0 && !workspace) {
        rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "workspace is null but workspaceSize is %llu",
                          (unsigned long long)ws_size);
        executor_free(e); /* even a repeatable one (op_executor.cpp:1390-1394) */
        return rc;
    }
    if (strcmp(e->op, op) != 0) {
        rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "executor x%llu was built by %sGetWorkspaceSize, not for %s",
                          (unsigned long long)e->id, e->op, op);
    } else {
        rc = launch(c, workspace, ws_size, e, stream);
    }
    if (!e->repeatable) {
        executor_free(e);
    }
    return rc;
}

/* Common checks of the executor functions; 0 or the status. */
static aclnnStatus exec_arg(const aclOpExecutor *e)
{
    if (!e) {
        return aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    }
    if (!aclmocknn_is_live(e, MK_EXECUTOR)) {
        aclmock_misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "executor %p is not live", (const void *)e);
        return aclmock_fail(ACLNN_ERR_PARAM_INVALID, "executor %p is not live (freed by its launch, or destroyed)",
                            (const void *)e);
    }
    return 0;
}

OPS_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclSetAclOpExecutorRepeatable));
    arg_exec(&c, executor);
    int32_t rc = aclmock_call_check(&c);
    if (!rc && !(rc = exec_arg(executor))) {
        executor->repeatable = true;
    }
    return aclmock_call_end(&c, rc);
}

OPS_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclDestroyAclOpExecutor));
    arg_exec(&c, executor);
    int32_t rc = aclmock_call_check(&c);
    if (!rc && !(rc = exec_arg(executor))) {
        executor_free(executor);
    }
    return aclmock_call_end(&c, rc);
}

/* aclSet{Input,Output,}TensorAddr (opbase v8.5.0 src/nnopbase/common/api/
 * acl_op_api.cpp:332-345, :353-364, :424-440): a null tensor is 561103
 * (ACLNN_ERR_INNER_NULLPTR); the tensor's storage address is set first, then
 * a null executor is 561103 too; for the executors of these composite ops
 * the index is unused ([[maybe_unused]]): the executor holds the tensors
 * themselves, so every use of `tensor` in it follows. The mock's executor
 * holds copies, so it re-points every slot built from `tensor`. The Acl*
 * spellings forward to the acl* ones (:347-351, :366-370). */
static aclnnStatus set_addr(int fn, aclOpExecutor *e, size_t index, aclTensor *tensor, void *addr)
{
    aclmock_call c;
    aclmock_call_start(&c, fn);
    arg_exec(&c, e);
    aclmock_arg_u64(&c, "index", index);
    arg_tensor(&c, tensor);
    aclmock_arg_ptr(&c, "addr", addr);
    int32_t rc = aclmock_call_check(&c);
    if (rc) {
        return aclmock_call_end(&c, rc);
    }
    if (!tensor) {
        return aclmock_call_end(&c, aclmock_fail(ACLNN_ERR_INNER_NULLPTR, "tensor is null"));
    }
    if (!aclmocknn_is_live(tensor, MK_TENSOR)) {
        return aclmock_call_end(&c, aclmock_fail(ACLNN_ERR_PARAM_INVALID, "tensor %p is not a live aclTensor",
                                                 (void *)tensor));
    }
    tensor->v.addr = addr;
    if (!e) {
        return aclmock_call_end(&c, aclmock_fail(ACLNN_ERR_INNER_NULLPTR, "executor is null"));
    }
    if ((rc = exec_arg(e))) {
        return aclmock_call_end(&c, rc);
    }
    for (uint32_t s = 0; s < e->job.nslots; s++) {
        if (e->src[s] == tensor) {
            e->job.slot[s].addr = addr;
        }
    }
    return aclmock_call_end(&c, 0);
}

/* Both spellings exist in acl_meta.h (opbase v8.5.0 include/nnopbase/aclnn/
 * acl_meta.h:103-128). */
OPS_EXPORT aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr(MK_FN(aclSetInputTensorAddr), executor, index, tensor, addr);
}
OPS_EXPORT aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                              void *addr)
{
    return set_addr(MK_FN(aclSetOutputTensorAddr), executor, index, tensor, addr);
}
OPS_EXPORT aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr(MK_FN(aclSetTensorAddr), executor, index, tensor, addr);
}
OPS_EXPORT aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr(MK_FN(AclSetInputTensorAddr), executor, index, tensor, addr);
}
OPS_EXPORT aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                              void *addr)
{
    return set_addr(MK_FN(AclSetOutputTensorAddr), executor, index, tensor, addr);
}
OPS_EXPORT aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr(MK_FN(AclSetTensorAddr), executor, index, tensor, addr);
}

/* aclnnInit / aclnnFinalize (aclnn_base.h v8.5.0): accepted and harmless;
 * "calling both [aclInit and aclnnInit] raises no error" (aclnn-facts.md C). */
OPS_EXPORT aclnnStatus aclnnInit(const char *configPath)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(aclnnInit));
    aclmock_arg_str(&c, "configPath", configPath);
    int32_t rc = aclmock_call_check(&c);
    return aclmock_call_end(&c, rc);
}

OPS_EXPORT aclnnStatus aclnnFinalize(void)
{
    aclmock_call c;
    int32_t rc = aclmock_call_begin(&c, MK_FN(aclnnFinalize));
    return aclmock_call_end(&c, rc);
}
