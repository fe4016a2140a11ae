/*
 * replay_order.c: order between threads in a strict replay.
 *
 * A call waits until every call that started before it in the recording (on
 * any thread; polls excepted, replay.c) has started in the replay. The
 * awaited call is the earliest record not started yet (rank R.low); it
 * belongs to one trace thread. The wait ends as soon as that call can no
 * longer start:
 *
 *  - at once when the live thread that took its trace thread has exited: a
 *    trace thread's calls are made by one live thread, and the others are
 *    bound to trace threads of their own (thread exit is seen through a
 *    thread-specific key whose destructor runs when a thread ends);
 *  - when no live thread has taken its trace thread and every live thread of
 *    the replay (that has not exited) is waiting for its turn, after the
 *    absent-thread grace: nothing that talks to the mock is running, so only
 *    a thread that has not made its first call yet could still make it. The
 *    grace is RP_ABSENT_GRACE_MS (1 s), or four times how long the recording
 *    went from the call before the awaited one to the awaited one if that is
 *    longer, and never more than the order timeout. It is counted from the
 *    moment the last running thread began to wait; a thread that makes its
 *    first call restarts it.
 *
 * Otherwise (the awaited thread exists and runs, e.g. it is blocked in a
 * synchronisation or in the program's own code) the wait is bounded by the
 * order timeout, ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS (default 20 s). Each
 * way out is a divergence naming the awaited call.
 */
#include "replay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------- started */

/* Whether every bound live thread that has not exited is waiting for its
 * turn; the moment that began is kept in R.stalled_since. Called after
 * every change of R.waiting, R.bound or R.exited. */
static void stall_update(void)
{
    bool stalled = R.state == RP_REPLAYING && R.waiting > 0 && R.waiting + R.exited >= R.bound;
    if (!stalled) {
        R.stalled_since = 0;
    } else if (!R.stalled_since) {
        R.stalled_since = now_ns();
    }
}

void replay_mark_begun(size_t rec)
{
    R.begun[R.recs[rec].rank] = true;
    while (R.low < R.nrecs && R.begun[R.low]) {
        R.low++;
    }
    mock_broadcast();
}

/* ---------------------------------------------------------- thread exit */

typedef struct rp_watch {
    uint64_t gen; /* the load the thread was bound under */
    size_t ix;    /* its trace thread */
} rp_watch;

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;

/* Destructor of exit_key: the thread is ending. */
static void thread_exited(void *p)
{
    rp_watch *w = p;
    mock_lock();
    if (w->gen == R.gen && w->ix < R.nthreads && R.threads[w->ix].taken && !R.threads[w->ix].exited) {
        R.threads[w->ix].exited = true;
        R.exited++;
        stall_update();
        mock_broadcast();
    }
    mock_unlock();
    free(w);
}

static void make_exit_key(void) { exit_key_made = pthread_key_create(&exit_key, thread_exited) == 0; }

/* An unloaded library must not leave a destructor behind in live threads. */
__attribute__((destructor)) static void delete_exit_key(void)
{
    if (exit_key_made) {
        pthread_key_delete(exit_key);
        exit_key_made = false;
    }
}

void replay_thread_bound(size_t ix)
{
    stall_update(); /* a thread came: it runs, so nothing is stalled */
    pthread_once(&exit_once, make_exit_key);
    if (!exit_key_made) {
        return; /* no exit watch: the order timeout still bounds every wait */
    }
    rp_watch *w = pthread_getspecific(exit_key);
    if (!w) {
        w = malloc(sizeof(*w));
        if (!w || pthread_setspecific(exit_key, w) != 0) {
            free(w);
            return;
        }
    }
    w->gen = R.gen;
    w->ix = ix;
}

/* ----------------------------------------------------------------- wait */

/* The absent-thread grace for awaited record w, in ns. */
static uint64_t absent_grace_ns(const rp_rec *w)
{
    uint64_t ms = RP_ABSENT_GRACE_MS;
    if (R.low > 0) {
        const rp_rec *prev = &R.recs[R.by_rank[R.low - 1]];
        uint64_t gap_ms = w->t_ns > prev->t_ns ? (w->t_ns - prev->t_ns) / 1000000u : 0;
        if (gap_ms > ms / 4) {
            ms = gap_ms < UINT64_MAX / 4 ? gap_ms * 4 : UINT64_MAX;
        }
    }
    if (ms > R.order_timeout_ms) {
        ms = R.order_timeout_ms;
    }
    return ms * 1000000u;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a < b ? a : b;
    return m < c ? m : c;
}

enum rp_turn replay_wait_turn(size_t rec, uint64_t patience_ms, char *reason, size_t cap)
{
    uint64_t gen = R.gen;
    size_t rank = R.recs[rec].rank;
    if (!R.order_timeout_ms) {
        R.order_timeout_ms = RP_ORDER_TIMEOUT_MS;
    }
    uint64_t start = now_ns();
    uint64_t deadline = start + R.order_timeout_ms * 1000000ULL;
    uint64_t patience = patience_ms ? start + patience_ms * 1000000ULL : UINT64_MAX;
    bool counted = false;
    enum rp_turn turn = RP_TURN_OK;
    while (R.gen == gen && R.state == RP_REPLAYING && R.low < rank) {
        if (!counted) {
            counted = true;
            R.waiting++;
            stall_update();
        }
        const rp_rec *w = &R.recs[R.by_rank[R.low]];
        const rp_thread *wt = &R.threads[w->thread_ix];
        unsigned long long seq = (unsigned long long)w->seq, tid = (unsigned long long)wt->id;
        uint64_t now = now_ns();
        uint64_t absent = !wt->taken && R.stalled_since ? R.stalled_since + absent_grace_ns(w) : UINT64_MAX;
        if (wt->exited) {
            snprintf(reason, cap,
                     "trace seq %llu (%s on trace thread %llu) started before this call in the recording, but the "
                     "thread that replayed trace thread %llu exited after %zu of its %zu calls: that call can "
                     "never start",
                     seq, w->fn_name, tid, tid, wt->next, wt->n);
            turn = RP_TURN_LATE;
        } else if (now >= absent) {
            snprintf(reason, cap,
                     "trace seq %llu (%s on trace thread %llu) started before this call in the recording, but no "
                     "thread has taken trace thread %llu, and every thread of the replay has been waiting for "
                     "its turn for %llu ms: the program does not start that thread here",
                     seq, w->fn_name, tid, tid, (unsigned long long)((now - R.stalled_since) / 1000000u));
            turn = RP_TURN_LATE;
        } else if (patience < deadline && now >= patience) {
            turn = RP_TURN_EXTRA;
        } else if (now >= deadline) {
            snprintf(reason, cap,
                     "waited %llu ms for trace seq %llu (%s on trace thread %llu), which started before this call "
                     "in the recording but has not started here",
                     (unsigned long long)R.order_timeout_ms, seq, w->fn_name, tid);
            turn = RP_TURN_LATE;
        }
        if (turn != RP_TURN_OK) {
            break;
        }
        mock_wait_until(min3(deadline, patience, absent));
    }
    if (counted && R.gen == gen) {
        R.waiting--;
        stall_update();
    }
    if (turn != RP_TURN_OK) {
        return turn;
    }
    return R.gen == gen && R.state == RP_REPLAYING ? RP_TURN_OK : RP_TURN_STOPPED;
}
