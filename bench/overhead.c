/* Overhead benchmark: nanoseconds per MPI call, in timed blocks.
 *
 *   overhead <bench>[,<bench>...] <blocks> <scale> <variant>[,<variant>...]
 *
 * Benches: comm_rank (MPI_Comm_rank; 1 rank), barrier (MPI_Barrier; 1
 * rank), pingpong (0-byte MPI_Send/MPI_Recv between ranks 0 and 1, time per
 * message), allreduce (8-byte MPI_Allreduce). Variants, each a way of making
 * the same calls:
 *   mpi   MPI_X as the program would (the tool decides what happens)
 *   pmpi  PMPI_X called directly: the library without any wrapper, measured
 *         in the same process as a reference
 *   off   MPI_X after MPI_Pcontrol(0)
 *   on    MPI_X after MPI_Pcontrol(1)
 * Every block times each variant once, in an order that rotates from block
 * to block, so that drifts of the machine fall on all variants alike. Rank
 * 0 prints one line per variant and block:
 *   ns <bench> <variant> <nanoseconds per call>
 * run-overhead.sh runs this with and without the tool and takes medians.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_VARIANTS = 4 };

static int rank, size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* `n` calls of one bench, through MPI_ (direct = 0) or PMPI_ (direct = 1).
 * Returns the number of calls (messages, for pingpong) the time covers. */
static long run(const char *bench, long n, int direct)
{
    int r;
    char c = 0;
    double x = rank, y;
    if (!strcmp(bench, "comm_rank")) {
        if (direct)
            for (long i = 0; i < n; i++) PMPI_Comm_rank(MPI_COMM_WORLD, &r);
        else
            for (long i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
        return n;
    }
    if (!strcmp(bench, "barrier")) {
        if (direct)
            for (long i = 0; i < n; i++) PMPI_Barrier(MPI_COMM_SELF);
        else
            for (long i = 0; i < n; i++) MPI_Barrier(MPI_COMM_SELF);
        return n;
    }
    if (!strcmp(bench, "allreduce")) {
        if (direct)
            for (long i = 0; i < n; i++) PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            for (long i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return n;
    }
    if (!strcmp(bench, "pingpong")) {
        int peer = rank ^ 1;
        if (peer >= size) return 0;
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                if (direct) {
                    PMPI_Send(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                    PMPI_Recv(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Send(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            } else {
                if (direct) {
                    PMPI_Recv(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    PMPI_Send(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(&c, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                }
            }
        }
        return 2 * n;
    }
    fprintf(stderr, "overhead: unknown bench '%s'\n", bench);
    PMPI_Abort(MPI_COMM_WORLD, 2);
    return 0;
}

/* Calls per block at scale 1: each block takes roughly 100-200 us. */
static long base_iterations(const char *bench)
{
    if (!strcmp(bench, "comm_rank") || !strcmp(bench, "barrier")) return 20000;
    return 500;
}

static int split(char *list, char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: overhead <bench,...> <blocks> <scale> <variant,...>\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    char *benches[8], *variants[MAX_VARIANTS];
    int nb = split(argv[1], benches, 8);
    int blocks = atoi(argv[2]);
    double scale = atof(argv[3]);
    int nv = split(argv[4], variants, MAX_VARIANTS);
    for (int b = 0; b < nb; b++) {
        long n = (long)(base_iterations(benches[b]) * scale);
        if (n < 1) n = 1;
        for (int k = 0; k < blocks; k++) {
            for (int j = 0; j < nv; j++) {
                const char *v = variants[(j + k) % nv];
                int direct = !strcmp(v, "pmpi");
                if (!strcmp(v, "off")) MPI_Pcontrol(0);
                if (!strcmp(v, "on")) MPI_Pcontrol(1);
                run(benches[b], n / 10 + 1, direct); /* warm up */
                PMPI_Barrier(MPI_COMM_WORLD);
                double t0 = now();
                long calls = run(benches[b], n, direct);
                double t1 = now();
                if (rank == 0 && calls > 0)
                    printf("ns %s %s %.3f\n", benches[b], v, (t1 - t0) / (double)calls);
            }
        }
    }
    MPI_Pcontrol(1);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
