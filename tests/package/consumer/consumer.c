/* Built by tests/package/consumer.sh through the installed CMake package
 * (find_package(mpiscope), mpiscope::<mpi>) and run without LD_PRELOAD:
 * the profile must hold exactly these calls. On each of the 2 ranks: 3
 * MPI_Comm_rank, 1 MPI_Comm_size, 4 MPI_Allreduce, 2 MPI_Barrier; rank 0
 * sends 5 messages that rank 1 receives. mpiscope.h is found through the
 * target too: the program checks the library's own count of its calls. */
#include <mpi.h>
#include <mpiscope.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 4; i++) {
        int one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 5; i++) {
        int v = i;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    long long n = mpiscope_calls("MPI_Allreduce");
    if (n != 4 || sum != size) {
        fprintf(stderr, "consumer: rank %d: MPI_Allreduce recorded %lld times (expected 4), sum %d\n",
                rank, n, sum);
        ok = 0;
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
