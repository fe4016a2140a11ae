/*
 * comm_hub.c: the rendezvous hub (hccl_mock.h): a thread of the process that
 * made the root info, listening on a Unix socket in a private directory.
 * Ranks join it (init), then send it their part of every exchange. It
 * answers a join when all ranks have joined, or with HCCL_E_TIMEOUT when
 * HCCL_CONNECT_TIMEOUT passes first; an exchange when every rank it needs
 * has sent its part (comm_match.c), or with HCCL_E_TIMEOUT when one waited
 * HCCL_EXEC_TIMEOUT. It ends, removing its socket and directory, when every
 * joined rank has disconnected, when nobody joins in time, or at reset.
 */
#include "hub.h"
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static pthread_mutex_t hubs_lock = PTHREAD_MUTEX_INITIALIZER;
static hub *hubs;

void hub_op_free(hub_op *op)
{
    if (op) {
        free(op->buf);
        free(op);
    }
}

void hub_reply(hub *h, uint32_t r, int32_t status, const char *msg, const void *data, uint64_t len)
{
    if (r >= h->nranks || h->rank_fd[r] < 0) {
        return;
    }
    hm_result res;
    memset(&res, 0, sizeof(res));
    res.status = status;
    res.data_len = status == HCCL_SUCCESS ? len : 0;
    snprintf(res.msg, sizeof(res.msg), "%s", msg ? msg : "");
    if (hm_send(h->rank_fd[r], HM_RESULT, &res, sizeof(res), data, res.data_len, NULL, 0) != 0) {
        close(h->rank_fd[r]);
        h->rank_fd[r] = -1;
    }
}

void hub_break(hub *h, int32_t code, const char *fmt, ...)
{
    if (!h->broken) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->broken_msg, sizeof(h->broken_msg), fmt, ap);
        va_end(ap);
        h->broken = code;
    }
    for (uint32_t r = 0; r < h->nranks; r++) {
        if (h->head[r]) {
            hub_reply(h, r, h->broken, h->broken_msg, NULL, 0);
            hub_op_free(h->head[r]);
            h->head[r] = NULL;
        }
    }
}

static void join_reply(int fd, int32_t status, uint32_t nranks, const char *msg)
{
    hm_joined j;
    memset(&j, 0, sizeof(j));
    j.status = status;
    j.nranks = nranks;
    snprintf(j.msg, sizeof(j.msg), "%s", msg);
    (void)hm_send(fd, HM_JOINED, &j, sizeof(j), NULL, 0, NULL, 0);
}

/* A JOIN on a pending connection: true if the connection became a rank's. */
static bool on_join(hub *h, int fd, const void *p, uint64_t len)
{
    hm_join j;
    char msg[192];
    if (len != sizeof(j)) {
        join_reply(fd, HCCL_E_INTERNAL, 0, "malformed join");
        return false;
    }
    memcpy(&j, p, sizeof(j));
    if (j.session != h->session) {
        join_reply(fd, HCCL_E_PARA, 0, "the root info belongs to another communicator");
        return false;
    }
    if (h->broken || h->ready) {
        join_reply(fd, h->broken ? h->broken : HCCL_E_PARA, h->nranks,
                   h->broken ? h->broken_msg : "every rank of this root info has joined already");
        return false;
    }
    if (!h->nranks) {
        h->nranks = j.nranks;
        h->rank_fd = malloc(j.nranks * sizeof(int));
        h->joined = calloc(j.nranks, sizeof(bool));
        h->head = calloc(j.nranks, sizeof(hub_op *));
        if (!h->rank_fd || !h->joined || !h->head) {
            join_reply(fd, HCCL_E_MEMORY, 0, "out of host memory");
            h->nranks = 0;
            return false;
        }
        for (uint32_t r = 0; r < j.nranks; r++) {
            h->rank_fd[r] = -1;
        }
        h->first_join_ns = hm_now_ns();
    }
    if (j.nranks != h->nranks || j.rank >= h->nranks) {
        snprintf(msg, sizeof(msg), "rank %u joins with nRanks %u, but the first rank to join said %u", j.rank,
                 j.nranks, h->nranks);
        join_reply(fd, HCCL_E_PARA, h->nranks, msg);
        return false;
    }
    if (h->joined[j.rank]) {
        snprintf(msg, sizeof(msg), "rank %u joined twice", j.rank);
        join_reply(fd, HCCL_E_PARA, h->nranks, msg);
        return false;
    }
    h->joined[j.rank] = true;
    h->rank_fd[j.rank] = fd;
    if (++h->njoined == h->nranks) {
        h->ready = true;
        for (uint32_t r = 0; r < h->nranks; r++) {
            join_reply(h->rank_fd[r], HCCL_SUCCESS, h->nranks, "");
        }
    }
    return true;
}

