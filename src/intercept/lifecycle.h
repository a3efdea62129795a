/* Private to mpiscope. The steps of MPI_Init*, MPI_Finalize and MPI_Pcontrol
 * that every language binding shares; lifecycle.c has the C wrappers, the
 * Fortran wrappers call the same steps around their own PMPI calls.
 */
#ifndef MSC_INTERCEPT_LIFECYCLE_H
#define MSC_INTERCEPT_LIFECYCLE_H

#include <stdbool.h>

#include "../core/call.h"

/* Before PMPI_Init*: settings, clock, this thread marked busy. */
void msc_lifecycle_init_begin(void) __attribute__((visibility("hidden")));
/* After PMPI_Init* returned `rc`: the tool starts if it succeeded. */
void msc_lifecycle_init_end(msc_fn_t fn, int rc, int provided) __attribute__((visibility("hidden")));
/* Before PMPI_Finalize: results written, recording stopped. */
void msc_lifecycle_finalize_begin(msc_fn_t fn, void *site) __attribute__((visibility("hidden")));
/* After PMPI_Finalize. */
void msc_lifecycle_finalize_end(void) __attribute__((visibility("hidden")));
/* True if MPI_Init* (fn) comes when MPI was initialized already, or
 * MPI_Finalize when MPI is not running: told to the check of calls outside
 * MPI unless the thread is busy; the caller then only calls PMPI. */
bool msc_lifecycle_misplaced(msc_fn_t fn, void *site) __attribute__((visibility("hidden")));
/* MPI_Init* or MPI_Finalize (fn) in a process that entered MPI through a
 * session (msc_g.solo, session.c): counted, and the world model is open or
 * closed; the last end of anything writes the results. Always true: the
 * caller then only calls PMPI. */
bool msc_session_world_call(msc_fn_t fn, void *site) __attribute__((visibility("hidden")));
/* MPI_Pcontrol(level) from any binding. */
void msc_lifecycle_pcontrol(int level) __attribute__((visibility("hidden")));

#endif
