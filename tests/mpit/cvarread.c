/* Reads control variables back after MPI_Init: each argument is
 * name=expected (an integer); prints "name value" and exits 1 when a value
 * differs or cannot be read. Run with MPISCOPE_CVARS set (tests/mpit/cvars.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int provided, rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    for (int i = 1; i < argc; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s", argv[i]);
        char *eq = strchr(name, '=');
        if (!eq) return 2;
        *eq = '\0';
        int index, count;
        MPI_T_cvar_handle h;
        long long buf[64] = {0};
        if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
            MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS ||
            MPI_T_cvar_read(h, buf) != MPI_SUCCESS) {
            printf("%d: %s unreadable\n", rank, name);
            bad = 1;
            continue;
        }
        int value = *(int *)buf;
        if (rank == 0) printf("%s %d\n", name, value);
        if (value != atoi(eq + 1)) {
            printf("%d: %s is %d, expected %s\n", rank, name, value, eq + 1);
            bad = 1;
        }
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    MPI_Finalize();
    return bad;
}
