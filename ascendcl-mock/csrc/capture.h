/*
 * capture.h: stream capture (aclmdlRI*, CANN 8.5): the model objects, the
 * hooks the rest of the mock calls while a capture is under way, and the
 * entry points of compute tasks that a model replays (ext_ops.c).
 *
 * A capture begins on one "origin" stream; a stream that waits for an event
 * recorded inside the capture joins it. Every task queued on a captured
 * stream goes into the model (stream_enqueue) instead of its queue, in the
 * order the host queued it across all captured streams. Execution queues
 * copies of the model's tasks, in that order, on the target stream: one
 * in-order list, which keeps every fork and join the events expressed.
 */
#ifndef ACLMOCK_CAPTURE_H
#define ACLMOCK_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cap_status { CAP_ACTIVE = 1, CAP_INVALIDATED = 2, CAP_READY = 3 };

struct mock_model {
    mock_obj h;
    mock_ctx *ctx;
    int device;
    int status; /* enum cap_status */
    int mode;   /* aclmdlRICaptureMode */
    uint64_t tid; /* thread_small_id of the thread that began it */
    mock_stream *origin;
    mock_stream **streams; /* every captured stream, the origin first */
    uint64_t *counts;      /* captured tasks per stream */
    size_t nstreams, capstreams;
    mock_task *head, *tail;
    uint64_t ntasks, replays;
    char why[256]; /* what invalidated it */
    struct mock_model *next_live;
};

/* stream_enqueue: takes the task into s->cap. Always succeeds. */
aclError capture_take(mock_stream *s, mock_task *t);
/* Invalidates the capture (first reason kept). */
void capture_invalidate(mock_model *m, const char *fmt, ...) MOCK_PRINTF(2, 3);
/* Whether the model is still capturing (ACTIVE or INVALIDATED). */
bool capture_is_capturing(const mock_model *m);
/* Whether the event was recorded inside a capture still under way. */
bool capture_event_captured(const mock_event *ev);

/* Refusals, each returning the code (message set, capture invalidated) or 0. */
aclError capture_refuse_stream_sync(mock_stream *s, const char *what);  /* 107027 */
aclError capture_refuse_device_sync(mock_ctx *ctx);                     /* 107027 */
aclError capture_refuse_event_use(mock_event *ev, const char *what);   /* 107028 */
aclError capture_refuse_unsafe_call(const char *what);                  /* 107030 */

/* aclrtRecordEvent / aclrtStreamWaitEvent on a captured stream or event:
 * returns true when the capture took the call (its result in *rc). */
bool capture_record(mock_event *ev, mock_stream *s, aclError *rc);
bool capture_wait(mock_event *ev, mock_stream *s, aclError *rc);

/* aclrtFree and friends: counts a misuse when a live model uses the range. */
void capture_note_free(const void *base, uint64_t size, const char *what);

void capture_reset_locked(void);
void capture_free_model(mock_model *m); /* ends its capture, frees its tasks */
mock_model *capture_live_models(void);

/* ext_ops.c: compute tasks a model keeps and replays. */
mock_task *compute_task_clone(const mock_task *t); /* NULL: out of memory */
bool compute_task_touches(const mock_task *t, uintptr_t lo, uintptr_t hi);

#endif /* ACLMOCK_CAPTURE_H */
