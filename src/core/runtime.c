/* Life cycle of the tool in one process. MPI_Init* reads the settings and
 * starts the clock's calibration before PMPI_Init (so a bad setting is
 * reported even if MPI_Init then fails) and ends it after, then duplicates
 * MPI_COMM_WORLD through PMPI for the tool's own traffic, names the world
 * (a spawned one gets an id and its own output directory), sets up the
 * output directory and starts the modules that MPISCOPE_MODE asks for.
 * MPI_Finalize stops recording, lets each module write its results
 * (collectively, over the private communicator) and frees that communicator
 * before PMPI_Finalize.
 *
 * A process that enters MPI through MPI_Session_init instead (MPI-4) is
 * solo: the tool has no communicator and makes no collective (processes may
 * initialize and finalize at different times, and MPI_COMM_WORLD may not
 * exist), only the modules that can work so are started, and their finalize
 * runs each time the process's last session ends, each process writing its
 * own results (src/intercept/session.c drives it).
 */
#include "runtime.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fatal.h"
#include "log.h"
#include "output.h"
#include "requests.h"
#include "wait.h"

msc_hooks_t msc_hooks;

static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

/* Serialized, so that the last refresh, which starts after the last change
 * of any word, leaves the masks as the words say. */
void msc_hooks_refresh(void)
{
    pthread_mutex_lock(&hooks_lock);
    unsigned enter = 0, leave = 0;
    uint64_t due = UINT64_MAX;
    for (int i = 0; i < msc_hooks.n_enter; i++)
        if (atomic_load(msc_hooks.enter_wanted[i])) enter |= 1u << i;
    for (int i = 0; i < msc_hooks.n_leave; i++)
        if (atomic_load(msc_hooks.leave_wanted[i])) leave |= 1u << i;
    for (int i = 0; i < msc_hooks.n_due; i++) {
        uint64_t t = atomic_load(msc_hooks.due_word[i]);
        if (t < due) due = t;
    }
    atomic_store(&msc_hooks.enter_mask, enter);
    atomic_store(&msc_hooks.leave_mask, leave);
    atomic_store(&msc_hooks.due_ns, due);
    pthread_mutex_unlock(&hooks_lock);
}

void msc_hooks_nest(msc_call_t *c)
{
    for (int i = 0; i < msc_hooks.n_nest; i++) msc_hooks.nest[i](c);
}

void msc_hooks_due(msc_call_t *c)
{
    for (int i = 0; i < msc_hooks.n_due; i++)
        if (c->t_leave >= atomic_load_explicit(msc_hooks.due_word[i], memory_order_relaxed))
            msc_hooks.due[i](c);
}

static const msc_module_t *modules[MSC_MODULES_MAX];
static bool module_active[MSC_MODULES_MAX];
static int module_count;
static bool preinit_done;

int msc_module_register(const msc_module_t *m)
{
    if (!m || m->abi != MSC_MODULE_ABI || module_count >= MSC_MODULES_MAX) return -1;
    modules[module_count] = m;
    return module_count++;
}

static void report_setting(const char *message, void *arg)
{
    (void)arg;
    if (msc_log_is_speaker()) msc_warn("%s", message);
}

extern char **environ;

static bool mode_none(void);

void msc_runtime_preinit(void)
{
    if (preinit_done) return;
    preinit_done = true;
    msc_settings_load(&msc_g.settings, environ, report_setting, NULL);
    msc_clock_begin((msc_clock_choice_t)msc_g.settings.v[MSC_SET_CLOCK].num);
    msc_g.t_init_begin = msc_now_ns();
    for (int i = 0; i < module_count && !mode_none(); i++)
        if (modules[i]->preinit) modules[i]->preinit();
}

