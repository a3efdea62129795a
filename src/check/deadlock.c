/* Deadlock detection: a watchdog thread per rank, and files.
 *
 * The application's MPI_Init may give MPI_THREAD_SINGLE, so the watchdog
 * thread never calls MPI: every rank's state goes through files in
 * <output>/.check/, the directory that holds the results anyway (it must be
 * shared by the ranks, as it is for every other output). When the thread
 * sees its rank blocked in one MPI call for longer than
 * MPISCOPE_CHECK_TIMEOUT, it writes wait.<rank>: the call, its site
 * (resolved here) and what the call waits for, as world ranks with AND
 * (all of them: a send, MPI_Waitall, a collective) or OR (any: an
 * MPI_ANY_SOURCE receive, MPI_Waitany/some, MPI_Sendrecv) semantics, and
 * appends the counts of its findings so far to its per-rank findings file
 * (findings.c). It removes wait.<rank> as soon as the call returns.
 *
 * A blocked rank's thread then reads every rank's file and reduces the
 * wait-for graph: ranks without a file are live; a blocked rank is released
 * if all (AND) or any (OR) of the ranks it waits for are live or released.
 * A member of a collective counts as live for a rank that waits in the same
 * function on a communicator with the same members (its `group`): members
 * of one collective instance waiting for each other are progress. The
 * ranks never released are deadlocked. The verdict must hold twice, one
 * second apart, with every deadlocked rank still in the same call: a file
 * left by a call that has just returned is gone by then. The first thread to
 * create verdict.lock writes the report (a wait cycle among the deadlocked
 * ranks, with each rank's call and site, recorded as this rank's finding,
 * and the findings of every rank, read from their per-rank files) as
 * checks.txt and checks.json, then ends the job
 * with PMPI_Abort(MPI_COMM_WORLD, 3) (MPISCOPE_CHECK_DEADLOCK_EXIT, on by
 * default). One rank ends the job, so that the launcher reports exit code 3
 * whatever the order in which it reaps the ranks: when every rank left by
 * itself, MPICH's launcher once reported a rank it had killed (code 9).
 * Calling PMPI_Abort from this thread is safe at any thread level on both
 * MPIs: it touches no communication state the blocked thread holds. A
 * watchdog that sees the verdict and is still alive 5 s later leaves with
 * _exit(3), in case the abort did not reach it.
 *
 * Limits: the timeout is a heuristic (a transfer that legitimately takes
 * longer looks like a deadlock); one blocked thread per rank is described
 * (the one blocked longest); two communicators with the same members are
 * one group, so ranks crossing in the same collective on two duplicates
 * are not reported.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "log.h"
#include "output.h"

enum { WD_REQS = 64, FN_FINALIZE = -2, WD_HINTS = 16 };

/* One thread's state: written by that thread only, without a lock (every
 * MPI call passes here twice), read by the watchdog as a sequence lock: an
 * odd seq means a write is under way; the copy is good if seq was even and
 * the same before and after. Fields are accessed as relaxed atomics. */
typedef struct {
    _Atomic uint64_t seq;
    int in, syncwait;
    int mism;               /* the collective it is in was found mismatched */
    int fn;                 /* msc_fn_t, or FN_FINALIZE */
    int kind;               /* msc_kind_t */
    MPI_Comm comm;
    int peer, rpeer, tag;
    void *site;
    int nreq;
    MPI_Request reqs[WD_REQS];
    /* The owner's own: it polls (Test*, MPI_Iprobe finding nothing) with
     * this function since the state was published. */
    int polling, poll_fn;
    /* The watchdog's own: since when it has seen this seq. */
    uint64_t seen_seq, seen_ns;
} tstate_t;

#define PUT(f, v) __atomic_store_n(&s->f, (v), __ATOMIC_RELAXED)
#define GET(f) __atomic_load_n(&s->f, __ATOMIC_RELAXED)

static CHK_TLS tstate_t *my_state;
static pthread_t wd_thread;
static _Atomic int wd_stop, wd_running;
/* The watchdog's naps end early when it is told to stop: MPI_Finalize
 * joins it, and a fixed sleep there cost every run up to 200 ms. */
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv;
static char dir[PATH_MAX + 16];

static tstate_t *state_of(msc_thread_t *t)
{
    if (!t) return NULL;
    tstate_t *s = t->module_data[chk_cfg.slot];
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        /* Published to the watchdog (pick), which reads it from its thread. */
        __atomic_store_n(&t->module_data[chk_cfg.slot], s, __ATOMIC_RELEASE);
    }
    return s;
}

/* ThreadSanitizer does not model fences (GCC refuses them with
 * -fsanitize=thread): there the two fences become sequentially consistent
 * accesses of seq, which give the same ordering at a higher price. */
#if defined(__SANITIZE_THREAD__)
#define SEQ_FENCE_RELEASE(s) ((void)atomic_fetch_add_explicit(&(s)->seq, 0, memory_order_seq_cst))
#define SEQ_FENCE_ACQUIRE(s) ((void)atomic_load_explicit(&(s)->seq, memory_order_seq_cst))
#else
#define SEQ_FENCE_RELEASE(s) atomic_thread_fence(memory_order_release)
#define SEQ_FENCE_ACQUIRE(s) atomic_thread_fence(memory_order_acquire)
#endif

