/* Matrix budgets: every rank sends one message to every other rank
 * (1000 x (4 x from + to + 1) bytes, so no two point-to-point pairs weigh
 * the same and each outweighs a collective pair), then one MPI_Allreduce of
 * one int (4 bytes from every rank to every other). With 4 ranks that is 12
 * point-to-point and 12 collective pairs. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static char out[20000], in[20000];
    MPI_Request *req = malloc(sizeof *req * (size_t)n);
    int k = 0;
    for (int p = 0; p < n; p++)
        if (p != r) MPI_Irecv(in, sizeof in, MPI_BYTE, p, 0, MPI_COMM_WORLD, &req[k++]);
    for (int p = 0; p < n; p++)
        if (p != r) MPI_Send(out, 1000 * (4 * r + p + 1), MPI_BYTE, p, 0, MPI_COMM_WORLD);
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(req);
    MPI_Finalize();
    return sum == n ? 0 : 1;
}
