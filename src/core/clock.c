/* Clock selection and TSC calibration. The scale factor comes from two
 * (TSC, CLOCK_MONOTONIC) pairs about 2 ms apart, each pair taken as the
 * tightest bracket of several tries so that a preemption between the two reads
 * does not skew it; the error this leaves is a few parts per million.
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

void msc_clock_init(msc_clock_choice_t choice)
{
    msc_clock.use_tsc = 0;
#if defined(__x86_64__)
    if (choice == MSC_CLOCK_TSC || (choice == MSC_CLOCK_AUTO && tsc_trustworthy())) {
        uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0; /* (GCC -O3 cannot see sample() set them) */
        sample(&t0, &n0);
        do sample(&t1, &n1);
        while (n1 - n0 < 2000000);
        if (t1 > t0) {
            msc_clock.mult = (uint64_t)((((unsigned __int128)(n1 - n0)) << 32) / (t1 - t0));
            msc_clock.tsc0 = t1;
            msc_clock.ns0 = n1;
            msc_clock.use_tsc = 1;
        }
    }
#else
    (void)choice;
#endif
}

const char *msc_clock_name(void)
{
    return msc_clock.use_tsc ? "tsc" : "monotonic";
}
