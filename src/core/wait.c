/* The tool's waits for its own exchanges (wait.h). Spinning would take the
 * core from a peer rank that shares it; a blocking MPI call cannot be given
 * up. So the caller's test (an MPI_Test, an MPI_Iprobe) is called in a loop:
 * 32 times at once, which a peer on another core usually answers within,
 * then with sleeps from 20 us doubling to 1 ms, which bounds the added
 * latency at about 1 ms and the CPU taken while waiting at almost none.
 */
#include "wait.h"

#include <time.h>

#include "clock.h"

bool msc_wait_sleepy(int (*test)(void *), void *arg, uint64_t deadline_ns)
{
    long ns = 20000;
    for (int k = 0;; k++) {
        if (test(arg)) return true;
        if (deadline_ns && msc_now_ns() > deadline_ns) return false;
        if (k < 32) continue;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < 1000000) ns *= 2;
    }
}