static void on_op(hub *h, uint32_t r, void *p, uint64_t len)
{
    hm_desc d;
    if (len < sizeof(d)) {
        free(p);
        hub_reply(h, r, HCCL_E_INTERNAL, "malformed exchange", NULL, 0);
        return;
    }
    memcpy(&d, p, sizeof(d));
    if ((uint64_t)d.naux > (len - sizeof(d)) / 8 || sizeof(d) + (uint64_t)d.naux * 8 + d.data_len != len) {
        free(p);
        hub_reply(h, r, HCCL_E_INTERNAL, "malformed exchange", NULL, 0);
        return;
    }
    if (h->broken) {
        free(p);
        hub_reply(h, r, h->broken, h->broken_msg, NULL, 0);
        return;
    }
    hub_op *op = calloc(1, sizeof(*op));
    if (!op || h->head[r]) {
        free(op);
        free(p);
        hub_reply(h, r, HCCL_E_INTERNAL, op ? "two exchanges at once from one rank" : "out of host memory", NULL, 0);
        return;
    }
    op->d = d;
    op->buf = p;
    op->aux = (const uint64_t *)((const char *)p + sizeof(d));
    op->data = (const unsigned char *)p + sizeof(d) + (size_t)d.naux * 8;
    op->t_ns = hm_now_ns();
    h->head[r] = op;
    hub_progress(h);
}

static void check_timers(hub *h)
{
    uint64_t now = hm_now_ns();
    if (!h->ready && !h->broken) {
        uint64_t from = h->first_join_ns ? h->first_join_ns : h->created_ns;
        if (now - from >= h->connect_ms * 1000000ULL) {
            h->broken = HCCL_E_TIMEOUT;
            snprintf(h->broken_msg, sizeof(h->broken_msg),
                     "%u of %u ranks joined within %llu ms (HCCL_CONNECT_TIMEOUT)", h->njoined, h->nranks,
                     (unsigned long long)h->connect_ms);
            for (uint32_t r = 0; r < h->nranks; r++) {
                if (h->rank_fd[r] >= 0) {
                    join_reply(h->rank_fd[r], HCCL_E_TIMEOUT, h->nranks, h->broken_msg);
                }
            }
        }
        return;
    }
    for (uint32_t r = 0; h->ready && r < h->nranks; r++) {
        hub_op *op = h->head[r];
        if (op && now - op->t_ns >= h->exec_ms * 1000000ULL) {
            char missing[96] = "";
            size_t used = 0;
            for (uint32_t q = 0; q < h->nranks && used + 12 < sizeof(missing); q++) {
                if (!h->head[q]) {
                    used += (size_t)snprintf(missing + used, sizeof(missing) - used, "%s%u", used ? "," : "", q);
                }
            }
            hub_break(h, HCCL_E_TIMEOUT,
                      "rank %u waited %llu ms (HCCL_EXEC_TIMEOUT) in %s #%llu for its peers (not arrived: %s)", r,
                      (unsigned long long)h->exec_ms, hm_kind_name(op->d.kind), (unsigned long long)op->d.seq,
                      missing[0] ? missing : "none; they wait for other peers");
            return;
        }
    }
}

