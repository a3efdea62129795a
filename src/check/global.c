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
 * The first SYNC_FIRST blocking collectives of each communicator are
 * checked before the application's call: the members compare a hash of
 * their descriptors with one small MPI_Iallreduce, and only when they
 * differ exchange the descriptors and judge them; each member reports its
 * own part under a group key that merges them into one finding. Where the
 * collective waits for every member anyway (a barrier, the all- forms,
 * reduce-scatter: all_depend) the agreement is waited for, so a mismatch
 * that would make MPI abort or hang is on record before. A rooted
 * collective (a broadcast's root needs nobody), a scan (rank i needs ranks
 * below it) and a neighbourhood collective (its neighbours only) may
 * return before the others arrive, and a program may rely on that (MPI-3.1
 * section 5.14 calls such a program unsafe, not erroneous): waiting for
 * every member there made correct-in-practice programs hang under check
 * mode. Their agreement is waited for at most 1 s (the members of an
 * erroneous call arrive together, so a mismatch is still on record first)
 * and is otherwise judged later. coll_agree.c holds that machinery.
 *
 * Later ones, and every nonblocking one, go into a log per communicator: the
 * descriptor and call site, and a running hash. Every LOG_N logged
 * instances, at MPI_Comm_free and at MPI_Finalize the members compare
 * running hashes the same way, posted and never waited for, and only on a
 * difference exchange the logs and judge every logged instance, so a
 * mismatch is reported with its instance and sites soon after (a mismatch
 * that makes MPI abort before then is recorded as LOCAL:MPI_ERROR; one
 * that hangs, by the deadlock report).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "coll.h"
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
bool chk_coll_judge(const coll_t *all, int n, uint64_t key, msc_fn_t fn, void *site)
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
    if (e->inter || e->shadow == MPI_COMM_NULL || e->size <= 1 || e->abandoned) return;
    pthread_mutex_lock(&e->coll_mu);
    coll_enter_locked(c, e);
    pthread_mutex_unlock(&e->coll_mu);
    chk_coll_progress(); /* freed communicators' comparisons */
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
    chk_coll_step(e, blocking && everyone);
    me.seq = seq;
    if (blocking && seq <= SYNC_FIRST) {
        chk_agree(e, h, unsure, &me, c->site, everyone);
        return;
    }
    if (e->nlog == e->caplog) {
        int cap = e->caplog ? e->caplog * 2 : LOG_N;
        if (cap > LOG_MAX) return; /* nonblocking ones only since: not checked (rare) */
        coll_t *l = realloc(e->log, sizeof *l * (size_t)cap);
        if (l) e->log = l;
        void **ls = realloc(e->log_site, sizeof *ls * (size_t)cap);
        if (ls) e->log_site = ls;
        if (!l || !ls) return;
        e->caplog = cap;
    }
    e->log[e->nlog] = me;
    e->log_site[e->nlog] = c->site;
    e->nlog++;
    e->run = mix64(e->run, h);
    /* A member whose hash cannot stand for its descriptor (its send and
     * receive blocks differ: a send-side mismatch of MPI_Iallgather or
     * MPI_Allgather_init) makes the pair sums non-zero, so the logs are
     * exchanged and judged, as the synchronous check does at once. */
    e->psum += me.psig + (unsure ? 1 : 0);
    if (e->nlog >= LOG_N) chk_coll_compare(e);
}
