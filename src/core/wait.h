/* Private to mpiscope. How the tool waits for its own exchanges between
 * ranks (wait.c): tests with short sleeps between them, so that a peer that
 * shares the core gets it (MPICH busy-polls when ranks outnumber cores).
 */
#ifndef MSC_CORE_WAIT_H
#define MSC_CORE_WAIT_H

#include <stdbool.h>
#include <stdint.h>

/* Calls `test(arg)` until it returns nonzero: a few times at once for a fast
 * peer, then with sleeps of 20 us doubling up to 1 ms between calls. With
 * `deadline_ns` nonzero (msc_now_ns() time), gives up past it. True when
 * `test` said the wait is over. */
bool msc_wait_sleepy(int (*test)(void *), void *arg, uint64_t deadline_ns)
    __attribute__((visibility("hidden")));

#endif