static void rank_gone(hub *h, uint32_t r)
{
    close(h->rank_fd[r]);
    h->rank_fd[r] = -1;
    hub_op_free(h->head[r]);
    h->head[r] = NULL;
    if (!h->ready) {
        h->joined[r] = false; /* left while waiting: its place is free again */
        h->njoined--;
    }
}

static bool finished(const hub *h)
{
    if (h->stop) {
        return true;
    }
    if (!h->nranks) {
        return h->broken != 0; /* nobody joined in time */
    }
    for (uint32_t r = 0; r < h->nranks; r++) {
        if (h->rank_fd[r] >= 0) {
            return false;
        }
    }
    return h->ready || h->broken;
}

static void *hub_main(void *arg)
{
    hub *h = arg;
    struct pollfd *pfd = NULL;
    size_t cap = 0;
    while (!finished(h)) {
        size_t need = 2 + h->npending + h->nranks;
        if (need > cap) {
            struct pollfd *np = realloc(pfd, need * sizeof(*pfd));
            if (!np) {
                break;
            }
            pfd = np;
            cap = need;
        }
        size_t n = 0;
        pfd[n++] = (struct pollfd){.fd = h->wake[0], .events = POLLIN};
        pfd[n++] = (struct pollfd){.fd = h->broken ? -1 : h->lfd, .events = POLLIN};
        for (uint32_t i = 0; i < h->npending; i++) {
            pfd[n++] = (struct pollfd){.fd = h->pending[i], .events = POLLIN};
        }
        for (uint32_t r = 0; r < h->nranks; r++) {
            pfd[n++] = (struct pollfd){.fd = h->rank_fd[r], .events = POLLIN};
        }
        if (poll(pfd, n, 20) < 0 && errno != EINTR) {
            break;
        }
        if (pfd[0].revents) {
            break;
        }
        uint32_t npend = h->npending; /* those polled, before any accept */
        if (pfd[1].revents & POLLIN) {
            int fd = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0) {
                hm_tune(fd);
                if (h->npending == h->cappending) {
                    uint32_t nc = h->cappending ? h->cappending * 2 : 8;
                    int *np = realloc(h->pending, nc * sizeof(int));
                    if (np) {
                        h->pending = np;
                        h->cappending = nc;
                    }
                }
                if (h->npending < h->cappending) {
                    h->pending[h->npending++] = fd;
                } else {
                    close(fd);
                }
            }
        }
        /* pending connections: their first message must be JOIN */
        size_t k = 2;
        int *ready_fds = npend ? malloc(npend * sizeof(int)) : NULL;
        uint32_t nready = 0;
        for (uint32_t i = 0; i < npend; i++, k++) {
            if (pfd[k].revents && ready_fds) {
                ready_fds[nready++] = pfd[k].fd;
            }
        }
        for (uint32_t i = 0; i < nready; i++) {
            int fd = ready_fds[i];
            for (uint32_t q = 0; q < h->npending; q++) {
                if (h->pending[q] == fd) {
                    h->pending[q] = h->pending[--h->npending];
                    break;
                }
            }
            uint32_t type = 0;
            void *p = NULL;
            uint64_t len = 0;
            if (hm_recv(fd, &type, &p, &len, hm_now_ns() + 5000000000ULL) != 0 || type != HM_JOIN ||
                !on_join(h, fd, p, len)) {
                close(fd);
            }
            free(p);
        }
        free(ready_fds);
        for (uint32_t r = 0; r < h->nranks && k < n; r++, k++) {
            if (!pfd[k].revents || pfd[k].fd < 0 || h->rank_fd[r] != pfd[k].fd) {
                continue;
            }
            uint32_t type = 0;
            void *p = NULL;
            uint64_t len = 0;
            if (hm_recv(pfd[k].fd, &type, &p, &len, hm_now_ns() + 5000000000ULL) != 0 || type != HM_OP ||
                !h->ready) {
                free(p);
                rank_gone(h, r);
                continue;
            }
            on_op(h, r, p, len);
        }
        check_timers(h);
    }
    free(pfd);
    for (uint32_t i = 0; i < h->npending; i++) {
        close(h->pending[i]);
    }
    h->npending = 0;
    for (uint32_t r = 0; r < h->nranks; r++) {
        if (h->rank_fd[r] >= 0) {
            shutdown(h->rank_fd[r], SHUT_RDWR);
            close(h->rank_fd[r]);
            h->rank_fd[r] = -1;
        }
        hub_op_free(h->head[r]);
        h->head[r] = NULL;
    }
    close(h->lfd);
    h->lfd = -1;
    if (h->path[0] == '/') {
        unlink(h->path);
        rmdir(h->dir);
    }
    h->done = true;
    return NULL;
}

