/* The profile module: what each call costs and moves, recorded on the hot
 * path into per-thread tables (profile.h), merged and written at finalize.
 *
 * The leave hook does a fixed amount of work for most calls: a dense
 * per-function update, one probe of the call-site table (hash of the return
 * address the wrapper already captured) and, for calls that move data, the
 * size and one matrix cell. The common case of that is a leaf function
 * without a register save: a call from a site in the per-thread memo (64
 * entries, direct-mapped by return address, so that each call of a loop
 * finds its own), and for sends the datatype's size and the peer's matrix
 * cell from one-entry memos; the request kinds that count nothing when
 * posted, and completions (only what completed), go straight to their
 * work; everything else tail-calls the general paths, which
 * compute the same numbers. Everything that is not that goes out of line:
 * the first call of a thread (table allocation), the first use of a
 * communicator (world-rank translation through PMPI_Group_translate_ranks,
 * cached per thread and dropped when any communicator is freed), deeper
 * stacks (msc_callsite_backtrace, only when MPISCOPE_CALLSITE_DEPTH > 1)
 * and collectives (whose logical edges depend on the function's shape).
 *
 * Bytes: a send counts its message size when it is posted (MPI_Isend) or
 * when it completes (persistent sends, once per start). A receive counts
 * what its status says arrived, when it completes: blocking receives from
 * their status (the wrapper substitutes its own for MPI_STATUS_IGNORE),
 * nonblocking and persistent ones from the completion call's c->done, and
 * those bytes are credited to the function and call site that posted them.
 * MPI_PROC_NULL moves nothing. Collectives count their buffer sizes; their
 * matrix edges follow the logical data flow of each shape (docs/profile.md).
 * Nonblocking collectives count as the blocking ones when posted, persistent
 * ones (MPI_*_init) at each MPI_Start, credited to the MPI_*_init call, and
 * neighbourhood collectives along the communicator's topology. File reads
 * and writes count what their status says was done (nonblocking ones when
 * they complete, the split collectives at their _end).
 */
#include "profile.h"
#include "../core/fatal.h"

#include <ctype.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callsite.h"
#include "clock.h"
#include "io.h"
#include "runinfo.h"
#include "log.h"
#include "module.h"
#include "state.h"

msc_prof_t msc_prof;

typedef enum {
    SH_NONE = 0, SH_BARRIER, SH_BCAST, SH_REDUCE, SH_ALLREDUCE, SH_SCAN, SH_RSB, SH_RS,
    SH_GATHER, SH_GATHERV, SH_SCATTER, SH_SCATTERV, SH_ALLGATHER, SH_ALLGATHERV,
    SH_ALLTOALL, SH_ALLTOALLV, SH_NALLGATHER, SH_NALLGATHERV, SH_NALLTOALL, SH_NALLTOALLV,
    SH_OTHER_COLL
} shape_t;

static const struct {
    const char *name; /* without MPI_, the nonblocking I, the _init and _c suffixes */
    shape_t shape;
} shapes[] = {
    {"Barrier", SH_BARRIER},     {"Bcast", SH_BCAST},
    {"Reduce", SH_REDUCE},       {"Allreduce", SH_ALLREDUCE},
    {"Scan", SH_SCAN},           {"Exscan", SH_SCAN},
    {"Reduce_scatter_block", SH_RSB}, {"Reduce_scatter", SH_RS},
    {"Gather", SH_GATHER},       {"Gatherv", SH_GATHERV},
    {"Scatter", SH_SCATTER},     {"Scatterv", SH_SCATTERV},
    {"Allgather", SH_ALLGATHER}, {"Allgatherv", SH_ALLGATHERV},
    {"Alltoall", SH_ALLTOALL},   {"Alltoallv", SH_ALLTOALLV},
    {"Neighbor_allgather", SH_NALLGATHER}, {"Neighbor_allgatherv", SH_NALLGATHERV},
    {"Neighbor_alltoall", SH_NALLTOALL},   {"Neighbor_alltoallv", SH_NALLTOALLV},
};

static void strip_suffix(char *name, const char *suffix)
{
    size_t len = strlen(name), n = strlen(suffix);
    if (len > n && strcmp(name + len - n, suffix) == 0) name[len - n] = 0;
}

/* The shape of every collective, blocking (MPI_Iallreduce and
 * MPI_Allreduce_init have MPI_Allreduce's), and the direction of the ends
 * of split file collectives. */
static void setup_shapes(void)
{
    for (int f = 0; f < MSC_FN_COUNT; f++) {
        int k = msc_fn_kind[f];
        if (k == MSC_KIND_IO_END) msc_prof.io_write[f] = strstr(msc_fn_name[f], "_write") != NULL;
        if (k != MSC_KIND_COLL && k != MSC_KIND_ICOLL && k != MSC_KIND_COLL_INIT) continue;
        char name[64];
        const char *n = msc_fn_name[f] + 4; /* "MPI_" */
        if (k == MSC_KIND_ICOLL && *n == 'I') n++;
        snprintf(name, sizeof name, "%s", n);
        name[0] = (char)toupper((unsigned char)name[0]);
        strip_suffix(name, "_c");
        if (k == MSC_KIND_COLL_INIT) strip_suffix(name, "_init");
        msc_prof.shape[f] = SH_OTHER_COLL;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            if (strcmp(shapes[i].name, name) == 0) msc_prof.shape[f] = (unsigned char)shapes[i].shape;
    }
}

/* ---- per-thread tables ------------------------------------------------- */

static msc_ptab_t *table_new(msc_thread_t *t)
{
    msc_ptab_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->fn = calloc(MSC_FN_COUNT, sizeof *p->fn);
    p->site_cap = (uint32_t)msc_prof.site_cap;
    p->sites = calloc(p->site_cap, sizeof *p->sites);
    if (msc_prof.matrix_on) p->row = calloc(2 * (size_t)msc_g.world_size, sizeof *p->row);
    if (!p->fn || !p->sites || (msc_prof.matrix_on && !p->row)) {
        free(p->fn);
        free(p->sites);
        free(p->row);
        free(p);
        msc_warn_once("profile-oom", "profile: out of memory for a thread's tables; that "
                                     "thread is not profiled");
        return NULL;
    }
    for (int f = 0; f < MSC_FN_COUNT; f++) p->fn[f].s.tmin_ns = UINT64_MAX;
    p->comm_epoch = atomic_load(&msc_prof.comm_epoch);
    p->edge_epoch = UINT64_MAX;
    p->coll_fn = -1;
    t->module_data[msc_prof.slot] = p;
    return p;
}

