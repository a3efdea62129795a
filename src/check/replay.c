/* The run as events, for the analyses after the fact at MPI_Finalize:
 * potential deadlocks with zero buffering and message races (replay_run.c).
 *
 * MPI may complete a standard-mode send before its receive is posted
 * (buffering) or only once it is (MPI-3.1 section 3.5); a program that
 * completes only thanks to buffering is unsafe. And a receive from
 * MPI_ANY_SOURCE takes whichever matching message comes first; when another
 * rank's message, not ordered after the receive, could have been taken, the
 * program's result may depend on timing. Neither shows in the run itself.
 * So every rank records, in the order it makes them, the calls that can
 * wait for or order another rank, as events (replay.h): a send (blocking,
 * posted by a nonblocking call, or buffered: MPI_Bsend/MPI_Ibsend never
 * wait), a receive (blocking or posted; its communicator, source and tag as
 * posted), a collective (blocking or posted; its communicator's members'
 * key, the instance number global.c gives every member alike, this rank's
 * rank in it and whether it is the root) and a completion (MPI_Wait* and a
 * Test* that completed: the posting events of its requests; all of them,
 * or any for the -any/-some forms). p2p.c's sidecar records carry the
 * sender's event number, so a receive learns which send it matched --
 * wildcards fixed as they matched -- and the message's tag when the record
 * is paired with it. Each event costs 40 bytes and a lock.
 *
 * At MPI_Finalize rank 0 gathers every rank's events (on msc_g.comm) and
 * replays them (replay_run.c); its verdict goes back to every rank, and
 * each rank reports its own calls of each finding under one group, so the
 * report names every rank's call and line. GLOBAL:DEADLOCK:POTENTIAL and
 * GLOBAL:P2P:MESSAGE_RACE are warnings: the program completed, its exit
 * code stays.
 *
 * The replay is skipped, whole, when a rank recorded from two threads (one
 * order per rank is its model), exceeded MPISCOPE_CHECK_ZERO_BUFFER_EVENTS,
 * or is connected to another world (spawned, connected or joined: its ranks
 * are numbered in another MPI_COMM_WORLD); races alone are not judged when a
 * call that orders ranks was not recorded (chk_rp_unordered).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "replay.h"

static pthread_mutex_t rp_lock = PTHREAD_MUTEX_INITIALIZER;
static rp_ev_t *evs;
static uint32_t nev, capev;
static uint32_t *refs;
static uint32_t nrefs, caprefs;
static const char *skipped; /* why this rank's events cannot be replayed, or NULL */
static _Atomic int unordered; /* a call that orders ranks was not recorded */
static _Atomic int owner_taken;
static CHK_TLS int owner_mine; /* 1: this thread records; -1: another does */

static uint32_t limit(void)
{
    return (uint32_t)msc_g.settings.v[MSC_SET_CHECK_ZERO_BUFFER_EVENTS].num;
}

void chk_rp_disable(const char *why)
{
    pthread_mutex_lock(&rp_lock);
    if (!skipped) skipped = why;
    pthread_mutex_unlock(&rp_lock);
}

/* One more event of this thread, under rp_lock; NULL when not recorded. */
static rp_ev_t *append(msc_fn_t fn, void *site, uint32_t *at)
{
    if (!owner_mine) {
        int no = 0;
        owner_mine = atomic_compare_exchange_strong(&owner_taken, &no, 1) ? 1 : -1;
    }
    if (owner_mine < 0) {
        if (!skipped) skipped = "MPI calls from more than one thread";
        return NULL;
    }
    if (skipped || !limit()) return NULL;
    if (nev == capev) {
        if (nev >= limit()) {
            skipped = "more calls than MPISCOPE_CHECK_ZERO_BUFFER_EVENTS";
            return NULL;
        }
        uint32_t cap = capev ? 2 * capev : 1024;
        if (cap > limit()) cap = limit();
        rp_ev_t *e = realloc(evs, sizeof *e * cap);
        if (e) evs = e;
        if (!e) {
            skipped = "out of memory";
            return NULL;
        }
        capev = cap;
    }
    rp_ev_t *e = &evs[nev];
    memset(e, 0, sizeof *e);
    e->fn = (int32_t)fn;
    e->peer = -1;
    e->ref = CHK_RP_NONE;
    e->site = (uint64_t)(uintptr_t)site;
    *at = nev++;
    return e;
}

