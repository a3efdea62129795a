/* Private to mpiscope. The life cycle of the tool inside one rank, driven by
 * the hand-written MPI_Init*, MPI_Finalize and MPI_Pcontrol wrappers, and the
 * table of active module hooks that generated wrappers call.
 */
#ifndef MSC_CORE_RUNTIME_H
#define MSC_CORE_RUNTIME_H

#include "module.h"
#include "state.h"

/* The active modules' hooks, each with the word that says whether it is
 * wanted now (msc_module_t.enter_wanted; a word that is always 1 when the
 * module gave none). */
typedef struct {
    int n_enter, n_leave;
    void (*enter[MSC_MODULES_MAX])(msc_call_t *c);
    void (*leave[MSC_MODULES_MAX])(msc_call_t *c);
    const _Atomic int *enter_wanted[MSC_MODULES_MAX];
    const _Atomic int *leave_wanted[MSC_MODULES_MAX];
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

/* An MPI call made before MPI_Init or after MPI_Finalize (phase BEFORE_INIT
 * or DONE), from the first-call branch of msc_call_begin (wrap.h), before the
 * call goes on to PMPI unchanged. Hands it to msc_outside_hook, which the
 * check module sets from its constructor; nothing else happens. The hook must
 * not call MPI. */
void msc_runtime_outside(msc_fn_t fn, void *site) MSC_INTERNAL;
extern void (*msc_outside_hook)(msc_fn_t fn, void *site, bool after_finalize) MSC_INTERNAL;

/* MPI_Pcontrol(level). */
void msc_runtime_pcontrol(int level) MSC_INTERNAL;

#endif