static inline unsigned size_bin(uint64_t bytes)
{
    if (bytes == 0) return 0;
    unsigned b = 64u - (unsigned)__builtin_clzll(bytes);
    return b < MSC_PROF_BINS ? b : MSC_PROF_BINS - 1;
}

static inline void stat_time(msc_pstat_t *s, uint64_t dt)
{
    s->count++;
    s->time_ns += dt;
    if (dt < s->tmin_ns) s->tmin_ns = dt;
    if (dt > s->tmax_ns) s->tmax_ns = dt;
}

static inline uint64_t site_hash(int fn, void *const *pc)
{
    uint64_t h = (uint64_t)(uintptr_t)pc[0] ^ ((uint64_t)fn << 48);
    for (int i = 1; i < msc_prof.depth; i++) h = h * 31 + (uint64_t)(uintptr_t)pc[i];
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The site entry of (fn, pc[0..depth)); NULL if the table is full. */
static msc_psite_t *site_get(msc_ptab_t *p, int fn, void *const *pc)
{
    uint32_t mask = p->site_cap - 1;
    int depth = msc_prof.depth;
    for (uint32_t i = (uint32_t)site_hash(fn, pc) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
        msc_psite_t *e = &p->sites[i];
        if (!e->pc[0]) {
            /* Half full is full: probes stay short, and the budget is the setting. */
            if (p->site_used >= (uint32_t)msc_prof.max_sites) return NULL;
            p->site_used++;
            e->fn = fn;
            memcpy(e->pc, pc, (size_t)depth * sizeof *pc);
            e->s.tmin_ns = UINT64_MAX;
            return e;
        }
        if (e->fn == fn && e->pc[0] == pc[0] &&
            (depth == 1 || memcmp(e->pc, pc, (size_t)depth * sizeof *pc) == 0))
            return e;
    }
    return NULL;
}

static inline unsigned memo_slot(void *pc)
{
    _Static_assert(MSC_PROF_SITE_MEMO == 64, "six bits of the hash");
    return (unsigned)(((uint32_t)(uintptr_t)pc * 0x9e3779b1u) >> 26);
}

/* The site entry of (fn, pc) at depth 1 (the posting call of a completed
 * operation), through the memo; NULL: the table is full. */
static msc_psite_t *site_of(msc_ptab_t *p, int fn, void *site)
{
    unsigned i = memo_slot(site);
    if (msc_prof.depth == 1 && p->memo[i].pc == site && p->memo[i].fn == fn) return p->memo[i].site;
    void *pc[MSC_PROF_DEPTH_MAX] = {site};
    return site_get(p, fn, pc);
}

/* ---- communicators ------------------------------------------------------ */

static bool same_comm(MPI_Comm a, MPI_Comm b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static unsigned comm_slot(MPI_Comm c)
{
    uint64_t k = 0;
    memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
    k *= 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 40) % MSC_PROF_COMM_CACHE;
}

/* The edges an entry's accumulators stand for, added to `row`. */
static void spread(const msc_pcomm_t *e, msc_pcell_t *row)
{
    if (!row || e->inter || !(e->all.msgs | e->up.msgs)) return;
    msc_pcell_t *coll = row + (size_t)MSC_PROF_COLL * (size_t)msc_g.world_size;
    for (int j = 0; j < e->size; j++) {
        if (j == e->me) continue;
        int w = e->world ? e->world[j] : j;
        if (w < 0 || w >= msc_g.world_size) continue;
        coll[w].msgs += e->all.msgs;
        coll[w].bytes += e->all.bytes;
        if (j > e->me) coll[w].msgs += e->up.msgs, coll[w].bytes += e->up.bytes;
    }
}

void msc_prof_pending_edges(const msc_ptab_t *p, msc_pcell_t *row)
{
    for (int i = 0; i < MSC_PROF_COMM_CACHE; i++)
        if (!same_comm(p->comms[i].comm, MPI_COMM_NULL)) spread(&p->comms[i], row);
}

/* Moves an entry's accumulated edges into its thread's row. */
static void settle(msc_ptab_t *p, msc_pcomm_t *e)
{
    spread(e, p->row);
    e->all = e->up = (msc_pcell_t){0, 0};
}

static void comm_clear(msc_ptab_t *p)
{
    p->coll_fn = -1;
    for (int i = 0; i < MSC_PROF_COMM_CACHE; i++) {
        if (!same_comm(p->comms[i].comm, MPI_COMM_NULL)) settle(p, &p->comms[i]);
        free(p->comms[i].world);
        free(p->comms[i].in);
        memset(&p->comms[i], 0, sizeof p->comms[i]);
        p->comms[i].comm = MPI_COMM_NULL;
    }
}

static __attribute__((noinline)) msc_pcomm_t *comm_fill(msc_ptab_t *p, MPI_Comm comm, bool add)
{
    uint64_t epoch = atomic_load_explicit(&msc_prof.comm_epoch, memory_order_acquire);
    if (epoch != p->comm_epoch) {
        comm_clear(p);
        p->comm_epoch = epoch;
    }
    msc_pcomm_t *e = &p->comms[comm_slot(comm)];
    if (same_comm(e->comm, comm)) return e;
    if (!add || comm == MPI_COMM_NULL) return NULL;
    if (!same_comm(e->comm, MPI_COMM_NULL)) settle(p, e);
    p->coll_fn = -1; /* the memo may point into this entry */
    free(e->world);
    free(e->in);
    memset(e, 0, sizeof *e);
    e->comm = MPI_COMM_NULL;
    int inter = 0;
    MPI_Group g = MPI_GROUP_NULL, wg = msc_g.world_group; /* MPI_COMM_WORLD's, or mpi://WORLD's */
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return NULL;
    if (inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) return NULL;
    PMPI_Comm_rank(comm, &e->me);
    PMPI_Group_size(g, &e->size);
    int *in = malloc(2 * (size_t)e->size * sizeof *in);
    if (in) {
        int *out = in + e->size;
        bool identity = true;
        for (int i = 0; i < e->size; i++) in[i] = i;
        if (wg == MPI_GROUP_NULL || PMPI_Group_translate_ranks(g, e->size, in, wg, out) != MPI_SUCCESS)
            for (int i = 0; i < e->size; i++) out[i] = MPI_UNDEFINED;
        for (int i = 0; i < e->size; i++) identity &= out[i] == i;
        if (identity && e->size == msc_g.world_size) {
            free(in);
        } else {
            memmove(in, out, (size_t)e->size * sizeof *in);
            e->world = in;
        }
    }
    PMPI_Group_free(&g);
    if (!in) return NULL;
    e->inter = inter != 0;
    e->comm = comm;
    return e;
}

static inline msc_pcomm_t *comm_get(msc_ptab_t *p, MPI_Comm comm, bool add)
{
    msc_pcomm_t *e = &p->comms[comm_slot(comm)];
    if (MSC_LIKELY(same_comm(e->comm, comm) &&
                   atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed) ==
                       p->comm_epoch))
        return e;
    return comm_fill(p, comm, add);
}

