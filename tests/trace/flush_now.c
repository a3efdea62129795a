/* Flushing on request: MPI_Pcontrol(2) (or VT_flush with -DUSE_VT) must put
 * every event recorded so far on disk at once. Two ranks exchange messages
 * in three phases; after each of the first two the program flushes and
 * copies what is on disk for its location at that moment
 * (trace/traces/<rank>.evt.flushed) to snap<k>/<rank>.evt, as a crash right
 * then would have left it. check_flush.py reads each copy with the final
 * definitions and compares it with the final trace: exactly the events
 * before the k-th flush call. Phase k makes 10*k ping-pongs and one
 * Allreduce, so the counts differ per phase.
 *
 *     flush_now [pcontrol|vt]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef USE_VT
#include <VT.h>
#endif

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) {
        fprintf(stderr, "flush_now: cannot copy %s to %s\n", from, to);
        exit(1);
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
}

static void phase(int rank, int k)
{
    int peer = 1 - rank, v = k;
    for (int i = 0; i < 10 * k; i++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *out = getenv("MPISCOPE_OUTPUT");
    if (size != 2 || !out) {
        fprintf(stderr, "flush_now: 2 ranks and MPISCOPE_OUTPUT needed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int vt = argc > 1 && strcmp(argv[1], "vt") == 0;
    for (int k = 1; k <= 3; k++) {
        phase(rank, k);
        if (k == 3) break;
#ifdef USE_VT
        if (vt) VT_flush();
        else
#endif
            MPI_Pcontrol(2);
        (void)vt;
        char dir[4096], from[4200], to[4200];
        snprintf(dir, sizeof dir, "%s/snap%d", out, k);
        mkdir(dir, 0755);
        snprintf(from, sizeof from, "%s/trace/traces/%d.evt.flushed", out, rank);
        snprintf(to, sizeof to, "%s/%d.evt", dir, rank);
        copy_file(from, to);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
