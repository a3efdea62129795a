/* One-sided communication (MPI-3.1 chapter 11): epochs, origin buffers and
 * conflicting accesses.
 *
 * Per window this rank keeps its synchronization state as its own calls
 * show it: a fence epoch (a fence without MPI_MODE_NOSUCCEED opens one; the
 * count of RMA calls since the last fence says whether it holds anything),
 * the targets it locked, MPI_Win_lock_all, an access epoch opened by
 * MPI_Win_start and an exposure epoch opened by MPI_Win_post. From that,
 * before the PMPI call:
 *   LOCAL:RMA:NO_EPOCH     an RMA communication call to a target for which no
 *                          access epoch is open (section 11.5);
 *   LOCAL:RMA:OPEN_EPOCH   MPI_Win_free with a lock, lock_all, start or post
 *                          still open, or RMA calls after the last fence
 *                          (section 11.2.5).
 * Origin buffers (LOCAL:RMA:ORIGIN_BUFFER, section 11.3): each pending
 * operation keeps the span of its origin buffer and, for contiguous buffers
 * MPI reads (put, accumulate), a checksum taken at the call. The call that
 * completes it (fence, unlock, flush, complete, or the completion of an
 * R* request) compares the checksum first, and a point-to-point or RMA call
 * that writes a pending operation's origin buffer, or touches a pending
 * get's, is reported where it is made. Layouts with gaps get no checksum.
 *
 * Conflicting accesses (GLOBAL:RMA:ACCUMULATE_CONFLICT, sections 11.7 and
 * 11.2.1's accumulate_ops=same_op_no_op): in a fence epoch each rank logs
 * (target, byte range at the target, operation, basic type) of its calls
 * with contiguous target types. After a fence that ends an epoch (not
 * MPI_MODE_NOPRECEDE, after a fence that opened one), which the standard
 * makes a barrier of the window's group, every rank exchanges its log on
 * the window's own communicator over its group (made at window creation
 * from the communicator's shadow, within the tool's budget of
 * communicators, objects.c: a window without one is not compared; never the
 * application's) and reports the conflicts its own calls are part
 * of: a put with any other access, a get with an accumulate, accumulates
 * with different operations (MPI_NO_OP excepted) or basic types, all from
 * different origins to overlapping bytes. Every rank involved reports at its
 * own call, under one group, so the report shows one finding with both
 * sites. PSCW (section 11.5.2): the accesses of every origin in its access
 * epoch (MPI_Win_start to MPI_Win_complete) fall into the target's exposure
 * epoch (MPI_Win_post to MPI_Win_wait) that matches it -- origin o's k-th
 * access epoch at target t is t's k-th exposure epoch whose group holds o --
 * and all accesses in one exposure epoch are concurrent, those in two are
 * ordered (the wait ends one before the next post). Each rank logs its PSCW
 * accesses with k, and its posts as (origin, k, exposure epoch) records;
 * the logs are exchanged at MPI_Win_free (collective) and judged with the
 * same rules, per exposure epoch. Passive target (lock, lock_all) is not
 * compared: the standard orders two shared-lock epochs of different origins
 * only by what happens between them (a barrier, a message, a flush followed
 * by one), which the window's calls do not show, so "one epoch" has no
 * definition this rank can see (exclusive locks serialize). Target types
 * with gaps are not logged; at most LOG_MAX calls per rank and epoch (fence)
 * or per window (PSCW) are logged.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { LOG_MAX = 1024, OP_PUT = -1, OP_GET = -2, OP_CAS = -3, OP_NOOP = 14 };

typedef struct {
    uintptr_t lo, hi;
    uint64_t sum;       /* checksum of a buffer MPI reads (0: none) */
    bool writes;        /* MPI writes the span (get, result buffers) */
    int target;
    void *site;
    msc_fn_t fn;
    uint64_t seq;       /* the call that made it (R* forms: request attached at leave) */
    MPI_Request req;    /* MPI_REQUEST_NULL: completed by synchronization only */
} pend_t;

typedef struct {        /* one logged access, as exchanged (same layout on every rank) */
    int32_t origin, target, op, fn; /* fn: msc_fn_t (one tool library everywhere) */
    int64_t lo, hi;     /* bytes in the target's window */
    uint64_t unit;      /* basic type (chk_sig unit of one element) */
    uint64_t site;      /* this origin's return address (its own rank resolves it) */
    int32_t mode, pad;  /* MODE_FENCE, MODE_PSCW (an access), MODE_POST (see pscw_*) */
    int64_t ep;         /* PSCW: which of this origin's access epochs at the target */
} ent_t;

enum { MODE_FENCE = 0, MODE_PSCW = 1, MODE_POST = 2 };

typedef struct {
    MPI_Win win;
    int rank, size;
    MPI_Comm side;      /* ours, over the window's group (chk_side_of; MPI_COMM_NULL: none) */
    MPI_Aint *du;       /* every rank's displacement unit */
    int64_t *wsize;     /* every rank's window bytes (-1: dynamic, any address) */
    uint64_t key;       /* the same on every member */
    bool fence_open;
    /* Epochs open, counted so that an erroneous second opening (rma_epochs.c)
     * pairs with its own closing call: 0 closed. */
    unsigned char lock_all, start_open, post_open;
    bool astray;        /* the ranks disagreed on an exchange: no more of them */
    long ops;           /* RMA calls since the last fence */
    unsigned char *locks;
    pend_t *pend;
    int npend, cappend;
    ent_t *log;
    int nlog;
    uint64_t epoch;
    /* PSCW (rma_pscw.c's scheme, see pscw_log): the accesses and posts of
     * this rank, exchanged at MPI_Win_free; per rank of the window, how many
     * access epochs (start) of ours included it, how many exposure epochs
     * (post) of ours included it; the targets of the open access epoch. */
    ent_t *plog;
    int nplog;
    uint32_t *nstart, *npost;
    unsigned char *ingroup;
    int64_t nposts;
} win_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static win_t **wins;
static int nwins, capwins;
static _Atomic int npend_all;      /* pending records of every window: the fast path */
static _Atomic int nreq_pend;      /* of them, with a request */
static uint64_t seq, created;
static CHK_TLS uint64_t call_seq;  /* the R* call in flight on this thread */
static CHK_TLS MPI_Win freeing;    /* the window MPI_Win_free is freeing (read at enter) */

