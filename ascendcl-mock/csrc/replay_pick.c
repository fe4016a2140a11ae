/*
 * replay_pick.c: which trace of a multi-process recording this process
 * replays.
 *
 * A program that starts other processes (ranks of a data-parallel job) is
 * recorded as one trace per process: the first process writes the trace
 * named, every other one a sibling, STEM.<pid>.EXT beside it (rec_core.c),
 * each with its launch key in the header (launch_key.h). Replayed with the
 * same ASCENDCL_MOCK_REPLAY inherited by every process, each process keeps
 * the named trace when that trace's key is its own (or the trace has no
 * key: a recording from before keys, replayed as before), and otherwise
 * takes the one sibling whose key is its own. With no such sibling it keeps
 * the named trace, whose first differing call then says what went wrong; two
 * siblings with its key are an error (nothing tells them apart).
 */
#include "launch_key.h"
#include "replay.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The raw "launch" of the trace at path's header, or NULL (no header, no
 * key, unreadable). The caller frees it. */
static char *recorded_key(const char *path)
{
    /* Only a regular file (a FIFO would block the open, /dev/zero never
     * ends): non-blocking open, then the file opened checked. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        return NULL;
    }
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        return NULL;
    }
    size_t cap = 1u << 16, len = 0;
    char *line = malloc(cap);
    int c;
    while (line && (c = fgetc(f)) != EOF && c != '\n') {
        if (len + 1 == cap) {
            len = 0; /* a header this long is not one the shim wrote */
            break;
        }
        line[len++] = (char)c;
    }
    fclose(f);
    if (!line) {
        return NULL;
    }
    line[len] = '\0';
    char *key = NULL;
    rp_obj h;
    if (len && rj_valid(line, len) && rj_object(line, len, &h)) {
        const char *raw = rj_get(&h, "launch");
        key = raw ? strdup(raw) : NULL;
        rj_free(&h);
    }
    free(line);
    return key;
}

char *replay_pick_trace(const char *named, char *error, size_t cap)
{
    error[0] = '\0';
    char *key = recorded_key(named);
    if (!key) {
        return strdup(named);
    }
    jbuf own;
    jb_init(&own);
    launch_key_json(&own);
    bool mine = strcmp(key, jb_str(&own)) == 0;
    free(key);
    if (mine) {
        jb_free(&own);
        return strdup(named);
    }
    /* dir/, STEM. and .EXT of the named trace */
    const char *slash = strrchr(named, '/');
    const char *base = slash ? slash + 1 : named;
    size_t dir_len = (size_t)(base - named);
    const char *dot = strrchr(base, '.');
    size_t stem_len = dot ? (size_t)(dot - base) : strlen(base);
    const char *ext = dot ? dot : "";
    char dir[4096];
    snprintf(dir, sizeof(dir), "%.*s", dir_len ? (int)dir_len : 1, dir_len ? named : ".");
    DIR *d = opendir(dir);
    char *found = NULL;
    while (d) {
        struct dirent *e = readdir(d);
        if (!e) {
            break;
        }
        const char *name = e->d_name;
        size_t n = strlen(name), ext_len = strlen(ext);
        if (strcmp(name, base) == 0 || n <= stem_len + 1 + ext_len || strncmp(name, base, stem_len) != 0 ||
            name[stem_len] != '.' || strcmp(name + n - ext_len, ext) != 0) {
            continue;
        }
        char path[8200];
        snprintf(path, sizeof(path), "%.*s%s", (int)dir_len, named, name);
        char *sibling = recorded_key(path);
        bool match = sibling && strcmp(sibling, jb_str(&own)) == 0;
        free(sibling);
        if (!match) {
            continue;
        }
        if (found) {
            snprintf(error, cap, "two traces of the recording, %s and %s, were recorded by this command line",
                     found, path);
            free(found);
            found = NULL;
            break;
        }
        found = strdup(path);
    }
    if (d) {
        closedir(d);
    }
    jb_free(&own);
    if (error[0]) {
        return NULL;
    }
    return found ? found : strdup(named);
}