static uint64_t write_begin(tstate_t *s)
{
    uint64_t q = atomic_load_explicit(&s->seq, memory_order_relaxed) + 1;
    atomic_store_explicit(&s->seq, q, memory_order_relaxed);
    SEQ_FENCE_RELEASE(s);
    return q;
}

static void write_end(tstate_t *s, uint64_t q)
{
    atomic_store_explicit(&s->seq, q + 1, memory_order_release);
}

void chk_wd_enter(msc_call_t *c)
{
    tstate_t *s = my_state ? my_state : (my_state = state_of(c->thread));
    if (!s) return;
    s->polling = 0;
    unsigned long long roles = msc_fn_roles[c->fn];
    uint64_t q = write_begin(s);
    PUT(in, 1);
    PUT(syncwait, 0);
    PUT(mism, 0);
    PUT(fn, (int)c->fn);
    PUT(kind, (int)c->kind);
    PUT(site, c->site);
    PUT(comm, roles & MSC_ROLE_COMM ? c->comm : MPI_COMM_NULL);
    PUT(peer, roles & MSC_ROLE_PEER ? c->peer : MPI_PROC_NULL);
    PUT(rpeer, roles & MSC_ROLE_RPEER ? c->rpeer : MPI_PROC_NULL);
    PUT(tag, roles & MSC_ROLE_TAG ? c->tag : MPI_ANY_TAG);
    int n = 0;
    if (c->kind == MSC_KIND_WAIT || c->kind == MSC_KIND_TEST) {
        PUT(reqs[0], c->req_in);
        n = 1;
    } else if ((roles & MSC_ROLE_REQS) && c->reqs_in) {
        n = c->nreq < WD_REQS ? c->nreq : WD_REQS;
        for (int i = 0; i < n; i++) PUT(reqs[i], c->reqs_in[i]);
    }
    PUT(nreq, n);
    write_end(s, q);
}

void chk_wd_leave(void)
{
    tstate_t *s = my_state;
    if (!s) return;
    uint64_t q = write_begin(s);
    PUT(in, 0);
    write_end(s, q);
    s->polling = 0;
}

/* A thread that only polls -- calls MPI_Test* or MPI_Iprobe again and
 * again, and they find nothing -- waits as surely as one blocked in
 * MPI_Wait, one call at a time. Its first unsuccessful poll is published as
 * if the thread were blocked in it, and the state is left alone (the same
 * seq) while it goes on polling with the same function, so the watchdog's
 * clock runs from that first poll; any other call, or a poll that finds
 * something, ends it. */
void chk_wd_poll(msc_call_t *c, bool found)
{
    tstate_t *s = my_state ? my_state : (my_state = state_of(c->thread));
    if (!s) return;
    if (found) {
        if (s->polling) chk_wd_leave();
        return;
    }
    if (s->polling && s->poll_fn == (int)c->fn) return;
    chk_wd_enter(c);
    s->polling = 1;
    s->poll_fn = (int)c->fn;
}

void chk_wd_poll_other(msc_call_t *c)
{
    tstate_t *s = my_state;
    if (s && s->polling && s->poll_fn != (int)c->fn) chk_wd_leave();
}

void chk_wd_sync_wait(bool on)
{
    tstate_t *s = my_state;
    if (!s) return;
    uint64_t q = write_begin(s);
    PUT(syncwait, on);
    write_end(s, q);
}

void chk_wd_coll_mismatch(void)
{
    tstate_t *s = my_state;
    if (!s) return;
    uint64_t q = write_begin(s);
    PUT(mism, 1);
    write_end(s, q);
}

void chk_wd_finalizing(void *site)
{
    tstate_t *s = my_state ? my_state : (my_state = state_of(msc_thread_attach()));
    if (!s) return;
    uint64_t q = write_begin(s);
    PUT(in, 1);
    PUT(fn, FN_FINALIZE);
    PUT(kind, (int)MSC_KIND_OTHER);
    PUT(comm, MPI_COMM_WORLD);
    PUT(site, site);
    PUT(nreq, 0);
    write_end(s, q);
}

/* --- the watchdog's view of one rank ----------------------------------- */

/* A communicator across ranks: the hash of its members' world ranks and
 * its place among the communicators over them (chk_comm_t.ord). */
typedef struct {
    uint64_t key;
    uint32_t ord;
} comm_id_t;

/* Point-to-point traffic as the hints see it: a receive waited in (peer:
 * the source, tag as posted), or the messages sent to or received from a
 * peer (world ranks) on one communicator (n; tag: the last sent). */
typedef struct {
    int peer, tag;
    comm_id_t comm;
    uint64_t n;
} hint_msg_t;

/* How this rank names a communicator in a report. */
typedef struct {
    comm_id_t comm;
    char text[CHK_WHERE + 64];
} hint_name_t;


typedef struct {
    bool blocked, and_mode, syncwait;
    uint64_t seq;
    uint64_t group; /* a collective's communicator (its members' key), or 0 */
    char call[48], file[CHK_WHERE], func[128];
    int line;
    int ntargets;
    int *targets;
    /* For the hints (mismatches(), below): the receives it waits in,
     * and its point-to-point traffic so far, by communicator. */
    int nawait, nsent, nrecvd, nname;
    hint_msg_t await[WD_HINTS], sent[WD_HINTS], recvd[WD_HINTS];
    hint_name_t name[WD_HINTS];
} wait_t;

