/*
 * order.h: the happens-before model of the mock (order.c).
 *
 * Every stream has an "order id" and a sparse vector clock; the host (every
 * application thread together) is one more participant. A queued access
 * advances its stream's own component; aclrtRecordEvent snapshots the
 * stream's clock into the event; aclrtStreamWaitEvent joins the event's
 * snapshot into the waiting stream; a host synchronize (stream, event,
 * device, a query that reports completion, a stream destroy, a pageable
 * async copy) joins what it waited for into the host's clock; and every
 * queued operation joins the host's clock into its stream first (the host
 * issued it after everything it knew was finished).
 *
 * Every allocation extent (aclrtMalloc block, pinned host block, physical
 * allocation) keeps a bounded log of accesses: byte range, read or write,
 * and the (order id, clock) of the access. A new access that overlaps a
 * logged one, where either writes, and whose clock does not cover the logged
 * one, is a race: counted and logged as ACLMOCK_MISUSE_UNORDERED_ACCESS, or
 * as ACLMOCK_MISUSE_PINNED_HOST_ACCESS when it is the host touching pinned
 * memory that queued work uses.
 *
 * Physical allocations carry the log, not the virtual mapping, so two
 * mappings of one allocation share it. Freeing an extent (aclrtFree,
 * aclrtFreeHost, the release of a physical allocation) is a host write to
 * all of it. A host function (aclrtLaunchHostFunc) or blocking callback acts
 * at its place in its stream. Everything runs under G.lock.
 *
 * What the model does not see: plain host loads and stores of pinned memory
 * (only the ACL calls that touch it). Trapping them with page protection
 * while a copy is queued is not done, because it would not be sound here:
 * aclrtMallocHost blocks are 64-byte aligned heap blocks that share pages
 * with each other and with malloc's own data; even page-isolated blocks
 * would fault on legitimate accesses to the unqueued bytes of a page a copy
 * only partly covers, and on a host function's access to memory a copy
 * queued after it on the same stream targets; the stream workers would need
 * a second mapping to copy through; a protected buffer handed to a system
 * call fails with EFAULT instead of faulting (changing what the program
 * does); and a signal handler cannot take G.lock to judge or log the access.
 */
#ifndef ACLMOCK_INTERNAL_ORDER_H
#define ACLMOCK_INTERNAL_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mock_call;
struct mock_obj;
struct mock_stream;
struct mock_event;
struct mock_notify;
struct mock_task;

/* Order id of the host; streams count from ORDER_HOST + 1. */
#define ORDER_HOST 1u

typedef struct vc_ent {
    uint32_t id;
    uint64_t clk;
} vc_ent;

/* Sparse vector clock, sorted by id. An empty clock knows nothing. */
typedef struct vclock {
    vc_ent *v;
    uint32_t n, cap;
} vclock;

void vc_free(vclock *c);
void vc_copy(vclock *dst, const vclock *src);
void vc_join(vclock *dst, const vclock *src);

/* Per-extent access log (opaque); NULL until the first access. */
typedef struct acc_log acc_log;
void order_log_free(acc_log **log);

void order_stream_init(struct mock_stream *s);
/* Called by stream_enqueue for every task: brings the host's knowledge into
 * the stream, and snapshots the stream for host callbacks. */
void order_enqueue(struct mock_stream *s, struct mock_task *t);
/* aclrtValueWrite / aclrtValueWait of the 64-bit word at p (value.c): an
 * access like order_access, except that two value accesses never race (they
 * are how streams synchronize through the word); then a write leaves its
 * stream's clock on the word, and a wait joins the clock of the latest write
 * to it queued before the wait, as an event record and wait would. Returns
 * the misuse kind reported, or -1. */
int order_value_access(struct mock_stream *s, const void *p, bool write, int fn);
/* The host now knows that everything `c` covers has finished. */
void order_host_learn(const vclock *c);
/* A host function or callback task of `s` is about to run: the host learns
 * the work before it; returns the task's place in the stream's order. */
uint64_t order_callback_start(struct mock_stream *s, const struct mock_task *t);
/* A function that blocks stream `s` at place `clk` starts or ends on this
 * thread: its calls act at that place in the stream's order (after the
 * stream's earlier work, before its later work). */
void order_callback_enter(struct mock_stream *s, uint64_t clk);
void order_callback_leave(void);
void order_record(struct mock_event *ev, struct mock_stream *s);
void order_wait(struct mock_stream *s, const struct mock_event *ev);
/* aclrtRecordNotify / aclrtWaitAndResetNotify (notify.c). A wait is released
 * by whichever record sets the bit first, which is known only when the work
 * runs; the model orders a wait after what every record queued between the
 * previous wait and this one covers (the meet of their clocks), and after
 * nothing when no record was queued since the previous wait (a record queued
 * after the wait that releases it is not seen: work after such a wait looks
 * unordered). */
void order_notify_record(struct mock_notify *n, struct mock_stream *s);
void order_notify_wait(struct mock_stream *s, struct mock_notify *n);

/* An access to [p, p+n) by queued work on `s`, or by the host when s is
 * NULL (synchronous copies and fills). `fn` names the call for the log.
 * Pageable host memory is not tracked. The range must have been validated.
 * Returns the misuse kind it reported, or -1. */
int order_access(struct mock_stream *s, const void *p, size_t n, bool write, int fn);
/* The host frees an extent (tag 'm' aclrtMalloc block, 'h' pinned block,
 * 'p' physical allocation) of `size` bytes: a write to all of it, so every
 * logged access must be known finished; drops the log. Returns the misuse
 * kind it reported, or -1. */
int order_free(acc_log **log, char tag, uint64_t id, uint64_t size);
/* Adds "misuse":"<KIND>" to the call's journal out-values if kind >= 0. */
void order_journal(struct mock_call *c, int kind);

/* Frees the clock or log of a stream, event or physical handle at reset. */
void order_obj_free(struct mock_obj *o);
void order_reset_locked(void);

#endif /* ACLMOCK_INTERNAL_ORDER_H */
