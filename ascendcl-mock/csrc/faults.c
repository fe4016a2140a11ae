/*
 * faults.c: fault injection. A fault makes the nth call (counted from the
 * injection) or every call of one ACL function fail with a given code and
 * message, without doing anything else. Faults come from
 * aclmockInjectFault and from ASCENDCL_MOCK_FAULTS, read at load and reset:
 *   ASCENDCL_MOCK_FAULTS="aclrtMalloc@3=207001:out of memory;aclrtCreateStream@*=207008"
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fault_add_locked(int fn, uint64_t nth, aclError code, const char *msg)
{
    if (G.nfaults == G.capfaults) {
        size_t ncap = G.capfaults ? G.capfaults * 2 : 8;
        mock_fault *nf = realloc(G.faults, ncap * sizeof(mock_fault));
        if (!nf) {
            return;
        }
        G.faults = nf;
        G.capfaults = ncap;
    }
    mock_fault *f = &G.faults[G.nfaults++];
    f->fn = fn;
    f->nth = nth;
    f->base = G.calls[fn];
    f->code = code;
    f->msg = msg ? strdup(msg) : NULL;
}

static void faults_clear_locked(void)
{
    for (size_t i = 0; i < G.nfaults; i++) {
        free(G.faults[i].msg);
    }
    G.nfaults = 0;
}

bool fault_check_locked(int fn, aclError *code, const char **msg)
{
    for (size_t i = 0; i < G.nfaults; i++) {
        mock_fault *f = &G.faults[i];
        if (f->fn != fn) {
            continue;
        }
        if (f->nth == 0 || G.calls[fn] - f->base == f->nth) {
            *code = f->code;
            *msg = f->msg;
            return true;
        }
    }
    return false;
}

/* Parses one "fn@nth=code[:message]" item. */
static void parse_fault(const char *item)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", item);
    char *at = strchr(buf, '@');
    char *eq = at ? strchr(at, '=') : NULL;
    if (!at || !eq) {
        fprintf(stderr, "aclmock: ignoring malformed fault \"%s\" (want fn@nth=code[:message])\n", item);
        return;
    }
    *at = '\0';
    *eq = '\0';
    char *colon = strchr(eq + 1, ':');
    if (colon) {
        *colon = '\0';
    }
    int fn = mock_fn_lookup(buf);
    if (fn < 0) {
        fprintf(stderr, "aclmock: ignoring fault for unknown function \"%s\"\n", buf);
        return;
    }
    uint64_t nth = 0;
    if (strcmp(at + 1, "*") != 0) {
        char *end = NULL;
        nth = strtoull(at + 1, &end, 10);
        if (!end || *end || nth == 0) {
            fprintf(stderr, "aclmock: ignoring fault with bad call number \"%s\"\n", at + 1);
            return;
        }
    }
    char *end = NULL;
    long code = strtol(eq + 1, &end, 10);
    if (!end || *end || code == 0) {
        fprintf(stderr, "aclmock: ignoring fault with bad code \"%s\"\n", eq + 1);
        return;
    }
    fault_add_locked(fn, nth, (aclError)code, colon ? colon + 1 : NULL);
}

void faults_reset_locked(void)
{
    faults_clear_locked();
    const char *env = getenv("ASCENDCL_MOCK_FAULTS");
    if (!env || !*env) {
        return;
    }
    char *copy = strdup(env);
    if (!copy) {
        return;
    }
    char *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ') {
            item++;
        }
        if (*item) {
            parse_fault(item);
        }
    }
    free(copy);
}

ACLMOCK_EXPORT int32_t aclmockInjectFault(const char *function, uint64_t nth, int32_t code, const char *message)
{
    int fn = mock_fn_lookup(function);
    if (fn < 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    mock_lock();
    fault_add_locked(fn, nth, code, message);
    mock_unlock();
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT void aclmockClearFaults(void)
{
    mock_lock();
    faults_clear_locked();
    mock_unlock();
}
