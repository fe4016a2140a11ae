/*
 * jpeg_huffman.c: Huffman entropy decoding of sequential DCT scans
 * (T.81 annex C for the tables, F.2.2 for the decoding procedure).
 */
#include "jpeg_internal.h"

#include <string.h>

const uint8_t mk_jpeg_zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/* Assigns the canonical codes (annex C: codes of one length are consecutive,
 * and the next length starts at twice the code after the last one). Returns
 * -1 if the counts ask for more codes of some length than there are. */
int mk_jpeg_build_huff(mk_jpeg_huff *t, const uint8_t counts[16], const uint8_t *symbols)
{
    int32_t code = 0;
    int idx = 0;
    memset(t, 0, sizeof *t);
    for (int l = 1; l <= 16; l++) {
        int n = counts[l - 1];
        if (code + n > (1 << l))
            return -1;
        t->valoffset[l] = idx - code;
        t->maxcode[l] = n ? code + n - 1 : -1;
        for (int i = 0; i < n; i++, code++, idx++) {
            uint8_t sym = symbols[idx];
            t->symbols[idx] = sym;
            if (sym > t->max_symbol)
                t->max_symbol = sym;
            if (l <= MK_JPEG_FAST_BITS) {
                int shift = MK_JPEG_FAST_BITS - l;
                int base = code << shift;
                for (int j = 0; j < (1 << shift); j++)
                    t->fast[base + j] = (uint16_t)((l << 8) | sym);
            }
        }
        code <<= 1;
    }
    t->nsymbols = idx;
    t->defined = 1;
    return 0;
}

void mk_jpeg_bits_init(mk_jpeg_bits *b, const uint8_t *data, size_t len, size_t pos)
{
    memset(b, 0, sizeof *b);
    b->data = data;
    b->len = len;
    b->pos = pos;
}

/* Tops the accumulator up to more than 56 bits, removing stuffed zero bytes;
 * at a marker or the end of the data, zero bits are made up instead. */
static void fill(mk_jpeg_bits *b)
{
    while (b->nbits <= 56) {
        if (!b->at_marker) {
            if (b->pos >= b->len) {
                b->at_marker = 1;
            } else if (b->data[b->pos] != 0xFF) {
                b->acc = (b->acc << 8) | b->data[b->pos++];
                b->nbits += 8;
                continue;
            } else if (b->pos + 1 < b->len && b->data[b->pos + 1] == 0x00) {
                b->acc = (b->acc << 8) | 0xFF;
                b->pos += 2;
                b->nbits += 8;
                continue;
            } else {
                b->at_marker = 1;
            }
        }
        b->acc <<= 8;
        b->nbits += 8;
        b->fake += 8;
    }
}

static uint32_t peek(const mk_jpeg_bits *b, int n)
{
    return (uint32_t)(b->acc >> (b->nbits - n)) & ((1u << n) - 1u);
}

static void consume(mk_jpeg_bits *b, int n)
{
    b->nbits -= n;
    if (b->nbits < b->fake) {
        b->overrun = 1;
        b->fake = b->nbits;
    }
}

/* The next symbol of table t, or -1 if the bits are no code of it. */
static int decode_symbol(mk_jpeg_bits *b, const mk_jpeg_huff *t)
{
    if (b->nbits < 16)
        fill(b);
    uint16_t e = t->fast[peek(b, MK_JPEG_FAST_BITS)];
    if (e != 0) {
        consume(b, e >> 8);
        return e & 0xFF;
    }
    for (int l = MK_JPEG_FAST_BITS + 1; l <= 16; l++) {
        int32_t code = (int32_t)peek(b, l);
        if (code <= t->maxcode[l]) {
            consume(b, l);
            return t->symbols[code + t->valoffset[l]];
        }
    }
    return -1;
}

/* s more bits, as the signed value of magnitude category s (F.2.2.1). */
static int32_t receive_extend(mk_jpeg_bits *b, int s)
{
    if (s == 0)
        return 0;
    if (b->nbits < s)
        fill(b);
    int32_t v = (int32_t)peek(b, s);
    consume(b, s);
    if (v < (1 << (s - 1)))
        v -= (1 << s) - 1;
    return v;
}

int mk_jpeg_decode_block(mk_jpeg_ctx *c, mk_jpeg_bits *b, mk_jpeg_component *comp,
                         float coef[64], int *ac_nonzero)
{
    memset(coef, 0, 64 * sizeof coef[0]);
    *ac_nonzero = 0;
    int t = decode_symbol(b, &c->dc[comp->dc]);
    if (t < 0) {
        mk_jpeg_fail(c, MK_JPEG_CORRUPT, "Huffman code not in DC table %d (component %u)",
                     comp->dc, comp->id);
        return -1;
    }
    comp->pred += receive_extend(b, t);
    coef[0] = (float)comp->pred * comp->q[0];
    const mk_jpeg_huff *ac = &c->ac[comp->ac];
    for (int k = 1; k < 64;) {
        int rs = decode_symbol(b, ac);
        if (rs < 0) {
            mk_jpeg_fail(c, MK_JPEG_CORRUPT, "Huffman code not in AC table %d (component %u)",
                         comp->ac, comp->id);
            return -1;
        }
        int r = rs >> 4, s = rs & 15;
        if (s == 0) {
            if (r != 15)
                break; /* EOB */
            k += 16;   /* ZRL */
            continue;
        }
        k += r;
        if (k > 63) {
            mk_jpeg_fail(c, MK_JPEG_CORRUPT, "AC run past the end of a block (component %u)",
                         comp->id);
            return -1;
        }
        int n = mk_jpeg_zigzag[k];
        coef[n] = (float)receive_extend(b, s) * comp->q[n];
        *ac_nonzero = 1;
        k++;
    }
    return 0;
}
