/* Global checks: collective mismatch and point-to-point type matching. All
 * traffic goes over shadow communicators (PMPI duplicates made when the
 * application's communicator was made, objects.c), never over the
 * application's own.
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
 * Point-to-point: after a send (at its call, or at MPI_Start for persistent
 * ones) the sender sends a small sidecar on the p2p shadow with the same
 * destination and tag: the send's type signature and call site. After a
 * receive completes, the receiver takes the sidecar from the status's source
 * and tag. MPI's non-overtaking rule orders both streams alike, so the k-th
 * message from a source with a tag pairs with the k-th sidecar -- as long as
 * receives of one source and tag complete in the order they were posted.
 * When a receive completes while an earlier, still pending receive could
 * have matched the same source and tag, the pairing is unknown: that
 * (communicator, source, tag) is no longer judged (sidecars are still
 * consumed, so nothing leaks). MPI_Mrecv/MPI_Imrecv are not paired (the
 * sidecars of messages taken that way are consumed at MPI_Finalize).
 *
 * MPISCOPE_CHECK_SYNC_SENDS: after a standard-mode MPI_Send, the sender waits
 * for the receiver's acknowledgement (on a second shadow), sent once the
 * receive has completed: MPI_Send then behaves as MPI_Ssend, and a program
 * that only completes thanks to buffering deadlocks visibly.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    uint64_t unit, reps;
    int64_t bytes;
    uint64_t objkey, objoff; /* sender's call site (chk_site_key) */
    int32_t rank;     /* sender's world rank */
    int32_t fn;
    int32_t want_ack;
    int32_t pad;
} sidecar_t;

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
        key = 0xcbf29ce484222325ull;
        for (int i = 0; e->world && i < e->size; i++) key = (key ^ (uint64_t)e->world[i]) * 0x100000001b3ull;
        key = (key ^ seq) * 0x100000001b3ull;
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
    bool reduce = roles & MSC_ROLE_OP;
    if ((roles & MSC_ROLE_COUNT) && (roles & MSC_ROLE_TYPE) && (reduce || c->buf != MPI_IN_PLACE)) {
        me.s = chk_sig(c->type, c->count);
        me.sok = 1;
    } else if (reduce && (roles & MSC_ROLE_RCOUNT) && (roles & MSC_ROLE_TYPE)) {
        me.s = chk_sig(c->type, c->rcount); /* MPI_Reduce_scatter_block */
        me.sok = 1;
    }
    if ((roles & MSC_ROLE_RCOUNT) && (roles & MSC_ROLE_RTYPE) && c->rbuf != MPI_IN_PLACE) {
        me.r = chk_sig(c->rtype, c->rcount);
        me.rok = 1;
    }
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

/* --- point to point ------------------------------------------------------ */

static void shadows(MPI_Comm comm, MPI_Comm *p2p, MPI_Comm *ack)
{
    chk_lock();
    chk_comm_t *e = chk_comm_find(comm);
    *p2p = e ? e->p2p_shadow : MPI_COMM_NULL;
    *ack = e ? e->ack_shadow : MPI_COMM_NULL;
    chk_unlock();
}

static void send_sidecar(MPI_Comm comm, int peer, int tag, chk_sig_t sig, void *site, msc_fn_t fn,
                         bool want_ack)
{
    if (peer == MPI_PROC_NULL || peer < 0) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    sidecar_t s = {sig.unit, sig.reps, sig.bytes, 0, 0, msc_g.world_rank,
                   (int32_t)fn, want_ack && ack != MPI_COMM_NULL, 0};
    chk_site_key(site, &s.objkey, &s.objoff);
    PMPI_Send(&s, sizeof s, MPI_BYTE, peer, tag, p2p);
    if (s.want_ack) {
        chk_wd_sync_wait(true);
        PMPI_Recv(NULL, 0, MPI_BYTE, peer, tag, ack, MPI_STATUS_IGNORE);
        chk_wd_sync_wait(false);
    }
}

void chk_p2p_send_leave(msc_call_t *c)
{
    bool standard = c->fn == MSC_FN_MPI_Send;
    send_sidecar(c->comm, c->peer, c->tag, chk_sig(c->type, c->count), c->site, c->fn,
                 standard && chk_cfg.sync_sends);
}

void chk_p2p_started(MPI_Request r)
{
    chk_req_t q;
    if (!chk_req_get(r, &q) || q.kind != MSC_KIND_SEND_INIT) return;
    send_sidecar(q.comm, q.peer, q.tag, q.sig, q.site, q.fn, false);
}

/* (communicator, world source, tag) whose pairing became unknown. */
typedef struct {
    MPI_Comm comm;
    int src, tag;
} unordered_t;
static unordered_t unordered[256];
static int nunordered;