static win_t *find(MPI_Win w)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i]->win == w) return wins[i];
    return NULL;
}

static int64_t op_code(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,  MPI_LOR,
                          MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i]) return (int64_t)i + 1;
    return 1000;
}

static const char *fn_text(int32_t fn)
{
    return fn >= 0 && fn < (int32_t)MSC_FN_COUNT ? msc_fn_name[fn] : "?";
}

static const char *op_text(int op)
{
    static const char *const n[] = {"?", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND",
                                    "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
                                    "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
    if (op == OP_PUT) return "writes";
    if (op == OP_GET) return "reads";
    if (op == OP_CAS) return "compare and swap";
    return op >= 1 && op <= 14 ? n[op] : "a user-defined operation";
}

/* Bytes of a buffer: [lo, hi) of its true extent; contiguous: also its
 * checksum-able length. */
static bool buf_span(const void *buf, MPI_Count count, MPI_Datatype t, uintptr_t *lo,
                     uintptr_t *hi)
{
    if (!buf || buf == MPI_IN_PLACE || buf == MPI_BOTTOM || count <= 0 ||
        t == MPI_DATATYPE_NULL)
        return false;
    const chk_tinfo_t *ti = chk_tinfo(t);
    if (!ti->ok || !ti->contig) return false;
    *lo = (uintptr_t)buf + (uintptr_t)ti->tlb;
    *hi = *lo + (uintptr_t)(ti->size * count);
    return *hi > *lo;
}

static void add_pend(win_t *w, pend_t p)
{
    if (w->npend == w->cappend) {
        int cap = w->cappend ? 2 * w->cappend : 16;
        pend_t *n = realloc(w->pend, sizeof *n * (size_t)cap);
        if (!n) return;
        w->pend = n, w->cappend = cap;
    }
    w->pend[w->npend++] = p;
    atomic_fetch_add_explicit(&npend_all, 1, memory_order_relaxed);
    if (p.seq) atomic_fetch_add_explicit(&nreq_pend, 1, memory_order_relaxed);
}

static void del_pend(win_t *w, int i)
{
    if (w->pend[i].seq) atomic_fetch_sub_explicit(&nreq_pend, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&npend_all, 1, memory_order_relaxed);
    w->pend[i] = w->pend[--w->npend];
}

static void report_modified(const pend_t *p, msc_fn_t by)
{
    chk_report("LOCAL:RMA:ORIGIN_BUFFER", p->fn, p->site,
               "The origin buffer of this %s was changed before the operation completed "
               "(checksums at the call and at %s, which completes it, differ). Until the "
               "operation completes at the origin (the closing MPI_Win_fence, MPI_Win_unlock, "
               "MPI_Win_flush, MPI_Win_complete, or MPI_Wait on the request of the R* forms) "
               "MPI may still read the buffer: the target can get the old data, the new data "
               "or a mix (MPI-3.1 section 11.3). Change the buffer only after that call.",
               msc_fn_name[p->fn], msc_fn_name[by]);
}

/* Pending operations to `target` (-1: all) complete in call `by`: each
 * checksum is compared first. Those with a request complete here too
 * (an unlock or flush completes them as well). */
static void complete(win_t *w, int target, msc_fn_t by)
{
    for (int i = 0; i < w->npend;) {
        pend_t *p = &w->pend[i];
        if (target >= 0 && p->target != target) {
            i++;
            continue;
        }
        if (p->sum && p->hi > p->lo &&
            chk_checksum_span((const void *)p->lo, (int64_t)(p->hi - p->lo)) != p->sum)
            report_modified(p, by);
        del_pend(w, i);
    }
}

/* A buffer this call uses against the pending operations' origin buffers:
 * MPI writes a pending get's (no other use allowed) and reads a pending
 * put's (no writes allowed). */
static void check_use(msc_call_t *c, const void *buf, MPI_Count count, MPI_Datatype t,
                      bool writes)
{
    uintptr_t lo, hi;
    if (!atomic_load_explicit(&npend_all, memory_order_relaxed) ||
        !buf_span(buf, count, t, &lo, &hi))
        return;
    pend_t hit;
    bool found = false;
    pthread_mutex_lock(&mu);
    for (int k = 0; k < nwins && !found; k++) {
        win_t *w = wins[k];
        for (int i = 0; i < w->npend && !found; i++) {
            pend_t *p = &w->pend[i];
            if (p->lo >= hi || lo >= p->hi || !(writes || p->writes)) continue;
            hit = *p;
            found = true;
        }
    }
    pthread_mutex_unlock(&mu);
    if (!found || !chk_fresh("LOCAL:RMA:ORIGIN_BUFFER", c->site)) return;
    chk_report("LOCAL:RMA:ORIGIN_BUFFER", c->fn, c->site,
               "%s %s a buffer that is the %s buffer of a pending %s, which has not completed "
               "yet. Until the closing synchronization (MPI_Win_fence, MPI_Win_unlock, "
               "MPI_Win_flush, MPI_Win_complete, or MPI_Wait for the R* forms) MPI %s that "
               "buffer (MPI-3.1 section 11.3); use it only after that call, or use another "
               "buffer.",
               msc_fn_name[c->fn], writes ? "writes" : "reads",
               hit.writes ? "result" : "origin", msc_fn_name[hit.fn],
               hit.writes ? "writes" : "reads");
}

void chk_rma_p2p_enter(msc_call_t *c)
{
    if (!atomic_load_explicit(&npend_all, memory_order_relaxed)) return;
    switch (c->kind) {
    case MSC_KIND_SEND: case MSC_KIND_ISEND:
        if (c->peer != MPI_PROC_NULL) check_use(c, c->buf, c->count, c->type, false);
        break;
    case MSC_KIND_RECV: case MSC_KIND_IRECV:
        if (c->peer != MPI_PROC_NULL) check_use(c, c->rbuf, c->rcount, c->rtype, true);
        break;
    case MSC_KIND_SENDRECV:
    case MSC_KIND_ISENDRECV:
        if (c->peer != MPI_PROC_NULL) check_use(c, c->buf, c->count, c->type, false);
        if (c->rpeer != MPI_PROC_NULL) check_use(c, c->rbuf, c->rcount, c->rtype, true);
        break;
    default:
        break;
    }
}

static bool in_epoch(const win_t *w, int target)
{
    return w->fence_open || w->lock_all || w->start_open ||
           (target >= 0 && target < w->size && w->locks && w->locks[target]);
}

static ent_t *plog_add(win_t *w)
{
    if (w->nplog >= LOG_MAX) return NULL;
    if (!w->plog && !(w->plog = malloc(sizeof *w->plog * LOG_MAX))) return NULL;
    ent_t *e = &w->plog[w->nplog++];
    memset(e, 0, sizeof *e);
    return e;
}

/* An access in an access epoch opened by MPI_Win_start, to a target of its
 * group: logged with which of our access epochs at that target it is. */
/* One access of this rank as logged for a later comparison: its target
 * bytes [lo, hi) in the target's window, op, function and call site. */
static void fill_entry(ent_t *e, const win_t *w, const msc_call_t *c, int op, MPI_Count tcount,
                       const chk_tinfo_t *ti)
{
    e->origin = w->rank;
    e->target = c->peer;
    e->op = op;
    e->fn = (int32_t)c->fn;
    e->lo = (int64_t)c->tdisp * (int64_t)w->du[c->peer] + (int64_t)ti->tlb;
    e->hi = e->lo + (int64_t)(ti->size * tcount);
    e->unit = ti->sig.unit;
    e->site = (uint64_t)(uintptr_t)c->site;
}

static void log_pscw(win_t *w, msc_call_t *c, int op, MPI_Count tcount, MPI_Datatype tt)
{
    if (!w->du || !w->nstart || !w->ingroup || c->peer < 0 || c->peer >= w->size ||
        !w->ingroup[c->peer] || tcount <= 0 || tt == MPI_DATATYPE_NULL)
        return;
    const chk_tinfo_t *ti = chk_tinfo(tt);
    if (!ti->ok || !ti->contig) return;
    ent_t *e = plog_add(w);
    if (!e) return;
    fill_entry(e, w, c, op, tcount, ti);
    e->mode = MODE_PSCW;
    e->ep = (int64_t)w->nstart[c->peer] - 1;
}

static void log_access(win_t *w, msc_call_t *c, int op, MPI_Count tcount, MPI_Datatype tt)
{
    if (w->start_open && !w->lock_all && !w->fence_open) log_pscw(w, c, op, tcount, tt);
    if (!w->fence_open || w->lock_all || w->start_open || w->nlog >= LOG_MAX || !w->du) return;
    if (c->peer < 0 || c->peer >= w->size || tcount <= 0 || tt == MPI_DATATYPE_NULL) return;
    if (w->locks && w->locks[c->peer]) return;
    const chk_tinfo_t *ti = chk_tinfo(tt);
    if (!ti->ok || !ti->contig) return;
    if (!w->log && !(w->log = malloc(sizeof *w->log * LOG_MAX))) return;
    ent_t *e = &w->log[w->nlog++];
    memset(e, 0, sizeof *e);
    fill_entry(e, w, c, op, tcount, ti);
}

/* The data an RMA call moves is a message from the origin to the target
 * (put, accumulate) or back (get, the result of get_accumulate), with the
 * constraints of point-to-point (MPI-3.1 11.3, 11.3.4): it must fit the
 * buffer it lands in, and the basic types must agree. */
static void check_sig(msc_call_t *c, MPI_Count on, MPI_Datatype ot, MPI_Count tn,
                      MPI_Datatype tt, bool to_target, const char *origin)
{
    if (on < 0 || tn < 0 || ot == MPI_DATATYPE_NULL || tt == MPI_DATATYPE_NULL || CHK_ZERO(ot) ||
        CHK_ZERO(tt))
        return;
    chk_sig_t o = chk_sig(ot, on), t = chk_sig(tt, tn);
    chk_sig_t m = to_target ? o : t, r = to_target ? t : o;
    if (!m.unit || !r.unit || !m.bytes) return;
    bool longer = m.bytes > r.bytes;
    if (!longer && chk_sig_receivable(m, r)) return;
    chk_report("LOCAL:RMA:TYPE_MISMATCH", c->fn, c->site,
               "%s moves %lld bytes (%s: %lld element%s) into %lld bytes (%s: %lld element%s)%s. "
               "An RMA call transfers data as a message from the origin to the target (or "
               "back, for a get) and must meet the same rules (MPI-3.1 sections 11.3, "
               "11.3.4): the data must fit where it lands, and the basic types of the origin "
               "and target datatypes must agree. Make the counts and datatypes of both sides "
               "describe the same data.",
               msc_fn_name[c->fn], (long long)m.bytes, to_target ? origin : "target",
               (long long)(to_target ? on : tn), (to_target ? on : tn) == 1 ? "" : "s",
               (long long)r.bytes, to_target ? "target" : origin,
               (long long)(to_target ? tn : on), (to_target ? tn : on) == 1 ? "" : "s",
               longer ? ", more than that buffer holds" : ", with different basic types");
}

/* The bytes a call reaches at its target -- target_disp x the target's
 * displacement unit, then tcount elements of the target datatype, gaps
 * included -- must lie within the target's window (MPI-3.1 section 11.2.1:
 * the window is [base, base + size); section 11.3 forbids access outside
 * it): LOCAL:BUFFER:OVERFLOW at the origin, before the call. Window sizes
 * come from the exchange at creation; dynamic windows are not judged. */
static void check_target_range(msc_call_t *c, const win_t *w, int target, MPI_Count tcount,
                               MPI_Datatype tt)
{
    if (!w->wsize || !w->du || target < 0 || target >= w->size || w->wsize[target] < 0 ||
        tcount <= 0 || tt == MPI_DATATYPE_NULL)
        return;
    const chk_tinfo_t *ti = chk_tinfo(tt);
    if (!ti->ok) return;
    int64_t size = w->wsize[target];
    int64_t lo = (int64_t)c->tdisp * (int64_t)w->du[target] + (int64_t)ti->tlb;
    int64_t hi = lo + (int64_t)((tcount - 1) * ti->extent + ti->textent);
    if ((lo >= 0 && hi <= size) || hi <= lo) return;
    if (!chk_fresh("LOCAL:BUFFER:OVERFLOW", c->site)) return;
    char where[128];
    if (lo < 0)
        snprintf(where, sizeof where, "starts %lld byte%s before its start", (long long)-lo,
                 lo == -1 ? "" : "s");
    else
        snprintf(where, sizeof where, "ends %lld byte%s past its end", (long long)(hi - size),
                 hi - size == 1 ? "" : "s");
    chk_report("LOCAL:BUFFER:OVERFLOW", c->fn, c->site,
               "The target bytes of this %s, [%lld, %lld) of rank %d's window (target_disp "
               "%lld x disp_unit %lld, then %lld element%s of the target datatype), lie outside "
               "that window of %lld bytes: the range %s. MPI would %s memory of the target that "
               "is not the window's (MPI-3.1 sections 11.2.1 and 11.3: an access must lie within "
               "the target's window). Pass a displacement and count that fit the window.",
               msc_fn_name[c->fn], (long long)lo, (long long)hi, target, (long long)c->tdisp,
               (long long)w->du[target], (long long)tcount, tcount == 1 ? "" : "s",
               (long long)size, where,
               c->kind == MSC_KIND_RMA_GET || c->kind == MSC_KIND_RMA_RGET   ? "read"
               : c->kind == MSC_KIND_RMA_PUT || c->kind == MSC_KIND_RMA_RPUT ? "write"
               : (msc_fn_roles[c->fn] & MSC_ROLE_RBUF)                       ? "read and write"
                                                                             : "write");
}

static void comm_call(msc_call_t *c, win_t *w)
{
    int target = c->peer;
    if (target == MPI_PROC_NULL) return;
    bool atomic1 = c->fn == MSC_FN_MPI_Fetch_and_op || c->fn == MSC_FN_MPI_Compare_and_swap;
    if (!in_epoch(w, target))
        chk_report("LOCAL:RMA:NO_EPOCH", c->fn, c->site,
                   "%s to target %d was called outside an access epoch on this window: no "
                   "MPI_Win_fence opened one (or the last fence had MPI_MODE_NOSUCCEED), "
                   "target %d is not locked (MPI_Win_lock, MPI_Win_lock_all) and no "
                   "MPI_Win_start is open. RMA communication calls must lie within an access "
                   "epoch (MPI-3.1 section 11.5); open one before the call, close it after.",
                   msc_fn_name[c->fn], target, target);
    /* Counted for the fence epoch only when no lock or start epoch holds the
     * call (a lock epoch closes itself). */
    if (!w->lock_all && !w->start_open && !(w->locks && target >= 0 && target < w->size &&
                                            w->locks[target]))
        w->ops++;
    bool get = c->kind == MSC_KIND_RMA_GET || c->kind == MSC_KIND_RMA_RGET;
    bool reads = !get;
    bool noop = !get && c->kind != MSC_KIND_RMA_PUT && c->kind != MSC_KIND_RMA_RPUT &&
                c->fn != MSC_FN_MPI_Compare_and_swap && c->op == MPI_NO_OP;
    MPI_Count count = atomic1 ? 1 : c->count;
    MPI_Count rcount = atomic1 ? 1 : c->rcount;
    if (atomic1)
        check_target_range(c, w, target, 1, c->type);
    else if (msc_fn_roles[c->fn] & MSC_ROLE_TTYPE)
        check_target_range(c, w, target, (msc_fn_roles[c->fn] & MSC_ROLE_TCOUNT) ? c->tcount : 1,
                           c->ttype);
    if (!atomic1 && (msc_fn_roles[c->fn] & MSC_ROLE_TTYPE)) {
        if (get)
            check_sig(c, c->rcount, c->rtype, c->tcount, c->ttype, false, "origin");
        else if (!noop)
            check_sig(c, c->count, c->type, c->tcount, c->ttype, true, "origin");
        if (!get && (msc_fn_roles[c->fn] & MSC_ROLE_RBUF))
            check_sig(c, c->rcount, c->rtype, c->tcount, c->ttype, false, "result");
    }
    bool result = get || ((msc_fn_roles[c->fn] & MSC_ROLE_RBUF) != 0);
    bool req = c->kind == MSC_KIND_RMA_RPUT || c->kind == MSC_KIND_RMA_RGET ||
               c->kind == MSC_KIND_RMA_RACC;
    call_seq = req ? ++seq : 0;
    pthread_mutex_unlock(&mu);
    /* This call's own buffers against the pending ones (no lock held:
     * check_use takes it). */
    if (reads && !noop) check_use(c, c->buf, count, c->type, false);
    if (result) check_use(c, c->rbuf, rcount, c->rtype, true);
    /* The origin's own buffers against their objects (OVERFLOW, TYPE_MISMATCH). */
    if (reads && !noop) chk_buffer_object(c, c->buf, count, c->type, false, "origin ");
    if (result) chk_buffer_object(c, c->rbuf, rcount, c->rtype, true, get ? "origin " : "result ");
    pthread_mutex_lock(&mu);
    if (!(w = find(c->win))) return;
    pend_t p = {0};
    p.target = target, p.site = c->site, p.fn = c->fn, p.seq = call_seq;
    p.req = MPI_REQUEST_NULL;
    if (reads && !noop && buf_span(c->buf, count, c->type, &p.lo, &p.hi)) {
        p.sum = chk_checksum_span((const void *)p.lo, (int64_t)(p.hi - p.lo));
        add_pend(w, p);
    }
    if (result && buf_span(c->rbuf, rcount, c->rtype, &p.lo, &p.hi)) {
        p.sum = 0, p.writes = true;
        add_pend(w, p);
    }
    int op = c->kind == MSC_KIND_RMA_PUT || c->kind == MSC_KIND_RMA_RPUT ? OP_PUT
             : get                                                       ? OP_GET
             : c->fn == MSC_FN_MPI_Compare_and_swap                      ? OP_CAS
                                                                         : (int)op_code(c->op);
    MPI_Count tcount = (msc_fn_roles[c->fn] & MSC_ROLE_TCOUNT) ? c->tcount : 1;
    if (msc_fn_roles[c->fn] & MSC_ROLE_TTYPE) log_access(w, c, op, tcount, c->ttype);
}

/* rma_epochs.c's view of the window's epochs. */
static void epochs(const msc_call_t *c, const win_t *w)
{
    chk_epochs_t e = {.rank = w->rank, .size = w->size, .lock_all = w->lock_all,
                      .start_open = w->start_open, .post_open = w->post_open,
                      .locks = w->locks, .ingroup = w->ingroup};
    chk_rma_epochs(c, &e);
}

static void open_check(msc_call_t *c, win_t *w)
{
    const char *what = NULL;
    char buf[64];
    if (w->lock_all)
        what = "MPI_Win_lock_all without MPI_Win_unlock_all";
    else if (w->start_open)
        what = "MPI_Win_start without MPI_Win_complete";
    else if (w->post_open)
        what = "MPI_Win_post without MPI_Win_wait";
    else if (w->fence_open && w->ops)
        what = "RMA calls after the last MPI_Win_fence, with no closing fence";
    for (int t = 0; !what && w->locks && t < w->size; t++)
        if (w->locks[t]) {
            snprintf(buf, sizeof buf, "MPI_Win_lock of target %d without MPI_Win_unlock", t);
            what = buf;
        }
    if (what)
        chk_report("LOCAL:RMA:OPEN_EPOCH", c->fn, c->site,
                   "MPI_Win_free was called while an epoch on the window is still open (%s). A "
                   "process may free a window only after it has completed its involvement in "
                   "RMA on it (MPI-3.1 section 11.2.5): close every epoch first (the closing "
                   "fence, MPI_Win_unlock(_all), MPI_Win_complete, MPI_Win_wait).",
                   what);
}

static void win_new(msc_call_t *c)
{
    MPI_Win win;
    memcpy(&win, c->obj, sizeof win);
    if (win == MPI_WIN_NULL) return;
    win_t *w = calloc(1, sizeof *w);
    if (!w) return;
    w->win = win;
    w->side = MPI_COMM_NULL;
    MPI_Group g;
    if (PMPI_Win_get_group(win, &g) == MPI_SUCCESS) {
        PMPI_Group_size(g, &w->size);
        PMPI_Group_rank(g, &w->rank);
        PMPI_Group_free(&g);
    }
    /* Collective like the creation itself: our duplicate of the window's
     * communicator, and every rank's displacement unit and counter. */
    struct {
        int64_t du;
        uint64_t ctr;
        int64_t size;
    } mine = {1, 0, -1}, *all = NULL;
    int *du = NULL, *flavor = NULL, flag = 0;
    MPI_Aint *bytes = NULL;
    if (PMPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag && du)
        mine.du = *du;
    if (PMPI_Win_get_attr(win, MPI_WIN_SIZE, &bytes, &flag) == MPI_SUCCESS && flag && bytes)
        mine.size = (int64_t)*bytes;
    /* A dynamic window's targets are addresses in whatever is attached. */
    if (PMPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) == MPI_SUCCESS && flag &&
        flavor && *flavor == MPI_WIN_FLAVOR_DYNAMIC)
        mine.size = -1;
    pthread_mutex_lock(&mu);
    mine.ctr = ++created;
    pthread_mutex_unlock(&mu);
    if (w->size > 0 && c->comm != MPI_COMM_NULL &&
        (w->side = chk_side_of(c->comm)) != MPI_COMM_NULL &&
        (all = malloc(sizeof *all * (size_t)w->size)) &&
        (w->du = malloc(sizeof *w->du * (size_t)w->size)) &&
        (w->wsize = malloc(sizeof *w->wsize * (size_t)w->size)) &&
        PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                       w->side) == MPI_SUCCESS) {
        for (int i = 0; i < w->size; i++) w->du[i] = (MPI_Aint)all[i].du, w->wsize[i] = all[i].size;
        w->key = all[0].ctr * 0x9e3779b97f4a7c15ull ^ (uint64_t)chk_world_rank(c->comm, 0);
    } else {
        free(w->du), free(w->wsize);
        w->du = NULL, w->wsize = NULL;
    }
    free(all);
    w->locks = calloc((size_t)(w->size > 0 ? w->size : 1), 1);
    pthread_mutex_lock(&mu);
    if (nwins == capwins) {
        int cap = capwins ? 2 * capwins : 8;
        win_t **n = realloc(wins, sizeof *n * (size_t)cap);
        if (n) wins = n, capwins = cap;
    }
    if (nwins < capwins)
        wins[nwins++] = w, w = NULL;
    pthread_mutex_unlock(&mu);
    if (w) {
        chk_shadow_free(&w->side);
        free(w->du), free(w->wsize), free(w->locks), free(w);
    }
}

