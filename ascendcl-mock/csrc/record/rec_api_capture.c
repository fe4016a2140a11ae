/*
 * rec_api_capture.c: recording wrappers of stream capture (aclmdlRI*).
 * Streams and models are recorded symbolically: a model is m<N>, numbered
 * when its capture begins (as the mock's journal numbers it), so a trace of
 * a program that captures and replays graphs replays strictly.
 */
#include "rec.h"

REC_EXPORT aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    REC_BEGIN(aclmdlRICaptureBegin);
    ra_stream(&c, "stream", stream);
    ra_i64(&c, "mode", (int64_t)mode);
    aclError rc;
    REC_INVOKE(rc, stream, mode);
    if (rc == ACL_SUCCESS) {
        rec_model_begun(stream);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    REC_BEGIN(aclmdlRICaptureGetInfo);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream, status, modelRI);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", (int64_t)*status);
    }
    if (rc == ACL_SUCCESS && modelRI) {
        ro_model(&c, "modelRI", stream, *modelRI);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    REC_BEGIN(aclmdlRICaptureEnd);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream, modelRI);
    if (rc == ACL_SUCCESS && modelRI) {
        ro_model(&c, "modelRI", stream, *modelRI);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    REC_BEGIN(aclmdlRIDebugJsonPrint);
    ra_obj(&c, "modelRI", modelRI, K_MODEL);
    ra_str(&c, "path", path);
    ra_u64(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, modelRI, path, flags);
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    REC_BEGIN(aclmdlRICaptureThreadExchangeMode);
    ra_i64(&c, "mode", mode ? (int64_t)*mode : -1);
    aclError rc;
    REC_INVOKE(rc, mode);
    if (rc == ACL_SUCCESS && mode) {
        ro_i64(&c, "mode", (int64_t)*mode);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    REC_BEGIN(aclmdlRIExecuteAsync);
    ra_obj(&c, "modelRI", modelRI, K_MODEL);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, modelRI, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    REC_BEGIN(aclmdlRIDestroy);
    ra_obj(&c, "modelRI", modelRI, K_MODEL);
    aclError rc;
    REC_INVOKE(rc, modelRI);
    return REC_END(rc);
}
