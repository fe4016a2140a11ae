/*
 * json_quote.c: see json_quote.h. Compiled into the mock and into the
 * recording shim.
 */
#include "json_quote.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 if the bytes
 * there are not one (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
size_t json_utf8_len(const unsigned char *p)
{
    unsigned char b = p[0];
    if (b < 0x80) {
        return 1;
    }
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        lo = b == 0xE0 ? 0xA0 : 0x80;
        hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        lo = b == 0xF0 ? 0x90 : 0x80;
        hi = b == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi) {
        return 0; /* also stops at the terminating NUL */
    }
    for (size_t i = 2; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xBF) {
            return 0;
        }
    }
    return n;
}

/* The JSON text of the character at p into esc (at most 6 bytes); sets
 * *used to the number of input bytes it stands for. */
static size_t quote_char(const unsigned char *p, char *esc, size_t *used)
{
    *used = 1;
    if (*p == '"' || *p == '\\') {
        esc[0] = '\\';
        esc[1] = (char)*p;
        return 2;
    }
    if (*p == '\n') {
        memcpy(esc, "\\n", 2);
        return 2;
    }
    if (*p < 0x20) {
        static const char hex[] = "0123456789abcdef";
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[*p >> 4];
        esc[5] = hex[*p & 15];
        return 6;
    }
    size_t n = json_utf8_len(p);
    if (!n) {
        memcpy(esc, "\\ufffd", 6);
        return 6;
    }
    memcpy(esc, p, n);
    *used = n;
    return n;
}

size_t json_quote(const char *s, char *out, size_t cap)
{
    if (cap < 3) {
        if (cap) {
            out[0] = '\0';
        }
        return 0;
    }
    if (!s) {
        snprintf(out, cap, "%s", cap > 4 ? "null" : "\"\"");
        return strlen(out);
    }
    size_t k = 0;
    out[k++] = '"';
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char esc[8];
        size_t used;
        size_t n = quote_char(p, esc, &used);
        if (k + n + 2 > cap) {
            break; /* truncated between characters: the JSON stays valid */
        }
        memcpy(out + k, esc, n);
        k += n;
        p += used;
    }
    out[k++] = '"';
    out[k] = '\0';
    return k;
}

/* ------------------------------------------------------------------ jbuf */

void jb_init(jbuf *b)
{
    b->heap = NULL;
    b->len = 0;
    b->cap = sizeof(b->inl);
    b->inl[0] = '\0';
}

static char *jb_data(jbuf *b) { return b->heap ? b->heap : b->inl; }

const char *jb_str(const jbuf *b) { return b->heap ? b->heap : b->inl; }

/* Room for `more` bytes and the NUL. */
static void jb_reserve(jbuf *b, size_t more)
{
    if (b->cap == 0) {
        jb_init(b);
    }
    if (b->len + more + 1 <= b->cap) {
        return;
    }
    size_t cap = b->cap;
    while (b->len + more + 1 > cap) {
        if (cap > ((size_t)-1) / 2) {
            abort();
        }
        cap *= 2;
    }
    char *n = b->heap ? realloc(b->heap, cap) : malloc(cap);
    if (!n) {
        abort();
    }
    if (!b->heap) {
        memcpy(n, b->inl, b->len + 1);
    }
    b->heap = n;
    b->cap = cap;
}

void jb_append(jbuf *b, const char *s, size_t n)
{
    jb_reserve(b, n);
    char *d = jb_data(b);
    memcpy(d + b->len, s, n);
    b->len += n;
    d[b->len] = '\0';
}

void jb_printf(jbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w > 0) {
        jb_reserve(b, (size_t)w);
        vsnprintf(jb_data(b) + b->len, (size_t)w + 1, fmt, ap2);
        b->len += (size_t)w;
    }
    va_end(ap2);
}

void jb_quote(jbuf *b, const char *s)
{
    if (!s) {
        jb_append(b, "null", 4);
        return;
    }
    jb_append(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char esc[8];
        size_t used;
        size_t n = quote_char(p, esc, &used);
        jb_append(b, esc, n);
        p += used;
    }
    jb_append(b, "\"", 1);
}

void jb_free(jbuf *b)
{
    free(b->heap);
    jb_init(b);
}