/* Bit of `word` in the MPISCOPE_MODE choices, or -1. */
static int mode_bit(const char *word)
{
    const char *choices = msc_setting_desc(MSC_SET_MODE)->choices;
    int bit = 0;
    size_t n = strlen(word);
    for (const char *p = choices; *p; bit++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0) return bit;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

/* The hooks of the active modules, in registration order, except that the
 * enter hooks of outer modules come first and their leave hooks last
 * (module.h). */
static void hooks_install(void)
{
    static const _Atomic int always = 1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < module_count; i++) {
            const msc_module_t *m = modules[i];
            if (!module_active[i]) continue;
            if (m->enter && m->outer == (pass == 0)) {
                msc_hooks.enter_wanted[msc_hooks.n_enter] = m->enter_wanted ? m->enter_wanted : &always;
                msc_hooks.enter[msc_hooks.n_enter++] = m->enter;
            }
            if (m->leave && m->outer == (pass == 1)) {
                msc_hooks.leave_wanted[msc_hooks.n_leave] = m->leave_wanted ? m->leave_wanted : &always;
                msc_hooks.leave[msc_hooks.n_leave++] = m->leave;
            }
        }
    for (int i = 0; i < module_count; i++) {
        const msc_module_t *m = modules[i];
        if (!module_active[i]) continue;
        if (m->nest) msc_hooks.nest[msc_hooks.n_nest++] = m->nest;
        if (m->due && m->due_ns) {
            msc_hooks.due_word[msc_hooks.n_due] = m->due_ns;
            msc_hooks.due[msc_hooks.n_due++] = m->due;
        }
    }
}

static bool mode_none(void)
{
    return (msc_g.settings.v[MSC_SET_MODE].num >> mode_bit("none")) & 1;
}

static const char *program_name(void)
{
    static char buf[256];
    FILE *f = fopen("/proc/self/comm", "r");
    if (f) {
        if (fgets(buf, sizeof buf, f)) buf[strcspn(buf, "\n")] = 0;
        fclose(f);
    }
    return buf[0] ? buf : "app";
}

/* srun started several tasks that each came up as an MPI job of one rank:
 * the MPI found no process manager it speaks (MPICH under srun --mpi=none
 * or --mpi=pmix), so the tasks are singletons, each writing its results
 * over the others'. Said once, by the step's first task. mpirun's ranks
 * (OMPI_COMM_WORLD_SIZE, Hydra's PMI_SIZE) are not srun's tasks. */
static void slurm_singletons(void)
{
    const char *tasks = getenv("SLURM_STEP_NUM_TASKS"), *task = getenv("SLURM_PROCID");
    if (msc_g.world_size != 1 || !tasks || atoi(tasks) < 2 || !task || strcmp(task, "0") != 0 ||
        getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE"))
        return;
    msc_warn("srun started %s tasks, but MPI_COMM_WORLD has 1 rank: each task is an MPI job "
             "of its own, and each writes its results over the others'. The MPI did not find "
             "srun's process manager: Open MPI needs srun --mpi=pmix, MPICH --mpi=pmi2 "
             "(docs/slurm.md)", tasks);
}

/* A spawned world's id, the same on its every rank: the PMIx namespace
 * where the MPI has one (Open MPI), else its rank 0's host and process id;
 * "" for a world that no MPI_Comm_spawn made. Only [A-Za-z0-9._-], as it
 * names a directory. Collective over msc_g.comm. */
static void world_identify(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS || parent == MPI_COMM_NULL) return;
    char id[sizeof msc_g.world_id] = "";
    if (msc_g.world_rank == 0) {
        const char *ns = getenv("PMIX_NAMESPACE");
        char host[64] = "host";
        gethostname(host, sizeof host - 1);
        if (ns && *ns)
            snprintf(id, sizeof id, "%s", ns);
        else
            snprintf(id, sizeof id, "%.40s-%ld", host, (long)getpid());
        for (char *p = id; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_') *p = '_';
    }
    PMPI_Bcast(id, (int)sizeof id, MPI_CHAR, 0, msc_g.comm);
    id[sizeof id - 1] = 0;
    snprintf(msc_g.world_id, sizeof msc_g.world_id, "%s", id[0] ? id : "spawned");
}

/* Starts the modules MPISCOPE_MODE asks for; then recording starts. In the
 * world model every rank must agree on each, or a module would run
 * collectives alone; a solo process starts only the modules that work
 * without collectives and names the others once. */
static void start_modules(bool none)
{
    long long mask = msc_g.settings.v[MSC_SET_MODE].num;
    char left_out[256] = "";
    for (int i = 0; i < module_count && !none; i++) {
        const msc_module_t *m = modules[i];
        if (m->mode) {
            int bit = mode_bit(m->mode);
            if (bit < 0 || !((mask >> bit) & 1)) continue;
        }
        if (msc_g.solo && !m->solo) {
            /* Named when the user asked for it by its own word (trace,
             * check); the modules that come with every mode go quietly. */
            if (!m->mode || strcmp(m->mode, "profile") == 0) continue;
            size_t n = strlen(left_out);
            snprintf(left_out + n, sizeof left_out - n, "%s%s", n ? ", " : "", m->name);
            continue;
        }
        int rc = m->init ? m->init(i) : 0;
        if (!msc_g.solo) PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_LOR, msc_g.comm);
        if (!rc) module_active[i] = true;
    }
    if (left_out[0] && msc_g.world_rank == 0)
        msc_warn("this process entered MPI through MPI_Session_init (MPI-4 sessions), where "
                 "mpiscope records the profile only; not run in it: %s (docs/worlds.md)%s",
                 left_out,
                 (mask >> mode_bit("profile")) & 1
                     ? ""
                     : ". MPISCOPE_MODE does not ask for the profile, so nothing is recorded");
    hooks_install();
    msc_hooks_refresh();
    msc_g.t_ready = msc_now_ns();
    atomic_store(&msc_g.level, none ? 0 : 1);
    atomic_store(&msc_g.phase, MSC_PHASE_RUNNING);
    msc_gates_update();
    if (!none) msc_fatal_install();
}

