/*
 * jpeg_markers.c: the marker segments of a JPEG file (T.81 annex B, JFIF,
 * Adobe APP14), up to and including an SOS header. What is refused and why
 * is listed in jpeg_decode.h.
 */
#include "jpeg_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

mk_jpeg_status mk_jpeg_fail(mk_jpeg_ctx *c, mk_jpeg_status st, const char *fmt, ...)
{
    if (c->why != NULL && c->why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_len, fmt, ap);
        va_end(ap);
    }
    return st;
}

void mk_jpeg_ctx_init(mk_jpeg_ctx *c, const uint8_t *data, size_t len, char *why,
                      size_t why_len)
{
    memset(c, 0, sizeof *c);
    c->data = data;
    c->len = data != NULL ? len : 0;
    c->why = why;
    c->why_len = why_len;
    if (why != NULL && why_len > 0)
        why[0] = '\0';
}

/* Finds the next marker from c->pos, skipping anything that is not one
 * (stray bytes, stuffed 0xFF00 pairs, 0xFF fill bytes). Returns the marker's
 * code with c->pos just past it, or -1 at the end of the data. */
int mk_jpeg_next_marker(mk_jpeg_ctx *c)
{
    size_t p = c->pos;
    while (p + 1 < c->len) {
        if (c->data[p] == 0xFF) {
            uint8_t m = c->data[p + 1];
            if (m != 0x00 && m != 0xFF) {
                c->pos = p + 2;
                return m;
            }
            p += (m == 0x00) ? 2 : 1;
        } else {
            p++;
        }
    }
    c->pos = c->len;
    return -1;
}

mk_jpeg_status mk_jpeg_read_soi(mk_jpeg_ctx *c)
{
    if (c->len < 2 || c->data[0] != 0xFF || c->data[1] != 0xD8)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "not a JPEG: no SOI marker at the start");
    c->pos = 2;
    return MK_JPEG_OK;
}

static int rd16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

static mk_jpeg_status read_dqt(mk_jpeg_ctx *c, const uint8_t *p, size_t n)
{
    while (n > 0) {
        int pq = p[0] >> 4, tq = p[0] & 15;
        size_t need = 1 + 64 * (size_t)(pq + 1);
        if (pq > 1 || tq > 3)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DQT: bad precision/table %d/%d", pq, tq);
        if (n < need)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DQT: segment length too short");
        for (int k = 0; k < 64; k++)
            c->qt[tq][mk_jpeg_zigzag[k]] = (uint16_t)(pq ? rd16(p + 1 + 2 * k) : p[1 + k]);
        c->qt_defined[tq] = 1;
        p += need;
        n -= need;
    }
    return MK_JPEG_OK;
}

static mk_jpeg_status read_dht(mk_jpeg_ctx *c, const uint8_t *p, size_t n)
{
    while (n > 0) {
        int tc = p[0] >> 4, th = p[0] & 15;
        size_t total = 0;
        if (tc > 1 || th > 3)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DHT: bad class/table %d/%d", tc, th);
        if (n < 17)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DHT: segment length too short");
        for (int l = 0; l < 16; l++)
            total += p[1 + l];
        if (total > 256)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DHT: %zu codes (more than 256)", total);
        if (n < 17 + total)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DHT: segment length too short");
        if (mk_jpeg_build_huff(tc ? &c->ac[th] : &c->dc[th], p + 1, p + 17) != 0)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DHT: code lengths overflow (bad table %d/%d)",
                                tc, th);
        p += 17 + total;
        n -= 17 + total;
    }
    return MK_JPEG_OK;
}

static const char *sof_kind(int m)
{
    switch (m) {
    case 0xC2: return "progressive JPEG (SOF2)";
    case 0xC3: return "lossless JPEG (SOF3)";
    case 0xC5: return "hierarchical JPEG (SOF5)";
    case 0xC6: return "hierarchical progressive JPEG (SOF6)";
    case 0xC7: return "hierarchical lossless JPEG (SOF7)";
    case 0xC9: return "arithmetic-coded JPEG (SOF9)";
    case 0xCA: return "arithmetic-coded progressive JPEG (SOF10)";
    case 0xCB: return "arithmetic-coded lossless JPEG (SOF11)";
    case 0xCD: return "arithmetic-coded hierarchical JPEG (SOF13)";
    case 0xCE: return "arithmetic-coded hierarchical progressive JPEG (SOF14)";
    case 0xCF: return "arithmetic-coded hierarchical lossless JPEG (SOF15)";
    default: return NULL;
    }
}

