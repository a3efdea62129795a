/* The MPI objects the application made, as the checks need them: for each
 * handle its class, where it was made, whether it is still alive (for
 * freed-handle arguments and leaks at MPI_Finalize) and, for datatypes,
 * whether it was committed; for each communicator the world ranks of its
 * members (the watchdog thread translates ranks without calling MPI) and
 * its shadow, the tool's own communicator over the same group that carries
 * the global checks' traffic, never the application's; for each request
 * what it is.
 *
 * The core's request table (src/core/requests.h) describes completions but
 * cannot be walked; the checks need to list what is still pending at
 * MPI_Finalize and what a blocked MPI_Waitall waits for, so requests are
 * kept here too, keyed by handle like every other object. One mutex guards
 * everything: the checks are not the fast path, and the watchdog thread
 * reads the same tables.
 *
 * Shadows and their budget. Every communicator costs a context id, and an
 * MPI has few per process: MPICH 4.0 2048 (2046 MPI_Comm_dup of
 * MPI_COMM_WORLD succeed, then "Too many communicators"), Open MPI 4.1 65535
 * with its ob1 PML (65532 dups; UCX's limit is higher). So one shadow serves
 * every use of its communicator: global.c's collectives (MPI matches them
 * apart from point-to-point traffic), p2p.c's batches of sidecar records
 * (tag 0, received only with that tag) and its acknowledgements (tags from
 * 1, received from a named source). And the tool's communicators -- shadows
 * and rma.c's window side communicators -- are counted: it holds at most
 * MPISCOPE_CHECK_SHADOWS of them (default: a sixteenth of the MPI's ids,
 * 128 on MPICH, 4095 on Open MPI) and makes none that would leave the
 * process with fewer than half of its ids free (the application's
 * communicators registered here, and a few of the tool's, counted as
 * used). So the application keeps fifteen sixteenths of its ids (MPICH:
 * more than 1900 communicators alive at once, 2046 natively). The tool
 * cannot give an id back when the application needs it later: freeing a
 * shadow is as collective as making it, and an application's constructor
 * that runs short fails at once.
 *
 * Making a communicator is collective, and members that decided
 * differently would wait for each other in it. So each member's answer
 * (room here?) is its own, and the decision is MPI_Allreduce (MIN) of the
 * answers over the new shadow itself, which then is kept by all or freed
 * by all. A rule on what the members know without asking (the
 * communicator's size, how it was made) could not see that one of them is
 * short of ids; a per-process count alone would split them. The shadow is
 * made with MPI_ERRORS_RETURN set on the application's communicator for
 * that one call (restored at once; the communicator was just made, no
 * other thread has it yet), so that an MPI already out of ids -- it fails
 * the creation on every member alike, after its own agreement -- gives no
 * shadow rather than an abort. A communicator without a shadow gets none
 * of the checks that need one (collective matching, point-to-point type
 * matching, unreceived messages, acknowledged sends, one-sided conflicts),
 * on all its members alike; world rank 0 says so once on stderr (at once
 * if it is a member, else at MPI_Finalize after one MPI_Allreduce on the
 * tool's world communicator).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"

enum { BUCKETS = 4096 };

typedef struct obj {
    struct obj *next;
    int cls;              /* msc_obj_class_t, or CLS_REQUEST, CLS_COMMINFO */
    uint64_t key;
    msc_fn_t fn;
    void *site;
    bool live, committed;
    unsigned refs;        /* datatypes: the application's references (see chk_obj_ref) */
    chk_req_t req;        /* CLS_REQUEST */
    chk_comm_t *comm;     /* MSC_OBJ_COMM */
    struct obj *sprev, *snext; /* CLS_REQUEST: in the list of active requests with a span */
    struct obj *rprev, *rnext; /* CLS_REQUEST: in the list of active receives */
    bool listed, rlisted;
    unsigned poster;      /* CLS_REQUEST: the thread that posted it (thread_id()) */
} obj_t;

