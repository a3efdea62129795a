/* Hand-written wrappers of MPI-4's sessions (MPI_Session_init,
 * MPI_Session_finalize) and the bookkeeping of the ways a process is inside
 * MPI, which MPI-4 made several: the world model (MPI_Init* ...
 * MPI_Finalize) and any number of sessions, each of which may begin and end
 * again (MPI-4.0 §11.3).
 *
 * The tool starts at the process's first initialization of either kind.
 * Begun by MPI_Init*, it is the world model's tool of lifecycle.c: sessions
 * opened later are recorded calls and change nothing. Begun by
 * MPI_Session_init, the process is solo (state.h): its rank and size come
 * from the group of the mpi://WORLD process set, kept for translating ranks
 * (and taken again from a session still open when the one it came from
 * ends), no collective is made, and what the process recorded is written
 * when its last session and world model have ended: the modules' finalize
 * runs then, before the PMPI call that ends the last one. A later
 * MPI_Session_init resumes recording (msc_runtime_resume_solo), and the next
 * end writes again. MPI_Init* and MPI_Finalize inside a solo process are
 * recorded calls that open and close the world model; only a second
 * MPI_Init or an MPI_Finalize without one is handed to the check of calls
 * outside MPI.
 *
 * The session wrappers exist where mpi.h declares sessions (MPI_VERSION 4:
 * MPICH 4; Open MPI 4.1 has none), for C and for MPICH's mpi_f08 (whose
 * calls do not reach the C functions); one body serves both. The open sessions are few and change
 * rarely: a small array under a mutex.
 */
#include <pthread.h>
#include <string.h>

#include "../core/log.h"
#include "lifecycle.h"
#include "wrap.h"

#define MSC_API __attribute__((visibility("default")))

static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;
static bool world_open; /* MPI_Init* inside a solo process, not yet MPI_Finalize */

/* Counts a call of a hand-written wrapper that changes nothing else. */
static void count_call(msc_fn_t fn)
{
    msc_thread_t *t = msc_tls.thread;
    if (t && msc_recording_on()) t->calls[fn]++;
}

#if MPI_VERSION >= 4

enum { MAX_SESSIONS = 256 };
static MPI_Session open_sessions[MAX_SESSIONS];
static int n_open;
static MPI_Session group_source = MPI_SESSION_NULL; /* where msc_g.world_group came from */

static void session_add(MPI_Session s)
{
    pthread_mutex_lock(&models_lock);
    if (n_open < MAX_SESSIONS)
        open_sessions[n_open++] = s;
    else
        msc_warn_once("sessions", "more than %d sessions open at once: the end of the last "
                                  "one may not be seen, and the profile not written",
                      MAX_SESSIONS);
    pthread_mutex_unlock(&models_lock);
}

/* The group of the mpi://WORLD process set of `s`, its rank and size. */
static bool world_of(MPI_Session s, MPI_Group *g, int *rank, int *size)
{
    if (PMPI_Group_from_session_pset(s, "mpi://WORLD", g) != MPI_SUCCESS) return false;
    PMPI_Group_rank(*g, rank);
    PMPI_Group_size(*g, size);
    return true;
}

/* The thread level the session gives (its info's mpi_thread_support_level). */
static int session_thread_level(MPI_Session s)
{
    MPI_Info info = MPI_INFO_NULL;
    int level = MPI_THREAD_SINGLE, flag = 0;
    char value[64] = "";
    if (PMPI_Session_get_info(s, &info) != MPI_SUCCESS || info == MPI_INFO_NULL) return level;
    int len = (int)sizeof value - 1;
    PMPI_Info_get_string(info, "mpi_thread_support_level", &len, value, &flag);
    PMPI_Info_free(&info);
    if (!flag) return level;
    if (strstr(value, "MULTIPLE")) return MPI_THREAD_MULTIPLE;
    if (strstr(value, "SERIALIZED")) return MPI_THREAD_SERIALIZED;
    if (strstr(value, "FUNNELED")) return MPI_THREAD_FUNNELED;
    return level;
}

/* The session `s` ends: forgets it and, if the world's group came from it,
 * frees that group (before the session goes) and takes it from another open
 * session. True if nothing of MPI stays open. */
static bool session_remove(MPI_Session s)
{
    pthread_mutex_lock(&models_lock);
    for (int i = 0; i < n_open; i++)
        if (open_sessions[i] == s) {
            open_sessions[i] = open_sessions[--n_open];
            break;
        }
    if (group_source == s && msc_g.world_group != MPI_GROUP_NULL) {
        PMPI_Group_free(&msc_g.world_group);
        group_source = MPI_SESSION_NULL;
        int rank, size;
        if (n_open && world_of(open_sessions[0], &msc_g.world_group, &rank, &size))
            group_source = open_sessions[0];
    }
    bool last = n_open == 0 && !world_open;
    pthread_mutex_unlock(&models_lock);
    return last;
}

/* The MPI call that begins a session, as the C or the Fortran binding
 * makes it: returns its error code and sets *out to the new session. */
typedef int (*session_begin_t)(void *args, MPI_Session *out);
typedef int (*session_end_t)(void *args);

