/* Call sites in the trace (tests/trace/check_sites.py): MPI calls at known
 * lines, each marked with a comment "site:<name>" that the checker finds in
 * this file. Every rank makes the same calls:
 *   - MPI_Comm_rank once (site:rank);
 *   - MPI_Barrier 10 times from one line (site:loop): the first two Enters
 *     carry the location (the pairs Comm_rank-Barrier and Barrier-Barrier),
 *     the others hold it;
 *   - MPI_Allreduce 5 times from each of two lines, alternating (site:alt1,
 *     site:alt2): one pair, Allreduce-Allreduce, two sites, so every Enter
 *     carries its location;
 *   - 5 times MPI_Comm_size (site:h1) and MPI_Type_size from two lines
 *     (site:h2, site:h3), the shape of a halo exchange (Isend left, Isend
 *     right): each call has a pair of its own, so only the first round and
 *     h1 of the second carry locations (2 of the 10 MPI_Type_size Enters);
 *   - recording off for one MPI_Barrier, back on for one (site:on);
 *   - MPI_Comm_rank twice from one line (site:flush) around MPI_Pcontrol(2):
 *     the second, after the flush, carries the location again.
 * With -DUSE_VT (linked with the tool) the Allreduce loop runs in an
 * unordered period (VT_begin_unordered): its records are held and written
 * at its end, with the same locations. */
#include <mpi.h>
#ifdef USE_VT
#include <VT.h>
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* site:rank */
    for (int i = 0; i < 10; i++)
        MPI_Barrier(MPI_COMM_WORLD); /* site:loop */
#ifdef USE_VT
    VT_begin_unordered();
#endif
    for (int i = 0; i < 5; i++) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site:alt1 */
        MPI_Allreduce(&y, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* site:alt2 */
    }
#ifdef USE_VT
    VT_end_unordered();
#endif
    for (int i = 0; i < 5; i++) {
        MPI_Comm_size(MPI_COMM_WORLD, &y); /* site:h1 */
        MPI_Type_size(MPI_INT, &x); /* site:h2 */
        MPI_Type_size(MPI_DOUBLE, &x); /* site:h3 */
    }
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    MPI_Barrier(MPI_COMM_WORLD); /* site:on */
    for (int i = 0; i < 2; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* site:flush */
        if (i == 0) MPI_Pcontrol(2);
    }
    MPI_Finalize();
    return 0;
}
