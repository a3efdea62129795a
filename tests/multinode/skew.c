/* Test-only clock shim for tests/multinode (LD_PRELOAD, before mpiscope):
 * on the node whose host name is $MSC_SKEW_HOST, CLOCK_MONOTONIC runs
 * $MSC_SKEW_NS nanoseconds ahead (negative: behind), as a node whose clock
 * is offset from the others'. Every other node, and every other clock, is
 * untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    static long long skew = -1;
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    if (skew < 0) {
        char h[256] = {0};
        gethostname(h, sizeof h - 1);
        const char *want = getenv("MSC_SKEW_HOST"), *ns = getenv("MSC_SKEW_NS");
        skew = want && ns && strcmp(h, want) == 0 ? atoll(ns) : 0;
    }
    if (rc == 0 && skew && id == CLOCK_MONOTONIC) {
        long long t = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + skew;
        ts->tv_sec = t / 1000000000LL;
        ts->tv_nsec = t % 1000000000LL;
    }
    return rc;
}