/* The matrix cell of `peer` (a rank of cm) in class cls; NULL: none. */
static inline msc_pcell_t *edge_cell(msc_ptab_t *p, int cls, const msc_pcomm_t *cm, int peer)
{
    if (!p->row || peer < 0 || peer >= cm->size) return NULL;
    int w = cm->world ? cm->world[peer] : peer;
    if (w < 0 || w >= msc_g.world_size) return NULL;
    return &p->row[(size_t)cls * (size_t)msc_g.world_size + (size_t)w];
}

static inline void edge(msc_ptab_t *p, int cls, const msc_pcomm_t *cm, int peer, uint64_t bytes)
{
    msc_pcell_t *cell = edge_cell(p, cls, cm, peer);
    if (!cell) return;
    cell->msgs++;
    cell->bytes += bytes;
}

/* The point-to-point cell of (comm, peer) past the memo; remembers it. */
static __attribute__((noinline)) msc_pcell_t *p2p_cell(msc_ptab_t *p, MPI_Comm comm, int peer)
{
    uint64_t epoch = atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed);
    if (!p->row || peer < 0) return NULL; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    msc_pcomm_t *cm = comm_get(p, comm, true);
    msc_pcell_t *cell = cm ? edge_cell(p, MSC_PROF_P2P, cm, peer) : NULL;
    if (cell) {
        p->edge_comm = comm;
        p->edge_peer = peer;
        p->edge_epoch = epoch;
        p->edge_cell = cell;
    }
    return cell;
}

/* Sends go to few peers, mostly the same one again: the memo saves the
 * communicator lookup and the world-rank translation. A freed communicator
 * (comm_epoch) empties it, as it does the communicator cache. */
static inline void p2p_edge(msc_ptab_t *p, MPI_Comm comm, int peer, uint64_t bytes)
{
    msc_pcell_t *cell;
    if (MSC_LIKELY(peer == p->edge_peer && same_comm(comm, p->edge_comm) &&
                   p->edge_epoch ==
                       atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed)))
        cell = p->edge_cell;
    else if (!(cell = p2p_cell(p, comm, peer)))
        return;
    cell->msgs++;
    cell->bytes += bytes;
}

/* Size of `count` elements of `type`, with the last type's size remembered
 * per thread (a library call saved per send); MPI_Type_free forgets it, as a
 * freed handle may come back naming another type. */
static inline uint64_t type_bytes(msc_ptab_t *p, MPI_Datatype type, MPI_Count count)
{
    if (count <= 0) return 0;
    if (MSC_LIKELY(memcmp(&type, &p->last_type, sizeof type) == 0 &&
                   p->type_epoch == atomic_load_explicit(&msc_prof.type_epoch, memory_order_relaxed)))
        return p->last_type_size * (uint64_t)count;
    int64_t one = msc_type_bytes(type, 1);
    p->last_type = type;
    p->last_type_size = one > 0 ? (uint64_t)one : 0;
    p->type_epoch = atomic_load_explicit(&msc_prof.type_epoch, memory_order_relaxed);
    return p->last_type_size * (uint64_t)count;
}

/* ---- collectives -------------------------------------------------------- */

static int64_t tb(MPI_Datatype t, MPI_Count n)
{
    return msc_type_bytes(t, n);
}

