/* Persistent requests around a ring: 8 rounds with MPI_Startall/MPI_Waitall
 * and 4 with MPI_Start/MPI_Wait(MPI_STATUS_IGNORE); 100 bytes each way. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int left = (r + n - 1) % n, right = (r + 1) % n;
    int rbuf[100], sbuf[25] = {0};
    MPI_Request rq[2];
    MPI_Recv_init(rbuf, 100, MPI_INT, left, 3, MPI_COMM_WORLD, &rq[0]); /* SITE:recv_init */
    MPI_Send_init(sbuf, 25, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[1]); /* SITE:send_init */
    for (int i = 0; i < 8; i++) {
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < 4; i++) {
        MPI_Start(&rq[0]);
        MPI_Start(&rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    MPI_Finalize();
    return 0;
}
