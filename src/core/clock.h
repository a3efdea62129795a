/* Private to mpiscope. The clock: nanoseconds from a fixed origin.
 *
 * Two sources. The TSC read with rdtsc and scaled by a factor calibrated
 * against CLOCK_MONOTONIC at start-up costs about half of a vDSO
 * clock_gettime here (9 ns against 18 ns; docs/clock.md has the measurement
 * and the reasoning), so `auto` takes it when the CPU says the TSC is
 * constant and non-stop and the kernel itself uses it as its clocksource;
 * otherwise, and with MPISCOPE_CLOCK=monotonic,
 * clock_gettime(CLOCK_MONOTONIC). Both give nanoseconds on one time line.
 */
#ifndef MSC_CORE_CLOCK_H
#define MSC_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef enum { MSC_CLOCK_AUTO = 0, MSC_CLOCK_TSC = 1, MSC_CLOCK_MONOTONIC = 2 } msc_clock_choice_t;

typedef struct {
    int use_tsc;       /* 1: rdtsc scaled; 0: clock_gettime */
    uint64_t tsc0;     /* TSC at calibration, ticks */
    uint64_t ns0;      /* CLOCK_MONOTONIC at calibration, ns */
    uint64_t mult;     /* ns per tick, fixed point with 32 fraction bits */
} msc_clock_t;

extern msc_clock_t msc_clock;

static inline uint64_t msc_clock_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since an arbitrary origin shared by both sources. */
static inline uint64_t msc_now_ns(void)
{
#if defined(__x86_64__)
    if (msc_clock.use_tsc) {
        uint64_t d = __rdtsc() - msc_clock.tsc0;
        return msc_clock.ns0 + (uint64_t)(((unsigned __int128)d * msc_clock.mult) >> 32);
    }
#endif
    return msc_clock_monotonic_ns();
}

/* Chooses and calibrates the source. Idempotent; takes about 2 ms with TSC. */
void msc_clock_init(msc_clock_choice_t choice);

/* The same in two halves: begin chooses the source and takes the first
 * calibration pair (msc_now_ns reads CLOCK_MONOTONIC until finish); finish
 * takes the second, waiting only if less than 2 ms have passed. */
void msc_clock_begin(msc_clock_choice_t choice);
void msc_clock_finish(void);

/* Name of the source in use: "tsc" or "monotonic". */
const char *msc_clock_name(void);

#endif
