/*
 * rec_core.c: the recording shim's machinery: finding the real functions,
 * the trace file and its header, the call prologue and epilogue, error
 * texts, and the control API (aclrecord.h).
 */
#include "rec.h"
#include "launch_key.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const rec_fn_names[RFN_COUNT] = {
#define REC_FN_NAME(n) #n,
#define REC_OP_NAME(Name, ...) "aclnn" #Name "GetWorkspaceSize", "aclnn" #Name,
    MOCK_FUNCTIONS(REC_FN_NAME)
    MOCK_HCCL_FUNCTIONS(REC_FN_NAME)
    REC_NN_FUNCTIONS(REC_FN_NAME)
    REC_OPS(REC_OP_NAME)
#undef REC_OP_NAME
#undef REC_FN_NAME
};

/* Guards everything below except the resolver's slots. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint64_t load_ns;
static void *self_base;

static bool recording;          /* a trace is wanted */
static bool from_env;           /* ... by ASCENDCL_RECORD_TRACE */
static char trace_path[4096];   /* as configured (may hold %p) */
static int fd = -1;             /* the open trace, -1 until the first call */
static bool open_failed;
static uint64_t seq, ncalls, gen = 1, next_tid;

static __thread uint64_t t_gen, t_tid;
static __thread void *t_base; /* object of the function this thread forwards to */
static __thread int t_in_nn;  /* forwarding an aclnn call: what the op libraries call is theirs */
static __thread char t_pending[4096];
static __thread size_t t_pending_len;
static __thread char t_returned[8192];

/* -------------------------------------------------------------- resolver */

static pthread_mutex_t resolver = PTHREAD_MUTEX_INITIALIZER;
static char target_path[4096]; /* ASCENDCL_RECORD_TARGET or aclrecordStart */
static void *target_handle, *fallback[2];
static bool target_tried, fallback_tried;
static void *slots[RFN_COUNT], *slot_base[RFN_COUNT];
static int slot_state[RFN_COUNT];
static bool warned[RFN_COUNT];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *object_base(const void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

static void prepare_fork(void)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_lock(&resolver);
}

static void parent_fork(void)
{
    pthread_mutex_unlock(&resolver);
    pthread_mutex_unlock(&lock);
}

/* A forked child writes its own trace (a new file: see open_trace). */
static void child_fork(void)
{
    pthread_mutex_unlock(&resolver);
    pthread_mutex_unlock(&lock);
    if (fd >= 0) {
        close(fd);
    }
    fd = -1;
    open_failed = false;
    seq = ncalls = 0;
}

static void init(void)
{
    load_ns = now_ns();
    self_base = object_base((const void *)&init);
    const char *trace = getenv("ASCENDCL_RECORD_TRACE");
    if (trace && *trace && strlen(trace) < sizeof(trace_path)) {
        snprintf(trace_path, sizeof(trace_path), "%s", trace);
        recording = from_env = true;
    }
    const char *target = getenv("ASCENDCL_RECORD_TARGET");
    if (target && *target && strlen(target) < sizeof(target_path)) {
        snprintf(target_path, sizeof(target_path), "%s", target);
    }
    pthread_atfork(prepare_fork, parent_fork, child_fork);
}

static void *lookup_locked(const char *name)
{
    if (target_path[0]) {
        if (!target_tried) {
            target_tried = true;
            target_handle = dlopen(target_path, RTLD_NOW | RTLD_LOCAL);
            if (!target_handle) {
                fprintf(stderr, "ascendcl-record: cannot open ASCENDCL_RECORD_TARGET=%s: %s\n", target_path,
                        dlerror());
            }
        }
        return target_handle ? dlsym(target_handle, name) : NULL;
    }
    void *p = dlsym(RTLD_NEXT, name);
    if (p && object_base(p) != self_base) {
        return p;
    }
    if (!fallback_tried) {
        fallback_tried = true;
        fallback[0] = dlopen("libascendcl.so", RTLD_NOW | RTLD_LOCAL);
        fallback[1] = dlopen("libacl_rt.so", RTLD_NOW | RTLD_LOCAL);
    }
    for (int i = 0; i < 2; i++) {
        p = fallback[i] ? dlsym(fallback[i], name) : NULL;
        if (p) {
            return p;
        }
    }
    return NULL;
}

