/*
 * rec_hccl_comm.c: the shim's names of HCCL communicators, those of the
 * mock's journal (csrc/hccl/comm_exec.c hm_journal_comm): comm<N>, counted
 * from 1 in order of creation (as the mock numbers them, comm_registry.c),
 * "unknown" for a handle no init returned, "null" for NULL. A destroyed
 * communicator keeps its name until its address is handed out again.
 *
 * Everything here runs under the shim's lock (rec_begin .. rec_end).
 */
#include "rec.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct comm_id {
    uintptr_t h;
    uint64_t id;
} comm_id;

/* Programs make a handful of communicators: a list searched newest first. */
static comm_id *comms;
static size_t ncomms, capcomms;
static uint64_t next_comm;

void rec_comm_reset_locked(void)
{
    free(comms);
    comms = NULL;
    ncomms = capcomms = 0;
    next_comm = 0;
}

static uint64_t comm_find(const void *comm)
{
    for (size_t i = ncomms; i-- > 0;) {
        if (comms[i].h == (uintptr_t)comm) {
            return comms[i].id;
        }
    }
    return 0;
}

void rec_comm_add(rec_call *c, const void *comm)
{
    if (!c->on || !comm) {
        return;
    }
    if (ncomms == capcomms) {
        size_t cap = capcomms ? capcomms * 2 : 16;
        comm_id *n = realloc(comms, cap * sizeof(*n));
        if (!n) {
            abort(); /* like the handle table (rec_syms.c): no trace without it */
        }
        comms = n;
        capcomms = cap;
    }
    comms[ncomms++] = (comm_id){(uintptr_t)comm, ++next_comm};
}

void ro_new_comm(rec_call *c, const char *key, const void *comm)
{
    if (!c->on || !comm) {
        return;
    }
    rec_comm_add(c, comm);
    char name[32];
    snprintf(name, sizeof(name), "comm%llu", (unsigned long long)next_comm);
    ro_str(c, key, name);
}

void ra_comm(rec_call *c, const void *comm)
{
    if (!c->on) {
        return;
    }
    uint64_t id = comm ? comm_find(comm) : 0;
    char name[32];
    if (id) {
        snprintf(name, sizeof(name), "comm%llu", (unsigned long long)id);
    } else {
        snprintf(name, sizeof(name), comm ? "unknown" : "null");
    }
    ra_str(c, "comm", name);
}
