// The MPI C++ bindings (Open MPI's libmpi_cxx, MPICH's libmpichcxx) are
// layered on the C functions, so the C wrappers see every C++ call: exact
// counts of a known C++ program, under the C names.
#include <mpi.h>

#include "harness.h"

static void case_bindings(int argc, char **argv)
{
    MPI::Init(argc, argv);
    msc_rank = MPI::COMM_WORLD.Get_rank();
    msc_size = MPI::COMM_WORLD.Get_size();
    int p = msc_rank ^ 1;
    if (p >= msc_size) p = MPI::PROC_NULL;
    int x = msc_rank, y = -1;
    for (int i = 0; i < 5; i++) {
        if (msc_rank % 2 == 0) {
            MPI::COMM_WORLD.Send(&x, 1, MPI::INT, p, i);
            MPI::COMM_WORLD.Recv(&y, 1, MPI::INT, p, i);
        } else {
            MPI::COMM_WORLD.Recv(&y, 1, MPI::INT, p, i);
            MPI::COMM_WORLD.Send(&x, 1, MPI::INT, p, i);
        }
        if (p != MPI::PROC_NULL) CHECK_EQ(y, p);
    }
    MPI::Request r[2];
    r[0] = MPI::COMM_WORLD.Irecv(&y, 1, MPI::INT, p, 9);
    r[1] = MPI::COMM_WORLD.Isend(&x, 1, MPI::INT, p, 9);
    r[0].Wait();
    r[1].Wait();
    int s = 0;
    for (int i = 0; i < 3; i++) MPI::COMM_WORLD.Allreduce(&x, &s, 1, MPI::INT, MPI::SUM);
    CHECK_EQ(s, msc_size * (msc_size - 1) / 2);
    MPI::COMM_WORLD.Bcast(&x, 1, MPI::INT, 0);
    MPI::COMM_WORLD.Barrier();
    MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
    CHECK_EQ(dup.Get_rank(), msc_rank);
    dup.Free();

    CHECK_CALLS("MPI_Init", 1);
    CHECK_CALLS("MPI_Comm_rank", 2);
    CHECK_CALLS("MPI_Comm_size", 1);
    CHECK_CALLS("MPI_Send", 5);
    CHECK_CALLS("MPI_Recv", 5);
    CHECK_CALLS("MPI_Irecv", 1);
    CHECK_CALLS("MPI_Isend", 1);
    CHECK_CALLS("MPI_Wait", 2);
    CHECK_CALLS("MPI_Allreduce", 3);
    CHECK_CALLS("MPI_Bcast", 1);
    CHECK_CALLS("MPI_Barrier", 1);
    CHECK_CALLS("MPI_Comm_dup", 1);
    CHECK_CALLS("MPI_Comm_free", 1);
    MPI::Finalize();
    CHECK_CALLS("MPI_Finalize", 1);
}

MSC_CASES_MAIN(CASE(bindings))
