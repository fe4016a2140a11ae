/*
 * hostderef.c: reports host dereferences of device addresses.
 *
 * Device addresses live in PROT_NONE windows, so reading or writing one
 * from host code faults. This SIGSEGV handler recognises such faults,
 * counts an ACLMOCK_MISUSE_HOST_DEREF, prints which address was touched and
 * lets the process die of SIGSEGV as it would have anyway. Faults anywhere
 * else go to the handler that was installed before (e.g. Rust's stack
 * overflow reporter) or to the default action.
 */
#include "mock.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static struct sigaction previous;
static volatile sig_atomic_t installed;

static size_t put_str(char *buf, size_t n, const char *s)
{
    while (*s && n < 255) {
        buf[n++] = *s++;
    }
    return n;
}

static size_t put_hex(char *buf, size_t n, uint64_t v)
{
    char tmp[17];
    int k = 0;
    do {
        tmp[k++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v && k < 16);
    n = put_str(buf, n, "0x");
    while (k && n < 255) {
        buf[n++] = tmp[--k];
    }
    return n;
}

static void restore_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

static void on_segv(int sig, siginfo_t *info, void *uctx)
{
    int dev = -1;
    bool vmm = false;
    uintptr_t a = (uintptr_t)info->si_addr;
    /* reads without the lock: the process is about to die either way */
    if (mem_window(a, &dev, &vmm)) {
        __atomic_add_fetch(&G.misuse[ACLMOCK_MISUSE_HOST_DEREF], 1, __ATOMIC_RELAXED);
        char buf[256];
        size_t n = put_str(buf, 0, "aclmock: HOST_DEREF: host code dereferenced device address ");
        n = put_hex(buf, n, a);
        n = put_str(buf, n, vmm ? " (VMM range of device " : " (aclrtMalloc memory of device ");
        buf[n++] = (char)('0' + dev % 10);
        n = put_str(buf, n, "); device memory is only reachable through aclrtMemcpy\n");
        ssize_t w = write(2, buf, n);
        (void)w;
        restore_default(sig); /* returning re-executes the access: SIGSEGV, default action */
        return;
    }
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, info, uctx);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        restore_default(sig);
    }
}

void hostderef_install(void)
{
    if (installed) {
        return;
    }
    installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous);
}
