/*
 * ipc.h: what the IPC calls share (ipc_shm.c, ipc_mem.c, notify_ipc.c).
 *
 * The mock's processes share exported device memory and notifies through
 * named POSIX shared-memory objects (/dev/shm), one per export, named by the
 * export key: "aclmock_m<pid>_<n>" for memory, "aclmock_n<pid>_<n>" for a
 * notify. The object starts with a header page (who exported it, the pid
 * whitelist, the exported range, a notify's bit); memory follows it. The
 * exporter maps the data over its own backing store of the allocation
 * (MAP_FIXED), the importer over the backing of a new allocation in its own
 * device window, so both see the same bytes. A mock design: a card shares
 * the HBM pages themselves through the driver (closed).
 */
#ifndef ACLMOCK_IPC_H
#define ACLMOCK_IPC_H

#include "mock.h"

#define IPC_MAGIC 0x3143504b434f4d41ull /* "AMOCKPC1" */
#define IPC_MAX_PIDS 64
#define IPC_HDR 4096u
/* rt_stars / acl sample length of a key buffer (example/notify: 65); the
 * mock's keys are shorter */
#define IPC_NAME_MAX 64

typedef struct ipc_hdr {
    uint64_t magic;
    int32_t owner;         /* exporting process */
    uint32_t kind;         /* 'm' memory, 'n' notify */
    uint32_t no_pid_check; /* exported with *_DISABLE_PID_VALIDATION */
    uint32_t npids;
    int32_t pids[IPC_MAX_PIDS]; /* aclrt*SetImportPid whitelist */
    uint32_t destroyed;    /* the exporter closed the key */
    uint32_t bit;          /* a notify's bit (atomic) */
    int32_t device;        /* the exporter's device */
    uint64_t size, delta, span; /* memory: bytes, offset of devPtr in the data, data length */
    uint64_t gran;     /* a physical allocation's granularity (ipc_phys.c) */
    int32_t mem_attr;  /* and its aclrtMemAttr */
} ipc_hdr;

/* Creates the object `name` (exclusive) of IPC_HDR + data bytes and maps its
 * header; *fd stays open for mapping the data. NULL on failure (errno). */
ipc_hdr *ipc_create(const char *name, uint64_t data, int *fd);
/* Opens and maps the header of an existing object; NULL if there is none. */
ipc_hdr *ipc_open(const char *name, int *fd);
void ipc_unmap_hdr(ipc_hdr *h);
/* Whether this process may import the object (whitelist, not destroyed). */
aclError ipc_may_import(const ipc_hdr *h, const char *name);
/* The next key of kind 'm' or 'n' of this process into key[len]; false
 * (with the failure recorded) when len is too short. */
bool ipc_new_name(char kind, char *key, size_t len);
/* aclrt*SetImportPid: pids into the whitelist. */
aclError ipc_set_pids(ipc_hdr *h, const int32_t *pid, size_t num);

/* Device memory (ipc_mem.c): called by aclrtFree before the block's backing
 * is released, so an exported block gets private pages again. */
void ipc_mem_block_freed(int dev, uint64_t off, uint64_t consumed);
/* Whether the block at `off` was imported (aclrtFree refuses it). */
bool ipc_mem_is_import(int dev, uint64_t off);
void ipc_reset_locked(void);
/* Physical allocations (ipc_phys.c): called by phys_release_if_unused before
 * the pages go back to the heap; the reset of their registry. */
void ipc_phys_released(mock_phys *p);
void ipc_phys_reset_locked(void);
/* Unmaps (and for its exporter destroys) a notify's shared bit (notify_ipc.c). */
void notify_ipc_release(mock_notify *n);
/* The notify's bit: in this process, or shared with others. */
void notify_bit_set(mock_notify *n);
bool notify_bit_take(mock_notify *n);

#endif /* ACLMOCK_IPC_H */
