/* Partitioned communication (MPI-4.0 §4.2): rank 0 sends rank 1, in CYCLES
 * MPI_Start ... MPI_Wait cycles of one persistent partitioned request, a
 * message of PARTS partitions of COUNT ints each, marking them ready in
 * every way the standard has (MPI_Pready_range over the first half,
 * MPI_Pready_list over two, MPI_Pready one by one for the rest); rank 1
 * polls MPI_Parrived on the last partition before its MPI_Wait. Each cycle
 * is one message of PARTS x COUNT x 4 = 512 bytes (check_partitioned.py).
 * Rank 1 prints the sum of what it received in the last cycle.
 */
#include <mpi.h>
#include <stdio.h>

enum { CYCLES = 5, PARTS = 8, COUNT = 16 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int buf[PARTS * COUNT];
    MPI_Request q;
    if (r == 0) {
        MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
        for (int c = 0; c < CYCLES; c++) {
            for (int i = 0; i < PARTS * COUNT; i++) buf[i] = c + i;
            MPI_Start(&q);
            MPI_Pready_range(0, PARTS / 2 - 1, q);
            int list[2] = {PARTS / 2, PARTS / 2 + 1};
            MPI_Pready_list(2, list, q);
            for (int p = PARTS / 2 + 2; p < PARTS; p++) MPI_Pready(p, q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
    } else if (r == 1) {
        MPI_Precv_init(buf, PARTS, COUNT, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
        for (int c = 0; c < CYCLES; c++) {
            MPI_Start(&q);
            int flag = 0;
            while (!flag) MPI_Parrived(q, PARTS - 1, &flag);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
        long sum = 0;
        for (int i = 0; i < PARTS * COUNT; i++) sum += buf[i];
        printf("partitioned sum %ld\n", sum);
    }
    MPI_Finalize();
    return 0;
}
