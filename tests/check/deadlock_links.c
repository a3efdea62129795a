/* The deadlock watchdog's files never follow a planted symbolic link: before
 * deadlocking, each rank plants links to a victim file at the names a
 * writer of <output>/.check/wait.<rank> and findings.<rank> could use for
 * its temporary file (the old "<name>.tmp" and the core's
 * ".<name>.partial-<pid>"). The run is reported and ended as in deadlock.c;
 * the victims must still hold their text (tests.cmake checks).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *out = getenv("MPISCOPE_OUTPUT");
    char victim[4096], link[4096];
    snprintf(victim, sizeof victim, "%s/victim.%d", out ? out : ".", rank);
    FILE *f = fopen(victim, "w");
    if (!f) return 1;
    fputs("victim\n", f);
    fclose(f);
    const char *names[] = {"wait", "findings"};
    for (int i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "%s/.check/%s.%d.tmp", out, names[i], rank);
        if (symlink(victim, link) != 0) perror(link);
        snprintf(link, sizeof link, "%s/.check/.%s.%d.partial-%ld", out, names[i], rank,
                 (long)getpid());
        if (symlink(victim, link) != 0) perror(link);
    }
    int other = 1 - rank;
    MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:DEADLOCK:HARD rank=1 */
    MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
