/* Instructions and cycles through perf_event_open(2), chosen over PAPI:
 * no library to load at MPI_Init (PAPI 7 reads the same kernel interface
 * through its perf_event component, after initialising every component),
 * no dependency, and one read(2) of a counter group gives both counts. The
 * group counts the thread that opened it (pid 0, any CPU), user and
 * kernel. A machine without a PMU (a virtual machine such as the
 * development one) fails the open with ENOENT or EOPNOTSUPP; a
 * perf_event_paranoid above 2 with EACCES: the reason is passed on. */
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fds[MSC_CTR_N] = {-1, -1};

static int perf_open(void *u, char *why, size_t whylen)
{
    (void)u;
    static const uint64_t cfg[MSC_CTR_N] = {PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES};
    for (int k = 0; k < MSC_CTR_N; k++) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_HARDWARE;
        a.config = cfg[k];
        a.disabled = k == 0;
        a.read_format = PERF_FORMAT_GROUP;
        fds[k] = (int)syscall(SYS_perf_event_open, &a, 0, -1, k ? fds[0] : -1, 0);
        if (fds[k] < 0) {
            int e = errno;
            snprintf(why, whylen, "perf_event_open(%s): %s%s",
                     k ? "cycles" : "instructions", strerror(e),
                     e == ENOENT || e == EOPNOTSUPP ? " (no hardware PMU, e.g. a virtual machine)"
                     : e == EACCES || e == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)"
                                                 : "");
            for (int j = 0; j < k; j++) close(fds[j]), fds[j] = -1;
            return -1;
        }
    }
    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    return 0;
}

static int perf_read(void *u, uint64_t v[MSC_CTR_N])
{
    (void)u;
    uint64_t buf[1 + MSC_CTR_N];
    if (read(fds[0], buf, sizeof buf) != (ssize_t)sizeof buf || buf[0] != MSC_CTR_N) return -1;
    for (int k = 0; k < MSC_CTR_N; k++) v[k] = buf[1 + k];
    return 0;
}

static void perf_close(void *u)
{
    (void)u;
    for (int k = MSC_CTR_N; k-- > 0;)
        if (fds[k] >= 0) close(fds[k]), fds[k] = -1;
}

const msc_ctr_source_t msc_ctr_perf_source = {perf_open, perf_read, perf_close, NULL};
