/*
 * jpeg_internal.h: what the decoder's files share (see jpeg_decode.h).
 *
 * jpeg_markers.c  marker segments: SOI, SOF, DHT, DQT, DRI, APPn, SOS header
 * jpeg_huffman.c  Huffman tables, the entropy-coded bit reader, one block
 * jpeg_idct.c     dequantized coefficients -> 8x8 samples
 * jpeg_color.c    upsampling and colour conversion into the output
 * jpeg_decode.c   the driver: scans, MCUs, restarts; the two entry points
 */
#ifndef MK_JPEG_INTERNAL_H
#define MK_JPEG_INTERNAL_H

#include "jpeg_decode.h"

#define MK_JPEG_FAST_BITS 9

/* One Huffman table, decoded per T.81 F.2.2.3 (MAXCODE / VALPTR by code
 * length), with a lookup of the first MK_JPEG_FAST_BITS bits in front. */
typedef struct mk_jpeg_huff {
    int defined;
    int nsymbols;
    uint8_t max_symbol;
    uint8_t symbols[256];
    int32_t maxcode[17];   /* largest code of length l, -1 if none */
    int32_t valoffset[17]; /* symbol index = code + valoffset[l] */
    /* (length << 8) | symbol for codes of <= FAST_BITS bits; 0: longer */
    uint16_t fast[1 << MK_JPEG_FAST_BITS];
} mk_jpeg_huff;

typedef struct mk_jpeg_component {
    uint8_t id, h, v, tq;
    uint32_t width, height; /* its samples: ceil(X * h / hmax) x ceil(Y * v / vmax) */
    uint32_t bw, bh;        /* blocks covering them (a non-interleaved scan's MCUs) */
    size_t stride, rows;    /* its plane, padded to whole interleaved MCUs */
    uint8_t *plane;
    int decoded;            /* a scan delivered all its blocks */
    int dc, ac;             /* tables of the current scan */
    int64_t pred;           /* DC predictor */
    float q[64];            /* quantization table in natural order, latched */
} mk_jpeg_component;

typedef struct mk_jpeg_ctx {
    const uint8_t *data;
    size_t len, pos;
    char *why;
    size_t why_len;

    uint16_t qt[4][64]; /* natural order */
    int qt_defined[4];
    mk_jpeg_huff dc[4], ac[4];
    uint32_t restart_interval;
    int jfif, adobe, adobe_transform;

    int sof; /* 0 until the SOF */
    uint32_t precision, width, height;
    int ncomp;
    mk_jpeg_component comp[4];
    int hmax, vmax;
    uint32_t mcux, mcuy; /* interleaved MCUs across and down */
    uint32_t colorspace; /* MK_JPEG_CS_*, fixed at the first SOS */

    int scan_n;          /* the current scan's components (indices in comp) */
    int scan_comp[4];
} mk_jpeg_ctx;

/* The reader of entropy-coded data. Past the segment's end (a marker or the
 * end of the input) it supplies 0 bits; consuming one of them sets overrun. */
typedef struct mk_jpeg_bits {
    const uint8_t *data;
    size_t len, pos;
    uint64_t acc; /* the low nbits bits are unread */
    int nbits;
    int fake;      /* how many of them (the lowest) are made-up zeros */
    int at_marker; /* pos is at a marker's 0xFF, or at the end */
    int overrun;
} mk_jpeg_bits;

/* jpeg_markers.c */
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_fail(mk_jpeg_ctx *c, mk_jpeg_status st,
                                           const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
MK_JPEG_HIDDEN void mk_jpeg_ctx_init(mk_jpeg_ctx *c, const uint8_t *data,
                                     size_t len, char *why, size_t why_len);
MK_JPEG_HIDDEN int mk_jpeg_next_marker(mk_jpeg_ctx *c);
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_read_soi(mk_jpeg_ctx *c);
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_read_headers(mk_jpeg_ctx *c, int *marker);
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_read_sos(mk_jpeg_ctx *c);
MK_JPEG_HIDDEN void mk_jpeg_fill_info(const mk_jpeg_ctx *c, mk_jpeg_info *info);

/* jpeg_huffman.c */
/* Zigzag position k -> natural (row-major) index, T.81 figure A.6. */
MK_JPEG_HIDDEN extern const uint8_t mk_jpeg_zigzag[64];
MK_JPEG_HIDDEN int mk_jpeg_build_huff(mk_jpeg_huff *t, const uint8_t counts[16],
                                      const uint8_t *symbols);
MK_JPEG_HIDDEN void mk_jpeg_bits_init(mk_jpeg_bits *b, const uint8_t *data,
                                      size_t len, size_t pos);
/* Decodes one block's coefficients, dequantized, in natural order. Returns
 * 0, or -1 with the reason written (CORRUPT). *ac_nonzero: any AC != 0. */
MK_JPEG_HIDDEN int mk_jpeg_decode_block(mk_jpeg_ctx *c, mk_jpeg_bits *b,
                                        mk_jpeg_component *comp, float coef[64],
                                        int *ac_nonzero);

/* jpeg_idct.c */
MK_JPEG_HIDDEN void mk_jpeg_idct_store(const float coef[64], int ac_nonzero,
                                       uint8_t *dst, size_t stride);

/* jpeg_color.c */
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_output(mk_jpeg_ctx *c, uint32_t channels,
                                             uint8_t *out);

#endif