static MPI_Count count_at(const msc_call_t *c, const void *counts, int i)
{
    if (!counts) return 0;
    return c->counts_are_mpi_count ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

static MPI_Count count_sum(const msc_call_t *c, const void *counts, int n)
{
    MPI_Count s = 0;
    for (int i = 0; i < n; i++) s += count_at(c, counts, i);
    return s;
}

/* Bytes of a call that moves data: into its stats, and one count into the
 * function's histogram (by what it sent, or else what it received). */
static inline void add_sized(msc_pfn_t *f, msc_pstat_t *st, uint64_t sent, uint64_t recv)
{
    st->bytes_sent += sent;
    st->bytes_recv += recv;
    f->hist[size_bin(sent ? sent : recv)]++;
}

/* The neighbourhood of a topology communicator, in the order of MPI's
 * neighbourhood collectives: a Cartesian one has, per dimension, the source
 * and the destination of MPI_Cart_shift by 1 (the same list in and out), a
 * graph its neighbours, a distributed graph its sources and destinations.
 * Asked once per communicator; false: no topology (or no memory). */
static __attribute__((noinline)) bool comm_topo(msc_pcomm_t *cm)
{
    if (cm->topo) return cm->in != NULL;
    cm->topo = true;
    int status = MPI_UNDEFINED, nin = 0, nout = 0, weighted = 0, nd = 0;
    if (PMPI_Topo_test(cm->comm, &status) != MPI_SUCCESS) return false;
    if (status == MPI_CART) {
        if (PMPI_Cartdim_get(cm->comm, &nd) != MPI_SUCCESS) return false;
        nin = nout = 2 * nd;
    } else if (status == MPI_GRAPH) {
        if (PMPI_Graph_neighbors_count(cm->comm, cm->me, &nin) != MPI_SUCCESS) return false;
        nout = nin;
    } else if (status == MPI_DIST_GRAPH) {
        if (PMPI_Dist_graph_neighbors_count(cm->comm, &nin, &nout, &weighted) != MPI_SUCCESS)
            return false;
    } else {
        return false;
    }
    size_t n = (size_t)nin + (size_t)nout;
    int *v = malloc((2 * n + 1) * sizeof *v); /* in, out, and room for weights */
    if (!v) return false;
    int rc = MPI_SUCCESS;
    if (status == MPI_CART) {
        for (int d = 0; d < nd && rc == MPI_SUCCESS; d++)
            rc = PMPI_Cart_shift(cm->comm, d, 1, &v[2 * d], &v[2 * d + 1]);
        memcpy(v + nin, v, (size_t)nin * sizeof *v);
    } else if (status == MPI_GRAPH) {
        rc = PMPI_Graph_neighbors(cm->comm, cm->me, nin, v);
        memcpy(v + nin, v, (size_t)nin * sizeof *v);
    } else {
        int *w = v + n;
        rc = PMPI_Dist_graph_neighbors(cm->comm, nin, v, weighted ? w : MPI_UNWEIGHTED, nout,
                                       v + nin, weighted ? w + nin : MPI_UNWEIGHTED);
    }
    if (rc != MPI_SUCCESS) {
        free(v);
        return false;
    }
    cm->nin = nin, cm->nout = nout;
    cm->in = v, cm->out = v + nin;
    return true;
}

/* A neighbourhood collective: a block to each out-neighbour, one from each
 * in-neighbour; MPI_PROC_NULL neighbours (Cartesian edges) move nothing. */
static void neighbourhood(msc_ptab_t *p, msc_call_t *c, msc_pfn_t *f, msc_pstat_t *st,
                          msc_pcomm_t *cm, shape_t sh)
{
    if (cm->inter || !comm_topo(cm)) {
        add_sized(f, st, 0, 0);
        return;
    }
    bool vsend = sh == SH_NALLTOALLV, vrecv = sh == SH_NALLGATHERV || sh == SH_NALLTOALLV;
    uint64_t sent = 0, recv = 0;
    int64_t each = vsend ? 0 : tb(c->type, c->count);
    int64_t reach = vrecv ? 0 : tb(c->rtype, c->rcount);
    for (int j = 0; j < cm->nout; j++) {
        if (cm->out[j] == MPI_PROC_NULL) continue;
        uint64_t b = (uint64_t)(vsend ? tb(c->type, count_at(c, c->counts, j)) : each);
        sent += b;
        edge(p, MSC_PROF_COLL, cm, cm->out[j], b);
    }
    for (int i = 0; i < cm->nin; i++)
        if (cm->in[i] != MPI_PROC_NULL)
            recv += (uint64_t)(vrecv ? tb(c->rtype, count_at(c, c->rcounts, i)) : reach);
    add_sized(f, st, sent, recv);
}

/* Fills the collective memo (profile.h) from a call just counted. */
static void coll_remember(msc_ptab_t *p, const msc_call_t *c, msc_pcomm_t *cm, uint8_t edge_kind,
                          uint64_t sent, uint64_t recv, uint64_t each)
{
    shape_t sh = (shape_t)msc_prof.shape[c->fn];
    p->coll_fn = (int32_t)c->fn;
    p->coll_comm = c->comm;
    p->coll_type = c->type;
    p->coll_count = c->count;
    p->coll_rooted = sh == SH_BCAST || sh == SH_REDUCE;
    p->coll_root = p->coll_rooted ? c->root : 0;
    p->coll_in_place = c->buf == MPI_IN_PLACE;
    p->coll_comm_epoch = atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed);
    p->coll_type_epoch = p->type_epoch;
    p->coll_sent = sent, p->coll_recv = recv, p->coll_each = each;
    p->coll_bin = (uint8_t)size_bin(sent ? sent : recv);
    msc_pcell_t *e = &p->coll_sink;
    if (p->row && !cm->inter) {
        if (edge_kind == 1) e = &cm->all;
        else if (edge_kind == 2) e = &cm->up;
        else if (edge_kind == 3 && edge_cell(p, MSC_PROF_COLL, cm, c->root)) e = edge_cell(p, MSC_PROF_COLL, cm, c->root);
    }
    p->coll_edge = e;
}

/* The memo's answer for a collective just made, counted; false: not the
 * memo's call (or something was freed since), nothing done. */
static inline bool coll_memo(msc_ptab_t *p, const msc_call_t *c, msc_pfn_t *f, msc_pstat_t *st)
{
    if (!((int32_t)c->fn == p->coll_fn && same_comm(c->comm, p->coll_comm) &&
          memcmp(&c->type, &p->coll_type, sizeof c->type) == 0 && c->count == p->coll_count &&
          (c->buf == MPI_IN_PLACE) == p->coll_in_place &&
          (!p->coll_rooted || c->root == p->coll_root) &&
          p->coll_comm_epoch == atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed) &&
          p->coll_type_epoch == atomic_load_explicit(&msc_prof.type_epoch, memory_order_relaxed)))
        return false;
    st->bytes_sent += p->coll_sent;
    st->bytes_recv += p->coll_recv;
    f->hist[p->coll_bin]++;
    p->coll_edge->msgs++;
    p->coll_edge->bytes += p->coll_each;
    return true;
}