static void win_drop(MPI_Win win)
{
    win_t *w = NULL;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nwins; i++)
        if (wins[i]->win == win) {
            w = wins[i];
            while (w->npend) del_pend(w, 0);
            wins[i] = wins[--nwins];
            break;
        }
    pthread_mutex_unlock(&mu);
    if (!w) return;
    chk_shadow_free(&w->side);
    free(w->du), free(w->locks), free(w->pend), free(w->log), free(w->plog), free(w->nstart),
        free(w->npost), free(w->ingroup), free(w);
}

static bool conflict(const ent_t *a, const ent_t *b, const char **why)
{
    if (a->origin == b->origin || a->target != b->target || a->lo >= b->hi || b->lo >= a->hi ||
        a->mode != b->mode || a->mode == MODE_POST || a->ep != b->ep)
        return false;
    if (a->op == OP_GET && b->op == OP_GET) return false;
    if (a->op == OP_PUT || b->op == OP_PUT) {
        *why = "a put and another access to the same location in one epoch are erroneous "
               "(MPI-3.1 section 11.7)";
        return true;
    }
    if (a->op == OP_GET || b->op == OP_GET) {
        *why = "a get concurrent with an accumulate to the same location is erroneous; "
               "only accumulates may update a location concurrently (MPI-3.1 section 11.7)";
        return true;
    }
    if (a->unit != b->unit) {
        *why = "concurrent accumulates to one location must use the same predefined "
               "datatype (MPI-3.1 section 11.7.1)";
        return true;
    }
    if (a->op == OP_NOOP || b->op == OP_NOOP || a->op == b->op) return false;
    *why = "with the default info key accumulate_ops=same_op_no_op, concurrent accumulates "
           "to one location must use the same operation or MPI_NO_OP (MPI-3.1 section 11.2.1)";
    return true;
}

