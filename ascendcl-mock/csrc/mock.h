/*
 * mock.h: internal types and helpers of the ascendcl behavioural mock.
 *
 * Locking model: one process-wide mutex (G.lock) guards every piece of mock
 * state. Every exported ACL function takes it in call_begin() and releases it
 * in call_end(); functions that wait (synchronize, pageable async copies,
 * aclrtProcessReport) release it while blocked on a condition variable.
 * Stream workers take it too, but drop it while sleeping the configured
 * delay and while running user callbacks.
 *
 * Handle model: contexts, streams, events and physical handles are heap
 * objects that are never freed before aclmockReset ("zombies" after destroy),
 * and a hash set of every handle handed out since the last reset is checked
 * before any handle is dereferenced. A handle from before a reset, or any
 * random pointer, is therefore never read.
 */
#ifndef ACLMOCK_INTERNAL_MOCK_H
#define ACLMOCK_INTERNAL_MOCK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <acl/acl.h>
#include <acl/acl_dump.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclmock.h"
#include "order.h"

#define ACLMOCK_EXPORT __attribute__((visibility("default")))
#define MOCK_PRINTF(f, a) __attribute__((format(printf, f, a)))

#define MOCK_MAX_DEVICES 64
#define MOCK_KIB 1024ULL
#define MOCK_MIB (1024ULL * 1024ULL)
#define MOCK_GIB (1024ULL * 1024ULL * 1024ULL)
#define MOCK_GRAN_2M (2ULL * MOCK_MIB)
#define MOCK_GRAN_1G MOCK_GIB
#define MOCK_PAGE 4096ULL
#define MOCK_DEFAULT_HBM (62423ULL * MOCK_MIB)
#define MOCK_STREAMS_PER_DEVICE 1984
/* Cores of the Ascend910B1 the mock emulates (the driver's answer on a card,
 * docs/mock-conformance.md): AI (cube) cores and vector cores. */
#define MOCK_AI_CORES 24
#define MOCK_VECTOR_CORES 48
#define MOCK_MAX_DELAY_US 1000000ULL /* ASCENDCL_MOCK_STREAM_DELAY_US: at most 1 s per operation */
#define MOCK_EVENTS_PER_DEVICE 65536
/* aclrtCreateNotify.md (v8.5.0), constraints: 8192 notifies per device on Atlas A2/A3 */
#define MOCK_NOTIFIES_PER_DEVICE 8192

static inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static inline uint64_t round_down(uint64_t v, uint64_t a) { return v / a * a; }

#include "acl_functions.h"
#include "ops_functions.h"
#include "hccl_functions.h"
#include "prof_functions.h"
#include "dvpp_functions.h"
#include "json_quote.h"

enum mock_fn {
#define MOCK_FN_ENUM(n) FN_##n,
    MOCK_FUNCTIONS(MOCK_FN_ENUM)
    MOCK_OPS_FUNCTIONS(MOCK_FN_ENUM)
    MOCK_HCCL_FUNCTIONS(MOCK_FN_ENUM)
    MOCK_PROF_FUNCTIONS(MOCK_FN_ENUM)
    MOCK_DVPP_FUNCTIONS(MOCK_FN_ENUM)
#undef MOCK_FN_ENUM
    FN_COUNT
};
extern const char *const mock_fn_names[FN_COUNT];
int mock_fn_lookup(const char *name); /* -1 if unknown */

#include "util.h"

/* ------------------------------------------------------------- objects */

enum obj_kind { OBJ_CTX = 1, OBJ_STREAM, OBJ_EVENT, OBJ_PHYS, OBJ_DATABUF /* never journaled as a handle */, OBJ_MODEL /* capture.c */, OBJ_NOTIFY /* notify.c */ };

typedef struct mock_obj {
    int kind;
    bool alive;
    uint64_t id;
    struct mock_obj *all_next; /* every object since reset, freed at reset */
} mock_obj;

typedef struct mock_stream mock_stream;
typedef struct mock_model mock_model; /* a captured model instance (capture.c) */

