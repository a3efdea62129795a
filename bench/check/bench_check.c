/* The check mode's cost on the patterns of issue 14 (never a timed test;
 * run.sh runs it without the tool, in profile mode and in check mode):
 *   bench_check pingpong  <round trips per block> <blocks>
 *       8-byte MPI_Send/MPI_Recv between ranks 0 and 1: median ns per message
 *   bench_check allreduce <calls per block> <blocks>
 *       MPI_Allreduce of one double: median ns per call
 *   bench_check window <windows> <same: 0|1>
 *       osu_bw's pattern: per window rank 1 posts 64 MPI_Irecv, rank 0 64
 *       MPI_Isend of 8 bytes, both MPI_Waitall, then a 4-byte reply. same=1
 *       puts every receive into one buffer (a true LOCAL:BUFFER:PENDING_OVERLAP
 *       on each receive but the first: 63 repeats per window), same=0 into 64
 *       buffers: seconds for the whole loop (the median window times the
 *       number of windows, robust to a loaded machine)
 *   bench_check imb <repetition scale>
 *       an IMB-MPI1-like sequence (PingPong, Sendrecv, Exchange, Allreduce,
 *       Reduce, Bcast, Allgather, Alltoall, Barrier) over sizes 0 B to 64 KiB,
 *       IMB's repetitions (1000 up to 4 KiB, then halved per doubling; at most 2000) times
 *       the scale: seconds (per step the median repetition times the
 *       repetitions, robust to a loaded machine); with BENCH_CHECK_STEPS=1
 *       each step's seconds on stderr too, "step NAME BYTES SECONDS" (steps.sh)
 *   bench_check halo <iterations>
 *       a LULESH-like halo code on a ring: per iteration two 16 KiB faces
 *       with MPI_Irecv/MPI_Isend/MPI_Waitall, ~20 us of computation, an
 *       MPI_Allreduce of the time step: seconds (median iteration times the
 *       iterations)
 *   bench_check self <iterations>
 *   bench_check self <iterations> <blocks>
 *       one rank, for callgrind (deterministic instruction counts): per
 *       iteration MPI_Irecv from itself, MPI_Send to itself, MPI_Wait, and
 *       MPI_Isend/MPI_Recv/MPI_Wait of 8 bytes (callgrind.sh); prints the best
 *       of 20 blocks, ns per message
 * Every test prints one line: its name and its number. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

static void pingpong(int n, int blocks)
{
    double *t = malloc(sizeof *t * (size_t)blocks), buf = 0;
    for (int b = -3; b < blocks; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (b >= 0) t[b] = (now() - t0) / (2.0 * n) * 1e9;
    }
    if (rank == 0) printf("pingpong_ns_per_message %.1f\n", median(t, blocks));
    free(t);
}

static void allreduce(int n, int blocks)
{
    double *t = malloc(sizeof *t * (size_t)blocks), x = 1, y;
    for (int b = -3; b < blocks; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (int i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (b >= 0) t[b] = (now() - t0) / n * 1e9;
    }
    if (rank == 0) printf("allreduce_ns_per_call %.1f\n", median(t, blocks));
    free(t);
}

static void window(int windows, int same)
{
    enum { W = 64 };
    double bufs[W] = {0}, one = 0;
    int ack = 0;
    MPI_Request r[W];
    MPI_Status st[W];
    double *t = malloc(sizeof *t * (size_t)windows);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < windows; k++) {
        double t0 = now();
        if (rank == 0) {
            for (int i = 0; i < W; i++) MPI_Isend(&bufs[i], 1, MPI_DOUBLE, 1, 100, MPI_COMM_WORLD, &r[i]);
            MPI_Waitall(W, r, st);
            MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int i = 0; i < W; i++)
                MPI_Irecv(same ? &one : &bufs[i], 1, MPI_DOUBLE, 0, 100, MPI_COMM_WORLD, &r[i]);
            MPI_Waitall(W, r, st);
            MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
        }
        t[k] = now() - t0;
    }
    /* The median window times the windows: the loop's time without the
     * pauses a loaded machine puts into some windows. */
    if (rank == 0) printf("window_seconds_same%d %.3f\n", same, median(t, windows) * windows);
    free(t);
}

/* Runs `reps` repetitions of one IMB step and returns their median time
 * times reps (rank 0's view; robust to a loaded machine). */
#define STEP(name, body)                                                      \
    do {                                                                      \
        for (int i_ = 0; i_ < reps; i_++) {                                   \
            double t0_ = now();                                               \
            body;                                                             \
            tt[i_] = now() - t0_;                                             \
        }                                                                     \
        double s_ = median(tt, reps) * reps;                                  \
        total += s_;                                                          \
        if (steps && rank == 0) fprintf(stderr, "step %s %d %.6f\n", name, bytes, s_); \
    } while (0)

