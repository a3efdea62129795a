/* Buffers of pending operations (LOCAL:BUFFER:PENDING_OVERLAP) and a
 * receive buffer written while its receive is pending
 * (LOCAL:BUFFER:RECV_MODIFIED). Rank 0 does the wrong things; rank 1 sends
 * what rank 0 receives. The correct uses around them (adjacent receive
 * buffers, two pending sends of one buffer, a buffer written after its
 * receive completed, receives into two columns of one matrix) must give
 * nothing.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, a[32] = {0}, s[16] = {0}, r[100] = {0}, b[20] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request q[4];
    MPI_Status st[4];
    if (rank == 0) {
        /* Two receives into overlapping memory. */
        MPI_Irecv(a, 10, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(a + 5, 10, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[1]); /* expect: LOCAL:BUFFER:PENDING_OVERLAP rank=0 */
        MPI_Waitall(2, q, st);
        /* A receive into the buffer of a pending send, and a blocking send
         * from the buffer of a pending receive. */
        MPI_Isend(s, 10, MPI_INT, 1, 3, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(s + 2, 4, MPI_INT, 1, 4, MPI_COMM_WORLD, &q[1]); /* expect: LOCAL:BUFFER:PENDING_OVERLAP rank=0 */
        MPI_Send(s + 4, 2, MPI_INT, 1, 5, MPI_COMM_WORLD); /* expect: LOCAL:BUFFER:PENDING_OVERLAP rank=0 */
        MPI_Waitall(2, q, st);
        /* A short message: the tail of the buffer is written while the
         * receive is pending. */
        MPI_Irecv(r, 100, MPI_INT, 1, 6, MPI_COMM_WORLD, &q[0]); /* expect: LOCAL:BUFFER:RECV_MODIFIED rank=0 */
        r[90] = 7;
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        /* Correct: adjacent receive buffers, one buffer sent twice at once,
         * a buffer written once its receive is complete. */
        MPI_Irecv(b, 10, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(b + 10, 10, MPI_INT, 1, 8, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(a, 10, MPI_INT, 1, 9, MPI_COMM_WORLD, &q[2]);
        MPI_Isend(a, 10, MPI_INT, 1, 10, MPI_COMM_WORLD, &q[3]);
        MPI_Waitall(4, q, st);
        b[15] = 1;
        MPI_Irecv(r, 100, MPI_INT, 1, 11, MPI_COMM_WORLD, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        r[90] = 8;
        /* The same with a persistent receive, written after MPI_Start. */
        MPI_Recv_init(r, 100, MPI_INT, 1, 14, MPI_COMM_WORLD, &q[0]); /* expect: LOCAL:BUFFER:RECV_MODIFIED rank=0 */
        MPI_Start(&q[0]);
        r[95] = 9;
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Request_free(&q[0]);
        /* Correct: two columns of one matrix, whose spans interleave. */
        int m[4][4];
        MPI_Datatype col;
        MPI_Type_vector(4, 1, 4, MPI_INT, &col);
        MPI_Type_commit(&col);
        MPI_Irecv(&m[0][0], 1, col, 1, 12, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(&m[0][3], 1, col, 1, 13, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, st);
        MPI_Type_free(&col);
    } else if (rank == 1) {
        MPI_Send(a, 10, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(a, 10, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(s, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 4, MPI_INT, 0, 4, MPI_COMM_WORLD);
        MPI_Recv(s, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 10, MPI_INT, 0, 6, MPI_COMM_WORLD);
        MPI_Send(a, 10, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Send(a, 10, MPI_INT, 0, 8, MPI_COMM_WORLD);
        MPI_Recv(s, 10, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(s, 10, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 10, MPI_INT, 0, 11, MPI_COMM_WORLD);
        MPI_Send(a, 10, MPI_INT, 0, 14, MPI_COMM_WORLD);
        MPI_Send(a, 4, MPI_INT, 0, 12, MPI_COMM_WORLD);
        MPI_Send(a, 4, MPI_INT, 0, 13, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