typedef struct mock_ctx {
    mock_obj h;
    int device;
    bool is_default;
    mock_stream *default_stream;
    int64_t sysopt[3];   /* aclrtCtxSetSysParamOpt values (rt_settings.c) */
    bool sysopt_set[3];
} mock_ctx;

typedef enum task_kind {
    TASK_COPY,
    TASK_COPY2D, /* aclrtMemcpy2dAsync (copy2d.c) */
    TASK_SET,
    TASK_RECORD,
    TASK_RESET_EVENT,
    TASK_WAIT,
    TASK_HOSTFN,
    TASK_CALLBACK,
    TASK_COMPUTE, /* an operator kernel (ext_ops.c) */
    TASK_VALUE_WRITE, /* aclrtValueWrite (value.c) */
    TASK_VALUE_WAIT,  /* aclrtValueWait (value.c) */
    TASK_NOTIFY_RECORD, /* aclrtRecordNotify (notify.c) */
    TASK_NOTIFY_WAIT    /* aclrtWaitAndResetNotify (notify.c) */
} task_kind;

typedef struct mock_event mock_event;
typedef struct mock_notify mock_notify;

typedef struct mock_task {
    struct mock_task *next;
    task_kind kind;
    enum mock_fn origin;
    uint64_t seq;
    vclock snap; /* host callbacks: the stream's clock when queued (order.c) */
    struct mock_stream *on; /* the stream it was queued on (stream_enqueue) */
    union {
        struct {
            void *dst;
            const void *src;
            size_t count;
            uint64_t dst_fp, src_fp;
        } copy;
        struct {
            void *dst;
            const void *src;
            size_t dpitch, spitch, width, height;
            uint64_t dst_fp, src_fp;
        } copy2d;
        struct {
            void *dst;
            int value;
            size_t count;
            uint64_t fp;
        } set;
        struct {
            void *addr; /* the 64-bit word */
            uint64_t value;
            uint32_t flag; /* the wait's ACL_STREAM_WAIT_VALUE_* condition */
            uint64_t fp;
        } value;
        struct {
            mock_event *ev;
            uint64_t gen;
            int32_t timeout_ms;
        } ev;
        struct {
            mock_notify *n;
            uint32_t timeout_s; /* a wait's timeout in seconds, 0: forever */
        } ntf;
        struct {
            void (*fn)(void *);
            void *arg;
            bool block;
            uint64_t thread;
        } host;
        struct {
            /* Called once, from task_finish: executed or discarded. */
            void (*finish)(struct mock_task *t, bool executed);
            void *job;
        } compute;
    } u;
} mock_task;

struct mock_stream {
    mock_obj h;
    mock_ctx *ctx;
    int device;
    bool is_default;
    uint32_t priority, flags;
    mock_task *head, *tail, *running;
    uint64_t submitted, completed;
    pthread_t thread;
    pthread_cond_t cv;
    bool has_thread, stopping, discard;
    aclError sticky; /* reported by the next synchronize of this stream */
    char sticky_msg[256]; /* what failed (empty: an event wait timed out) */
    bool subscribed;  /* aclrtSubscribeReport (SUBSCRIBE_USER) */
    bool runtime_sub; /* aclrtLaunchHostFunc used it (SUBSCRIBE_RUNTIME) */
    uint64_t sub_thread;
    bool stop_on_failure; /* aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE) */
    uint32_t overflow;    /* aclrtSetStreamOverflowSwitch */
    uint32_t ord;       /* order id (order.c) */
    vclock vc;          /* what this stream's next task is ordered after */
    uint64_t host_seen; /* G.host_ver last joined into vc */
    mock_model *cap;    /* the model this stream's work is captured into (capture.c) */
    uint32_t cap_reuse; /* live models this stream was captured into */
};

