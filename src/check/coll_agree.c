/* The members' agreements about their collectives (global.c makes the
 * descriptors and judges them), built so that the tool never makes a
 * member wait where the application's call would not (issue 24).
 *
 * Three kinds of traffic on a communicator's shadow:
 * - Agreements, before each of the first blocking collectives: a token
 *   (below) of the descriptor's hash, reduced with MPI_Iallreduce. Where the
 *   collective waits for every member anyway it is waited for at once; a
 *   rooted, prefix or neighbourhood collective may return before the others
 *   arrive, so its agreement is waited for at most AGREE_WAIT_NS and then
 *   stays pending, judged in order when complete.
 * - Comparisons of the log of later collectives: every LOG_N logged
 *   instances, at MPI_Comm_free and at MPI_Finalize, a token of the log's
 *   running hash is posted and never waited for: the log goes with it,
 *   and a new one starts. It is judged
 *   when complete, at the communicator's next collective, at any
 *   collective or MPI_Comm_free of the process once the communicator is
 *   freed, or at MPI_Finalize.
 * - Exchanges, when an agreement or comparison differs: every member sends
 *   its descriptors to every other, point to point with the tag TAG_UB
 *   (p2p.c's acknowledgements stay below it), and judges them when all
 *   have come. Point to point, because an exchange is posted when a
 *   member judges, which depends on timing, and MPI matches collectives in
 *   the order each member posts them: exchanges as collectives would cross
 *   the other members' later agreements.
 * Both are one token, TOKEN_N uint64 summed by one MPI_Iallreduce: the
 * hash and its square, a kind and its square (the instance number of an
 * agreement; 2^62 plus the communicator's count of collectives for a
 * comparison), the unsure flag and the vector forms' pair sums. The
 * members agree when n * sum(x^2) == sum(x)^2 for hash and kind (the
 * squared differences sum to 0; modulo 2^64 a difference hides with odds
 * of about 2^-32) and the rest sums to 0. One shape for both, so that an
 * erroneous program whose members post different ones (a member that
 * skipped a collective reaches MPI_Finalize's comparison while another
 * posts its agreement) gets a mismatch, not an MPI error inside the
 * tool's traffic. The exchange then sends each member's descriptors with
 * their instance numbers (any count: received by matched probe), and each
 * instance is judged with the descriptors of the members that have it; a
 * member that has none "calls no further collective" there, at the call
 * where it compared (its MPI_Comm_free or MPI_Finalize).
 * Every member posts the agreements and comparisons at the same instance
 * numbers, and the exchanges in the same order (an agreement's before any
 * comparison's, comparisons in order), so the tool's traffic always
 * matches. A freed communicator whose traffic is still pending is kept
 * (the retired list) with its shadow until it completes: MPI still owns
 * the buffers, and freeing the shadow under a pending request crashed
 * Open MPI's progress engine. At MPI_Finalize every member is there:
 * the rest is waited for, with no progress for at most SETTLE_WAIT_NS,
 * and what is still pending then (a member that never called a
 * collective) is abandoned with one warning, its shadow left to MPI.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "coll.h"
#include "log.h"

#define AGREE_WAIT_NS 1000000000ull   /* 1 s */
#define SETTLE_WAIT_NS 10000000000ull /* 10 s */

enum { TOKEN_N = 6 };
#define KIND_COMPARE (1ull << 62)

static void token(uint64_t t[TOKEN_N], uint64_t hash, uint64_t kind, uint64_t unsure,
                  uint64_t pairs)
{
    t[0] = hash, t[1] = hash * hash, t[2] = kind, t[3] = kind * kind;
    t[4] = unsure, t[5] = pairs;
}

static bool agreed(const chk_comm_t *e, const uint64_t r[TOKEN_N])
{
    uint64_t n = (uint64_t)e->size;
    return n * r[1] == r[0] * r[0] && n * r[3] == r[2] * r[2] && !r[4] && !r[5];
}