enum { CLS_REQUEST = MSC_OBJ_COUNT + 1 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static obj_t *bucket[BUCKETS];
static uint64_t post_seq;
static obj_t *spare; /* freed entries of requests, for the next ones: no malloc per message */
_Atomic uint64_t chk_gen = 1;

static void changed(void)
{
    atomic_fetch_add_explicit(&chk_gen, 1, memory_order_release);
}

/* The bound: at most MPISCOPE_MAX_REQUESTS requests and as many other
 * objects (freed ones included, for freed-handle findings) per rank. What
 * does not fit is not tracked and is counted; the report says how many. */
static long long cap_entries;
static long long n_req, n_obj;
static uint64_t dropped_req, dropped_obj;

void chk_lock(void)
{
    pthread_mutex_lock(&lock);
}

void chk_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

static uint64_t key_of(const void *h, size_t size)
{
    uint64_t k = 0;
    memcpy(&k, h, size < sizeof k ? size : sizeof k);
    return k;
}

static size_t slot(int cls, uint64_t key)
{
    uint64_t h = (key ^ ((uint64_t)cls << 56)) * 0x9e3779b97f4a7c15ull;
    return (size_t)((h >> 32) % BUCKETS);
}

static obj_t *find(int cls, uint64_t key)
{
    for (obj_t *o = bucket[slot(cls, key)]; o; o = o->next)
        if (o->cls == cls && o->key == key) return o;
    return NULL;
}

static obj_t *get(int cls, uint64_t key)
{
    obj_t *o = find(cls, key);
    if (o) return o;
    bool req = cls == CLS_REQUEST;
    if (cap_entries > 0 && (req ? n_req : n_obj) >= cap_entries) {
        *(req ? &dropped_req : &dropped_obj) += 1;
        return NULL;
    }
    if (req && spare) {
        o = spare;
        spare = o->next;
        memset(o, 0, sizeof *o);
    } else {
        o = calloc(1, sizeof *o);
    }
    if (!o) {
        *(req ? &dropped_req : &dropped_obj) += 1;
        return NULL;
    }
    *(req ? &n_req : &n_obj) += 1;
    o->cls = cls;
    o->key = key;
    size_t s = slot(cls, key);
    o->next = bucket[s];
    bucket[s] = o;
    return o;
}

/* Active requests that have a buffer span, for the overlap check, and
 * active receives, for the matching order: lists of their own, so that a
 * posting call walks only what is pending. */
static obj_t *spans, *recvs;
static _Atomic int nspans, nrecvs;

static void recv_list(obj_t *o, bool on)
{
    on = on && (o->req.kind == MSC_KIND_IRECV || o->req.kind == MSC_KIND_RECV_INIT);
    if (on == o->rlisted) return;
    if (on) {
        o->rprev = NULL;
        o->rnext = recvs;
        if (recvs) recvs->rprev = o;
        recvs = o;
        atomic_fetch_add_explicit(&nrecvs, 1, memory_order_relaxed);
    } else {
        atomic_fetch_sub_explicit(&nrecvs, 1, memory_order_relaxed);
        if (o->rprev)
            o->rprev->rnext = o->rnext;
        else
            recvs = o->rnext;
        if (o->rnext) o->rnext->rprev = o->rprev;
        o->rprev = o->rnext = NULL;
    }
    o->rlisted = on;
}

static void span_list(obj_t *o, bool on)
{
    on = on && (o->req.hi > o->req.lo || o->req.shi > o->req.slo);
    if (on == o->listed) return;
    if (on) {
        o->sprev = NULL;
        o->snext = spans;
        if (spans) spans->sprev = o;
        spans = o;
        atomic_fetch_add_explicit(&nspans, 1, memory_order_relaxed);
    } else {
        atomic_fetch_sub_explicit(&nspans, 1, memory_order_relaxed);
        if (o->sprev)
            o->sprev->snext = o->snext;
        else
            spans = o->snext;
        if (o->snext) o->snext->sprev = o->sprev;
        o->sprev = o->snext = NULL;
    }
    o->listed = on;
}

static void drop(int cls, uint64_t key)
{
    for (obj_t **p = &bucket[slot(cls, key)]; *p; p = &(*p)->next) {
        if ((*p)->cls == cls && (*p)->key == key) {
            obj_t *o = *p;
            span_list(o, false);
            recv_list(o, false);
            *(o->cls == CLS_REQUEST ? &n_req : &n_obj) -= 1;
            *p = o->next;
            if (o->cls == CLS_REQUEST) {
                o->next = spare;
                spare = o;
            } else {
                free(o);
            }
            return;
        }
    }
}

void chk_obj_new(msc_obj_class_t cls, const void *handle, size_t size, msc_fn_t fn, void *site)
{
    chk_lock();
    obj_t *o = get((int)cls, key_of(handle, size));
    if (o) {
        o->fn = fn;
        o->site = site;
        o->live = true;
        o->committed = false;
        o->refs = 1;
    }
    chk_unlock();
    changed();
}

void chk_obj_ref(msc_obj_class_t cls, const void *handle, size_t size)
{
    chk_lock();
    obj_t *o = get((int)cls, key_of(handle, size));
    if (o && o->live) {
        o->refs++;
    } else if (o) { /* the application's own handle was freed; MPI kept the object */
        o->live = true;
        o->refs = 1;
        o->committed = false;
    }
    chk_unlock();
    changed();
}

void chk_obj_free(msc_obj_class_t cls, const void *handle, size_t size)
{
    chk_lock();
    obj_t *o = get((int)cls, key_of(handle, size));
    if (o && o->live && o->refs > 1) {
        o->refs--; /* another reference to the same handle remains */
        chk_unlock();
        return;
    }
    if (o) o->live = false, o->committed = false, o->refs = 0;
    if (cls == MSC_OBJ_DATATYPE) {
        MPI_Datatype t;
        memcpy(&t, handle, sizeof t);
        chk_sig_forget(t);
    }
    chk_unlock();
    changed();
}

chk_state_t chk_obj_state(msc_obj_class_t cls, const void *handle, size_t size)
{
    chk_lock();
    obj_t *o = find((int)cls, key_of(handle, size));
    chk_state_t s = !o ? CHK_UNKNOWN : o->live ? CHK_LIVE : CHK_FREED;
    chk_unlock();
    return s;
}

void chk_type_commit(MPI_Datatype t)
{
    chk_lock();
    obj_t *o = find(MSC_OBJ_DATATYPE, key_of(&t, sizeof t));
    if (o) o->committed = true;
    chk_unlock();
    changed();
}

bool chk_type_committed(MPI_Datatype t)
{
    chk_lock();
    obj_t *o = find(MSC_OBJ_DATATYPE, key_of(&t, sizeof t));
    bool c = !o || !o->live || o->committed; /* unknown: predefined */
    chk_unlock();
    return c;
}

/* --- requests ------------------------------------------------------------ */

/* Records displaced by a new operation on the same handle before their own
 * completion was taken, oldest first. Two ways that happens: a thread
 * completes operation A in MPI_Wait, the MPI frees A's handle and hands the
 * same value to another thread's MPI_Irecv before the first thread's leave
 * hook takes A's record (MPICH reuses handles at once; check/threads saw
 * the new receive's record taken by the old send's completion: a false
 * RECV_MODIFIED); and Open MPI's one shared handle for sends that complete
 * inline. A completion takes the oldest record of its handle, so each
 * operation is judged by its own record. MPICH also hands every thread the
 * same pre-completed handle for eager sends, so a completion takes the
 * oldest record its own thread posted, and only without one the oldest of
 * any thread (the core's request table does the same). Bounded; beyond the
 * bound a record is dropped (counted like any request that does not fit). */
enum { STALE_MAX = 4096 };
static struct stale {
    uint64_t key;
    unsigned poster;
    chk_req_t req;
} *stale;
static size_t nstale, stale_cap;

/* A small number naming the calling thread, for `poster`. */
static unsigned thread_id(void)
{
    static _Atomic unsigned next = 1;
    static CHK_TLS unsigned id;
    if (!id) id = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
    return id;
}

static void stale_push(uint64_t key, unsigned poster, const chk_req_t *q)
{
    if (nstale == stale_cap) {
        size_t nc = stale_cap ? 2 * stale_cap : 16;
        struct stale *p = nc <= STALE_MAX ? realloc(stale, nc * sizeof *p) : NULL;
        if (!p) {
            dropped_req++;
            return;
        }
        stale = p, stale_cap = nc;
    }
    stale[nstale].key = key;
    stale[nstale].poster = poster;
    stale[nstale++].req = *q;
}

/* Takes the oldest displaced record of `key` posted by `me` (any poster if
 * me is 0) into *out (if out). */
static bool stale_take(uint64_t key, unsigned me, chk_req_t *out)
{
    for (size_t i = 0; i < nstale; i++) {
        if (stale[i].key != key || (me && stale[i].poster != me)) continue;
        if (out) *out = stale[i].req;
        memmove(&stale[i], &stale[i + 1], (nstale - i - 1) * sizeof *stale);
        nstale--;
        return true;
    }
    return false;
}

void chk_req_new(MPI_Request r, const chk_req_t *info)
{
    chk_lock();
    uint64_t k = key_of(&r, sizeof r);
    obj_t *old = find(CLS_REQUEST, k);
    /* Two pending operations with one handle: MPI completed them as they
     * were posted and handed both its one pre-completed handle (sends of
     * both MPIs). Their data is sent already, and the application may
     * complete them in any order, which the oldest-first rule of the
     * displaced records cannot follow: their send checksums are dropped,
     * or a completion compared one send's checksum with another's buffer,
     * freed since (a false SEND_MODIFIED on almost every send of a window of
     * two eager MPI_Isend completed out of order: MPICH's coll/nonblocking3). */
    bool shared = old && old->live && old->req.active && !old->req.persistent && !info->persistent;
    if (shared && info->where && old->req.where == info->where) {
        /* ... and the new one's handle written over the old one's, in the
         * same variable: the old operation is the one the application can
         * no longer complete. Its record stays in the table, marked for the
         * leak report, and the new one's is displaced (a completion takes
         * it first); a copy of the handle completes the old one as usual. */
        chk_req_t q = *info;
        q.checksum = 0, q.lo = q.hi = q.slo = q.shi = 0;
        q.post_seq = ++post_seq;
        stale_push(k, thread_id(), &q);
        span_list(old, false);
        recv_list(old, false);
        old->req.checksum = 0, old->req.lo = old->req.hi = old->req.slo = old->req.shi = 0;
        if (!old->req.over_site) old->req.over_fn = info->fn, old->req.over_site = info->site;
        chk_unlock();
        return;
    }
    if (shared) {
        old->req.checksum = 0;
        stale_push(k, old->poster, &old->req);
    }
    obj_t *o = get(CLS_REQUEST, k);
    if (o) {
        o->poster = thread_id();
        span_list(o, false);
        recv_list(o, false);
        o->req = *info;
        /* ... and their buffer spans: sent already, they no longer read
         * their buffers, and which record a completion ends is a guess
         * (a span left behind met the buffer's next owner, a collective's
         * receive buffer: a false PENDING_OVERLAP in nonblocking3). */
        if (shared) o->req.checksum = 0, o->req.lo = o->req.hi = o->req.slo = o->req.shi = 0;
        o->req.post_seq = ++post_seq;
        o->live = true;
        o->site = info->site;
        o->fn = info->fn;
        span_list(o, o->req.active);
        recv_list(o, o->req.active);
    }
    chk_unlock();
}

void chk_req_overwritten(MPI_Request old, const void *where, msc_fn_t fn, void *site)
{
    chk_lock();
    obj_t *o = find(CLS_REQUEST, key_of(&old, sizeof old));
    if (o && o->live && where && o->req.where == where && !o->req.over_site) {
        o->req.over_fn = fn;
        o->req.over_site = site;
    }
    chk_unlock();
}

void chk_req_set_sums(MPI_Request r, const chk_req_t *sums)
{
    chk_lock();
    obj_t *o = find(CLS_REQUEST, key_of(&r, sizeof r));
    if (o) {
        o->req.nrsum = sums->nrsum;
        o->req.rblock = sums->rblock;
        o->req.rbytes = sums->rbytes;
        memcpy(o->req.rsum, sums->rsum, sizeof o->req.rsum);
    }
    chk_unlock();
}

void chk_req_set_checksum(MPI_Request r, uint64_t sum)
{
    chk_lock();
    obj_t *o = find(CLS_REQUEST, key_of(&r, sizeof r));
    if (o) o->req.checksum = sum;
    chk_unlock();
}

bool chk_req_overlap(uintptr_t lo, uintptr_t hi, bool writes, MPI_Request self, chk_req_t *out)
{
    bool found = false;
    uint64_t me = key_of(&self, sizeof self);
    if (!atomic_load_explicit(&nspans, memory_order_relaxed)) return false;
    chk_lock();
    for (obj_t *o = spans; o && !found; o = o->snext) {
        if (self != MPI_REQUEST_NULL && o->key == me) continue;
        if ((writes || o->req.writes) && o->req.lo < hi && lo < o->req.hi) {
            *out = o->req;
            found = true;
        } else if (writes && o->req.slo < hi && lo < o->req.shi) { /* a collective's send buffer */
            *out = o->req;
            out->lo = o->req.slo, out->hi = o->req.shi, out->writes = false;
            found = true;
        }
    }
    chk_unlock();
    return found;
}

bool chk_req_spans_pending(void)
{
    return atomic_load_explicit(&nspans, memory_order_relaxed) != 0;
}

bool chk_req_get(MPI_Request r, chk_req_t *out)
{
    chk_lock();
    obj_t *o = find(CLS_REQUEST, key_of(&r, sizeof r));
    if (o) *out = o->req;
    chk_unlock();
    return o != NULL;
}

bool chk_req_take(MPI_Request r, chk_req_t *out)
{
    chk_lock();
    uint64_t k = key_of(&r, sizeof r);
    obj_t *o = find(CLS_REQUEST, k);
    if (nstale) {
        /* Displaced records of this handle: this thread's oldest, then the
         * current one if this thread posted it, then the oldest of any. */
        unsigned me = thread_id();
        if (stale_take(k, me, out) || (!(o && o->poster == me) && stale_take(k, 0, out))) {
            chk_unlock();
            return true;
        }
    }
    if (o) {
        *out = o->req;
        if (o->req.persistent) {
            o->req.active = false;
            span_list(o, false);
            recv_list(o, false);
        } else {
            drop(CLS_REQUEST, k);
        }
    }
    chk_unlock();
    return o != NULL;
}

bool chk_req_get_locked(MPI_Request r, chk_req_t *out)
{
    obj_t *o = find(CLS_REQUEST, key_of(&r, sizeof r));
    if (o) *out = o->req;
    return o != NULL;
}

void chk_req_set_active(MPI_Request r, bool active, uint32_t rp_ev)
{
    chk_lock();
    obj_t *o = find(CLS_REQUEST, key_of(&r, sizeof r));
    if (o) {
        o->req.active = active;
        o->req.rp_ev = rp_ev;
        if (active) o->req.post_seq = ++post_seq;
        span_list(o, active);
        recv_list(o, active);
    }
    chk_unlock();
}

void chk_req_forget(MPI_Request r)
{
    chk_lock();
    if (!(nstale && stale_take(key_of(&r, sizeof r), 0, NULL)))
        drop(CLS_REQUEST, key_of(&r, sizeof r));
    chk_unlock();
}

bool chk_req_earlier_recv(MPI_Comm comm, int src, int tag, uint64_t seq)
{
    bool found = false;
    if (!atomic_load_explicit(&nrecvs, memory_order_relaxed)) return false;
    chk_lock();
    for (obj_t *o = recvs; o && !found; o = o->rnext) {
            if (!o->req.active || o->req.post_seq >= seq) continue;
            const chk_req_t *q = &o->req;
            if (q->comm != comm) continue;
            if (q->peer != MPI_ANY_SOURCE && q->peer != src) continue;
            if (q->tag != MPI_ANY_TAG && q->tag != tag) continue;
            found = true;
    }
    chk_unlock();
    return found;
}

/* --- communicators ------------------------------------------------------- */

static int *translate(MPI_Group g, int n)
{
    MPI_Group world;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    if (!in || !out || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        free(in), free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world, out) != MPI_SUCCESS) {
        free(out);
        out = NULL;
    }
    PMPI_Group_free(&world);
    free(in);
    return out;
}

