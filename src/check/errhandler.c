/* Errors only the MPI library sees (LOCAL:MPI_ERROR). Under the default
 * error handler, MPI_ERRORS_ARE_FATAL, an erroneous call (an invalid
 * handle, a message truncated by a receive that is too small) ends the job
 * inside the MPI library, before any hook of the tool runs again. So
 * wherever the handler in effect is MPI_ERRORS_ARE_FATAL (or MPI 4's
 * MPI_ERRORS_ABORT) the check module puts a handler of its own in its place:
 * on MPI_COMM_WORLD and MPI_COMM_SELF at init (communicators made from them
 * inherit it), on every window and file when it is made (their default
 * handlers, MPI_FILE_NULL's included), and whenever the application sets
 * one of the two. The handler records the error as a finding (MPI error
 * class and string, the function and its call site, written out at once),
 * then puts the original handler back on the object and calls it, so the job
 * ends exactly as it would have: the same handler, the same error code, the
 * same exit status. A handler the application set (MPI_ERRORS_RETURN, or
 * its own function) is left alone.
 *
 * The application never sees the substitute: MPI_*_get_errhandler gives
 * back the predefined handler the application had (a new reference, as MPI
 * gives, taken from a private communicator that holds it), and the
 * reference to the substitute that MPI handed out is released.
 *
 * Errors in the tool's own MPI calls (a hook querying a datatype the
 * application passed) reach the handler too; there it returns, so the
 * tool's call fails quietly and the application's own call then meets the
 * error itself. A call belongs to the application while its PMPI call runs
 * (between the check module's enter and leave hooks), or when the thread is
 * not inside any wrapper at all (recording switched off with
 * MPI_Pcontrol(0)).
 *
 * Limits: Fortran's MPI_*_get_errhandler returns the substitute's handle
 * (the Fortran wrapper converts its result before the hook runs); handlers
 * of objects made through the Sessions model are not replaced.
 */
#include <string.h>

#include "check.h"
#include "fatal.h"
#include "log.h"

enum { EH_COMM = 0, EH_WIN, EH_FILE, EH_KINDS };
enum { EH_FATAL = 0, EH_ABORT, EH_ORIGINS };

static MPI_Errhandler mine[EH_KINDS][EH_ORIGINS];
static bool ready;
static MPI_Comm fatal_holder = MPI_COMM_NULL; /* has MPI_ERRORS_ARE_FATAL: new references */

/* The application's call in progress on this thread, and the last call
 * of any thread (for an exit without MPI_Finalize). */
static CHK_TLS struct {
    msc_fn_t fn;
    void *site;
    bool in_app;
} cur;
static _Atomic(void *) last_site;
static _Atomic int last_fn = -1;

static MPI_Errhandler predefined(int origin)
{
#ifdef MPI_ERRORS_ABORT
    if (origin == EH_ABORT) return MPI_ERRORS_ABORT;
#endif
    (void)origin;
    return MPI_ERRORS_ARE_FATAL;
}

/* EH_FATAL / EH_ABORT if h is one of the handlers replaced, else -1. */
static int origin_of(MPI_Errhandler h)
{
    if (h == MPI_ERRORS_ARE_FATAL) return EH_FATAL;
#ifdef MPI_ERRORS_ABORT
    if (h == MPI_ERRORS_ABORT) return EH_ABORT;
#endif
    return -1;
}

/* Which substitute h is, as (kind, origin); false if none. */
static bool is_mine(MPI_Errhandler h, int *origin)
{
    for (int k = 0; ready && k < EH_KINDS; k++)
        for (int o = 0; o < EH_ORIGINS; o++)
            if (mine[k][o] != MPI_ERRHANDLER_NULL && h == mine[k][o]) {
                *origin = o;
                return true;
            }
    return false;
}

static const char *const kind_word[EH_KINDS] = {"communicator", "window", "file"};

