/* Arguments of the topology and split calls that the standard constrains
 * but the MPI libraries do not all reject (MPICH 4.0.2 takes most of them
 * and goes on with a wrong grid or rank): checked before the PMPI call,
 * from the call's arguments by position (role args, tools/wrapgen/
 * functions.txt; C bindings only: Fortran calls give none). Each finding is
 * LOCAL:ARG:TOPOLOGY or LOCAL:ARG:SPLIT and cites MPI-3.1's rule:
 *
 *   MPI_Comm_split       color < 0 other than MPI_UNDEFINED (§6.4.2)
 *   MPI_Comm_split_type  split_type < 0 other than MPI_UNDEFINED (§6.4.2;
 *                        the positive values are the implementation's)
 *   MPI_Dims_create      ndims < 0, a dims[i] < 0, or nnodes not a multiple
 *                        of the product of the dims[i] > 0 (§7.5.2)
 *   MPI_Cart_create/map  ndims < 0, a dims[i] <= 0, or a grid larger than
 *                        the group (§7.5.1, §7.5.8)
 *   MPI_Cart_rank        a coordinate out of range in a non-periodic
 *                        dimension (§7.5.5)
 *   MPI_Cart_coords      a rank outside the communicator (§7.5.5)
 *   MPI_Cart_shift       a direction outside [0, ndims) (§7.5.6)
 *   MPI_Graph_create/map nnodes < 0 or larger than the group, index[]
 *                        decreasing or negative, an edge outside
 *                        [0, nnodes) (§7.5.3, §7.5.8)
 *   MPI_Graph_neighbors(_count)  a rank outside the communicator (§7.5.5)
 *   MPI_Dist_graph_create(_adjacent)  a negative degree or n, a source or
 *                        destination outside the communicator (§7.5.4)
 *
 * Arrays are read only up to a bound that the same call fixes (ndims,
 * nnodes, degrees), and never when that bound is itself wrong. Calls on a
 * communicator whose topology is not the one the call needs, or on an
 * intercommunicator, are left to MPI, which rejects them.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX_CHECKED = 1 << 16 }; /* array elements read at most */

static int fn_split, fn_split_type, fn_dims, fn_cart_create, fn_cart_map, fn_cart_rank,
    fn_cart_coords, fn_cart_shift, fn_graph_create, fn_graph_map, fn_graph_nbrs,
    fn_graph_nbrs_count, fn_dist_create, fn_dist_adjacent;

void chk_topo_init(void)
{
    fn_split = msc_fn_lookup("MPI_Comm_split");
    fn_split_type = msc_fn_lookup("MPI_Comm_split_type");
    fn_dims = msc_fn_lookup("MPI_Dims_create");
    fn_cart_create = msc_fn_lookup("MPI_Cart_create");
    fn_cart_map = msc_fn_lookup("MPI_Cart_map");
    fn_cart_rank = msc_fn_lookup("MPI_Cart_rank");
    fn_cart_coords = msc_fn_lookup("MPI_Cart_coords");
    fn_cart_shift = msc_fn_lookup("MPI_Cart_shift");
    fn_graph_create = msc_fn_lookup("MPI_Graph_create");
    fn_graph_map = msc_fn_lookup("MPI_Graph_map");
    fn_graph_nbrs = msc_fn_lookup("MPI_Graph_neighbors");
    fn_graph_nbrs_count = msc_fn_lookup("MPI_Graph_neighbors_count");
    fn_dist_create = msc_fn_lookup("MPI_Dist_graph_create");
    fn_dist_adjacent = msc_fn_lookup("MPI_Dist_graph_create_adjacent");
}

#define TOPO(c, ...) chk_report("LOCAL:ARG:TOPOLOGY", (c)->fn, (c)->site, __VA_ARGS__)

static int arg_int(const msc_call_t *c, int i)
{
    return (int)c->arg[i];
}

static const int *arg_ints(const msc_call_t *c, int i)
{
    return (const int *)c->arg[i];
}

/* The size of an intracommunicator, or -1 (an intercommunicator or a handle
 * MPI does not take: MPI's own error then). */
static int intra_size(MPI_Comm comm)
{
    int inter = 0, size = -1;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return -1;
    return PMPI_Comm_size(comm, &size) == MPI_SUCCESS ? size : -1;
}

/* The Cartesian topology of `comm`: its ndims, dims and periods (the
 * arrays malloc'd), or 0 if it has none. */
static int cart_of(MPI_Comm comm, int **dims, int **periods)
{
    int status = MPI_UNDEFINED, nd = 0;
    if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &status) != MPI_SUCCESS ||
        status != MPI_CART || PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd <= 0)
        return 0;
    *dims = malloc(3 * (size_t)nd * sizeof **dims);
    if (!*dims) return 0;
    *periods = *dims + nd;
    if (PMPI_Cart_get(comm, nd, *dims, *periods, *periods + nd) != MPI_SUCCESS) {
        free(*dims);
        return 0;
    }
    return nd;
}

