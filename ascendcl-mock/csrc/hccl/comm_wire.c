/*
 * comm_wire.c: the framing of the hub protocol (hccl_mock.h) over a Unix
 * stream socket: whole writes, reads bounded by a deadline.
 */
#include "hccl_mock.h"
#include <netinet/tcp.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define HM_WIRE_MAGIC 0x48434d31u /* "HCM1" */
/* No message is larger than this (a 16 GiB contribution). */
#define HM_MAX_PAYLOAD (16ULL << 30)

uint64_t hm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int hm_write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int hm_read_all(int fd, void *p, size_t n, uint64_t deadline_ns)
{
    char *b = p;
    while (n) {
        /* whatever has arrived first, without a poll per chunk */
        ssize_t got = recv(fd, b, n, MSG_DONTWAIT);
        if (got > 0) {
            b += got;
            n -= (size_t)got;
            continue;
        }
        if (got == 0) {
            return -1;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
        int wait_ms = -1;
        if (deadline_ns) {
            uint64_t now = hm_now_ns();
            if (now >= deadline_ns) {
                return -2;
            }
            uint64_t left = (deadline_ns - now + 999999ULL) / 1000000ULL;
            wait_ms = left > 1000000ULL ? 1000000 : (int)left;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, wait_ms);
        if (pr < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (pr == 0) {
            continue; /* the deadline is checked above */
        }
    }
    return 0;
}

int hm_send(int fd, uint32_t type, const void *a, size_t na, const void *b, size_t nb, const void *c, size_t nc)
{
    hm_hdr h = {.magic = HM_WIRE_MAGIC, .type = type, .len = (uint64_t)na + nb + nc};
    if (hm_write_all(fd, &h, sizeof(h)) || (na && hm_write_all(fd, a, na)) || (nb && hm_write_all(fd, b, nb)) ||
        (nc && hm_write_all(fd, c, nc))) {
        return -1;
    }
    return 0;
}

int hm_send_header(int fd, uint32_t type, uint64_t len)
{
    hm_hdr h = {.magic = HM_WIRE_MAGIC, .type = type, .len = len};
    return hm_write_all(fd, &h, sizeof(h));
}

int hm_recv_header(int fd, hm_hdr *h, uint64_t deadline_ns)
{
    int r = hm_read_all(fd, h, sizeof(*h), deadline_ns);
    if (r) {
        return r;
    }
    return h->magic == HM_WIRE_MAGIC && h->len <= HM_MAX_PAYLOAD ? 0 : -1;
}

int hm_recv(int fd, uint32_t *type, void **payload, uint64_t *len, uint64_t deadline_ns)
{
    hm_hdr h;
    *payload = NULL;
    int r = hm_read_all(fd, &h, sizeof(h), deadline_ns);
    if (r) {
        return r;
    }
    if (h.magic != HM_WIRE_MAGIC || h.len > HM_MAX_PAYLOAD) {
        return -1;
    }
    void *p = malloc(h.len ? h.len : 1);
    if (!p) {
        return -1;
    }
    /* the sender writes a message whole: once it started, the rest follows */
    r = hm_read_all(fd, p, h.len, 0);
    if (r) {
        free(p);
        return r;
    }
    *type = h.type;
    *payload = p;
    *len = h.len;
    return 0;
}

void hm_tune(int fd)
{
    /* larger socket buffers: fewer round trips for big contributions */
    int sz = 4 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    /* TCP transport: no Nagle delay on the small control messages (a no-op
     * error on Unix sockets) */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* "tcp:HOST:PORT" (the hub of ASCENDCL_MOCK_HCCL_TRANSPORT=tcp): a TCP
 * connection to it, or -1. */
static int connect_tcp(const char *where)
{
    char host[64];
    const char *colon = strrchr(where, ':');
    if (!colon || (size_t)(colon - where) >= sizeof(host)) {
        return -1;
    }
    memcpy(host, where, (size_t)(colon - where));
    host[colon - where] = '\0';
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    hm_tune(fd);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int hm_connect(const char *path)
{
    if (strncmp(path, "tcp:", 4) == 0) {
        return connect_tcp(path + 4);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a.sun_path)) {
        close(fd);
        return -1;
    }
    strcpy(a.sun_path, path);
    hm_tune(fd);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
