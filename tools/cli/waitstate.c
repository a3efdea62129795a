/* Wait-state analysis of an OTF2 trace: how long ranks wait, and why, in
 * the patterns of Scalasca (Late Sender and its wrong-order case, Late
 * Receiver, Wait at Barrier, Wait at N×N, Late Broadcast, Early Reduce,
 * Barrier and N×N Completion), per rank and per call site.
 *
 * Design. Two phases, neither of which needs the events in global time
 * order, so every location is read on its own with OTF2's local event
 * reader (no merge heap: the read is as fast as OTF2 reads):
 *
 * 1. Read. For each location, one compact record per MPI call (enter,
 *    leave, region, call site), per message end (communicator, peer as a
 *    world rank, tag, the call it belongs to) and per blocking collective
 *    (communicator, operation, root, call). A call site is the call path:
 *    the enclosing user regions and the MPI region, plus the file and line
 *    when the Enter event carries a SOURCE_CODE_LOCATION attribute.
 *    Timestamps are OTF2's, with the clock offsets of the local
 *    definitions applied by the reader.
 * 2. Match and classify. Sends are chained per channel (communicator,
 *    sender, receiver, tag) in the sender's order; each receive takes the
 *    first unmatched send of its channel (MPI's non-overtaking rule). A
 *    collective instance is the k-th collective on a communicator on each
 *    member. Then each call gets its waiting time:
 *    - Late Sender: a blocking receive (Recv, Sendrecv, Wait forms, Mrecv)
 *      entered before its message's send call was entered:
 *      min(send.enter, recv.leave) - recv.enter; one value per call (the
 *      largest, for a Waitall of several messages). Wrong order: a message
 *      that this location receives later had been sent before the receive
 *      began.
 *    - Late Receiver: a blocking send (Send, Ssend, Bsend, Rsend,
 *      Sendrecv) entered before the receive: min(recv.enter, send.leave) -
 *      send.enter. An eager send returns at once, so it scores ~0.
 *    - Wait at Barrier / Wait at N×N: min(last enter, leave) - enter.
 *    - Barrier / N×N Completion: leave - first leave.
 *    - Late Broadcast (Bcast, Scatter(v)): a non-root entered before the
 *      root: min(root.enter, leave) - enter.
 *    - Early Reduce (Reduce, Gather(v)): the root entered before the first
 *      other member: min(first other enter, leave) - root.enter.
 *
 * Memory: about 40 bytes per MPI call and 16 per message end, all in this
 * process (the analysis under MPI is not written yet, docs/report.md).
 */
#include "waitstate.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const ws_pattern_id[WS_NPATTERNS] = {
    "late_sender",     "late_sender_wrong_order", "late_receiver",
    "wait_barrier",    "wait_nxn",                "late_broadcast",
    "early_reduce",    "barrier_completion",      "nxn_completion"};
const char *const ws_pattern_title[WS_NPATTERNS] = {
    "Late Sender",     "Late Sender, wrong order", "Late Receiver",
    "Wait at Barrier", "Wait at NxN",           "Late Broadcast",
    "Early Reduce",    "Barrier Completion",    "NxN Completion"};

/* What an MPI region does, from its name. */
enum { K_OTHER, K_RECV, K_SEND, K_SENDRECV, K_WAIT, K_TEST };

typedef struct {
    uint64_t enter, leave; /* ticks */
    uint64_t ls, lr;       /* Late Sender, Late Receiver waiting (ticks) */
    uint32_t region, site;
    uint32_t wrong_order;
} ws_call_t;

typedef struct {
    uint32_t comm;
    int32_t peer; /* world rank of the other end */
    uint32_t tag;
    uint32_t call;
} ws_msg_t;

typedef struct {
    uint32_t comm, op;
    int32_t root; /* world rank, or -1 */
    uint32_t call;
} ws_coll_t;

#define VEC(T) struct { T *v; size_t n, cap; }
#define PUSH(vec, x)                                                                   \
    do {                                                                               \
        if ((vec).n == (vec).cap) {                                                    \
            size_t nc_ = (vec).cap ? 2 * (vec).cap : 64;                               \
            void *p_ = realloc((vec).v, nc_ * sizeof *(vec).v);                        \
            if (!p_) abort();                                                          \
            (vec).v = p_;                                                              \
            (vec).cap = nc_;                                                           \
        }                                                                              \
        (vec).v[(vec).n++] = (x);                                                      \
    } while (0)

typedef struct {
    uint32_t region, site;
    int64_t call; /* index in calls, or -1 for a user region */
} ws_frame_t;