static void hub_free(hub *h)
{
    close(h->wake[0]);
    close(h->wake[1]);
    free(h->pending);
    free(h->rank_fd);
    free(h->joined);
    free(h->head);
    free(h);
}

/* Joins and frees finished hubs (all of them with `all`); hubs_lock held. */
static void reap_locked(bool all)
{
    hub **link = &hubs;
    while (*link) {
        hub *h = *link;
        if (all || h->done) {
            if (all && !h->done) {
                h->stop = true;
                (void)!write(h->wake[1], "x", 1);
            }
            pthread_join(h->th, NULL);
            *link = h->next;
            hub_free(h);
        } else {
            link = &h->next;
        }
    }
}

/* At exit: a hub whose world is still running (ranks of other processes
 * finishing their last collective) is given until every rank has left, at
 * most the execution timeout or 5 s, before the process takes it down (a mock
 * decision: on a card a rank's exit does not break transfers the others
 * still complete, while here the root's process carries the relay). Then
 * no socket file or directory is left behind. */
static void remove_sockets_at_exit(void)
{
    for (hub *h = hubs; h; h = h->next) {
        uint64_t wait_ms = h->exec_ms && h->exec_ms < 5000 ? h->exec_ms : 5000;
        uint64_t deadline = hm_now_ns() + wait_ms * 1000000ULL;
        while (!h->done && h->ready && !h->broken && hm_now_ns() < deadline) {
            usleep(2000);
        }
    }
    for (hub *h = hubs; h; h = h->next) {
        if (!h->done && h->path[0] == '/') {
            unlink(h->path);
            rmdir(h->dir);
        }
    }
}

void hm_hub_stop_all(void)
{
    pthread_mutex_lock(&hubs_lock);
    reap_locked(true);
    pthread_mutex_unlock(&hubs_lock);
}

static HcclResult hub_launch(hub *h, hm_root *root, uint64_t fixed, uint64_t connect_ms, uint64_t exec_ms);

/* ASCENDCL_MOCK_HCCL_TRANSPORT=tcp: the hub listens on TCP, on
 * ASCENDCL_MOCK_HCCL_HOST (an IPv4 address, default 127.0.0.1) at a port
 * the kernel picks, and is named "tcp:HOST:PORT" in the root info, so
 * ranks of other machines (or of other network namespaces) can reach it. */
static bool hub_listen_tcp(hub *h)
{
    const char *host = getenv("ASCENDCL_MOCK_HCCL_HOST");
    host = host && *host && strlen(host) < 40 ? host : "127.0.0.1";
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        return false;
    }
    h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len = sizeof(a);
    if (h->lfd < 0 || bind(h->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(h->lfd, 128) != 0 ||
        getsockname(h->lfd, (struct sockaddr *)&a, &len) != 0) {
        if (h->lfd >= 0) {
            close(h->lfd);
        }
        return false;
    }
    h->dir[0] = '\0';
    snprintf(h->path, sizeof(h->path), "tcp:%s:%u", host, (unsigned)ntohs(a.sin_port));
    return true;
}