MPI_Comm chk_shadow_of(MPI_Comm c)
{
    MPI_Group g;
    MPI_Comm s = MPI_COMM_NULL;
    if (PMPI_Comm_group(c, &g) != MPI_SUCCESS) return MPI_COMM_NULL;
    if (PMPI_Comm_create(c, g, &s) != MPI_SUCCESS) s = MPI_COMM_NULL;
    PMPI_Group_free(&g);
    return s;
}

/* --- the budget of the tool's communicators ------------------------------ */

#if defined(MPICH_VERSION)
enum { CID_LIMIT = 2048 };  /* MPICH: context ids per process */
#define CID_MPI "MPICH"
#elif defined(OPEN_MPI)
enum { CID_LIMIT = 65535 }; /* Open MPI 4.1, ob1's largest context id */
#define CID_MPI "Open MPI"
#else
enum { CID_LIMIT = 2048 };
#define CID_MPI "this MPI"
#endif
/* Ids in use besides the counted ones: MPI_COMM_NULL's, the core's
 * duplicate of MPI_COMM_WORLD, errhandler.c's copy of MPI_COMM_SELF, and
 * one the MPI or another module may hold. */
enum { CID_FIXED = 4 };

static _Atomic int held;     /* the tool's budgeted communicators alive */
/* Shadows of freed communicators kept while the tool's traffic on them
 * completes (coll_agree.c): they hold MPI's context ids, but not the
 * budget, which the application's next communicator gets at once. */
