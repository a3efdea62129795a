/* A spawn tree two levels deep (MPI_Comm_spawn, MPI-2), each world with
 * calls it alone makes, so that check_spawn.py can tell the worlds apart and
 * see that none was written over another:
 *
 *   world A (the job's, N ranks): spawns world B (2 processes of this
 *           program, "child"), each rank r < 2 sends 50 ints to B's rank r,
 *           disconnects; 10 barriers.
 *   world B (2 ranks): receives the 50 from its parent, disconnects; spawns
 *           world C (1 process, "grandchild"), its rank 0 sends 7 ints to
 *           C's rank 0, disconnects; 100 barriers.
 *   world C (1 rank): receives the 7, disconnects; 3 MPI_Comm_size calls.
 *
 * World A's rank 0 prints "spawn tree done".
 *
 * With "lost", world A spawns world B with the role "mute": B's processes
 * set MPISCOPE_MODE=none before MPI_Init (as a world started without
 * mpiscope would), receive the 50 ints and end, so that B leaves no results
 * and the report must say a world is missing. With "lost-deep", world B is
 * recorded ("child-lost") and spawns world C with the role "mute-grandchild"
 * (C records nothing): the report must name B's spawn call, not A's.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n ints from the parent world's rank `from`, then the parent let go. */
static void recv_from_parent(int from, int n)
{
    MPI_Comm parent;
    int v;
    MPI_Comm_get_parent(&parent);
    for (int i = 0; i < n; i++) MPI_Recv(&v, 1, MPI_INT, from, 5, parent, MPI_STATUS_IGNORE);
    MPI_Comm_disconnect(&parent);
}

int main(int argc, char **argv)
{
    const char *role = argc > 1 ? argv[1] : "root";
    if (strncmp(role, "mute", 4) == 0) setenv("MPISCOPE_MODE", "none", 1);
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm inter;
    if (strcmp(role, "root") == 0 || strcmp(role, "lost") == 0 ||
        strcmp(role, "lost-deep") == 0) {
        char *args[] = {strcmp(role, "lost") == 0        ? "mute"
                        : strcmp(role, "lost-deep") == 0 ? "child-lost"
                                                         : "child",
                        NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        for (int i = 0; r < 2 && i < 50; i++) MPI_Send(&i, 1, MPI_INT, r, 5, inter);
        MPI_Comm_disconnect(&inter);
        for (int i = 0; i < 10; i++) MPI_Barrier(MPI_COMM_WORLD);
        if (r == 0) printf("spawn tree done\n");
    } else if (strcmp(role, "mute") == 0) {
        recv_from_parent(r, 50);
    } else if (strcmp(role, "child") == 0 || strcmp(role, "child-lost") == 0) {
        /* The parent's rank r sends to this world's rank r. */
        recv_from_parent(r, 50);
        char *args[] = {strcmp(role, "child") == 0 ? "grandchild" : "mute-grandchild", NULL};
        MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        for (int i = 0; r == 0 && i < 7; i++) MPI_Send(&i, 1, MPI_INT, 0, 5, inter);
        MPI_Comm_disconnect(&inter);
        for (int i = 0; i < 100; i++) MPI_Barrier(MPI_COMM_WORLD);
    } else {
        recv_from_parent(0, 7);
        for (int i = 0; i < 3; i++) MPI_Comm_size(MPI_COMM_WORLD, &n);
    }
    MPI_Finalize();
    return 0;
}
