/* One world of two programs, made two ways, so that check_mpmd.py can see
 * each program's command line with its ranks and every world's exact calls.
 *
 *   "spawn" (world A, N ranks): MPI_Comm_spawn_multiple makes world B from
 *           two commands, this program with "left" (1 process: B's rank 0)
 *           and with "right" (2 processes: B's ranks 1 and 2). A's rank 0
 *           sends 30 ints to each of B's ranks, then A disconnects and makes
 *           4 barriers.
 *   "left", "right" (world B, 3 ranks): each receives its 30 ints from A's
 *           rank 0 and disconnects; then as below.
 *   "mpmd-left", "mpmd-right": a world that the launcher started with two
 *           commands (mpirun -np 1 mpmd mpmd-left : -np 2 mpmd mpmd-right),
 *           as world B after its spawn:
 *
 * In world B and the MPMD world, each "right" rank sends 10 ints to the
 * "left" rank 0, which receives them from each in turn; all make 6
 * barriers, and "left" calls MPI_Comm_size 5 times.
 *
 * World A's rank 0, or the MPMD world's rank 0, prints "mpmd done".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void two_programs(int r, int n, int left)
{
    int v = 0;
    if (left) {
        for (int from = 1; from < n; from++)
            for (int i = 0; i < 10; i++) MPI_Recv(&v, 1, MPI_INT, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 5; i++) MPI_Comm_size(MPI_COMM_WORLD, &v);
    } else {
        for (int i = 0; i < 10; i++) MPI_Send(&i, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
    (void)r;
}

int main(int argc, char **argv)
{
    const char *role = argc > 1 ? argv[1] : "spawn";
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (strcmp(role, "spawn") == 0) {
        char *cmds[2] = {argv[0], argv[0]};
        char *left[] = {"left", NULL}, *right[] = {"right", NULL};
        char **args[2] = {left, right};
        int procs[2] = {1, 2};
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
        MPI_Comm inter;
        MPI_Comm_spawn_multiple(2, cmds, args, procs, infos, 0, MPI_COMM_WORLD, &inter,
                                MPI_ERRCODES_IGNORE);
        for (int to = 0; r == 0 && to < 3; to++)
            for (int i = 0; i < 30; i++) MPI_Send(&i, 1, MPI_INT, to, 5, inter);
        MPI_Comm_disconnect(&inter);
        for (int i = 0; i < 4; i++) MPI_Barrier(MPI_COMM_WORLD);
        if (r == 0) printf("mpmd done\n");
    } else if (strcmp(role, "left") == 0 || strcmp(role, "right") == 0) {
        MPI_Comm parent;
        int v;
        MPI_Comm_get_parent(&parent);
        for (int i = 0; i < 30; i++) MPI_Recv(&v, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE);
        MPI_Comm_disconnect(&parent);
        two_programs(r, n, strcmp(role, "left") == 0);
    } else {
        two_programs(r, n, strcmp(role, "mpmd-left") == 0);
        if (r == 0) printf("mpmd done\n");
    }
    MPI_Finalize();
    return 0;
}