struct mock_event {
    mock_obj h;
    int device;
    uint32_t flags; /* runtime flags (RT_EVENT_*): plain events 0x0E */
    bool ex;        /* created by aclrtCreateEventExWithFlag (new mode) */
    bool timeline;
    bool recorded;          /* has a recording (cleared by aclrtResetEvent) */
    uint64_t rec_gen;       /* number of the latest recording */
    uint64_t done_gen;      /* number of the latest recording that completed */
    uint64_t ts_ns;         /* time the latest recording completed */
    uint32_t pending_waits; /* queued aclrtStreamWaitEvent tasks */
    vclock vc;              /* the recording stream's clock at the latest record */
    mock_model *cap;        /* recorded inside this model's capture (capture.c) */
    mock_stream *cap_stream; /* the stream of that captured recording */
    uint64_t cap_pos;       /* that stream's captured task count after the recording */
    bool cap_waited;        /* a captured stream waited for that recording */
};

/* A notify (notify.c): one bit a stream sets and another waits for and
 * clears. */
struct mock_notify {
    mock_obj h;
    int device;
    uint64_t flag;   /* ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY */
    bool set;        /* the bit, as the device's queued work sees it */
    uint32_t queued; /* record and wait tasks not yet finished */
    /* the meet of the clocks of the records queued since the latest wait was
     * queued (order.c), valid when `recs` */
    vclock vc;
    bool recs;
    /* shared with other processes (notify_ipc.c): the bit lives in *ipc */
    struct ipc_hdr *ipc;
    int ipc_fd;
    bool ipc_exporter;
    char ipc_name[72];
};

typedef struct mock_phys {
    mock_obj h;
    int device;
    uint64_t off, size, gran;
    aclrtPhysicalMemProp prop;
    uint32_t refs; /* user references (MallocPhysical + Retain) */
    uint32_t maps; /* live mappings */
    bool freed;    /* returned to the arena */
    acc_log *log;  /* accesses through any mapping (order.c) */
} mock_phys;

typedef struct mock_alloc {
    uint64_t id;
    uint64_t off, size, consumed;
    acc_log *log;
    /* what a card lets the caller touch: size rounded up to 32 bytes plus 32
     * (aclrtMalloc.md:15); <= consumed */
    uint64_t padded;
} mock_alloc;

typedef struct mock_host {
    uint64_t id;
    uintptr_t addr;
    size_t size;
    acc_log *log;
    bool registered; /* aclrtHostRegister: the caller's memory, not ours */
} mock_host;

typedef struct mock_map {
    uint64_t id;
    uint64_t off, size; /* inside the reservation */
    mock_phys *phys;
    uint32_t access;
} mock_map;

typedef struct mock_resv {
    uint64_t id;
    int device;
    uint64_t off, size; /* inside the device's VMM window */
    uint64_t flags;
    mock_map *maps;
    size_t nmaps, capmaps;
} mock_resv;

typedef struct mock_device {
    bool touched, windows;
    uint64_t capacity;
    int refcount;
    mock_ctx *default_ctx;
    uint32_t nstreams, nevents, nnotifies;
    uint64_t peers; /* bit p: aclrtDeviceEnablePeerAccess(p) from this device */
    /* aclrtSetDeviceResLimit: cores of each aclrtDevResLimitType this process
     * may use while the device is set; dropped with the last reset
     * (device_res.c) */
    uint32_t res_limit[2];
    bool res_limited[2];
    extent_alloc heap; /* HBM arena: aclrtMalloc and aclrtMallocPhysical */
    extent_alloc vspace; /* VMM window: reservations */
    uintptr_t mwin, vwin; /* aligned bases of the PROT_NONE windows */
    uint64_t mwin_size, vwin_size;
    void *mwin_map, *vwin_map;
    size_t mwin_len, vwin_len;
    unsigned char *backing; /* MAP_NORESERVE, indexed by arena offset */
    uint64_t *bitmap;       /* touched backing pages */
    size_t bitmap_bytes;
    uint64_t touched_pages;
    mock_alloc *allocs; /* sorted by off */
    size_t nallocs, capallocs;
    mock_resv **resvs; /* sorted by off */
    size_t nresvs, capresvs;
} mock_device;

/* A callback waiting for its aclrtProcessReport thread (callback.c). */
typedef struct mock_report mock_report;

typedef struct mock_fault {
    int fn;
    uint64_t nth; /* 0 = every call */
    uint64_t base;
    aclError code;
    char *msg;
} mock_fault;

/* ------------------------------------------------------------ global state */

