/* Two separately launched jobs joined by MPI_Comm_connect/MPI_Comm_accept
 * (MPI-2 dynamic processes, a port published by name): the server job's
 * rank r receives 10 ints from the client job's rank r over the
 * intercommunicator, then both disconnect (connect.sh runs them). Each rank
 * prints "<role> <rank> done".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter; int v = 0, r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (strcmp(argv[1], "server") == 0) {
        if (r == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Publish_name("msc-test", MPI_INFO_NULL, port);
            printf("published\n");
            fflush(stdout);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        for (int i = 0; i < 10; i++) MPI_Recv(&v, 1, MPI_INT, r, 1, inter, MPI_STATUS_IGNORE);
        MPI_Comm_disconnect(&inter);
        if (r == 0) { MPI_Unpublish_name("msc-test", MPI_INFO_NULL, port); MPI_Close_port(port); }
    } else {
        /* connect.sh starts the client once the server said "published". */
        if (r == 0) MPI_Lookup_name("msc-test", MPI_INFO_NULL, port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        for (int i = 0; i < 10; i++) MPI_Send(&i, 1, MPI_INT, r, 1, inter);
        MPI_Comm_disconnect(&inter);
    }
    printf("%s %d done\n", argv[1], r);
    MPI_Finalize();
    return 0;
}
