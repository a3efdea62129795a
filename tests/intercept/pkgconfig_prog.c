/* Built by pkgconfig.sh with nothing but `mpicc $(pkg-config --cflags --libs
 * mpiscope-<mpi>)`: the header is found, the library is linked and records. */
#include <mpi.h>
#include <mpiscope.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    long long n = mpiscope_calls("MPI_Comm_rank");
    int ok = n == 2 && strcmp(mpiscope_version(), "") != 0;
    if (!ok) fprintf(stderr, "pkgconfig_prog: MPI_Comm_rank recorded %lld times, expected 2\n", n);
    MPI_Finalize();
    return ok ? 0 : 1;
}
