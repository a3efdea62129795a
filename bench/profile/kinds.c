/* What the tool adds to each kind of MPI call, against the floor: two reads
 * of the clock mpiscope uses by default (the TSC, scaled as msc_now_ns
 * does, where the CPU and the kernel trust it; CLOCK_MONOTONIC otherwise),
 * measured in the same process.
 *   kinds time <iterations per block> <blocks> [kind,...]
 *   kinds cg <iterations> [kind,...]
 * A kind is a short loop body of one or more MPI calls on 1 rank (the
 * messages go to the rank itself), written once and compiled twice: with
 * MPI_ (the tool's wrappers when it is preloaded) and with PMPI_ (the MPI
 * library directly). Objects a kind needs (a window, a file, persistent
 * requests) are made outside the measured loops, one set per variant.
 * time: blocks of each variant and of the floor take turns; each line gives
 * the kind, its MPI calls per iteration, the median ns per iteration of MPI_
 * and PMPI_, the median ns of the floor and the tool's cost per call
 * ((MPI_ - PMPI_) / calls) and its ratio to the floor.
 * cg: under valgrind --tool=callgrind; per kind and variant, a warm-up, then
 * zeroed counters, the loop, and a dump named "<kind>:mpi" or "<kind>:pmpi"
 * (kinds.sh subtracts them: instructions added per iteration, exact). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
/* Persistent collectives: MPI-4.0 (MPICH 4); Open MPI 4.1 has them only as
 * MPIX_ functions in mpi-ext.h, which the tool does not wrap. */
#if MPI_VERSION >= 4
#define HAVE_PCOLL 1
#define ALLREDUCE_INIT(P) P##Allreduce_init
#else
#define HAVE_PCOLL 0
#endif

enum { NREQ = 16 }; /* the waitall16 kind: 8 receives and 8 sends */

/* What the loop bodies use; one per variant, so that persistent requests,
 * windows and files made through MPI_ are only ever used through MPI_. */
typedef struct {
    long sbuf[NREQ], rbuf[NREQ];
    int rank, counts[1], displs[1];
    MPI_Request req[NREQ], pers[2], pcoll;
    MPI_Win win;
    long *winbuf;
    MPI_File file;
    MPI_Status *ignore; /* MPI_STATUSES_IGNORE, out of GCC's sight (-Wstringop-overflow on MPICH) */
} ctx_t;

static ctx_t cx[2]; /* 0: MPI_, 1: PMPI_ */

/* The loop bodies, with P the prefix of every MPI call (MPI_ or PMPI_). */
#define B_comm_rank(P, c) { int r; P##Comm_rank(MPI_COMM_WORLD, &r); }
#define B_barrier(P, c) P##Barrier(MPI_COMM_WORLD);
#define B_bcast(P, c) P##Bcast(c->sbuf, 1, MPI_LONG, 0, MPI_COMM_WORLD);
#define B_allreduce(P, c) P##Allreduce(c->sbuf, c->rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
#define B_reduce(P, c) P##Reduce(c->sbuf, c->rbuf, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
#define B_gatherv(P, c) \
    P##Gatherv(c->sbuf, 1, MPI_LONG, c->rbuf, c->counts, c->displs, MPI_LONG, 0, MPI_COMM_WORLD);
