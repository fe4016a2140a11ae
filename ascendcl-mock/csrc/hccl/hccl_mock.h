/*
 * hccl_mock.h: internals of the mock's HCCL libraries.
 *
 *   libhcomm.so (comm_*.c)  communicators: root info, init, destroy, rank
 *                           queries, errors, config, group start/end, the
 *                           rendezvous hub and the rank side of an exchange;
 *   libhccl.so  (coll_*.c)  the collectives; it links libhcomm.so, so a dlsym
 *                           on libhccl's handle also finds the communicator
 *                           symbols, as with CANN's split libraries.
 * Both link the mock's libascendcl.so by soname (rpath $ORIGIN) and go
 * through its aclmock_* entry points (../ops/aclmock_ext.h): every exported
 * function is one journaled, counted, fault-injectable call.
 *
 * Transport (one for everything): HcclGetRootInfo (or HcclCommInitAll)
 * starts a hub thread in the calling process, listening on a Unix socket in
 * a private directory made by mkdtemp; the 4108-byte root info carries the
 * socket's path and a random session id. Every rank, in this process or
 * another, connects to it: init sends JOIN and waits until all ranks
 * joined; a collective, when the stream worker reaches it, sends the rank's
 * contribution (OP) and waits for its result (RESULT). The hub matches the
 * ranks' operations, checks that they agree, computes every rank's result
 * (reductions in rank order, so every rank gets the same bits) and answers.
 */
#ifndef ACLMOCK_HCCL_MOCK_H
#define ACLMOCK_HCCL_MOCK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <hccl/hccl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../ops/aclmock_ext.h"

#define HM_EXPORT __attribute__((visibility("default")))
/* Internal functions libhccl.so calls in libhcomm.so (not HCCL API). */
#define HM_INTERNAL __attribute__((visibility("default")))

/* What a failed collective makes the stream's synchronize return. A card
 * reports the failure of an HCCL task (AI_CPU expansion mode, the default of
 * A2/A3) as an AI_CPU exception, a timeout of it as an AI_CPU timeout
 * (rt_error_codes.h); the mock's choice, see docs/mock-conformance.md. */
#define HM_STREAM_FAILED 507018  /* ACL_ERROR_RT_AICPU_EXCEPTION */
#define HM_STREAM_TIMEOUT 507017 /* ACL_ERROR_RT_AICPU_TIMEOUT */

/* One journaled call: HM_BEGIN (counts it), its arguments, HM_FAULTED()
 * (the strict replay's match and an injected fault: then end the call with
 * fault_), the work, HM_END. */
