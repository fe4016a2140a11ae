// A stand-in for the bounds-checked memory functions of Huawei's securec
// library (libc_sec, shipped with a CANN install, not with the source trees),
// for the samples that include <securec.h>. Our own code, header-only; it is
// searched after every include directory of a given install, so an install's
// own securec.h wins. Only what the samples call: memset_s and memcpy_s.
#pragma once
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;

// Fills `count` bytes of `dest` (`destMax` long) with `c`; fills what fits
// and reports ERANGE when `count` exceeds `destMax`.
static inline errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (dest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE;
    }
    memset(dest, c, count);
    return EOK;
}

// Copies `count` bytes into `dest` (`destMax` long); refuses (clearing
// `dest`) a copy that does not fit or whose ranges overlap.
static inline errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (dest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (src == NULL || count > destMax) {
        memset(dest, 0, destMax);
        return src == NULL ? EINVAL : ERANGE;
    }
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)src;
    if ((d < s && d + count > s) || (s < d && s + count > d)) {
        memset(dest, 0, destMax);
        return EINVAL;
    }
    memcpy(dest, src, count);
    return EOK;
}
