/*
 * replay_json.c: just enough JSON for reading traces: one level of an object
 * at a time, values kept as raw text, plus string unescaping and numbers.
 */
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
    const char *p, *end;
} scan;

static void skip_ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

/* Skips a string starting at the opening quote; false if unterminated. */
static bool skip_string(scan *s)
{
    if (s->p >= s->end || *s->p != '"') {
        return false;
    }
    for (s->p++; s->p < s->end; s->p++) {
        if (*s->p == '\\') {
            s->p++;
        } else if (*s->p == '"') {
            s->p++;
            return true;
        }
    }
    return false;
}

/* Skips one value of any kind. */
static bool skip_value(scan *s)
{
    skip_ws(s);
    if (s->p >= s->end) {
        return false;
    }
    if (*s->p == '"') {
        return skip_string(s);
    }
    if (*s->p == '{' || *s->p == '[') {
        int depth = 0;
        while (s->p < s->end) {
            char ch = *s->p;
            if (ch == '"') {
                if (!skip_string(s)) {
                    return false;
                }
                continue;
            }
            if (ch == '{' || ch == '[') {
                depth++;
            } else if (ch == '}' || ch == ']') {
                depth--;
                if (depth == 0) {
                    s->p++;
                    return true;
                }
            }
            s->p++;
        }
        return false;
    }
    const char *start = s->p;
    while (s->p < s->end && *s->p != ',' && *s->p != '}' && *s->p != ']' && *s->p != ' ' && *s->p != '\n' &&
           *s->p != '\r' && *s->p != '\t') {
        s->p++;
    }
    return s->p > start;
}

static char *dup_range(const char *a, const char *b)
{
    size_t n = (size_t)(b - a);
    char *r = malloc(n + 1);
    if (!r) {
        abort();
    }
    memcpy(r, a, n);
    r[n] = '\0';
    return r;
}

bool rj_object(const char *text, size_t len, rp_obj *out)
{
    memset(out, 0, sizeof(*out));
    scan s = {text, text + len};
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{') {
        return false;
    }
    s.p++;
    size_t cap = 0;
    for (;;) {
        skip_ws(&s);
        if (s.p < s.end && *s.p == '}') {
            return true;
        }
        const char *k0 = s.p;
        if (!skip_string(&s)) {
            break;
        }
        const char *k1 = s.p;
        skip_ws(&s);
        if (s.p >= s.end || *s.p != ':') {
            break;
        }
        s.p++;
        skip_ws(&s);
        const char *v0 = s.p;
        if (!skip_value(&s)) {
            break;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 8;
            rp_kv *nk = realloc(out->kv, cap * sizeof(*nk));
            if (!nk) {
                abort();
            }
            out->kv = nk;
        }
        char *raw_key = dup_range(k0, k1);
        out->kv[out->n].key = rj_string(raw_key);
        free(raw_key);
        out->kv[out->n].raw = dup_range(v0, s.p);
        if (!out->kv[out->n].key) {
            free(out->kv[out->n].raw);
            break;
        }
        out->n++;
        skip_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            continue;
        }
        if (s.p < s.end && *s.p == '}') {
            return true;
        }
        break;
    }
    rj_free(out);
    return false;
}

void rj_free(rp_obj *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->kv[i].key);
        free(o->kv[i].raw);
    }
    free(o->kv);
    memset(o, 0, sizeof(*o));
}

const char *rj_get(const rp_obj *o, const char *key)
{
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->kv[i].key, key) == 0) {
            return o->kv[i].raw;
        }
    }
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

char *rj_string(const char *raw)
{
    if (!raw || raw[0] != '"') {
        return NULL;
    }
    size_t n = strlen(raw);
    char *r = malloc(n + 1);
    if (!r) {
        abort();
    }
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        char ch = raw[i];
        if (ch == '"') {
            break;
        }
        if (ch != '\\' || i + 1 >= n) {
            r[k++] = ch;
            continue;
        }
        ch = raw[++i];
        switch (ch) {
        case 'n':
            r[k++] = '\n';
            break;
        case 't':
            r[k++] = '\t';
            break;
        case 'r':
            r[k++] = '\r';
            break;
        case 'b':
            r[k++] = '\b';
            break;
        case 'f':
            r[k++] = '\f';
            break;
        case 'u': {
            unsigned cp = 0;
            int ok = i + 4 < n;
            for (int d = 1; ok && d <= 4; d++) {
                int h = hexval(raw[i + (size_t)d]);
                ok = h >= 0;
                cp = cp * 16 + (unsigned)(h < 0 ? 0 : h);
            }
            if (ok) {
                i += 4;
                k += put_utf8(r + k, cp);
            }
            break;
        }
        default:
            r[k++] = ch; /* \" \\ \/ */
            break;
        }
    }
    r[k] = '\0';
    return r;
}

