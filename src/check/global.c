/* Global checks of collectives (point to point: p2p.c). All traffic goes
 * over the shadow of the communicator (the tool's communicator over the
 * same group, made when the application's communicator was made, objects.c;
 * p2p.c's point-to-point traffic shares it, which MPI never matches with
 * collectives), never over the application's own. A communicator without a
 * shadow (the tool's budget of communicators was spent) is not checked here.
 *
 * What each member passes to a collective -- function, root, operation and
 * the type signature of its data blocks, where the standard says they are
 * significant -- is its descriptor. Every member of a communicator numbers
 * the collectives it calls on it (blocking and nonblocking, which must come
 * in the same order on all members), so all agree which instance is which.
 *
 * The first SYNC_FIRST blocking collectives of each communicator in which
 * every member needs every other's contribution (a barrier, the all- forms,
 * reduce-scatter: all_depend) are checked at once, before the application's
 * call: the members compare a hash of their descriptors with one small
 * MPI_Allreduce (MAX of the hash and of its complement: equal when max ==
 * min), and only when they differ allgather the descriptors and judge them;
 * each member reports its own part under a group key that merges them into
 * one finding. A mismatch that would make MPI abort or hang is on record
 * before. That agreement waits for no member the application's call would
 * not wait for. A rooted collective (a broadcast's root needs nobody), a
 * scan (rank i needs ranks below it) and a neighbourhood collective (its
 * neighbours only) may return before the others arrive, and a program may
 * rely on that (MPI-3.1 section 5.14 calls such a program unsafe, not
 * erroneous): waiting for every member there made correct-in-practice
 * programs hang under check mode (a root's MPI_Bcast, then a rendezvous
 * send that the other rank receives before its own MPI_Bcast). For those
 * the agreement is posted nonblocking (MPI_Iallreduce) and waited for at
 * most AGREE_WAIT_NS: the members of an erroneous call arrive together
 * (MPI then aborts or hangs in it), so a mismatch is on record first as
 * before; a member still missing after that is not waited for. The
 * agreement then stays pending and is judged, in order, at the next
 * collective on the communicator (waiting only if that one is of the first
 * kind), at MPI_Comm_free or at MPI_Finalize, where every member has posted
 * it. A member that judges late exchanges the descriptors late; the
 * members that judged in time wait for it in that exchange, which is only
 * the case when the collective was mismatched, an error already.
 *
 * Later ones, and every nonblocking one, go into a log per communicator: the
 * descriptor and call site, and a running hash. At every LOG_N-th logged
 * instance that is a blocking collective, at MPI_Comm_free and at
 * MPI_Finalize the members compare running hashes the same way, and only on
 * a difference exchange the logs and judge every logged instance, so a
 * mismatch is reported with its instance and sites at most LOG_N
 * collectives later, for 1/LOG_N of an MPI_Allreduce per collective (a
 * mismatch that makes MPI abort before then is recorded as LOCAL:MPI_ERROR;
 * one that hangs, by the deadlock report). A nonblocking collective never
 * waits for the others: its descriptor is only logged.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "log.h"

/* --- collectives --------------------------------------------------------- */

static uint16_t form_table[MSC_FN_COUNT];
static pthread_once_t form_once = PTHREAD_ONCE_INIT;

static void form_fill(void)
{
    static const struct {
        const char *prefix;
        unsigned flag;
    } forms[] = {
        {"Gather", CHK_CF_GATHER},           {"Scatter", CHK_CF_SCATTER},
        {"Bcast", CHK_CF_BCAST},             {"Neighbor", CHK_CF_NEIGHBOR},
        {"Exscan", CHK_CF_EXSCAN},           {"Gatherv", CHK_CF_GATHERV},
        {"Scatterv", CHK_CF_SCATTERV},       {"Allgatherv", CHK_CF_ALLGATHERV},
        {"Alltoallv", CHK_CF_ALLTOALLV},     {"Alltoallw", CHK_CF_ALLTOALLW},
        {"Reduce_scatter", CHK_CF_RSCATTER}, {"Neighbor_allgatherv", CHK_CF_NBR_AGV},
        {"Neighbor_alltoallv", CHK_CF_NBR_A2AV}, {"Neighbor_alltoallw", CHK_CF_NBR_A2AW},
        {"Scan", CHK_CF_SCAN},
    };
    for (int fn = 0; fn < MSC_FN_COUNT; fn++) {
        const char *name = msc_fn_name[fn];
        if (strncmp(name, "MPI_", 4)) continue;
        name += 4;
        if (*name == 'I') name++; /* nonblocking: MPI_Igather -> "gather" */
        unsigned f = 0;
        for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
            if (!strncasecmp(name, forms[i].prefix, strlen(forms[i].prefix))) f |= forms[i].flag;
        if (!strncasecmp(name, "Reduce_scatter_block", 20)) f &= ~(unsigned)CHK_CF_RSCATTER;
        form_table[fn] = (uint16_t)f;
    }
}

