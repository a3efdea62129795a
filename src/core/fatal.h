/* Private to mpiscope. What happens when a rank goes down without
 * MPI_Finalize: a fatal signal, a termination request from the launcher, or
 * MPI_Abort. The modules get one chance to write what they have recorded
 * (module.h: `emergency`), then the signal takes its previous course, so the
 * application's own handlers, its exit status and the launcher's view of it
 * are what they would have been without the tool.
 */
#ifndef MSC_CORE_FATAL_H
#define MSC_CORE_FATAL_H

#include <stddef.h>

/* The `signum` the emergency hooks get when the process exits (exit() or a
 * return from main) after MPI_Init without MPI_Finalize; the core's at-exit
 * handler gives it (issue 15), and the checks report the missing
 * MPI_Finalize from it (issue 14). Signals are positive, MPI_Abort is 0. */
#define MSC_FATAL_EXIT (-1)

/* Installs the handlers (after PMPI_Init, so that the MPI library's own
 * handlers are the ones chained to). */
void msc_fatal_install(void) __attribute__((visibility("hidden")));

/* Restores the previous handlers (at MPI_Finalize). */
void msc_fatal_uninstall(void) __attribute__((visibility("hidden")));

/* Runs the modules' emergency hooks once per process. */
void msc_fatal_emergency(int signum) __attribute__((visibility("hidden")));

/* Runs hook(signum) under a watchdog: if it has not returned after a few
 * seconds (a crash that happened inside malloc or stdio can leave a lock
 * held that the hook then waits for), it is abandoned, one line naming the
 * module goes to stderr, and the rank goes down as it would have. */
void msc_fatal_guarded(const char *module, void (*hook)(int signum), int signum)
    __attribute__((visibility("hidden")));

/* "signal 11 (SEGV)" or "MPI_Abort" (signum 0), for the modules' notes. */
void msc_fatal_reason(int signum, char *buf, size_t len) __attribute__((visibility("hidden")));

#endif