static void imb(double scale)
{
    /* BENCH_CHECK_STEPS=1: each step's seconds on stderr ("step NAME BYTES S"; steps.sh) */
    const char *se = getenv("BENCH_CHECK_STEPS");
    int steps = se && *se == '1';
    double total = 0, *tt = malloc(sizeof *tt * 2000);
    int maxb = 65536;
    char *s = calloc((size_t)maxb * (size_t)size, 1), *r = calloc((size_t)maxb * (size_t)size, 1);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int bytes = 0; bytes <= maxb; bytes = bytes ? bytes * 2 : 1) {
        int reps = bytes <= 4096 ? 1000 : 1000 * 4096 / bytes;
        reps = (int)(reps * scale);
        if (reps < 1) reps = 1;
        if (reps > 2000) reps = 2000;
        if (size >= 2)
            STEP("PingPong", if (rank == 0) { /* PingPong */
                MPI_Send(s, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(r, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(r, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            });
        STEP("Sendrecv", MPI_Sendrecv(s, bytes, MPI_BYTE, right, 1, r, bytes, MPI_BYTE, left, 1,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        STEP("Exchange", { /* Exchange */
            MPI_Request q[4];
            MPI_Status st[4];
            MPI_Irecv(r, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(r + maxb, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &q[1]);
            MPI_Isend(s, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &q[2]);
            MPI_Isend(s, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &q[3]);
            MPI_Waitall(4, q, st);
        });
        int nf = bytes / (int)sizeof(float);
        STEP("Allreduce", MPI_Allreduce(s, r, nf, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        STEP("Reduce", MPI_Reduce(s, r, nf, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD));
        STEP("Bcast", MPI_Bcast(s, bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
        STEP("Allgather", MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD));
        STEP("Alltoall", MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD));
        STEP("Barrier", MPI_Barrier(MPI_COMM_WORLD));
    }
    double t = total;
    free(tt);
    if (rank == 0) printf("imb_seconds %.3f\n", t);
    free(s);
    free(r);
}

static void halo(int iters)
{
    enum { N = 2048 }; /* doubles per face: 16 KiB */
    double *field = calloc(4 * N, sizeof(double)), dt = 1, gdt;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double *tt = malloc(sizeof *tt * (size_t)iters);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < iters; it++) {
        double t0 = now();
        MPI_Request q[4];
        MPI_Status st[4];
        MPI_Irecv(field, N, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(field + N, N, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(field + 2 * N, N, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &q[2]);
        MPI_Isend(field + 3 * N, N, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &q[3]);
        MPI_Waitall(4, q, st);
        for (int rep = 0; rep < 4; rep++) /* the stencil: ~20 us */
            for (int i = 1; i < 2 * N - 1; i++)
                field[2 * N + i % (2 * N)] = 0.25 * (field[i - 1] + 2 * field[i] + field[i + 1]);
        dt = 1e-3 * (1 + field[N]);
        MPI_Allreduce(&dt, &gdt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        tt[it] = now() - t0;
    }
    if (rank == 0) printf("halo_seconds %.3f\n", median(tt, iters) * iters);
    free(tt);
    free(field);
}

static void self(int iters, int blocks)
{
    double a = 1, b = 0;
    MPI_Request q;
    MPI_Status st;
    double best = 1e30;
    for (int blk = 0; blk < blocks; blk++) {
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        MPI_Irecv(&b, 1, MPI_DOUBLE, rank, 5, MPI_COMM_WORLD, &q);
        MPI_Send(&a, 1, MPI_DOUBLE, rank, 5, MPI_COMM_WORLD);
        MPI_Wait(&q, &st);
        MPI_Isend(&a, 1, MPI_DOUBLE, rank, 6, MPI_COMM_WORLD, &q);
        MPI_Recv(&b, 1, MPI_DOUBLE, rank, 6, MPI_COMM_WORLD, &st);
        MPI_Wait(&q, &st);
    }
    double t = (now() - t0) / iters * 1e9 / 2;
    if (t < best) best = t;
    }
    if (rank == 0) printf("self_ns_per_message %.1f\n", best);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *t = argc > 1 ? argv[1] : "";
    int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
    if (!strcmp(t, "pingpong")) pingpong(a ? a : 500, b ? b : 200);
    else if (!strcmp(t, "allreduce")) allreduce(a ? a : 500, b ? b : 200);
    else if (!strcmp(t, "window")) window(a ? a : 15625, b);
    else if (!strcmp(t, "imb")) imb(argc > 2 ? atof(argv[2]) : 1.0);
    else if (!strcmp(t, "halo")) halo(a ? a : 5000);
    else if (!strcmp(t, "self")) self(a ? a : 10000, b ? b : 20);
    else if (rank == 0) fprintf(stderr, "bench_check: pingpong|allreduce|window|imb|halo|self\n");
    MPI_Finalize();
    return 0;
}
