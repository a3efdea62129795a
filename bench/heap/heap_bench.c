/* The cost of check mode's allocator interposer (src/heap), in one
 * process with libmpiscope-heap.so preloaded (run.sh):
 *
 *   pair      a malloc/free pair of 64 bytes through the interposer,
 *             against the same pair through glibc's own entry points
 *             (__libc_malloc/__libc_free) in alternating blocks of the same
 *             process: ns per pair and the difference;
 *   threads   the same pair on T threads at once (ns per pair per thread);
 *   lookup    msc_heap_find among 10,000 live blocks: of a random one
 *             (the tree searched; with no allocation in between, and with
 *             a malloc/free pair before each look-up, minus the pair's own
 *             cost), and of one of 4 blocks taken in turn, as a program's
 *             send and receive buffers are (the thread's hints), with a
 *             pair before each.
 * Medians of the blocks. Usage: heap_bench [rounds] [threads]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/heap/heap.h"

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

enum { BLOCK = 20000 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double pairs_ours(int n)
{
    double t0 = now();
    for (int i = 0; i < n; i++) {
        void *volatile p = malloc(64);
        free(p);
    }
    return (now() - t0) / n;
}

static double pairs_libc(int n)
{
    double t0 = now();
    for (int i = 0; i < n; i++) {
        void *volatile p = __libc_malloc(64);
        __libc_free(p);
    }
    return (now() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static int rounds = 41;
static pthread_barrier_t go;

static void *thread_pairs(void *out)
{
    pthread_barrier_wait(&go);
    double v[64];
    int r = rounds < 64 ? rounds : 64;
    for (int i = 0; i < r; i++) v[i] = pairs_ours(BLOCK);
    *(double *)out = median(v, r);
    return NULL;
}

static void *thread_pairs_libc(void *out)
{
    pthread_barrier_wait(&go);
    double v[64];
    int r = rounds < 64 ? rounds : 64;
    for (int i = 0; i < r; i++) v[i] = pairs_libc(BLOCK);
    *(double *)out = median(v, r);
    return NULL;
}

static double threaded(int t, void *(*fn)(void *))
{
    pthread_t th[64];
    double res[64], sum = 0;
    pthread_barrier_init(&go, NULL, (unsigned)t);
    for (int i = 0; i < t; i++) pthread_create(&th[i], NULL, fn, &res[i]);
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL), sum += res[i];
    pthread_barrier_destroy(&go);
    return sum / t;
}

int main(int argc, char **argv)
{
    if (argc > 1) rounds = atoi(argv[1]);
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (rounds < 1 || rounds > 10000 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: heap_bench [rounds 1-10000] [threads 1-64]\n");
        return 2;
    }
    msc_heap_find_fn find = (msc_heap_find_fn)dlsym(RTLD_DEFAULT, "msc_heap_find");
    if (!find) {
        fprintf(stderr, "heap_bench: libmpiscope-heap.so is not preloaded\n");
        return 2;
    }
    double *ours = malloc((size_t)rounds * sizeof *ours), *libc = malloc((size_t)rounds * sizeof *libc);
    for (int r = 0; r < rounds; r++) {
        ours[r] = pairs_ours(BLOCK);
        libc[r] = pairs_libc(BLOCK);
    }
    double mo = median(ours, rounds), ml = median(libc, rounds);
    printf("pair (64 B, 1 thread):  interposed %.1f ns  glibc %.1f ns  added %.1f ns\n", mo, ml,
           mo - ml);
    double to = threaded(threads, thread_pairs), tl = threaded(threads, thread_pairs_libc);
    printf("pair (64 B, %d threads): interposed %.1f ns  glibc %.1f ns  added %.1f ns\n", threads,
           to, tl, to - tl);

    enum { LIVE = 10000, LOOKUPS = 20000 };
    void **live = malloc(LIVE * sizeof *live);
    for (int i = 0; i < LIVE; i++) live[i] = malloc(16 + (size_t)(i % 200));
    msc_heap_block_t b;
    unsigned x = 12345;
    double *cold = malloc((size_t)rounds * sizeof *cold), *drain = malloc((size_t)rounds * sizeof *drain);
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < LOOKUPS; i++) {
            x = x * 1103515245u + 12345u;
            find((uintptr_t)live[(x >> 8) % LIVE] + 3, &b);
        }
        cold[r] = (now() - t0) / LOOKUPS;
        t0 = now();
        for (int i = 0; i < LOOKUPS; i++) {
            x = x * 1103515245u + 12345u;
            void *volatile p = malloc(64);
            free(p);
            find((uintptr_t)live[(x >> 8) % LIVE] + 3, &b);
        }
        drain[r] = (now() - t0) / LOOKUPS - pairs_ours(2000);
    }
    double *warm = malloc((size_t)rounds * sizeof *warm);
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < LOOKUPS; i++) {
            void *volatile p = malloc(64);
            free(p);
            find((uintptr_t)live[(i & 3) * 997] + 3, &b);
        }
        warm[r] = (now() - t0) / LOOKUPS - pairs_ours(2000);
    }
    printf("lookup (10,000 live blocks): random %.1f ns, after a pair %.1f ns; 4 in turn after "
           "a pair %.1f ns\n",
           median(cold, rounds), median(drain, rounds), median(warm, rounds));
    for (int i = 0; i < LIVE; i++) free(live[i]);
    return 0;
}
