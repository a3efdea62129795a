/* MPI_Comm_join (MPI-2, section 10.5.4): two processes joined through a
 * socket they share, not a communicator, so that check_join.py can see the
 * intercommunicator's traffic counted exactly.
 *
 * Ranks 0 and 1 of the world: rank 0 listens on a loopback port it gets from
 * the kernel and sends the port to rank 1 (one int on MPI_COMM_WORLD); rank
 * 1 connects; both call MPI_Comm_join on their end of the connection. Over
 * the intercommunicator, rank 1 sends 25 doubles one at a time to rank 0
 * (remote rank 0), which answers with one MPI_Allreduce (sum of an int) on
 * it; then both disconnect it and close the socket. Every rank makes 3
 * barriers; rank 0 prints "join done: <sum>".
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int fd = -1;
    if (r == 0) {
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0 ||
            getsockname(lfd, (struct sockaddr *)&a, &len) != 0)
            die("listen");
        int port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        fd = accept(lfd, NULL, NULL);
        if (fd < 0) die("accept");
        close(lfd);
    } else if (r == 1) {
        int port;
        MPI_Recv(&port, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect");
    }
    int sum = 0;
    if (r < 2) {
        MPI_Comm inter;
        MPI_Comm_join(fd, &inter);
        double d = 0;
        for (int i = 0; i < 25; i++) {
            if (r == 1) d = i, MPI_Send(&d, 1, MPI_DOUBLE, 0, 7, inter);
            else MPI_Recv(&d, 1, MPI_DOUBLE, 0, 7, inter, MPI_STATUS_IGNORE);
        }
        int mine = r + 1;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
        MPI_Comm_disconnect(&inter);
        close(fd);
    }
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0) printf("join done: %d\n", sum);
    MPI_Finalize();
    return 0;
}