static mk_jpeg_status read_sof(mk_jpeg_ctx *c, int marker, const uint8_t *p, size_t n)
{
    if (c->sof != 0)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "a second SOF marker (0x%02X)", marker);
    if (n < 6 || n != 6 + 3 * (size_t)p[5])
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: bad segment length");
    c->sof = marker;
    c->precision = p[0];
    c->height = (uint32_t)rd16(p + 1);
    c->width = (uint32_t)rd16(p + 3);
    int nf = p[5];
    for (int i = 0; i < nf && i < 4; i++) {
        const uint8_t *q = p + 6 + 3 * i;
        c->comp[i].id = q[0];
        c->comp[i].h = q[1] >> 4;
        c->comp[i].v = q[1] & 15;
        c->comp[i].tq = q[2];
    }
    c->ncomp = nf < 4 ? nf : 4;
    const char *kind = sof_kind(marker);
    if (kind != NULL)
        return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "%s is not supported", kind);
    if (c->precision != 8)
        return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "%u-bit sample precision is not supported (8 only)",
                            c->precision);
    if (nf == 0)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: no components");
    if (nf != 1 && nf != 3)
        return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED,
                            "%d-component JPEG is not supported (1: grey, 3: colour)", nf);
    if (c->width == 0)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: width 0");
    if (c->height == 0)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: height 0 (a height defined by DNL is not supported)");
    c->hmax = c->vmax = 1;
    for (int i = 0; i < nf; i++) {
        mk_jpeg_component *k = &c->comp[i];
        if (k->h < 1 || k->h > 4 || k->v < 1 || k->v > 4)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: component %u sampling %ux%u out of 1..4",
                                k->id, k->h, k->v);
        if (k->h > 2 || k->v > 2)
            return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED,
                                "sampling factor %ux%u (component %u) is not supported (1 or 2 only)",
                                k->h, k->v, k->id);
        if (k->tq > 3)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: quantization table %u", k->tq);
        for (int j = 0; j < i; j++)
            if (c->comp[j].id == k->id)
                return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOF: component id %u twice", k->id);
        if (k->h > c->hmax)
            c->hmax = k->h;
        if (k->v > c->vmax)
            c->vmax = k->v;
    }
    c->mcux = (c->width + 8u * (uint32_t)c->hmax - 1) / (8u * (uint32_t)c->hmax);
    c->mcuy = (c->height + 8u * (uint32_t)c->vmax - 1) / (8u * (uint32_t)c->vmax);
    for (int i = 0; i < nf; i++) {
        mk_jpeg_component *k = &c->comp[i];
        k->width = (c->width * k->h + (uint32_t)c->hmax - 1) / (uint32_t)c->hmax;
        k->height = (c->height * k->v + (uint32_t)c->vmax - 1) / (uint32_t)c->vmax;
        k->bw = (k->width + 7) / 8;
        k->bh = (k->height + 7) / 8;
        k->stride = (size_t)c->mcux * k->h * 8;
        k->rows = (size_t)c->mcuy * k->v * 8;
    }
    return MK_JPEG_OK;
}

static void read_app(mk_jpeg_ctx *c, int marker, const uint8_t *p, size_t n)
{
    if (marker == 0xE0 && n >= 5 && memcmp(p, "JFIF", 5) == 0)
        c->jfif = 1;
    if (marker == 0xEE && n >= 12 && memcmp(p, "Adobe", 5) == 0) {
        c->adobe = 1;
        c->adobe_transform = p[11];
    }
}

/* Reads marker segments from c->pos until an SOS (c->pos then at its length
 * field), an EOI, or the end of the data: *marker is 0xDA, 0xD9 or -1. */
mk_jpeg_status mk_jpeg_read_headers(mk_jpeg_ctx *c, int *marker)
{
    for (;;) {
        int m = mk_jpeg_next_marker(c);
        *marker = m;
        if (m < 0 || m == 0xD9)
            return MK_JPEG_OK;
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7))
            continue; /* TEM, a stray RSTn: no segment */
        if (m == 0xD8)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "a second SOI marker");
        if (c->pos + 2 > c->len)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "truncated: marker 0xFF%02X has no length", m);
        size_t seglen = (size_t)rd16(c->data + c->pos);
        if (seglen < 2 || c->pos + seglen > c->len)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "marker 0xFF%02X: segment length %zu %s", m,
                                seglen, seglen < 2 ? "is too small" : "runs past the end of the data");
        if (m == 0xDA) {
            if (c->sof == 0)
                return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS before any SOF");
            return MK_JPEG_OK;
        }
        const uint8_t *p = c->data + c->pos + 2;
        size_t n = seglen - 2;
        c->pos += seglen;
        mk_jpeg_status st = MK_JPEG_OK;
        if (m == 0xC4) {
            st = read_dht(c, p, n);
        } else if (m == 0xDB) {
            st = read_dqt(c, p, n);
        } else if (m == 0xDD) {
            if (n != 2)
                return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DRI: bad segment length");
            c->restart_interval = (uint32_t)rd16(p);
        } else if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            st = read_sof(c, m, p, n);
        } else if (m == 0xC8) {
            return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "JPG extension marker 0xFFC8 is not supported");
        } else if (m == 0xCC) {
            return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "arithmetic coding (DAC marker) is not supported");
        } else if (m == 0xDE || m == 0xDF) {
            return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "hierarchical JPEG (%s marker) is not supported",
                                m == 0xDE ? "DHP" : "EXP");
        } else if (m == 0xDC) {
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DNL marker outside a scan's end");
        } else if (m >= 0xE0 && m <= 0xEF) {
            read_app(c, m, p, n);
        } else if (m == 0xFE) {
            /* COM */
        } else {
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "unknown marker 0xFF%02X", m);
        }
        if (st != MK_JPEG_OK)
            return st;
    }
}

