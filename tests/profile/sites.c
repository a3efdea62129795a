/* MPISCOPE_PROFILE_SITES overflow: each rank calls MPI_Barrier from 20
 * call sites of its own (a block per rank, one site a line), three times
 * over, and nothing else that is recorded (the ranks come from PMPI_, which
 * the tool does not see). With the budget at 16 a thread's table keeps the
 * first 16 sites and drops the calls of the other 4 (12 calls per rank); in
 * the merge, every rank's 16 sites are its own, so each merge step leaves out
 * 16 of them ((ranks - 1) x 16 in all). Up to 4 ranks. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm c = MPI_COMM_WORLD;
    for (int pass = 0; pass < 3; pass++) {
        switch (r) {
        case 0:
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            break;
        case 1:
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            break;
        case 2:
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            break;
        case 3:
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            MPI_Barrier(c);
            break;
        default:
            break;
        }
    }
    MPI_Finalize();
    return 0;
}