/* A consistent copy of a thread's state, as plain values. */
typedef struct {
    uint64_t seq, since;
    int in, syncwait, mism, fn, kind, peer, rpeer, tag, nreq;
    MPI_Comm comm;
    void *site;
    MPI_Request reqs[WD_REQS];
} snap_t;

typedef struct {
    snap_t snap;
    bool found;
    uint64_t now;
} pick_t;

static bool copy_state(tstate_t *s, snap_t *o)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t q = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (q & 1) continue;
        o->seq = q;
        o->in = GET(in), o->syncwait = GET(syncwait), o->fn = GET(fn), o->kind = GET(kind);
        o->mism = GET(mism);
        o->peer = GET(peer), o->rpeer = GET(rpeer), o->comm = GET(comm), o->site = GET(site);
        o->tag = GET(tag);
        o->nreq = GET(nreq);
        if (o->nreq < 0 || o->nreq > WD_REQS) continue;
        for (int i = 0; i < o->nreq; i++) o->reqs[i] = GET(reqs[i]);
        SEQ_FENCE_ACQUIRE(s);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) == q) return true;
    }
    return false;
}

/* The thread of this rank blocked longest in one call beyond the timeout. */
static void pick(msc_thread_t *t, void *arg)
{
    pick_t *p = arg;
    tstate_t *s = __atomic_load_n(&t->module_data[chk_cfg.slot], __ATOMIC_ACQUIRE);
    snap_t x;
    if (!s || !copy_state(s, &x)) return;
    if (x.seq != s->seen_seq) {
        s->seen_seq = x.seq;
        s->seen_ns = p->now;
    }
    x.since = s->seen_ns;
    uint64_t limit = (uint64_t)chk_cfg.timeout_s * 1000000000ull;
    if (x.in && p->now - x.since > limit && (!p->found || x.since < p->snap.since)) {
        p->snap = x;
        p->found = true;
    }
}

#undef PUT
#undef GET

/* A rank never waits for itself in a collective (its own part is done), so
 * add() leaves it out; add_peer() keeps it: a receive whose source is the
 * rank itself (or a send to itself) waits for a call this rank has not made,
 * and while it is blocked nobody else can make it (docs/checks.md: the
 * watchdog describes one blocked thread per rank). */
static void add_rank(int *t, int *n, int r, bool self)
{
    if (r < 0 || r >= msc_g.world_size || (r == msc_g.world_rank && !self)) return;
    for (int i = 0; i < *n; i++)
        if (t[i] == r) return;
    t[(*n)++] = r;
}

static void add(int *t, int *n, int r)
{
    add_rank(t, n, r, false);
}

static void add_comm(int *t, int *n, MPI_Comm comm)
{
    chk_comm_t *e = comm == MPI_COMM_NULL ? NULL : chk_comm_find(comm);
    if (!e || !e->world) {
        for (int r = 0; r < msc_g.world_size; r++) add(t, n, r);
        return;
    }
    for (int i = 0; i < e->size; i++) add(t, n, e->world[i]);
    for (int i = 0; e->rworld && i < e->rsize; i++) add(t, n, e->rworld[i]);
}

static void add_peer(int *t, int *n, MPI_Comm comm, int peer, bool *any)
{
    if (peer == MPI_PROC_NULL) return;
    if (peer == MPI_ANY_SOURCE) {
        *any = true;
        add_comm(t, n, comm);
        return;
    }
    add_rank(t, n, chk_world_rank_locked(comm, peer), true);
}

/* What the snapshot waits for, as world ranks. Under chk_lock. */
static void describe(const snap_t *s, wait_t *w)
{
    bool any = false;
    w->and_mode = true;
    w->ntargets = 0;
    switch (s->kind) {
    case MSC_KIND_SEND:
        add_peer(w->targets, &w->ntargets, s->comm, s->peer, &any);
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_PROBE:
        add_peer(w->targets, &w->ntargets, s->comm, s->peer, &any);
        break;
    case MSC_KIND_SENDRECV:
        add_peer(w->targets, &w->ntargets, s->comm, s->peer, &any);
        add_peer(w->targets, &w->ntargets, s->comm, s->rpeer, &any);
        any = true;
        break;
    case MSC_KIND_WAIT:
    case MSC_KIND_WAITALL:
    case MSC_KIND_WAITANY:
    case MSC_KIND_WAITSOME:
    case MSC_KIND_TEST:
    case MSC_KIND_TESTALL:
    case MSC_KIND_TESTANY:
    case MSC_KIND_TESTSOME:
        if (s->kind == MSC_KIND_WAITANY || s->kind == MSC_KIND_WAITSOME) any = true;
        for (int i = 0; i < s->nreq; i++) {
            chk_req_t q;
            if (s->reqs[i] == MPI_REQUEST_NULL) continue;
            bool known = false;
            /* chk_req_get takes the lock we hold: look up directly. */
            known = chk_req_get_locked(s->reqs[i], &q);
            if (!known) continue;
            if (q.kind == MSC_KIND_ICOLL || q.comm == MPI_COMM_NULL)
                add_comm(w->targets, &w->ntargets, q.comm);
            else
                add_peer(w->targets, &w->ntargets, q.comm, q.peer, &any);
        }
        break;
    default: {
        add_comm(w->targets, &w->ntargets, s->comm);
        const chk_comm_t *e = s->comm != MPI_COMM_NULL ? chk_comm_find(s->comm) : NULL;
        w->group = e ? e->key | 1 : 0;
        break;
    }
    }
    if (any) w->and_mode = false;
}