/* After a fence that ends an epoch (epoch: the fence's number, the same
 * on every rank) or at MPI_Win_free (UINT64_MAX): the logs of every rank,
 * and the conflicts this rank's calls are part of. Every rank says first
 * which exchange it is in: ranks that disagree on where an epoch ends (a
 * fence assertion given by some ranks only, which the standard forbids,
 * MPI-3.1 11.5.5) would otherwise pair one rank's fence exchange with
 * another's next one and wait for each other for ever. On a disagreement
 * no rank goes on (all saw the same headers) and false is returned: the
 * window's logs are no longer exchanged. */
static bool exchange(MPI_Comm side, int size, int rank, uint64_t key,
                     uint64_t epoch, ent_t *mine, int n)
{
    int *counts = malloc(sizeof *counts * (size_t)size);
    int *displs = malloc(sizeof *displs * (size_t)size);
    int64_t *hdr = malloc(sizeof *hdr * 2 * (size_t)size);
    ent_t *all = NULL;
    bool in_step = true;
    if (!counts || !displs || !hdr) goto out;
    int nb = n * (int)sizeof(ent_t);
    int64_t me[2] = {(int64_t)epoch, nb};
    if (PMPI_Allgather(me, 2, MPI_INT64_T, hdr, 2, MPI_INT64_T, side) != MPI_SUCCESS) goto out;
    for (int i = 0; i < size; i++) {
        in_step &= hdr[2 * i] == (int64_t)epoch;
        counts[i] = (int)hdr[2 * i + 1];
    }
    if (!in_step) goto out;
    long long total = 0;
    for (int i = 0; i < size; i++) displs[i] = (int)total, total += counts[i];
    if (total == 0) goto out;
    if (!(all = malloc((size_t)total))) {
        /* Every rank must take part: a zero-byte receive of our own. */
        goto out;
    }
    if (PMPI_Allgatherv(mine, nb, MPI_BYTE, all, counts, displs, MPI_BYTE, side) != MPI_SUCCESS)
        goto out;
    int m = (int)(total / (long long)sizeof(ent_t));
    /* PSCW: origin o's k-th access epoch at target t is t's k-th exposure
     * epoch that includes o (MPI-3.1 11.5.2: they match in order); ep
     * becomes the target's exposure epoch, -1 - i when unknown (no verdict). */
    for (int i = 0; i < m; i++) {
        if (all[i].mode != MODE_PSCW) continue;
        int64_t e = -1 - (int64_t)i;
        for (int j = 0; j < m; j++)
            if (all[j].mode == MODE_POST && all[j].origin == all[i].origin &&
                all[j].target == all[i].target && all[j].ep == all[i].ep) {
                e = all[j].lo;
                break;
            }
        all[i].ep = e;
    }
    for (int i = 0; i < m; i++) {
        if (all[i].origin != rank || all[i].mode == MODE_POST) continue;
        for (int j = 0; j < m; j++) {
            const char *why = NULL;
            if (!conflict(&all[i], &all[j], &why)) continue;
            const ent_t *a = &all[i], *b = &all[j];
            int64_t lo = a->lo > b->lo ? a->lo : b->lo;
            /* The same text on both origins: the lower rank's call first. */
            const ent_t *lo_a = a->origin < b->origin ? a : b, *lo_b = lo_a == a ? b : a;
            chk_finding_t f;
            memset(&f, 0, sizeof f);
            snprintf(f.cls, sizeof f.cls, "GLOBAL:RMA:ACCUMULATE_CONFLICT");
            snprintf(f.group, sizeof f.group, "rma:%llx:%llu:%d:%lld:%lld", (unsigned long long)key,
                     (unsigned long long)epoch, a->target, (long long)lo,
                     (long long)(a->mode == MODE_PSCW ? a->ep : 0));
            snprintf(f.text, sizeof f.text,
                     "Conflicting one-sided accesses in one %s: %s (%s) from rank %d "
                     "and %s (%s) from rank %d of the window both reach byte %lld of the window "
                     "at its rank %d: %s. Separate them by a synchronization (fence, or separate "
                     "post/wait exposure epochs), use the same operation and "
                     "datatype, or make them touch different locations.",
                     a->mode == MODE_PSCW ? "exposure epoch (MPI_Win_post to MPI_Win_wait)"
                                          : "fence epoch",
                     fn_text(lo_a->fn), op_text(lo_a->op), lo_a->origin, fn_text(lo_b->fn),
                     op_text(lo_b->op), lo_b->origin, (long long)lo, a->target, why);
            f.nparts = 1;
            f.parts[0].rank = msc_g.world_rank;
            f.parts[0].site = (void *)(uintptr_t)a->site;
            snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", fn_text(a->fn));
            if (chk_class_enabled(f.cls)) chk_report_full(&f);
            break; /* one finding per call of ours */
        }
    }
out:
    free(all);
    free(counts);
    free(displs);
    free(hdr);
    return in_step;
}