unsigned chk_coll_form(msc_fn_t fn)
{
    pthread_once(&form_once, form_fill);
    return (unsigned)fn < MSC_FN_COUNT ? form_table[fn] : 0;
}

typedef struct coll {
    int32_t fn, root, sok, rok;
    int64_t op;
    chk_sig_t s, r;
    int32_t rank;     /* world rank */
    int32_t vform;    /* a vector form: its blocks are judged by psig/pbytes */
    /* Vector forms: this member's share of the sums over every (sender,
     * receiver) pair of + hash(what the sender sends) - hash(what the
     * receiver expects), of the signature and of its size alone (pairs()).
     * The members' shares add up to 0 when every block matches. loose: a
     * block of unknown signature (no verdict). */
    uint64_t psig, pbytes;
    int32_t loose, pad;
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

static void coll_report(msc_fn_t fn, void *site, const char *cls, uint64_t key, const char *fmt,
                        const char *detail)
{
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "%s", cls);
    snprintf(f.group, sizeof f.group, "coll:%llx", (unsigned long long)key);
    snprintf(f.text, sizeof f.text, fmt, detail);
    f.nparts = 1;
    f.parts[0].rank = msc_g.world_rank;
    f.parts[0].site = site;
    snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[fn]);
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
    unsigned form = chk_coll_form(c->fn);
    if (form & CHK_CF_NEIGHBOR) return;
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
    bool gather = form & CHK_CF_GATHER, scatter = form & CHK_CF_SCATTER;
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

/* Element i of a v-collective's count array (int[], or MPI_Count[] for the
 * _c functions). */
static MPI_Count count_at(const msc_call_t *c, const void *a, int i)
{
    return c->counts_are_mpi_count ? ((const MPI_Count *)a)[i] : ((const int *)a)[i];
}

/* One block from `from` to `to` (ranks of the communicator): added by the
 * sender (sign +1), subtracted by the receiver (-1). */
static void pair(coll_t *me, int from, int to, chk_sig_t g, MPI_Datatype t, MPI_Count n, int sign)
{
    if (t == MPI_DATATYPE_NULL || n < 0 || (n > 0 && !g.unit)) {
        me->loose = 1; /* unknown: no verdict on this instance */
        return;
    }
    uint64_t at = mix64(mix64(0x5bd1e995, (uint64_t)(uint32_t)from), (uint64_t)(uint32_t)to);
    uint64_t hb = mix64(at, (uint64_t)g.bytes);
    uint64_t hs = g.unit ? mix64(mix64(at, g.unit), g.reps) : hb;
    me->pbytes += sign > 0 ? hb : (uint64_t)0 - hb;
    me->psig += sign > 0 ? hs : (uint64_t)0 - hs;
}

/* Vector forms (MPI_Gatherv, Scatterv, Allgatherv, Alltoallv and their
 * nonblocking and persistent forms): each block this member sends to another
 * and each it expects from another, as pair sums (coll_t.psig); blocks to
 * itself are not compared. The other forms with count arrays (MPI_Alltoallw,
 * MPI_Reduce_scatter, neighbourhood v/w-forms): collpairs.c. Persistent
 * collectives are judged at their *_init call, logged like nonblocking ones. */
