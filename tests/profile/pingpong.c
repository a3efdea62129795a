/* Ping-pong between ranks 0 and 1 with fixed sizes; receives into a larger
 * buffer (bytes come from the status) and with MPI_STATUS_IGNORE; sends and
 * receives with MPI_PROC_NULL. Lines marked SITE: are checked as call sites. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    static char buf[65536];
    const int sizes[] = {1, 8, 1000, 65536};
    MPI_Status st;
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < 5; i++) {
            if (r == 0) {
                MPI_Send(buf, sizes[s], MPI_BYTE, 1, 0, MPI_COMM_WORLD); /* SITE:send0 */
                MPI_Recv(buf, sizes[s], MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE:recv0 */
            } else if (r == 1) {
                MPI_Recv(buf, 65536, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &st); /* SITE:recv1 */
                MPI_Send(buf, sizes[s], MPI_BYTE, 0, 0, MPI_COMM_WORLD); /* SITE:send1 */
            }
        }
    for (int i = 0; i < 3 && r < 2; i++) {
        MPI_Send(buf, 100, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* SITE:sendnull */
        MPI_Recv(buf, 100, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    }
    MPI_Finalize();
    return 0;
}
