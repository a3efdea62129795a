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
 * module gave none). A wrapper reads only the masks: bit i is set while
 * hook i's word is nonzero (msc_hooks_refresh), so that hooks not wanted
 * cost nothing per call, however many there are. */
typedef struct {
    _Atomic unsigned enter_mask, leave_mask;
    _Atomic uint64_t due_ns;     /* ns, the earliest of the modules' *due_ns */
    int n_enter, n_leave, n_due;
    void (*enter[MSC_MODULES_MAX])(msc_call_t *c);
    void (*leave[MSC_MODULES_MAX])(msc_call_t *c);
    const _Atomic int *enter_wanted[MSC_MODULES_MAX];
    const _Atomic int *leave_wanted[MSC_MODULES_MAX];
    void (*due[MSC_MODULES_MAX])(msc_call_t *c);
    const _Atomic uint64_t *due_word[MSC_MODULES_MAX];
    int n_nest;
    void (*nest[MSC_MODULES_MAX])(msc_call_t *c);
} msc_hooks_t;

extern msc_hooks_t msc_hooks MSC_INTERNAL;

/* The nest hooks (module.h), from msc_call_open (wrap.h). */
void msc_hooks_nest(msc_call_t *c) MSC_INTERNAL;

/* The due hooks of the modules whose time has come (module.h: due). */
void msc_hooks_due(msc_call_t *c) MSC_INTERNAL;

/* Kinds whose calls create, start, free or complete requests. Inline, so
 * that a wrapper (whose kind is a constant) tests nothing at run time. */
static inline bool msc_kind_has_requests(msc_kind_t kind)
{
    switch (kind) {
    case MSC_KIND_ISEND: case MSC_KIND_IRECV: case MSC_KIND_SEND_INIT: case MSC_KIND_RECV_INIT:
    case MSC_KIND_IMRECV: case MSC_KIND_ICOLL: case MSC_KIND_COLL_INIT: case MSC_KIND_WAIT:
    case MSC_KIND_TEST:
    case MSC_KIND_WAITANY: case MSC_KIND_TESTANY: case MSC_KIND_WAITALL: case MSC_KIND_TESTALL:
    case MSC_KIND_WAITSOME: case MSC_KIND_TESTSOME: case MSC_KIND_START: case MSC_KIND_STARTALL:
    case MSC_KIND_REQUEST_FREE: case MSC_KIND_IO_IREAD: case MSC_KIND_IO_IWRITE:
    case MSC_KIND_RMA_RPUT: case MSC_KIND_RMA_RGET: case MSC_KIND_RMA_RACC: case MSC_KIND_ICOMM:
    case MSC_KIND_ISENDRECV:
        return true;
    default:
        return false;
    }
}

/* At entry of MPI_Init*: settings and clock, once per process. */
void msc_runtime_preinit(void) MSC_INTERNAL;

/* After PMPI_Init* succeeded: private communicator, output directory,
 * modules; then recording starts at level 1. */
void msc_runtime_init(int thread_provided) MSC_INTERNAL;

/* After the process's first PMPI_Session_init succeeded (session.c): its
 * rank and size in the world (the mpi://WORLD process set, whose group
 * `world` the core keeps until msc_runtime_world_group changes it), the
 * output directory and the modules that work solo (module.h), with no
 * collective; then recording starts. */
void msc_runtime_init_solo(int rank, int size, MPI_Group world, int thread_provided) MSC_INTERNAL;

/* A solo process initialized a session again after its last one ended
 * (MPI-4.0 §11.3 allows it): recording resumes, and the next end of its
 * last session writes again what it recorded, from the beginning. */
void msc_runtime_resume_solo(void) MSC_INTERNAL;

/* At entry of MPI_Finalize, MPI still usable: recording stops, modules write
 * their results, the private communicator is freed. */
void msc_runtime_finalize(void) MSC_INTERNAL;

/* The modules' emergency hooks (see fatal.h). */
void msc_runtime_emergency(int signum) MSC_INTERNAL;

/* An MPI call made before MPI_Init or after MPI_Finalize (phase BEFORE_INIT
 * or DONE), from the first-call branch of msc_call_begin (wrap.h), or an
 * MPI_Init* or MPI_Finalize whose phase is wrong (a second MPI_Init, one
 * after MPI_Finalize, a second MPI_Finalize: the hand-written wrappers,
 * lifecycle.c), before the call goes on to PMPI unchanged. Hands it with the
 * phase (msc_phase_t) to msc_outside_hook, which the check module sets from
 * its constructor; nothing else happens. The hook must not call MPI. */
void msc_runtime_outside(msc_fn_t fn, void *site) MSC_INTERNAL;
extern void (*msc_outside_hook)(msc_fn_t fn, void *site, int phase) MSC_INTERNAL;

/* MPI_Pcontrol(level). */
void msc_runtime_pcontrol(int level) MSC_INTERNAL;

#endif