static void path(char *out, size_t n, const char *name, int rank)
{
    snprintf(out, n, "%s/%s.%d", dir, name, rank);
}

/* Another rank's file, never through a symbolic link. */
static FILE *open_read(const char *fn)
{
    int fd = open(fn, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) close(fd);
    return f;
}

/* The id of `comm` and the world rank of `peer` in it, under chk_lock;
 * false for what the hints leave alone (intercommunicators, whose two
 * sides have different members; unknown communicators; wildcards). */
static bool hint_comm(MPI_Comm comm, int peer, comm_id_t *id, int *world, chk_comm_t **out)
{
    chk_comm_t *e = comm == MPI_COMM_NULL ? NULL : chk_comm_find(comm);
    if (!e || e->inter || !e->world || peer < 0 || peer >= e->size || e->ord == UINT32_MAX)
        return false;
    id->key = e->key, id->ord = e->ord;
    *world = e->world[peer];
    if (out) *out = e;
    return true;
}

/* A communicator the hints name: once per id, with what made it. */
typedef struct {
    comm_id_t id;
    MPI_Comm app;
    msc_fn_t fn;
    void *site;
} hint_comm_t;

static void hint_note(hint_comm_t *c, int *n, const chk_comm_t *e, comm_id_t id)
{
    for (int i = 0; i < *n; i++)
        if (c[i].id.key == id.key && c[i].id.ord == id.ord) return;
    if (*n < WD_HINTS) c[(*n)++] = (hint_comm_t){id, e->app, e->made_by, e->made_at};
}

/* The hint lines of the wait file: the receives the snapshot waits in,
 * this rank's point-to-point traffic by communicator and peer, and a name
 * for each communicator they mention. */
static void write_hints(FILE *o, const snap_t *s)
{
    chk_tally_t t[2 * WD_HINTS];
    int nt = chk_p2p_tallies(t, 2 * WD_HINTS);
    hint_comm_t names[WD_HINTS];
    int nn = 0;
    chk_lock();
    chk_comm_t *e;
    comm_id_t id;
    int w;
    if ((s->kind == MSC_KIND_RECV || s->kind == MSC_KIND_PROBE) &&
        hint_comm(s->comm, s->peer, &id, &w, &e)) {
        fprintf(o, "await %d %d %llu %u\n", w, s->tag, (unsigned long long)id.key, id.ord);
        hint_note(names, &nn, e, id);
    }
    /* A blocking send not done (synchronous, or too large to buffer) is
     * not in the tallies yet: one more message, the last, on its way. */
    comm_id_t sid = {0, 0};
    int sw = -1;
    bool sending = s->kind == MSC_KIND_SEND && hint_comm(s->comm, s->peer, &sid, &sw, &e);
    if (sending) hint_note(names, &nn, e, sid);
    bool reqs = s->kind == MSC_KIND_WAIT || s->kind == MSC_KIND_WAITALL ||
                s->kind == MSC_KIND_WAITANY || s->kind == MSC_KIND_WAITSOME ||
                s->kind == MSC_KIND_TEST || s->kind == MSC_KIND_TESTALL ||
                s->kind == MSC_KIND_TESTANY || s->kind == MSC_KIND_TESTSOME;
    for (int i = 0, k = 0; reqs && i < s->nreq && k < 4; i++) {
        chk_req_t q;
        if (s->reqs[i] == MPI_REQUEST_NULL || !chk_req_get_locked(s->reqs[i], &q)) continue;
        if ((q.kind != MSC_KIND_IRECV && q.kind != MSC_KIND_RECV_INIT) ||
            !hint_comm(q.comm, q.peer, &id, &w, &e))
            continue;
        fprintf(o, "await %d %d %llu %u\n", w, q.tag, (unsigned long long)id.key, id.ord);
        hint_note(names, &nn, e, id);
        k++;
    }
    for (int i = 0; i < nt; i++) {
        if (!hint_comm(t[i].comm, t[i].peer, &id, &w, &e)) continue;
        if (t[i].sent) {
            bool mine = sending && w == sw && id.key == sid.key && id.ord == sid.ord;
            fprintf(o, "sent %d %d %llu %u %llu\n", w, mine ? s->tag : t[i].tag,
                    (unsigned long long)id.key, id.ord, (unsigned long long)t[i].n + mine);
            if (mine) sending = false;
        } else
            fprintf(o, "recvd %d %llu %u %llu\n", w, (unsigned long long)id.key, id.ord,
                    (unsigned long long)t[i].n);
        hint_note(names, &nn, e, id);
    }
    if (sending)
        fprintf(o, "sent %d %d %llu %u 1\n", sw, s->tag, (unsigned long long)sid.key, sid.ord);
    chk_unlock();
    for (int i = 0; i < nn; i++) {
        fprintf(o, "name %llu %u ", (unsigned long long)names[i].id.key, names[i].id.ord);
        if (names[i].app == MPI_COMM_WORLD) {
            fprintf(o, "MPI_COMM_WORLD\n");
        } else if (names[i].app == MPI_COMM_SELF) {
            fprintf(o, "MPI_COMM_SELF\n");
        } else {
            chk_part_t p;
            memset(&p, 0, sizeof p);
            p.site = names[i].site;
            p.rank = msc_g.world_rank;
            if (p.site) chk_resolve(&p);
            if ((int)names[i].fn >= 0 && (int)names[i].fn < MSC_FN_COUNT && p.line)
                fprintf(o, "the communicator of %s at %s:%d\n", msc_fn_name[names[i].fn], p.file,
                        p.line);
            else if ((int)names[i].fn >= 0 && (int)names[i].fn < MSC_FN_COUNT)
                fprintf(o, "the communicator of %s\n", msc_fn_name[names[i].fn]);
            else
                fprintf(o, "a communicator\n");
        }
    }
}