/* Members that posted tokens of different kinds (an agreement against a
 * comparison, or comparisons after different numbers of collectives: a
 * member skipped or added a collective) no longer post the same traffic:
 * the communicator's checks end here, after this exchange, and nothing
 * more of it is waited for, at MPI_Finalize either. */
static void desync(chk_comm_t *e, const uint64_t r[TOKEN_N])
{
    if ((uint64_t)e->size * r[3] != r[2] * r[2]) e->abandoned = true;
}

static MPI_Request post_token(chk_comm_t *e, const uint64_t *v, uint64_t *r)
{
    MPI_Request q = MPI_REQUEST_NULL;
    if (PMPI_Iallreduce(v, r, TOKEN_N, MPI_UINT64_T, MPI_SUM, e->shadow, &q) != MPI_SUCCESS)
        return MPI_REQUEST_NULL;
    return q;
}

typedef struct coll_pending {
    MPI_Request q;
    uint64_t v[TOKEN_N], r[TOKEN_N];
    coll_t me;
    void *site;
} coll_pending_t;

/* A posted comparison: the log it compares, and its token. */
typedef struct coll_cmp {
    struct coll_cmp *next;
    MPI_Request q;
    uint64_t v[TOKEN_N], r[TOKEN_N];
    coll_t *log;
    void **site;
    int nlog;
    void *at;       /* the call that compared (MPI_Comm_free, MPI_Finalize), or NULL */
    msc_fn_t at_fn;
} coll_cmp_t;

/* A posted exchange: this member's descriptors sent to every other member
 * (sends), theirs received as they come (any count). */
typedef struct coll_xchg {
    struct coll_xchg *next;
    int n, me, k;         /* members, this member, its descriptors */
    coll_t *mine;
    void **sites;
    void *at;             /* where a missing instance of this member is reported */
    msc_fn_t at_fn;
    MPI_Request *sends;   /* n - 1 */
    coll_t **theirs;      /* per member, NULL until received */
    int *count, nrecv;
    bool tell_wd;         /* a mismatch found: tell the deadlock watchdog */
} coll_xchg_t;

/* --- exchanges ------------------------------------------------------------ */

static int xchg_tag(void)
{
    return chk_cfg.tag_ub;
}

static void xchg_free(coll_xchg_t *x)
{
    for (int r = 0; x->theirs && r < x->n; r++) free(x->theirs[r]);
    free(x->mine), free(x->sites), free(x->sends), free(x->theirs), free(x->count), free(x);
}

/* Posts the exchange of this member's k descriptors `mine` and their
 * sites (copied); NULL if MPI or memory fails (nothing judged). */
static coll_xchg_t *xchg_post(chk_comm_t *e, const coll_t *mine, int k, void *const *sites,
                              void *at, msc_fn_t at_fn)
{
    int n = e->size, me = -1;
    PMPI_Comm_rank(e->shadow, &me);
    coll_xchg_t *x = calloc(1, sizeof *x);
    if (!x || me < 0) return free(x), NULL;
    x->n = n, x->me = me, x->k = k, x->at = at, x->at_fn = at_fn;
    x->mine = malloc(sizeof *x->mine * (size_t)(k ? k : 1));
    x->sites = malloc(sizeof *x->sites * (size_t)(k ? k : 1));
    x->sends = malloc(sizeof *x->sends * (size_t)n);
    x->theirs = calloc((size_t)n, sizeof *x->theirs);
    x->count = calloc((size_t)n, sizeof *x->count);
    if (!x->mine || !x->sites || !x->sends || !x->theirs || !x->count) return xchg_free(x), NULL;
    if (k) {
        memcpy(x->mine, mine, sizeof *mine * (size_t)k);
        memcpy(x->sites, sites, sizeof *sites * (size_t)k);
    }
    int bytes = (int)sizeof *mine * k, ns = 0;
    for (int r = 0; r < n; r++) {
        if (r == me) continue;
        if (PMPI_Isend(x->mine, bytes, MPI_BYTE, r, xchg_tag(), e->shadow, &x->sends[ns]) !=
            MPI_SUCCESS) {
            /* Nothing is judged; what was sent completes in MPI's time,
             * and x stays MPI's. */
            for (int i = 0; i < ns; i++) PMPI_Request_free(&x->sends[i]);
            return NULL;
        }
        ns++;
    }
    return x;
}