/* A collective other than a barrier (which moves nothing and is not sized). */
static __attribute__((noinline)) void collective(msc_ptab_t *p, msc_call_t *c, msc_pfn_t *f,
                                                 msc_pstat_t *st)
{
    shape_t sh = (shape_t)msc_prof.shape[c->fn];
    msc_pcomm_t *cm = sh == SH_NONE || sh == SH_OTHER_COLL ? NULL : comm_get(p, c->comm, true);
    if (!cm) {
        add_sized(f, st, 0, 0);
        return;
    }
    int n = cm->size, me = cm->me;
    bool in_place = c->buf == MPI_IN_PLACE;
    bool root = !cm->inter && c->root == me;
    int64_t sent = 0, recv = 0, each = 0;
    const void *ecounts = NULL; /* per-destination counts of the edges */
    MPI_Datatype etype = MPI_DATATYPE_NULL;
    enum { E_NONE, E_ALL, E_TO_ROOT, E_FROM_ROOT, E_HIGHER } edges = E_NONE;
    switch (sh) {
    case SH_BCAST:
        each = (int64_t)type_bytes(p, c->type, c->count);
        if (root) sent = each, edges = E_FROM_ROOT;
        else recv = each;
        break;
    case SH_REDUCE:
        each = sent = (int64_t)type_bytes(p, c->type, c->count);
        if (root) recv = each;
        else edges = E_TO_ROOT;
        break;
    case SH_ALLREDUCE:
    case SH_SCAN:
        each = sent = recv = (int64_t)type_bytes(p, c->type, c->count);
        edges = sh == SH_SCAN ? E_HIGHER : E_ALL;
        break;
    case SH_RSB:
        each = recv = tb(c->type, c->rcount);
        sent = each * n;
        edges = E_ALL;
        break;
    case SH_RS:
        sent = tb(c->type, count_sum(c, c->rcounts, n));
        recv = tb(c->type, count_at(c, c->rcounts, me));
        ecounts = c->rcounts, etype = c->type, edges = E_ALL;
        break;
    case SH_GATHER:
    case SH_GATHERV:
        each = sent = in_place ? 0 : tb(c->type, c->count);
        if (root)
            recv = sh == SH_GATHER ? tb(c->rtype, c->rcount) * n
                                   : tb(c->rtype, count_sum(c, c->rcounts, n));
        else edges = E_TO_ROOT;
        break;
    case SH_SCATTER:
    case SH_SCATTERV:
        recv = c->rbuf == MPI_IN_PLACE ? 0 : tb(c->rtype, c->rcount);
        if (root) {
            if (sh == SH_SCATTER) each = tb(c->type, c->count), sent = each * n;
            else sent = tb(c->type, count_sum(c, c->counts, n)), ecounts = c->counts, etype = c->type;
            edges = E_FROM_ROOT;
        }
        break;
    case SH_ALLGATHER:
        each = sent = in_place ? tb(c->rtype, c->rcount) : tb(c->type, c->count);
        recv = tb(c->rtype, c->rcount) * n;
        edges = E_ALL;
        break;
    case SH_ALLGATHERV:
        each = sent = in_place ? tb(c->rtype, count_at(c, c->rcounts, me)) : tb(c->type, c->count);
        recv = tb(c->rtype, count_sum(c, c->rcounts, n));
        edges = E_ALL;
        break;
    case SH_ALLTOALL:
        each = in_place ? tb(c->rtype, c->rcount) : tb(c->type, c->count);
        sent = each * n;
        recv = tb(c->rtype, c->rcount) * n;
        edges = E_ALL;
        break;
    case SH_ALLTOALLV:
        recv = tb(c->rtype, count_sum(c, c->rcounts, n));
        if (in_place) sent = recv, ecounts = c->rcounts, etype = c->rtype;
        else sent = tb(c->type, count_sum(c, c->counts, n)), ecounts = c->counts, etype = c->type;
        edges = E_ALL;
        break;
    case SH_NALLGATHER:
    case SH_NALLGATHERV:
    case SH_NALLTOALL:
    case SH_NALLTOALLV:
        neighbourhood(p, c, f, st, cm, sh);
        return;
    default:
        break;
    }
    add_sized(f, st, (uint64_t)sent, (uint64_t)recv);
    if (!p->row || cm->inter) return;
    /* The same size to every peer (or every higher one): O(1) now, spread
     * over the peers' cells later (spread). */
    if (sh == SH_BCAST || sh == SH_REDUCE || sh == SH_ALLREDUCE || sh == SH_SCAN)
        coll_remember(p, c, cm, edges == E_ALL || edges == E_FROM_ROOT ? 1 : edges == E_HIGHER ? 2
                                : edges == E_TO_ROOT && c->root != me ? 3 : 0,
                      (uint64_t)sent, (uint64_t)recv, (uint64_t)each);
    if (!ecounts && (edges == E_ALL || edges == E_FROM_ROOT)) {
        cm->all.msgs++, cm->all.bytes += (uint64_t)each;
        return;
    }
    if (!ecounts && edges == E_HIGHER) {
        cm->up.msgs++, cm->up.bytes += (uint64_t)each;
        return;
    }
    if (edges == E_TO_ROOT && !ecounts) {
        if (c->root != me) edge(p, MSC_PROF_COLL, cm, c->root, (uint64_t)each);
        return;
    }
    if (edges == E_NONE) return; /* a root that only receives: no loop over the ranks */
    for (int j = 0; j < n; j++) {
        if (j == me) continue;
        bool on = edges == E_ALL || (edges == E_FROM_ROOT) ||
                  (edges == E_TO_ROOT && j == c->root) || (edges == E_HIGHER && j > me);
        if (!on) continue;
        uint64_t b = ecounts ? (uint64_t)tb(etype, count_at(c, ecounts, j)) : (uint64_t)each;
        edge(p, MSC_PROF_COLL, cm, j, b);
    }
}

/* ---- completions -------------------------------------------------------- */