static void pairs(const msc_call_t *c, unsigned long long roles, coll_t *me)
{
    chk_pairsum_t more;
    if (chk_pairs_more(c, &more)) { /* the other forms: collpairs.c */
        me->vform = 1, me->psig = more.psig, me->pbytes = more.pbytes, me->loose = more.loose;
        return;
    }
    unsigned form = chk_coll_form(c->fn);
    bool gatherv = form & CHK_CF_GATHERV, scatterv = form & CHK_CF_SCATTERV;
    bool allgatherv = form & CHK_CF_ALLGATHERV;
    bool alltoallv = form & CHK_CF_ALLTOALLV;
    if (!gatherv && !scatterv && !allgatherv && !alltoallv) return;
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    int n = ci->size, mine = ci->rank;
    if (mine < 0 || n <= 1) return;
    me->vform = 1;
    int root = (roles & MSC_ROLE_ROOT) ? c->root : -1;
    if ((gatherv || scatterv) && (root < 0 || root >= n)) {
        me->loose = 1; /* LOCAL:ARG:ROOT_OUT_OF_RANGE's */
        return;
    }
    if (gatherv) {
        if (mine != root)
            pair(me, mine, root, chk_sig(c->type, c->count), c->type, c->count, 1);
        else if (!c->rcounts)
            me->loose = 1; /* NULL: an argument check's finding, no verdict here */
        else
            for (int i = 0; i < n; i++)
                if (i != mine) {
                    MPI_Count k = count_at(c, c->rcounts, i);
                    pair(me, i, root, chk_sig(c->rtype, k), c->rtype, k, -1);
                }
    } else if (scatterv) {
        if (mine != root)
            pair(me, root, mine, chk_sig(c->rtype, c->rcount), c->rtype, c->rcount, -1);
        else if (!c->counts)
            me->loose = 1;
        else
            for (int i = 0; i < n; i++)
                if (i != mine) {
                    MPI_Count k = count_at(c, c->counts, i);
                    pair(me, root, i, chk_sig(c->type, k), c->type, k, 1);
                }
    } else if (!c->rcounts || (alltoallv && !c->counts && c->buf != MPI_IN_PLACE)) {
        me->loose = 1;
    } else {
        bool inplace = c->buf == MPI_IN_PLACE;
        for (int i = 0; i < n; i++) {
            if (i == mine) continue;
            MPI_Count k = count_at(c, c->rcounts, i);
            pair(me, i, mine, chk_sig(c->rtype, k), c->rtype, k, -1);
            /* What goes to i: in place, the block the receive arguments
             * describe (this member's own for Allgatherv, i's for Alltoallv). */
            MPI_Datatype t = inplace ? c->rtype : c->type;
            MPI_Count m = inplace ? count_at(c, c->rcounts, alltoallv ? i : mine)
                          : alltoallv ? count_at(c, c->counts, i)
                                      : c->count;
            pair(me, mine, i, chk_sig(t, m), t, m, 1);
        }
    }
}

enum { SYNC_FIRST = 64, LOG_N = 64, LOG_MAX = 4096 };

/* The descriptor's hash; *unsure when it cannot stand for the descriptor
 * in a comparison: its send and receive blocks differ (only the receive
 * block is hashed). A signature unknown or empty (unit 0) is a wildcard
 * that judge() never reports (chk_sig_equal takes it for any): where all
 * members pass one the hashes agree and nothing is to be judged, where
 * some do not the hashes differ anyway; so it does not force an exchange
 * (before, every logged zero-count collective made the members exchange
 * and judge their logs at the next comparison, for no verdict). */
static uint64_t desc_hash(const coll_t *me, unsigned long long roles, bool *unsure)
{
    uint64_t h = mix64(mix64(mix64(0x1234, (uint64_t)me->fn), (uint64_t)(int64_t)me->root),
                       (uint64_t)me->op);
    *unsure = false;
    if (me->sok && me->rok && !chk_sig_equal(me->s, me->r)) *unsure = true;
    const chk_sig_t *b = me->rok ? &me->r : me->sok ? &me->s : NULL;
    if (b) h = mix64(mix64(h, b->unit), b->reps);
    (void)roles;
    return h;
}

/* Judges one instance from every member's descriptor (in communicator
 * order); this member reports its part. */
