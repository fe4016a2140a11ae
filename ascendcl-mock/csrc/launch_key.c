/*
 * launch_key.c: this process's launch key (launch_key.h).
 */
#include "launch_key.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const RANK_VARS[] = {
    "RANK", "LOCAL_RANK", "RANK_ID", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
};

/* Appends arg to out with its run-specific parts replaced. */
static void normalize(const char *arg, jbuf *out)
{
    char self[24], parent[24];
    snprintf(self, sizeof(self), "%ld", (long)getpid());
    snprintf(parent, sizeof(parent), "%ld", (long)getppid());
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) {
        tmp = "/tmp";
    }
    size_t tmp_len = strlen(tmp);
    while (tmp_len > 1 && tmp[tmp_len - 1] == '/') {
        tmp_len--;
    }
    const char *p = arg;
    if (strncmp(p, tmp, tmp_len) == 0 && (p[tmp_len] == '/' || p[tmp_len] == '\0')) {
        jb_append(out, "%T", 2);
        p += tmp_len;
    }
    while (*p) {
        if (*p >= '0' && *p <= '9' && (p == arg || p[-1] < '0' || p[-1] > '9')) {
            size_t n = strspn(p, "0123456789");
            if (n == strlen(parent) && strncmp(p, parent, n) == 0) {
                jb_append(out, "%P", 2);
            } else if (n == strlen(self) && strncmp(p, self, n) == 0) {
                jb_append(out, "%p", 2);
            } else {
                jb_append(out, p, n);
            }
            p += n;
            continue;
        }
        if (*p == '%') { /* a literal % stays apart from the placeholders */
            jb_append(out, "%%", 2);
        } else {
            jb_append(out, p, 1);
        }
        p++;
    }
}

void launch_key_json(jbuf *b)
{
    char buf[32768];
    size_t n = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    jb_append(b, "{\"argv\":[", 9);
    /* argv[0] is skipped: the header's "program" names it. */
    size_t at = strlen(buf) + 1;
    bool first = true;
    while (at < n) {
        jbuf arg;
        jb_init(&arg);
        jb_append(&arg, "", 0);
        normalize(buf + at, &arg);
        if (!first) {
            jb_append(b, ",", 1);
        }
        jb_quote(b, jb_str(&arg));
        jb_free(&arg);
        first = false;
        at += strlen(buf + at) + 1;
    }
    jb_append(b, "],\"rank_env\":{", 14);
    first = true;
    for (size_t i = 0; i < sizeof(RANK_VARS) / sizeof(RANK_VARS[0]); i++) {
        const char *v = getenv(RANK_VARS[i]);
        if (!v) {
            continue;
        }
        if (!first) {
            jb_append(b, ",", 1);
        }
        jb_printf(b, "\"%s\":", RANK_VARS[i]);
        jb_quote(b, v);
        first = false;
    }
    jb_append(b, "}}", 2);
}