/* MPI_Win_start (access) or MPI_Win_post (exposure) with `group`: the
 * ranks of the window it names. Start: they are the targets of the open
 * access epoch, and this is our nstart[t]-th access epoch at each. Post:
 * one MODE_POST record per origin o, saying that our npost[o]-th exposure
 * epoch including o is our nposts-th exposure epoch (lo). */
static void pscw_group(win_t *w, MPI_Group group, bool start)
{
    if (group == MPI_GROUP_NULL || w->size <= 0) return;
    if (!w->nstart) w->nstart = calloc((size_t)w->size, sizeof *w->nstart);
    if (!w->npost) w->npost = calloc((size_t)w->size, sizeof *w->npost);
    if (!w->ingroup) w->ingroup = calloc((size_t)w->size, 1);
    if (!w->nstart || !w->npost || !w->ingroup) return;
    int n = 0;
    MPI_Group wg;
    if (PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0 ||
        PMPI_Win_get_group(w->win, &wg) != MPI_SUCCESS)
        return;
    int *in = malloc(sizeof *in * (size_t)n), *out = malloc(sizeof *out * (size_t)n);
    if (in && out) {
        for (int i = 0; i < n; i++) in[i] = i;
        if (PMPI_Group_translate_ranks(group, n, in, wg, out) == MPI_SUCCESS) {
            if (start) memset(w->ingroup, 0, (size_t)w->size);
            int64_t e = start ? 0 : w->nposts++;
            for (int i = 0; i < n; i++) {
                int r = out[i];
                if (r < 0 || r >= w->size) continue;
                if (start) {
                    w->ingroup[r] = 1;
                    w->nstart[r]++;
                } else {
                    ent_t *p = plog_add(w);
                    if (!p) continue;
                    p->mode = MODE_POST;
                    p->origin = r;
                    p->target = w->rank;
                    p->ep = w->npost[r]++;
                    p->lo = e;
                }
            }
        }
    }
    free(in), free(out);
    PMPI_Group_free(&wg);
}

