/* Collectives and a send on split communicators whose rank order is the
 * reverse of the world's (key = -rank): the matrix must be in world ranks.
 * With 4 or more ranks the world splits in two (rank % 2), else in one. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, sr, sn;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int colors = n >= 4 ? 2 : 1;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, r % colors, -r, &sub);
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_size(sub, &sn);
    int x[4] = {1, 2, 3, 4}, a2a_s[64] = {0}, a2a_r[64];
    double d[8] = {0};
    MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INT, MPI_SUM, sub); /* SITE:allreduce */
    MPI_Bcast(d, 8, MPI_DOUBLE, 0, sub); /* SITE:bcast */
    MPI_Alltoall(a2a_s, 2, MPI_INT, a2a_r, 2, MPI_INT, sub); /* SITE:alltoall */
    if (sr == 0) MPI_Send(x, 4, MPI_INT, 1, 9, sub); /* SITE:subsend */
    if (sr == 1) MPI_Recv(x, 4, MPI_INT, 0, 9, sub, MPI_STATUS_IGNORE);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
