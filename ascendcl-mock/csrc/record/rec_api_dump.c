/*
 * rec_api_dump.c: recording wrappers of the dump API (acl/acl_dump.h): the
 * dump callback's registration and the args dump. A callback is recorded as
 * "set" or "null", never called by the shim. Keys are the mock's
 * (csrc/dump.c).
 */
#include <acl/acl_dump.h>

#include "rec.h"

REC_EXPORT aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t),
                                       int32_t flag)
{
    REC_BEGIN(acldumpRegCallback);
    ra_str(&c, "messageCallback", messageCallback ? "set" : "null");
    ra_i64(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, messageCallback, flag);
    return REC_END(rc);
}

/* No return value: "ret" is 0 when the runtime has the function. */
static aclError unreg(__typeof__(&acldumpUnregCallback) real)
{
    real();
    return ACL_SUCCESS;
}

REC_EXPORT void acldumpUnregCallback(void)
{
    REC_BEGIN(acldumpUnregCallback);
    aclError rc;
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    rc = real_ ? unreg(real_) : rec_missing(&c);
    if (rec_on_) {
        rec_returned(&c, rc);
    }
    (void)REC_END(rc);
}

REC_EXPORT aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
    REC_BEGIN(aclopStartDumpArgs);
    ra_u64(&c, "dumpType", dumpType);
    ra_str(&c, "path", path);
    aclError rc;
    REC_INVOKE(rc, dumpType, path);
    return REC_END(rc);
}

REC_EXPORT aclError aclopStopDumpArgs(uint32_t dumpType)
{
    REC_BEGIN(aclopStopDumpArgs);
    ra_u64(&c, "dumpType", dumpType);
    aclError rc;
    REC_INVOKE(rc, dumpType);
    return REC_END(rc);
}