static void write_state(const snap_t *s)
{
    wait_t w;
    memset(&w, 0, sizeof w);
    w.targets = calloc((size_t)msc_g.world_size + 1, sizeof(int));
    if (!w.targets) return;
    chk_lock();
    describe(s, &w);
    chk_unlock();
    chk_part_t p;
    memset(&p, 0, sizeof p);
    p.site = s->site;
    p.rank = msc_g.world_rank;
    if (s->site)
        chk_resolve(&p);
    else
        snprintf(p.file, sizeof p.file, "?");
    /* This rank's counts so far into its per-rank file, which the
     * reporter reads. The wait file goes through the core's output
     * helpers: created exclusively without following links, renamed into
     * place only when complete. */
    chk_findings_for_deadlock();
    char name[64];
    msc_out_t o;
    snprintf(name, sizeof name, ".check/wait.%d", msc_g.world_rank);
    if (msc_out_open(&o, name)) {
        fprintf(o.f, "seq %llu\nmode %s\nsync %d\ncall %s\nfile %s\nline %d\nfunc %s\ntargets",
                (unsigned long long)s->seq, w.and_mode ? "AND" : "OR", s->syncwait,
                s->fn == FN_FINALIZE ? "MPI_Finalize" : msc_fn_name[s->fn], p.file, p.line,
                p.func[0] ? p.func : "-");
        for (int i = 0; i < w.ntargets; i++) fprintf(o.f, " %d", w.targets[i]);
        /* A collective instance found mismatched is no progress. */
        fprintf(o.f, "\ngroup %llu\n", (unsigned long long)(s->mism ? 0 : w.group));
        write_hints(o.f, s);
        msc_out_close(&o);
    }
    free(w.targets);
}

static bool read_state(int r, wait_t *w)
{
    char fn[PATH_MAX + 64], line[2 * CHK_WHERE + 256];
    path(fn, sizeof fn, "wait", r);
    FILE *f = open_read(fn);
    memset(w->call, 0, sizeof w->call);
    w->blocked = false;
    w->ntargets = 0;
    w->group = 0;
    w->nawait = w->nsent = w->nrecvd = w->nname = 0;
    if (!f) return false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(line, "seq")) w->seq = strtoull(v, NULL, 10);
        else if (!strcmp(line, "mode")) w->and_mode = !strcmp(v, "AND");
        else if (!strcmp(line, "sync")) w->syncwait = atoi(v);
        else if (!strcmp(line, "group")) w->group = strtoull(v, NULL, 10);
        else if (!strcmp(line, "call")) snprintf(w->call, sizeof w->call, "%s", v);
        else if (!strcmp(line, "file")) snprintf(w->file, sizeof w->file, "%s", v);
        else if (!strcmp(line, "line")) w->line = atoi(v);
        else if (!strcmp(line, "func")) snprintf(w->func, sizeof w->func, "%s", strcmp(v, "-") ? v : "");
        else if (!strcmp(line, "await") || !strcmp(line, "sent") || !strcmp(line, "recvd")) {
            hint_msg_t m = {0};
            unsigned long long key = 0, n = 0;
            bool ok = line[0] == 'a'   ? sscanf(v, "%d %d %llu %u", &m.peer, &m.tag, &key,
                                                &m.comm.ord) == 4
                      : line[0] == 's' ? sscanf(v, "%d %d %llu %u %llu", &m.peer, &m.tag, &key,
                                                &m.comm.ord, &n) == 5
                                       : sscanf(v, "%d %llu %u %llu", &m.peer, &key, &m.comm.ord,
                                                &n) == 4;
            m.comm.key = key, m.n = n;
            hint_msg_t *a = line[0] == 'a' ? w->await : line[0] == 's' ? w->sent : w->recvd;
            int *na = line[0] == 'a' ? &w->nawait : line[0] == 's' ? &w->nsent : &w->nrecvd;
            if (ok && *na < WD_HINTS) a[(*na)++] = m;
        } else if (!strcmp(line, "name") && w->nname < WD_HINTS) {
            hint_name_t *h = &w->name[w->nname];
            unsigned long long key = 0;
            int used = 0;
            if (sscanf(v, "%llu %u %n", &key, &h->comm.ord, &used) >= 2 && used > 0) {
                h->comm.key = key;
                snprintf(h->text, sizeof h->text, "%s", v + used);
                w->nname++;
            }
        } else if (!strcmp(line, "targets")) {
            char *end;
            for (char *q = v; *q;) {
                long t = strtol(q, &end, 10);
                if (end == q) break;
                if (w->ntargets < msc_g.world_size) w->targets[w->ntargets++] = (int)t;
                q = end;
            }
        }
    }
    fclose(f);
    w->blocked = w->call[0] != 0;
    return w->blocked;
}