typedef struct mock_global {
    pthread_mutex_t lock;
    pthread_cond_t cv; /* CLOCK_MONOTONIC; broadcast on every completion */
    uint64_t gen;      /* bumped by every reset; invalidates thread-local state */
    uint64_t load_ns;

    /* configuration */
    uint32_t device_count;
    uint64_t hbm_bytes;
    char soc_name[64];
    uint64_t delay_us; /* at most MOCK_MAX_DELAY_US when from the environment */
    bool abort_on_misuse;
    size_t journal_cap;
    uint64_t hccl_connect_ms, hccl_exec_ms; /* ext_hccl.c */

    /* process-wide settings (rt_settings.c) */
    int sat_mode;                      /* aclrtSetDeviceSatMode */
    uint32_t op_wait_timeout_s;        /* aclrtSetOpWaitTimeout */
    uint32_t op_execute_timeout_s;     /* aclrtSetOpExecuteTimeOut */
    aclrtExceptionInfoCallback exception_cb;

    /* init */
    uint64_t init_count;
    bool finalized;
    /* aclInit ran and no aclFinalize since, in this process: unlike
     * init_count, not cleared by aclmockReset (a test process's runtime
     * outlives the resets between its tests); what the DVPP library's
     * "aclInit initializes DVPP" rule reads */
    bool acl_up;
    bool init_config_known;
    strbuf init_config;

    /* ids */
    uint64_t next_tid, next_ctx, next_stream, next_event, next_notify, next_phys, next_alloc, next_host, next_resv, next_map, next_model;

    /* objects */
    mock_obj *objects;
    ptrmap handles;      /* live-or-zombie handle -> kind */
    mock_stream **streams; /* live streams, default ones included */
    size_t nstreams, capstreams;
    mock_device devices[MOCK_MAX_DEVICES];
    mock_host *hosts; /* sorted by addr */
    size_t nhosts, caphosts;
    ptrmap freed_dev;  /* start address of a freed aclrtMalloc block -> id */
    ptrmap freed_host; /* start address of a freed pinned block -> id */
    ptrmap freed_resv; /* start address of a released reservation -> id */
    mock_report *reports;

    /* happens-before model (order.c) */
    vclock host_vc;
    uint64_t host_ver; /* bumped whenever host_vc grows */
    uint32_t next_ord;

    /* bookkeeping */
    uint64_t live[ACLMOCK_RES_COUNT];
    uint64_t misuse[ACLMOCK_MISUSE_COUNT];
    strbuf misuse_log;
    uint64_t calls[FN_COUNT];
    mock_fault *faults;
    size_t nfaults, capfaults;

    /* journal */
    char **ring;
    size_t ring_cap;
    uint64_t first_seq, next_seq;
    void *trace; /* FILE * */
    bool trace_header_due;
} mock_global;

extern mock_global G;

void mock_lock(void);
void mock_unlock(void);
/* Waits on G.cv; deadline 0 = forever. Returns false on timeout. */
bool mock_wait_until(uint64_t deadline_ns);
void mock_broadcast(void);
uint64_t deadline_after_ms(int32_t timeout_ms); /* -1 -> 0 (forever) */
void obj_register(mock_obj *o, int kind, uint64_t id);
/* The live-or-zombie object behind a handle of `kind`, or NULL. */
mock_obj *obj_lookup(const void *handle, int kind);

/* -------------------------------------------------------- thread-local */

typedef struct mock_tls {
    uint64_t gen;
    uint64_t tid;
    mock_ctx *ctx;
    aclError last_error; /* aclrtGetLastError: runtime-layer failures only */
    aclError last_rc;    /* code of the latest failure of any layer (internal) */
    int cur_fn; /* function being executed on this thread, -1 if none */
    uint64_t fail_seq; /* failures recorded on this thread (fail_verbatim) */
    uint64_t rp_gen;    /* replay load this thread was bound under */
    int64_t rp_thread;  /* index of the trace thread it replays, -1 none */
    struct mock_stream *cb_stream; /* host function running in this stream's order */
    uint64_t cb_clk;               /* its place in the stream (order.c) */
    int cap_mode;  /* mode of the capture this thread began + 1, 0 none (capture.c) */
    int xmode;     /* aclmdlRICaptureThreadExchangeMode mode (GLOBAL = 0 by default) */
    size_t msg_len;
    char msg[4096];
    char returned[4096];
    char last_fail[1024]; /* text of the latest failure (for the journal's "msg") */
} mock_tls;
mock_tls *tls(void);
mock_ctx *cur_ctx(void);     /* the thread's current context if alive, else NULL */
uint64_t thread_small_id(void);