/* ndims and dims of MPI_Cart_create or MPI_Cart_map against the group. */
static void check_grid(msc_call_t *c, MPI_Comm comm, int ndims, const int *dims)
{
    if (ndims < 0) {
        TOPO(c, "%s was called with ndims %d. The number of dimensions of a Cartesian grid "
                "cannot be negative (MPI-3.1 section 7.5.1).", msc_fn_name[c->fn], ndims);
        return;
    }
    if (ndims > MAX_CHECKED || (ndims > 0 && !dims)) return;
    long long cells = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            TOPO(c, "%s was called with dims[%d] = %d. Every dimension of a Cartesian grid "
                    "must have at least one process (MPI-3.1 section 7.5.1; MPI_Dims_create "
                    "fills in the zeros of a dims array, %s does not).",
                 msc_fn_name[c->fn], i, dims[i], msc_fn_name[c->fn]);
            return;
        }
        if (cells <= 1ll << 40) cells *= dims[i];
    }
    int size = intra_size(comm);
    if (size >= 0 && cells > size)
        TOPO(c, "%s was called with a grid of %lld processes on a communicator of %d. A "
                "Cartesian grid larger than the group is erroneous (MPI-3.1 section 7.5.1).",
             msc_fn_name[c->fn], cells, size);
}

static void check_dims_create(msc_call_t *c)
{
    int nnodes = arg_int(c, 0), ndims = arg_int(c, 1);
    const int *dims = arg_ints(c, 2);
    if (ndims < 0) {
        TOPO(c, "MPI_Dims_create was called with ndims %d, which cannot be negative "
                "(MPI-3.1 section 7.5.2).", ndims);
        return;
    }
    if (ndims > MAX_CHECKED || (ndims > 0 && !dims)) return;
    long long fixed = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            TOPO(c, "MPI_Dims_create was called with dims[%d] = %d. An entry is either 0 (to "
                    "be filled in) or the size of its dimension: a negative one is erroneous "
                    "(MPI-3.1 section 7.5.2).", i, dims[i]);
            return;
        }
        if (dims[i] > 0 && fixed <= 1ll << 40) fixed *= dims[i];
    }
    if (nnodes > 0 && nnodes % fixed != 0)
        TOPO(c, "MPI_Dims_create was called with nnodes %d and fixed dimensions whose product "
                "is %lld, which does not divide it: no grid of %d processes has those "
                "dimensions, and the call is erroneous (MPI-3.1 section 7.5.2).",
             nnodes, fixed, nnodes);
}

static void check_graph(msc_call_t *c, MPI_Comm comm, int nnodes, const int *index,
                        const int *edges)
{
    const char *name = msc_fn_name[c->fn];
    int size = intra_size(comm);
    if (nnodes < 0 || (size >= 0 && nnodes > size)) {
        TOPO(c, "%s was called with nnodes %d on a communicator of %d processes: a graph has "
                "from 0 to that many nodes (MPI-3.1 section 7.5.3).", name, nnodes, size);
        return;
    }
    if (nnodes == 0 || nnodes > MAX_CHECKED || !index) return;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < 0 || (i > 0 && index[i] < index[i - 1])) {
            TOPO(c, "%s was called with index[%d] = %d%s. index holds the running totals of "
                    "the nodes' degrees: it never decreases (MPI-3.1 section 7.5.3).",
                 name, i, index[i], i > 0 ? " after a larger entry" : "");
            return;
        }
    int nedges = index[nnodes - 1];
    if (nedges > MAX_CHECKED || (nedges > 0 && !edges)) return;
    for (int j = 0; j < nedges; j++)
        if (edges[j] < 0 || edges[j] >= nnodes) {
            TOPO(c, "%s was called with edges[%d] = %d, which is no node of a graph of %d "
                    "nodes (MPI-3.1 section 7.5.3).", name, j, edges[j], nnodes);
            return;
        }
}

/* `what` ranks of an array of n, each in [0, size). */
static bool ranks_ok(msc_call_t *c, const char *what, const int *ranks, int n, int size)
{
    if (n > MAX_CHECKED || size < 0 || (n > 0 && !ranks)) return true;
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= size) {
            TOPO(c, "%s was called with %s[%d] = %d on a communicator of %d processes: every "
                    "node of a distributed graph is a rank of the communicator (MPI-3.1 "
                    "section 7.5.4).", msc_fn_name[c->fn], what, i, ranks[i], size);
            return false;
        }
    return true;
}

