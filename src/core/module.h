/* Private to mpiscope. The module interface: how profile, trace, MPI_T and
 * checks plug into the core.
 *
 * A module is one `msc_module_t` that registers itself from a constructor
 * with msc_module_register. The core never includes a module's header; it
 * calls the hooks below in registration order. Hooks run with the calling
 * thread's gate busy, so any MPI call a hook makes goes straight to the
 * library and is not recorded; a hook that needs to talk to other ranks uses
 * PMPI on msc_g.comm, never an application communicator.
 */
#ifndef MSC_CORE_MODULE_H
#define MSC_CORE_MODULE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "call.h"

/* How every constructor of the library is declared: before stack_scrub.c's,
 * which clears the stack they used (see there why). */
#define MSC_CONSTRUCTOR __attribute__((constructor(1000)))

#define MSC_MODULE_ABI 5 /* 2: due hooks; 3: nest hooks; 4: outer; 5: solo */

typedef struct msc_module {
    int abi;                          /* MSC_MODULE_ABI */
    const char *name;                 /* "profile", "trace", ... */
    const char *mode;                 /* the MPISCOPE_MODE word that enables it; NULL: always */
    /* After PMPI_Init, msc_g complete; collective over msc_g.comm. Return 0
     * to take part, or nonzero to be left out of this run (the module has
     * said why on stderr). `slot` indexes msc_thread_t.module_data. */
    int (*init)(int slot);
    void (*enter)(msc_call_t *c);     /* before the PMPI call, may be NULL */
    void (*leave)(msc_call_t *c);     /* after it, may be NULL */
    /* MPI_Pcontrol with level 2, or a level change; the calling thread is
     * registered (msc_tls.thread, NULL only if memory ran out). */
    void (*pcontrol)(int level);
    void (*finalize)(void);           /* before PMPI_Finalize; collective over msc_g.comm */
    /* The rank is going down without MPI_Finalize: a fatal signal (signum),
     * MPI_Abort (signum 0), or an exit without MPI_Finalize (MSC_FATAL_EXIT,
     * fatal.h). Write what this rank recorded so far, marked
     * incomplete, without collective operations and without taking locks
     * that the interrupted thread may hold. Called at most once, under the
     * core's watchdog (fatal.h: msc_fatal_guarded); may be NULL. */
    void (*emergency)(int signum);
    /* At entry of MPI_Init*, settings loaded, before PMPI_Init*: may use
     * MPI_T (which the standard allows before MPI_Init), nothing else of
     * MPI. Called for every module unless MPISCOPE_MODE is none; may be NULL. */
    void (*preinit)(void);
    /* Optional, for hooks whose work is wanted only at times (a started
     * MPI_T handle, a defined user region): the core calls enter (leave)
     * only while *enter_wanted (*leave_wanted) is nonzero; NULL: always.
     * A call that is not wanted costs nothing (the core keeps a mask of the
     * wanted hooks; after changing its word a module calls
     * msc_hooks_refresh). A hook may still run once just after its word
     * drops to zero, so it keeps its own checks. */
    const _Atomic int *enter_wanted, *leave_wanted;
    /* Optional, for work due at a time (periodic sampling) rather than on
     * every call: the core calls due(c) from the leave path of a call that
     * ends (c->t_leave) at or after *due_ns (ns, msc_now_ns; UINT64_MAX:
     * never), which costs the other calls one comparison. After moving its
     * *due_ns a module calls msc_hooks_refresh. More than one call may find
     * the same time due, so the hook keeps its own check. */
    void (*due)(msc_call_t *c);
    const _Atomic uint64_t *due_ns;
    /* Optional: called after enter, before the PMPI call, for a call whose
     * PMPI call may run the application's code (attribute callbacks, a user
     * reduction operation; wrapgen.py: CALLBACK_FUNCTIONS): the MPI calls that
     * code makes are recorded while this call is in flight, their leave
     * hooks before this call's. A module that writes a call's begin at leave
     * time (the trace's Enter) writes it here instead; c->opened tells its
     * leave hook so. The hooks run with the gate busy. */
    void (*nest)(msc_call_t *c);
    /* An outer module's enter hook runs before every other module's and its
     * leave hook after every other's, whatever the registration order: what
     * it decides before any module makes an MPI call of its own holds until
     * the last one is done (the check module's count of the threads inside
     * MPI: a hook that probes the library, as the unexpected-queue check
     * does, must not run before the check that two threads are in MPI at
     * once under MPI_THREAD_SERIALIZED). */
    bool outer;
    /* Works in a process that entered MPI through a session (msc_g.solo):
     * init and finalize make no collective (msc_g.comm is MPI_COMM_NULL),
     * finalize may be called again after a later re-initialization, and
     * what it writes is this process's alone. A module without it is left
     * out of such a process, which the core says once. */
    bool solo;
} msc_module_t;

/* Called from a constructor. Returns the module's slot, or -1 if full. */
int msc_module_register(const msc_module_t *m);

/* A module calls this after it changed its enter_wanted or leave_wanted word
 * or its due_ns (after MPI_Init; the core reads them then): wrappers test one
 * mask of all hooks and one time, which this recomputes from the words. */
void msc_hooks_refresh(void);

#endif