static _Atomic int parked;
static _Atomic int app_live; /* the application's communicators registered, not freed */
static _Atomic bool short_here; /* a communicator of this process got no shadow */
static _Atomic bool short_said; /* world rank 0: the line is out */

static int budget(void)
{
    long long b = msc_g.settings.v[MSC_SET_CHECK_SHADOWS].num;
    return b > 0 ? (int)b : CID_LIMIT / 16;
}

/* This process's own answer: one more communicator of the tool's fits. */
static bool room_here(void)
{
    int h = atomic_load(&held), a = atomic_load(&app_live), p = atomic_load(&parked);
    return h < budget() && a + h + p + CID_FIXED + 1 <= CID_LIMIT / 2;
}

void chk_shadow_park(bool in)
{
    atomic_fetch_add(&held, in ? -1 : 1);
    atomic_fetch_add(&parked, in ? 1 : -1);
}

static void say_short_now(void)
{
    if (atomic_exchange(&short_said, true)) return;
    msc_warn("check: the tool's communicators reached their budget (MPISCOPE_CHECK_SHADOWS=%d "
             "of %s's %d context ids per process); communicators made without room get no "
             "collective, point-to-point or one-sided matching checks",
             budget(), CID_MPI, CID_LIMIT);
}

/* A communicator got no shadow: world rank 0 says so at once when it is a
 * member, else at MPI_Finalize (chk_shadow_finalize): one line per job. */
static void say_short(void)
{
    atomic_store(&short_here, true);
    if (msc_g.world_rank == 0) say_short_now();
}

void chk_shadow_finalize(void)
{
    int mine = atomic_load(&short_here), any = 0;
    if (PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, msc_g.comm) == MPI_SUCCESS && any &&
        msc_g.world_rank == 0)
        say_short_now();
}

MPI_Comm chk_shadow_new(MPI_Comm via, bool app)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Group g;
    MPI_Comm s = MPI_COMM_NULL;
    int inter = 0, rc = MPI_ERR_OTHER;
    if (via == MPI_COMM_NULL || PMPI_Comm_group(via, &g) != MPI_SUCCESS) return MPI_COMM_NULL;
    PMPI_Comm_test_inter(via, &inter);
    /* The application's communicator returns errors for this one call (an
     * MPI out of ids fails it on every member alike). */
    if (app && PMPI_Comm_get_errhandler(via, &eh) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(via, MPI_ERRORS_RETURN);
    rc = PMPI_Comm_create(via, g, &s);
    if (app && eh != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(via, eh);
        PMPI_Errhandler_free(&eh);
    }
    PMPI_Group_free(&g);
    if (rc != MPI_SUCCESS || s == MPI_COMM_NULL) {
        say_short();
        return MPI_COMM_NULL;
    }
    PMPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
    /* Every member's answer, MIN over all of them. Over an intercommunicator
     * a reduction gives each group the other group's: a second one, of
     * each member's answer and that, gives both groups the same. */
    int mine = room_here(), all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, s) != MPI_SUCCESS) all = 0;
    if (inter) {
        int both = mine < all ? mine : all;
        if (PMPI_Allreduce(&both, &all, 1, MPI_INT, MPI_MIN, s) != MPI_SUCCESS) all = 0;
    }
    if (!all) {
        PMPI_Comm_free(&s);
        say_short();
        return MPI_COMM_NULL;
    }
    atomic_fetch_add(&held, 1);
    return s;
}

