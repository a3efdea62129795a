/* The clock (src/core/clock.c): both sources are monotonic, they share one
 * origin, the calibrated TSC keeps pace with CLOCK_MONOTONIC over ~10 ms, and
 * `auto` follows the rule that clock.h states. */
#include <time.h>

#include "clock.h"
#include "runner.h"

/* Fails unless msc_now_ns() never goes backwards over `n` reads. */
static void assert_monotonic(int n)
{
    uint64_t prev = msc_now_ns();
    for (int i = 0; i < n; i++) {
        uint64_t t = msc_now_ns();
        if (t < prev) FAIL("%s clock went back by %llu ns at read %d", msc_clock_name(),
                           (unsigned long long)(prev - t), i);
        prev = t;
    }
}

/* |msc_now_ns() - CLOCK_MONOTONIC| in ns, from the tightest of several
 * brackets (a preemption between the reads would widen one). */
static long long offset_ns(void)
{
    long long best_width = -1, best = 0;
    for (int i = 0; i < 50; i++) {
        uint64_t a = msc_clock_monotonic_ns();
        uint64_t t = msc_now_ns();
        uint64_t b = msc_clock_monotonic_ns();
        long long width = (long long)(b - a);
        if (best_width < 0 || width < best_width) {
            best_width = width;
            long long mid = (long long)(a + (b - a) / 2);
            best = (long long)t - mid;
        }
    }
    return best < 0 ? -best : best;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

TEST(clock_monotonic_choice)
{
    msc_clock_init(MSC_CLOCK_MONOTONIC);
    ASSERT_STR_EQ(msc_clock_name(), "monotonic");
    assert_monotonic(200000);
    ASSERT(offset_ns() < 10000);
}

TEST(clock_tsc_choice)
{
    msc_clock_init(MSC_CLOCK_TSC);
#if defined(__x86_64__)
    ASSERT_STR_EQ(msc_clock_name(), "tsc");
    ASSERT(msc_clock.mult > 0);
#endif
    assert_monotonic(200000);
}

/* The two sources start on one time line and still agree after ~10 ms: the
 * calibration error (a few ppm) must stay far below 0.1% (10 us here). */
TEST(clock_tsc_agrees_with_monotonic)
{
    msc_clock_init(MSC_CLOCK_TSC);
    long long before = offset_ns();
    uint64_t t0 = msc_now_ns(), m0 = msc_clock_monotonic_ns();
    sleep_ms(10);
    uint64_t t1 = msc_now_ns(), m1 = msc_clock_monotonic_ns();
    long long after = offset_ns();
    ASSERT(before < 10000);
    ASSERT(after < 10000);
    long long dt = (long long)(t1 - t0), dm = (long long)(m1 - m0);
    ASSERT(dm >= 10000000);
    long long diff = dt > dm ? dt - dm : dm - dt;
    if (diff > 10000) FAIL("over %lld ns the TSC clock measured %lld ns", dm, dt);
}

static int has_word(const char *path, const char *word)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -qw %s %s", word, path);
    return system(cmd) == 0;
}

TEST(clock_auto_follows_the_rule)
{
    msc_clock_init(MSC_CLOCK_AUTO);
    int want_tsc = 0;
#if defined(__x86_64__)
    want_tsc = has_word("/proc/cpuinfo", "constant_tsc") &&
               has_word("/proc/cpuinfo", "nonstop_tsc") &&
               has_word("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                        "tsc");
#endif
    ASSERT_STR_EQ(msc_clock_name(), want_tsc ? "tsc" : "monotonic");
    assert_monotonic(100000);
    ASSERT(offset_ns() < 10000);
}

TEST(clock_init_again_switches_source)
{
    msc_clock_init(MSC_CLOCK_TSC);
    msc_clock_init(MSC_CLOCK_MONOTONIC);
    ASSERT_STR_EQ(msc_clock_name(), "monotonic");
    ASSERT(offset_ns() < 10000);
}
