/* A correct program that uses much of what the checks look at: no finding. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double a[64], b[64];
    for (int i = 0; i < 64; i++) a[i] = rank + i;

    /* Derived types matched against basic ones. */
    MPI_Datatype pair, vec;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(4, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv(a, 8, pair, right, 1, b, 16, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 1, vec, right, 2, b, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* A struct of {double, int} against the pair type MPI_DOUBLE_INT, whose
     * type map is the same two basic types. */
    struct {
        double v;
        int i;
    } di[2] = {{1.0, 1}, {2.0, 2}}, dj[2];
    int one[2] = {1, 1};
    MPI_Aint at[2] = {0, sizeof(double)};
    MPI_Datatype parts[2] = {MPI_DOUBLE, MPI_INT}, dint;
    MPI_Type_create_struct(2, one, at, parts, &dint);
    MPI_Type_commit(&dint);
    MPI_Sendrecv(di, 1, dint, right, 4, dj, 1, MPI_DOUBLE_INT, left, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&dint);

    /* Nonblocking, wildcard source and tag, Waitany. */
    MPI_Request r[2];
    MPI_Irecv(b, 64, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 64, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &r[1]);
    int idx;
    MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);

    /* Persistent requests, started three times. */
    MPI_Request p[2];
    MPI_Recv_init(b, 4, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &p[0]);
    MPI_Send_init(a, 4, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &p[1]);
    for (int k = 0; k < 3; k++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);

    /* Collectives, in place and rooted, on a split communicator. */
    double s = rank;
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    double g[64];
    MPI_Gather(a, 2, MPI_DOUBLE, g, 1, pair, 0, half);
    MPI_Bcast(g, 2 * hs, MPI_DOUBLE, 0, half);
    MPI_Scatter(g, 2, MPI_DOUBLE, b, 1, pair, 0, half);
    MPI_Allgather(a, 1, pair, g, 2, MPI_DOUBLE, half);
    MPI_Comm_free(&half);
    MPI_Type_free(&pair);
    MPI_Type_free(&vec);

    /* Matched probe and receive. */
    if (rank == 0 && size > 1) {
        int v = 9;
        MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Message m;
        MPI_Status st;
        int v;
        MPI_Mprobe(0, 5, MPI_COMM_WORLD, &m, &st);
        MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("clean: %d ranks, sum %g\n", size, s);
    MPI_Finalize();
    return 0;
}