int chk_shadow_room(void)
{
    return room_here();
}

bool chk_shadow_adopt(MPI_Comm *s, bool keep)
{
    if (*s == MPI_COMM_NULL) {
        if (keep) say_short();
        return false;
    }
    if (!keep) {
        PMPI_Comm_free(s);
        say_short();
        return false;
    }
    PMPI_Comm_set_errhandler(*s, MPI_ERRORS_RETURN);
    atomic_fetch_add(&held, 1);
    return true;
}

void chk_shadow_free(MPI_Comm *s)
{
    if (*s == MPI_COMM_NULL) return;
    PMPI_Comm_free(s);
    atomic_fetch_sub(&held, 1);
}

MPI_Comm chk_side_of(MPI_Comm c)
{
    chk_lock();
    chk_comm_t *e = chk_comm_find(c);
    MPI_Comm via = e ? e->shadow : MPI_COMM_NULL;
    chk_unlock();
    return via != MPI_COMM_NULL ? chk_shadow_new(via, false) : MPI_COMM_NULL;
}

void chk_comm_add(MPI_Comm c, msc_fn_t fn, void *site)
{
    chk_comm_add_shadowed(c, fn, site, false, MPI_COMM_NULL);
}

/* A new entry for c, its members known, no shadow yet (NULL: no memory). */
static chk_comm_t *comm_entry_new(MPI_Comm c)
{
    chk_comm_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->shadow = e->shadow_next = MPI_COMM_NULL;
    e->shadow_req = MPI_REQUEST_NULL;
    e->app = c;
    pthread_mutex_init(&e->coll_mu, NULL);
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    e->inter = inter;
    MPI_Group g;
    PMPI_Comm_size(c, &e->size);
    if (PMPI_Comm_group(c, &g) == MPI_SUCCESS) {
        e->world = translate(g, e->size);
        PMPI_Group_free(&g);
    }
    if (inter) {
        PMPI_Comm_remote_size(c, &e->rsize);
        if (PMPI_Comm_remote_group(c, &g) == MPI_SUCCESS) {
            e->rworld = translate(g, e->rsize);
            PMPI_Group_free(&g);
        }
    }
    e->key = 0xcbf29ce484222325ull;
    for (int i = 0; e->world && i < e->size; i++) e->key = (e->key ^ (uint64_t)e->world[i]) * 0x100000001b3ull;
    return e;
}

static void settle_entry(chk_comm_t *e);
static pthread_mutex_t settle_mu;

/* Enters e into the registry as c's (or frees it when the registry is
 * full). */
/* The next ordinal of a communicator over the members with hash `key`,
 * under chk_lock (chk_comm_t.ord). */
static uint32_t next_ord(uint64_t key)
{
    enum { ORD_HASH = 512 };
    static struct ord_slot {
        struct ord_slot *next;
        uint64_t key;
        uint32_t n;
    } *slots[ORD_HASH];
    struct ord_slot *o = slots[key % ORD_HASH];
    while (o && o->key != key) o = o->next;
    if (!o) {
        o = calloc(1, sizeof *o);
        if (!o) return UINT32_MAX;
        o->key = key;
        o->next = slots[key % ORD_HASH];
        slots[key % ORD_HASH] = o;
    }
    return o->n++;
}

static void comm_entry_register(chk_comm_t *e, MPI_Comm c, msc_fn_t fn, void *site)
{
    chk_lock();
    e->ord = next_ord(e->key);
    e->made_by = fn;
    e->made_at = site;
    obj_t *o = get(MSC_OBJ_COMM, key_of(&c, sizeof c));
    if (o) {
        o->fn = fn;
        o->site = site;
        o->live = true; /* predefined ones have no site: never leaks */
        o->comm = e;
    }
    chk_unlock();
    changed();
    if (!o) {
        atomic_fetch_sub(&app_live, 1);
        if (e->shadow_req != MPI_REQUEST_NULL) {
            pthread_mutex_lock(&settle_mu);
            settle_entry(e);
            pthread_mutex_unlock(&settle_mu);
        }
        chk_shadow_free(&e->shadow);
        free(e->world), free(e->rworld);
        pthread_mutex_destroy(&e->coll_mu);
        free(e);
    }
}

void chk_comm_add_shadowed(MPI_Comm c, msc_fn_t fn, void *site, bool given, MPI_Comm shadow)
{
    if (c == MPI_COMM_NULL) return;
    chk_comm_t *e = comm_entry_new(c);
    if (!e) return;
    /* Collective over the members, like the constructor that made c; never
     * MPI_Comm_dup of c, which would run the application's attribute copy
     * callbacks (and their delete callbacks when the shadow is freed).
     * A nonblocking constructor's shadow comes made (icomm.c). */
    atomic_fetch_add(&app_live, 1);
    e->shadow = given ? shadow : chk_shadow_new(c, true);
    comm_entry_register(e, c, fn, site);
}

