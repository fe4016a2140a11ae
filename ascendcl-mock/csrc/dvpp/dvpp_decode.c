/*
 * dvpp_decode.c (libacl_dvpp_op.so): acldvppDecodeJpeg, a JPEG's bytes (a
 * uint8 tensor in device memory) decoded into a GRAY or RGB uint8 image.
 *
 * Checks in phase 1 (CANN 8.5 page operatorlist_00065, …/850/API/aolapi/):
 * self uint8, contiguous (format ND; the mock takes the bytes of any shape);
 * channels 1 (GRAY) or 3 (RGB); tryRecoverTruncated is reserved and "must be
 * true"; out uint8, NCHW or NHWC, contiguous, N 1 or absent, C = channels.
 *
 * The bytes are in device memory, possibly still being copied there by
 * queued work, so phase 1 cannot read them; the kernel, on the stream's
 * worker, parses them (csrc/dvpp/jpeg_*.c, our own baseline decoder) and
 * fails the stream (DVPP_TASK_FAILED, with the reason as the message) when
 * they are not a JPEG the decoder takes, when the image is outside the size
 * range torchvision_npu documents for the NPU decode (6x4 to 32768x32768,
 * width x height; capture-kernels-dvpp-facts.md §3), or when out's height
 * and width are not the image's. A card's decoder would fail its task too;
 * which code it reports is not documented (a mock decision). EXIF
 * orientation is not applied: pixels come in stored order.
 */
#include "dvpp_internal.h"
#include "jpeg_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IP_SELF, IP_OUT, IP_CHANNELS, IP_DST = 8 };

static int32_t k_decode(const mk_job *j, void *const *bufs, char *msg, size_t cap)
{
    const mk_view *sv = &j->slot[j->ip[IP_SELF]];
    const uint8_t *data = bufs[j->ip[IP_SELF]];
    uint8_t *ob = bufs[j->ip[IP_OUT]];
    size_t len = (size_t)numel(sv);
    uint32_t channels = (uint32_t)j->ip[IP_CHANNELS];
    dv_image d;
    dv_get(j, IP_DST, &d);
    char why[160] = "";
    mk_jpeg_info info;
    if (!data || !ob) {
        snprintf(msg, cap, "nothing to decode (empty self or out)");
        return DVPP_TASK_FAILED;
    }
    if (mk_jpeg_probe(data, len, &info, why, sizeof(why)) != MK_JPEG_OK) {
        snprintf(msg, cap, "%s", why);
        return DVPP_TASK_FAILED;
    }
    if (info.width < 6 || info.height < 4 || info.width > 32768 || info.height > 32768) {
        snprintf(msg, cap, "the image is %ux%u (width x height), outside 6x4 to 32768x32768",
                 info.width, info.height);
        return DVPP_TASK_FAILED;
    }
    if ((int64_t)info.height != d.h || (int64_t)info.width != d.w) {
        snprintf(msg, cap, "out is %lldx%lld (height x width) but the image is %ux%u",
                 (long long)d.h, (long long)d.w, info.height, info.width);
        return DVPP_TASK_FAILED;
    }
    size_t n = (size_t)info.width * info.height * channels;
    uint8_t *hwc = malloc(n);
    if (!hwc) {
        snprintf(msg, cap, "out of host memory");
        return DVPP_TASK_FAILED;
    }
    mk_jpeg_status st = mk_jpeg_decode(data, len, channels, hwc, why, sizeof(why));
    if (st != MK_JPEG_OK) {
        free(hwc);
        snprintf(msg, cap, "%s", why);
        return DVPP_TASK_FAILED;
    }
    for (int64_t y = 0; y < d.h; y++) {
        for (int64_t x = 0; x < d.w; x++) {
            for (int64_t c = 0; c < d.c; c++) {
                ob[y * d.sh + x * d.sw + c * d.sc] = hwc[((size_t)y * (size_t)d.w + (size_t)x) * channels + (size_t)c];
            }
        }
    }
    free(hwc);
    return 0;
}

OPS_EXPORT acldvppStatus acldvppDecodeJpegGetWorkspaceSize(const aclTensor *self, uint32_t channels,
                                                           bool tryRecoverTruncated, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    dvpp_begin(&p, MK_FN(acldvppDecodeJpegGetWorkspaceSize), "acldvppDecodeJpeg");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "channels", channels);
    ph1_arg_i64(&p, "tryRecoverTruncated", tryRecoverTruncated);
    ph1_arg_tensor(&p, "out", out);
    dv_image d;
    if (dvpp_check_init(&p) && need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DV_U8)) {
        if (!dv_contiguous(&self->v)) {
            invalid(&p, "self (the JPEG's bytes) must be contiguous");
        } else if (numel(&self->v) == 0) {
            invalid(&p, "self (the JPEG's bytes) is empty");
        } else if (channels != 1 && channels != 3) {
            invalid(&p, "channels is %u: it must be 1 (GRAY) or 3 (RGB)", channels);
        } else if (!tryRecoverTruncated) {
            invalid(&p, "tryRecoverTruncated is reserved and must be true");
        } else if (dv_image_of(&p, out, "out", DV_U8, &d)) {
            if (d.c != (int64_t)channels) {
                invalid(&p, "out has %lld channels but channels is %u", (long long)d.c, channels);
            } else if (make_exec(&p, NULL, 0)) {
                mk_job *j = &p.e->job;
                j->status_kernel = k_decode;
                j->ip[IP_SELF] = add_in(&p, self);
                j->ip[IP_OUT] = add_out(&p, out);
                j->ip[IP_CHANNELS] = channels;
                dv_put(j, IP_DST, &d);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
DVPP_PHASE2(DecodeJpeg)