static bool judge(const coll_t *all, int n, uint64_t key, msc_fn_t fn, void *site)
{
    bool found = true;
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
            DETAIL("%srank %d calls %s", i ? ", " : "", all[i].rank,
                   all[i].fn >= 0 && all[i].fn < MSC_FN_COUNT ? msc_fn_name[all[i].fn]
                                                               : "no further collective");
        coll_report(fn, site, "GLOBAL:COLLECTIVE:CALL_MISMATCH", key,
                    "The ranks of one communicator call different collective operations at the "
                    "same point (%s). Every member must call the same collectives in the same "
                    "order; otherwise the program hangs, fails or computes wrong results. Make "
                    "the sequence of collective calls identical on all ranks.",
                    detail);
    } else if (!same_root) {
        for (int i = 0; i < n && i < 8; i++)
            DETAIL("%srank %d passes root %d", i ? ", " : "", all[i].rank, all[i].root);
        coll_report(fn, site, "GLOBAL:COLLECTIVE:ROOT_MISMATCH", key,
                    "The ranks disagree on the root of this collective (%s). The root must be "
                    "the same value on every rank of the communicator; a rank-dependent root "
                    "hangs or corrupts the data.",
                    detail);
    } else if (!same_op) {
        for (int i = 0; i < n && i < 8; i++)
            DETAIL("%srank %d uses %s", i ? ", " : "", all[i].rank, op_name(all[i].op));
        coll_report(fn, site, "GLOBAL:COLLECTIVE:OP_MISMATCH", key,
                    "The ranks pass different reduction operations to this collective (%s). The "
                    "result is undefined unless every rank uses the same operation.",
                    detail);
    } else {
        /* Blocks that must carry the same signature. With a root, every
         * member's block against the root's block on the other side: a
         * gather's senders (the root's own contribution included) against
         * what the root receives per rank, a scatter's receivers (the root
         * included) against what the root sends per rank (MPI-3.1 sections
         * 5.5, 5.6); a broadcast's or rooted reduction's one block against
         * the root's. Without a root, all blocks on all ranks. */
        const char *bad = NULL;
        int root = all[0].root;
        int rootidx = root >= 0 && root < n ? root : -1;
        const char *fname = all[0].fn >= 0 && all[0].fn < MSC_FN_COUNT ? msc_fn_name[all[0].fn] : "";
        bool gather = !strncmp(fname, "MPI_Gather", 10) || !strncmp(fname, "MPI_Igather", 11);
        bool scatter = !strncmp(fname, "MPI_Scatter", 11) || !strncmp(fname, "MPI_Iscatter", 12);
        for (int i = 0; i < n && !bad; i++) {
            if (rootidx >= 0) {
                const coll_t *R = &all[rootidx];
                chk_sig_t ref, mine;
                bool have_ref, have_mine;
                if (gather) {
                    have_ref = R->rok, ref = R->r;
                    have_mine = all[i].sok, mine = all[i].s;
                } else if (scatter) {
                    have_ref = R->sok, ref = R->s;
                    have_mine = all[i].rok, mine = all[i].r;
                } else {
                    if (i == rootidx) continue;
                    have_ref = R->sok || R->rok, ref = R->sok ? R->s : R->r;
                    have_mine = all[i].sok || all[i].rok, mine = all[i].sok ? all[i].s : all[i].r;
                }
                if (!have_ref || !have_mine || chk_sig_equal(mine, ref)) continue;
                bad = mine.bytes != ref.bytes ? "SIZE" : "TYPE";
                if (i == rootidx)
                    DETAIL("the root (rank %d) %s itself %lld bytes but %s %lld bytes per rank",
                           all[i].rank, gather ? "sends" : "receives", (long long)mine.bytes,
                           gather ? "receives" : "sends", (long long)ref.bytes);
                else
                    DETAIL("rank %d %s %lld bytes, the root (rank %d) %s %lld bytes per rank",
                           all[i].rank, scatter ? "receives" : "passes", (long long)mine.bytes,
                           all[rootidx].rank, gather ? "receives" : scatter ? "sends" : "passes",
                           (long long)ref.bytes);
            } else {
                for (int j = 0; j < n && !bad; j++) {
                    const chk_sig_t *a[2] = {all[i].sok ? &all[i].s : NULL, all[i].rok ? &all[i].r : NULL};
                    const chk_sig_t *b[2] = {all[j].sok ? &all[j].s : NULL, all[j].rok ? &all[j].r : NULL};
                    for (int x = 0; x < 2 && !bad; x++)
                        for (int y = 0; y < 2 && !bad; y++)
                            if (a[x] && b[y] && !chk_sig_equal(*a[x], *b[y])) {
                                bad = a[x]->bytes != b[y]->bytes ? "SIZE" : "TYPE";
                                DETAIL("rank %d passes %lld bytes, rank %d %lld bytes",
                                       all[i].rank, (long long)a[x]->bytes, all[j].rank,
                                       (long long)b[y]->bytes);
                            }
                }
            }
        }
        /* Vector forms: the members' pair sums (pairs()). */
        uint64_t ps = 0, pb = 0;
        bool vform = true, loose = false;
        for (int i = 0; i < n; i++) {
            ps += all[i].psig, pb += all[i].pbytes;
            vform &= all[i].vform != 0;
            loose |= all[i].loose != 0;
        }
        if (!bad && vform && !loose && ps) {
            bad = pb ? "SIZE" : "TYPE";
            DETAIL("vector form: the %s that the ranks send to each other differ from what "
                   "their partners' count and datatype arrays expect from them",
                   pb ? "sizes of the blocks" : "basic types of the blocks (of equal sizes)");
        }
        if (bad && bad[0] == 'S')
            coll_report(fn, site, "GLOBAL:COLLECTIVE:SIZE_MISMATCH", key,
                        "The ranks pass data of different sizes to this collective (%s). The "
                        "amount of data each rank sends must equal what its partners expect to "
                        "receive; check the counts (and datatypes) on every rank.",
                        detail);
        else if (bad)
            coll_report(fn, site, "GLOBAL:COLLECTIVE:TYPE_MISMATCH", key,
                        "The ranks pass data of different type signatures to this collective "
                        "(%s, but the sequences of basic types differ). Sender and receiver "
                        "datatypes must have matching type signatures, e.g. MPI_INT with "
                        "MPI_INT, not with MPI_FLOAT.",
                        detail);
        found = bad != NULL;
    }
