/* The unexpected-queue check at its bounds (src/mpit/pvars.c): 64 call
 * sites and 64 communicators are watched at once.
 * Part 1: rank 0 sends 70 messages (tags 0..69) on one communicator before
 * rank 1 receives them at 70 distinct call sites (one macro expansion each,
 * in tag order): every receive but the last finds more than one message
 * queued (Open MPI's queue length 70 - i; on MPICH the receives in a row
 * that found their message waiting, i + 1), so 69 findings: 64 sites kept,
 * 5 dropped.
 * Part 2: after that communicator is freed, 70 duplicates of
 * MPI_COMM_WORLD, 2 messages on each, received at one call site: the first
 * 64 communicators are watched (one more finding each, dropped: the site
 * table is full), the receives on the last 6 (12) are counted as unchecked.
 */
#include <mpi.h>
#include <stdio.h>

enum { SITES = 70, COMMS = 70 };

static int v;
static MPI_Comm c0;

#define R1(t) MPI_Recv(&v, 1, MPI_INT, 0, (t), c0, MPI_STATUS_IGNORE);
#define R10(b) R1(b + 0) R1(b + 1) R1(b + 2) R1(b + 3) R1(b + 4) \
               R1(b + 5) R1(b + 6) R1(b + 7) R1(b + 8) R1(b + 9)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &c0);
    if (rank == 0)
        for (int t = 0; t < SITES; t++) MPI_Send(&t, 1, MPI_INT, 1, t, c0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        R10(0) R10(10) R10(20) R10(30) R10(40) R10(50) R10(60)
    }
    MPI_Comm_free(&c0);
    MPI_Comm comms[COMMS];
    for (int i = 0; i < COMMS; i++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    if (rank == 0)
        for (int i = 0; i < COMMS; i++)
            for (int k = 0; k < 2; k++) MPI_Send(&k, 1, MPI_INT, 1, k, comms[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < COMMS; i++)
            for (int k = 0; k < 2; k++) MPI_Recv(&v, 1, MPI_INT, 0, k, comms[i], MPI_STATUS_IGNORE);
    for (int i = 0; i < COMMS; i++) MPI_Comm_free(&comms[i]);
    if (rank == 0) printf("bounds: done\n");
    MPI_Finalize();
    return 0;
}
