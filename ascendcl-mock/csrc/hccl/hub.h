/*
 * hub.h: the rendezvous hub's state, shared by its loop (comm_hub.c) and its
 * matcher (comm_match.c). One hub per communicator world; its thread owns
 * everything here (no lock), except the atomic `stop`, `done`, `ready`
 * and `broken`.
 */
#ifndef ACLMOCK_HCCL_HUB_H
#define ACLMOCK_HCCL_HUB_H

#include "hccl_mock.h"

#include <stdatomic.h>

/* One rank's exchange waiting at the hub. */
typedef struct hub_op {
    hm_desc d;
    const uint64_t *aux;
    const unsigned char *data;
    void *buf; /* the message: owns aux and data */
    uint64_t t_ns;
} hub_op;

typedef struct hub {
    int lfd, wake[2];
    char dir[64], path[108];
    uint64_t session, connect_ms, exec_ms, created_ns, first_join_ns;
    uint32_t nranks, njoined;
    /* atomic: read at process exit by another thread (comm_hub.c) */
    _Atomic bool ready;
    _Atomic int32_t broken; /* HcclResult, 0 while healthy */
    char broken_msg[192];
    int *pending; /* accepted connections that have not joined */
    uint32_t npending, cappending;
    int *rank_fd;  /* [nranks], -1 when not joined or gone */
    bool *joined;  /* [nranks], ever joined */
    hub_op **head; /* [nranks] */
    pthread_t th;
    _Atomic bool stop, done;
    struct hub *next;
} hub;

/* Replies to rank r (ignored if it is gone). */
void hub_reply(hub *h, uint32_t r, int32_t status, const char *msg, const void *data, uint64_t len);
void hub_op_free(hub_op *op);
/* Fails every waiting exchange and every later one with `code`. */
void hub_break(hub *h, int32_t code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* comm_match_v.c: the V collectives (false: the hub broke, with the reason;
 * *tmp receives a buffer the caller frees after replying) and batches. */
bool hm_run_vkind(hub *h, const hm_desc *d, unsigned char **res, uint64_t *len, unsigned char **tmp);
bool hm_try_batch(hub *h, uint32_t r);
/* Runs every exchange that can run now; detects disagreements. */
void hub_progress(hub *h);

#endif /* ACLMOCK_HCCL_HUB_H */
