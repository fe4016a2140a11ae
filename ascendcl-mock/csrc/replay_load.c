/*
 * replay_load.c: reading a trace for replay (its first segment: the header
 * line, if any, and the records up to the next header), grouping the records
 * by thread, and the facts it gives about the device: count, HBM, SoC name,
 * and (lenient mode) the records that answer fact queries.
 */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

rp_state R;

void replay_clear_locked(void)
{
    for (size_t i = 0; i < R.nrecs; i++) {
        rp_rec *r = &R.recs[i];
        free(r->fn_name);
        free(r->args_raw);
        free(r->msg);
        rj_free(&r->args);
        rj_free(&r->out);
    }
    free(R.recs);
    free(R.begun);
    free(R.by_rank);
    for (size_t i = 0; i < R.nthreads; i++) {
        free(R.threads[i].recs);
    }
    free(R.threads);
    free(R.facts);
    free(R.path);
    free(R.header);
    for (int k = 0; k < RP_KINDS; k++) {
        pm_clear(&R.fwd[k]);
        pm_clear(&R.rev[k]);
    }
    sb_free(&R.divergence);
    sb_free(&R.text);
    uint64_t gen = R.gen;
    memset(&R, 0, sizeof(R));
    R.gen = gen + 1;
}

static rp_thread *thread_for(uint64_t id)
{
    for (size_t i = 0; i < R.nthreads; i++) {
        if (R.threads[i].id == id) {
            return &R.threads[i];
        }
    }
    rp_thread *nt = realloc(R.threads, (R.nthreads + 1) * sizeof(*nt));
    if (!nt) {
        abort();
    }
    R.threads = nt;
    rp_thread *t = &R.threads[R.nthreads++];
    memset(t, 0, sizeof(*t));
    t->id = id;
    return t;
}

static void thread_push(rp_thread *t, size_t rec)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        size_t *nr = realloc(t->recs, t->cap * sizeof(*nr));
        if (!nr) {
            abort();
        }
        t->recs = nr;
    }
    t->recs[t->n++] = rec;
}

/* Functions whose results lenient mode takes from the trace. */
static bool fact_function(int fn)
{
    return fn == FN_aclrtGetVersion || fn == FN_aclrtGetRunMode || fn == FN_aclsysGetCANNVersion ||
           fn == FN_aclsysGetVersionStr || fn == FN_aclsysGetVersionNum || fn == FN_aclrtGetMemInfo ||
           fn == FN_aclrtMemGetAllocationGranularity;
}

/* Parses one record line into R.recs; false if it is not a record. */
static bool add_record(const char *line, size_t len, size_t lineno)
{
    rp_obj top;
    if (!rj_valid(line, len) || !rj_object(line, len, &top)) {
        snprintf(R.error, sizeof(R.error), "line %zu is not a JSON object", lineno);
        return false;
    }
    const char *fn = rj_get(&top, "fn"), *args = rj_get(&top, "args"), *out = rj_get(&top, "out");
    const char *ret = rj_get(&top, "ret"), *seq = rj_get(&top, "seq"), *thread = rj_get(&top, "thread");
    int64_t ret_v = 0;
    rp_rec r;
    memset(&r, 0, sizeof(r));
    r.fn_name = rj_string(fn);
    bool ok = r.fn_name && args && out && rj_i64(ret, &ret_v) && rj_u64(seq, &r.seq) && rj_u64(thread, &r.thread) &&
              rj_object(args, strlen(args), &r.args) && rj_object(out, strlen(out), &r.out);
    if (!ok) {
        snprintf(R.error, sizeof(R.error), "line %zu is not a call record (seq, thread, fn, args, out, ret)",
                 lineno);
        free(r.fn_name);
        rj_free(&r.args);
        rj_free(&r.out);
        rj_free(&top);
        return false;
    }
    r.fn = mock_fn_lookup(r.fn_name);
    r.ret = (int)ret_v;
    if (!rj_u64(rj_get(&top, "t_ns"), &r.t_ns)) {
        r.t_ns = 0;
    }
    r.live = r.fn == FN_aclrtProcessReport && (ret_v == 0 || ret_v == ACL_ERROR_RT_REPORT_TIMEOUT);
    r.poll = r.live || (replay_poll_timeout(r.fn) && ret_v == replay_poll_timeout(r.fn));
    r.args_raw = strdup(args);
    const char *msg = rj_get(&top, "msg");
    r.has_msg = msg != NULL;
    r.msg = rj_string(msg);
    rj_free(&top);
    if (R.nrecs == R.caprecs) {
        R.caprecs = R.caprecs ? R.caprecs * 2 : 256;
        rp_rec *nr = realloc(R.recs, R.caprecs * sizeof(*nr));
        if (!nr) {
            abort();
        }
        R.recs = nr;
    }
    R.recs[R.nrecs++] = r;
    return true;
}