/* Bytes of a completed operation, credited to the call that posted it. */
static __attribute__((noinline)) void completions(msc_ptab_t *p, msc_call_t *c)
{
    for (int i = 0; i < c->ndone; i++) {
        msc_done_t *d = &c->done[i];
        if (d->info.id == 0 || d->cancelled) continue;
        int k = d->info.kind;
        bool recv = k == MSC_KIND_IRECV || k == MSC_KIND_RECV_INIT || k == MSC_KIND_IMRECV ||
                    k == MSC_KIND_IO_IREAD;
        bool sent = (k == MSC_KIND_SEND_INIT && d->info.peer != MPI_PROC_NULL) ||
                    k == MSC_KIND_IO_IWRITE; /* Isend: counted when posted */
        if (!recv && !sent) continue;
        if (k == MSC_KIND_IO_IREAD || k == MSC_KIND_IO_IWRITE) msc_pio_done(d);
        uint64_t bytes = d->bytes > 0 ? (uint64_t)d->bytes : 0;
        msc_pfn_t *f = &p->fn[d->info.fn];
        msc_psite_t *s = d->info.site ? site_of(p, (int)d->info.fn, d->info.site) : NULL;
        msc_pstat_t *st = s ? &s->s : &f->s;
        f->hist[size_bin(bytes)]++;
        if (recv) {
            st->bytes_recv += bytes;
        } else {
            st->bytes_sent += bytes;
            if (k == MSC_KIND_SEND_INIT && p->row && d->info.peer >= 0) {
                msc_pcomm_t *cm = comm_get(p, d->info.comm, false);
                if (cm) edge(p, MSC_PROF_P2P, cm, d->info.peer, bytes);
            }
        }
    }
}

/* Persistent collectives started by MPI_Start(all): one instance each,
 * counted like the blocking form and credited to the MPI_*_init call and
 * its site (as completed persistent receives are). */
static __attribute__((noinline)) void started(msc_ptab_t *p, msc_call_t *c)
{
    int n = c->kind == MSC_KIND_START ? 1 : c->nreq;
    const MPI_Request *reqs = c->kind == MSC_KIND_START ? &c->req_in : c->reqs_in;
    for (int i = 0; reqs && i < n; i++) {
        msc_req_info_t in;
        if (!msc_requests_find(reqs[i], &in) || in.kind != MSC_KIND_COLL_INIT) continue;
        if (msc_prof.shape[in.fn] == SH_BARRIER) continue;
        msc_call_t one = {
            .fn = in.fn, .kind = MSC_KIND_COLL_INIT, .comm = in.comm, .root = in.root,
            .buf = in.send_in_place ? MPI_IN_PLACE : NULL,
            .rbuf = in.recv_in_place ? MPI_IN_PLACE : NULL,
            .count = in.count, .type = in.type, .rcount = in.rcount, .rtype = in.rtype,
            .counts = in.counts, .rcounts = in.rcounts,
            .counts_are_mpi_count = in.counts_are_mpi_count,
        };
        msc_pfn_t *f = &p->fn[in.fn];
        msc_psite_t *s = in.site ? site_of(p, (int)in.fn, in.site) : NULL;
        collective(p, &one, f, s ? &s->s : &f->s);
    }
}

/* Bytes a receive's status says arrived, or a file read or write's says
 * were done: read from the status (msc_status_bytes), which saves the
 * ~10 ns of a library call per call. */
static inline uint64_t status_bytes(MPI_Status *st)
{
    return (uint64_t)msc_status_bytes(st);
}


/* ---- the hook ------------------------------------------------------------ */

static __attribute__((noinline)) msc_ptab_t *table_first(msc_thread_t *t)
{
    return table_new(t);
}

/* The site entry of a call, past the memo; the memo holds only depth-1
 * sites, where the return address alone is the key. */
static __attribute__((noinline)) msc_psite_t *site_lookup(msc_ptab_t *p, msc_call_t *c)
{
    void *pc[MSC_PROF_DEPTH_MAX];
    pc[0] = c->site;
    if (msc_prof.depth > 1) msc_callsite_backtrace(c->site, pc, msc_prof.depth);
    msc_psite_t *s = c->site ? site_get(p, c->fn, pc) : NULL;
    if (!s) {
        if (msc_prof.max_sites) p->site_dropped++;
    } else if (msc_prof.depth == 1) {
        unsigned i = memo_slot(c->site);
        p->memo[i].pc = c->site;
        p->memo[i].fn = (int32_t)c->fn;
        p->memo[i].site = s;
    }
    return s;
}

/* What a call adds beyond its time: bytes, histogram, matrix, epochs and
 * the operations it completed, for every kind. */
/* Appends `s` to the command being described, as one word of it: spaces
 * between words, control characters (tabs, newlines) made spaces, cut at
 * the buffer's end. */
static void add_word(char *buf, size_t *at, const char *s)
{
    if (!s) return;
    if (*at && *at + 1 < MSC_PROF_SPAWN_CMD) buf[(*at)++] = ' ';
    for (; *s && *at + 1 < MSC_PROF_SPAWN_CMD; s++)
        buf[(*at)++] = (unsigned char)*s < 0x20 ? ' ' : *s;
    buf[*at] = 0;
}

/* The command line a spawn's root gave: command and arguments; for
 * MPI_Comm_spawn_multiple each command with its own, " : " between them
 * (mpirun's notation). The arguments are significant at the root alone
 * (MPI-3.1 section 10.3.2), which is where this runs. */
static void spawn_command(const msc_call_t *c, bool multiple, msc_pspawn_t *s)
{
    size_t at = 0;
    s->command[0] = 0;
    if (!multiple) {
        char **argv = (char **)c->arg[1];
        add_word(s->command, &at, (const char *)c->arg[0]);
        for (int i = 0; argv && argv[i] && i < 64; i++) add_word(s->command, &at, argv[i]);
        s->procs = (int)c->arg[2];
        return;
    }
    int n = (int)c->arg[0];
    char **cmds = (char **)c->arg[1];
    char ***argvs = (char ***)c->arg[2];
    const int *procs = (const int *)c->arg[3];
    s->procs = 0;
    for (int k = 0; cmds && k < n && k < 64; k++) {
        if (k) add_word(s->command, &at, ":");
        add_word(s->command, &at, cmds[k]);
        char **argv = argvs ? argvs[k] : NULL;
        for (int i = 0; argv && argv[i] && i < 64; i++) add_word(s->command, &at, argv[i]);
        if (procs) s->procs += procs[k];
    }
}

/* A world made by MPI_Comm_spawn(_multiple): counted once, at the call's
 * root, so that the report can tell whether every spawned world left
 * results, and described there, so that it can name one that did not
 * (docs/worlds.md). */
