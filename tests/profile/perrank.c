/* MPISCOPE_PROFILE_PER_RANK: rank r sends r + 1 messages of 100 x (r + 1)
 * bytes to the next rank and receives what the previous rank sent, so every
 * rank's row differs and is known. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static char buf[1000];
    int prev = (r + n - 1) % n;
    for (int i = 0; i < r + 1; i++)
        MPI_Send(buf, 100 * (r + 1), MPI_BYTE, (r + 1) % n, 0, MPI_COMM_WORLD);
    for (int i = 0; i < prev + 1; i++)
        MPI_Recv(buf, sizeof buf, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
