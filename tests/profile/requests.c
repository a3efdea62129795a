/* MPISCOPE_MAX_REQUESTS overflow: every rank posts 100 MPI_Irecv of 8 bytes
 * from the previous rank, and only after a barrier (all of them pending, so
 * each has a handle of its own) the matching sends; then a second round of
 * 50, after the first completed, which must fit again. With the table at 64:
 * 36 requests dropped per rank, none in the second round; the bytes of the
 * dropped receives are unknown, so MPI_Irecv shows (64 + 50) x 8 received
 * per rank. (Sends are not used to fill the table: a send that completes at
 * once may get a shared, already complete handle in MPICH.) */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static double out[100], in[100];
    MPI_Request req[100];
    const int rounds[] = {100, 50};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < rounds[k]; i++)
            MPI_Irecv(&in[i], 1, MPI_DOUBLE, (r + n - 1) % n, i, MPI_COMM_WORLD, &req[i]); /* SITE:irecv */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < rounds[k]; i++)
            MPI_Send(&out[i], 1, MPI_DOUBLE, (r + 1) % n, i, MPI_COMM_WORLD);
        MPI_Waitall(rounds[k], req, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