/* Checks a header line; false (with R.error) for another format or version. */
static bool check_header(const char *line, size_t len)
{
    rp_obj h;
    if (!rj_valid(line, len) || !rj_object(line, len, &h)) {
        snprintf(R.error, sizeof(R.error), "the header is not a JSON object");
        return false;
    }
    char *format = rj_string(rj_get(&h, "format"));
    uint64_t version = 0;
    bool ok = format && strcmp(format, "ascendcl-trace") == 0 && rj_u64(rj_get(&h, "version"), &version);
    if (!ok) {
        snprintf(R.error, sizeof(R.error), "not an ascendcl trace (format \"%s\")", format ? format : "?");
    } else if (version > RP_FORMAT_VERSION) {
        snprintf(R.error, sizeof(R.error),
                 "trace format version %llu is newer than this mock, which reads versions %d to %d: update "
                 "ascendcl-mock (or the ascendcl CLI) to replay it",
                 (unsigned long long)version, RP_OLDEST_FORMAT_VERSION, RP_FORMAT_VERSION);
        ok = false;
    } else if (version < RP_OLDEST_FORMAT_VERSION) {
        snprintf(R.error, sizeof(R.error), "trace format version %llu is not supported (this mock reads %d to %d)",
                 (unsigned long long)version, RP_OLDEST_FORMAT_VERSION, RP_FORMAT_VERSION);
        ok = false;
    }
    free(format);
    rj_free(&h);
    return ok;
}

static void find_facts(void)
{
    rp_obj h = {0};
    if (R.header) {
        rj_object(R.header, strlen(R.header), &h);
    }
    int64_t count = -1;
    uint64_t total = 0, first_free = 0;
    char *soc = NULL;
    for (size_t i = 0; i < R.nrecs; i++) {
        const rp_rec *r = &R.recs[i];
        if (r->ret != 0) {
            continue;
        }
        if (r->fn == FN_aclrtGetDeviceCount && count < 0) {
            rj_i64(rj_get(&r->out, "count"), &count);
        } else if (r->fn == FN_aclrtGetSocName && !soc) {
            soc = rj_string(rj_get(&r->out, "name"));
        } else if (r->fn == FN_aclrtGetMemInfo) {
            int64_t attr = -1;
            uint64_t t = 0, f = 0;
            rj_i64(rj_get(&r->args, "attr"), &attr);
            bool ddr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
                       attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
            if (!ddr && rj_u64(rj_get(&r->out, "total"), &t) && rj_u64(rj_get(&r->out, "free"), &f) && t) {
                total = t > total ? t : total;
                first_free = first_free ? first_free : f;
            }
        }
        if (fact_function(r->fn)) {
            size_t *nf = realloc(R.facts, (R.nfacts + 1) * sizeof(*nf));
            if (!nf) {
                abort();
            }
            R.facts = nf;
            R.facts[R.nfacts++] = i;
        }
    }
    uint64_t hv = 0;
    if (count < 0 && rj_u64(rj_get(&h, "device_count"), &hv)) {
        count = (int64_t)hv;
    }
    if (!total && rj_u64(rj_get(&h, "hbm_bytes"), &hv)) {
        total = first_free = hv;
    }
    if (first_free > total) {
        first_free = total; /* an edited trace: free memory never exceeds the total */
    }
    if (!soc) {
        soc = rj_string(rj_get(&h, "soc_name"));
    }
    R.fact_devices = count >= 1 && count <= MOCK_MAX_DEVICES ? count : -1;
    /* Strict: never run out before the card did. Lenient: what the card had free. */
    uint64_t hbm = R.mode == ACLMOCK_REPLAY_STRICT ? total : first_free;
    R.fact_hbm = hbm >= MOCK_GRAN_2M && hbm <= (1ULL << 44) ? round_down(hbm, MOCK_PAGE) : 0;
    if (soc && *soc && strlen(soc) < sizeof(R.fact_soc)) {
        snprintf(R.fact_soc, sizeof(R.fact_soc), "%s", soc);
    }
    free(soc);
    rj_free(&h);
}

/* Reads the next line into *line (emptied first), bounded by RP_MAX_LINE:
 * -1 at the end of the file, 0 for a line, 1 for one that is too long, 2 for
 * one with a NUL byte. */
static int read_line(FILE *f, strbuf *line)
{
    line->len = 0;
    if (line->s) {
        line->s[0] = '\0';
    }
    char buf[4096];
    size_t n = 0;
    bool nul = false, any = false;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF) {
        any = true;
        if (ch == '\n') {
            break;
        }
        nul |= ch == 0;
        buf[n++] = (char)ch;
        if (n == sizeof(buf)) {
            sb_append(line, buf, n);
            n = 0;
            if (line->len > RP_MAX_LINE) {
                return 1;
            }
        }
    }
    if (n) {
        sb_append(line, buf, n);
    }
    if (!any) {
        return -1;
    }
    return line->len > RP_MAX_LINE ? 1 : nul ? 2 : 0;
}

/* Ranks the records in the order the calls started (t_ns, then seq), lists
 * each thread's records in that order, and keeps the ranking (R.by_rank). */