#undef DETAIL
    return found;
}

static uint64_t instance_key(const chk_comm_t *e, uint64_t seq)
{
    return (e->key ^ seq) * 0x100000001b3ull;
}

/* Every member's descriptors of `k` instances (this member's in mine),
 * exchanged over the shadow and judged instance by instance. */
static bool exchange(MPI_Comm shadow, int n, const coll_t *mine, int k, const uint64_t *keys,
                     void *const *sites)
{
    bool found = false;
    coll_t *all = malloc(sizeof *all * (size_t)n * (size_t)k);
    coll_t *one = malloc(sizeof *one * (size_t)n);
    if (all && one &&
        PMPI_Allgather(mine, (int)sizeof *mine * k, MPI_BYTE, all, (int)sizeof *mine * k, MPI_BYTE,
                       shadow) == MPI_SUCCESS)
        for (int i = 0; i < k; i++) {
            for (int r = 0; r < n; r++) one[r] = all[(size_t)r * (size_t)k + (size_t)i];
            if (mine[i].fn >= 0) found |= judge(one, n, keys[i], (msc_fn_t)mine[i].fn, sites[i]);
        }
    free(all);
    free(one);
    return found;
}

/* The log's pending instances against the other members' (collective over
 * the communicator's members). */
static void verify(chk_comm_t *e, bool force)
{
    if (!e->nlog || e->inter || e->shadow == MPI_COMM_NULL) return;
    uint64_t v[3] = {e->run, e->run * e->run, e->psum}, r[3];
    if (force ||
        (PMPI_Allreduce(v, r, 3, MPI_UINT64_T, MPI_SUM, e->shadow) == MPI_SUCCESS &&
         ((uint64_t)e->size * r[1] != r[0] * r[0] || r[2]))) {
        uint64_t *keys = malloc(sizeof *keys * (size_t)e->nlog);
        for (int i = 0; keys && i < e->nlog; i++) keys[i] = instance_key(e, e->log_seq[i]);
        if (keys) exchange(e->shadow, e->size, e->log, e->nlog, keys, e->log_site);
        free(keys);
    }
    e->nlog = 0;
    e->run = 0;
    e->psum = 0;
}

static void coll_enter_locked(msc_call_t *c, chk_comm_t *e);

/* MPI matches the collectives on a communicator in the order each process
 * issues them; calls that two threads make at the same time have no order
 * (MPI-3.1 section 12.4.2: the user must order them), so the ranks may match them
 * differently -- a mismatch, a hang or wrong data depending on timing. The
 * count of threads inside a collective call on the communicator tells. The
 * tool's own numbering, log and exchanges then stay under the
 * communicator's lock, so that its traffic matches whatever the
 * application does. */
static CHK_TLS uint32_t coll_ev = CHK_RP_NONE; /* replay event of the last one */