/* Receives what has come (matched probes: threads cannot take each
 * other's); true when every member's has. */
static bool xchg_receive(chk_comm_t *e, coll_xchg_t *x, bool wait)
{
    for (int r = 0; r < x->n && x->nrecv < x->n - 1; r++) {
        if (r == x->me || x->theirs[r]) continue;
        MPI_Message m;
        MPI_Status st;
        int flag = 0, bytes = 0;
        if (wait) flag = PMPI_Mprobe(r, xchg_tag(), e->shadow, &m, &st) == MPI_SUCCESS;
        else if (PMPI_Improbe(r, xchg_tag(), e->shadow, &flag, &m, &st) != MPI_SUCCESS) flag = 0;
        if (!flag) continue;
        PMPI_Get_count(&st, MPI_BYTE, &bytes);
        int k = bytes / (int)sizeof(coll_t);
        x->theirs[r] = malloc(sizeof(coll_t) * (size_t)(k ? k : 1));
        void *buf = x->theirs[r];
        static char sink[sizeof(coll_t)]; /* memory failed: received, not judged */
        if (!buf) k = 0;
        PMPI_Mrecv(buf ? buf : sink, buf ? bytes : (int)sizeof sink, MPI_BYTE, &m,
                   MPI_STATUS_IGNORE);
        if (!buf) x->theirs[r] = calloc(1, sizeof(coll_t));
        x->count[r] = k;
        x->nrecv++;
    }
    return x->nrecv == x->n - 1;
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every instance any member has, judged with the descriptors of the
 * members that have it (the others: "no further collective"). */
static bool xchg_judge(chk_comm_t *e, coll_xchg_t *x)
{
    x->theirs[x->me] = x->mine, x->count[x->me] = x->k;
    size_t total = 1;
    for (int r = 0; r < x->n; r++) total += (size_t)x->count[r];
    uint64_t *seqs = malloc(sizeof *seqs * total);
    size_t members = x->n > 0 ? (size_t)x->n : 1;
    coll_t *one = malloc(sizeof *one * members);
    int *at = calloc(members, sizeof *at);
    bool found = false;
    if (seqs && one && at) {
        int m = 0;
        for (int r = 0; r < x->n; r++)
            for (int i = 0; i < x->count[r]; i++) seqs[m++] = x->theirs[r][i].seq;
        qsort(seqs, (size_t)m, sizeof *seqs, by_seq);
        for (int j = 0; j < m; j++) {
            if (j && seqs[j] == seqs[j - 1]) continue;
            void *site = x->at;
            for (int r = 0; r < x->n; r++) {
                /* Each member's descriptors are in instance order. */
                while (at[r] < x->count[r] && x->theirs[r][at[r]].seq < seqs[j]) at[r]++;
                if (at[r] < x->count[r] && x->theirs[r][at[r]].seq == seqs[j]) {
                    one[r] = x->theirs[r][at[r]];
                    if (r == x->me) site = x->sites[at[r]];
                } else {
                    memset(&one[r], 0, sizeof one[r]);
                    one[r].fn = -1, one[r].seq = seqs[j];
                    one[r].rank = e->world && r < e->size ? e->world[r] : -1;
                }
            }
            bool have = one[x->me].fn >= 0;
            msc_fn_t fn = have ? (msc_fn_t)one[x->me].fn : x->at_fn;
            if (site && (have || x->at))
                found |= chk_coll_judge(one, x->n, chk_coll_key(e, seqs[j]), fn, site);
        }
    }
    x->theirs[x->me] = NULL, x->count[x->me] = 0;
    free(seqs), free(one), free(at);
    return found;
}

/* True when x is complete (and judged); with `wait`, waits for it. */
static bool xchg_step(chk_comm_t *e, coll_xchg_t *x, bool wait)
{
    if (!xchg_receive(e, x, wait)) return false;
    for (int i = 0; i < x->n - 1; i++) {
        int flag = 1;
        if (wait) PMPI_Wait(&x->sends[i], MPI_STATUS_IGNORE);
        else if (PMPI_Test(&x->sends[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = 1;
        if (!flag) return false;
    }
    if (xchg_judge(e, x) && x->tell_wd) chk_wd_coll_mismatch();
    return true;
}

/* --- agreements ------------------------------------------------------------ */

static void xchg_queue(chk_comm_t *e, coll_xchg_t *x)
{
    if (!x) return;
    coll_xchg_t **t = &e->xchgs;
    while (*t) t = &(*t)->next;
    *t = x;
}

/* A completed agreement: equal, or its exchange posted. `now`: it
 * completed at the collective's call, where the members that are in time
 * exchange at once too, so it is waited for at most AGREE_WAIT_NS (a
 * mismatch is then on record before MPI can abort on it); otherwise, or
 * when a member is late, it is judged when complete. */
static void agree_done(chk_comm_t *e, const uint64_t r[TOKEN_N], const coll_t *me, void *site,
                       bool now)
{
    if (agreed(e, r)) return;
    desync(e, r);
    coll_xchg_t *x = xchg_post(e, me, 1, &site, NULL, MSC_FN_MPI_Finalize);
    if (!x) return;
    /* A mismatched instance whose members then wait in it is no longer
     * progress for the deadlock watchdog (MPI hangs on a root mismatch). */
    x->tell_wd = true;
    uint64_t start = msc_now_ns();
    for (int i = 0; now; i++) {
        if (xchg_step(e, x, false)) {
            xchg_free(x);
            return;
        }
        if (msc_now_ns() - start > AGREE_WAIT_NS) break;
        if (i > 100) usleep(i > 1000 ? 1000 : 20);
    }
    xchg_queue(e, x);
}

/* Tests `q` until it completes or `ns` have passed, with short sleeps once
 * a quick spin has not seen it. True if complete. */
static bool wait_bounded(MPI_Request *q, uint64_t ns)
{
    uint64_t start = msc_now_ns();
    for (int i = 0;; i++) {
        int flag = 0;
        if (PMPI_Test(q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) return true;
        if (msc_now_ns() - start > ns) return false;
        if (i > 100) usleep(i > 1000 ? 1000 : 20);
    }
}

/* Judges e's pending agreements that are complete, oldest first, stopping
 * at the first that is not. `wait`: wait for each (the collective being
 * entered waits for every member), but at most SETTLE_WAIT_NS: a member
 * that never called the collective (an erroneous program) must not hang
 * the tool; its agreement is then abandoned and the collective left to
 * the log's comparison and the deadlock watchdog. */
static void settle(chk_comm_t *e, bool wait)
{
    int done = 0;
    for (; done < e->npend; done++) {
        coll_pending_t *p = &e->pend[done];
        int flag = 0;
        if (wait) flag = wait_bounded(&p->q, SETTLE_WAIT_NS);
        else PMPI_Test(&p->q, &flag, MPI_STATUS_IGNORE);
        if (!flag && wait) {
            msc_warn_once("coll-agreement", "check: a collective's agreement among its "
                          "members did not complete within %d s (a member never called "
                          "collective #%llu on its communicator?); not waited for",
                          (int)(SETTLE_WAIT_NS / 1000000000ull),
                          (unsigned long long)p->me.seq);
            /* MPI still owns the buffers of the abandoned requests. */
            e->pend = NULL, e->npend = e->cappend = 0;
            e->abandoned = true;
            return;
        }
        if (!flag) break;
        agree_done(e, p->r, &p->me, p->site, false);
    }
    if (done) memmove(e->pend, e->pend + done, sizeof *e->pend * (size_t)(e->npend - done));
    e->npend -= done;
}

void chk_agree(chk_comm_t *e, uint64_t h, bool unsure, const coll_t *me, void *site,
               bool everyone)
{
    if (everyone && !e->npend) {
        uint64_t v[TOKEN_N], r[TOKEN_N];
        token(v, h, me->seq, unsure, me->psig);
        MPI_Request q = post_token(e, v, r);
        if (q == MPI_REQUEST_NULL || PMPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        agree_done(e, r, me, site, true);
        return;
    }
    if (e->npend == e->cappend) {
        int cap = e->cappend ? 2 * e->cappend : 8;
        coll_pending_t *p = realloc(e->pend, sizeof *p * (size_t)cap);
        if (!p) return; /* left to the log's comparison: not judged early */
        e->pend = p, e->cappend = cap;
    }
    coll_pending_t *p = &e->pend[e->npend];
    token(p->v, h, me->seq, unsure, me->psig);
    p->me = *me, p->site = site;
    if ((p->q = post_token(e, p->v, p->r)) == MPI_REQUEST_NULL) return;
    e->npend++;
    if (e->npend > 1 || !wait_bounded(&p->q, AGREE_WAIT_NS)) return;
    e->npend--;
    agree_done(e, p->r, &p->me, site, true);
}

/* --- comparisons of the log -------------------------------------------------- */

static void cmp_free(coll_cmp_t *c)
{
    free(c->log), free(c->site), free(c);
}

static void compare(chk_comm_t *e, void *at, msc_fn_t at_fn)
{
    coll_cmp_t *c = calloc(1, sizeof *c);
    if (!c) return;
    c->log = e->log, c->site = e->log_site, c->nlog = e->nlog, c->at = at, c->at_fn = at_fn;
    token(c->v, e->run, KIND_COMPARE + e->coll_seq, 0, e->psum);
    e->log = NULL, e->log_site = NULL;
    e->nlog = e->caplog = 0, e->run = e->psum = 0;
    /* Not compared when MPI fails; nothing is then pending. */
    if ((c->q = post_token(e, c->v, c->r)) == MPI_REQUEST_NULL) return cmp_free(c);
    coll_cmp_t **t = &e->cmps;
    while (*t) t = &(*t)->next;
    *t = c;
}

void chk_coll_compare(chk_comm_t *e)
{
    compare(e, NULL, MSC_FN_MPI_Finalize);
}

/* True when c is complete (equal, or its exchange posted). */
static bool cmp_step(chk_comm_t *e, coll_cmp_t *c)
{
    int flag = 0;
    if (PMPI_Test(&c->q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return true;
    if (!flag) return false;
    if (agreed(e, c->r)) return true;
    desync(e, c->r);
    xchg_queue(e, xchg_post(e, c->log, c->nlog, c->site, c->at, c->at_fn));
    return true;
}

/* --- progress -------------------------------------------------------------- */

/* Nothing of e's is pending that will complete: its exchanges are done,
 * and its agreements and comparisons too, unless its members no longer
 * post the same traffic (desync()). */
static bool idle(const chk_comm_t *e)
{
    return !e->xchgs && (e->abandoned || (!e->npend && !e->cmps));
}

/* Advances e's traffic without waiting; true if anything completed. The
 * comparisons wait for the agreements before them (whose exchanges come
 * first on every member). */
static bool step(chk_comm_t *e)
{
    int npend = e->npend;
    bool moved = false;
    if (e->npend) settle(e, false);
    moved |= e->npend != npend;
    while (!e->npend && e->cmps && cmp_step(e, e->cmps)) {
        coll_cmp_t *c = e->cmps;
        e->cmps = c->next;
        cmp_free(c);
        moved = true;
    }
    while (e->xchgs && xchg_step(e, e->xchgs, false)) {
        coll_xchg_t *x = e->xchgs;
        e->xchgs = x->next;
        xchg_free(x);
        moved = true;
    }
    return moved;
}

void chk_coll_step(chk_comm_t *e, bool everyone)
{
    if (e->npend) settle(e, everyone);
    if (e->cmps || e->xchgs) step(e);
}

/* Freed communicators whose traffic is still pending (their entries, taken
 * from the registry), and their count for the cheap test on every
 * collective. */
static pthread_mutex_t retired_mu = PTHREAD_MUTEX_INITIALIZER;
static chk_comm_t *retired;
static _Atomic int nretired;

static void retired_step(void)
{
    pthread_mutex_lock(&retired_mu);
    for (chk_comm_t **p = &retired; *p;) {
        chk_comm_t *e = *p;
        pthread_mutex_lock(&e->coll_mu);
        step(e);
        bool done = idle(e);
        pthread_mutex_unlock(&e->coll_mu);
        if (!done) {
            p = &e->retired_next;
            continue;
        }
        *p = e->retired_next;
        atomic_fetch_sub(&nretired, 1);
        chk_shadow_park(false);
        chk_comm_destroy(e);
    }
    pthread_mutex_unlock(&retired_mu);
}

void chk_coll_progress(void)
{
    if (atomic_load_explicit(&nretired, memory_order_relaxed)) retired_step();
}

bool chk_coll_retire(chk_comm_t *e)
{
    pthread_mutex_lock(&e->coll_mu);
    if (e->cmps || e->xchgs || e->npend) step(e);
    bool busy = !idle(e);
    pthread_mutex_unlock(&e->coll_mu);
    if (!busy) return false;
    chk_shadow_park(true); /* busy: a checked one, with a shadow */
    pthread_mutex_lock(&retired_mu);
    e->retired_next = retired;
    retired = e;
    atomic_fetch_add(&nretired, 1);
    pthread_mutex_unlock(&retired_mu);
    return true;
}

static bool checked(const chk_comm_t *e)
{
    return !e->inter && e->shadow != MPI_COMM_NULL && e->size > 1 && !e->abandoned;
}

void chk_coll_comm_free(MPI_Comm comm)
{
    chk_lock();
    chk_comm_t *e = chk_comm_find(comm);
    chk_unlock();
    if (!e) return;
    pthread_mutex_lock(&e->coll_mu);
    /* Every member compares, with or without a log, at its MPI_Comm_free
     * (or, where it never frees the communicator, at MPI_Finalize). */
    if (checked(e)) compare(e, msc_tls.site, MSC_FN_MPI_Comm_free);
    step(e);
    pthread_mutex_unlock(&e->coll_mu);
    chk_coll_progress();
}

void chk_coll_finalize(chk_comm_t **list, int n)
{
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&list[i]->coll_mu);
        if (checked(list[i])) compare(list[i], msc_tls.site, MSC_FN_MPI_Finalize);
        pthread_mutex_unlock(&list[i]->coll_mu);
    }
    /* Every member is here (MPI_Finalize is collective): what is pending
     * completes unless a member never called a collective or never freed
     * a communicator it freed here. Waited for while anything moves. */
    uint64_t last = msc_now_ns();
    for (int spin = 0;; spin++) {
        bool moved = false, busy = false;
        for (int i = 0; i < n; i++) {
            chk_comm_t *e = list[i];
            pthread_mutex_lock(&e->coll_mu);
            moved |= step(e);
            busy |= !idle(e);
            pthread_mutex_unlock(&e->coll_mu);
        }
        int before = atomic_load(&nretired);
        retired_step();
        int after = atomic_load(&nretired);
        moved |= after != before;
        busy |= after > 0;
        if (!busy) return;
        if (moved) last = msc_now_ns();
        else if (msc_now_ns() - last > SETTLE_WAIT_NS) break;
        if (spin > 100) usleep(spin > 1000 ? 1000 : 20);
    }
    int busy = atomic_load(&nretired);
    for (int i = 0; i < n; i++) busy += !idle(list[i]);
    msc_warn("check: the tool's comparisons of collectives on %d communicator%s did not complete "
             "within %d s of MPI_Finalize (a member never called a collective, or never freed a "
             "communicator that others freed); not waited for",
             busy, busy == 1 ? "" : "s", (int)(SETTLE_WAIT_NS / 1000000000ull));
    /* Abandoned: MPI owns the buffers and the shadows of what is pending. */
    for (int i = 0; i < n; i++) list[i]->abandoned |= !idle(list[i]);
    pthread_mutex_lock(&retired_mu);
    retired = NULL;
    atomic_store(&nretired, 0);
    pthread_mutex_unlock(&retired_mu);
}
