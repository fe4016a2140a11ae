/*
 * json_quote.h: quoting a C string as a JSON string, shared by the mock's
 * journal and replay and by the recording shim (both must write exactly the
 * same trace text).
 */
#ifndef ASCENDCL_MOCK_JSON_QUOTE_H
#define ASCENDCL_MOCK_JSON_QUOTE_H

#include <stddef.h>

/* Writes `s` as a quoted, escaped JSON string into `out` (NUL-terminated,
 * at most `cap` bytes, truncated inside the quotes so the JSON stays valid);
 * NULL is written as null. Returns the length written. */
size_t json_quote(const char *s, char *out, size_t cap);

#endif /* ASCENDCL_MOCK_JSON_QUOTE_H */
