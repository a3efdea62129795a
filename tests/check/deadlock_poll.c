/* Deadlocks of ranks that poll (issue 24): rank 0 calls MPI_Test (or
 * MPI_Testall, MPI_Iprobe) in a loop for a message rank 1 never sends, while
 * rank 1 waits in MPI_Barrier for rank 0. Each call returns at once, yet the
 * rank waits as surely as in MPI_Wait: check mode must report the deadlock
 * with both calls and end the run (exit 3). The "_ok" twins poll for a
 * message rank 1 sends after a while (longer than the timeout) and end
 * normally with no finding. A marker `expect(case):` applies to that case
 * only.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *c = argc > 1 ? argv[1] : "";
    int ok = strstr(c, "_ok") != NULL;
    if (rank == 0 && !strncmp(c, "testall", 7)) {
        MPI_Request r[1];
        MPI_Status st[1];
        MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        while (!flag) {
            MPI_Testall(1, r, &flag, st); /* expect(testall): GLOBAL:DEADLOCK:HARD rank=0 */
            usleep(1000);
        }
    } else if (rank == 0 && !strncmp(c, "test", 4)) {
        MPI_Request r;
        MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
        while (!flag) {
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE); /* expect(test): GLOBAL:DEADLOCK:HARD rank=0 */
            usleep(1000);
        }
    } else if (rank == 0 && !strncmp(c, "iprobe", 6)) {
        while (!flag) {
            MPI_Iprobe(1, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* expect(iprobe): GLOBAL:DEADLOCK:HARD rank=0 */
            usleep(1000);
        }
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1 && ok) {
        sleep(4); /* longer than MPISCOPE_CHECK_TIMEOUT (2 s): polling, not deadlocked */
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* expect(test): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(testall): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(iprobe): GLOBAL:DEADLOCK:HARD rank=1 */
    MPI_Finalize();
    return 0;
}