uint32_t chk_coll_take_ev(void)
{
    uint32_t ev = coll_ev;
    coll_ev = CHK_RP_NONE;
    return ev;
}

static CHK_TLS int coll_depth;       /* this thread's collective calls, nested */
static CHK_TLS MPI_Comm coll_counted; /* the communicator its outermost one counted on */

void chk_coll_enter(msc_call_t *c)
{
    chk_lock();
    chk_comm_t *e = chk_comm_find(c->comm);
    int inside = 0;
    if (coll_depth++ == 0) {
        coll_counted = e ? c->comm : MPI_COMM_NULL;
        if (e) inside = atomic_fetch_add_explicit(&e->coll_in, 1, memory_order_acq_rel);
    }
    chk_unlock();
    /* A collective the replay does not see: its ordering is not known. */
    if (!e || e->inter || e->shadow == MPI_COMM_NULL) chk_rp_unordered();
    if (!e) return;
    if (inside > 0 && msc_g.thread_provided == MPI_THREAD_MULTIPLE)
        chk_report("LOCAL:THREAD:CONCURRENT_COLLECTIVE", c->fn, c->site,
                   "%s was called on a communicator on which another thread of this rank is "
                   "inside a collective call at the same time. MPI matches collectives in the "
                   "order each process issues them; concurrent calls have none, so the ranks "
                   "can match them differently (a mismatch, a hang or wrong data, depending on "
                   "timing). Order the threads' collectives on one communicator (a lock, or "
                   "one communicator per thread: MPI_Comm_dup).",
                   msc_fn_name[c->fn]);
    if (e->inter || e->shadow == MPI_COMM_NULL || e->size <= 1) return;
    pthread_mutex_lock(&e->coll_mu);
    coll_enter_locked(c, e);
    pthread_mutex_unlock(&e->coll_mu);
}

void chk_coll_leave(msc_call_t *c)
{
    (void)c;
    if (coll_depth == 0 || --coll_depth > 0 || coll_counted == MPI_COMM_NULL) return;
    chk_lock();
    chk_comm_t *e = chk_comm_find(coll_counted);
    if (e && atomic_load_explicit(&e->coll_in, memory_order_relaxed) > 0)
        atomic_fetch_sub_explicit(&e->coll_in, 1, memory_order_acq_rel);
    chk_unlock();
}

/* Whether every member of the collective `fn` waits for every other's
 * contribution in any implementation: then an agreement before it makes no
 * member wait for one the call itself would not wait for. */
static bool all_depend(msc_fn_t fn, unsigned long long roles)
{
    return !(roles & MSC_ROLE_ROOT) &&
           !(chk_coll_form(fn) & (CHK_CF_NEIGHBOR | CHK_CF_EXSCAN | CHK_CF_SCAN));
}

/* --- agreements not waited for long (rooted and prefix collectives) --------- */

#define AGREE_WAIT_NS 1000000000ull /* 1 s */

typedef struct coll_pending {
    MPI_Request q;
    uint64_t v[4], r[4];
    coll_t me;
    uint64_t seq;
    void *site;
} coll_pending_t;

/* The members' sums `r` of an agreement: equal descriptors, or the
 * descriptors exchanged and judged (a finding for each mismatch). True if a
 * mismatch was found. */
static bool agree_judge(chk_comm_t *e, const uint64_t r[4], coll_t *me, uint64_t seq, void *site)
{
    if ((uint64_t)e->size * r[1] == r[0] * r[0] && !r[2] && !r[3]) return false;
    uint64_t key = instance_key(e, seq);
    return exchange(e->shadow, e->size, me, 1, &key, &site);
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
 * at the first that is not. `wait`: wait for each (where every member has
 * posted them: the collective being entered waits for every member, or the
 * communicator is being freed), but at most SETTLE_WAIT_NS: a member that
 * never called the collective (an erroneous program) must not hang the
 * tool; its agreement is then abandoned, its buffers kept, and the
 * collective left to the log's comparison and the deadlock watchdog.
 * Lock held. */
#define SETTLE_WAIT_NS 10000000000ull /* 10 s */
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
                          (int)(SETTLE_WAIT_NS / 1000000000ull), (unsigned long long)p->seq);
            /* MPI still owns the buffers of the abandoned requests. */
            e->pend = NULL, e->npend = e->cappend = 0;
            return;
        }
        if (!flag) break;
        agree_judge(e, p->r, &p->me, p->seq, p->site);
    }
    if (done) memmove(e->pend, e->pend + done, sizeof *e->pend * (size_t)(e->npend - done));
    e->npend -= done;
}