/* Reads every rank's state; returns the deadlocked set in `dead`. */
static int reduce(wait_t *w, bool *dead)
{
    int n = msc_g.world_size;
    bool *rel = calloc((size_t)n, sizeof *rel);
    if (!rel) return 0;
    for (int r = 0; r < n; r++) {
        read_state(r, &w[r]);
        rel[r] = !w[r].blocked;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int r = 0; r < n; r++) {
            if (rel[r]) continue;
            int live = 0;
            for (int i = 0; i < w[r].ntargets; i++) {
                int t = w[r].targets[i];
                /* Members inside the same collective on the same
                 * communicator wait for each other: that is progress (a
                 * large MPI_Win_allocate_shared), not a cycle. */
                live += rel[t] || (w[r].group && w[t].group == w[r].group &&
                                   !strcmp(w[t].call, w[r].call));
            }
            bool go = w[r].and_mode ? live == w[r].ntargets : live > 0;
            if (w[r].ntargets == 0) go = true;
            if (go) rel[r] = true, changed = true;
        }
    }
    int nd = 0;
    for (int r = 0; r < n; r++) dead[r] = !rel[r], nd += dead[r];
    free(rel);
    return nd;
}

/* Rank r's blocked call as a site of the finding, while there is room. */
static void add_site(chk_finding_t *d, int r, const wait_t *w)
{
    if (d->nparts >= CHK_PARTS_MAX) return;
    chk_part_t *p = &d->parts[d->nparts++];
    p->rank = r;
    p->resolved = true;
    snprintf(p->call, sizeof p->call, "%s", w->call);
    snprintf(p->file, sizeof p->file, "%s", w->file);
    snprintf(p->func, sizeof p->func, "%s", w->func);
    p->line = w->line;
}

static bool same_comm(comm_id_t a, comm_id_t b)
{
    return a.key == b.key && a.ord == b.ord;
}

/* How rank r's file names communicator `id`. */
static const char *comm_name(const wait_t *w, comm_id_t id)
{
    for (int i = 0; i < w->nname; i++)
        if (same_comm(w->name[i].comm, id)) return w->name[i].text;
    return "another communicator";
}

/* Messages a deadlocked receive cannot take: for each receive that a
 * deadlocked rank R waits in from a named rank S, the messages S sent to R
 * that R has not received, on another communicator than the receive's or
 * (on the same one) with another tag. Each is recorded as a finding of its
 * own, GLOBAL:P2P:COMM_MISMATCH or GLOBAL:P2P:TAG_MISMATCH, at R's receive
 * and S's blocked call, and its text is appended to `out` for the
 * deadlock's. Returns how many. */
static int mismatches(const wait_t *w, const bool *dead, char *out, size_t len)
{
    int n = msc_g.world_size, found = 0;
    size_t used = strlen(out);
    for (int r = 0; r < n && found < 4; r++) {
        if (!dead[r]) continue;
        for (int a = 0; a < w[r].nawait && found < 4; a++) {
            const hint_msg_t *want = &w[r].await[a];
            int src = want->peer;
            if (src < 0 || src >= n || !w[src].blocked) continue;
            for (int k = 0; k < w[src].nsent && found < 4; k++) {
                const hint_msg_t *m = &w[src].sent[k];
                if (m->peer != r) continue;
                uint64_t got = 0;
                for (int i = 0; i < w[r].nrecvd; i++)
                    if (w[r].recvd[i].peer == src && same_comm(w[r].recvd[i].comm, m->comm))
                        got = w[r].recvd[i].n;
                if (m->n <= got) continue;
                bool comm = !same_comm(m->comm, want->comm);
                if (!comm && (want->tag == MPI_ANY_TAG || m->tag == want->tag)) continue;
                unsigned long long left = (unsigned long long)(m->n - got);
                chk_finding_t d;
                memset(&d, 0, sizeof d);
                snprintf(d.cls, sizeof d.cls, "GLOBAL:P2P:%s", comm ? "COMM_MISMATCH" : "TAG_MISMATCH");
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
                if (comm)
                    snprintf(d.text, sizeof d.text,
                             "Rank %d sent %llu message%s to rank %d on %s (the last with tag %d) "
                             "that rank %d has not received, while rank %d waits for a message "
                             "from rank %d on %s: a message is received only on the "
                             "communicator it was sent on (MPI-3.1 section 3.2.4).",
                             src, left, left == 1 ? "" : "s", r, comm_name(&w[src], m->comm),
                             m->tag, r, r, src, comm_name(&w[r], want->comm));
                else
                    snprintf(d.text, sizeof d.text,
                             "Rank %d sent %llu message%s to rank %d on %s with tag %d that rank "
                             "%d has not received, while rank %d waits there for a message from "
                             "rank %d with tag %d: a receive takes only messages of its tag or "
                             "any tag with MPI_ANY_TAG (MPI-3.1 section 3.2.4).",
                             src, left, left == 1 ? "" : "s", r, comm_name(&w[src], m->comm),
                             m->tag, r, r, src, want->tag);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
                add_site(&d, r, &w[r]);
                add_site(&d, src, &w[src]);
                chk_report_full(&d);
                if (used < len) used += (size_t)snprintf(out + used, len - used, " %s", d.text);
                found++;
            }
        }
    }
    return found;
}

