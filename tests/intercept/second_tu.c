/* MPI calls from a translation unit other than the one with main(): the
 * wrappers must see them exactly like the others (they reach the same
 * dynamic symbols). */
#include "second_tu.h"

#include <mpi.h>

int tu2_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int tu2_exchange(int partner, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++) {
        int out = i, in = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, partner, 7, &in, 1, MPI_INT, partner, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sum += in;
    }
    return sum;
}

int tu2_sum(int x)
{
    int s;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return s;
}