/* The memory the application gives MPI_Win_create or MPI_Win_attach (base,
 * size bytes): every byte of it is the window's, which other processes may
 * read and write (MPI-3.1 sections 11.2.1, 11.2.4), so it must lie in one
 * object: LOCAL:BUFFER:OVERFLOW past its end, LOCAL:BUFFER:FREED in a freed
 * block, LOCAL:ARG:NULL_POINTER at NULL. Judged before the call: MPI
 * allocates while it makes a window, and may be handed the very block the
 * application freed. C bindings only (their arguments, role args).
 * (MPI_Win_allocate's memory is MPI's own.) */
static int fn_create = -1, fn_create_c = -1, fn_attach = -1;
static pthread_once_t memory_fns_once = PTHREAD_ONCE_INIT;

static void memory_fns(void)
{
    fn_create = msc_fn_lookup("MPI_Win_create");
    fn_create_c = msc_fn_lookup("MPI_Win_create_c");
    fn_attach = msc_fn_lookup("MPI_Win_attach");
}

void chk_rma_memory_enter(msc_call_t *c)
{
    pthread_once(&memory_fns_once, memory_fns);
    int at;
    if ((int)c->fn == fn_create || (int)c->fn == fn_create_c)
        at = 0;
    else if ((int)c->fn == fn_attach)
        at = 1;
    else
        return;
    if (c->nargs < at + 2) return;
    uintptr_t base = (uintptr_t)c->arg[at];
    int64_t size = (int64_t)c->arg[at + 1];
    if (size <= 0) return;
    if (!base) {
        chk_report("LOCAL:ARG:NULL_POINTER", c->fn, c->site,
                   "%s was called with NULL as the window's base while its size is %lld bytes: "
                   "the window's memory must be the process's own, which no object at address "
                   "0 is. Pass the address of the memory to expose, or size 0.",
                   msc_fn_name[c->fn], (long long)size);
        return;
    }
    chk_span_object(c, base, base + (uintptr_t)size, true, "window ");
}