static void report(wait_t *w, const bool *dead)
{
    int n = msc_g.world_size;
    int *order = calloc((size_t)n, sizeof(int)), *pos = calloc((size_t)n, sizeof(int));
    if (!order || !pos) return;
    for (int r = 0; r < n; r++) pos[r] = -1;
    int start = 0;
    while (!dead[start]) start++;
    int len = 0, cur = start;
    while (pos[cur] < 0) {
        pos[cur] = len;
        order[len++] = cur;
        int next = -1;
        for (int i = 0; i < w[cur].ntargets && next < 0; i++)
            if (dead[w[cur].targets[i]]) next = w[cur].targets[i];
        if (next < 0) break;
        cur = next;
    }
    int from = pos[cur] >= 0 ? pos[cur] : 0;
    bool potential = false;
    for (int r = 0; r < n; r++) potential |= dead[r] && w[r].syncwait;

    chk_finding_t d;
    memset(&d, 0, sizeof d);
    snprintf(d.cls, sizeof d.cls, "GLOBAL:DEADLOCK:%s", potential ? "POTENTIAL" : "HARD");
    char cyc[600];
    size_t used = 0;
    cyc[0] = 0;
    for (int i = from; i < len; i++) {
        int r = order[i];
        int nx = i + 1 < len ? order[i + 1] : order[from];
        if (used < sizeof cyc)
            used += nx == r ? (size_t)snprintf(cyc + used, sizeof cyc - used,
                                               "rank %d in %s at %s:%d waits for itself (for a call "
                                               "only it could make); ",
                                               r, w[r].call, w[r].file, w[r].line)
                            : (size_t)snprintf(cyc + used, sizeof cyc - used,
                                               "rank %d in %s at %s:%d waits for rank %d; ", r,
                                               w[r].call, w[r].file, w[r].line, nx);
        add_site(&d, r, &w[r]);
    }
    /* The blocked ranks outside the cycle wait for it (or for one that
     * does): each is named with its call and the first blocked rank it
     * waits for, as a site of the finding where there is room. */
    char tail[600];
    size_t tused = 0;
    tail[0] = 0;
    int nd = 0;
    for (int r = 0; r < n; r++) {
        if (!dead[r]) continue;
        nd++;
        bool in_cycle = false;
        for (int i = from; i < len; i++) in_cycle |= order[i] == r;
        if (in_cycle) continue;
        int on = -1;
        for (int i = 0; i < w[r].ntargets && on < 0; i++)
            if (dead[w[r].targets[i]]) on = w[r].targets[i];
        if (tused < sizeof tail)
            tused += (size_t)snprintf(tail + tused, sizeof tail - tused,
                                      "%srank %d in %s at %s:%d waits for rank %d", tused ? "; " : "",
                                      r, w[r].call, w[r].file, w[r].line, on);
        add_site(&d, r, &w[r]);
    }
    /* Messages the blocked receives cannot take, named first: they are
     * the likely cause. */
    char hint[2 * CHK_TEXT] = "";
    mismatches(w, dead, hint, sizeof hint);
    int ncycle = len - from;
    char among[64];
    snprintf(among, sizeof among, ncycle == 1 ? "%d of them waits for itself"
                                              : "%d of them wait for each other",
             ncycle);
    /* A longer text is cut, on purpose: GCC 12 at -Os warns about it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
    snprintf(d.text, sizeof d.text,
             "%s%d rank%s stayed blocked for more than %llds%s%s: %sno rank of the cycle can "
             "proceed.%s%s%s%s %s",
             potential ? "This program completes only if MPI buffers standard-mode sends. With "
                         "MPISCOPE_CHECK_SYNC_SENDS=1, MPI_Send waited for its receive as "
                         "MPI_Ssend would, and "
                       : "",
             nd, nd == 1 ? "" : "s", chk_cfg.timeout_s, nd == ncycle ? " and wait for each other" : "; ",
             nd == ncycle ? "" : among, cyc, hint,
             tail[0] ? " Blocked behind the cycle: " : "", tail, tail[0] ? "." : "",
             potential ? "With larger messages or another MPI this hangs for real. Order sends "
                         "and receives so that every send meets a posted receive (e.g. even "
                         "ranks send first), or use MPI_Sendrecv or nonblocking calls."
                       : "Order the calls so that every blocking call's partner is reached "
                         "(e.g. matching sends and receives, the same collectives in the same "
                         "order on every rank), or use nonblocking calls.");
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

    /* Every rank's findings, from the per-rank files (this rank's too:
     * its counts were appended when its wait state was written). */
    chk_report_full(&d);
    chk_findings_for_deadlock();
    chk_io_list_t l = {0};
    for (int r = 0; r < n; r++) {
        char fn[PATH_MAX + 64];
        chk_findings_rank_path(r, fn, sizeof fn);
        chk_io_read(fn, &l);
    }
    chk_findings_publish_report(&l, chk_cfg.deadlock_exit
                                        ? "the run was ended after a deadlock was found "
                                          "(MPISCOPE_CHECK_DEADLOCK_EXIT)"
                                        : "a deadlock was found; the run was left waiting");
    chk_io_list_free(&l);
    free(order);
    free(pos);
}

