/*
 * Memory of the mock (memory.c, arena.c, vmm*.c, copy*.c): classifying and
 * validating address ranges, copies and fills between them, and finding the
 * allocation, pinned block, reservation or mapping behind an address.
 * A part of mock.h, included there after the object types it uses; include
 * mock.h, not this file.
 */
#ifndef ACLMOCK_INTERNAL_MEMORY_H
#define ACLMOCK_INTERNAL_MEMORY_H

#ifndef ACLMOCK_INTERNAL_MOCK_H
#error "include mock.h"
#endif

/* ------------------------------------------------------ memory, arena */
enum mem_where { MEM_HOST = 0, MEM_PINNED, MEM_DEVICE };
typedef struct mem_range {
    int where;
    int device;
    uint64_t fp; /* identity of the allocations/mappings behind the range */
} mem_range;
/* Classifies [p, p+n) and validates device and pinned ranges. With quiet,
 * sets no message and counts no misuse (worker re-validation). */
aclError mem_classify(const void *p, size_t n, bool write, bool quiet, mem_range *out);
int mem_where(const void *p);
/* Which device window holds address a (vmm: the VMM window), if any. */
bool mem_window(uintptr_t a, int *dev, bool *vmm);
/* Copies between any two validated ranges (device backing or host). */
void mem_copy(void *dst, const void *src, size_t n);
void mem_fill(void *dst, int value, size_t n);
/* A strided copy of height rows of width bytes (copy2d.c). */
void copy2d_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height);
void arena_release_backing(int device, uint64_t off, uint64_t len, uint64_t lo, uint64_t hi);
uint64_t arena_backed_bytes(void);
/* Symbolic name of an address for the journal. */
void sym_addr(const void *p, char *buf, size_t cap);
mock_alloc *alloc_find(mock_device *d, uint64_t off, bool containing);
mock_host *host_find(uintptr_t addr, bool containing);
mock_resv *resv_find(mock_device *d, uint64_t off);
mock_map *map_find(mock_resv *r, uint64_t off);
/* Returns the misuse kind the release reported (order.c), or -1. */
int phys_release_if_unused(mock_phys *p);
/* A physical handle argument; NULL (with error and misuse) when invalid. */
mock_phys *phys_arg(const void *handle, bool allow_freed);
/* The reservation holding `va` (its device in *dev), or NULL. */
mock_resv *resv_of(const void *va, int *dev);
void memory_reset_locked(void);
void hostderef_install(void);
/* Inserts a pinned or registered host block, kept sorted (memory.c). */
void host_insert(const mock_host *h);
/* Inserts a device block, kept sorted by offset (memory.c). */
void alloc_insert(mock_device *d, const mock_alloc *al);
void settings_reset_locked(void);

#endif /* ACLMOCK_INTERNAL_MEMORY_H */