void chk_rma_enter(msc_call_t *c)
{
    switch (c->kind) {
    case MSC_KIND_RMA_PUT: case MSC_KIND_RMA_GET: case MSC_KIND_RMA_ACC:
    case MSC_KIND_RMA_RPUT: case MSC_KIND_RMA_RGET: case MSC_KIND_RMA_RACC:
    case MSC_KIND_RMA_FENCE: case MSC_KIND_RMA_LOCK: case MSC_KIND_RMA_UNLOCK:
    case MSC_KIND_RMA_SYNC: case MSC_KIND_RMA_PSCW:
        break;
    case MSC_KIND_HANDLE_FREE:
        if (c->obj_class != MSC_OBJ_WIN || !c->obj) return;
        break;
    default:
        return;
    }
    MPI_Win win = c->win;
    if (c->kind == MSC_KIND_HANDLE_FREE) {
        memcpy(&win, c->obj, sizeof win);
        freeing = win;
    }
    pthread_mutex_lock(&mu);
    win_t *w = find(win);
    if (!w) {
        pthread_mutex_unlock(&mu);
        return;
    }
    bool all = false, pex = false;
    ent_t *pmine = NULL;
    int pn = 0, psize = 0, prank = 0;
    MPI_Comm pside = MPI_COMM_NULL;
    uint64_t pkey = 0;
    switch (c->kind) {
    case MSC_KIND_HANDLE_FREE:
        open_check(c, w);
        /* MPI_Win_free is collective: the PSCW logs are compared now. */
        if (w->side != MPI_COMM_NULL && w->du && !w->astray) {
            pn = w->nplog;
            pmine = pn ? malloc(sizeof *pmine * (size_t)pn) : NULL;
            if (pmine) memcpy(pmine, w->plog, sizeof *pmine * (size_t)pn);
            else pn = 0;
            pside = w->side, psize = w->size, prank = w->rank, pkey = w->key;
            pex = true;
        }
        break;
    case MSC_KIND_RMA_FENCE:
        if ((c->tag & MPI_MODE_NOPRECEDE) && w->fence_open && w->ops)
            chk_report("LOCAL:RMA:FENCE_ASSERT", c->fn, c->site,
                       "MPI_Win_fence was called with MPI_MODE_NOPRECEDE, but this process made "
                       "%ld RMA call%s on the window since its last fence, which this fence "
                       "completes. The assertion says the fence completes no locally issued RMA "
                       "calls (MPI-3.1 section 11.5.5), and it must be given by every process "
                       "of the window's group or by none; with it the MPI may skip the "
                       "synchronization those calls need. Drop MPI_MODE_NOPRECEDE here.",
                       w->ops, w->ops == 1 ? "" : "s");
        complete(w, -1, c->fn);
        break;
    case MSC_KIND_RMA_LOCK:
        epochs(c, w);
        if (c->fn == MSC_FN_MPI_Win_lock_all)
            w->lock_all += w->lock_all < UCHAR_MAX;
        else if (c->peer >= 0 && c->peer < w->size && w->locks)
            w->locks[c->peer] += w->locks[c->peer] < UCHAR_MAX;
        break;
    case MSC_KIND_RMA_UNLOCK:
        epochs(c, w);
        all = c->fn == MSC_FN_MPI_Win_unlock_all;
        complete(w, all ? -1 : c->peer, c->fn);
        if (all)
            w->lock_all -= w->lock_all > 0;
        else if (c->peer >= 0 && c->peer < w->size && w->locks)
            w->locks[c->peer] -= w->locks[c->peer] > 0;
        break;
    case MSC_KIND_RMA_SYNC:
        epochs(c, w);
        if (c->fn == MSC_FN_MPI_Win_flush || c->fn == MSC_FN_MPI_Win_flush_local)
            complete(w, c->peer, c->fn);
        else if (c->fn != MSC_FN_MPI_Win_sync)
            complete(w, -1, c->fn);
        break;
    case MSC_KIND_RMA_PSCW:
        if (c->fn == MSC_FN_MPI_Win_start) {
            /* Judged against the new start's group (pscw_group makes it the
             * open start's targets) and the epochs open before it. */
            pscw_group(w, c->group, true);
            epochs(c, w);
            w->start_open += w->start_open < UCHAR_MAX;
        } else {
            epochs(c, w);
        }
        if (c->fn == MSC_FN_MPI_Win_post) {
            w->post_open += w->post_open < UCHAR_MAX;
            pscw_group(w, c->group, false);
        }
        if (c->fn == MSC_FN_MPI_Win_wait) w->post_open -= w->post_open > 0;
        if (c->fn == MSC_FN_MPI_Win_complete) {
            complete(w, -1, c->fn);
            w->start_open -= w->start_open > 0;
        }
        break;
    default:
        comm_call(c, w);
        break;
    }
    pthread_mutex_unlock(&mu);
    if (pex) exchange(pside, psize, prank, pkey, UINT64_MAX, pmine, pn);
    free(pmine);
}