/* The output directory, the request table and the modules, once the
 * process knows its world and rank. */
static void start_recording(void)
{
    bool none = mode_none();
    if (!none) msc_output_setup(program_name());
    if (!none && !msc_requests_init((int)msc_g.settings.v[MSC_SET_MAX_REQUESTS].num))
        msc_warn_once("requests", "out of memory for the request table; completions of "
                                  "nonblocking operations will not be understood");
    start_modules(none);
}

typedef struct {
    MPI_Request *req;
    bool failed; /* the test itself failed: the wait ends, not done */
} request_wait_t;

static int request_done(void *arg)
{
    request_wait_t *w = arg;
    int done = 0;
    w->failed = PMPI_Test(w->req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    return done || w->failed;
}

/* Waits for `req` (msc_wait_sleepy), at most `seconds`. False when it did
 * not complete; the request is then left as it is. */
static bool wait_bounded(MPI_Request *req, long seconds)
{
    request_wait_t w = {req, false};
    uint64_t deadline = msc_now_ns() + (uint64_t)seconds * 1000000000u;
    return msc_wait_sleepy(request_done, &w, deadline) && !w.failed;
}

/* The tool's communicator: MPI_COMM_WORLD duplicated, with every rank of
 * the world. A rank started without the library (an MPMD command or an app
 * file that gives LD_PRELOAD to some programs only) never takes part, and a
 * blocking duplicate would wait for it forever, in MPI_Init, or in the
 * tool's exchange at MPI_Finalize. So the duplicate is nonblocking and
 * bounded (MPISCOPE_SETUP_TIMEOUT), and an agreement on the new
 * communicator, bounded the same way, follows: a rank whose duplicate
 * completed only after the others gave up (it came far later) finds no one
 * there and gives up too. A rank that gives up says so, leaves its request
 * pending (nothing cancels a duplicate; MPI_Finalize ends it) and records
 * nothing, so no rank of the tool ever waits for one that is not there. */
static bool make_tool_comm(void)
{
    long limit = (long)msc_g.settings.v[MSC_SET_SETUP_TIMEOUT].num;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request req;
    if (PMPI_Comm_idup(MPI_COMM_WORLD, &c, &req) != MPI_SUCCESS) {
        msc_warn_once("comm-dup", "cannot duplicate MPI_COMM_WORLD; recording is off");
        return false;
    }
    int all = 1;
    bool ok = wait_bounded(&req, limit) &&
              PMPI_Iallreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, c, &req) == MPI_SUCCESS &&
              wait_bounded(&req, limit);
    if (!ok) {
        msc_warn_once("setup", "not every rank of the world joined the tool's set-up within %ld s "
                               "(MPISCOPE_SETUP_TIMEOUT): some ranks seem to run without the "
                               "mpiscope library (an MPMD command or app file that gives it to "
                               "some programs only?); recording is off in this process and the "
                               "program carries on", limit);
        return false;
    }
    msc_g.comm = c;
    return true;
}

