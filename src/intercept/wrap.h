/* Private to mpiscope. The inline helpers every generated wrapper is made of.
 *
 * A wrapper reads:
 *     if (msc_gate_closed()) return PMPI_X(args);          // off: one TLS load, one test
 *     msc_tls.site = return address;
 *     return msc_rec_X(args);                              // same parameters: a jump
 * (MSC_THUNK below on x86-64) and its recording path msc_rec_X:
 *     msc_call_t c;
 *     if (!msc_call_begin(&c, FN, KIND, LANG, msc_tls.site)) return PMPI_X(args);
 *     ... role assignments from functions.txt ...
 *     msc_call_enter(&c);
 *     rc = PMPI_X(args);
 *     msc_call_leave(&c, rc);                              // msc_call_done(&c, rc, FN, KIND)
 *     return rc;
 * The helpers are always inlined into the recording path: per recorded call
 * the core costs stores into the record, two clock reads and one indirect
 * call per wanted hook (a mask, runtime.h), nothing else.
 * msc_call_begin registers a thread on its first call and marks it busy, so
 * that MPI calls made inside the MPI library or by the modules pass straight
 * through. msc_call_leave clears busy and re-reads the process-wide level
 * (see state.h for why this makes racing MPI_Pcontrol calls safe). A thread
 * is unregistered before MPI_Init (and the finalizing thread again after
 * MPI_Finalize): its calls take the first-call branch of msc_call_begin,
 * which hands them to msc_runtime_outside; the paths of calls made while MPI
 * runs, recorded or not, are unchanged.
 */
#ifndef MSC_INTERCEPT_WRAP_H
#define MSC_INTERCEPT_WRAP_H

#include <stddef.h>

#include "../core/call.h"
#include "../core/clock.h"
#include "../core/fatal.h"
#include "../core/runtime.h"
#include "../core/state.h"

#define MSC_CALLER() __builtin_extract_return_addr(__builtin_return_address(0))

static inline int msc_gate_closed(void)
{
    return atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) != 0;
}

/* The exported C wrapper of `name` on x86-64 (ELF, SysV ABI): the gate test
 * and two jumps, with every argument left where the caller put it (registers
 * and stack), which GCC does not manage in C for functions with more than six
 * parameters. Gate clear: the return address goes to msc_tls.site and the
 * recording path msc_rec_<name> (same parameters) takes over; gate set:
 * P<name>. It uses only %rax and %r11, which carry no argument. Under
 * ThreadSanitizer the C form (wrapgen.py) is used, so that the gate load is
 * seen as the atomic it is. */
#if defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_THREAD__)
#define MSC_ASM_THUNKS 1
_Static_assert(offsetof(msc_tls_t, gate) == 0 && sizeof(unsigned) == 4 &&
                   offsetof(msc_tls_t, site) == 16,
               "MSC_THUNK's offsets into msc_tls");
