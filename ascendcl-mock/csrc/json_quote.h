/*
 * json_quote.h: writing JSON text, shared by the mock's journal and replay
 * and by the recording shim (both must write exactly the same trace text).
 *
 * Strings are quoted and escaped so that the result is valid JSON whatever
 * the bytes: quotes, backslashes and control characters are escaped, and a
 * byte that is not part of a well-formed UTF-8 sequence is written as
 * \ufffd (a JSON text must be UTF-8).
 */
#ifndef ASCENDCL_MOCK_JSON_QUOTE_H
#define ASCENDCL_MOCK_JSON_QUOTE_H

#include <stddef.h>

/* Writes `s` as a quoted, escaped JSON string into `out` (NUL-terminated,
 * at most `cap` bytes, truncated between characters, inside the quotes, so
 * the JSON stays valid); NULL is written as null. Returns the length. For
 * text that must not be cut, use jb_quote. */
size_t json_quote(const char *s, char *out, size_t cap);

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 if the bytes
 * there are not one. p must be NUL-terminated. */
size_t json_utf8_len(const unsigned char *p);

#define JBUF_INLINE 512

/* Growable text: inline storage first, the heap when that is full. Never
 * truncates (aborts if memory runs out). Zero-initialised is empty. */
typedef struct jbuf {
    char *heap; /* NULL while the text fits in inl */
    size_t len, cap;
    char inl[JBUF_INLINE];
} jbuf;

void jb_init(jbuf *b);
/* The text (NUL-terminated), valid until the next change. */
const char *jb_str(const jbuf *b);
void jb_append(jbuf *b, const char *s, size_t n);
void jb_printf(jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends `s` quoted (see json_quote), or null for NULL, in full. */
void jb_quote(jbuf *b, const char *s);
void jb_free(jbuf *b);

#endif /* ASCENDCL_MOCK_JSON_QUOTE_H */