static void spawned(const msc_call_t *c)
{
    int me = -1;
    if (c->rc != MPI_SUCCESS || c->comm == MPI_COMM_NULL ||
        PMPI_Comm_rank(c->comm, &me) != MPI_SUCCESS || me != c->root)
        return;
    atomic_fetch_add_explicit(&msc_prof.worlds_spawned, 1, memory_order_relaxed);
    int k = atomic_fetch_add_explicit(&msc_prof.nspawns, 1, memory_order_relaxed);
    if (k >= MSC_PROF_SPAWNS) return; /* counted, not described */
    msc_pspawn_t *s = &msc_prof.spawns[k];
    s->fn = (int)c->fn;
    s->site = c->site;
    s->procs = 0;
    s->command[0] = 0;
    if (c->nargs > 3) spawn_command(c, (int)c->fn == msc_prof.fn_spawn_multiple, s);
}

static __attribute__((noinline)) void leave_kind(msc_ptab_t *p, msc_call_t *c, msc_pfn_t *f,
                                                 msc_pstat_t *st)
{
    bool ok = c->rc == MPI_SUCCESS;
    switch (c->kind) {
    case MSC_KIND_SEND:
    case MSC_KIND_ISEND:
    case MSC_KIND_ISENDRECV: /* the send; the receive at its completion */
        if (!ok || c->peer == MPI_PROC_NULL) break;
        {
            uint64_t sent = type_bytes(p, c->type, c->count);
            p2p_edge(p, c->comm, c->peer, sent);
            add_sized(f, st, sent, 0);
        }
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_MRECV:
        if (!ok || (c->kind == MSC_KIND_RECV && c->peer == MPI_PROC_NULL)) break;
        add_sized(f, st, 0, status_bytes(c->status));
        break;
    case MSC_KIND_SENDRECV:
        if (!ok && c->rc != MPI_ERR_IN_STATUS) break;
        {
            uint64_t sent = 0;
            if (c->peer != MPI_PROC_NULL) {
                sent = type_bytes(p, c->type, c->count);
                p2p_edge(p, c->comm, c->peer, sent);
            }
            add_sized(f, st, sent, status_bytes(c->status));
        }
        break;
    case MSC_KIND_IRECV:
    case MSC_KIND_SEND_INIT:
    case MSC_KIND_RECV_INIT:
        /* Counted at completion; make sure the communicator is known then. */
        if (ok && p->row && c->peer >= 0) comm_get(p, c->comm, true);
        break;
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
        if (ok && msc_prof.shape[c->fn] != SH_BARRIER) collective(p, c, f, st);
        break;
    case MSC_KIND_COLL_INIT: /* counted when started */
        if (ok) atomic_store_explicit(&msc_prof.coll_inits, true, memory_order_relaxed);
        break;
    case MSC_KIND_START:
    case MSC_KIND_STARTALL:
        if (ok && atomic_load_explicit(&msc_prof.coll_inits, memory_order_relaxed)) started(p, c);
        break;
    case MSC_KIND_IO_READ:
    case MSC_KIND_IO_WRITE:
    case MSC_KIND_IO_END:
        if (ok) {
            uint64_t n = status_bytes(c->status);
            bool w = c->kind == MSC_KIND_IO_WRITE || (c->kind == MSC_KIND_IO_END && msc_prof.io_write[c->fn]);
            add_sized(f, st, w ? n : 0, w ? 0 : n);
            msc_pio_call(c, n);
        }
        break;
    case MSC_KIND_IO_IREAD:
    case MSC_KIND_IO_IWRITE: /* bytes when they complete */
        msc_pio_call(c, 0);
        break;
    case MSC_KIND_HANDLE_NEW:
    case MSC_KIND_HANDLE_FREE:
        if (c->obj_class == MSC_OBJ_FILE) msc_pio_call(c, 0);
        else if (MSC_UNLIKELY((int)c->fn == msc_prof.fn_type_free))
            atomic_fetch_add_explicit(&msc_prof.type_epoch, 1, memory_order_release);
        break;
    case MSC_KIND_COMM_FREE:
        atomic_fetch_add_explicit(&msc_prof.comm_epoch, 1, memory_order_release);
        break;
    default:
        if (MSC_UNLIKELY((int)c->fn == msc_prof.fn_type_free))
            atomic_fetch_add_explicit(&msc_prof.type_epoch, 1, memory_order_release);
        else if (MSC_UNLIKELY((int)c->fn == msc_prof.fn_spawn ||
                              (int)c->fn == msc_prof.fn_spawn_multiple))
            spawned(c);
        break;
    }
    if (MSC_UNLIKELY(c->ndone)) completions(p, c);
}

/* The first call of a thread, and calls past the site cache. */
static __attribute__((noinline)) void leave_slow(msc_call_t *c)
{
    msc_ptab_t *p = c->thread->module_data[msc_prof.slot];
    if (!p && !(p = table_first(c->thread))) return;
    msc_pfn_t *f = &p->fn[c->fn];
    msc_psite_t *s = site_lookup(p, c);
    msc_pstat_t *st = s ? &s->s : &f->s;
    stat_time(st, c->t_leave - c->t_enter);
    leave_kind(p, c, f, st);
}

/* Bytes of a successful send of c->count elements of c->type to c->peer when
 * both memos know the answer (the datatype's size and the matrix cell), with
 * the cell counted; false: nothing done, take leave_kind. */
static inline bool send_memo(msc_ptab_t *p, const msc_call_t *c, uint64_t *sent)
{
    if (!(c->count > 0 && memcmp(&c->type, &p->last_type, sizeof c->type) == 0 &&
          p->type_epoch == atomic_load_explicit(&msc_prof.type_epoch, memory_order_relaxed) &&
          c->peer == p->edge_peer && same_comm(c->comm, p->edge_comm) &&
          p->edge_epoch == atomic_load_explicit(&msc_prof.comm_epoch, memory_order_relaxed)))
        return false;
    *sent = p->last_type_size * (uint64_t)c->count;
    p->edge_cell->msgs++;
    p->edge_cell->bytes += *sent;
    return true;
}

/* The hot path: a call from a site in the memo, whose kind's work the memos
 * answer, is done without a call of its own and without saving registers;
 * anything else tail-calls the general paths. The numbers are the same. */
