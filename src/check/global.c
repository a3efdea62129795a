/* Global checks of collectives (point to point: p2p.c). All traffic goes
 * over shadow communicators (PMPI duplicates made when the application's
 * communicator was made, objects.c), never over the application's own.
 *
 * Collectives: before a blocking collective, the members allgather over the
 * collective shadow what each one calls (function, root, operation, type
 * signature and size of its blocks) and every member judges the same data;
 * each reports its own part under a group key that rank 0 merges into one
 * finding. This makes every blocking collective synchronising, which the
 * standard allows. Nonblocking collectives are checked for their arguments
 * only: a blocking exchange at their start could create waits the program
 * does not have.
 *
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* --- collectives --------------------------------------------------------- */

typedef struct {
    int32_t fn, root, sok, rok;
    int64_t op;
    chk_sig_t s, r;
    int32_t rank;     /* world rank */
    int32_t pad;
} coll_t;

static int64_t op_id(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,  MPI_LOR,
                          MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i]) return (int64_t)i + 1;
    return op == MPI_OP_NULL ? 0 : 1000; /* user-defined: not compared with each other */
}

static const char *op_name(int64_t id)
{
    static const char *const n[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",    "MPI_SUM",
                                    "MPI_PROD",    "MPI_LAND", "MPI_BAND",   "MPI_LOR",
                                    "MPI_BOR",     "MPI_LXOR", "MPI_BXOR",   "MPI_MAXLOC",
                                    "MPI_MINLOC",  "MPI_REPLACE", "MPI_NO_OP"};
    return id >= 0 && id < (int64_t)(sizeof n / sizeof n[0]) ? n[id] : "a user-defined operation";
}

static void coll_report(msc_call_t *c, const char *cls, uint64_t key, const char *fmt,
                        const char *detail)
{
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "%s", cls);
    snprintf(f.group, sizeof f.group, "coll:%llx", (unsigned long long)key);
    snprintf(f.text, sizeof f.text, fmt, detail);
    f.nparts = 1;
    f.parts[0].rank = msc_g.world_rank;
    f.parts[0].site = c->site;
    snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[c->fn]);
    chk_report_full(&f);
}

/* The data blocks of this member that the standard says are significant
 * here (MPI 4.1 chapter 6: receive arguments only at the root of a gather,
 * send arguments only at the root of a scatter, neither side where
 * MPI_IN_PLACE stands for it): s, what it sends per peer; r, what it
 * receives per peer. Vector, w- and neighbourhood forms: none (their blocks
 * differ per peer legitimately). */