uint32_t chk_rp_send(msc_fn_t fn, void *site, chk_rp_mode_t mode)
{
    uint32_t at = CHK_RP_NONE;
    pthread_mutex_lock(&rp_lock);
    rp_ev_t *e = append(fn, site, &at);
    if (e) e->op = RP_SEND, e->mode = (uint8_t)mode;
    pthread_mutex_unlock(&rp_lock);
    return at;
}

uint32_t chk_rp_recv(msc_fn_t fn, void *site, chk_rp_mode_t mode, MPI_Comm comm, int src, int tag)
{
    uint32_t at = CHK_RP_NONE;
    uint64_t handle = 0;
    memcpy(&handle, &comm, sizeof comm < sizeof handle ? sizeof comm : sizeof handle);
    pthread_mutex_lock(&rp_lock);
    rp_ev_t *e = append(fn, site, &at);
    if (e) {
        e->op = RP_RECV, e->mode = (uint8_t)mode;
        e->flags = (uint16_t)((src == MPI_ANY_SOURCE ? RP_ANY_SOURCE : 0) |
                              (tag == MPI_ANY_TAG ? RP_ANY_TAG : 0));
        e->key = handle;
        e->ptag = tag;
        e->tag = -1;
    }
    pthread_mutex_unlock(&rp_lock);
    return at;
}