#define HM_BEGIN(name)                                                                                          \
    aclmock_call call_;                                                                                         \
    static int fn_id_ = -2;                                                                                     \
    if (fn_id_ == -2) {                                                                                         \
        fn_id_ = aclmock_fn_id(#name);                                                                          \
    }                                                                                                           \
    int32_t fault_ = 0;                                                                                         \
    aclmock_call_start(&call_, fn_id_)
#define HM_FAULTED() ((fault_ = aclmock_call_check(&call_)) != 0)
#define HM_END(rc) ((HcclResult)aclmock_call_end(&call_, (int32_t)(rc)))
#define HM_FAIL(rc, ...) HM_END((aclmock_fail((int32_t)(rc), __VA_ARGS__), (rc)))

/* ------------------------------------------------------------- wire */

enum hm_msg { HM_JOIN = 1, HM_JOINED = 2, HM_OP = 3, HM_RESULT = 4 };

typedef struct hm_hdr {
    uint32_t magic;
    uint32_t type;
    uint64_t len; /* payload bytes after the header */
} hm_hdr;

typedef struct hm_join {
    uint64_t session;
    uint32_t nranks, rank;
    int32_t device, pid;
} hm_join;

typedef struct hm_joined {
    int32_t status; /* HcclResult */
    uint32_t nranks;
    char msg[192];
} hm_joined;

/* Kinds of exchanges. */
enum hm_kind {
    HK_ALLREDUCE = 1,
    HK_BROADCAST,
    HK_ALLGATHER,
    HK_REDUCE_SCATTER,
    HK_REDUCE,
    HK_SCATTER,
    HK_BARRIER,
    HK_ALLTOALL,
    HK_ALLTOALLV,
    HK_ALLGATHERV,
    HK_REDUCE_SCATTERV,
    HK_SEND,
    HK_RECV,
    HK_BATCH
};

/* One rank's part of an exchange: this, then naux u64 words, then data. */
typedef struct hm_desc {
    uint32_t kind, dtype, op, root; /* root: the root rank, or the peer of a send/recv */
    uint64_t count;
    uint64_t seq; /* the rank's exchange number on this communicator, from 1 */
    uint32_t naux, pad;
    uint64_t data_len;
} hm_desc;

typedef struct hm_result {
    int32_t status; /* HcclResult */
    uint32_t pad;
    uint64_t data_len;
    char msg[192];
} hm_result;

/* The root info blob (first bytes of HcclRootInfo.internal). */
#define HM_ROOT_MAGIC "aclmock-hccl-1"
typedef struct hm_root {
    char magic[16];
    uint64_t session;
    int32_t pid;
    char path[108]; /* sun_path */
} hm_root;

/* Reads/writes with a deadline (CLOCK_MONOTONIC ns, 0 = none): 0, -1 on error
 * or end of file, -2 on timeout. */
int hm_write_all(int fd, const void *p, size_t n);
int hm_read_all(int fd, void *p, size_t n, uint64_t deadline_ns);
/* Sends a header and up to three parts. */
int hm_send(int fd, uint32_t type, const void *a, size_t na, const void *b, size_t nb, const void *c, size_t nc);
/* A header announcing `len` payload bytes, which the caller writes next. */
int hm_send_header(int fd, uint32_t type, uint64_t len);
/* Reads and checks a header; the caller reads its payload. */
int hm_recv_header(int fd, hm_hdr *h, uint64_t deadline_ns);
/* Receives one message (payload malloc'ed into *payload, free it). */
int hm_recv(int fd, uint32_t *type, void **payload, uint64_t *len, uint64_t deadline_ns);
uint64_t hm_now_ns(void);
int hm_connect(const char *path);
void hm_tune(int fd); /* socket buffer sizes */

/* ------------------------------------------------------------- hub */

/* Starts a hub; fills *root. HCCL_SUCCESS or an error. */
HcclResult hm_hub_start(hm_root *root, uint64_t connect_ms, uint64_t exec_ms);
/* As hm_hub_start, with `fixed` (non-zero) as the session and the name of
 * the hub's directory, so that ranks that know it can find it (rank tables). */
HcclResult hm_hub_start_at(hm_root *root, uint64_t fixed, uint64_t connect_ms, uint64_t exec_ms);
/* Stops every hub of this process and wakes every blocked rank (reset hook). */
void hm_hub_stop_all(void);

/* ----------------------------------------------------------- dtypes */

HM_INTERNAL size_t hm_dtype_size(int32_t dt); /* 0: not a type collectives accept */
HM_INTERNAL bool hm_dtype_valid(int32_t dt);
HM_INTERNAL bool hm_op_valid(int32_t op);
HM_INTERNAL bool hm_can_reduce(int32_t dt);
/* acc[i] = acc[i] op src[i] for count elements (f16/bf16 in f32 by the caller) */
void hm_reduce_into(int32_t dt, int32_t op, void *acc, const void *src, uint64_t count);
/* Reduces n inputs into out (which may be in[0]), in rank order,
 * deterministically; f16/bf16 are accumulated in f32 and rounded to nearest
 * even once per element. */
void hm_reduce_n(int32_t dt, int32_t op, void *out, const void *const *in, uint32_t n, uint64_t count);
HM_INTERNAL const char *hm_dtype_name(int32_t dt);
HM_INTERNAL const char *hm_kind_name(uint32_t kind);

/* -------------------------------------------------------- communicators */

typedef struct hm_comm {
    uint64_t magic; /* HM_COMM_MAGIC while alive */
    uint64_t id;
    uint64_t gen; /* the mock's reset generation at creation */
    uint32_t rank, nranks;
    int32_t device;
    int fd; /* connection to the hub */
    char name[128];
    pthread_mutex_t io; /* one exchange at a time on the connection */
    uint64_t seq;       /* exchanges sent */
    uint64_t exec_ms;
    /* under the registry lock (comm_registry.c) */
    uint32_t refs;       /* the user's (1 until destroy) + queued exchanges */
    uint32_t busy;       /* host calls on this comm in progress */
    bool destroyed;
    bool user_ref;       /* the user's reference not yet dropped (destroy, reset) */
    int32_t async_error; /* first failure of an exchange (HcclResult) */
    struct hm_comm *next;
} hm_comm;

#define HM_COMM_MAGIC 0x686363636f6d6d31ULL

/* The live comm behind a handle, with busy taken (release with hm_comm_leave),
 * or NULL with *rc = HCCL_E_PTR (null) / HCCL_E_PARA (unknown or destroyed). */
HM_INTERNAL hm_comm *hm_comm_enter(HcclComm h, HcclResult *rc);
HM_INTERNAL void hm_comm_leave(hm_comm *c);
/* The journal's id of a handle (0: not a communicator). */
HM_INTERNAL uint64_t hm_comm_id_of(const void *h);
/* The rank count of a live communicator, 0 for another handle. */
HM_INTERNAL uint32_t hm_comm_nranks_of(const void *h);
HM_INTERNAL void hm_comm_ref(hm_comm *c);
HM_INTERNAL void hm_comm_unref(hm_comm *c);
HM_INTERNAL void hm_comm_set_async(hm_comm *c, int32_t err);
HM_INTERNAL int32_t hm_comm_async(hm_comm *c);
HM_INTERNAL bool hm_comm_destroyed(hm_comm *c);
hm_comm *hm_comm_new(uint32_t rank, uint32_t nranks, int32_t device, int fd, uint64_t exec_ms, const char *name);
void hm_comm_register(hm_comm *c);
/* Destroys an entered comm (the entry is released): HCCL_E_AGAIN while
 * another call uses it. */
HcclResult hm_comm_destroy(hm_comm *c);
void hm_comm_close_all(void);

/* One queued exchange (comm_exec.c). */
typedef struct hm_xfer {
    hm_desc d;
    uint64_t *aux;
    /* how the send span maps to the packed contribution and the result to the
     * receive span: (span, byte offset, bytes) pieces, in order */
    uint32_t nsend, nrecv;
    uint64_t (*send)[3];
    uint64_t (*recv)[3];
} hm_xfer;

/* The argument checks of the collectives (comm_check.c): each returns
 * HCCL_SUCCESS or the code, with the message set. The sources' rules, in the
 * words of hcomm v8.5.0 (cited in comm_check.c): */
HM_INTERNAL HcclResult hm_chk_ptr(const void *p, const char *what);             /* CHK_PTR_NULL */
HM_INTERNAL HcclResult hm_chk_count(uint64_t count, const char *what);          /* HcomCheckCount */
HM_INTERNAL HcclResult hm_chk_dtype(int32_t dtype);                             /* HcomCheckDataType */
HM_INTERNAL HcclResult hm_chk_op_param(uint64_t count, int32_t dtype, aclrtStream stream); /* HcomCheckOpParam */
HM_INTERNAL HcclResult hm_chk_reduction(int32_t dtype, int32_t op); /* HcomCheckReductionOp, HcomCheckReduceDataType */
HM_INTERNAL HcclResult hm_chk_reduce_dtype(int32_t dtype);          /* CheckDataType(needReduce = true) */
HM_INTERNAL HcclResult hm_chk_rank(const hm_comm *c, uint32_t rank, const char *what); /* HcomCheckUserRank */
/* every count of a V array, and their sum in *total */
HM_INTERNAL HcclResult hm_chk_counts(const uint64_t *counts, uint32_t n, const char *what, uint64_t *total);
/* The mock's: the live comm behind a handle, entered (hm_comm_leave it) */
HM_INTERNAL HcclResult hm_chk_enter(HcclComm comm, hm_comm **c);
HM_INTERNAL HcclResult hm_chk_mock_reduce(int32_t dtype);                     /* int128 does not reduce */
HM_INTERNAL HcclResult hm_chk_mock_stream(const hm_comm *c, aclrtStream stream); /* the comm's device */
HM_INTERNAL HcclResult hm_chk_mock_peer(const hm_comm *c, uint32_t peer, const char *what); /* not itself */
/* Chains checks: runs `expr` only while `rc` is HCCL_SUCCESS. */
#define HM_CHK(rc, expr)                                                                                        \
    do {                                                                                                        \
        if ((rc) == HCCL_SUCCESS) {                                                                             \
            (rc) = (expr);                                                                                      \
        }                                                                                                       \
    } while (0)
/* Queues the exchange `x` (taken over, freed in every case) on `stream`:
 * spans[0..nspans) are the device buffers (READ for send, WRITE for
 * receive). HCCL_SUCCESS or an error. */
HM_INTERNAL HcclResult hm_enqueue(aclmock_call *call, hm_comm *c, aclrtStream stream, const aclmock_span *spans,
                                  uint32_t nspans, hm_xfer *x);
/* As hm_enqueue, without launching a group's kept operations first. */
HcclResult hm_enqueue_now(aclmock_call *call, hm_comm *c, aclrtStream stream, const aclmock_span *spans,
                          uint32_t nspans, hm_xfer *x);
/* Launches the calling thread's kept Send/Recv (none outside a group). */
HcclResult hm_group_flush(aclmock_call *call);
HM_INTERNAL hm_xfer *hm_xfer_new(uint32_t kind, int32_t dtype, int32_t op, uint32_t root, uint64_t count,
                                 uint32_t naux, uint32_t nsend, uint32_t nrecv);
HM_INTERNAL void hm_xfer_free(hm_xfer *x);
/* Groups (comm_group.c): inside HcclGroupStart/End, Send and Recv are
 * kept (hm_group_add takes a reference on the comm) and launched at the
 * outermost HcclGroupEnd as one BatchSendRecv exchange per comm and stream;
 * hm_enqueue launches the kept ones first, so the order of a comm's work on
 * a stream is the order of the calls. */
HM_INTERNAL bool hm_group_active(void);
HM_INTERNAL HcclResult hm_group_add(hm_comm *c, aclrtStream stream, uint32_t kind, void *buf, uint64_t count,
                                    int32_t dtype, uint32_t peer);
/* Journal fields every collective shares. */
HM_INTERNAL void hm_journal_comm(aclmock_call *call, HcclComm comm);
/* Journals the uint64 array `arr` of a V collective under `key`: its
 * per_rank * nranks values as "[1,2,...]" (the recording shim writes the
 * same); null as null, "?" when comm is not a live communicator. */
HM_INTERNAL void hm_journal_counts(aclmock_call *call, const char *key, const void *arr, HcclComm comm,
                                   uint32_t per_rank);

/* f16/bf16 conversions (../ops/dtype.c, compiled in). */
float mk_f16_to_f32(uint16_t h);
uint16_t mk_f32_to_f16(float f);
float mk_bf16_to_f32(uint16_t h);
uint16_t mk_f32_to_bf16(float f);

#endif /* ACLMOCK_HCCL_MOCK_H */
