/* Private to mpiscope. The life cycle of the tool inside one rank, driven by
 * the hand-written MPI_Init*, MPI_Finalize and MPI_Pcontrol wrappers, and the
 * table of active module hooks that generated wrappers call.
 */
#ifndef MSC_CORE_RUNTIME_H
#define MSC_CORE_RUNTIME_H

#include "module.h"
#include "state.h"

typedef struct {
    int n_enter, n_leave;
    void (*enter[MSC_MODULES_MAX])(msc_call_t *c);
    void (*leave[MSC_MODULES_MAX])(msc_call_t *c);
} msc_hooks_t;

extern msc_hooks_t msc_hooks MSC_INTERNAL;

/* Kinds whose calls create, start, free or complete requests. */
extern const unsigned char msc_kind_has_requests[MSC_KIND_COUNT] MSC_INTERNAL;

/* At entry of MPI_Init*: settings and clock, once per process. */
void msc_runtime_preinit(void) MSC_INTERNAL;

/* After PMPI_Init* succeeded: private communicator, output directory,
 * modules; then recording starts at level 1. */
void msc_runtime_init(int thread_provided) MSC_INTERNAL;

/* At entry of MPI_Finalize, MPI still usable: recording stops, modules write
 * their results, the private communicator is freed. */
void msc_runtime_finalize(void) MSC_INTERNAL;

/* The modules' emergency hooks (see fatal.h). */
void msc_runtime_emergency(int signum) MSC_INTERNAL;

/* MPI_Pcontrol(level). */
void msc_runtime_pcontrol(int level) MSC_INTERNAL;

#endif