static uint32_t pick_colorspace(const mk_jpeg_ctx *c)
{
    if (c->ncomp == 1)
        return MK_JPEG_CS_GRAY;
    if (c->jfif)
        return MK_JPEG_CS_YCBCR;
    if (c->adobe)
        return c->adobe_transform == 0 ? MK_JPEG_CS_RGB : MK_JPEG_CS_YCBCR;
    if (c->comp[0].id == 'R' && c->comp[1].id == 'G' && c->comp[2].id == 'B')
        return MK_JPEG_CS_RGB;
    return MK_JPEG_CS_YCBCR;
}

/* Reads the SOS header at c->pos (its length field, already checked to fit
 * the data); c->pos ends at the entropy-coded data. Latches the scan's
 * quantization tables into its components. */
mk_jpeg_status mk_jpeg_read_sos(mk_jpeg_ctx *c)
{
    const uint8_t *p = c->data + c->pos;
    size_t seglen = (size_t)rd16(p);
    if (seglen < 3 || seglen != 6 + 2 * (size_t)p[2])
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: bad segment length");
    int ns = p[2];
    if (ns < 1 || ns > c->ncomp)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: %d components in a %d-component frame", ns,
                            c->ncomp);
    if (c->colorspace == 0) {
        if (c->ncomp == 3 && !c->jfif && c->adobe && c->adobe_transform > 1)
            return mk_jpeg_fail(c, MK_JPEG_UNSUPPORTED, "Adobe colour transform %d is not supported",
                                c->adobe_transform);
        c->colorspace = pick_colorspace(c);
    }
    int blocks = 0;
    for (int i = 0; i < ns; i++) {
        int id = p[3 + 2 * i], td = p[4 + 2 * i] >> 4, ta = p[4 + 2 * i] & 15, k;
        for (k = 0; k < c->ncomp && c->comp[k].id != id; k++)
            ;
        if (k == c->ncomp)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: unknown component id %d", id);
        for (int j = 0; j < i; j++)
            if (c->scan_comp[j] == k)
                return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: component id %d twice", id);
        if (td > 3 || ta > 3)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: Huffman table %d/%d", td, ta);
        if (!c->dc[td].defined || !c->ac[ta].defined)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "missing Huffman table (%s %d) for component %d",
                                c->dc[td].defined ? "AC" : "DC", c->dc[td].defined ? ta : td, id);
        if (c->dc[td].max_symbol > 15)
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "DC Huffman table %d has symbol %u (> 15)", td,
                                c->dc[td].max_symbol);
        mk_jpeg_component *comp = &c->comp[k];
        if (!c->qt_defined[comp->tq])
            return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "missing quantization table %u for component %d",
                                comp->tq, id);
        c->scan_comp[i] = k;
        comp->dc = td;
        comp->ac = ta;
        blocks += comp->h * comp->v;
    }
    if (ns > 1 && blocks > 10)
        return mk_jpeg_fail(c, MK_JPEG_CORRUPT, "SOS: %d blocks per MCU (more than 10)", blocks);
    c->scan_n = ns;
    for (int i = 0; i < ns; i++) {
        mk_jpeg_component *comp = &c->comp[c->scan_comp[i]];
        for (int j = 0; j < 64; j++)
            comp->q[j] = (float)c->qt[comp->tq][j];
    }
    c->pos += seglen;
    return MK_JPEG_OK;
}

void mk_jpeg_fill_info(const mk_jpeg_ctx *c, mk_jpeg_info *info)
{
    memset(info, 0, sizeof *info);
    info->width = c->width;
    info->height = c->height;
    info->components = (uint32_t)c->ncomp;
    for (int i = 0; i < c->ncomp && i < 4; i++) {
        info->h_samp[i] = c->comp[i].h;
        info->v_samp[i] = c->comp[i].v;
    }
    info->restart_interval = c->restart_interval;
    info->precision = c->precision;
    info->sof = c->sof;
    info->colorspace = c->colorspace;
    info->scan_components = (uint32_t)c->scan_n;
}