static void blocks(const msc_call_t *c, unsigned long long roles, coll_t *me)
{
    if (roles & (MSC_ROLE_COUNTS | MSC_ROLE_RCOUNTS)) return;
    const char *name = msc_fn_name[c->fn];
    if (!strncmp(name, "MPI_Neighbor_", 13)) return;
    bool rooted = roles & MSC_ROLE_ROOT;
    bool root = rooted && c->root == chk_cinfo(c->comm)->rank;
    if (roles & MSC_ROLE_OP) {
        /* Reductions: count and datatype describe the data everywhere. */
        MPI_Count n = (roles & MSC_ROLE_COUNT) ? c->count : c->rcount;
        me->s = chk_sig(c->type, n);
        me->sok = 1;
        return;
    }
    bool has_s = (roles & MSC_ROLE_COUNT) && (roles & MSC_ROLE_TYPE);
    bool has_r = (roles & MSC_ROLE_RCOUNT) && (roles & MSC_ROLE_RTYPE);
    if (!has_r) { /* MPI_Bcast */
        if (has_s) me->s = chk_sig(c->type, c->count), me->sok = 1;
        return;
    }
    bool gather = !strncmp(name, "MPI_Gather", 10) || !strncmp(name, "MPI_Igather", 11);
    bool scatter = !strncmp(name, "MPI_Scatter", 11) || !strncmp(name, "MPI_Iscatter", 12);
    bool want_s = has_s && c->buf != MPI_IN_PLACE && !(scatter && !root);
    bool want_r = c->rbuf != MPI_IN_PLACE && !(gather && !root);
    if (want_s) me->s = chk_sig(c->type, c->count), me->sok = 1;
    if (want_r) me->r = chk_sig(c->rtype, c->rcount), me->rok = 1;
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/* The fast path: one small MPI_Allreduce (MAX) of a hash of what must be
 * the same on every member -- function, root, operation and the signature
 * of the data block (what the root receives from each member, what each
 * member sends: they must all be equal for the collectives checked) -- and
 * of its complement, so that max(h) == min(h) says all agree. Only when they
 * do not, or a member cannot put its part in the hash (a signature unknown
 * or empty, send and receive blocks that differ locally), do the members
 * exchange everything (the slow path below) and judge. */
static bool agree(const coll_t *me, unsigned long long roles, MPI_Comm shadow)
{
    uint64_t h = mix64(mix64(mix64(0x1234, (uint64_t)me->fn), (uint64_t)(int64_t)me->root),
                       (uint64_t)me->op);
    uint64_t full = 0;
    bool vform = (roles & (MSC_ROLE_COUNTS | MSC_ROLE_RCOUNTS)) != 0;
    if (!vform) {
        const chk_sig_t *b = me->rok ? &me->r : me->sok ? &me->s : NULL;
        bool rooted = roles & MSC_ROLE_ROOT;
        /* A rooted collective's non-root members contribute one block;
         * others (and roots) both, which must be equal. */
        if (me->sok && me->rok && !chk_sig_equal(me->s, me->r)) full = 1;
        if (me->sok && me->rok && (!me->s.unit || !me->r.unit)) full = 1;
        if (b && !b->unit) full = 1;
        if (b) h = mix64(mix64(h, b->unit), b->reps);
        else if ((roles & (MSC_ROLE_TYPE | MSC_ROLE_RTYPE)) && !rooted) full = 1;
    }
    uint64_t v[3] = {h, ~h, full}, r[3];
    if (PMPI_Allreduce(v, r, 3, MPI_UINT64_T, MPI_MAX, shadow) != MPI_SUCCESS) return true;
    return r[0] == ~r[1] && !r[2];
}

void chk_coll_enter(msc_call_t *c)
{
    MPI_Comm shadow = MPI_COMM_NULL;
    uint64_t seq = 0, key = 0;
    int n = 0;
    chk_lock();
    chk_comm_t *e = chk_comm_find(c->comm);
    if (e && !e->inter && e->coll_shadow != MPI_COMM_NULL) {
        shadow = e->coll_shadow;
        seq = ++e->coll_seq;
        n = e->size;
        key = (e->key ^ seq) * 0x100000001b3ull;
    }
    chk_unlock();
    if (shadow == MPI_COMM_NULL || n <= 1) return;
    unsigned long long roles = msc_fn_roles[c->fn];
    coll_t me;
    memset(&me, 0, sizeof me);
    me.fn = (int32_t)c->fn;
    me.rank = msc_g.world_rank;
    me.root = roles & MSC_ROLE_ROOT ? c->root : -1;
    me.op = roles & MSC_ROLE_OP ? op_id(c->op) : -1;
    blocks(c, roles, &me);
    if (agree(&me, roles, shadow)) return;
    coll_t *all = malloc(sizeof *all * (size_t)n);
    if (!all) return;
    if (PMPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, shadow) != MPI_SUCCESS) {
        free(all);
        return;
    }
    char detail[700];
    size_t used = 0;
    detail[0] = 0;
#define DETAIL(...)                                                                     \
    do {                                                                                \
        if (used < sizeof detail) used += (size_t)snprintf(detail + used, sizeof detail - used, __VA_ARGS__); \
    } while (0)
    bool same_fn = true, same_root = true, same_op = true;
    for (int i = 1; i < n; i++) {
        same_fn &= all[i].fn == all[0].fn;
        same_root &= all[i].root == all[0].root;
        same_op &= all[i].op == all[0].op || all[i].op == 1000 || all[0].op == 1000;
    }
    if (!same_fn) {
        for (int i = 0; i < n && i < 8; i++)
            DETAIL("%srank %d calls %s", i ? ", " : "", all[i].rank, msc_fn_name[all[i].fn]);
        coll_report(c, "GLOBAL:COLLECTIVE:CALL_MISMATCH", key,
                    "The ranks of one communicator call different collective operations at the "
                    "same point (%s). Every member must call the same collectives in the same "
                    "order; otherwise the program hangs, fails or computes wrong results. Make "
                    "the sequence of collective calls identical on all ranks.",
                    detail);
    } else if (!same_root) {
        for (int i = 0; i < n && i < 8; i++)
            DETAIL("%srank %d passes root %d", i ? ", " : "", all[i].rank, all[i].root);
        coll_report(c, "GLOBAL:COLLECTIVE:ROOT_MISMATCH", key,
                    "The ranks disagree on the root of this collective (%s). The root must be "
                    "the same value on every rank of the communicator; a rank-dependent root "
                    "hangs or corrupts the data.",
                    detail);
    } else if (!same_op) {
        for (int i = 0; i < n && i < 8; i++)
            DETAIL("%srank %d uses %s", i ? ", " : "", all[i].rank, op_name(all[i].op));
        coll_report(c, "GLOBAL:COLLECTIVE:OP_MISMATCH", key,
                    "The ranks pass different reduction operations to this collective (%s). The "
                    "result is undefined unless every rank uses the same operation.",
                    detail);
    } else {
        /* Blocks that must carry the same signature: with a root, each
         * member's block must equal one of the root's (gather: members
         * send what the root receives; scatter: the reverse); without
         * one, all blocks on all ranks. */
        const char *bad = NULL;
        int badrank = -1;
        int root = all[0].root;
        int rootidx = -1;
        for (int i = 0; i < n && root >= 0; i++) rootidx = i == root ? i : rootidx;
        for (int i = 0; i < n && !bad; i++) {
            chk_sig_t ref;
            bool have = false;
            if (rootidx >= 0) {
                const coll_t *R = &all[rootidx];
                if (R->rok) ref = R->r, have = true;
                else if (R->sok) ref = R->s, have = true;
                if (!have || i == rootidx) continue;
                bool ok = (all[i].sok && chk_sig_equal(all[i].s, ref)) ||
                          (all[i].rok && chk_sig_equal(all[i].r, ref)) ||
                          (R->sok && R->rok && ((all[i].sok && chk_sig_equal(all[i].s, R->s)) ||
                                                (all[i].rok && chk_sig_equal(all[i].r, R->s))));
                if (!all[i].sok && !all[i].rok) ok = true;
                if (!ok) {
                    chk_sig_t mine = all[i].sok ? all[i].s : all[i].r;
                    bad = mine.bytes != ref.bytes ? "SIZE" : "TYPE";
                    badrank = all[i].rank;
                    DETAIL("rank %d's block is %lld bytes, the root's (rank %d) %lld bytes",
                           all[i].rank, (long long)mine.bytes, all[rootidx].rank, (long long)ref.bytes);
                }
            } else {
                for (int j = 0; j < n && !bad; j++) {
                    const chk_sig_t *a[2] = {all[i].sok ? &all[i].s : NULL, all[i].rok ? &all[i].r : NULL};
                    const chk_sig_t *b[2] = {all[j].sok ? &all[j].s : NULL, all[j].rok ? &all[j].r : NULL};
                    for (int x = 0; x < 2 && !bad; x++)
                        for (int y = 0; y < 2 && !bad; y++)
                            if (a[x] && b[y] && !chk_sig_equal(*a[x], *b[y])) {
                                bad = a[x]->bytes != b[y]->bytes ? "SIZE" : "TYPE";
                                badrank = all[j].rank;
                                DETAIL("rank %d passes %lld bytes, rank %d %lld bytes",
                                       all[i].rank, (long long)a[x]->bytes, all[j].rank,
                                       (long long)b[y]->bytes);
                            }
                }
            }
        }
        (void)badrank;
        if (bad && bad[0] == 'S')
            coll_report(c, "GLOBAL:COLLECTIVE:SIZE_MISMATCH", key,
                        "The ranks pass data of different sizes to this collective (%s). The "
                        "amount of data each rank sends must equal what its partners expect to "
                        "receive; check the counts (and datatypes) on every rank.",
                        detail);
        else if (bad)
            coll_report(c, "GLOBAL:COLLECTIVE:TYPE_MISMATCH", key,
                        "The ranks pass data of different type signatures to this collective "
                        "(%s, but the sequences of basic types differ). Sender and receiver "
                        "datatypes must have matching type signatures, e.g. MPI_INT with "
                        "MPI_INT, not with MPI_FLOAT.",
                        detail);
    }
#undef DETAIL
    free(all);
}