static int by_start(const void *a, const void *b)
{
    const rp_rec *x = &R.recs[*(const size_t *)a], *y = &R.recs[*(const size_t *)b];
    if (x->t_ns != y->t_ns) {
        return x->t_ns < y->t_ns ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

static void order_records(void)
{
    R.by_rank = malloc((R.nrecs ? R.nrecs : 1) * sizeof(*R.by_rank));
    R.begun = calloc(R.nrecs ? R.nrecs : 1, sizeof(*R.begun));
    if (!R.by_rank || !R.begun) {
        abort();
    }
    for (size_t i = 0; i < R.nrecs; i++) {
        R.by_rank[i] = i;
    }
    qsort(R.by_rank, R.nrecs, sizeof(*R.by_rank), by_start);
    for (size_t k = 0; k < R.nrecs; k++) {
        rp_rec *r = &R.recs[R.by_rank[k]];
        r->rank = k;
        /* no call waits for a poll: how often a thread polls is timing */
        R.begun[k] = r->poll;
        rp_thread *t = thread_for(r->thread); /* may move R.threads */
        r->thread_ix = (size_t)(t - R.threads);
        thread_push(t, R.by_rank[k]);
    }
    while (R.low < R.nrecs && R.begun[R.low]) {
        R.low++;
    }
}

bool replay_load_locked(const char *path, int mode)
{
    replay_clear_locked();
    R.mode = mode;
    R.path = strdup(path);
    R.state = RP_ERROR;
    /* Only a regular file: a directory reads as empty, /dev/zero never ends,
     * and opening a FIFO would block until a writer comes. */
    struct stat pre;
    if (stat(path, &pre) == 0 && !S_ISREG(pre.st_mode)) {
        snprintf(R.error, sizeof(R.error), "cannot open the trace: not a regular file");
        return false;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(R.error, sizeof(R.error), "cannot open the trace: %s", strerror(errno));
        return false;
    }
    struct stat st; /* the file opened may not be the one checked */
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(R.error, sizeof(R.error), "cannot open the trace: not a regular file");
        fclose(f);
        return false;
    }
    strbuf line = {0};
    size_t lineno = 0;
    bool ok = true;
    for (;;) {
        int got = read_line(f, &line);
        if (got < 0) {
            break;
        }
        lineno++;
        if (got > 0) {
            snprintf(R.error, sizeof(R.error), "line %zu is %s", lineno,
                     got == 1 ? "longer than a trace line may be (16 MiB)" : "not text (a NUL byte)");
            ok = false;
            break;
        }
        while (line.len && (line.s[line.len - 1] == '\n' || line.s[line.len - 1] == '\r')) {
            line.s[--line.len] = '\0';
        }
        if (!line.len) {
            continue;
        }
        if (strstr(line.s, "\"format\"") && !strstr(line.s, "\"fn\"")) {
            if (R.nrecs || R.header) {
                break; /* the next segment */
            }
            ok = check_header(line.s, line.len);
            R.header = strdup(line.s);
        } else {
            ok = add_record(line.s, line.len, lineno);
        }
        if (!ok) {
            break;
        }
    }
    sb_free(&line);
    fclose(f);
    if (!ok) {
        return false;
    }
    order_records();
    find_facts();
    R.state = RP_REPLAYING;
    return true;
}

void replay_apply_facts_locked(void)
{
    if (R.state == RP_ERROR || R.mode == ACLMOCK_REPLAY_OFF) {
        return;
    }
    if (R.fact_devices > 0) {
        G.device_count = (uint32_t)R.fact_devices;
    }
    if (R.fact_hbm) {
        G.hbm_bytes = R.fact_hbm;
    }
    if (R.fact_soc[0]) {
        snprintf(G.soc_name, sizeof(G.soc_name), "%s", R.fact_soc);
    }
}

/* Whether two flat argument objects hold the same keys and raw values. */
static bool same_args(const rp_obj *a, const rp_obj *b)
{
    if (a->n != b->n) {
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        const char *v = rj_get(b, a->kv[i].key);
        if (!v || strcmp(v, a->kv[i].raw) != 0) {
            return false;
        }
    }
    return true;
}

const rp_rec *replay_fact_for(const mock_call *c)
{
    if (!R.nfacts) {
        return NULL;
    }
    jbuf buf;
    jb_init(&buf);
    jb_printf(&buf, "{%s}", jb_str(&c->args));
    rp_obj live;
    bool ok = rj_object(jb_str(&buf), buf.len, &live);
    jb_free(&buf);
    if (!ok) {
        return NULL;
    }
    const rp_rec *found = NULL;
    for (size_t i = 0; i < R.nfacts && !found; i++) {
        const rp_rec *r = &R.recs[R.facts[i]];
        if (r->fn == c->fn && r->ret == 0 && same_args(&r->args, &live)) {
            found = r;
        }
    }
    rj_free(&live);
    return found;
}