/* ------------------------------------------------------- errors, misuse */

/* Records a failure of the current call: message (accumulated per thread,
 * prefixed with a runtime-style code and the function name) and, for a
 * runtime code (x07xxx), the thread's last error. */
aclError fail(aclError code, const char *fmt, ...) MOCK_PRINTF(2, 3);
/* A check of the acl layer (src/acl/aclrt_impl) that returns `code` itself:
 * the text is reported (ACL_LOG_CALL_ERROR / *_WITH_INPUT_REPORT) but the
 * runtime's thread error is never set, whatever the code. */
aclError acl_fail(aclError code, const char *fmt, ...) MOCK_PRINTF(2, 3);
/* A runtime failure returned without text but stored as the thread's
 * last error (rtProcessReport, api_c.cc:2399). */
aclError fail_silent(aclError code);
/* True for codes of the runtime layer (107xxx, 207xxx, 507xxx). */
bool is_runtime_code(aclError code);
/* Records `line` as the thread's error text exactly as given (injected
 * faults and replayed traces carry the runtime's own text). */
aclError fail_verbatim(aclError code, const char *line);
/* Counts and logs a misuse (and aborts if ASCENDCL_MOCK_ABORT_ON_MISUSE=1). */
void misuse(aclmockMisuse kind, const char *fmt, ...) MOCK_PRINTF(2, 3);
const char *misuse_name(aclmockMisuse kind); /* "DOUBLE_FREE", ... */
void errors_reset_locked(void);

/* ------------------------------------------------------------- journal */

typedef struct mock_call {
    int fn;
    int saved_fn;
    uint64_t t0;
    uint64_t fail_seq0; /* tls()->fail_seq at call_begin */
    int64_t rp_rec;     /* trace record this call replays (strict), -1 none */
    bool rp_check;      /* a recorded failure run in the mock: compare, do not substitute */
    bool rp_live;       /* a recorded poll: the mock's result stands */
    size_t msg_len0;    /* tls()->msg_len at call_begin */
    bool faulted;
    aclError fault_code;
    jbuf args; /* JSON members, without the braces; never truncated */
    jbuf out;
} mock_call;

void call_begin(mock_call *c, int fn); /* takes the lock */
/* Returns true if an injected fault applies; the call must then end. */
bool call_faulted(mock_call *c);
aclError call_end(mock_call *c, aclError rc); /* journals, releases the lock */
void ja_i64(mock_call *c, const char *key, int64_t v);
void ja_u64(mock_call *c, const char *key, uint64_t v);
void ja_hex(mock_call *c, const char *key, uint64_t v);
void ja_str(mock_call *c, const char *key, const char *s);
void ja_ptr(mock_call *c, const char *key, const void *p);  /* symbolic address */
void ja_obj(mock_call *c, const char *key, const void *h, int kind); /* symbolic handle */
void ja_stream(mock_call *c, const char *key, const void *s);
void jo_i64(mock_call *c, const char *key, int64_t v);
void jo_u64(mock_call *c, const char *key, uint64_t v);
void jo_str(mock_call *c, const char *key, const char *s);
void jo_ptr(mock_call *c, const char *key, const void *p);
void jo_obj(mock_call *c, const char *key, const void *h, int kind);
void jo_f64(mock_call *c, const char *key, double v);
void journal_reset_locked(void);

/* -------------------------------------------------------------- replay */
/* Replay of a recorded trace (replay.c). The hooks are no-ops when no trace
 * is loaded. All run under the lock. */
void replay_reset_locked(void); /* drops the trace, re-reads ASCENDCL_MOCK_REPLAY */
/* Strict mode: matches the call against the trace. Returns true if the call
 * must fail now with *code (a recorded failure, or a divergence). */
