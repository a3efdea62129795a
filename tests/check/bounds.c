/* The check module's tables at their bound (run with MPISCOPE_MAX_REQUESTS=64,
 * the smallest allowed): rank 0 makes 100 datatypes it never frees and keeps
 * 100 receives pending at once (then cancels them). What does not fit is
 * counted and said in checks.txt/json, never a crash; what fits is still
 * reported (leaks of the first datatypes).
 */
#include <mpi.h>
#include <stdio.h>

enum { N = 100 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[N];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Datatype t[N];
        for (int i = 0; i < N; i++) {
            MPI_Type_contiguous(i + 1, MPI_INT, &t[i]);
            MPI_Type_commit(&t[i]);
        }
        MPI_Request q[N];
        for (int i = 0; i < N; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &q[i]);
        for (int i = 0; i < N; i++) {
            MPI_Cancel(&q[i]);
            MPI_Wait(&q[i], MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("bounds: done\n");
    MPI_Finalize();
    return 0;
}