#define B_ibarrier_wait(P, c) \
    { P##Ibarrier(MPI_COMM_WORLD, &c->req[0]); P##Wait(&c->req[0], MPI_STATUS_IGNORE); }
#define B_iallreduce_wait(P, c) \
    { P##Iallreduce(c->sbuf, c->rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c->req[0]); \
      P##Wait(&c->req[0], MPI_STATUS_IGNORE); }
#define B_pallreduce(P, c) \
    { P##Start(&c->pcoll); P##Wait(&c->pcoll, MPI_STATUS_IGNORE); }
#define POST2(P, c) \
    P##Irecv(&c->rbuf[0], 1, MPI_LONG, c->rank, 0, MPI_COMM_WORLD, &c->req[0]); \
    P##Isend(&c->sbuf[0], 1, MPI_LONG, c->rank, 0, MPI_COMM_WORLD, &c->req[1]);
#define B_isend_irecv_waitall(P, c) { POST2(P, c) P##Waitall(2, c->req, c->ignore); }
#define B_isend_irecv_wait_wait(P, c) \
    { POST2(P, c) P##Wait(&c->req[0], MPI_STATUS_IGNORE); P##Wait(&c->req[1], MPI_STATUS_IGNORE); }
#define B_waitall16(P, c) \
    { for (int k = 0; k < NREQ / 2; k++) { \
          P##Irecv(&c->rbuf[k], 1, MPI_LONG, c->rank, k, MPI_COMM_WORLD, &c->req[k]); \
          P##Isend(&c->sbuf[k], 1, MPI_LONG, c->rank, k, MPI_COMM_WORLD, &c->req[NREQ / 2 + k]); } \
      P##Waitall(NREQ, c->req, c->ignore); }
#define B_persistent_p2p(P, c) \
    { P##Startall(2, c->pers); P##Waitall(2, c->pers, c->ignore); }
#define B_test(P, c) \
    { POST2(P, c) for (int k = 0; k < 2; k++) { int f = 0; \
          while (!f) P##Test(&c->req[k], &f, MPI_STATUS_IGNORE); } }
#define B_waitany(P, c) \
    { POST2(P, c) int ix; P##Waitany(2, c->req, &ix, MPI_STATUS_IGNORE); \
      P##Waitany(2, c->req, &ix, MPI_STATUS_IGNORE); }
#define B_testsome(P, c) \
    { POST2(P, c) int left = 2, out, ix[2]; \
      while (left > 0) { P##Testsome(2, c->req, &out, ix, c->ignore); \
                         left = out == MPI_UNDEFINED ? 0 : left - out; } }
#define B_put_fence(P, c) \
    { P##Put(c->sbuf, 1, MPI_LONG, 0, 0, 1, MPI_LONG, c->win); P##Win_fence(0, c->win); }
#define B_file_write_at(P, c) \
    P##File_write_at(c->file, 0, c->sbuf, 1, MPI_LONG, MPI_STATUS_IGNORE);
#define B_comm_dup_free(P, c) { MPI_Comm d; P##Comm_dup(MPI_COMM_WORLD, &d); P##Comm_free(&d); }
#define B_type_contig(P, c) \
    { MPI_Datatype t; P##Type_contiguous(2, MPI_LONG, &t); P##Type_commit(&t); P##Type_free(&t); }

/* name, MPI calls per iteration (the Test and Testsome loops: when every
 * operation completes on the first try, as self messages do) */
#define KINDS(X) \
    X(comm_rank, 1) X(barrier, 1) X(bcast, 1) X(allreduce, 1) X(reduce, 1) X(gatherv, 1) \
    X(ibarrier_wait, 2) X(iallreduce_wait, 2) X(pallreduce, 2) \
    X(isend_irecv_waitall, 3) X(isend_irecv_wait_wait, 4) X(waitall16, 17) \
    X(persistent_p2p, 2) X(test, 4) X(waitany, 4) X(testsome, 3) X(put_fence, 2) \
    X(file_write_at, 1) X(comm_dup_free, 2) X(type_contig, 3)

#define DEF(name, calls) \
    static __attribute__((noinline)) void k_##name##_mpi(long n) \
    { ctx_t *c = &cx[0]; (void)c; for (long i = 0; i < n; i++) B_##name(MPI_, c) } \
    static __attribute__((noinline)) void k_##name##_pmpi(long n) \
    { ctx_t *c = &cx[1]; (void)c; for (long i = 0; i < n; i++) B_##name(PMPI_, c) }
#if !HAVE_PCOLL
#undef B_pallreduce
#define B_pallreduce(P, c) (void)c;
#endif
KINDS(DEF)

typedef struct {
    const char *name;
    int calls;
    void (*fn[2])(long);
} kind_t;

#define ROW(name, calls) {#name, calls, {k_##name##_mpi, k_##name##_pmpi}},
static const kind_t kinds[] = {KINDS(ROW)};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* ---- the floor: two reads of the tool's clock --------------------------- */

static int use_tsc;
static uint64_t tsc0, ns0, mult = 1ull << 32; /* as msc_clock_t; the scale is not what is timed */

static int file_has_word(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        for (char *s = strtok(line, " \t\n"); s && !found; s = strtok(NULL, " \t\n"))
            found = strcmp(s, word) == 0;
    fclose(f);
    return found;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* msc_now_ns (src/core/clock.h), with the same choice as MPISCOPE_CLOCK=auto. */
static inline uint64_t tool_now(void)
{
#if defined(__x86_64__)
    if (use_tsc) {
        uint64_t d = __rdtsc() - tsc0;
        return ns0 + (uint64_t)(((unsigned __int128)d * mult) >> 32);
    }
#endif
    return mono_ns();
}

static volatile uint64_t sink;

static __attribute__((noinline)) void floor_loop(long n)
{
    uint64_t s = 0;
    for (long i = 0; i < n; i++) {
        uint64_t a = tool_now();
        uint64_t b = tool_now();
        s += b - a;
        __asm__ volatile("" : "+r"(s));
    }
    sink = s;
}

/* ---- set-up -------------------------------------------------------------- */

static char fname[2][256];

static void setup(int v)
{
    ctx_t *c = &cx[v];
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    c->counts[0] = 1, c->displs[0] = 0;
    c->ignore = MPI_STATUSES_IGNORE;
    for (int k = 0; k < NREQ; k++) c->sbuf[k] = k, c->req[k] = MPI_REQUEST_NULL;
    /* Objects through the variant's own prefix: MPI_ for 0, PMPI_ for 1. */
    snprintf(fname[v], sizeof fname[v], "/tmp/mpiscope-kinds-%d-%d", (int)getpid(), v);
    if (v == 0) {
        MPI_Recv_init(&c->rbuf[0], 1, MPI_LONG, c->rank, 1, MPI_COMM_WORLD, &c->pers[0]);
        MPI_Send_init(&c->sbuf[0], 1, MPI_LONG, c->rank, 1, MPI_COMM_WORLD, &c->pers[1]);
        /* Win_allocate: MPICH 4.0.2 (ch4, ucx) wrote a Put to itself on a
         * window of MPI_Win_create beside its target. */
        MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_SELF, &c->winbuf,
                        &c->win);
        MPI_Win_fence(0, c->win);
        MPI_File_open(MPI_COMM_SELF, fname[v], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &c->file);
#if HAVE_PCOLL
        ALLREDUCE_INIT(MPI_)(c->sbuf, c->rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &c->pcoll);
#endif
    } else {
        PMPI_Recv_init(&c->rbuf[0], 1, MPI_LONG, c->rank, 1, MPI_COMM_WORLD, &c->pers[0]);
        PMPI_Send_init(&c->sbuf[0], 1, MPI_LONG, c->rank, 1, MPI_COMM_WORLD, &c->pers[1]);
        PMPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_SELF, &c->winbuf,
                         &c->win);
        PMPI_Win_fence(0, c->win);
        PMPI_File_open(MPI_COMM_SELF, fname[v], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                       &c->file);
#if HAVE_PCOLL
        ALLREDUCE_INIT(PMPI_)(c->sbuf, c->rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &c->pcoll);
#endif
    }
}

static void teardown(int v)
{
    ctx_t *c = &cx[v];
    MPI_Request_free(&c->pers[0]);
    MPI_Request_free(&c->pers[1]);
#if HAVE_PCOLL
    MPI_Request_free(&c->pcoll);
#endif
    MPI_Win_fence(0, c->win);
    MPI_Win_free(&c->win);
    MPI_File_close(&c->file);
    unlink(fname[v]);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int wanted(const char *list, const char *name)
{
    if (!list || !*list || strcmp(list, "all") == 0) return 1;
    size_t n = strlen(name);
    for (const char *s = list; (s = strstr(s, name)); s += n)
        if ((s == list || s[-1] == ',') && (s[n] == ',' || s[n] == 0)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "time";
    int cg = strcmp(mode, "cg") == 0;
    long n = argc > 2 ? atol(argv[2]) : 1000;
    int blocks = cg ? 1 : argc > 3 ? atoi(argv[3]) : 101;
    const char *list = argc > (cg ? 3 : 4) ? argv[cg ? 3 : 4] : NULL;
#if defined(__x86_64__)
    use_tsc = file_has_word("/proc/cpuinfo", "constant_tsc") &&
              file_has_word("/proc/cpuinfo", "nonstop_tsc") &&
              file_has_word("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc");
    const char *ch = getenv("MPISCOPE_CLOCK");
    if (ch && strcmp(ch, "monotonic") == 0) use_tsc = 0;
    if (ch && strcmp(ch, "tsc") == 0) use_tsc = 1;
    tsc0 = __rdtsc(), ns0 = mono_ns();
#endif
    setup(0);
    setup(1);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *t[3];
    for (int v = 0; v < 3; v++) t[v] = malloc(sizeof *t[v] * (size_t)blocks);
    if (!cg && rank == 0)
        printf("# kind calls mpi_ns pmpi_ns floor_ns added_per_call_ns ratio (clock: %s)\n",
               use_tsc ? "tsc" : "monotonic");
    for (int k = 0; k < NKINDS; k++) {
        const kind_t *kd = &kinds[k];
        if (!wanted(list, kd->name)) continue;
        if (!HAVE_PCOLL && strcmp(kd->name, "pallreduce") == 0) continue;
        if (cg) {
            /* Warm-up (first calls: tables, caches), then the counted loops. */
            for (int v = 0; v < 2; v++) kd->fn[v](n / 10 + 10);
            char what[96];
            for (int v = 0; v < 2; v++) {
                CALLGRIND_ZERO_STATS;
                kd->fn[v](n);
                snprintf(what, sizeof what, "%s:%s:%d", kd->name, v ? "pmpi" : "mpi", kd->calls);
                CALLGRIND_DUMP_STATS_AT(what);
            }
            continue;
        }
        for (int b = -3; b < blocks; b++) { /* 3 warm-up blocks */
            for (int v = 0; v < 3; v++) {
                int w = (v + b + 3) % 3; /* rotate the order of the variants */
                uint64_t t0 = mono_ns();
                if (w < 2) kd->fn[w](n);
                else floor_loop(n);
                uint64_t t1 = mono_ns();
                if (b >= 0) t[w][b] = (double)(t1 - t0) / (double)n;
            }
        }
        for (int v = 0; v < 3; v++) qsort(t[v], (size_t)blocks, sizeof *t[v], cmp);
        double m = t[0][blocks / 2], p = t[1][blocks / 2], f = t[2][blocks / 2];
        double added = (m - p) / kd->calls;
        if (rank == 0)
            printf("%-22s %3d %10.1f %10.1f %7.1f %9.1f %6.2f\n", kd->name, kd->calls, m, p, f,
                   added, added / f);
    }
    teardown(0);
    teardown(1);
    for (int v = 0; v < 3; v++) free(t[v]);
    MPI_Finalize();
    return 0;
}
