/*
 * comm_registry.c: the communicators of this process. A handle is checked
 * against the registry before it is used, so a null, random or destroyed
 * handle is an error (HCCL_E_PTR / HCCL_E_PARA), never a crash.
 *
 * Lifetime: the user's reference plus one per queued exchange. Destroy
 * (hcomm docs, HcclCommDestroy "Constraints"): a communicator that another
 * thread is using in an HCCL call (occupied) answers HCCL_E_AGAIN; otherwise
 * it is destroyed at once, and exchanges that are waiting for peers or still
 * queued fail at once ("terminating on external request") instead of
 * waiting for the timeout. The memory goes when the last exchange let go.
 */
#include "hccl_mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
static hm_comm *comms;
static uint64_t next_id;

static hm_comm *find_locked(const void *h)
{
    for (hm_comm *c = comms; c; c = c->next) {
        if ((const void *)c == h) {
            return c;
        }
    }
    return NULL;
}

uint64_t hm_comm_id_of(const void *h)
{
    pthread_mutex_lock(&reg);
    hm_comm *c = h ? find_locked(h) : NULL;
    uint64_t id = c ? c->id : 0;
    pthread_mutex_unlock(&reg);
    return id;
}

uint32_t hm_comm_nranks_of(const void *h)
{
    pthread_mutex_lock(&reg);
    hm_comm *c = h ? find_locked(h) : NULL;
    uint32_t n = c ? c->nranks : 0;
    pthread_mutex_unlock(&reg);
    return n;
}

hm_comm *hm_comm_enter(HcclComm h, HcclResult *rc)
{
    if (!h) {
        *rc = HCCL_E_PTR;
        aclmock_fail(HCCL_E_PTR, "comm is null");
        return NULL;
    }
    pthread_mutex_lock(&reg);
    hm_comm *c = find_locked(h);
    if (c && !c->destroyed && c->gen == aclmock_generation()) {
        c->busy++;
        pthread_mutex_unlock(&reg);
        return c;
    }
    bool destroyed = c && c->destroyed;
    pthread_mutex_unlock(&reg);
    *rc = HCCL_E_PARA;
    aclmock_fail(HCCL_E_PARA, "comm %p is %s", h,
                 destroyed ? "destroyed (no HCCL call is allowed after HcclCommDestroy)"
                           : "not a communicator of this process (destroyed, or from before a reset)");
    aclmock_misuse(2 /* ACLMOCK_MISUSE_DESTROYED_HANDLE */, "HCCL call on %s communicator %p",
                   destroyed ? "a destroyed" : "an unknown", h);
    return NULL;
}

void hm_comm_leave(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    c->busy--;
    pthread_mutex_unlock(&reg);
}

void hm_comm_ref(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    c->refs++;
    pthread_mutex_unlock(&reg);
}

void hm_comm_unref(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    bool last = --c->refs == 0;
    if (last) {
        for (hm_comm **l = &comms; *l; l = &(*l)->next) {
            if (*l == c) {
                *l = c->next;
                break;
            }
        }
    }
    pthread_mutex_unlock(&reg);
    if (last) {
        if (c->fd >= 0) {
            close(c->fd);
        }
        pthread_mutex_destroy(&c->io);
        c->magic = 0;
        free(c);
    }
}

void hm_comm_set_async(hm_comm *c, int32_t err)
{
    pthread_mutex_lock(&reg);
    if (!c->async_error) {
        c->async_error = err;
    }
    pthread_mutex_unlock(&reg);
}

bool hm_comm_destroyed(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    bool d = c->destroyed;
    pthread_mutex_unlock(&reg);
    return d;
}

int32_t hm_comm_async(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    int32_t e = c->async_error;
    pthread_mutex_unlock(&reg);
    return e;
}

hm_comm *hm_comm_new(uint32_t rank, uint32_t nranks, int32_t device, int fd, uint64_t exec_ms, const char *name)
{
    hm_comm *c = calloc(1, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->magic = HM_COMM_MAGIC;
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    c->fd = fd;
    c->exec_ms = exec_ms;
    c->refs = 1;
    c->user_ref = true;
    c->gen = aclmock_generation();
    pthread_mutex_init(&c->io, NULL);
    snprintf(c->name, sizeof(c->name), "%s", name);
    return c;
}

void hm_comm_register(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    c->id = ++next_id;
    c->next = comms;
    comms = c;
    pthread_mutex_unlock(&reg);
}

HcclResult hm_comm_destroy(hm_comm *c)
{
    pthread_mutex_lock(&reg);
    c->busy--; /* the destroy's own entry */
    if (c->busy) {
        pthread_mutex_unlock(&reg);
        return HCCL_E_AGAIN;
    }
    c->destroyed = true;
    c->user_ref = false;
    /* wakes an exchange blocked on the hub: it fails at once */
    if (c->fd >= 0) {
        shutdown(c->fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&reg);
    hm_comm_unref(c);
    return HCCL_SUCCESS;
}

void hm_comm_close_all(void)
{
    pthread_mutex_lock(&reg);
    for (hm_comm *c = comms; c; c = c->next) {
        c->destroyed = true;
        if (c->fd >= 0) {
            shutdown(c->fd, SHUT_RDWR);
        }
    }
    pthread_mutex_unlock(&reg);
}

/* aclmockReset: no communicator outlives it, no hub either. The user's
 * references are dropped; queued exchanges drop theirs as the stream
 * workers discard or fail them. */
static void on_reset(void)
{
    hm_comm_close_all();
    hm_hub_stop_all();
    pthread_mutex_lock(&reg);
    next_id = 0; /* journal names start again at comm1, like the mock's handles */
    pthread_mutex_unlock(&reg);
    for (;;) {
        pthread_mutex_lock(&reg);
        hm_comm *c = comms;
        while (c && !c->user_ref) {
            c = c->next;
        }
        if (c) {
            c->user_ref = false;
        }
        pthread_mutex_unlock(&reg);
        if (!c) {
            break;
        }
        hm_comm_unref(c);
    }
}

__attribute__((constructor)) static void registry_load(void) { aclmock_set_reset_hook(on_reset); }