void chk_coll_settle_all(chk_comm_t *e)
{
    if (!e || !e->npend) return;
    pthread_mutex_lock(&e->coll_mu);
    settle(e, true);
    pthread_mutex_unlock(&e->coll_mu);
}

/* The agreement of a rooted or prefix collective (the first SYNC_FIRST):
 * posted behind any pending ones and judged now only if it completes within
 * AGREE_WAIT_NS and none is before it. */
static void agree_bounded(chk_comm_t *e, const uint64_t v[4], coll_t *me, uint64_t seq,
                          void *site)
{
    if (e->npend == e->cappend) {
        int cap = e->cappend ? 2 * e->cappend : 8;
        coll_pending_t *p = realloc(e->pend, sizeof *p * (size_t)cap);
        if (!p) return; /* left to the log's comparison: not judged early */
        e->pend = p, e->cappend = cap;
    }
    coll_pending_t *p = &e->pend[e->npend];
    memcpy(p->v, v, sizeof p->v);
    p->me = *me, p->seq = seq, p->site = site;
    if (PMPI_Iallreduce(p->v, p->r, 4, MPI_UINT64_T, MPI_SUM, e->shadow, &p->q) != MPI_SUCCESS)
        return;
    e->npend++;
    if (e->npend > 1 || !wait_bounded(&p->q, AGREE_WAIT_NS)) return;
    e->npend--;
    /* A mismatched instance whose members then wait in it is no longer
     * progress for the deadlock watchdog (see below). */
    if (agree_judge(e, p->r, &p->me, seq, site)) chk_wd_coll_mismatch();
}

static void coll_enter_locked(msc_call_t *c, chk_comm_t *e)
{
    uint64_t seq = ++e->coll_seq;
    unsigned long long roles = msc_fn_roles[c->fn];
    coll_t me;
    memset(&me, 0, sizeof me);
    me.fn = (int32_t)c->fn;
    me.rank = msc_g.world_rank;
    me.root = roles & MSC_ROLE_ROOT ? c->root : -1;
    me.op = roles & MSC_ROLE_OP ? op_id(c->op) : -1;
    blocks(c, roles, &me);
    pairs(c, roles, &me);
    bool unsure;
    uint64_t h = desc_hash(&me, roles, &unsure);
    bool blocking = c->kind == MSC_KIND_COLL;
    if (blocking || c->kind == MSC_KIND_ICOLL) {
        int me = -1;
        PMPI_Comm_rank(c->comm, &me);
        coll_ev = chk_rp_coll(c->fn, c->site, e->key, seq, e->size,
                              blocking ? CHK_RP_BLOCK : CHK_RP_POST, me,
                              (roles & MSC_ROLE_ROOT) && c->root == me);
    } else {
        chk_rp_unordered(); /* a persistent collective: its starts are not replayed */
    }
    bool everyone = all_depend(c->fn, roles);
    /* Earlier agreements first, in order (every member judges them in the
     * same order); waited for only where this collective waits anyway. */
    if (e->npend) settle(e, blocking && everyone);
    if (blocking && seq <= SYNC_FIRST && (!everyone || e->npend)) {
        uint64_t v[4] = {h, h * h, unsure, me.psig};
        agree_bounded(e, v, &me, seq, c->site);
        return;
    }
    if (blocking && seq <= SYNC_FIRST) {
        /* Sums: the hashes agree when n * sum(h^2) == sum(h)^2 (the sum of
         * the squared pairwise differences is 0; modulo 2^64 a difference
         * hides with odds of about 2^-32), the pair sums are 0. */
        uint64_t v[4] = {h, h * h, unsure, me.psig}, r[4];
        if (PMPI_Allreduce(v, r, 4, MPI_UINT64_T, MPI_SUM, e->shadow) != MPI_SUCCESS) return;
        if ((uint64_t)e->size * r[1] == r[0] * r[0] && !r[2] && !r[3]) return;
        uint64_t key = instance_key(e, seq);
        void *site = c->site;
        /* A mismatched instance whose members then wait in it is no
         * longer progress for the deadlock watchdog (MPI hangs on a root
         * mismatch, for one). */
        if (exchange(e->shadow, e->size, &me, 1, &key, &site)) chk_wd_coll_mismatch();
        return;
    }
    if (e->nlog == e->caplog) {
        int cap = e->caplog ? e->caplog * 2 : LOG_N;
        if (cap > LOG_MAX) return; /* nonblocking ones only since: not checked (rare) */
        coll_t *l = realloc(e->log, sizeof *l * (size_t)cap);
        if (l) e->log = l;
        void **ls = realloc(e->log_site, sizeof *ls * (size_t)cap);
        if (ls) e->log_site = ls;
        uint64_t *lq = realloc(e->log_seq, sizeof *lq * (size_t)cap);
        if (lq) e->log_seq = lq;
        if (!l || !ls || !lq) return;
        e->caplog = cap;
    }
    e->log[e->nlog] = me;
    e->log_site[e->nlog] = c->site;
    e->log_seq[e->nlog] = seq;
    e->nlog++;
    e->run = mix64(e->run, h);
    /* A member whose hash cannot stand for its descriptor (its send and
     * receive blocks differ: a send-side mismatch of MPI_Iallgather or
     * MPI_Allgather_init) makes the pair sums non-zero, so the logs are
     * exchanged and judged, as the synchronous check does at once. */
    e->psum += me.psig + (unsure ? 1 : 0);
    if (blocking && e->nlog >= LOG_N) verify(e, false);
}