/* --- shadows made lazily ------------------------------------------------- *
 *
 * A blocking constructor's shadow is not made inside the constructor's call
 * with a blocking PMPI_Comm_create, as MPI_COMM_WORLD's is at MPI_Init:
 * that call waits for every member, and a member may first need another of
 * its own operations to complete. MPICH's test comm/comm_create_group_idup
 * (Open MPI, 4 ranks) hung so: even ranks call MPI_Comm_create_group and
 * then MPI_Comm_idup of MPI_COMM_WORLD, odd ranks the other way round; Open
 * MPI makes a process's context ids in the order of the parents' ids, so the
 * odd ranks' pending idup (parent id 0) held back their part of our create
 * (parent: the new communicator), while the even ranks sat in our create
 * and never reached their idup.
 *
 * So the constructor only starts PMPI_Comm_idup of the new communicator,
 * on which no attribute is cached yet (no callback of the application's
 * runs). Every member starts it as its constructor returns, whatever it does
 * next; the first call on the communicator that uses its shadow
 * (chk_shadow_settle, from check.c's enter: communication, collectives,
 * constructors, windows, MPI_Comm_free; never MPI_Comm_rank and the like)
 * or MPI_Finalize waits for it, which then needs nothing of the other
 * members but MPI's progress in whatever MPI call they are in. The wait
 * comes before any collective on the new communicator: Open MPI starts the
 * idup's own reduction over it only when its turn comes among the context
 * ids being made, so a collective posted before could be matched against
 * it on another member. For the same reason at most UNSETTLED_MAX are
 * pending, and the dup family (whose new communicator carries copied
 * attributes: an idup of it would run their copy callbacks again, and an
 * idup of the parent's shadow would interleave with the other operations on
 * it) and the intercommunicator constructors keep the blocking way.
 *
 * The budget (one more communicator of the tool's fits on every member) is
 * agreed where it can be without waiting for anything but the same
 * constructor on the other members: for constructors collective over an
 * intracommunicator parent (split, split_type, create, the topology
 * constructors), a reduction (MIN) over the parent's shadow right after the
 * constructor, on every member of the parent, those given MPI_COMM_NULL
 * too; a parent without a shadow gives none. MPI_Comm_create_group (over a
 * subgroup) and constructors over an intercommunicator parent have no
 * communicator of the tool's over exactly their members at that point:
 * their shadow is made whenever MPI gives one (counted, but not held to the
 * budget). */
/* At most UNSETTLED_MAX shadows are being made at once: before another
 * starts, the oldest is waited for (Open MPI defers all but one context-id
 * allocation at a time and retries the others on every poll). */
enum { UNSETTLED_MAX = 8 };
static _Atomic int unsettled;               /* entries whose shadow_req is pending */
static chk_comm_t *unsettled_e[UNSETTLED_MAX]; /* oldest first, under settle_mu */
static pthread_mutex_t settle_mu = PTHREAD_MUTEX_INITIALIZER;

/* Under settle_mu. */
static void settle_entry(chk_comm_t *e)
{
    MPI_Request r = e->shadow_req;
    if (r == MPI_REQUEST_NULL) return;
    int n = atomic_load(&unsettled);
    for (int i = 0; i < n; i++)
        if (unsettled_e[i] == e) {
            for (int j = i + 1; j < n; j++) unsettled_e[j - 1] = unsettled_e[j];
            break;
        }
    bool ok = PMPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    MPI_Comm s = ok ? e->shadow_next : MPI_COMM_NULL;
    /* Counted in the budget since it was started. */
    bool kept = s != MPI_COMM_NULL;
    if (kept) {
        PMPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
    } else {
        atomic_fetch_sub(&held, 1);
        say_short();
    }
    chk_lock();
    e->shadow_req = MPI_REQUEST_NULL;
    e->shadow_next = MPI_COMM_NULL;
    e->shadow = kept ? s : MPI_COMM_NULL;
    chk_unlock();
    atomic_fetch_sub(&unsettled, 1);
    changed(); /* chk_cinfo memos hold the shadow */
}

void chk_shadow_settle(MPI_Comm c)
{
    if (!atomic_load_explicit(&unsettled, memory_order_acquire) || c == MPI_COMM_NULL) return;
    pthread_mutex_lock(&settle_mu);
    chk_lock();
    chk_comm_t *e = chk_comm_find(c);
    bool pending = e && e->shadow_req != MPI_REQUEST_NULL;
    chk_unlock();
    if (pending) settle_entry(e);
    pthread_mutex_unlock(&settle_mu);
}

void chk_shadow_settle_all(void)
{
    pthread_mutex_lock(&settle_mu);
    while (atomic_load(&unsettled) > 0) settle_entry(unsettled_e[0]);
    pthread_mutex_unlock(&settle_mu);
}

/* Constructors whose every parent member agrees on the budget over the
 * parent's shadow. */
static bool agrees_over_parent(msc_fn_t fn)
{
    switch (fn) {
    case MSC_FN_MPI_Comm_split:
    case MSC_FN_MPI_Comm_split_type:
    case MSC_FN_MPI_Comm_create:
    case MSC_FN_MPI_Cart_create:
    case MSC_FN_MPI_Cart_sub:
    case MSC_FN_MPI_Graph_create:
    case MSC_FN_MPI_Dist_graph_create:
    case MSC_FN_MPI_Dist_graph_create_adjacent:
        return true;
    default:
        return false;
    }
}