static void on_error(int kind, int origin, void *obj, int *code)
{
    bool busy = atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) & MSC_GATE_BUSY;
    if (!cur.in_app && busy) return; /* the tool's own call: it gets the error code */
    int cls = 0, len = 0;
    char str[MPI_MAX_ERROR_STRING] = "";
    PMPI_Error_class(*code, &cls);
    PMPI_Error_string(*code, str, &len);
    msc_fn_t fn = cur.in_app ? cur.fn : MSC_FN_COUNT;
    void *site = cur.in_app ? cur.site : NULL;
    chk_report("LOCAL:MPI_ERROR", fn, site,
               "%s failed: MPI error class %d, \"%s\". The %s's error handler is %s, so MPI "
               "ends the job here; this finding was recorded first. Check the arguments of "
               "this call (handles, counts, buffer sizes against the messages they receive); "
               "to handle errors yourself, set MPI_ERRORS_RETURN and check return codes.",
               fn < MSC_FN_COUNT ? msc_fn_name[fn] : "An MPI call", cls, str, kind_word[kind],
               origin == EH_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
    /* What would have happened: the original handler, called on the same
     * object with the same code. */
    msc_fatal_emergency(0);
    MPI_Errhandler orig = predefined(origin);
    if (kind == EH_COMM) {
        MPI_Comm c = *(MPI_Comm *)obj;
        PMPI_Comm_set_errhandler(c, orig);
        PMPI_Comm_call_errhandler(c, *code);
        PMPI_Abort(c, *code);
    } else if (kind == EH_WIN) {
        MPI_Win w = *(MPI_Win *)obj;
        PMPI_Win_set_errhandler(w, orig);
        PMPI_Win_call_errhandler(w, *code);
    } else {
        MPI_File f = *(MPI_File *)obj;
        PMPI_File_set_errhandler(f, orig);
        /* A failed MPI_File_open raises on MPI_FILE_NULL, on which
         * MPI_File_call_errhandler is itself an error: the same predefined
         * handler is called through a communicator instead. */
        if (f != MPI_FILE_NULL) PMPI_File_call_errhandler(f, *code);
        MPI_Comm c = chk_shadow_of(MPI_COMM_SELF);
        if (c != MPI_COMM_NULL) {
            PMPI_Comm_set_errhandler(c, orig);
            PMPI_Comm_call_errhandler(c, *code);
        }
    }
    PMPI_Abort(MPI_COMM_WORLD, *code);
}

static void comm_fatal(MPI_Comm *c, int *code, ...) { on_error(EH_COMM, EH_FATAL, c, code); }
static void comm_abort(MPI_Comm *c, int *code, ...) { on_error(EH_COMM, EH_ABORT, c, code); }
static void win_fatal(MPI_Win *w, int *code, ...) { on_error(EH_WIN, EH_FATAL, w, code); }
static void win_abort(MPI_Win *w, int *code, ...) { on_error(EH_WIN, EH_ABORT, w, code); }
static void file_fatal(MPI_File *f, int *code, ...) { on_error(EH_FILE, EH_FATAL, f, code); }
static void file_abort(MPI_File *f, int *code, ...) { on_error(EH_FILE, EH_ABORT, f, code); }

/* The handler an object has now; if it is one to replace, the substitute. */
static void replace_comm(MPI_Comm c)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (!ready || c == MPI_COMM_NULL || PMPI_Comm_get_errhandler(c, &h) != MPI_SUCCESS) return;
    int o = origin_of(h);
    if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
    if (o >= 0) PMPI_Comm_set_errhandler(c, mine[EH_COMM][o]);
}

static void replace_win(MPI_Win w)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (!ready || w == MPI_WIN_NULL || PMPI_Win_get_errhandler(w, &h) != MPI_SUCCESS) return;
    int o = origin_of(h);
    if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
    if (o >= 0) PMPI_Win_set_errhandler(w, mine[EH_WIN][o]);
}

static void replace_file(MPI_File f)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (!ready || PMPI_File_get_errhandler(f, &h) != MPI_SUCCESS) return;
    int o = origin_of(h);
    if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
    if (o >= 0) PMPI_File_set_errhandler(f, mine[EH_FILE][o]);
}