uint32_t chk_rp_coll(msc_fn_t fn, void *site, uint64_t comm_key, uint64_t instance, int members,
                     chk_rp_mode_t mode, int comm_rank, bool root)
{
    uint32_t at = CHK_RP_NONE;
    pthread_mutex_lock(&rp_lock);
    rp_ev_t *e = append(fn, site, &at);
    if (e) {
        e->op = RP_COLL, e->mode = (uint8_t)mode, e->peer = members;
        e->tag = comm_rank;
        e->flags = root ? RP_ROOT : 0;
        uint64_t h = (comm_key ^ (instance * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
        e->key = h ^ (h >> 31);
    }
    pthread_mutex_unlock(&rp_lock);
    return at;
}

void chk_rp_wait(msc_fn_t fn, void *site, const uint32_t *posts, int n, bool any)
{
    uint32_t at;
    pthread_mutex_lock(&rp_lock);
    rp_ev_t *e = append(fn, site, &at);
    if (e) {
        e->op = RP_WAIT, e->mode = any;
        e->ref = nrefs;
        /* A request not known: for "all", left out (taken as done); for
         * "any", it may be the one that completed, so the call completes
         * and its receives' order is not known. */
        uint32_t known[256];
        int k = 0;
        for (int i = 0; i < n && k >= 0; i++) {
            if (posts[i] != CHK_RP_NONE && k < 256) known[k++] = posts[i];
            else if (any || posts[i] != CHK_RP_NONE) k = -1;
        }
        if (n < 0) k = -1;
        posts = known, n = k;
        e->peer = n;
        if (e->peer > 0 && nrefs + (uint32_t)n > caprefs) {
            uint32_t cap = caprefs ? 2 * caprefs : 1024;
            while (cap < nrefs + (uint32_t)n) cap *= 2;
            uint32_t *r = realloc(refs, sizeof *r * cap);
            if (r) refs = r, caprefs = cap;
            else skipped = "out of memory";
        }
        if (e->peer > 0 && !skipped) {
            memcpy(refs + nrefs, posts, sizeof *posts * (size_t)n);
            nrefs += (uint32_t)n;
        }
    }
    pthread_mutex_unlock(&rp_lock);
}

void chk_rp_matched(uint32_t recv_ev, int sender, uint32_t send_ev, int tag)
{
    if (recv_ev == CHK_RP_NONE || send_ev == CHK_RP_NONE || sender < 0) return;
    pthread_mutex_lock(&rp_lock);
    if (recv_ev < nev && evs[recv_ev].op == RP_RECV) {
        evs[recv_ev].peer = sender;
        evs[recv_ev].ref = send_ev;
        evs[recv_ev].tag = tag;
    }
    pthread_mutex_unlock(&rp_lock);
}

void chk_rp_unordered(void)
{
    /* Once set it stays: a load, no store, on every later call (fences). */
    if (!atomic_load_explicit(&unordered, memory_order_relaxed))
        atomic_store_explicit(&unordered, 1, memory_order_relaxed);
}

/* The call sites of a verdict, every rank's, in a form any rank resolves
 * (chk_site_key): slot k of the cycles is at[c][i] (c * RP_CYCLE_RANKS + i),
 * then the races' three calls each. */
enum { SLOTS = RP_CYCLES_MAX * RP_CYCLE_RANKS + RP_RACES_MAX * 3 };

static rp_where_t *slot_of(rp_verdict_t *v, int k)
{
    if (k < RP_CYCLES_MAX * RP_CYCLE_RANKS) {
        int c = k / RP_CYCLE_RANKS, i = k % RP_CYCLE_RANKS;
        return c < v->ncycles && i < v->len[c] ? &v->at[c][i] : NULL;
    }
    k -= RP_CYCLES_MAX * RP_CYCLE_RANKS;
    return k / 3 < v->nraces ? &v->race[k / 3][k % 3] : NULL;
}

/* One finding of the verdict, reported by the rank of its first call, with
 * every call as a part (this rank's by address, the others' by the keys all
 * ranks summed): one rank per finding, so a repeat (the same first call)
 * is counted on it and no part of one finding folds into another. */
static void report_verdict(const char *cls, const char *text, rp_where_t *const *w, const int *k,
                           int n, const uint64_t *keys, uint64_t count)
{
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    f.count = count;
    snprintf(f.cls, sizeof f.cls, "%s", cls);
    memcpy(f.text, text, sizeof f.text);
    for (int i = 0; i < n && f.nparts < CHK_PARTS_MAX; i++) {
        chk_part_t *p = &f.parts[f.nparts++];
        p->rank = w[i]->rank;
        if (w[i]->rank == msc_g.world_rank && w[i]->at < nev)
            p->site = (void *)(uintptr_t)evs[w[i]->at].site;
        else
            p->objkey = keys[2 * k[i]], p->objoff = keys[2 * k[i] + 1];
        snprintf(p->call, sizeof p->call, "%s",
                 w[i]->fn >= 0 && w[i]->fn < MSC_FN_COUNT ? msc_fn_name[w[i]->fn] : "");
    }
    chk_report_full(&f);
}

void chk_rp_finalize(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    int me = msc_g.world_rank, size = msc_g.world_size;
    pthread_mutex_lock(&rp_lock);
    if (parent != MPI_COMM_NULL && !skipped) skipped = "a spawned world";
    /* The refs padded to an even count: the next rank's events stay 8-byte
     * aligned in rank 0's buffer. */
    uint32_t prefs = (nrefs + 1) & ~1u;
    rp_header_t mine = {nev, prefs, skipped != NULL || !limit(),
                        atomic_load_explicit(&unordered, memory_order_relaxed)};
    size_t bytes = sizeof(rp_ev_t) * nev + sizeof(uint32_t) * prefs;
    if (bytes > (size_t)0x7fffffff && !skipped) skipped = "more than 2 GiB of events";
    char *out = skipped ? NULL : malloc(bytes + 1);
    if (out) {
        if (nev) memcpy(out, evs, sizeof(rp_ev_t) * nev);
        if (nrefs) memcpy(out + sizeof(rp_ev_t) * nev, refs, sizeof(uint32_t) * nrefs);
        if (prefs > nrefs) memset(out + sizeof(rp_ev_t) * nev + sizeof(uint32_t) * nrefs, 0, 4);
    } else if (!skipped) {
        skipped = "out of memory";
    }
    mine.skipped = skipped != NULL || !limit();
    const char *why = skipped;
    pthread_mutex_unlock(&rp_lock);

    rp_header_t *h = me == 0 ? calloc((size_t)size, sizeof *h) : NULL;
    int *counts = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    rp_verdict_t *v = calloc(1, sizeof *v);
    /* Every rank able to take part, or none: one agreement first. */
    int skip = mine.skipped || !v || (me == 0 && !(h && counts && displs)), any_skip = 1;
    if (PMPI_Allreduce(&skip, &any_skip, 1, MPI_INT, MPI_MAX, msc_g.comm) != MPI_SUCCESS)
        any_skip = 1;
    /* Limits are said; the model's documented bounds (threads, other
     * worlds) are not news at every run. */
    if (any_skip && why && limit() &&
        (!strncmp(why, "more than", 9) || !strncmp(why, "more calls", 10) ||
         !strcmp(why, "out of memory")))
        msc_warn("check: potential deadlocks and message races (the replay of the run) were not "
                 "looked for: %s "
                 "on rank %d",
                 why, me);
    int nc = 0;
    if (!any_skip) {
        PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, h, (int)sizeof mine, MPI_BYTE, 0,
                    msc_g.comm);
        long long total = 0;
        for (int r = 0; me == 0 && r < size; r++) {
            long long b =
                (long long)sizeof(rp_ev_t) * h[r].nev + (long long)sizeof(uint32_t) * h[r].nrefs;
            displs[r] = total + b > 0x7fffffff ? 0 : (int)total;
            counts[r] = total + b > 0x7fffffff ? 0 : (int)b;
            total += b;
        }
        char *blob = me == 0 && total <= 0x7fffffff ? malloc((size_t)total + 1) : NULL;
        int go = me != 0 || blob;
        PMPI_Bcast(&go, 1, MPI_INT, 0, msc_g.comm);
        if (go) {
            PMPI_Gatherv(out, (int)bytes, MPI_BYTE, blob, counts, displs, MPI_BYTE, 0, msc_g.comm);
            if (me == 0) chk_rp_analyze(h, blob, size, v);
        } else if (me == 0) {
            msc_warn("check: potential deadlocks and message races (the replay of the run) were "
                     "not looked for: "
                     "%lld bytes of events do not fit in memory on rank 0",
                     total);
        }
        free(blob);
        int n[2] = {v->ncycles, v->nraces};
        PMPI_Bcast(n, 2, MPI_INT, 0, msc_g.comm);
        if (n[0] || n[1]) PMPI_Bcast(v, (int)sizeof *v, MPI_BYTE, 0, msc_g.comm);
        nc = n[0] || n[1];
    }
    uint64_t *mine_keys = nc ? calloc(2 * SLOTS, sizeof *mine_keys) : NULL;
    uint64_t *keys = nc ? calloc(2 * SLOTS, sizeof *keys) : NULL;
    if (nc) {
        for (int k = 0; mine_keys && k < SLOTS; k++) {
            rp_where_t *w = slot_of(v, k);
            if (w && w->rank == me && w->at < nev)
                chk_site_key((void *)(uintptr_t)evs[w->at].site, &mine_keys[2 * k],
                             &mine_keys[2 * k + 1]);
        }
        /* Every slot has one owner: the sum is its key. No memory here:
         * zeros (the other ranks' parts then read "?"). */
        static uint64_t zeros[2 * SLOTS];
        PMPI_Allreduce(mine_keys ? mine_keys : zeros, keys ? keys : zeros, 2 * SLOTS,
                       MPI_UINT64_T, MPI_SUM, msc_g.comm);
    }
    for (int c = 0; keys && c < v->ncycles; c++) {
        if (v->at[c][0].rank != me) continue;
        rp_where_t *w[RP_CYCLE_RANKS];
        int k[RP_CYCLE_RANKS];
        for (int i = 0; i < v->len[c]; i++) w[i] = &v->at[c][i], k[i] = c * RP_CYCLE_RANKS + i;
        report_verdict("GLOBAL:DEADLOCK:POTENTIAL", v->text[c], w, k, v->len[c], keys, 1);
    }
    /* A race: the receive (its rank reports), the send it took, the other. */
    for (int c = 0; keys && c < v->nraces; c++) {
        if (v->race[c][0].rank != me) continue;
        rp_where_t *w[3];
        int k[3];
        for (int i = 0; i < 3; i++)
            w[i] = &v->race[c][i], k[i] = RP_CYCLES_MAX * RP_CYCLE_RANKS + 3 * c + i;
        report_verdict("GLOBAL:P2P:MESSAGE_RACE", v->race_text[c], w, k, 3, keys,
                       v->race_count[c]);
    }
    free(mine_keys), free(keys);
    free(v), free(h), free(counts), free(displs), free(out);
    pthread_mutex_lock(&rp_lock);
    free(evs), free(refs);
    evs = NULL, refs = NULL;
    nev = capev = nrefs = caprefs = 0;
    skipped = "finalized";
    pthread_mutex_unlock(&rp_lock);
}
