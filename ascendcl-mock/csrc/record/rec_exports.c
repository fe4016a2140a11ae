/*
 * rec_exports.c: aclrecordExports, the count of the header's functions the
 * shim defines: every one is referenced here, so with -z defs a missing
 * wrapper is a link error.
 */
#include "rec.h"

#define REC_FN_ADDR(n) (const void *)&n,
static const void *const exported[] = {MOCK_FUNCTIONS(REC_FN_ADDR)};
#undef REC_FN_ADDR

REC_EXPORT uint64_t aclrecordExports(void)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof(exported) / sizeof(exported[0]); i++) {
        n += exported[i] != NULL;
    }
    return n;
}
