/* Programs with planted behaviour for the POP metrics, the replay and the
 * delay analysis (check_planted.py states what each must give). N ranks,
 * time unit T = argv[2] ms (default 50); computation is sleeping (time
 * outside MPI, whatever the machine's load).
 *   imbalance   3 times: rank r computes (r + 1) T, then MPI_Barrier.
 *               Load Balance = mean / max = (N + 1) / (2 N).
 *   pipeline    2 times: rank r > 0 receives from r - 1, every rank
 *               computes T, rank r < N - 1 sends to r + 1. Serialization
 *               Efficiency = 2 / (N + 1), the network costs nothing.
 *   slowlink    3 times: both ranks compute T / 5, then rank 0 sends 128 MiB
 *               to rank 1 (Isend/Irecv and Wait: the copy is the slow path):
 *               Transfer Efficiency well below 1, Load Balance about 1.
 *   latesender  2 times: rank 0 sends rank 1 a start message and receives;
 *               rank 1 receives it, computes in heavy() for 4 T and sends
 *               (site:heavy-send): rank 0's Late Sender about 8 T, caused by
 *               rank 1's computation before that send.
 *   latereceiver  2 times: rank 1 sends rank 0 a start message, computes
 *               in heavy() for 4 T and receives (site:heavy-recv); rank 0
 *               receives the start message and sends with MPI_Ssend, which
 *               waits for that receive: rank 0's Late Receiver about 8 T,
 *               caused by rank 1's computation before that receive.
 * The first barriers are outside the profile (MPI_Pcontrol(0)): the ranks'
 * start is not the program's behaviour. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000.0 * (time_t)(ms / 1000)) * 1e6)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void heavy(double ms) { sleep_ms(ms); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *mode = argc > 1 ? argv[1] : "imbalance";
    double t = argc > 2 ? atof(argv[2]) : 50.0;
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    int x = 0;
    if (!strcmp(mode, "imbalance")) {
        for (int i = 0; i < 3; i++) {
            sleep_ms((rank + 1) * t);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    } else if (!strcmp(mode, "pipeline")) {
        for (int i = 0; i < 2; i++) {
            if (rank > 0) MPI_Recv(&x, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sleep_ms(t);
            if (rank < n - 1) MPI_Send(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
        }
    } else if (!strcmp(mode, "slowlink")) {
        size_t bytes = (size_t)128 << 20;
        char *buf = malloc(bytes);
        if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
        memset(buf, rank, bytes);
        for (int i = 0; i < 3; i++) {
            sleep_ms(t / 5);
            MPI_Request r = MPI_REQUEST_NULL;
            if (rank == 0) MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &r);
            if (rank == 1) MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        free(buf);
    } else if (!strcmp(mode, "latereceiver")) {
        /* Rank 1 starts each round with a message, so that however late
         * either rank got here, rank 0's Ssend waits for heavy() alone. */
        for (int i = 0; i < 2; i++) {
            if (rank == 1) {
                MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
                heavy(4 * t);
                MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:heavy-recv */
            } else if (rank == 0) {
                MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Ssend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            }
        }
    } else if (!strcmp(mode, "latesender")) {
        /* Rank 0 starts each round with a message, so that however late
         * either rank got here, rank 0's receive waits for heavy() alone. */
        for (int i = 0; i < 2; i++) {
            if (rank == 1) {
                MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                heavy(4 * t);
                MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* site:heavy-send */
            } else if (rank == 0) {
                MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