void chk_comm_made(const msc_call_t *c)
{
    /* The intercommunicator constructors and the dup family keep the
     * blocking way, held to the budget by an agreement over the new
     * communicator's members. */
    if (c->fn == MSC_FN_MPI_Intercomm_create || c->fn == MSC_FN_MPI_Intercomm_merge ||
        c->fn == MSC_FN_MPI_Comm_dup || c->fn == MSC_FN_MPI_Comm_dup_with_info) {
        if (c->newcomm) chk_comm_add(*c->newcomm, c->fn, c->site);
        return;
    }
    MPI_Comm nc = c->newcomm ? *c->newcomm : MPI_COMM_NULL;
    MPI_Comm parent = MPI_COMM_NULL;
    bool parent_known = false, parent_inter = false;
    chk_lock();
    chk_comm_t *pe = c->comm != MPI_COMM_NULL ? chk_comm_find(c->comm) : NULL;
    if (pe) parent = pe->shadow, parent_known = true, parent_inter = pe->inter;
    chk_unlock();
    bool keep = true;
    if (agrees_over_parent(c->fn) && parent_known && !parent_inter) {
        /* Every member of the parent has the same parent shadow (or none),
         * made together, and reaches this point after the same constructor. */
        if (parent == MPI_COMM_NULL) {
            keep = false;
        } else {
            int mine = room_here(), all = 0;
            MPI_Request r = MPI_REQUEST_NULL;
            if (PMPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_MIN, parent, &r) != MPI_SUCCESS ||
                PMPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                all = 0;
            keep = all != 0;
        }
    }
    if (nc == MPI_COMM_NULL) return;
    chk_comm_t *e = comm_entry_new(nc);
    if (!e) return;
    atomic_fetch_add(&app_live, 1);
    if (!keep) {
        say_short();
    } else {
        /* The new communicator returns errors for this one call (it has
         * the parent's handler). */
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        if (PMPI_Comm_get_errhandler(nc, &eh) == MPI_SUCCESS)
            PMPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
        pthread_mutex_lock(&settle_mu);
        while (atomic_load(&unsettled) >= UNSETTLED_MAX) settle_entry(unsettled_e[0]);
        atomic_fetch_add(&held, 1); /* from now: the next constructor's answer counts it */
        if (PMPI_Comm_idup(nc, &e->shadow_next, &e->shadow_req) != MPI_SUCCESS) {
            e->shadow_req = MPI_REQUEST_NULL;
            e->shadow_next = MPI_COMM_NULL;
            atomic_fetch_sub(&held, 1);
            say_short();
        } else {
            unsettled_e[atomic_load(&unsettled)] = e;
            atomic_fetch_add(&unsettled, 1);
        }
        pthread_mutex_unlock(&settle_mu);
        if (eh != MPI_ERRHANDLER_NULL) {
            PMPI_Comm_set_errhandler(nc, eh);
            PMPI_Errhandler_free(&eh);
        }
    }
    comm_entry_register(e, nc, c->fn, c->site);
}

void chk_comm_destroy(chk_comm_t *e)
{
    atomic_fetch_sub(&app_live, 1);
    /* Given up with the tool's traffic pending: MPI keeps the shadow and
     * the buffers. */
    if (e->abandoned) return;
    free(e->pend);
    free(e->log);
    free(e->log_site);
    /* One owner: p2p.c keeps a shadow on which sidecar records are still
     * awaited, and frees it (chk_shadow_free) once they have come. */
    if (e->shadow != MPI_COMM_NULL && !chk_p2p_comm_free(e->shadow)) chk_shadow_free(&e->shadow);
    free(e->world);
    free(e->rworld);
    pthread_mutex_destroy(&e->coll_mu);
    free(e);
}

/* A communicator freed (or at MPI_Finalize): its entry goes when the
 * tool's traffic on its shadow has completed (coll_agree.c keeps it
 * until then). */
static void comm_release(chk_comm_t *e)
{
    if (!e) return;
    if (e->shadow_req != MPI_REQUEST_NULL) {
        pthread_mutex_lock(&settle_mu);
        settle_entry(e);
        pthread_mutex_unlock(&settle_mu);
    }
    if (!e->abandoned && chk_coll_retire(e)) return;
    chk_comm_destroy(e);
}

void chk_comm_remove(MPI_Comm c)
{
    chk_lock();
    obj_t *o = find(MSC_OBJ_COMM, key_of(&c, sizeof c));
    chk_comm_t *e = NULL;
    if (o) {
        e = o->comm;
        o->comm = NULL;
        o->live = false;
    }
    chk_unlock();
    changed();
    comm_release(e);
}

int chk_comm_shadows(MPI_Comm *out, MPI_Comm *apps, int max)
{
    int n = 0;
    chk_lock();
    for (int b = 0; b < BUCKETS; b++)
        for (obj_t *o = bucket[b]; o && n < max; o = o->next)
            if (o->cls == MSC_OBJ_COMM && o->comm && o->comm->shadow != MPI_COMM_NULL) {
                if (apps) apps[n] = o->comm->app;
                out[n++] = o->comm->shadow;
            }
    chk_unlock();
    return n;
}

enum { CMEMO = 4 };
static CHK_TLS chk_cinfo_t cmemo[CMEMO];
static CHK_TLS unsigned cmemo_next;

CHK_TLS chk_cinfo_t *chk_clast;

const chk_cinfo_t *chk_cinfo_slow(MPI_Comm c)
{
    uint64_t gen = atomic_load_explicit(&chk_gen, memory_order_acquire);
    for (int i = 0; i < CMEMO; i++)
        if (cmemo[i].comm == c && cmemo[i].gen == gen) return chk_clast = &cmemo[i];
    chk_cinfo_t *m = chk_clast = &cmemo[cmemo_next++ % CMEMO];
    memset(m, 0, sizeof *m);
    m->comm = c;
    m->gen = gen;
    m->shadow = MPI_COMM_NULL;
    m->state = CHK_UNKNOWN;
    m->rank = -1;
    if (c == MPI_COMM_NULL) return m;
    bool known = false;
    chk_lock();
    obj_t *o = find(MSC_OBJ_COMM, key_of(&c, sizeof c));
    if (o) {
        m->state = o->live ? CHK_LIVE : CHK_FREED;
        if (o->comm) {
            known = true;
            m->inter = o->comm->inter;
            m->size = o->comm->size;
            m->rsize = o->comm->inter ? o->comm->rsize : o->comm->size;
            m->shadow = o->comm->shadow;
        }
    }
    chk_unlock();
    if (m->state != CHK_FREED) PMPI_Comm_rank(c, &m->rank);
    if (!known && m->state != CHK_FREED) {
        int inter = 0;
        m->size = m->rsize = -1;
        if (PMPI_Comm_test_inter(c, &inter) == MPI_SUCCESS) {
            m->inter = inter;
            PMPI_Comm_size(c, &m->size);
            if (inter)
                PMPI_Comm_remote_size(c, &m->rsize);
            else
                m->rsize = m->size;
        }
    }
    return m;
}

int chk_comm_entries(chk_comm_t **out, int max)
{
    int n = 0;
    chk_lock();
    for (int b = 0; b < BUCKETS; b++)
        for (obj_t *o = bucket[b]; o && n < max; o = o->next)
            if (o->cls == MSC_OBJ_COMM && o->comm) out[n++] = o->comm;
    chk_unlock();
    return n;
}

chk_comm_t *chk_comm_find(MPI_Comm c)
{
    obj_t *o = find(MSC_OBJ_COMM, key_of(&c, sizeof c));
    return o ? o->comm : NULL;
}

