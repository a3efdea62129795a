// Test program for `mpiscope run` MPI detection: a C++ program, linked by
// the MPI's C++ wrapper (with libmpi_cxx or libmpichcxx where it adds one).
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
