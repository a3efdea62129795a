/* Members of one collective instance waiting for each other are progress,
 * not a deadlock: both ranks stay inside one MPI_Allreduce for about 4 s
 * (a user-defined operation that sleeps), four times the watchdog's
 * timeout, as a large MPI_Win_allocate_shared does. No finding, exit 0. */
#include <mpi.h>
#include <unistd.h>

static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    sleep(4);
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank + 1;
    MPI_Op op;
    MPI_Op_create(slow_sum, 1, &op);
    MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    int rc = y == 3 ? 0 : 1;
    MPI_Finalize();
    return rc;
}