int chk_world_rank_locked(MPI_Comm c, int rank)
{
    chk_comm_t *e = chk_comm_find(c);
    if (!e || rank < 0) return -1;
    if (e->inter) return e->rworld && rank < e->rsize ? e->rworld[rank] : -1;
    return e->world && rank < e->size ? e->world[rank] : -1;
}

int chk_world_rank(MPI_Comm c, int rank)
{
    chk_lock();
    int w = chk_world_rank_locked(c, rank);
    chk_unlock();
    return w;
}

/* --- life cycle ---------------------------------------------------------- */

void chk_objects_dropped(uint64_t *requests, uint64_t *objects)
{
    chk_lock();
    *requests = dropped_req;
    *objects = dropped_obj;
    chk_unlock();
}

void chk_objects_init(void)
{
    cap_entries = msc_g.settings.v[MSC_SET_MAX_REQUESTS].num;
    /* MSC_FN_COUNT as the maker: predefined, never reported as a leak. */
    chk_comm_add(MPI_COMM_WORLD, MSC_FN_COUNT, NULL);
    chk_comm_add(MPI_COMM_SELF, MSC_FN_COUNT, NULL);
}

static const char *const leak_class[MSC_OBJ_COUNT] = {
    [MSC_OBJ_COMM] = "LOCAL:LEAK:COMM",     [MSC_OBJ_GROUP] = "LOCAL:LEAK:GROUP",
    [MSC_OBJ_DATATYPE] = "LOCAL:LEAK:DATATYPE", [MSC_OBJ_OP] = "LOCAL:LEAK:OP",
    [MSC_OBJ_WIN] = "LOCAL:LEAK:WIN",       [MSC_OBJ_FILE] = "LOCAL:LEAK:FILE",
};
static const char *const leak_free[MSC_OBJ_COUNT] = {
    [MSC_OBJ_COMM] = "MPI_Comm_free",     [MSC_OBJ_GROUP] = "MPI_Group_free",
    [MSC_OBJ_DATATYPE] = "MPI_Type_free", [MSC_OBJ_OP] = "MPI_Op_free",
    [MSC_OBJ_WIN] = "MPI_Win_free",       [MSC_OBJ_FILE] = "MPI_File_close",
};

typedef struct {
    const char *cls, *what;
    msc_fn_t fn;
    void *site;
    int n;
    msc_fn_t over_fn; /* requests: the call that overwrote its handle (over_site) */
    void *over_site;
} leak_t;

void chk_objects_leaks(void)
{
    /* Collect under the lock, report outside it (chk_report may resolve). */
    int cap = 64, n = 0;
    leak_t *l = malloc(sizeof *l * (size_t)cap);
    if (!l) return;
    chk_lock();
    for (int b = 0; b < BUCKETS; b++)
        for (obj_t *o = bucket[b]; o; o = o->next) {
            if (!o->live || !o->site) continue;
            const char *cls = NULL, *what = NULL;
            if (o->cls == CLS_REQUEST) {
                cls = o->req.over_site ? "LOCAL:REQUEST:OVERWRITTEN" : "LOCAL:REQUEST:NOT_FREED";
                what = o->req.persistent && !o->req.active ? "inactive persistent"
                                                           : "pending";
            } else if (o->cls < MSC_OBJ_COUNT && leak_class[o->cls]) {
                cls = leak_class[o->cls];
                what = leak_free[o->cls];
            } else {
                continue;
            }
            if (n == cap) {
                leak_t *m = realloc(l, sizeof *l * (size_t)(cap *= 2));
                if (!m) break;
                l = m;
            }
            l[n++] = (leak_t){cls, what, o->fn, o->site, 0, o->req.over_fn, o->req.over_site};
        }
    chk_unlock();
    for (int i = 0; i < n; i++) {
        if (l[i].over_site) {
            char at[CHK_WHERE + 16];
            chk_where(l[i].over_site, at, sizeof at);
            chk_report(l[i].cls, l[i].fn, l[i].site,
                       "The %s request made by %s here was lost: %s at %s wrote a new "
                       "request's handle into the variable that held it while it was still "
                       "allocated, and it was neither completed nor freed before MPI_Finalize. "
                       "Without its handle a request can never be completed or freed (MPI-3.1 "
                       "section 3.7.3), so its operation may never take place and its buffer "
                       "may never be written or read; complete it (MPI_Wait) before the "
                       "variable takes another request, or give each request a variable of "
                       "its own.",
                       l[i].what, msc_fn_name[l[i].fn], msc_fn_name[l[i].over_fn], at);
        } else if (strcmp(l[i].cls, "LOCAL:REQUEST:NOT_FREED") == 0)
            chk_report(l[i].cls, l[i].fn, l[i].site,
                       "A %s request made by %s here was neither completed (MPI_Wait, "
                       "MPI_Test and their forms) nor freed (MPI_Request_free) before "
                       "MPI_Finalize. An operation still pending at MPI_Finalize is erroneous "
                       "and its buffer may never be written or read; complete every request, "
                       "and free persistent requests once they are no longer started.",
                       l[i].what, msc_fn_name[l[i].fn]);
        else
            chk_report(l[i].cls, l[i].fn, l[i].site,
                       "The object made by %s here was never freed; MPI_Finalize found it "
                       "still allocated. Call %s when it is no longer needed: leaked objects "
                       "hold memory and resources in the MPI library for the rest of the run.",
                       msc_fn_name[l[i].fn], l[i].what);
    }
    free(l);
}

void chk_objects_finalize(void)
{
    chk_lock();
    spans = recvs = NULL;
    atomic_store(&nspans, 0);
    atomic_store(&nrecvs, 0);
    n_req = n_obj = 0;
    while (spare) {
        obj_t *next = spare->next;
        free(spare);
        spare = next;
    }
    for (int b = 0; b < BUCKETS; b++) {
        obj_t *o = bucket[b];
        bucket[b] = NULL;
        while (o) {
            obj_t *next = o->next;
            chk_comm_t *e = o->comm;
            free(o);
            if (e) {
                chk_unlock();
                comm_release(e);
                chk_lock();
            }
            o = next;
        }
    }
    chk_unlock();
}