static bool is_unordered(MPI_Comm comm, int src, int tag)
{
    for (int i = 0; i < nunordered; i++)
        if (unordered[i].comm == comm && unordered[i].src == src && unordered[i].tag == tag)
            return true;
    return false;
}

void chk_p2p_recv_done(MPI_Comm comm, MPI_Status *st, chk_sig_t rsig, msc_fn_t fn, void *site,
                       uint64_t post_seq)
{
    if (!st || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    sidecar_t s;
    MPI_Status st2;
    if (PMPI_Recv(&s, sizeof s, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, p2p, &st2) != MPI_SUCCESS)
        return;
    if (s.want_ack) PMPI_Send(NULL, 0, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, ack);
    int src = s.rank;
    chk_lock();
    bool skip = is_unordered(comm, src, st->MPI_TAG);
    chk_unlock();
    if (!skip && chk_req_earlier_recv(comm, src, st->MPI_TAG, post_seq ? post_seq : UINT64_MAX)) {
        chk_lock();
        if (nunordered < 256) unordered[nunordered++] = (unordered_t){comm, src, st->MPI_TAG};
        chk_unlock();
        skip = true;
    }
    if (skip) return;
    chk_sig_t ssig = {s.unit, s.reps, s.bytes};
    if (chk_sig_receivable(ssig, rsig)) return;
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "GLOBAL:P2P:TYPE_MISMATCH");
    snprintf(f.text, sizeof f.text,
             "The type signature of a message (%lld bytes sent by rank %d with %s) does not match "
             "that of the receive that took it (%s, buffer of %lld bytes). Sender and receiver "
             "must use datatypes with the same sequence of basic types (MPI_INT with MPI_INT, "
             "not MPI_FLOAT); a mismatch reinterprets the bytes and gives wrong values.",
             (long long)s.bytes, s.rank, s.fn >= 0 && s.fn < MSC_FN_COUNT ? msc_fn_name[s.fn] : "?",
             msc_fn_name[fn], (long long)rsig.bytes);
    f.nparts = 2;
    f.parts[0].rank = msc_g.world_rank;
    f.parts[0].site = site;
    snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[fn]);
    f.parts[1].rank = s.rank;
    f.parts[1].objkey = s.objkey;
    f.parts[1].objoff = s.objoff;
    if (s.fn >= 0 && s.fn < MSC_FN_COUNT)
        snprintf(f.parts[1].call, sizeof f.parts[1].call, "%s", msc_fn_name[s.fn]);
    chk_report_full(&f);
}

void chk_p2p_unreceived(void)
{
    /* Every rank has sent all its sidecars once all are here. */
    PMPI_Barrier(msc_g.comm);
    MPI_Comm list[1024], apps[1024];
    int n = chk_comm_shadows(list, apps, 1024);
    for (int i = 0; i < n; i++) {
        for (int guard = 0; guard < 1000; guard++) {
            int flag = 0;
            MPI_Status st;
            if (PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, list[i], &flag, &st) != MPI_SUCCESS || !flag)
                break;
            sidecar_t s;
            PMPI_Recv(&s, sizeof s, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, list[i], MPI_STATUS_IGNORE);
            if (s.fn < 0) continue;
            /* A sidecar left over is only a hint: the message itself must
             * still be waiting on the application's communicator (a local
             * probe: nothing is sent, matching is not changed). A message
             * that was received, by a path whose sidecar went unconsumed,
             * is no finding. */
            int pending = 0;
            MPI_Status ps;
            if (apps[i] != MPI_COMM_NULL &&
                (PMPI_Iprobe(st.MPI_SOURCE, st.MPI_TAG, apps[i], &pending, &ps) != MPI_SUCCESS ||
                 !pending))
                continue;
            chk_finding_t f;
            memset(&f, 0, sizeof f);
            snprintf(f.cls, sizeof f.cls, "LOCAL:FINALIZE:UNRECEIVED_MESSAGE");
            snprintf(f.text, sizeof f.text,
                     "A message of %lld bytes with tag %d, sent by rank %d to rank %d, was never "
                     "received: rank %d called MPI_Finalize with it still waiting. Every message "
                     "must be received (or its send cancelled) before MPI_Finalize; post the "
                     "missing receive, or do not send.",
                     (long long)s.bytes, st.MPI_TAG, s.rank, msc_g.world_rank, msc_g.world_rank);
            f.nparts = 1;
            f.parts[0].rank = s.rank;
            f.parts[0].objkey = s.objkey;
            f.parts[0].objoff = s.objoff;
            f.parts[0].site = (void *)(uintptr_t)s.objoff; /* folds repeats of one site */
            if (s.fn < MSC_FN_COUNT)
                snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[s.fn]);
            chk_report_full(&f);
        }
    }
}
