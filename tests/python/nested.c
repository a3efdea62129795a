/* Call paths for the Python package and the folded export, recorded at
 * MPISCOPE_CALLSITE_DEPTH=3 (tests/python). Every rank, 4 times:
 *   main -> solve -> exchange -> MPI_Sendrecv        (8 bytes each way)
 *   main -> solve -> exchange -> halo -> MPI_Sendrecv (4 frames: the
 *            recorded stack is halo, exchange, solve, cut at depth 3)
 *   main -> solve -> MPI_Allreduce                    (one double)
 * then main -> exchange once (main;exchange;MPI_Sendrecv and, whole at
 * depth 3, main;exchange;halo;MPI_Sendrecv: the two Sendrecv lines are
 * reached from two callers each) and main -> MPI_Barrier once. The peer is
 * rank ^ 1 (itself on 1 rank).
 * The functions are never inlined and work after each call, so that no
 * call becomes a jump and every frame is on the stack. */
#include <mpi.h>

static volatile double sink;

__attribute__((noinline)) static void halo(int peer)
{
    double out = peer, in = 0;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, peer, 1, &in, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sink += in;
}

__attribute__((noinline)) static void exchange(int peer)
{
    double out = peer, in = 0;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, peer, 0, &in, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sink += in;
    halo(peer);
    sink += 1;
}

__attribute__((noinline)) static void solve(int peer)
{
    exchange(peer);
    double x = sink, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sink += sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer >= size) peer = rank;
    for (int i = 0; i < 4; i++) {
        solve(peer);
        sink += i;
    }
    exchange(peer);
    sink += 1;
    MPI_Barrier(MPI_COMM_WORLD);
    sink += 1;
    MPI_Finalize();
    return 0;
}