typedef struct {
    uint64_t id;
    int rank;
    VEC(ws_call_t) calls;
    VEC(ws_msg_t) sends;
    VEC(ws_msg_t) recvs;
    VEC(ws_coll_t) colls;
    VEC(ws_frame_t) stack;
} ws_loc_t;

typedef struct {
    uint32_t parent, region, scl;
} ws_node_t;

typedef struct {
    uint32_t n;
    uint32_t *m;  /* world ranks */
} ws_group_t;

typedef struct {
    int32_t a, b; /* groups; b = -1: intracommunicator */
} ws_comm_t;

#define WS_SITE_CACHE 1024
typedef struct {
    uint32_t parent, region, scl, site;
} ws_sc_t;

typedef struct {
    ws_sc_t site_cache[WS_SITE_CACHE];
    /* definitions */
    VEC(char *) strings;
    VEC(uint32_t) region_name; /* by region ref: string ref */
    VEC(uint8_t) region_mpi;
    VEC(uint8_t) region_kind;
    VEC(ws_group_t) groups;
    VEC(ws_comm_t) comms;
    VEC(uint32_t) scl_file;
    VEC(uint32_t) scl_line;
    uint32_t scl_attr;
    uint64_t resolution;
    ws_loc_t *locs;
    size_t nlocs, locs_cap;
    int ranks;
    /* call sites: hash-consed (parent, region, scl) */
    VEC(ws_node_t) nodes;
    uint32_t *node_hash;
    size_t node_hash_cap;
    ws_loc_t *cur;
} ws_ctx_t;

static const char *sref(ws_ctx_t *c, uint32_t s)
{
    return s < c->strings.n && c->strings.v[s] ? c->strings.v[s] : "";
}

static void grow_to(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    char *p = realloc(*v, nc * elem);
    if (!p) abort();
    memset(p + *cap * elem, 0, (nc - *cap) * elem);
    *v = p;
    *cap = nc;
}
#define SETAT(vec, i, x)                                                                 \
    do {                                                                                 \
        grow_to((void **)&(vec).v, &(vec).cap, (size_t)(i) + 1, sizeof *(vec).v);         \
        if ((vec).n <= (size_t)(i)) (vec).n = (size_t)(i) + 1;                           \
        (vec).v[i] = (x);                                                                \
    } while (0)

/* ---- definitions ------------------------------------------------------- */

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    ws_ctx_t *c = u;
    char *d = strdup(s);
    SETAT(c->strings, self, d);
    return OTF2_CALLBACK_SUCCESS;
}