static void profile_leave(msc_call_t *c)
{
    msc_ptab_t *p = c->thread->module_data[msc_prof.slot];
    unsigned i = memo_slot(c->site);
    if (MSC_UNLIKELY(!p || c->site != p->memo[i].pc || (int32_t)c->fn != p->memo[i].fn || !c->site)) {
        leave_slow(c);
        return;
    }
    msc_pfn_t *f = &p->fn[c->fn];
    msc_pstat_t *st = &p->memo[i].site->s;
    stat_time(st, c->t_leave - c->t_enter);
    uint64_t sent;
    switch (c->kind) {
    case MSC_KIND_OTHER:
        if (MSC_LIKELY(!msc_prof.other_slow[c->fn] && !c->ndone)) return;
        break;
    case MSC_KIND_SEND:
    case MSC_KIND_ISEND:
    case MSC_KIND_ISENDRECV:
        if (c->rc != MPI_SUCCESS || c->ndone || !send_memo(p, c, &sent)) break;
        add_sized(f, st, sent, 0);
        return;
    case MSC_KIND_SENDRECV:
        if (c->rc != MPI_SUCCESS || c->ndone || !send_memo(p, c, &sent)) break;
        add_sized(f, st, sent, status_bytes(c->status));
        return;
    case MSC_KIND_IRECV:
    case MSC_KIND_SEND_INIT:
    case MSC_KIND_RECV_INIT: /* as leave_kind */
        if (c->ndone) break;
        if (c->rc == MPI_SUCCESS && p->row && c->peer >= 0) comm_get(p, c->comm, true);
        return;
    case MSC_KIND_WAIT:
    case MSC_KIND_TEST:
    case MSC_KIND_WAITANY:
    case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL:
    case MSC_KIND_TESTALL:
    case MSC_KIND_WAITSOME:
    case MSC_KIND_TESTSOME: /* as leave_kind: only what completed */
        if (c->ndone) completions(p, c);
        return;
    case MSC_KIND_START:
    case MSC_KIND_STARTALL: /* as leave_kind when no persistent collective was made */
        if (c->ndone || atomic_load_explicit(&msc_prof.coll_inits, memory_order_relaxed)) break;
        return;
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
        if (c->ndone) break;
        if (msc_prof.shape[c->fn] == SH_BARRIER) return; /* moves nothing */
        if (c->rc == MPI_SUCCESS && coll_memo(p, c, f, st)) return;
        break;
    default:
        break;
    }
    leave_kind(p, c, f, st);
}

/* ---- life cycle ------------------------------------------------------------ */

static int profile_init(int slot)
{
    msc_prof.slot = slot;
    msc_prof.depth = (int)msc_g.settings.v[MSC_SET_CALLSITE_DEPTH].num;
    if (msc_prof.depth < 1) msc_prof.depth = 1; /* 0: sites off, see max_sites */
    msc_prof.max_sites = (int)msc_g.settings.v[MSC_SET_PROFILE_SITES].num;
    if (msc_g.settings.v[MSC_SET_CALLSITE_DEPTH].num == 0) msc_prof.max_sites = 0;
    int cap = 16;
    while (cap < 2 * msc_prof.max_sites) cap *= 2;
    msc_prof.site_cap = cap;
    long long mr = msc_g.settings.v[MSC_SET_PROFILE_MATRIX_RANKS].num;
    msc_prof.matrix_on = mr > 0 && msc_g.world_size <= mr;
    msc_prof.matrix_pairs = (int)msc_g.settings.v[MSC_SET_PROFILE_MATRIX_PAIRS].num;
    msc_prof.per_rank = msc_g.settings.v[MSC_SET_PROFILE_PER_RANK].num != 0;
    setup_shapes();
    msc_prof.fn_type_free = msc_fn_lookup("MPI_Type_free");
    msc_prof.fn_spawn = msc_fn_lookup("MPI_Comm_spawn");
    msc_prof.fn_spawn_multiple = msc_fn_lookup("MPI_Comm_spawn_multiple");
    int slow[] = {msc_prof.fn_type_free, msc_prof.fn_spawn, msc_prof.fn_spawn_multiple};
    for (size_t i = 0; i < sizeof slow / sizeof *slow; i++)
        if (slow[i] >= 0) msc_prof.other_slow[slow[i]] = 1;
    msc_pio_init();
    msc_prun_init();
    return 0;
}

static void profile_pcontrol(int level)
{
    uint64_t now = msc_now_ns();
    if (level == 0 && !msc_prof.off_since_ns) msc_prof.off_since_ns = now;
    if (level == 1 && msc_prof.off_since_ns) {
        msc_prof.off_ns += now - msc_prof.off_since_ns;
        msc_prof.off_since_ns = 0;
    }
    if (level == 2) msc_prof_write(true);
}

static void profile_finalize(void)
{
    if (msc_prof.off_since_ns) {
        msc_prof.off_ns += msc_g.t_finalize_begin - msc_prof.off_since_ns;
        msc_prof.off_since_ns = 0;
    }
    msc_prof_write(false);
}

/* ---- emergency ------------------------------------------------------------ */

/* The rank is going down (module.h). Writing the profile takes the thread
 * registry lock, malloc and stdio, none of which is async-signal-safe: if
 * the signal interrupted a thread holding one of them (a crash inside
 * malloc, say), the write would wait forever. The core runs this hook under
 * its watchdog (msc_fatal_guarded), which abandons it after a few seconds;
 * files are renamed into place only when complete, so nothing half-written
 * is left under a final name. */
static void profile_emergency(int signum)
{
    char why[64];
    msc_fatal_reason(signum, why, sizeof why);
    const char *test = getenv("MSC_TEST_EMERGENCY_HANG"); /* tests: the watchdog */
    if (test && atoi(test) == msc_g.world_rank) pause();
    msc_prof_write_incomplete(why);
}

static const msc_module_t profile_module = {
    .abi = MSC_MODULE_ABI,
    .name = "profile",
    .mode = "profile",
    .init = profile_init,
    .leave = profile_leave,
    .pcontrol = profile_pcontrol,
    .finalize = profile_finalize,
    .emergency = profile_emergency,
    .solo = true,
};

MSC_CONSTRUCTOR static void profile_register(void)
{
    msc_module_register(&profile_module);
}
