/*
 * jpeg_decode.c: the driver. Reads the headers, decodes every scan's MCUs
 * (with their restart intervals) into one sample plane per component, then
 * hands the planes to jpeg_color.c. The two entry points of jpeg_decode.h.
 */
#include "jpeg_internal.h"

#include <stdlib.h>
#include <string.h>

/* At a restart boundary: drops the bits left of the interval, finds the
 * marker (skipping stray bytes, as libjpeg does) and checks it is RSTn with
 * n = the interval's number mod 8; the reader then restarts after it. */
static int restart(mk_jpeg_ctx *c, mk_jpeg_bits *b, uint32_t n)
{
    size_t p = b->pos;
    if (!b->at_marker) {
        while (p < c->len && !(c->data[p] == 0xFF && p + 1 < c->len && c->data[p + 1] != 0x00))
            p += (c->data[p] == 0xFF) ? 2 : 1;
    }
    while (p + 1 < c->len && c->data[p + 1] == 0xFF)
        p++; /* fill bytes */
    if (p + 1 >= c->len) {
        mk_jpeg_fail(c, MK_JPEG_CORRUPT, "truncated: data end where restart marker RST%u is due",
                     n & 7u);
        return -1;
    }
    int m = c->data[p + 1];
    if (m != 0xD0 + (int)(n & 7u)) {
        mk_jpeg_fail(c, MK_JPEG_CORRUPT, "expected restart marker RST%u, found marker 0xFF%02X",
                     n & 7u, m);
        return -1;
    }
    mk_jpeg_bits_init(b, c->data, c->len, p + 2);
    return 0;
}

static mk_jpeg_status decode_scan(mk_jpeg_ctx *c)
{
    int ns = c->scan_n;
    mk_jpeg_component *first = &c->comp[c->scan_comp[0]];
    uint32_t mx_n = ns == 1 ? first->bw : c->mcux;
    uint32_t my_n = ns == 1 ? first->bh : c->mcuy;
    uint64_t total = (uint64_t)mx_n * my_n;
    uint32_t ri = c->restart_interval;
    mk_jpeg_bits b;
    float coef[64];
    int nz;

    mk_jpeg_bits_init(&b, c->data, c->len, c->pos);
    for (int i = 0; i < ns; i++)
        c->comp[c->scan_comp[i]].pred = 0;
    uint32_t rst = 0;
    for (uint64_t m = 0; m < total; m++) {
        if (ri != 0 && m != 0 && m % ri == 0) {
            if (restart(c, &b, rst++) != 0)
                return MK_JPEG_CORRUPT;
            for (int i = 0; i < ns; i++)
                c->comp[c->scan_comp[i]].pred = 0;
        }
        uint32_t mx = (uint32_t)(m % mx_n), my = (uint32_t)(m / mx_n);
        for (int i = 0; i < ns; i++) {
            mk_jpeg_component *k = &c->comp[c->scan_comp[i]];
            int bh = ns == 1 ? 1 : k->v, bw = ns == 1 ? 1 : k->h;
            for (int by = 0; by < bh; by++) {
                for (int bx = 0; bx < bw; bx++) {
                    size_t col = ((size_t)mx * (size_t)bw + (size_t)bx) * 8;
                    size_t row = ((size_t)my * (size_t)bh + (size_t)by) * 8;
                    if (mk_jpeg_decode_block(c, &b, k, coef, &nz) != 0)
                        return MK_JPEG_CORRUPT;
                    mk_jpeg_idct_store(coef, nz, k->plane + row * k->stride + col, k->stride);
                }
            }
        }
        if (b.overrun)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT,
                                "truncated: entropy-coded data end after %llu of %llu MCUs",
                                (unsigned long long)m, (unsigned long long)total);
    }
    for (int i = 0; i < ns; i++)
        c->comp[c->scan_comp[i]].decoded = 1;
    c->pos = b.pos;
    return MK_JPEG_OK;
}

/* The planes, once the frame is known (at the first SOS). Refuses a frame
 * that the rest of the data cannot possibly fill: every block takes at
 * least 2 bits (a DC and an AC code), so a tiny file claiming a huge image
 * is refused before anything is allocated for it. */
