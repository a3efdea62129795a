/* MPI_Pcontrol regions: calls between Pcontrol(0) and Pcontrol(1) are not
 * in the profile; Pcontrol(2) writes each rank's profile so far. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    char buf[100];
    MPI_Pcontrol(0);
    for (int i = 0; i < 5; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 7; i++) {
        if (r == 0) MPI_Send(buf, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        if (r == 1) MPI_Recv(buf, 100, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Pcontrol(1);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD); /* SITE:barrier */
    MPI_Pcontrol(2);
    for (int i = 0; i < 4; i++) MPI_Barrier(MPI_COMM_WORLD); /* SITE:barrier2 */
    MPI_Finalize();
    return 0;
}
