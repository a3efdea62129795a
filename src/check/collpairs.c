/* Per-block type signatures of the collectives whose blocks global.c's
 * pairs() does not judge: MPI_Alltoallw, MPI_Reduce_scatter, the
 * neighbourhood collectives' v- and w-forms (MPI_Neighbor_allgatherv,
 * MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw), each blocking,
 * nonblocking and persistent (MPI-4 *_init, judged at the init call, which
 * the standard orders like any other collective on the communicator).
 *
 * The scheme is global.c's: every block that travels from one member to
 * another is added by its sender (+ a hash of the pair's key and of the
 * signature it sends) and subtracted by its receiver (- the same of the
 * signature it expects); the members' sums ride in the agreement
 * MPI_Allreduce global.c makes anyway (or its log's running sum), and a
 * non-zero total means some block's sender and receiver disagree. No
 * message goes over the application's communicators; the neighbourhood
 * forms ask the topology with local PMPI queries only.
 *
 * What a block's key is (MPI-3.1 sections 5.8, 5.10, 7.6):
 * - Alltoallw: (sender, receiver); block i of sendtypes/sendcounts goes to
 *   rank i, block j of recvtypes/recvcounts comes from rank j; in place,
 *   the receive arguments describe what is sent too.
 * - Reduce_scatter: recvcounts must be the same on every member; member j
 *   gives recvcounts[i] elements of its datatype to the block member i
 *   gets, which i expects as its own recvcounts[i] of its datatype. So the
 *   key (j, i) carries j's recvcounts[i] against i's.
 *   (MPI_Reduce_scatter_block needs no pairs: its one count and type are
 *   compared by global.c's reduction descriptors.)
 * - Neighbourhood forms: block k of the send arguments goes to the k-th
 *   destination, block k of the receive arguments comes from the k-th
 *   source. On a Cartesian topology blocks 2d and 2d+1 go to the neighbour
 *   below and above in dimension d, and the neighbour below receives it in
 *   its block 2d+1: the key is (sender, receiver, dimension, direction of
 *   travel), which keeps periodic dimensions of size 1 and 2 (the same rank
 *   both ways) apart; MPI_PROC_NULL neighbours exchange nothing. On a graph
 *   or distributed graph the key is (sender, receiver, which of the edges
 *   between the two it is, in order), the order in which the standard
 *   matches repeated edges.
 * A block of unknown signature (a NULL array, an invalid or null datatype,
 * a Fortran w-form whose handle arrays the record does not carry, a
 * neighbourhood of more than NB_MAX edges) makes the instance "loose": no
 * verdict. What it cannot see: blocks a member sends to itself (Alltoallw,
 * Reduce_scatter), which the local type checks cover only in part; which
 * block disagrees (the finding says that some do).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"

enum { NB_MAX = 1024 };

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static MPI_Count count_at(const msc_call_t *c, const void *a, int i)
{
    return c->counts_are_mpi_count ? ((const MPI_Count *)a)[i] : ((const int *)a)[i];
}

/* One block on the key (from, to, slot): sign +1 for its sender, -1 for its
 * receiver. */
static void block(chk_pairsum_t *ps, int from, int to, uint64_t slot, MPI_Datatype t, MPI_Count n,
                  int sign)
{
    if (t == MPI_DATATYPE_NULL || n < 0) {
        ps->loose = 1;
        return;
    }
    chk_sig_t g = chk_sig(t, n);
    if (n > 0 && !g.unit) {
        ps->loose = 1;
        return;
    }
    uint64_t at = mix(mix(mix(0x2c1b3c6d, (uint64_t)(uint32_t)from), (uint64_t)(uint32_t)to), slot);
    uint64_t hb = mix(at, (uint64_t)g.bytes);
    uint64_t hs = g.unit ? mix(mix(at, g.unit), g.reps) : hb;
    ps->pbytes += sign > 0 ? hb : (uint64_t)0 - hb;
    ps->psig += sign > 0 ? hs : (uint64_t)0 - hs;
}

static void alltoallw(const msc_call_t *c, int n, int mine, chk_pairsum_t *ps)
{
    bool inplace = c->buf == MPI_IN_PLACE;
    if (!c->rcounts || !c->rtypes || (!inplace && (!c->counts || !c->types))) {
        ps->loose = 1;
        return;
    }
    for (int i = 0; i < n; i++) {
        if (i == mine) continue;
        block(ps, i, mine, 0, c->rtypes[i], count_at(c, c->rcounts, i), -1);
        if (inplace)
            block(ps, mine, i, 0, c->rtypes[i], count_at(c, c->rcounts, i), 1);
        else
            block(ps, mine, i, 0, c->types[i], count_at(c, c->counts, i), 1);
    }
}

static void reduce_scatter(const msc_call_t *c, int n, int mine, chk_pairsum_t *ps)
{
    if (!c->rcounts) {
        ps->loose = 1;
        return;
    }
    for (int i = 0; i < n; i++) {
        if (i == mine) continue;
        block(ps, mine, i, 0, c->type, count_at(c, c->rcounts, i), 1);
        block(ps, i, mine, 0, c->type, count_at(c, c->rcounts, mine), -1);
    }
}

/* The sources and destinations of this member, in the standard's order,
 * with each edge's slot (see the header); *n = -1 when unknown. */
typedef struct {
    int nsrc, ndst;
    int src[NB_MAX], dst[NB_MAX];
    uint64_t sslot[NB_MAX], dslot[NB_MAX];
} nbrs_t;