static int region_kind(const char *n)
{
    if (!strcmp(n, "MPI_Recv") || !strcmp(n, "MPI_Mrecv")) return K_RECV;
    if (!strcmp(n, "MPI_Send") || !strcmp(n, "MPI_Ssend") || !strcmp(n, "MPI_Bsend") ||
        !strcmp(n, "MPI_Rsend"))
        return K_SEND;
    if (!strcmp(n, "MPI_Sendrecv") || !strcmp(n, "MPI_Sendrecv_replace")) return K_SENDRECV;
    if (!strncmp(n, "MPI_Wait", 8)) return K_WAIT;
    if (!strncmp(n, "MPI_Test", 8)) return K_TEST;
    return K_OTHER;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                  OTF2_StringRef file, uint32_t b, uint32_t e)
{
    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    ws_ctx_t *c = u;
    SETAT(c->region_name, self, name);
    SETAT(c->region_mpi, self, paradigm == OTF2_PARADIGM_MPI);
    SETAT(c->region_kind, self, (uint8_t)region_kind(sref(c, name)));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nev,
                                    OTF2_LocationGroupRef group)
{
    (void)name, (void)type, (void)nev;
    ws_ctx_t *c = u;
    grow_to((void **)&c->locs, &c->locs_cap, c->nlocs + 1, sizeof *c->locs);
    ws_loc_t *l = &c->locs[c->nlocs++];
    memset(l, 0, sizeof *l);
    l->id = self;
    l->rank = (int)group;
    if ((int)group + 1 > c->ranks) c->ranks = (int)group + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                 uint32_t n, const uint64_t *members)
{
    (void)name, (void)paradigm, (void)flags;
    ws_ctx_t *c = u;
    ws_group_t g = {0, NULL};
    if (type == OTF2_GROUP_TYPE_COMM_GROUP || type == OTF2_GROUP_TYPE_COMM_SELF) {
        g.n = n;
        g.m = malloc((n ? n : 1) * sizeof *g.m);
        for (uint32_t i = 0; i < n; i++) g.m[i] = (uint32_t)members[i];
    }
    SETAT(c->groups, self, g);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    ws_ctx_t *c = u;
    SETAT(c->comms, self, ((ws_comm_t){(int32_t)group, -1}));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                     OTF2_GroupRef a, OTF2_GroupRef b, OTF2_CommRef common,
                                     OTF2_CommFlag flags)
{
    (void)name, (void)common, (void)flags;
    ws_ctx_t *c = u;
    SETAT(c->comms, self, ((ws_comm_t){(int32_t)a, (int32_t)b}));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                               uint32_t line)
{
    ws_ctx_t *c = u;
    SETAT(c->scl_file, self, file);
    SETAT(c->scl_line, self, line);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef desc, OTF2_Type type)
{
    (void)desc;
    ws_ctx_t *c = u;
    if (type == OTF2_TYPE_SOURCE_CODE_LOCATION && !strcmp(sref(c, name), "SOURCE_CODE_LOCATION"))
        c->scl_attr = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t realtime)
{
    (void)off, (void)len, (void)realtime;
    ((ws_ctx_t *)u)->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

/* World rank of rank `peer` of communicator `comm`, seen from world rank `me`. */
static int32_t world_of(ws_ctx_t *c, uint32_t comm, int me, uint32_t peer)
{
    if (comm >= c->comms.n) return -1;
    ws_comm_t *k = &c->comms.v[comm];
    if (k->a < 0 || (size_t)k->a >= c->groups.n) return -1;
    ws_group_t *g = &c->groups.v[k->a];
    if (k->b >= 0 && (size_t)k->b < c->groups.n) {
        bool in_a = false;
        for (uint32_t i = 0; i < g->n; i++) in_a |= g->m[i] == (uint32_t)me;
        if (in_a) g = &c->groups.v[k->b];
    }
    return peer < g->n ? (int32_t)g->m[peer] : -1;
}

/* ---- call sites ---------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static uint32_t site_of(ws_ctx_t *c, uint32_t parent, uint32_t region, uint32_t scl)
{
    if (c->nodes.n * 2 >= c->node_hash_cap) {
        size_t cap = c->node_hash_cap ? 2 * c->node_hash_cap : 1024;
        uint32_t *h = malloc(cap * sizeof *h);
        if (!h) abort();
        memset(h, 0xff, cap * sizeof *h);
        for (size_t i = 0; i < c->nodes.n; i++) {
            ws_node_t *n = &c->nodes.v[i];
            uint64_t k = mix(((uint64_t)n->parent << 32 | n->region) ^ mix(n->scl)) & (cap - 1);
            while (h[k] != UINT32_MAX) k = (k + 1) & (cap - 1);
            h[k] = (uint32_t)i;
        }
        free(c->node_hash);
        c->node_hash = h;
        c->node_hash_cap = cap;
    }
    size_t cap = c->node_hash_cap;
    uint64_t k = mix(((uint64_t)parent << 32 | region) ^ mix(scl)) & (cap - 1);
    while (c->node_hash[k] != UINT32_MAX) {
        ws_node_t *n = &c->nodes.v[c->node_hash[k]];
        if (n->parent == parent && n->region == region && n->scl == scl) return c->node_hash[k];
        k = (k + 1) & (cap - 1);
    }
    c->node_hash[k] = (uint32_t)c->nodes.n;
    PUSH(c->nodes, ((ws_node_t){parent, region, scl}));
    return (uint32_t)(c->nodes.n - 1);
}

/* ---- events -------------------------------------------------------------- */

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t scl = UINT32_MAX;
    if (al && OTF2_AttributeList_GetNumberOfElements(al)) {
        OTF2_SourceCodeLocationRef s;
        if (OTF2_AttributeList_GetSourceCodeLocationRef(al, c->scl_attr, &s) == OTF2_SUCCESS)
            scl = s;
    }
    uint32_t parent = l->stack.n ? l->stack.v[l->stack.n - 1].site : UINT32_MAX;
    /* Most Enters repeat a recent (parent, region): a direct-mapped cache
     * in front of the hash table. */
    uint32_t slot = (parent * 2654435761u ^ region * 40503u ^ scl) & (WS_SITE_CACHE - 1);
    ws_sc_t *e = &c->site_cache[slot];
    uint32_t site;
    if (e->site != UINT32_MAX && e->parent == parent && e->region == region && e->scl == scl) {
        site = e->site;
    } else {
        site = site_of(c, parent, region, scl);
        *e = (ws_sc_t){parent, region, scl, site};
    }
    int64_t call = -1;
    if (region < c->region_mpi.n && c->region_mpi.v[region]) {
        call = (int64_t)l->calls.n;
        PUSH(l->calls, ((ws_call_t){.enter = t, .leave = t, .region = region, .site = site}));
    }
    PUSH(l->stack, ((ws_frame_t){region, site, call}));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)al, (void)region;
    ws_loc_t *l = ((ws_ctx_t *)u)->cur;
    if (!l->stack.n) return OTF2_CALLBACK_SUCCESS;
    ws_frame_t *f = &l->stack.v[--l->stack.n];
    if (f->call >= 0) l->calls.v[f->call].leave = t;
    return OTF2_CALLBACK_SUCCESS;
}

