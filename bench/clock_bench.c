/* Clock benchmark: nanoseconds per msc_now_ns() with the calibrated TSC and
 * with clock_gettime(CLOCK_MONOTONIC), in interleaved timed blocks (the
 * median of each is printed), the raw rdtsc for reference, and how far the
 * calibrated TSC drifts from CLOCK_MONOTONIC over `drift_ms`.
 *   clock_bench [blocks] [calls per block] [drift_ms]
 */
#include <stdio.h>
#include <time.h>
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

/* msc_now_ns() minus CLOCK_MONOTONIC, from the tightest of many brackets. */
static long long offset_ns(void)
{
    long long best_width = -1, best = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t a = msc_clock_monotonic_ns(), t = msc_now_ns(), b = msc_clock_monotonic_ns();
        long long width = (long long)(b - a);
        if (best_width < 0 || width < best_width) {
            best_width = width;
            best = (long long)t - (long long)(a + (b - a) / 2);
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 201;
    long n = argc > 2 ? atol(argv[2]) : 20000; /* ~0.3 ms: short enough that most blocks escape preemption */
    long drift_ms = argc > 3 ? atol(argv[3]) : 1000;
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
    msc_clock = tsc;
    long long o0 = offset_ns();
    struct timespec ts = {drift_ms / 1000, (drift_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    long long o1 = offset_ns();
    printf("clock: tsc - monotonic        %+lld ns after calibration, %+lld ns %ld ms later "
           "(%.2f ppm)\n",
           o0, o1, drift_ms, drift_ms ? (double)(o1 - o0) / (double)drift_ms : 0.0); /* ns per ms = ppm */
    free(t), free(m), free(r);
    return 0;
}