void chk_rma_leave(msc_call_t *c)
{
    if (c->kind == MSC_KIND_HANDLE_NEW && c->obj_class == MSC_OBJ_WIN && c->obj &&
        c->rc == MPI_SUCCESS) {
        win_new(c);
        return;
    }
    if (c->kind == MSC_KIND_HANDLE_FREE && c->obj_class == MSC_OBJ_WIN && c->obj) {
        /* c->obj is MPI_WIN_NULL now; the handle was read at enter. */
        if (c->rc == MPI_SUCCESS) win_drop(freeing);
        return;
    }
    if (c->fn == MSC_FN_MPI_Win_test && c->rc == MPI_SUCCESS && c->flag && *c->flag) {
        pthread_mutex_lock(&mu);
        win_t *w = find(c->win);
        if (w) w->post_open -= w->post_open > 0;
        pthread_mutex_unlock(&mu);
        return;
    }
    if ((c->kind == MSC_KIND_RMA_RPUT || c->kind == MSC_KIND_RMA_RGET ||
         c->kind == MSC_KIND_RMA_RACC) && call_seq) {
        pthread_mutex_lock(&mu);
        win_t *w = find(c->win);
        for (int i = 0; w && i < w->npend;) {
            pend_t *p = &w->pend[i];
            if (p->seq != call_seq) {
                i++;
                continue;
            }
            if (c->rc == MPI_SUCCESS && c->request && *c->request != MPI_REQUEST_NULL) {
                p->req = *c->request;
                i++;
            } else {
                del_pend(w, i);
            }
        }
        pthread_mutex_unlock(&mu);
        call_seq = 0;
        return;
    }
    if (c->kind != MSC_KIND_RMA_FENCE) return;
    /* The fence's new state, and the exchange if it ended an epoch. */
    pthread_mutex_lock(&mu);
    win_t *w = find(c->win);
    if (!w) {
        pthread_mutex_unlock(&mu);
        return;
    }
    bool ended = w->fence_open && !(c->tag & MPI_MODE_NOPRECEDE) && w->side != MPI_COMM_NULL &&
                 w->du && !w->astray;
    int n = ended ? w->nlog : 0;
    ent_t *mine = n ? malloc(sizeof *mine * (size_t)n) : NULL;
    if (mine) memcpy(mine, w->log, sizeof *mine * (size_t)n);
    else n = 0;
    MPI_Comm side = w->side;
    int size = w->size, rank = w->rank;
    uint64_t key = w->key, epoch = ++w->epoch;
    w->nlog = 0;
    w->ops = 0;
    w->fence_open = !(c->tag & MPI_MODE_NOSUCCEED);
    pthread_mutex_unlock(&mu);
    if (ended && !exchange(side, size, rank, key, epoch, mine, n)) {
        pthread_mutex_lock(&mu);
        if ((w = find(c->win))) w->astray = true;
        pthread_mutex_unlock(&mu);
    }
    free(mine);
}

/* Completion calls: the checksums of pending R* operations whose request
 * this call names are compared first (enter); the operations whose request
 * it deallocated are done (leave). */
static void req_each(msc_call_t *c, bool enter)
{
    if (!atomic_load_explicit(&nreq_pend, memory_order_relaxed)) return;
    bool one = c->kind == MSC_KIND_WAIT || c->kind == MSC_KIND_TEST;
    int n = one ? 1 : c->reqs_in ? c->nreq : 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n; i++) {
        MPI_Request r = one ? c->req_in : c->reqs_in[i];
        if (r == MPI_REQUEST_NULL) continue;
        if (!enter) {
            MPI_Request after = one ? (c->request ? *c->request : r) : c->requests[i];
            if (after != MPI_REQUEST_NULL) continue;
        }
        for (int k = 0; k < nwins; k++) {
            win_t *w = wins[k];
            for (int j = 0; j < w->npend;) {
                pend_t *p = &w->pend[j];
                if (!p->seq || p->req != r) {
                    j++;
                    continue;
                }
                if (enter) {
                    if (p->sum && p->hi > p->lo &&
                        chk_checksum_span((const void *)p->lo, (int64_t)(p->hi - p->lo)) != p->sum) {
                        report_modified(p, c->fn);
                        p->sum = 0;
                    }
                    j++;
                } else {
                    del_pend(w, j);
                }
            }
        }
    }
    pthread_mutex_unlock(&mu);
}

void chk_rma_req_enter(msc_call_t *c)
{
    switch (c->kind) {
    case MSC_KIND_WAIT: case MSC_KIND_TEST: case MSC_KIND_WAITANY: case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL: case MSC_KIND_TESTALL: case MSC_KIND_WAITSOME: case MSC_KIND_TESTSOME:
        req_each(c, true);
        break;
    default:
        break;
    }
}

void chk_rma_req_leave(msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS && c->rc != MPI_ERR_IN_STATUS) return;
    switch (c->kind) {
    case MSC_KIND_WAIT: case MSC_KIND_TEST: case MSC_KIND_WAITANY: case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL: case MSC_KIND_TESTALL: case MSC_KIND_WAITSOME: case MSC_KIND_TESTSOME:
        req_each(c, false);
        break;
    default:
        break;
    }
}