#define MSC_THUNK(name)                                                                 \
    __asm__(".pushsection .text\n\t.p2align 4\n\t.globl " #name "\n\t"                 \
            ".type " #name ", @function\n" #name ":\n\t"                                \
            "movq msc_tls@gottpoff(%rip), %rax\n\t"                                    \
            "cmpl $0, %fs:(%rax)\n\t"                                                  \
            "jne 1f\n\t"                                                               \
            "movq (%rsp), %r11\n\t"                                                    \
            "movq %r11, %fs:16(%rax)\n\t"                                              \
            "jmp msc_rec_" #name "\n"                                                  \
            "1:\tjmp *P" #name "@GOTPCREL(%rip)\n\t"                                   \
            ".size " #name ", .-" #name "\n\t.popsection")
#else
#define MSC_ASM_THUNKS 0
#endif

static MSC_HOT int msc_call_begin(msc_call_t *c, msc_fn_t fn, msc_kind_t kind, msc_lang_t lang,
                                  void *site)
{
    msc_thread_t *t = msc_tls.thread;
    if (MSC_UNLIKELY(!t)) {
        /* Before MPI_Init and after MPI_Finalize a thread stays unregistered
         * with its gate open, so that its calls come here (and only here) for
         * the check of calls made outside MPI (runtime.h). */
        int phase = atomic_load_explicit(&msc_g.phase, memory_order_acquire);
        if (phase == MSC_PHASE_BEFORE_INIT || phase == MSC_PHASE_DONE) {
            msc_runtime_outside(fn, site);
            return 0;
        }
        t = msc_thread_attach();
        if (!t || atomic_load_explicit(&msc_tls.gate, memory_order_relaxed)) return 0;
    }
    atomic_store_explicit(&msc_tls.gate, MSC_GATE_BUSY, memory_order_relaxed);
    c->fn = fn;
    c->kind = kind;
    c->lang = lang;
    c->site = site;
    c->thread = t;
    c->ndone = 0;
    c->req_id = 0;
    c->opened = 0;
    return 1;
}

/* The hooks of the bits set in m, in order. Each slot has a call
 * instruction of its own, so that every indirect call always goes to the same
 * hook: one call site taking turns between two hooks is harder to predict,
 * and the bit tests cost less than finding the next bit. */
static MSC_HOT void msc_hooks_call(void (*const *hook)(msc_call_t *), unsigned m, msc_call_t *c)
{
    _Static_assert(MSC_MODULES_MAX == 8, "one line per module slot");
    if (m & 1u) hook[0](c);
    if (m & 2u) hook[1](c);
    if (m & 4u) hook[2](c);
    if (m & 8u) hook[3](c);
    if (MSC_UNLIKELY(m & 0xf0u)) {
        if (m & 16u) hook[4](c);
        if (m & 32u) hook[5](c);
        if (m & 64u) hook[6](c);
        if (m & 128u) hook[7](c);
    }
}

static MSC_HOT void msc_call_enter(msc_call_t *c)
{
    unsigned m = atomic_load_explicit(&msc_hooks.enter_mask, memory_order_relaxed);
    if (MSC_UNLIKELY(m)) msc_hooks_call(msc_hooks.enter, m, c);
    c->t_enter = msc_now_ns();
}

/* msc_call_leave with the function and kind as constants (generated C
 * wrappers), so that the compiler folds what depends on them instead of
 * reading them back from the record after the hooks had it. */
static MSC_HOT void msc_call_done(msc_call_t *c, int rc, msc_fn_t fn, msc_kind_t kind)
{
    c->t_leave = msc_now_ns();
    c->rc = rc;
    c->thread->calls[fn]++;
    if (MSC_UNLIKELY(fn == MSC_FN_MPI_Type_free)) msc_types_forget();
    if (msc_kind_has_requests(kind)) msc_requests_leave(c);
    unsigned m = atomic_load_explicit(&msc_hooks.leave_mask, memory_order_relaxed);
    if (m) msc_hooks_call(msc_hooks.leave, m, c);
    if (MSC_UNLIKELY(c->t_leave >= atomic_load_explicit(&msc_hooks.due_ns, memory_order_relaxed)))
        msc_hooks_due(c);
    msc_gate_release();
}

static MSC_HOT void msc_call_leave(msc_call_t *c, int rc)
{
    msc_call_done(c, rc, c->fn, c->kind);
}

/* Around the PMPI call of a function that may run the application's code
 * (attribute callbacks, user reduction operations, error handlers called by
 * MPI_*_call_errhandler; wrapgen.py chooses them): msc_call_open, after
 * msc_call_enter, runs the modules' nest hooks and opens this thread's gate,
 * so that the MPI calls of that code are recorded (nested in this call);
 * msc_call_shut closes it again when PMPI returns, before the leave hooks.
 * A nested call leaves the gate open behind it (msc_gate_release), as it
 * found it. Only the recording path of these functions pays for it. */
static inline void msc_call_open(msc_call_t *c)
{
    c->opened = 1;
    msc_hooks_nest(c);
    msc_gate_release();
}

static MSC_HOT void msc_call_shut(void)
{
    atomic_store_explicit(&msc_tls.gate, MSC_GATE_BUSY, memory_order_relaxed);
}

/* Whether a reduction's operation may be the application's function: any
 * operation but the predefined ones. MPI_SUM, the usual one, is tested on
 * its own and the rest out of line: GCC turns the chain of tests into one
 * compare and flag per operation without a branch, about 45 instructions
 * per call where the handles are addresses (Open MPI), and merges a test of
 * MPI_SUM ahead of it back into the chain. */
static __attribute__((noinline, unused)) int msc_op_is_user_other(MPI_Op op)
{
    return op != MPI_PROD && op != MPI_MAX && op != MPI_MIN &&
           op != MPI_LAND && op != MPI_LOR && op != MPI_LXOR && op != MPI_BAND &&
           op != MPI_BOR && op != MPI_BXOR && op != MPI_MAXLOC && op != MPI_MINLOC &&
           op != MPI_REPLACE && op != MPI_NO_OP && op != MPI_OP_NULL;
}

static inline int msc_op_is_user(MPI_Op op)
{
    return MSC_LIKELY(op == MPI_SUM) ? 0 : msc_op_is_user_other(op);
}

/* Stand-in status when the caller passed MPI_STATUS_IGNORE. */
#define MSC_STATUS(c, status, storage)                                 \
    do {                                                               \
        if ((status) == MPI_STATUS_IGNORE) (status) = &(storage);      \
        (c).status = (status);                                         \
    } while (0)

/* Stand-in status array for MPI_STATUSES_IGNORE and a copy of the request
 * handles as they were before a completion call overwrites them. */
/* `statuses` is NULL for functions without a status array (MPI_Startall). If
 * memory for the copies runs out, reqs_in (and the stand-in statuses) stay
 * NULL and modules do without. */
static inline void msc_requests_in(msc_call_t *c, int n, MPI_Request *reqs, MPI_Status **statuses)
{
    c->nreq = n;
    c->requests = reqs;
    c->reqs_in = NULL;
    c->statuses = NULL;
    if (statuses && *statuses != MPI_STATUSES_IGNORE) c->statuses = *statuses;
    if (n <= 0 || !reqs || !msc_thread_scratch(c->thread, n)) return;
    for (int i = 0; i < n; i++) c->thread->scratch_req[i] = reqs[i];
    c->reqs_in = c->thread->scratch_req;
    if (statuses && *statuses == MPI_STATUSES_IGNORE)
        *statuses = c->statuses = c->thread->scratch_status;
}

#endif
