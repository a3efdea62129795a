/* Nonblocking ring: receives posted with a buffer larger than the message,
 * completed by MPI_Waitall (MPI_STATUSES_IGNORE) in the first phase and by
 * MPI_Testsome with MPI_ANY_SOURCE in the second. Received bytes must be the
 * message sizes (40 and 80 bytes), counted at completion. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int left = (r + n - 1) % n, right = (r + 1) % n;
    int rbuf[100], sbuf[100] = {0};
    MPI_Request rq[2];
    for (int i = 0; i < 10; i++) {
        MPI_Irecv(rbuf, 100, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]); /* SITE:irecv_a */
        MPI_Isend(sbuf, 10, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]); /* SITE:isend_a */
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); /* SITE:waitall */
    }
    for (int i = 0; i < 10; i++) {
        MPI_Irecv(rbuf, 100, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq[0]); /* SITE:irecv_b */
        MPI_Isend(sbuf, 20, MPI_INT, right, 2, MPI_COMM_WORLD, &rq[1]); /* SITE:isend_b */
        int done = 0, out, idx[2];
        MPI_Status sts[2];
        while (done < 2) {
            MPI_Testsome(2, rq, &out, idx, sts); /* SITE:testsome */
            if (out != MPI_UNDEFINED) done += out;
        }
    }
    MPI_Finalize();
    return 0;
}