static int session_init_via(session_begin_t begin, void *args)
{
    MPI_Session session = MPI_SESSION_NULL;
    int phase = atomic_load(&msc_g.phase);
    bool first = phase == MSC_PHASE_BEFORE_INIT, again = msc_g.solo && phase == MSC_PHASE_DONE;
    if (!first && !again) {
        /* Another session: in the world model a call like any other; in a
         * solo process one more thing to end before the results are written. */
        int rc = begin(args, &session);
        if (rc == MPI_SUCCESS && msc_g.solo) session_add(session);
        count_call(MSC_FN_MPI_Session_init);
        return rc;
    }
    msc_lifecycle_init_begin();
    int rc = begin(args, &session);
    if (rc == MPI_SUCCESS) {
        MPI_Group g;
        int rank = 0, size = 1;
        if (!world_of(session, &g, &rank, &size)) {
            msc_warn_once("session-world", "the MPI gives no mpi://WORLD process set to this "
                                           "session; mpiscope records nothing in this process");
        } else {
            session_add(session);
            if (first) {
                group_source = session;
                msc_runtime_init_solo(rank, size, g, session_thread_level(session));
            } else {
                pthread_mutex_lock(&models_lock);
                msc_g.world_group = g;
                group_source = session;
                pthread_mutex_unlock(&models_lock);
                msc_runtime_resume_solo();
            }
            count_call(MSC_FN_MPI_Session_init);
        }
    }
    msc_gate_release();
    return rc;
}

/* `s`: the session the call `end` ends. */
static int session_finalize_via(MPI_Session s, session_end_t end, void *args, void *site)
{
    if (!msc_g.solo || atomic_load(&msc_g.phase) != MSC_PHASE_RUNNING || !session_remove(s)) {
        count_call(MSC_FN_MPI_Session_finalize);
        return end(args);
    }
    msc_lifecycle_finalize_begin(MSC_FN_MPI_Session_finalize, site);
    int rc = end(args);
    msc_lifecycle_finalize_end();
    return rc;
}

typedef struct {
    MPI_Info info;
    MPI_Errhandler errhandler;
    MPI_Session *session;
} c_init_args_t;

static int c_begin(void *args, MPI_Session *out)
{
    c_init_args_t *a = args;
    int rc = PMPI_Session_init(a->info, a->errhandler, a->session);
    *out = *a->session;
    return rc;
}

static int c_end(void *args)
{
    return PMPI_Session_finalize(args);
}

MSC_API int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    c_init_args_t a = {info, errhandler, session};
    return session_init_via(c_begin, &a);
}

MSC_API int MPI_Session_finalize(MPI_Session *session)
{
    return session_finalize_via(*session, c_end, session, MSC_CALLER());
}

#if defined(MPICH_VERSION)
/* MPICH's mpi_f08 layer begins and ends sessions through PMPI_ directly
 * (as it does MPI_Init), so its linker names are wrapped here and call
 * MPICH's own profiling names; its mpif.h and `use mpi` layers call the C
 * functions above. Arguments by reference: TYPE(MPI_Info) and the other
 * handles are one INTEGER; ierror is optional (NULL when absent). */
void pmpir_session_init_f08_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session,
                             MPI_Fint *ierror);
void pmpir_session_finalize_f08_(MPI_Fint *session, MPI_Fint *ierror);

typedef struct {
    MPI_Fint *info, *errhandler, *session, *ierror;
} f08_args_t;

static int f08_begin(void *args, MPI_Session *out)
{
    f08_args_t *a = args;
    pmpir_session_init_f08_(a->info, a->errhandler, a->session, a->ierror);
    *out = PMPI_Session_f2c(*a->session);
    return *a->ierror;
}

static int f08_end(void *args)
{
    f08_args_t *a = args;
    pmpir_session_finalize_f08_(a->session, a->ierror);
    return *a->ierror;
}

MSC_API void mpi_session_init_f08_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session,
                                   MPI_Fint *ierror)
{
    MPI_Fint ierr = MPI_SUCCESS;
    f08_args_t a = {info, errhandler, session, ierror ? ierror : &ierr};
    session_init_via(f08_begin, &a);
}

MSC_API void mpi_session_finalize_f08_(MPI_Fint *session, MPI_Fint *ierror)
{
    MPI_Fint ierr = MPI_SUCCESS;
    f08_args_t a = {NULL, NULL, session, ierror ? ierror : &ierr};
    session_finalize_via(PMPI_Session_f2c(*session), f08_end, &a, MSC_CALLER());
}
#endif /* MPICH_VERSION */

#endif /* MPI_VERSION >= 4 */

bool msc_session_world_call(msc_fn_t fn, void *site)
{
    bool finalize = fn == MSC_FN_MPI_Finalize;
    pthread_mutex_lock(&models_lock);
    bool wrong = finalize ? !world_open : world_open;
    if (!wrong) world_open = !finalize;
    bool last = false;
#if MPI_VERSION >= 4
    last = finalize && !wrong && n_open == 0;
#endif
    pthread_mutex_unlock(&models_lock);
    int phase = atomic_load(&msc_g.phase);
    if (wrong || phase != MSC_PHASE_RUNNING) {
        /* After the last end the process is outside MPI again, as MPI-4 has
         * it: an MPI_Init there opens the world model, unrecorded. */
        if (wrong && !(atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) & MSC_GATE_BUSY))
            msc_runtime_outside(fn, site);
        return true;
    }
    if (last) {
        /* The world model was the last thing open: the results now, while
         * MPI runs; the caller's PMPI_Finalize follows. */
        msc_lifecycle_finalize_begin(fn, site);
        msc_lifecycle_finalize_end();
        return true;
    }
    count_call(fn);
    return true;
}