static uint32_t open_call(ws_loc_t *l)
{
    for (size_t i = l->stack.n; i-- > 0;)
        if (l->stack.v[i].call >= 0) return (uint32_t)l->stack.v[i].call;
    return UINT32_MAX;
}

static void msg(ws_ctx_t *c, bool send, OTF2_CommRef comm, uint32_t peer, uint32_t tag)
{
    ws_loc_t *l = c->cur;
    uint32_t call = open_call(l);
    int32_t w = world_of(c, comm, l->rank, peer);
    if (call == UINT32_MAX || w < 0) return;
    ws_msg_t m = {comm, w, tag, call};
    if (send)
        PUSH(l->sends, m);
    else
        PUSH(l->recvs, m);
}

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)t, (void)al, (void)len;
    msg(u, true, comm, receiver, tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_send(loc, t, pos, u, al, receiver, comm, tag, len);
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)t, (void)al, (void)len;
    msg(u, false, comm, sender, tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_recv(loc, t, pos, u, al, sender, comm, tag, len);
}

static OTF2_CallbackCode e_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                    OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)loc, (void)pos, (void)t, (void)al, (void)sent, (void)recvd;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t call = open_call(l);
    if (call == UINT32_MAX || comm >= c->comms.n || c->comms.v[comm].b >= 0)
        return OTF2_CALLBACK_SUCCESS; /* intercommunicator collectives are not analysed */
    int32_t r = root == OTF2_UNDEFINED_UINT32 ? -1 : world_of(c, comm, l->rank, root);
    PUSH(l->colls, ((ws_coll_t){comm, op, r, call}));
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- phase 2 ------------------------------------------------------------- */

typedef struct {
    uint32_t comm, tag;
    int32_t src, dst;
    int64_t head, tail; /* send chain (global send index) */
} ws_chan_t;

typedef struct {
    ws_chan_t *t;
    size_t cap, n;
} ws_chans_t;

static uint64_t chan_hash(uint32_t comm, int32_t src, int32_t dst, uint32_t tag)
{
    return mix(((uint64_t)comm << 32 | tag) ^ mix((uint64_t)(uint32_t)src << 32 | (uint32_t)dst));
}

static ws_chan_t *chan_get(ws_chans_t *h, uint32_t comm, int32_t src, int32_t dst, uint32_t tag,
                           bool create)
{
    if (create && h->n * 2 >= h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        ws_chan_t *t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (size_t i = 0; i < cap; i++) t[i].head = -2;
        for (size_t i = 0; i < h->cap; i++) {
            if (h->t[i].head == -2) continue;
            ws_chan_t *o = &h->t[i];
            size_t k = chan_hash(o->comm, o->src, o->dst, o->tag) & (cap - 1);
            while (t[k].head != -2) k = (k + 1) & (cap - 1);
            t[k] = *o;
        }
        free(h->t);
        h->t = t;
        h->cap = cap;
    }
    if (!h->cap) return NULL;
    size_t k = chan_hash(comm, src, dst, tag) & (h->cap - 1);
    while (h->t[k].head != -2) {
        ws_chan_t *x = &h->t[k];
        if (x->comm == comm && x->src == src && x->dst == dst && x->tag == tag) return x;
        k = (k + 1) & (h->cap - 1);
    }
    if (!create) return NULL;
    h->n++;
    h->t[k] = (ws_chan_t){comm, tag, src, dst, -1, -1};
    return &h->t[k];
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

typedef struct {
    uint64_t max_enter, min_leave, root_enter, first_other;
    uint32_t op;
    int32_t root;
} ws_inst_t;

typedef struct {
    uint32_t comm, seq, inst;
} ws_ikey_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void free_ctx(ws_ctx_t *c)
{
    for (size_t i = 0; i < c->strings.n; i++) free(c->strings.v[i]);
    free(c->strings.v);
    free(c->region_name.v);
    free(c->region_mpi.v);
    free(c->region_kind.v);
    for (size_t i = 0; i < c->groups.n; i++) free(c->groups.v[i].m);
    free(c->groups.v);
    free(c->comms.v);
    free(c->scl_file.v);
    free(c->scl_line.v);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        free(l->calls.v), free(l->sends.v), free(l->recvs.v), free(l->colls.v), free(l->stack.v);
    }
    free(c->locs);
    free(c->nodes.v);
    free(c->node_hash);
}