static void check_dist(msc_call_t *c)
{
    MPI_Comm comm = (MPI_Comm)c->arg[0];
    int size = intra_size(comm);
    if ((int)c->fn == fn_dist_adjacent) {
        int in = arg_int(c, 1), out = arg_int(c, 4);
        if (in < 0 || out < 0) {
            TOPO(c, "MPI_Dist_graph_create_adjacent was called with %s %d, which cannot be "
                    "negative (MPI-3.1 section 7.5.4).", in < 0 ? "indegree" : "outdegree",
                 in < 0 ? in : out);
            return;
        }
        if (ranks_ok(c, "sources", arg_ints(c, 2), in, size))
            ranks_ok(c, "destinations", arg_ints(c, 5), out, size);
        return;
    }
    int n = arg_int(c, 1);
    const int *degrees = arg_ints(c, 3);
    if (n < 0) {
        TOPO(c, "MPI_Dist_graph_create was called with n %d, which cannot be negative (MPI-3.1 "
                "section 7.5.4).", n);
        return;
    }
    if (!ranks_ok(c, "sources", arg_ints(c, 2), n, size) || n > MAX_CHECKED || !degrees) return;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0) {
            TOPO(c, "MPI_Dist_graph_create was called with degrees[%d] = %d, which cannot be "
                    "negative (MPI-3.1 section 7.5.4).", i, degrees[i]);
            return;
        }
        total += degrees[i];
    }
    if (total <= MAX_CHECKED) ranks_ok(c, "destinations", arg_ints(c, 4), (int)total, size);
}

/* A rank argument of a topology query: within the communicator. */
static void check_rank(msc_call_t *c, int rank)
{
    int size = -1;
    if (c->comm == MPI_COMM_NULL || PMPI_Comm_size(c->comm, &size) != MPI_SUCCESS) return;
    if (rank < 0 || rank >= size)
        TOPO(c, "%s was called with rank %d on a communicator of %d processes (MPI-3.1 section "
                "7.5.5).", msc_fn_name[c->fn], rank, size);
}

static void check_cart_query(msc_call_t *c)
{
    int *dims = NULL, *periods = NULL;
    if ((int)c->fn == fn_cart_coords) {
        check_rank(c, arg_int(c, 1));
        return;
    }
    int nd = cart_of(c->comm, &dims, &periods);
    if (!nd) return;
    if ((int)c->fn == fn_cart_shift) {
        int dir = arg_int(c, 1);
        if (dir < 0 || dir >= nd)
            TOPO(c, "MPI_Cart_shift was called with direction %d on a Cartesian grid of %d "
                    "dimensions: the direction is one of 0 to %d (MPI-3.1 section 7.5.6).",
                 dir, nd, nd - 1);
    } else if ((int)c->fn == fn_cart_rank) {
        const int *coords = arg_ints(c, 1);
        for (int i = 0; coords && i < nd; i++)
            if (!periods[i] && (coords[i] < 0 || coords[i] >= dims[i])) {
                TOPO(c, "MPI_Cart_rank was called with coords[%d] = %d in a dimension of %d "
                        "processes that is not periodic: out of range, which is erroneous "
                        "(MPI-3.1 section 7.5.5).", i, coords[i], dims[i]);
                break;
            }
    }
    free(dims);
}

void chk_topo_enter(msc_call_t *c)
{
    if (c->nargs == 0) return; /* a Fortran binding: no arguments to read */
    if ((int)c->fn == fn_split || (int)c->fn == fn_split_type) {
        int v = arg_int(c, 1);
        if (v < 0 && v != MPI_UNDEFINED)
            chk_report("LOCAL:ARG:SPLIT", c->fn, c->site,
                       "%s was called with %s %d. It is a nonnegative integer or MPI_UNDEFINED "
                       "(MPI-3.1 section 6.4.2).", msc_fn_name[c->fn],
                       (int)c->fn == fn_split ? "color" : "split_type", v);
    } else if ((int)c->fn == fn_dims) {
        check_dims_create(c);
    } else if ((int)c->fn == fn_cart_create || (int)c->fn == fn_cart_map) {
        check_grid(c, (MPI_Comm)c->arg[0], arg_int(c, 1), arg_ints(c, 2));
    } else if ((int)c->fn == fn_cart_rank || (int)c->fn == fn_cart_coords || (int)c->fn == fn_cart_shift) {
        check_cart_query(c);
    } else if ((int)c->fn == fn_graph_create || (int)c->fn == fn_graph_map) {
        check_graph(c, (MPI_Comm)c->arg[0], arg_int(c, 1), arg_ints(c, 2), arg_ints(c, 3));
    } else if ((int)c->fn == fn_graph_nbrs || (int)c->fn == fn_graph_nbrs_count) {
        check_rank(c, arg_int(c, 1));
    } else if ((int)c->fn == fn_dist_create || (int)c->fn == fn_dist_adjacent) {
        check_dist(c);
    }
}
