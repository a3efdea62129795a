/* Clock selection and TSC calibration. The scale factor comes from two
 * (TSC, CLOCK_MONOTONIC) pairs at least 2 ms apart, each pair taken as the
 * tightest bracket of several tries so that a preemption between the two reads
 * does not skew it; the error this leaves is a few parts per million. The
 * tool takes the first pair before PMPI_Init and the second after it
 * (msc_clock_begin/_finish), so MPI_Init's own 30-250 ms are the interval
 * and nothing waits (it was 2 ms of every MPI_Init, spinning); in between,
 * msc_now_ns reads CLOCK_MONOTONIC, whose time line the TSC's continues.
 */
#include "clock.h"

#include <stdio.h>
#include <string.h>

msc_clock_t msc_clock;

#if defined(__x86_64__)
/* One (tsc, ns) pair, the read of CLOCK_MONOTONIC bracketed by two rdtsc. */
static void sample(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = __rdtsc();
        uint64_t t = msc_clock_monotonic_ns();
        uint64_t b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
}

static int file_has_word(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        for (char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
            size_t n = strlen(word);
            if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
                (p[n] == ' ' || p[n] == '\n' || p[n] == 0)) {
                found = 1;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

static int tsc_trustworthy(void)
{
    return file_has_word("/proc/cpuinfo", "constant_tsc") &&
           file_has_word("/proc/cpuinfo", "nonstop_tsc") &&
           file_has_word("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                         "tsc");
}
#endif

/* The calibration's first pair, between msc_clock_begin and _finish. */
static struct {
    int pending;
    uint64_t tsc, ns;
} first;

void msc_clock_begin(msc_clock_choice_t choice)
{
    msc_clock.use_tsc = 0;
    first.pending = 0;
#if defined(__x86_64__)
    if (choice == MSC_CLOCK_TSC || (choice == MSC_CLOCK_AUTO && tsc_trustworthy())) {
        uint64_t t0 = 0, n0 = 0; /* (GCC -O3 cannot see sample() set them) */
        sample(&t0, &n0);
        first.tsc = t0;
        first.ns = n0;
        first.pending = 1;
    }
#else
    (void)choice;
#endif
}

void msc_clock_finish(void)
{
#if defined(__x86_64__)
    if (!first.pending) return;
    first.pending = 0;
    uint64_t t1 = 0, n1 = 0;
    do sample(&t1, &n1);
    while (n1 - first.ns < 2000000);
    if (t1 > first.tsc) {
        msc_clock.mult = (uint64_t)((((unsigned __int128)(n1 - first.ns)) << 32) / (t1 - first.tsc));
        msc_clock.tsc0 = t1;
        msc_clock.ns0 = n1;
        msc_clock.use_tsc = 1;
    }
#endif
}

void msc_clock_init(msc_clock_choice_t choice)
{
    msc_clock_begin(choice);
    msc_clock_finish();
}

const char *msc_clock_name(void)
{
    return msc_clock.use_tsc ? "tsc" : "monotonic";
}
