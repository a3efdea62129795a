/* The definitions' unification at MPI_Finalize: a reduction up a binomial
 * tree, then the maps back down it (the scheme of Score-P's unification).
 *
 * Up: every rank puts its local definitions in a set (defset.h), merges the
 * sets of its children in order, nearest first, and sends the result to its
 * parent; ceil(log2 P) steps, the pairs of a step in parallel. A rank sends
 * its parent the distinct definitions of its subtree once, so rank 0
 * receives and holds the distinct definitions of the run (plus one record
 * per rank: its locations and host), not P times each rank's. Merging in
 * rank order keeps the numbering of first appearance in rank order, which
 * a merge of everything at rank 0 gives.
 *
 * Down: rank 0's set is the global one. A rank that knows where its own
 * set's records went globally sends each child, farthest first, the global
 * index of each record of the child's set (what the child sent up, mapped
 * through the merge); ceil(log2 P) steps again, one 32-bit word per
 * definition of the child's subtree. Each rank then reads its local
 * references' global ones from its own set's map.
 *
 * The messages go over the tool's private communicator with PMPI. A rank
 * that runs out of memory sends a broken set (header only); every rank
 * learns it from the maps' status word, and no rank is left waiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defset.h"
#include "impl.h"

enum { TAG_UP = 78, TAG_DOWN = 79 };

/* MPISCOPE_TEST_UNIFY_STATS=1 (tests only): each rank appends a line with
 * what the unification cost it to <output directory>/unify-stats.txt. */
static void stats(const trc_unify_stats_t *st)
{
    const char *on = getenv("MPISCOPE_TEST_UNIFY_STATS");
    if (!on || strcmp(on, "1") != 0 || !msc_g.outdir[0]) return;
    char line[320], path[sizeof msc_g.outdir + 32];
    snprintf(path, sizeof path, "%s/unify-stats.txt", msc_g.outdir);
    int n = snprintf(line, sizeof line,
                     "rank %d size %d own_words %zu children %d up_recv_msgs %d up_recv_words %zu "
                     "up_sent_words %zu down_recv_words %zu down_sent_words %zu "
                     "held_words %zu global_words %zu\n",
                     msc_g.world_rank, msc_g.world_size, st->own, st->children, st->up_msgs,
                     st->up_recv, st->up_sent, st->down_recv, st->down_sent, st->held,
                     st->global);
    if (n < 0 || (size_t)n >= sizeof line) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    setvbuf(f, NULL, _IONBF, 0); /* one write: lines of the ranks do not mix */
    fwrite(line, 1, (size_t)n, f);
    fclose(f);
}

/* Receives a message of int64 words from `src` (its size probed). */
static int64_t *recv_words(int src, size_t *n)
{
    MPI_Status st;
    int count = 0;
    PMPI_Probe(src, TAG_UP, msc_g.comm, &st);
    PMPI_Get_count(&st, MPI_INT64_T, &count);
    /* Without room for it, the receive into one word fails as MPI fails
     * (the set that is sent is at most the distinct definitions). */
    int64_t one, *w = malloc(((size_t)count + 1) * sizeof *w);
    if (!w) {
        PMPI_Recv(&one, 1, MPI_INT64_T, src, TAG_UP, msc_g.comm, MPI_STATUS_IGNORE);
        *n = 0;
        return NULL;
    }
    PMPI_Recv(w, count, MPI_INT64_T, src, TAG_UP, msc_g.comm, MPI_STATUS_IGNORE);
    *n = (size_t)count;
    return w;
}

