/* A deadlock with ranks blocked behind its cycle (issue 24 item 2: the
 * report names every blocked rank's call and what it waits for). Ranks 0
 * and 1 each receive from the other first: the cycle. Rank 2 receives from
 * rank 0, which never sends; with 4 ranks, rank 3 waits in a barrier the
 * others never reach. The finding lists the cycle's two ranks and, behind
 * it, every other rank at its own call (tests.cmake also checks the text).
 * The argument is "tail3" or "tail4" (the markers' case: the ranks it
 * runs on); with "ok" every receive is matched and the run ends with no
 * finding. Needs 3 or 4 ranks.
 */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = argc > 1 && !strcmp(argv[1], "ok");
    if (size < 3 || size > 4) MPI_Abort(MPI_COMM_WORLD, 2);
    if (ok) {
        if (rank < 2) {
            int other = 1 - rank;
            MPI_Sendrecv_replace(&x, 1, MPI_INT, other, 0, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0) MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        if (rank == 2) MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank < 2) {
        int other = 1 - rank;
        MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(tail3): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(tail4): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:DEADLOCK:HARD rank=1 */
        MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(tail3): GLOBAL:DEADLOCK:HARD rank=2 */ /* expect(tail4): GLOBAL:DEADLOCK:HARD rank=2 */
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* expect(tail4): GLOBAL:DEADLOCK:HARD rank=3 */
    }
    MPI_Finalize();
    return 0;
}