static bool exists(const char *name)
{
    char fn[PATH_MAX + 64];
    snprintf(fn, sizeof fn, "%s/%s", dir, name);
    return access(fn, F_OK) == 0;
}

/* Sleeps ms milliseconds, or until chk_wd_stop wakes it. */
static void nap(int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&wd_mu);
    while (!atomic_load(&wd_stop))
        if (pthread_cond_timedwait(&wd_cv, &wd_mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&wd_mu);
}

static void *watchdog(void *arg)
{
    (void)arg;
    int n = msc_g.world_size;
    wait_t *w = calloc((size_t)n, sizeof *w), *w2 = calloc((size_t)n, sizeof *w2);
    bool *dead = calloc((size_t)n, sizeof *dead), *dead2 = calloc((size_t)n, sizeof *dead2);
    int *tg = calloc((size_t)n * 2 * (size_t)n + 1, sizeof(int));
    if (!w || !w2 || !dead || !dead2 || !tg) return NULL;
    for (int r = 0; r < n; r++) w[r].targets = tg + (size_t)r * (size_t)n,
                                w2[r].targets = tg + (size_t)(n + r) * (size_t)n;
    uint64_t written = 0, verdict_seen = 0;
    int tick = 0;
    bool reported = false;
    while (!atomic_load(&wd_stop)) {
        nap(200);
        if (!reported && exists("verdict")) {
            reported = true;
            verdict_seen = msc_now_ns();
        }
        if (reported) {
            if (chk_cfg.deadlock_exit && msc_now_ns() - verdict_seen > 5000000000ull) _exit(3);
            continue;
        }
        pick_t p = {.found = false, .now = msc_now_ns()};
        msc_threads_foreach(pick, &p);
        char fn[PATH_MAX + 64];
        if (!p.found) {
            if (written) {
                path(fn, sizeof fn, "wait", msc_g.world_rank);
                unlink(fn);
                written = 0;
            }
            continue;
        }
        if (p.snap.seq != written) {
            write_state(&p.snap);
            written = p.snap.seq;
        }
        if (++tick % 5) continue; /* look once a second */
        if (!reduce(w, dead)) continue;
        nap(1000);
        if (atomic_load(&wd_stop)) break;
        if (!reduce(w2, dead2)) continue;
        bool same = true;
        for (int r = 0; r < n; r++)
            same &= dead[r] == dead2[r] && (!dead[r] || w[r].seq == w2[r].seq);
        if (!same) continue;
        char lock[PATH_MAX + 64];
        snprintf(lock, sizeof lock, "%s/verdict.lock", dir);
        int fd = open(lock, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) continue; /* another rank reports */
        close(fd);
        report(w2, dead2);
        char v[PATH_MAX + 64];
        snprintf(v, sizeof v, "%s/verdict", dir);
        int vfd = open(v, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (vfd >= 0) close(vfd);
        if (chk_cfg.deadlock_exit) {
            msc_warn("check: ending the deadlocked run with MPI_Abort, exit code 3 "
                     "(MPISCOPE_CHECK_DEADLOCK_EXIT=0 leaves it waiting)");
            PMPI_Abort(MPI_COMM_WORLD, 3);
        }
        reported = true;
        verdict_seen = msc_now_ns();
    }
    free(w), free(w2), free(dead), free(dead2), free(tg);
    return NULL;
}

void chk_wd_start(void)
{
    if (!msc_g.outdir[0]) {
        if (msc_g.world_rank == 0)
            msc_warn("check: no output directory; deadlock detection is off");
        return;
    }
    snprintf(dir, sizeof dir, "%s/.check", msc_g.outdir);
    if (msc_g.world_rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
        msc_warn("check: cannot create %s; deadlock detection is off", dir);
    PMPI_Barrier(msc_g.comm);
    /* A directory, not a symbolic link planted in its place. */
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
        if (msc_g.world_rank == 0)
            msc_warn("check: %s is not a writable directory; deadlock detection is off", dir);
        return;
    }
    static bool cv_made;
    if (!cv_made) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&wd_cv, &ca);
        pthread_condattr_destroy(&ca);
        cv_made = true;
    }
    atomic_store(&wd_stop, 0);
    if (pthread_create(&wd_thread, NULL, watchdog, NULL) == 0) atomic_store(&wd_running, 1);
}

void chk_wd_stop(void)
{
    if (atomic_load(&wd_running)) {
        pthread_mutex_lock(&wd_mu);
        atomic_store(&wd_stop, 1);
        pthread_cond_signal(&wd_cv);
        pthread_mutex_unlock(&wd_mu);
        pthread_join(wd_thread, NULL);
        atomic_store(&wd_running, 0);
    }
    if (!dir[0]) return;
    /* Every rank is past its last blocking point: the files can go. */
    PMPI_Barrier(msc_g.comm);
    char fn[PATH_MAX + 64];
    path(fn, sizeof fn, "wait", msc_g.world_rank);
    unlink(fn);
    PMPI_Barrier(msc_g.comm);
    if (msc_g.world_rank == 0) {
        snprintf(fn, sizeof fn, "%s/verdict.lock", dir);
        unlink(fn);
        snprintf(fn, sizeof fn, "%s/verdict", dir);
        unlink(fn);
        rmdir(dir);
    }
}