/* slot[k] = how many of the edges before k in list go to the same rank. */
static void occurrences(const int *list, int n, uint64_t *slot)
{
    for (int k = 0; k < n; k++) {
        uint64_t o = 0;
        for (int j = 0; j < k; j++) o += list[j] == list[k];
        slot[k] = o;
    }
}

static bool neighbours(MPI_Comm comm, int mine, nbrs_t *nb)
{
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return false;
    if (topo == MPI_CART) {
        int nd = 0;
        if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0 || 2 * nd > NB_MAX) return false;
        nb->nsrc = nb->ndst = 2 * nd;
        for (int d = 0; d < nd; d++) {
            int below, above;
            if (PMPI_Cart_shift(comm, d, 1, &below, &above) != MPI_SUCCESS) return false;
            /* Block 2d goes down (travel 0) and comes from below, having
             * travelled up (1); block 2d+1 the reverse. */
            nb->dst[2 * d] = nb->src[2 * d] = below;
            nb->dst[2 * d + 1] = nb->src[2 * d + 1] = above;
            nb->dslot[2 * d] = 2 * (uint64_t)d, nb->dslot[2 * d + 1] = 2 * (uint64_t)d + 1;
            nb->sslot[2 * d] = 2 * (uint64_t)d + 1, nb->sslot[2 * d + 1] = 2 * (uint64_t)d;
        }
        return true;
    }
    if (topo == MPI_GRAPH) {
        int k = 0;
        if (PMPI_Graph_neighbors_count(comm, mine, &k) != MPI_SUCCESS || k < 0 || k > NB_MAX)
            return false;
        if (PMPI_Graph_neighbors(comm, mine, k, nb->dst) != MPI_SUCCESS) return false;
        nb->nsrc = nb->ndst = k;
        memcpy(nb->src, nb->dst, sizeof(int) * (size_t)k);
    } else if (topo == MPI_DIST_GRAPH) {
        int ins = 0, outs = 0, weighted = 0;
        if (PMPI_Dist_graph_neighbors_count(comm, &ins, &outs, &weighted) != MPI_SUCCESS ||
            ins < 0 || outs < 0 || ins > NB_MAX || outs > NB_MAX)
            return false;
        int *sw = weighted ? malloc(sizeof(int) * (size_t)(ins + 1)) : NULL;
        int *dw = weighted ? malloc(sizeof(int) * (size_t)(outs + 1)) : NULL;
        int rc = weighted && (!sw || !dw)
                     ? MPI_ERR_NO_MEM
                     : PMPI_Dist_graph_neighbors(comm, ins, nb->src, weighted ? sw : MPI_UNWEIGHTED,
                                                 outs, nb->dst, weighted ? dw : MPI_UNWEIGHTED);
        free(sw), free(dw);
        if (rc != MPI_SUCCESS) return false;
        nb->nsrc = ins, nb->ndst = outs;
    } else {
        return false;
    }
    occurrences(nb->src, nb->nsrc, nb->sslot);
    occurrences(nb->dst, nb->ndst, nb->dslot);
    return true;
}

static void neighbourhood(const msc_call_t *c, int mine, int form, chk_pairsum_t *ps)
{
    nbrs_t *nb = malloc(sizeof *nb);
    if (!nb || !neighbours(c->comm, mine, nb)) {
        free(nb);
        ps->loose = 1;
        return;
    }
    /* form: 'g' allgatherv (one send block for all), 'v' alltoallv, 'w'. */
    if (!c->rcounts || (form == 'w' && (!c->rtypes || !c->types || !c->counts)) ||
        (form == 'v' && !c->counts)) {
        free(nb);
        ps->loose = 1;
        return;
    }
    for (int k = 0; k < nb->ndst; k++) {
        if (nb->dst[k] == MPI_PROC_NULL) continue;
        MPI_Datatype t = form == 'w' ? c->types[k] : c->type;
        MPI_Count m = form == 'g' ? c->count : count_at(c, c->counts, k);
        block(ps, mine, nb->dst[k], nb->dslot[k], t, m, 1);
    }
    for (int k = 0; k < nb->nsrc; k++) {
        if (nb->src[k] == MPI_PROC_NULL) continue;
        MPI_Datatype t = form == 'w' ? c->rtypes[k] : c->rtype;
        block(ps, nb->src[k], mine, nb->sslot[k], t, count_at(c, c->rcounts, k), -1);
    }
    free(nb);
}

bool chk_pairs_more(const msc_call_t *c, chk_pairsum_t *ps)
{
    unsigned cf = chk_coll_form(c->fn);
    bool w = cf & CHK_CF_ALLTOALLW;
    bool rs = cf & CHK_CF_RSCATTER;
    int form = cf & CHK_CF_NBR_AGV    ? 'g'
               : cf & CHK_CF_NBR_A2AV ? 'v'
               : cf & CHK_CF_NBR_A2AW ? 'w'
                                      : 0;
    if (!w && !rs && !form) return false;
    memset(ps, 0, sizeof *ps);
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    int n = ci->size, mine = ci->rank;
    if (mine < 0) {
        ps->loose = 1;
        return true;
    }
    if (w)
        alltoallw(c, n, mine, ps);
    else if (rs)
        reduce_scatter(c, n, mine, ps);
    else
        neighbourhood(c, mine, form, ps);
    return true;
}