bool replay_begin_locked(mock_call *c, aclError *code);
/* Strict mode: checks the result, binds the ids the call produced, and may
 * replace rc (calls whose return value is data). */
void replay_end_locked(mock_call *c, aclError *rc);
/* Recorded value of an out-value: the matched record's (strict) or a recorded
 * fact (lenient). True if *v was replaced. */
bool replay_out_i64(mock_call *c, const char *key, int64_t *v);
bool replay_out_u64(mock_call *c, const char *key, uint64_t *v);
/* How long a query whose recorded answer is "complete" waits for the mock's
 * stream to finish that work too (event_sync.c, stream_api.c). */
#define RP_REPLAY_CATCH_UP_MS 20000
bool replay_out_f64(mock_call *c, const char *key, double *v);
/* Recorded string out-value: true if the record has `key`; *s is then the
 * text (NULL for JSON null), valid until the next replay load or reset. */
bool replay_out_str(mock_call *c, const char *key, const char **s);

/* -------------------------------------------------------------- faults */
bool fault_check_locked(int fn, aclError *code, const char **msg);
void faults_reset_locked(void); /* clears and re-reads ASCENDCL_MOCK_FAULTS */

/* ------------------------------------------------------------- devices */
bool device_valid(int32_t id);
mock_device *device_get(int32_t id);  /* touches the device */
aclError device_windows(int32_t id);   /* creates the address windows lazily */
void device_release_ref(int32_t id, bool force);
void devices_reset_locked(void);
/* Current context or fail(107002). */
mock_ctx *need_ctx(void);

/* ------------------------------------------------------------ contexts */
mock_ctx *ctx_create(int32_t device, bool is_default);
void ctx_teardown(mock_ctx *ctx); /* destroys the context's streams */

/* ------------------------------------------------------------- streams */
mock_stream *stream_create(mock_ctx *ctx, bool is_default, uint32_t priority, uint32_t flags);
/* Resolves a stream argument (NULL = default stream of the current context);
 * fails with the right code and misuse when invalid. */
mock_stream *stream_arg(const void *handle);
/* As stream_arg, for calls that queue work: also fails (107002/107003) when
 * there is no current context or the stream belongs to another context. */
mock_stream *stream_in_ctx(const void *handle);
/* Worker side of aclrtValueWrite / aclrtValueWait (value.c), lock held. */
void value_task_write(mock_stream *s, mock_task *t);
void value_task_wait(mock_stream *s, mock_task *t);
/* Worker side of aclrtRecordNotify / aclrtWaitAndResetNotify (notify.c),
 * lock held: a wait returns once it took the bit, its notify was destroyed,
 * the stream stops, or the timeout passed (then the stream fails). */
void notify_task_record(mock_task *t);
void notify_task_wait(mock_stream *s, mock_task *t);
void notify_task_done(mock_task *t);
aclError stream_enqueue(mock_stream *s, mock_task *t); /* takes ownership */
/* Waits until the stream completed task `seq`; false on timeout. */
bool stream_wait_seq(mock_stream *s, uint64_t seq, uint64_t deadline_ns);
void stream_destroy(mock_stream *s, bool force);
void streams_stop_all_locked(void);
mock_task *task_new(task_kind kind);
void task_free(mock_task *t);

/* -------------------------------------------------------------- events */
void event_task_done(mock_task *t, bool executed);
bool event_wait_ready(const mock_task *t);

#include "memory.h"
#include "capture.h"

/* ---------------------------------------------------------------- hccl */
void hccl_reset_locked(void); /* ext_hccl.c: timeouts from the environment */
void hccl_before_reset(void);  /* runs libhcomm's reset hook, without the lock */

/* ------------------------------------------------------------ callbacks */
void callback_execute(mock_stream *s, mock_task *t); /* worker side */
void callbacks_reset_locked(void);
/* dump.c: forgets the dump callback and the args-dump switch */
void dump_reset_locked(void);
void callbacks_stream_gone(mock_stream *s);

#endif /* ACLMOCK_INTERNAL_MOCK_H */