void *rec_target(int fn)
{
    if (__atomic_load_n(&slot_state[fn], __ATOMIC_ACQUIRE)) {
        return slots[fn];
    }
    pthread_once(&once, init);
    pthread_mutex_lock(&resolver);
    if (!slot_state[fn]) {
        void *p = fn >= RFN_NN_FIRST     ? rec_nn_lookup_locked(rec_fn_names[fn], target_path, self_base)
                  : fn >= RFN_HCCL_FIRST ? rec_hccl_lookup_locked(rec_fn_names[fn], target_path, self_base)
                                         : lookup_locked(rec_fn_names[fn]);
        if (p && object_base(p) == self_base) {
            if (!warned[fn]) {
                fprintf(stderr, "ascendcl-record: %s resolves to the recorder itself; set ASCENDCL_RECORD_TARGET\n",
                        rec_fn_names[fn]);
            }
            p = NULL;
        }
        slots[fn] = p;
        slot_base[fn] = object_base(p);
        __atomic_store_n(&slot_state[fn], 1, __ATOMIC_RELEASE);
    }
    void *r = slots[fn];
    pthread_mutex_unlock(&resolver);
    return r;
}

/* Where calls go, for the header. */
static void target_name(char *out, size_t cap)
{
    if (target_path[0]) {
        snprintf(out, cap, "%s", target_path);
        return;
    }
    Dl_info info;
    void *p = rec_target(RFN_aclInit);
    if (p && dladdr(p, &info) && info.dli_fname) {
        snprintf(out, cap, "%s", info.dli_fname);
    } else {
        snprintf(out, cap, "(not found)");
    }
}

/* ----------------------------------------------------------------- trace */