static int cmp_site(const void *a, const void *b)
{
    const ws_site_t *x = a, *y = b;
    uint64_t tx = 0, ty = 0;
    for (int p = 0; p < WS_NPATTERNS; p++)
        if (p != WS_LATE_SENDER_WO) tx += x->ns[p], ty += y->ns[p];
    if (tx != ty) return tx > ty ? -1 : 1;
    if (x->mpi_ns != y->mpi_ns) return x->mpi_ns > y->mpi_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static char *site_string(ws_ctx_t *c, uint32_t node, ws_site_t *s)
{
    ws_node_t *n = &c->nodes.v[node];
    const char *fn = sref(c, c->region_name.v[n->region]);
    char path[1024] = "";
    /* Enclosing regions, outermost first. */
    uint32_t chain[64];
    int depth = 0;
    for (uint32_t p = n->parent; p != UINT32_MAX && depth < 64; p = c->nodes.v[p].parent)
        chain[depth++] = p;
    size_t off = 0;
    for (int i = depth - 1; i >= 0 && off < sizeof path - 1; i--) {
        int w = snprintf(path + off, sizeof path - off, "%s%s", off ? " > " : "",
                         sref(c, c->region_name.v[c->nodes.v[chain[i]].region]));
        if (w > 0) off += (size_t)w;
    }
    s->function = strdup(fn);
    s->path = strdup(path);
    const char *file = "";
    uint32_t line = 0;
    if (n->scl != UINT32_MAX && n->scl < c->scl_file.n) {
        file = sref(c, c->scl_file.v[n->scl]);
        line = c->scl_line.v[n->scl];
    }
    s->file = strdup(file);
    s->line = line;
    char buf[1400];
    int w = snprintf(buf, sizeof buf, "%s", fn);
    if (*file && w > 0 && (size_t)w < sizeof buf)
        w += snprintf(buf + w, sizeof buf - (size_t)w, " @ %s:%u", file, line);
    if (*path && w > 0 && (size_t)w < sizeof buf)
        snprintf(buf + w, sizeof buf - (size_t)w, " in %s", path);
    return strdup(buf);
}

static bool is_nxn(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return true;
    default:
        return false;
    }
}

static bool is_1ton(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
           op == OTF2_COLLECTIVE_OP_SCATTERV;
}

static bool is_nto1(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_REDUCE || op == OTF2_COLLECTIVE_OP_GATHER ||
           op == OTF2_COLLECTIVE_OP_GATHERV;
}

/* One line, rewritten in place: only when stderr is a terminal (the caller
 * decides), and erased when the analysis ends. */
static void progress_line(bool on, const char *what, size_t a, size_t b, uint64_t ev)
{
    if (!on) return;
    fprintf(stderr, "\rmpiscope: wait states: %s %zu of %zu (%.1f M events)\033[K", what, a, b,
            (double)ev / 1e6);
    fflush(stderr);
}