void chk_coll_comm_free(MPI_Comm comm)
{
    chk_lock();
    chk_comm_t *e = chk_comm_find(comm);
    chk_unlock();
    if (!e) return;
    pthread_mutex_lock(&e->coll_mu);
    settle(e, true);
    verify(e, false);
    pthread_mutex_unlock(&e->coll_mu);
}

void chk_coll_finalize(chk_comm_t **list, int n)
{
    /* Nonblocking, all posted before any is waited for: ranks need not
     * agree on an order of the communicators, only on the one comparison
     * per communicator. Every member compares, with or without a log. */
    for (int i = 0; i < n; i++) chk_coll_settle_all(list[i]);
    uint64_t (*v)[3] = calloc((size_t)n + 1, sizeof *v), (*r)[3] = calloc((size_t)n + 1, sizeof *r);
    uint64_t *pv = calloc((size_t)n + 1, sizeof *pv), *pr = calloc((size_t)n + 1, sizeof *pr);
    MPI_Request *q = calloc(2 * (size_t)n + 1, sizeof *q);
    MPI_Status *st = calloc(2 * (size_t)n + 1, sizeof *st);
    if (!v || !r || !pv || !pr || !q || !st) goto out;
    for (int i = 0; i < n; i++) {
        chk_comm_t *e = list[i];
        q[i] = q[n + i] = MPI_REQUEST_NULL;
        if (e->inter || e->shadow == MPI_COMM_NULL || e->size <= 1) continue;
        v[i][0] = e->run, v[i][1] = ~e->run, v[i][2] = (uint64_t)e->nlog;
        PMPI_Iallreduce(v[i], r[i], 3, MPI_UINT64_T, MPI_MAX, e->shadow, &q[i]);
        pv[i] = e->psum; /* the vector forms' pair sums (global.c's pairs()) */
        PMPI_Iallreduce(&pv[i], &pr[i], 1, MPI_UINT64_T, MPI_SUM, e->shadow, &q[n + i]);
    }
    PMPI_Waitall(2 * n, q, st);
    for (int i = 0; i < n; i++) {
        chk_comm_t *e = list[i];
        if (q[i] != MPI_REQUEST_NULL || e->inter || e->shadow == MPI_COMM_NULL ||
            e->size <= 1 || (r[i][0] == ~r[i][1] && r[i][2] == (uint64_t)e->nlog && !pr[i]))
            continue;
        /* Logs of unequal length are padded: an instance missing on one
         * member is a call mismatch there. */
        int k = (int)r[i][2];
        if (k > e->caplog) k = e->caplog;
        for (int j = e->nlog; j < k; j++) {
            memset(&e->log[j], 0, sizeof e->log[j]);
            e->log[j].fn = -1, e->log[j].rank = msc_g.world_rank;
            e->log_site[j] = NULL, e->log_seq[j] = 0;
        }
        e->nlog = k;
        verify(e, true);
    }
out:
    free(v), free(r), free(pv), free(pr), free(q), free(st);
}