static void expand_path(char *out, size_t cap, bool pid_suffix)
{
    char pid[32];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    size_t k = 0;
    for (const char *p = trace_path; *p && k + 24 < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            k += (size_t)snprintf(out + k, cap - k, "%s", pid);
            p++;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    if (pid_suffix) {
        char *dot = strrchr(out, '.');
        char *slash = strrchr(out, '/');
        char ext[64] = "";
        if (dot && (!slash || dot > slash) && strlen(dot) < sizeof(ext)) {
            snprintf(ext, sizeof(ext), "%s", dot);
            *dot = '\0';
        }
        size_t len = strlen(out);
        snprintf(out + len, cap - len, ".%s%s", pid, ext);
    }
}

static void write_all(const char *s, size_t n)
{
    while (n && fd >= 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void program_name(char *out, size_t cap)
{
    char buf[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    const char *slash = strrchr(buf, '/');
    snprintf(out, cap, "%s", slash ? slash + 1 : buf);
}

/* Opens the trace (under the lock) and writes the header. */
static bool open_trace_locked(bool truncate)
{
    if (fd >= 0) {
        return true;
    }
    if (open_failed) {
        return false;
    }
    char path[4200];
    expand_path(path, sizeof(path), false);
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_EXCL);
    fd = open(path, flags, 0644);
    if (fd < 0 && errno == EEXIST) {
        /* another process of this run has it: this process writes its own */
        expand_path(path, sizeof(path), true);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        open_failed = true;
        fprintf(stderr, "ascendcl-record: cannot create the trace %s: %s\n", path, strerror(errno));
        return false;
    }
    char target[4096], qtarget[8300], program[256], qprogram[600];
    target_name(target, sizeof(target));
    program_name(program, sizeof(program));
    json_quote(target, qtarget, sizeof(qtarget));
    json_quote(program, qprogram, sizeof(qprogram));
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    jbuf header;
    jb_init(&header);
    jb_printf(&header,
              "{\"format\":\"ascendcl-trace\",\"version\":2,\"producer\":\"ascendcl-record\",\"target\":%s,"
              "\"pid\":%ld,\"program\":%s,\"started_unix_ms\":%lld,\"launch\":",
              qtarget, (long)getpid(), qprogram,
              (long long)wall.tv_sec * 1000LL + (long long)(wall.tv_nsec / 1000000L));
    launch_key_json(&header);
    jb_append(&header, "}\n", 2);
    write_all(jb_str(&header), header.len);
    jb_free(&header);
    if (from_env) {
        fprintf(stderr, "ascendcl-record: recording AscendCL calls to %s (target %s)\n", path, target);
    }
    return true;
}

/* ------------------------------------------------------------------ calls */

bool rec_begin(rec_call *c, int fn, void *caller)
{
    pthread_once(&once, init);
    c->fn = fn;
    c->on = false;
    jb_init(&c->args);
    jb_init(&c->out);
    jb_init(&c->msg);
    c->last_kind = -1;
    c->last_id = 0;
    c->saved_base = t_base;
    if (t_base && object_base(caller) == t_base) {
        return false; /* the real library calling itself while serving a call */
    }
    if (t_in_nn) {
        return false; /* an operator library calling the runtime or its descriptors */
    }
    if (!__atomic_load_n(&recording, __ATOMIC_ACQUIRE)) {
        return false;
    }
    pthread_mutex_lock(&lock);
    if (!recording || !open_trace_locked(false)) {
        pthread_mutex_unlock(&lock);
        return false;
    }
    if (t_gen != gen) {
        t_gen = gen;
        t_tid = ++next_tid;
    }
    c->on = true;
    return true;
}

void rec_invoke(rec_call *c, void *real)
{
    t_base = real ? slot_base[c->fn] : NULL;
    if (c->fn >= RFN_NN_FIRST) {
        t_in_nn++;
    }
    pthread_mutex_unlock(&lock);
    c->t0 = now_ns();
}

static void add_pending(const char *text)
{
    size_t len = strlen(text);
    if (t_pending_len + len + 2 > sizeof(t_pending)) {
        t_pending_len = 0; /* keep the newest text */
    }
    if (len + 2 > sizeof(t_pending)) {
        len = sizeof(t_pending) - 2;
    }
    if (t_pending_len) {
        t_pending[t_pending_len++] = '\n';
    }
    memcpy(t_pending + t_pending_len, text, len);
    t_pending_len += len;
    t_pending[t_pending_len] = '\0';
}

void rec_returned(rec_call *c, aclError rc)
{
    c->t1 = now_ns();
    if (c->fn >= RFN_NN_FIRST && t_in_nn > 0) {
        t_in_nn--;
    }
    bool data = c->fn == RFN_aclrtGetLastError || c->fn == RFN_aclrtPeekAtLastError;
    if (rc != ACL_SUCCESS && !data && !c->msg.len) {
        /* Read the failure's text now (the program reads it later from us). */
        const char *(*get)(void) = (const char *(*)(void))rec_target(RFN_aclGetRecentErrMsg);
        t_base = slot_base[RFN_aclGetRecentErrMsg];
        const char *text = get ? get() : NULL;
        if (text && *text) {
            add_pending(text);
            jb_quote(&c->msg, text);
        }
    }
    t_base = c->saved_base;
    pthread_mutex_lock(&lock);
}

aclError rec_end(rec_call *c, aclError rc)
{
    jbuf line;
    jb_init(&line);
    jb_printf(&line, "{\"seq\":%llu,\"thread\":%llu,\"fn\":\"%s\",\"args\":{%s},\"out\":{%s},\"ret\":%d%s%s,"
                     "\"t_ns\":%llu,\"dur_ns\":%llu}\n",
              (unsigned long long)(seq + 1), (unsigned long long)t_tid, rec_fn_names[c->fn], jb_str(&c->args),
              jb_str(&c->out), rc, c->msg.len ? ",\"msg\":" : "", jb_str(&c->msg),
              (unsigned long long)(c->t0 - load_ns), (unsigned long long)(c->t1 - c->t0));
    if (fd >= 0) {
        seq++;
        ncalls++;
        write_all(jb_str(&line), line.len);
    }
    jb_free(&line);
    jb_free(&c->args);
    jb_free(&c->out);
    jb_free(&c->msg);
    pthread_mutex_unlock(&lock);
    return rc;
}

aclError rec_missing(rec_call *c)
{
    char text[4400];
    pthread_mutex_lock(&resolver);
    bool first = !warned[c->fn];
    warned[c->fn] = true;
    bool nn = c->fn >= RFN_NN_FIRST;
    bool hccl = !nn && c->fn >= RFN_HCCL_FIRST;
    snprintf(text, sizeof(text), "ascendcl-record: %s is not exported by %s; returning %s", rec_fn_names[c->fn],
             nn     ? "the aclnn libraries (libnnopbase.so, libopapi*.so)"
             : hccl ? "the HCCL library"
             : target_path[0] ? target_path
                              : "the next AscendCL library",
             nn ? "ACLNN_ERR_INNER_FIND_KERNEL_ERROR" : hccl ? "HCCL_E_NOT_SUPPORT" : "ACL_ERROR_API_NOT_SUPPORT");
    pthread_mutex_unlock(&resolver);
    if (first) {
        fprintf(stderr, "%s\n", text);
    }
    add_pending(text);
    if (c->on) {
        jb_quote(&c->msg, text);
    }
    return nn ? 561003 /* ACLNN_ERR_INNER_FIND_KERNEL_ERROR */ : hccl ? 5 /* HCCL_E_NOT_SUPPORT */ : ACL_ERROR_API_NOT_SUPPORT;
}

const char *rec_take_messages(const char *fresh)
{
    size_t k = 0;
    if (t_pending_len) {
        k = (size_t)snprintf(t_returned, sizeof(t_returned), "%s", t_pending);
    }
    if (fresh && *fresh && k < sizeof(t_returned) - 1) {
        snprintf(t_returned + k, sizeof(t_returned) - k, "%s%s", k ? "\n" : "", fresh);
        k = 1;
    }
    t_pending_len = 0;
    t_pending[0] = '\0';
    return k ? t_returned : NULL;
}

void *rec_quiet_enter(int fn)
{
    void *saved = t_base;
    t_base = slot_base[fn];
    return saved;
}

void rec_quiet_leave(void *saved) { t_base = saved; }

bool rec_recording(void)
{
    pthread_once(&once, init);
    return __atomic_load_n(&recording, __ATOMIC_ACQUIRE);
}

aclError rec_peek_error(void)
{
    aclError (*peek)(aclrtLastErrLevel) = (aclError (*)(aclrtLastErrLevel))rec_target(RFN_aclrtPeekAtLastError);
    void *saved = t_base;
    t_base = slot_base[RFN_aclrtPeekAtLastError];
    aclError rc = peek ? peek(ACL_RT_THREAD_LEVEL) : ACL_ERROR_FAILURE;
    t_base = saved;
    return rc;
}

/* ------------------------------------------------------------ control API */

REC_EXPORT int32_t aclrecordStart(const char *tracePath, const char *targetPath)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
    open_failed = false;
    seq = ncalls = 0;
    gen++;
    next_tid = 0;
    syms_reset_locked();
    if (targetPath) {
        pthread_mutex_lock(&resolver);
        snprintf(target_path, sizeof(target_path), "%s", targetPath);
        target_handle = NULL; /* never closed: code of it may still run */
        target_tried = false;
        memset(slot_state, 0, sizeof(slot_state));
        memset(warned, 0, sizeof(warned));
        pthread_mutex_unlock(&resolver);
    }
    int32_t rc = ACL_SUCCESS;
    from_env = false;
    if (tracePath && strlen(tracePath) < sizeof(trace_path)) {
        snprintf(trace_path, sizeof(trace_path), "%s", tracePath);
        if (!open_trace_locked(true)) {
            rc = ACL_ERROR_WRITE_FILE;
        }
    }
    __atomic_store_n(&recording, tracePath != NULL && rc == ACL_SUCCESS, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return rc;
}

REC_EXPORT void aclrecordStop(void)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    __atomic_store_n(&recording, false, __ATOMIC_RELEASE);
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
    pthread_mutex_unlock(&lock);
}

REC_EXPORT uint64_t aclrecordCalls(void)
{
    pthread_mutex_lock(&lock);
    uint64_t n = ncalls;
    pthread_mutex_unlock(&lock);
    return n;
}