/* ------------------------------------------------------------ validation */

#define RJ_MAX_DEPTH 64

/* A string at s->p (RFC 8259: escapes, no raw control characters, UTF-8). */
static bool valid_string(scan *s)
{
    if (s->p >= s->end || *s->p != '"') {
        return false;
    }
    s->p++;
    while (s->p < s->end) {
        unsigned char ch = (unsigned char)*s->p;
        if (ch == '"') {
            s->p++;
            return true;
        }
        if (ch < 0x20) {
            return false;
        }
        if (ch == '\\') {
            if (s->p + 1 >= s->end) {
                return false;
            }
            char e = s->p[1];
            if (e == 'u') {
                if (s->end - s->p < 6) {
                    return false;
                }
                for (int d = 2; d < 6; d++) {
                    if (hexval(s->p[d]) < 0) {
                        return false;
                    }
                }
                s->p += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                s->p += 2;
            } else {
                return false;
            }
            continue;
        }
        size_t n = json_utf8_len((const unsigned char *)s->p);
        if (!n || s->p + n > s->end) {
            return false;
        }
        s->p += n;
    }
    return false;
}

static size_t digits(scan *s)
{
    const char *start = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
        s->p++;
    }
    return (size_t)(s->p - start);
}

static bool valid_number(scan *s)
{
    if (s->p < s->end && *s->p == '-') {
        s->p++;
    }
    bool zero = s->p < s->end && *s->p == '0';
    size_t n = digits(s);
    if (!n || (zero && n > 1)) {
        return false;
    }
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!digits(s)) {
            return false;
        }
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) {
            s->p++;
        }
        if (!digits(s)) {
            return false;
        }
    }
    return true;
}

static bool valid_literal(scan *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) {
        return false;
    }
    s->p += n;
    return true;
}

/* After an object's '{' or ',': a key and its colon. */
static bool valid_key(scan *s)
{
    skip_ws(s);
    if (!valid_string(s)) {
        return false;
    }
    skip_ws(s);
    if (s->p >= s->end || *s->p != ':') {
        return false;
    }
    s->p++;
    return true;
}

bool rj_valid(const char *text, size_t len)
{
    scan s = {text, text + len};
    char stack[RJ_MAX_DEPTH];
    int depth = 0;
    for (;;) {
        /* a value */
        skip_ws(&s);
        if (s.p >= s.end) {
            return false;
        }
        char ch = *s.p;
        bool ok = true;
        if (ch == '{' || ch == '[') {
            if (depth == RJ_MAX_DEPTH) {
                return false;
            }
            stack[depth++] = ch;
            s.p++;
            skip_ws(&s);
            if (s.p < s.end && *s.p == (ch == '{' ? '}' : ']')) {
                s.p++;
                depth--;
            } else if (ch == '[' || valid_key(&s)) {
                continue;
            } else {
                return false;
            }
        } else if (ch == '"') {
            ok = valid_string(&s);
        } else if (ch == 't') {
            ok = valid_literal(&s, "true");
        } else if (ch == 'f') {
            ok = valid_literal(&s, "false");
        } else if (ch == 'n') {
            ok = valid_literal(&s, "null");
        } else {
            ok = valid_number(&s);
        }
        if (!ok) {
            return false;
        }
        /* after a value: a separator, closing brackets, or the end */
        for (;;) {
            skip_ws(&s);
            if (depth == 0) {
                return s.p == s.end;
            }
            char top = stack[depth - 1];
            if (s.p < s.end && *s.p == ',') {
                s.p++;
                if (top == '{' && !valid_key(&s)) {
                    return false;
                }
                break;
            }
            if (s.p < s.end && *s.p == (top == '{' ? '}' : ']')) {
                s.p++;
                depth--;
                continue;
            }
            return false;
        }
    }
}

bool rj_u64(const char *raw, uint64_t *v)
{
    if (!raw || raw[0] < '0' || raw[0] > '9') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(raw, &end, 10);
    if (errno || !end || (*end && *end != '.' && *end != 'e' && *end != 'E')) {
        return false;
    }
    *v = (uint64_t)x;
    return true;
}

bool rj_i64(const char *raw, int64_t *v)
{
    if (!raw || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9'))) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long long x = strtoll(raw, &end, 10);
    if (errno || !end || (*end && *end != '.' && *end != 'e' && *end != 'E')) {
        return false;
    }
    *v = (int64_t)x;
    return true;
}

bool rj_f64(const char *raw, double *v)
{
    if (!raw || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9'))) {
        return false;
    }
    char *end = NULL;
    double x = strtod(raw, &end);
    if (!end || *end) {
        return false;
    }
    *v = x;
    return true;
}