static mk_jpeg_status alloc_planes(mk_jpeg_ctx *c)
{
    uint64_t blocks = 0;
    for (int i = 0; i < c->ncomp; i++)
        blocks += (uint64_t)c->comp[i].bw * c->comp[i].bh;
    if (blocks > 4 * (uint64_t)(c->len - c->pos))
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT,
                            "truncated: %zu bytes left cannot hold the %llu blocks of a %ux%u image",
                            c->len - c->pos, (unsigned long long)blocks, c->width, c->height);
    for (int i = 0; i < c->ncomp; i++) {
        mk_jpeg_component *k = &c->comp[i];
        if (k->rows != 0 && k->stride > SIZE_MAX / k->rows)
            return mk_jpeg_fail(c, MK_JPEG_NOMEM, "image too large");
        k->plane = calloc(k->stride * k->rows, 1);
        if (k->plane == NULL)
            return mk_jpeg_fail(c, MK_JPEG_NOMEM, "out of memory (%zu-byte plane)", k->stride * k->rows);
    }
    return MK_JPEG_OK;
}

static int all_decoded(const mk_jpeg_ctx *c)
{
    if (c->ncomp == 0 || c->comp[0].plane == NULL)
        return 0;
    for (int i = 0; i < c->ncomp; i++)
        if (!c->comp[i].decoded)
            return 0;
    return 1;
}

static mk_jpeg_status run(mk_jpeg_ctx *c, uint32_t channels, uint8_t *out)
{
    mk_jpeg_status st = mk_jpeg_read_soi(c);
    int marker;
    while (st == MK_JPEG_OK && !all_decoded(c)) {
        st = mk_jpeg_read_headers(c, &marker);
        if (st != MK_JPEG_OK)
            break;
        if (marker != 0xDA) {
            if (c->sof == 0)
                return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "%s before any SOF",
                                    marker < 0 ? "end of data" : "EOI");
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "truncated: %s before every component was decoded",
                                marker < 0 ? "end of data" : "EOI");
        }
        st = mk_jpeg_read_sos(c);
        if (st == MK_JPEG_OK && c->comp[0].plane == NULL)
            st = alloc_planes(c);
        if (st == MK_JPEG_OK)
            st = decode_scan(c);
    }
    if (st == MK_JPEG_OK)
        st = mk_jpeg_output(c, channels, out);
    return st;
}

mk_jpeg_status mk_jpeg_probe(const uint8_t *data, size_t len, mk_jpeg_info *info, char *why,
                             size_t why_len)
{
    mk_jpeg_ctx c;
    int marker;
    mk_jpeg_ctx_init(&c, data, len, why, why_len);
    mk_jpeg_status st = mk_jpeg_read_soi(&c);
    if (st == MK_JPEG_OK)
        st = mk_jpeg_read_headers(&c, &marker);
    if (st == MK_JPEG_OK && marker != 0xDA)
        st = mk_jpeg_fail(&c, MK_JPEG_CORRUPT, "%s before the first SOS",
                          marker < 0 ? "end of data" : "EOI");
    if (st == MK_JPEG_OK)
        st = mk_jpeg_read_sos(&c);
    if (info != NULL)
        mk_jpeg_fill_info(&c, info);
    return st;
}

mk_jpeg_status mk_jpeg_decode(const uint8_t *data, size_t len, uint32_t channels, uint8_t *out,
                              char *why, size_t why_len)
{
    mk_jpeg_ctx *c = malloc(sizeof *c);
    if (c == NULL) {
        if (why != NULL && why_len > 0)
            strncpy(why, "out of memory", why_len - 1), why[why_len - 1] = '\0';
        return MK_JPEG_NOMEM;
    }
    mk_jpeg_ctx_init(c, data, len, why, why_len);
    mk_jpeg_status st;
    if (channels != 1 && channels != 3)
        st = mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "channels %u (1 or 3 only)", channels);
    else if (out == NULL)
        st = mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "no output buffer");
    else
        st = run(c, channels, out);
    for (int i = 0; i < 4; i++)
        free(c->comp[i].plane);
    free(c);
    return st;
}