ws_result_t *ws_analyze(const char *anchor, bool progress, char *err, size_t errlen)
{
    double t0 = now_s();
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        snprintf(err, errlen, "cannot open the OTF2 archive %s", anchor);
        return NULL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    ws_ctx_t *c = calloc(1, sizeof *c);
    c->scl_attr = UINT32_MAX;
    c->resolution = 1000000000u;
    for (int i = 0; i < WS_SITE_CACHE; i++) c->site_cache[i].site = UINT32_MAX;
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gd) {
        snprintf(err, errlen, "%s has no global definitions", anchor);
        OTF2_Reader_Close(rd);
        free(c);
        return NULL;
    }
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dcb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dcb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(dcb, d_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(dcb, d_scl);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(dcb, d_attr);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, d_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, c);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    uint64_t ndefs = 0;
    if (OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &ndefs) != OTF2_SUCCESS) {
        snprintf(err, errlen, "cannot read the definitions of %s", anchor);
        OTF2_Reader_Close(rd);
        free_ctx(c);
        free(c);
        return NULL;
    }
    OTF2_Reader_CloseGlobalDefReader(rd, gd);

    for (size_t i = 0; i < c->nlocs; i++) OTF2_Reader_SelectLocation(rd, c->locs[i].id);
    bool def_files = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(rd);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, e_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, e_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, e_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, e_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, e_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, e_coll_end);
    uint64_t events = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        c->cur = l;
        progress_line(progress, "reading location", i + 1, c->nlocs, events);
        if (def_files) {
            /* Mapping tables and clock offsets are local definitions; the
             * event reader applies them once they have been read. */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, l->id);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
        if (!er) continue;
        OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, c);
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
        events += n;
        OTF2_Reader_CloseEvtReader(rd, er);
        free(l->stack.v);
        l->stack.v = NULL;
        l->stack.n = l->stack.cap = 0;
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (def_files) OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    double t1 = now_s();
    progress_line(progress, "matching messages, locations", c->nlocs, c->nlocs, events);

    ws_result_t *r = calloc(1, sizeof *r);
    r->ranks = c->ranks;
    r->locations = c->nlocs;
    r->events = events;
    r->read_s = t1 - t0;

    /* Sends chained per channel, in each sender's order. */
    size_t nsends = 0;
    for (size_t i = 0; i < c->nlocs; i++) nsends += c->locs[i].sends.n;
    int64_t *next = malloc((nsends ? nsends : 1) * sizeof *next);
    uint32_t *send_loc = malloc((nsends ? nsends : 1) * sizeof *send_loc);
    ws_msg_t **send_rec = malloc((nsends ? nsends : 1) * sizeof *send_rec);
    ws_chans_t ch = {0};
    size_t g = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        for (size_t k = 0; k < l->sends.n; k++, g++) {
            ws_msg_t *m = &l->sends.v[k];
            ws_chan_t *x = chan_get(&ch, m->comm, l->rank, m->peer, m->tag, true);
            next[g] = -1;
            send_loc[g] = (uint32_t)i;
            send_rec[g] = m;
            if (x->tail >= 0)
                next[x->tail] = (int64_t)g;
            else
                x->head = (int64_t)g;
            x->tail = (int64_t)g;
        }
    }
    /* Receives take the first unmatched send of their channel. */
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        uint64_t *sent_at = malloc((l->recvs.n ? l->recvs.n : 1) * sizeof *sent_at);
        for (size_t k = 0; k < l->recvs.n; k++) {
            ws_msg_t *m = &l->recvs.v[k];
            sent_at[k] = UINT64_MAX;
            ws_chan_t *x = chan_get(&ch, m->comm, m->peer, l->rank, m->tag, false);
            if (!x || x->head < 0) {
                r->unmatched++;
                continue;
            }
            int64_t s = x->head;
            x->head = next[s];
            if (x->head < 0) x->tail = -1;
            r->messages++;
            ws_loc_t *sl = &c->locs[send_loc[s]];
            ws_call_t *sc = &sl->calls.v[send_rec[s]->call];
            ws_call_t *rc = &l->calls.v[m->call];
            sent_at[k] = sc->enter;
            int rk = c->region_kind.v[rc->region], sk = c->region_kind.v[sc->region];
            if ((rk == K_RECV || rk == K_SENDRECV || rk == K_WAIT) && sc->enter > rc->enter) {
                uint64_t w = min64(sc->enter, rc->leave) - rc->enter;
                if (w > rc->ls) rc->ls = w;
            }
            if ((sk == K_SEND || sk == K_SENDRECV) && rc->enter > sc->enter) {
                uint64_t w = min64(rc->enter, sc->leave) - sc->enter;
                if (w > sc->lr) sc->lr = w;
            }
        }
        /* Wrong order: a message received by a later call had been sent
         * before this receive began. */
        uint64_t min_after = UINT64_MAX, min_cur = UINT64_MAX;
        uint32_t cur_call = UINT32_MAX;
        for (size_t k = l->recvs.n; k-- > 0;) {
            uint32_t call = l->recvs.v[k].call;
            if (call != cur_call) {
                min_after = min64(min_after, min_cur);
                min_cur = UINT64_MAX;
                cur_call = call;
            }
            min_cur = min64(min_cur, sent_at[k]);
            ws_call_t *rc = &l->calls.v[call];
            if (rc->ls && min_after < rc->enter) rc->wrong_order = 1;
        }
        free(sent_at);
    }
    for (size_t i = 0; i < ch.cap; i++)
        for (int64_t s = ch.t[i].head; ch.t[i].head != -2 && s >= 0; s = next[s]) r->unmatched++;
    free(ch.t);
    free(next);
    free(send_loc);
    free(send_rec);

    /* Collective instances: the k-th collective on a communicator. */
    size_t nmemb = 0;
    for (size_t i = 0; i < c->nlocs; i++) nmemb += c->locs[i].colls.n;
    uint32_t *memb_inst = malloc((nmemb ? nmemb : 1) * sizeof *memb_inst);
    VEC(ws_inst_t) inst = {0};
    {
        size_t cap = 1024;
        while (cap < 2 * nmemb) cap *= 2;
        ws_ikey_t *h = malloc(cap * sizeof *h);
        for (size_t i = 0; i < cap; i++) h[i].inst = UINT32_MAX;
        uint32_t *seq = calloc(c->comms.n + 1, sizeof *seq);
        size_t mi = 0;
        for (size_t i = 0; i < c->nlocs; i++) {
            ws_loc_t *l = &c->locs[i];
            memset(seq, 0, (c->comms.n + 1) * sizeof *seq);
            for (size_t k = 0; k < l->colls.n; k++, mi++) {
                ws_coll_t *co = &l->colls.v[k];
                uint32_t sq = seq[co->comm]++;
                size_t hk = mix((uint64_t)co->comm << 32 | sq) & (cap - 1);
                while (h[hk].inst != UINT32_MAX && (h[hk].comm != co->comm || h[hk].seq != sq))
                    hk = (hk + 1) & (cap - 1);
                if (h[hk].inst == UINT32_MAX) {
                    h[hk] = (ws_ikey_t){co->comm, sq, (uint32_t)inst.n};
                    PUSH(inst, ((ws_inst_t){0, UINT64_MAX, UINT64_MAX, UINT64_MAX, co->op, co->root}));
                }
                uint32_t id = h[hk].inst;
                memb_inst[mi] = id;
                ws_inst_t *in = &inst.v[id];
                ws_call_t *cl = &l->calls.v[co->call];
                if (cl->enter > in->max_enter) in->max_enter = cl->enter;
                if (cl->leave < in->min_leave) in->min_leave = cl->leave;
                if (l->rank == co->root)
                    in->root_enter = cl->enter;
                else
                    in->first_other = min64(in->first_other, cl->enter);
            }
        }
        free(seq);
        free(h);
    }
    r->collectives = inst.n;

    /* Totals per pattern, rank and site. */
    double tick_ns = 1e9 / (double)(c->resolution ? c->resolution : 1000000000u);
