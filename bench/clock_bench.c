/* Clock benchmark: nanoseconds per msc_now_ns() with the calibrated TSC and
 * with clock_gettime(CLOCK_MONOTONIC), in interleaved timed blocks (the
 * median of each is printed), and the raw rdtsc for reference.
 *   clock_bench [blocks] [calls per block]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint64_t sink;

/* ns per call of msc_now_ns() with the clock state `c`, timed by
 * CLOCK_MONOTONIC around `n` calls. */
static double block(const msc_clock_t *c, long n)
{
    msc_clock = *c;
    uint64_t acc = 0;
    uint64_t t0 = msc_clock_monotonic_ns();
    for (long i = 0; i < n; i++) acc += msc_now_ns();
    uint64_t t1 = msc_clock_monotonic_ns();
    sink = acc;
    return (double)(t1 - t0) / (double)n;
}

static double block_rdtsc(long n)
{
    uint64_t acc = 0;
    uint64_t t0 = msc_clock_monotonic_ns();
#if defined(__x86_64__)
    for (long i = 0; i < n; i++) acc += __rdtsc();
#endif
    uint64_t t1 = msc_clock_monotonic_ns();
    sink = acc;
    return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 101;
    long n = argc > 2 ? atol(argv[2]) : 200000;
    if (blocks < 1 || n < 1) return 2;
    msc_clock_init(MSC_CLOCK_TSC);
    msc_clock_t tsc = msc_clock;
    msc_clock_init(MSC_CLOCK_MONOTONIC);
    msc_clock_t mono = msc_clock;
    msc_clock_init(MSC_CLOCK_AUTO);
    const char *auto_name = msc_clock_name();
    double *t = calloc((size_t)blocks, sizeof *t), *m = calloc((size_t)blocks, sizeof *m),
           *r = calloc((size_t)blocks, sizeof *r);
    for (int k = 0; k < blocks; k++) {
        if (k % 2) {
            t[k] = block(&tsc, n);
            m[k] = block(&mono, n);
        } else {
            m[k] = block(&mono, n);
            t[k] = block(&tsc, n);
        }
        r[k] = block_rdtsc(n);
    }
    qsort(t, (size_t)blocks, sizeof *t, cmp);
    qsort(m, (size_t)blocks, sizeof *m, cmp);
    qsort(r, (size_t)blocks, sizeof *r, cmp);
    printf("clock: msc_now_ns() tsc       %6.2f ns per call (median of %d blocks of %ld)\n",
           t[blocks / 2], blocks, n);
    printf("clock: msc_now_ns() monotonic %6.2f ns per call\n", m[blocks / 2]);
    printf("clock: raw rdtsc              %6.2f ns per call\n", r[blocks / 2]);
    printf("clock: tsc/monotonic ratio    %6.2f; auto chooses %s here\n",
           t[blocks / 2] / m[blocks / 2], auto_name);
    free(t), free(m), free(r);
    return 0;
}