void chk_eh_init(void)
{
    for (int k = 0; k < EH_KINDS; k++)
        for (int o = 0; o < EH_ORIGINS; o++) mine[k][o] = MPI_ERRHANDLER_NULL;
    bool ok = PMPI_Comm_create_errhandler(comm_fatal, &mine[EH_COMM][EH_FATAL]) == MPI_SUCCESS &&
              PMPI_Win_create_errhandler(win_fatal, &mine[EH_WIN][EH_FATAL]) == MPI_SUCCESS &&
              PMPI_File_create_errhandler(file_fatal, &mine[EH_FILE][EH_FATAL]) == MPI_SUCCESS;
#ifdef MPI_ERRORS_ABORT
    ok = ok && PMPI_Comm_create_errhandler(comm_abort, &mine[EH_COMM][EH_ABORT]) == MPI_SUCCESS &&
         PMPI_Win_create_errhandler(win_abort, &mine[EH_WIN][EH_ABORT]) == MPI_SUCCESS &&
         PMPI_File_create_errhandler(file_abort, &mine[EH_FILE][EH_ABORT]) == MPI_SUCCESS;
#else
    (void)comm_abort, (void)win_abort, (void)file_abort;
#endif
    if (ok && (fatal_holder = chk_shadow_of(MPI_COMM_SELF)) != MPI_COMM_NULL)
        ok = PMPI_Comm_set_errhandler(fatal_holder, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS;
    if (!ok) {
        msc_warn_once("check-errhandler", "check: cannot create error handlers; errors that MPI "
                                          "reports under MPI_ERRORS_ARE_FATAL are not recorded");
        return;
    }
    ready = true;
    replace_comm(MPI_COMM_WORLD);
    replace_comm(MPI_COMM_SELF);
    replace_file(MPI_FILE_NULL);
}

void chk_eh_finalize(void)
{
    ready = false;
    if (fatal_holder != MPI_COMM_NULL) PMPI_Comm_free(&fatal_holder);
    /* The substitutes stay on their objects, and are not freed: MPICH's
     * ROMIO releases the handler of MPI_FILE_NULL in its own finalization
     * without having taken a reference, and would find a freed one. */
}

void chk_eh_enter(const msc_call_t *c)
{
    cur.fn = c->fn;
    cur.site = c->site;
    cur.in_app = true;
    atomic_store_explicit(&last_site, c->site, memory_order_relaxed);
    atomic_store_explicit(&last_fn, (int)c->fn, memory_order_relaxed);
}

bool chk_eh_in_call(void)
{
    return cur.in_app;
}

void chk_eh_last_call(msc_fn_t *fn, void **site)
{
    int f = atomic_load_explicit(&last_fn, memory_order_relaxed);
    *fn = f < 0 ? MSC_FN_COUNT : (msc_fn_t)f;
    *site = atomic_load_explicit(&last_site, memory_order_relaxed);
}

/* What get_errhandler gave: the substitute becomes the application's own. */
static void give_back(MPI_Errhandler *out)
{
    int o;
    if (!out || !is_mine(*out, &o)) return;
    PMPI_Errhandler_free(out);
    MPI_Errhandler h = predefined(o);
    if (o == EH_FATAL && fatal_holder != MPI_COMM_NULL &&
        PMPI_Comm_get_errhandler(fatal_holder, &h) != MPI_SUCCESS)
        h = predefined(o);
    *out = h;
}

void chk_eh_leave(const msc_call_t *c)
{
    cur.in_app = false;
    if (c->kind != MSC_KIND_OTHER && c->kind != MSC_KIND_HANDLE_NEW) return;
    if (!ready || c->rc != MPI_SUCCESS) return;
    /* MPI-1's MPI_Errhandler_set/get (removed in MPI-3.0) have no MSC_FN_
     * constant where the library does not export them: found by name. */
    static long eh_set = -2, eh_get = -2;
    if (eh_set == -2) eh_set = msc_fn_lookup("MPI_Errhandler_set"), eh_get = msc_fn_lookup("MPI_Errhandler_get");
    if ((long)c->fn == eh_set) {
        replace_comm(c->comm);
        return;
    }
    if ((long)c->fn == eh_get) {
        if (c->lang == MSC_LANG_C) give_back((MPI_Errhandler *)c->obj);
        return;
    }
    switch (c->fn) {
    case MSC_FN_MPI_Comm_set_errhandler: replace_comm(c->comm); break;
    case MSC_FN_MPI_Win_set_errhandler: replace_win(c->win); break;
    case MSC_FN_MPI_File_set_errhandler: replace_file(c->file); break;
    case MSC_FN_MPI_Comm_get_errhandler:
    case MSC_FN_MPI_Win_get_errhandler:
    case MSC_FN_MPI_File_get_errhandler:
        if (c->lang == MSC_LANG_C) give_back((MPI_Errhandler *)c->obj);
        break;
    default:
        if (c->kind == MSC_KIND_HANDLE_NEW && c->obj && c->obj_class == MSC_OBJ_WIN)
            replace_win(*(MPI_Win *)c->obj);
        else if (c->kind == MSC_KIND_HANDLE_NEW && c->obj && c->obj_class == MSC_OBJ_FILE)
            replace_file(*(MPI_File *)c->obj);
        break;
    }
}