#define NS(x) ((uint64_t)((double)(x) * tick_ns + 0.5))
    r->rank_ns = calloc((size_t)(r->ranks ? r->ranks : 1) * WS_NPATTERNS, sizeof *r->rank_ns);
    r->rank_mpi_ns = calloc((size_t)(r->ranks ? r->ranks : 1), sizeof *r->rank_mpi_ns);
    size_t nn = c->nodes.n;
    uint64_t *site_ns = calloc((nn ? nn : 1) * (WS_NPATTERNS + 2), sizeof *site_ns);
    size_t mi = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        int rank = l->rank;
        uint64_t *rn = &r->rank_ns[(size_t)rank * WS_NPATTERNS];
#define ADD(p, call, ticks)                                                                     \
    do {                                                                                       \
        uint64_t ns_ = NS(ticks);                                                              \
        r->ns[p] += ns_;                                                                       \
        r->instances[p]++;                                                                     \
        rn[p] += ns_;                                                                          \
        site_ns[(size_t)(call)->site * (WS_NPATTERNS + 2) + (p)] += ns_;                       \
    } while (0)
        for (size_t k = 0; k < l->calls.n; k++) {
            ws_call_t *cl = &l->calls.v[k];
            uint64_t d = NS(cl->leave - cl->enter);
            r->mpi_ns += d;
            r->rank_mpi_ns[rank] += d;
            site_ns[(size_t)cl->site * (WS_NPATTERNS + 2) + WS_NPATTERNS] += d;
            site_ns[(size_t)cl->site * (WS_NPATTERNS + 2) + WS_NPATTERNS + 1]++;
            if (cl->ls) {
                ADD(WS_LATE_SENDER, cl, cl->ls);
                if (cl->wrong_order) ADD(WS_LATE_SENDER_WO, cl, cl->ls);
            }
            /* A Sendrecv waits for both ends at once: a Late Sender wins. */
            if (cl->lr && !(cl->ls && c->region_kind.v[cl->region] == K_SENDRECV))
                ADD(WS_LATE_RECEIVER, cl, cl->lr);
        }
        for (size_t k = 0; k < l->colls.n; k++, mi++) {
            ws_coll_t *co = &l->colls.v[k];
            ws_inst_t *in = &inst.v[memb_inst[mi]];
            ws_call_t *cl = &l->calls.v[co->call];
            bool barrier = co->op == OTF2_COLLECTIVE_OP_BARRIER;
            if (barrier || is_nxn(co->op)) {
                if (in->max_enter > cl->enter)
                    ADD(barrier ? WS_WAIT_BARRIER : WS_WAIT_NXN, cl,
                        min64(in->max_enter, cl->leave) - cl->enter);
                /* After the first member left; never overlapping the wait. */
                uint64_t from = in->min_leave;
                if (from < min64(in->max_enter, cl->leave)) from = min64(in->max_enter, cl->leave);
                if (from < cl->enter) from = cl->enter;
                if (cl->leave > from)
                    ADD(barrier ? WS_BARRIER_COMPLETION : WS_NXN_COMPLETION, cl, cl->leave - from);
            } else if (is_1ton(co->op)) {
                if (l->rank != in->root && in->root_enter != UINT64_MAX &&
                    in->root_enter > cl->enter)
                    ADD(WS_LATE_BCAST, cl, min64(in->root_enter, cl->leave) - cl->enter);
            } else if (is_nto1(co->op)) {
                if (l->rank == in->root && in->first_other != UINT64_MAX &&
                    in->first_other > cl->enter)
                    ADD(WS_EARLY_REDUCE, cl, min64(in->first_other, cl->leave) - cl->enter);
            }
        }