void msc_runtime_init(int thread_provided)
{
    msc_clock_finish();
    msc_g.t_init_end = msc_now_ns();
    msc_g.thread_provided = thread_provided;
    PMPI_Comm_rank(MPI_COMM_WORLD, &msc_g.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &msc_g.world_size);
    PMPI_Comm_group(MPI_COMM_WORLD, &msc_g.world_group);
    msc_log_set_rank(msc_g.world_rank);
    slurm_singletons();
    if (!make_tool_comm()) {
        msc_g.comm = MPI_COMM_NULL;
        return;
    }
    PMPI_Comm_set_name(msc_g.comm, "mpiscope private");
    world_identify();
    start_recording();
}

void msc_runtime_init_solo(int rank, int size, MPI_Group world, int thread_provided)
{
    msc_clock_finish();
    msc_g.t_init_end = msc_now_ns();
    msc_g.thread_provided = thread_provided;
    msc_g.solo = true;
    msc_g.world_rank = rank;
    msc_g.world_size = size;
    msc_g.world_group = world;
    msc_log_set_rank(rank);
    start_recording();
}

void msc_runtime_resume_solo(void)
{
    if (atomic_load(&msc_g.phase) != MSC_PHASE_DONE || !msc_g.solo) return;
    atomic_store(&msc_g.phase, MSC_PHASE_RUNNING);
    msc_gates_update();
    if (!mode_none()) msc_fatal_install();
}

void msc_runtime_emergency(int signum)
{
    for (int i = module_count - 1; i >= 0; i--)
        if (module_active[i] && modules[i]->emergency)
            msc_fatal_guarded(modules[i]->name, modules[i]->emergency, signum);
}

void msc_runtime_finalize(void)
{
    msc_g.t_finalize_begin = msc_now_ns();
    atomic_store(&msc_g.phase, MSC_PHASE_FINALIZING);
    msc_gates_update();
    msc_fatal_uninstall();
    if (msc_g.comm == MPI_COMM_NULL && !msc_g.solo) return;
    for (int i = module_count - 1; i >= 0; i--)
        if (module_active[i] && modules[i]->finalize) modules[i]->finalize();
    bool quiet = msc_g.settings.v[MSC_SET_QUIET].num;
    if (msc_g.solo) {
        /* Each process says nothing of the others' files. */
        if (!quiet && msc_g.world_rank == 0 && msc_g.outdir[0])
            msc_warn("results in %s (each process writes its own; the last to finish joins "
                     "them)", msc_g.outdir);
        return;
    }
    unsigned long written = msc_output_written();
    PMPI_Allreduce(MPI_IN_PLACE, &written, 1, MPI_UNSIGNED_LONG, MPI_SUM, msc_g.comm);
    if (!quiet && msc_g.world_rank == 0 && msc_g.outdir[0]) {
        if (written)
            msc_warn("results in %s", msc_g.outdir);
        else
            msc_warn("nothing was written to %s (see the messages above)", msc_g.outdir);
    }
    PMPI_Comm_free(&msc_g.comm);
    PMPI_Group_free(&msc_g.world_group);
}

void (*msc_outside_hook)(msc_fn_t fn, void *site, int phase);

void msc_runtime_outside(msc_fn_t fn, void *site)
{
    void (*hook)(msc_fn_t, void *, int) = msc_outside_hook;
    if (hook) hook(fn, site, atomic_load(&msc_g.phase));
}

void msc_runtime_pcontrol(int level)
{
    int phase = atomic_load(&msc_g.phase);
    if (level == 0 || level == 1) {
        if (mode_none()) return;
        atomic_store(&msc_g.level, level);
        msc_gates_update();
    }
    if (phase != MSC_PHASE_RUNNING) return;
    if (level == 0 || level == 1 || level == 2) {
        /* The hooks may use this thread's state, and MPI_Pcontrol (which
         * registers nothing itself) may be the thread's first MPI call. */
        msc_thread_attach();
        for (int i = 0; i < module_count; i++)
            if (module_active[i] && modules[i]->pcontrol) modules[i]->pcontrol(level);
    } else {
        msc_warn_once("pcontrol-level",
                      "MPI_Pcontrol(%d) has no meaning in mpiscope and is ignored; levels are 0 "
                      "(off), 1 (on) and 2 (flush)",
                      level);
    }
}