HcclResult hm_hub_start(hm_root *root, uint64_t connect_ms, uint64_t exec_ms)
{
    return hm_hub_start_at(root, 0, connect_ms, exec_ms);
}

HcclResult hm_hub_start_at(hm_root *root, uint64_t fixed, uint64_t connect_ms, uint64_t exec_ms)
{
    hub *h = calloc(1, sizeof(*h));
    if (!h) {
        return HCCL_E_MEMORY;
    }
    h->lfd = h->wake[0] = h->wake[1] = -1;
    const char *transport = getenv("ASCENDCL_MOCK_HCCL_TRANSPORT");
    if (!fixed && transport && strcmp(transport, "tcp") == 0) {
        if (!hub_listen_tcp(h)) {
            free(h);
            return HCCL_E_SYSCALL;
        }
        return hub_launch(h, root, 0, connect_ms, exec_ms);
    }
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp && strlen(tmp) < 24 ? tmp : "/tmp";
    if (fixed) {
        /* a rank table's hub: a directory every rank can name */
        snprintf(h->dir, sizeof(h->dir), "%s/aclmock-hccl-rt-%016llx", tmp, (unsigned long long)fixed);
        if (mkdir(h->dir, 0700) != 0 && errno != EEXIST) {
            free(h);
            return HCCL_E_SYSCALL;
        }
    } else {
        snprintf(h->dir, sizeof(h->dir), "%s/aclmock-hccl-XXXXXX", tmp);
        if (!mkdtemp(h->dir)) {
            free(h);
            return HCCL_E_SYSCALL;
        }
    }
    snprintf(h->path, sizeof(h->path), "%s/hub", h->dir);
    if (fixed) {
        unlink(h->path); /* a stale socket of an earlier run */
    }
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", h->path);
    h->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->lfd < 0 || bind(h->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(h->lfd, 128) != 0) {
        if (h->lfd >= 0) {
            close(h->lfd);
        }
        unlink(h->path);
        rmdir(h->dir);
        free(h);
        return HCCL_E_SYSCALL;
    }
    return hub_launch(h, root, fixed, connect_ms, exec_ms);
}

/* The hub listening (lfd) and named (path): its session, thread, and the
 * root info naming it. */
static HcclResult hub_launch(hub *h, hm_root *root, uint64_t fixed, uint64_t connect_ms, uint64_t exec_ms)
{
    if (pipe2(h->wake, O_CLOEXEC) != 0) {
        close(h->lfd);
        if (h->path[0] == '/') {
            unlink(h->path);
            rmdir(h->dir);
        }
        free(h);
        return HCCL_E_SYSCALL;
    }
    if (fixed) {
        h->session = fixed;
    } else if (getrandom(&h->session, sizeof(h->session), 0) != (ssize_t)sizeof(h->session)) {
        h->session = hm_now_ns() ^ ((uint64_t)getpid() << 32);
    }
    h->connect_ms = connect_ms;
    h->exec_ms = exec_ms;
    h->created_ns = hm_now_ns();
    pthread_mutex_lock(&hubs_lock);
    static bool registered;
    if (!registered) {
        registered = atexit(remove_sockets_at_exit) == 0;
    }
    reap_locked(false);
    if (pthread_create(&h->th, NULL, hub_main, h) != 0) {
        pthread_mutex_unlock(&hubs_lock);
        close(h->lfd);
        unlink(h->path);
        rmdir(h->dir);
        close(h->wake[0]);
        close(h->wake[1]);
        free(h);
        return HCCL_E_SYSCALL;
    }
    h->next = hubs;
    hubs = h;
    pthread_mutex_unlock(&hubs_lock);
    memset(root, 0, sizeof(*root));
    memcpy(root->magic, HM_ROOT_MAGIC, sizeof(HM_ROOT_MAGIC));
    root->session = h->session;
    root->pid = (int32_t)getpid();
    snprintf(root->path, sizeof(root->path), "%s", h->path);
    return HCCL_SUCCESS;
}