#undef ADD
    }
    free(memb_inst);
    free(inst.v);
    /* Sites: every MPI call path, the ones with waiting time first. */
    r->sites = calloc(nn ? nn : 1, sizeof *r->sites);
    for (size_t s = 0; s < nn; s++) {
        uint64_t *v = &site_ns[s * (WS_NPATTERNS + 2)];
        if (!v[WS_NPATTERNS + 1]) continue;
        ws_site_t *o = &r->sites[r->nsites++];
        memcpy(o->ns, v, sizeof o->ns);
        o->mpi_ns = v[WS_NPATTERNS];
        o->calls = v[WS_NPATTERNS + 1];
        o->name = site_string(c, (uint32_t)s, o);
    }
    free(site_ns);
    if (r->nsites > 1) qsort(r->sites, (size_t)r->nsites, sizeof *r->sites, cmp_site);
    r->match_s = now_s() - t1;
    if (progress) fprintf(stderr, "\r\033[K");
    free_ctx(c);
    free(c);
    return r;
}

void ws_free(ws_result_t *r)
{
    if (!r) return;
    for (int i = 0; i < r->nsites; i++) {
        free(r->sites[i].name), free(r->sites[i].function), free(r->sites[i].path);
        free(r->sites[i].file);
    }
    free(r->sites);
    free(r->rank_ns);
    free(r->rank_mpi_ns);
    free(r);
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"mpiscope\",\n  \"kind\": \"waitstates\",\n");
    fprintf(f, "  \"trace\": ");
    jstr(f, trace_rel);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"locations\": %llu,\n  \"events\": %llu,\n", r->ranks,
            (unsigned long long)r->locations, (unsigned long long)r->events);
    fprintf(f, "  \"messages\": %llu,\n  \"unmatched\": %llu,\n  \"collectives\": %llu,\n",
            (unsigned long long)r->messages, (unsigned long long)r->unmatched,
            (unsigned long long)r->collectives);
    fprintf(f, "  \"analysis\": {\"processes\": 1, \"read_s\": %.6f, \"match_s\": %.6f},\n",
            r->read_s, r->match_s);
    fprintf(f, "  \"mpi_ns\": %llu,\n  \"patterns\": [", (unsigned long long)r->mpi_ns);
    for (int p = 0; p < WS_NPATTERNS; p++) {
        const char *t = ws_pattern_title[p];
        while (*t == ' ') t++;
        fprintf(f, "%s\n    {\"id\": \"%s\", \"title\": ", p ? "," : "", ws_pattern_id[p]);
        jstr(f, t);
        fprintf(f, ", \"part_of\": %s, \"time_ns\": %llu, \"instances\": %llu}",
                p == WS_LATE_SENDER_WO ? "\"late_sender\"" : "null", (unsigned long long)r->ns[p],
                (unsigned long long)r->instances[p]);
    }
    fprintf(f, "\n  ],\n  \"per_rank\": [");
    for (int k = 0; k < r->ranks; k++) {
        fprintf(f, "%s\n    {\"rank\": %d, \"mpi_ns\": %llu", k ? "," : "", k,
                (unsigned long long)r->rank_mpi_ns[k]);
        for (int p = 0; p < WS_NPATTERNS; p++)
            fprintf(f, ", \"%s\": %llu", ws_pattern_id[p],
                    (unsigned long long)r->rank_ns[(size_t)k * WS_NPATTERNS + p]);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"callsites\": [");
    for (int i = 0; i < r->nsites; i++) {
        const ws_site_t *s = &r->sites[i];
        fprintf(f, "%s\n    {\"site\": ", i ? "," : "");
        jstr(f, s->name);
        fprintf(f, ", \"function\": ");
        jstr(f, s->function);
        fprintf(f, ", \"path\": ");
        jstr(f, s->path);
        fprintf(f, ", \"file\": ");
        jstr(f, s->file);
        fprintf(f, ", \"line\": %u, \"calls\": %llu, \"mpi_ns\": %llu", s->line,
                (unsigned long long)s->calls, (unsigned long long)s->mpi_ns);
        for (int p = 0; p < WS_NPATTERNS; p++)
            fprintf(f, ", \"%s\": %llu", ws_pattern_id[p], (unsigned long long)s->ns[p]);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
