/*
 * json_quote.c: see json_quote.h. Compiled into the mock and into the
 * recording shim.
 */
#include "json_quote.h"

#include <stdio.h>
#include <string.h>

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
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        size_t n = 0;
        if (*p == '"' || *p == '\\') {
            esc[n++] = '\\';
            esc[n++] = (char)*p;
        } else if (*p == '\n') {
            esc[n++] = '\\';
            esc[n++] = 'n';
        } else if (*p < 0x20) {
            n = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", *p);
        } else {
            esc[n++] = (char)*p;
        }
        if (k + n + 2 > cap) {
            break; /* truncated: keep the JSON valid */
        }
        memcpy(out + k, esc, n);
        k += n;
    }
    out[k++] = '"';
    out[k] = '\0';
    return k;
}