bool trc_unify(tu_set_t *s, uint32_t **block, uint32_t *global[TU_KINDS], trc_unify_stats_t *st)
{
    int rank = msc_g.world_rank, size = msc_g.world_size;
    int children[64];
    int nch = tu_children(rank, size, children);
    uint32_t *cmap[64][TU_KINDS];
    uint32_t ccount[64][TU_KINDS];
    memset(st, 0, sizeof *st);
    memset(cmap, 0, sizeof cmap);
    st->children = nch;
    st->own = tu_words(s);
    for (int k = 0; k < TU_KINDS; k++) global[k] = NULL;
    /* Our own communicator: a receive that fails (no memory for a message:
     * it is received truncated) returns instead of ending the program. */
    PMPI_Comm_set_errhandler(msc_g.comm, MPI_ERRORS_RETURN);

    /* Up: merge the children's sets, nearest first, then send to the parent. */
    for (int c = 0; c < nch; c++) {
        size_t n = 0;
        int64_t *w = recv_words(children[c], &n);
        st->up_msgs++;
        st->up_recv += n;
        if (!w || !tu_merge(s, w, n, cmap[c], ccount[c])) tu_break(s);
        free(w);
    }
    if (rank != 0) {
        size_t n = 0;
        int64_t *w = tu_serialize(s, &n);
        int64_t broken[5] = {1, 0, 0, 0, 0};
        if (w && n > (size_t)INT32_MAX) free(w), w = NULL; /* (2^31 words: 16 GiB) */
        if (!w) n = 5;
        PMPI_Send(w ? w : broken, (int)n, MPI_INT64_T, tu_parent(rank), TAG_UP, msc_g.comm);
        st->up_sent = n;
        free(w);
    }

    /* Down: [ok, then for each mapped kind the global index of each record]. */
    size_t mine = 1;
    for (int k = 0; k < TU_KINDS; k++)
        if (tu_mapped(k)) mine += tu_count(s, k);
    uint32_t *down = malloc(mine * sizeof *down);
    bool ok = down != NULL && !tu_broken(s);
    if (rank == 0) {
        if (down) {
            down[0] = ok;
            for (size_t i = 1; i < mine; i++) down[i] = 0;
            size_t at = 1;
            for (int k = 0; k < TU_KINDS; k++)
                if (tu_mapped(k))
                    for (uint32_t i = 0; i < tu_count(s, k); i++) down[at++] = i;
        }
    } else {
        MPI_Status mst;
        int got = 0;
        PMPI_Probe(tu_parent(rank), TAG_DOWN, msc_g.comm, &mst);
        PMPI_Get_count(&mst, MPI_UINT32_T, &got);
        uint32_t *in = (size_t)got == mine ? down : malloc(((size_t)got + 1) * sizeof *in);
        uint32_t sink = 0;
        PMPI_Recv(in ? in : &sink, in ? got : 0, MPI_UINT32_T, tu_parent(rank), TAG_DOWN,
                  msc_g.comm, MPI_STATUS_IGNORE);
        st->down_recv = (size_t)got;
        /* A broken parent sends one word, 0; any other size is a mismatch. */
        ok = ok && in == down && down[0] == 1;
        if (in != down) free(in);
    }
    /* This set's map, by kind, points into `down`. */
    uint32_t *gk[TU_KINDS] = {0};
    if (ok) {
        size_t at = 1;
        for (int k = 0; k < TU_KINDS; k++)
            if (tu_mapped(k)) gk[k] = down + at, at += tu_count(s, k);
    }
    for (int c = nch - 1; c >= 0; c--) {
        size_t n = 1;
        bool cok = ok;
        for (int k = 0; k < TU_KINDS; k++)
            if (tu_mapped(k)) {
                n += ccount[c][k];
                cok = cok && (ccount[c][k] == 0 || cmap[c][k]);
            }
        uint32_t *out = cok ? malloc(n * sizeof *out) : NULL;
        if (out) {
            out[0] = 1;
            size_t at = 1;
            for (int k = 0; k < TU_KINDS; k++)
                if (tu_mapped(k))
                    for (uint32_t i = 0; i < ccount[c][k]; i++) out[at++] = gk[k][cmap[c][k][i]];
            PMPI_Send(out, (int)n, MPI_UINT32_T, children[c], TAG_DOWN, msc_g.comm);
            st->down_sent += n;
        } else {
            uint32_t no = 0;
            PMPI_Send(&no, 1, MPI_UINT32_T, children[c], TAG_DOWN, msc_g.comm);
            st->down_sent += 1;
        }
        free(out);
        for (int k = 0; k < TU_KINDS; k++) free(cmap[c][k]);
    }
    st->held = tu_words(s);
    if (rank == 0) st->global = tu_words(s);
    stats(st);
    if (!ok) {
        free(down);
        *block = NULL;
        return false;
    }
    for (int k = 0; k < TU_KINDS; k++) global[k] = gk[k];
    *block = down;
    return true;
}
