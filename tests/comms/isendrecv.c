/* MPI-4.0's MPI_Isendrecv and MPI_Isendrecv_replace (section 3.10.2; MPICH:
 * Open MPI 4.1 has neither) around a ring: each rank sends to the next and
 * receives from the one before, ROUNDS times with MPI_Isendrecv (8 ints,
 * completed by MPI_Wait) and ROUNDS_REPLACE times with
 * MPI_Isendrecv_replace (8 ints, completed by MPI_Waitall). One request
 * stands for the send and the receive: the send is counted when posted, the
 * receive when the request completes (check_isendrecv.py: exact calls,
 * bytes, histogram bins and matrix cells; MPICH 4.0.2 does not fill the
 * request's status with the receive's, so the tool takes the receive from
 * what was posted). "bug": rank 1 receives its MPI_Isendrecv data as
 * MPI_FLOAT, a type mismatch check mode must find through the one request
 * (reported at both posting calls), and rank 1's `int rbuf[]` passed as
 * MPI_FLOAT (LOCAL:BUFFER:TYPE_MISMATCH). Rank 0 prints the sum of what went
 * round.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { ROUNDS = 20, ROUNDS_REPLACE = 10, N = 8 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int bug = argc > 1 && strcmp(argv[1], "bug") == 0;
    int rank, size, sbuf[N], rbuf[N], sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Datatype rtype = bug && rank == 1 ? MPI_FLOAT : MPI_INT;
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Request q;
        for (int i = 0; i < N; i++) sbuf[i] = rank + r;
        MPI_Isendrecv(sbuf, N, MPI_INT, next, 1, rbuf, N, rtype, prev, 1, MPI_COMM_WORLD, &q); /* expect(bug): GLOBAL:P2P:TYPE_MISMATCH rank=0, GLOBAL:P2P:TYPE_MISMATCH rank=1, LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        sum += rbuf[0];
    }
    for (int r = 0; r < ROUNDS_REPLACE; r++) {
        MPI_Request q[1];
        MPI_Status st[1];
        for (int i = 0; i < N; i++) rbuf[i] = rank;
        MPI_Isendrecv_replace(rbuf, N, MPI_INT, next, 2, prev, 2, MPI_COMM_WORLD, &q[0]);
        MPI_Waitall(1, q, st);
        sum += rbuf[N - 1];
    }
    int total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && !bug) printf("sum %d\n", total);
    MPI_Finalize();
    return 0;
}
