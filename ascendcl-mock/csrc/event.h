/*
 * event.h: what event.c (creation, record, reset, timestamps) and
 * event_sync.c (waits, queries, synchronization) share.
 */
#ifndef ACLMOCK_EVENT_H
#define ACLMOCK_EVENT_H

#include "mock.h"

/* Runtime event flags (src/inc/runtime/event.h:51-58, v8.5.0). The acl
 * layer passes ACL_EVENT_* through unchanged (event.cpp:56, 73), so
 * ACL_EVENT_SYNC is RT_EVENT_DDSYNC_NS, ACL_EVENT_DEVICE_USE_ONLY is
 * RT_EVENT_MC2; plain aclrtCreateEvent creates RT_EVENT_DEFAULT
 * (api_c_event.cc:34-37). */
#define RT_EV_DDSYNC_NS 0x01u
#define RT_EV_STREAM_MARK 0x02u
#define RT_EV_DDSYNC 0x04u
#define RT_EV_TIME_LINE 0x08u
#define RT_EV_MC2 0x10u
#define RT_EV_EXTERNAL 0x20u
#define RT_EV_IPC 0x40u
#define RT_EV_DEFAULT (RT_EV_DDSYNC | RT_EV_TIME_LINE | RT_EV_STREAM_MARK)
/* event.hpp:33-34: RT_EVENT_FLAG_MAX, the flags aclrtCreateEventWithFlag takes */
#define RT_EV_FLAG_MAX                                                                                        \
    (RT_EV_DDSYNC_NS | RT_EV_STREAM_MARK | RT_EV_DDSYNC | RT_EV_TIME_LINE | RT_EV_MC2 | RT_EV_EXTERNAL)
/* api_error.cc:1204-1205: the flags aclrtCreateEventExWithFlag takes */
#define RT_EV_EX_MAX (RT_EV_DDSYNC_NS | RT_EV_STREAM_MARK | RT_EV_DDSYNC | RT_EV_TIME_LINE | RT_EV_IPC)

/* event.hpp:135-137: an event with none of these flags queues no wait task
 * (TIME_LINE-only, CAPTURE_STREAM_PROGRESS-only events) */
static inline bool without_wait_task(const mock_event *ev)
{
    return (ev->flags & (RT_EV_DDSYNC | RT_EV_DDSYNC_NS | RT_EV_EXTERNAL | RT_EV_IPC)) == 0;
}

static inline bool event_complete(const mock_event *ev) { return !ev->recorded || ev->done_gen >= ev->rec_gen; }

/* The event behind a handle argument; NULL after recording the failure. */
mock_event *event_arg(const void *handle, const char *what);
/* The stream an event task goes to (context checks, see event.c). */
mock_stream *event_stream(const mock_event *ev, aclrtStream stream, bool same_device, bool refuse_ex, aclError *rc);
/* Queues a marker task of `kind` for `ev` on `s`. */
aclError queue_event_task(mock_event *ev, mock_stream *s, task_kind kind, uint64_t gen, int32_t timeout);
/* Fails with 107000 for a device-only event (see event.c). */
bool refuse_device_only(const mock_event *ev);

#endif /* ACLMOCK_EVENT_H */
