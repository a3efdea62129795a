/* Performance variables in use: sampling (MPISCOPE_PVARS) and the
 * unexpected-queue check (MPISCOPE_CHECK_UNEXPECTED), written to mpit.txt and
 * mpit.json in the output directory.
 *
 * Sampling. After PMPI_Init this module opens its own MPI_T session through
 * mpiscope's MPI_T layer, so it reads the library's variables and mpiscope's
 * own alike, and allocates a handle for every performance variable whose name
 * matches one of the setting's globs: unbound variables as they are,
 * communicator-bound ones for MPI_COMM_WORLD (reading a variable sends no
 * message; binding to mpiscope's private duplicate would show that
 * communicator's queues, which hold nothing of the application's), summed over
 * the handle's count (Open MPI's queue lengths have one value per peer).
 * Variables that cannot be read (Open MPI invalidates some at MPI_Init), are
 * bound to other objects or are not numbers are left out with a note. Samples
 * are taken as MPI calls leave, at most one per MPISCOPE_PVAR_INTERVAL
 * milliseconds (the module's due hook: other calls cost the core one time
 * comparison; one thread at a time, the others do not wait), and keep per variable the first value, the last, the minimum,
 * the maximum and the number of samples (mpiscope's own communicator-bound
 * variables can only be bound once the run has started: at the first
 * sample); with the trace on, each sample is
 * also an OTF2 metric event on the calling thread at the call's leave time
 * (src/trace/trace.h's metric API). The last sample is the value at the
 * end for the library's variables: at MPI_Finalize the MPI_T layer closes
 * the library's MPI_T before the modules' finalize hooks run. mpiscope's own
 * are read once more there.
 *
 * The check is section 14.3.7's example tool: at the entry of every receive
 * (MPI_Recv, MPI_Irecv, MPI_Sendrecv; not the matched-probe receives), read
 * the length of the receiving communicator's unexpected-message queue and,
 * above the threshold, count the call site and keep the largest length seen.
 * Open MPI: pml_ob1_unexpected_msgq_length, a handle per communicator (freed
 * with it). Where the library has no such variable (MPICH), mpiscope's own
 * measure: a PMPI_Iprobe for the receive's source and tag on its
 * communicator tells whether the message had already arrived; the length is
 * the number of receives in a row on that communicator that found their
 * message waiting (a sender running ahead makes it grow by one per receive).
 * The probe neither receives nor sends anything. Every receive is probed
 * while the run lasts; after a receive that did not find its message (the
 * queue was empty), only every probe_stride-th receive on that communicator
 * is (threshold / 4, at most 16, at least 1: with the default threshold 64,
 * a sixteenth of the probes of a program whose receives wait for their
 * messages). A run that begins between two probes is counted from the probe
 * that finds it, fewer than probe_stride receives late: a growing queue is
 * still reported, its lengths by at most that much short. The first receive
 * on a communicator is probed. Active with MPISCOPE_MODE check; the
 * threshold 0 turns it off.
 *
 * At finalize each rank's results are gathered on rank 0 over mpiscope's
 * private communicator and written there.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/log.h"
#include "../core/module.h"
#include "../core/output.h"
#include "../core/state.h"
#include "../profile/callsite.h"
#include "../trace/trace.h"
#include "pvar_class.h"
#include "internal.h"
#include "../core/json_out.h"

/* The profile module resolves call sites; this module works without it. */
extern msc_callsite_resolver_t *msc_callsite_open(void) __attribute__((weak));
extern bool msc_callsite_resolve(msc_callsite_resolver_t *r, const void *pc, msc_frame_t *out)
    __attribute__((weak));
extern void msc_callsite_close(msc_callsite_resolver_t *r) __attribute__((weak));
/* Nor the trace module. */
extern bool msc_trace_active(void) __attribute__((weak));
extern uint32_t msc_trace_metric_def(const char *name, const char *unit, OTF2_Type type,
                                     OTF2_MetricMode mode) __attribute__((weak));
extern void msc_trace_metric(uint32_t metric, uint64_t t_ns, OTF2_MetricValue value)
    __attribute__((weak));

enum { MAX_VARS = 32, MAX_SITES = 64, MAX_COMMS = 64, NAME_LEN = 96, NOTE_LEN = 192, MAX_NOTES = 16 };

typedef struct {
    char name[NAME_LEN];
    int klass;           /* MPI_T_PVAR_CLASS_* */
    int bind;
    MPI_Datatype type;
    int count;           /* values per read (the handle's count) */
    bool started;        /* we started it (not continuous) */
    MPI_T_pvar_handle handle;
    double first, last, min, max; /* sums over the count */
    uint64_t samples;
    uint32_t metric;     /* trace metric, UINT32_MAX: none */
    int index;           /* in the MPI_T union */
    bool continuous;
    bool pending;        /* no handle yet: bound at the first sample */
    bool dead;           /* left out after all (a note says why) */
    bool direct;         /* read without MPI_T (libvars.c), through `lp` */
    msc_libpvar_t lp;
} sampled_t;

typedef struct {
    void *site;
    uint64_t count;      /* receives above the threshold */
    uint64_t max_length; /* largest queue length seen there */
} site_t;

typedef struct {
    MPI_Comm comm;
    MPI_T_pvar_handle handle; /* Open MPI's queue length for this communicator */
    msc_libpvar_t lp;         /* the same, read without MPI_T (queue_direct) */
    int count;
    bool have_handle;
    uint64_t run;        /* own measure: receives in a row that found their message */
    uint64_t skip;       /* own measure: receives left unprobed (after a miss) */
} comm_slot_t;

static sampled_t vars[MAX_VARS];
static int nvars;
static char notes[MAX_NOTES][NOTE_LEN];
static int nnotes;
static MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
static bool mpit_open;
static uint64_t interval_ns;
static _Atomic uint64_t next_due;
static atomic_flag sampling = ATOMIC_FLAG_INIT;

static int npending; /* variables with pending set */
static bool bind_var(sampled_t *v);

static bool check_on;
static _Atomic int enter_wanted; /* the check (a hook on MPI calls); sampling is due at next_due */
static uint64_t threshold;
static uint64_t probe_stride = 1; /* own measure, between misses (threshold / 4, 1 to 16) */
static int queue_index = -1; /* pml_ob1_unexpected_msgq_length, or -1: own measure */
static bool queue_direct;     /* ... read without MPI_T: queue_lp describes it */
static msc_libpvar_t queue_lp;
static bool finalizing;       /* the last sample: the library's variables are not read */
static site_t sites[MAX_SITES];
static int nsites;
static uint64_t sites_dropped;
static uint64_t receives_unchecked; /* on communicators past MAX_COMMS */
static comm_slot_t comms[MAX_COMMS];
static int ncomms;
static atomic_flag checking = ATOMIC_FLAG_INIT;
static char *profile_section; /* rank 0, after finalize: the pvars JSON object */

/* For the profile module: the "pvars" object of profile.json, or NULL (no
 * variable sampled, not rank 0, or before this module's finalize). */
const char *msc_pvars_profile_section(void) __attribute__((visibility("hidden")));
const char *msc_pvars_profile_section(void)
{
    return nvars ? profile_section : NULL;
}

static int notes_dropped;

static void note(const char *fmt, const char *a, int b)
{
    if (nnotes < MAX_NOTES) snprintf(notes[nnotes++], NOTE_LEN, fmt, a, b);
    else notes_dropped++;
}

/* The sum of `count` values of `type` in `buf`, or NAN for a type that is not a number. */
static double sum_values(MPI_Datatype type, const void *buf, int count)
{
    double s = 0;
    for (int i = 0; i < count; i++) {
        if (type == MPI_UNSIGNED) s += ((const unsigned *)buf)[i];
        else if (type == MPI_UNSIGNED_LONG) s += (double)((const unsigned long *)buf)[i];
        else if (type == MPI_UNSIGNED_LONG_LONG)
            s += (double)((const unsigned long long *)buf)[i];
        else if (type == MPI_DOUBLE) s += ((const double *)buf)[i];
        else if (type == MPI_INT) s += ((const int *)buf)[i];
        else if (type == MPI_COUNT) s += (double)((const MPI_Count *)buf)[i];
        else return NAN;
    }
    return s;
}

static bool numeric(MPI_Datatype t)
{
    return t == MPI_UNSIGNED || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG ||
           t == MPI_DOUBLE || t == MPI_INT || t == MPI_COUNT;
}

/* MPISCOPE_PVARS=default, per MPI: the library's message queue lengths.
 * Open MPI: its ob1 point-to-point layer's unexpected-message and
 * posted-receive queues (read without Open MPI's MPI_T, see open_direct).
 * MPICH: the same queues' variables of its ch3 device, where MPICH was
 * built with them (--enable-mpit-pvars; Debian's 4.0.2, ch4:ucx, has no
 * performance variable at all), and mpiscope's own count of pending
 * nonblocking requests, its closest cheap equivalent of the posted queue
 * (read from the core's request table: nothing on the MPI calls' path;
 * the level only: its high watermark would cost every request call a
 * compare-and-swap). */
#if defined(OPEN_MPI)
#define DEFAULT_PVARS "pml_ob1_unexpected_msgq_length,pml_ob1_posted_recvq_length"
#else
#define DEFAULT_PVARS \
    "unexpected_recvq_length:level,posted_recvq_length:level,mpiscope_pending_requests:level"
#endif

/* The globs in effect. */
static const char *pvar_globs(void)
{
    const char *g = msc_g.settings.v[MSC_SET_PVARS].str;
    return strcmp(g, "default") == 0 ? DEFAULT_PVARS : g;
}

/* Whether a variable matches one of the comma-separated globs; a glob may
 * end in ":class" (e.g. mpiscope_pending_requests:level), which the
 * variable's class must be too, since names are unique per class only. */
static bool wanted(const char *name, int klass, const char *globs)
{
    char copy[MSC_SETTING_MAX_STRING];
    snprintf(copy, sizeof copy, "%s", globs);
    for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (*w == ' ') w++;
        char *colon = strrchr(w, ':');
        if (colon) *colon = '\0';
        if (colon && strcmp(colon + 1, msc_pvar_class_name(klass)) != 0) continue;
        if (*w && fnmatch(w, name, 0) == 0) return true;
    }
    return false;
}

/* Takes one sample of every variable; with `t_ns` nonzero (a call
 * boundary) also writes it into the trace as a metric on this thread. */
static void sample_now(uint64_t t_ns)
{
    for (int i = 0; i < nvars; i++) {
        sampled_t *v = &vars[i];
        if (v->pending || v->dead || (v->direct && finalizing)) continue;
        uint64_t buf[512];
        int rc = v->direct ? msc_libpvar_read(&v->lp, buf) : MPI_T_pvar_read(session, v->handle, buf);
        if (rc != MPI_SUCCESS) continue;
        double s = sum_values(v->type, buf, v->count);
        if (isnan(s)) continue;
        if (v->samples == 0) v->first = v->min = v->max = s;
        if (s < v->min) v->min = s;
        if (s > v->max) v->max = s;
        v->last = s;
        v->samples++;
        if (t_ns && v->metric != UINT32_MAX)
            msc_trace_metric(v->metric, t_ns, (OTF2_MetricValue){.floating_point = s});
    }
}

/* One OTF2 metric per sampled variable, named after it (with the class when
 * two variables share a name); counters, aggregates and timers count from
 * the handle's start. */
static void define_metrics(void)
{
    bool tracing = msc_trace_active && msc_trace_metric_def && msc_trace_metric &&
                   msc_trace_active();
    for (int i = 0; i < nvars; i++) {
        vars[i].metric = UINT32_MAX;
        if (!tracing) continue;
        bool shared = false;
        for (int j = 0; j < nvars; j++)
            shared |= j != i && strcmp(vars[j].name, vars[i].name) == 0;
        char name[NAME_LEN + 32];
        snprintf(name, sizeof name, "%.95s%s%.16s%s", vars[i].name, shared ? " (" : "",
                 shared ? msc_pvar_class_name(vars[i].klass) : "", shared ? ")" : "");
        int k = vars[i].klass;
        bool accumulated = k == MPI_T_PVAR_CLASS_COUNTER || k == MPI_T_PVAR_CLASS_AGGREGATE ||
                           k == MPI_T_PVAR_CLASS_TIMER;
        vars[i].metric = msc_trace_metric_def(
            name, k == MPI_T_PVAR_CLASS_TIMER ? "s" : "", OTF2_TYPE_DOUBLE,
            accumulated ? OTF2_METRIC_ACCUMULATED_START : OTF2_METRIC_ABSOLUTE_POINT);
    }
}

static bool taken_direct(const char *name, int klass)
{
    for (int i = 0; i < nvars; i++)
        if (vars[i].direct && vars[i].klass == klass && strcmp(vars[i].name, name) == 0) return true;
    return false;
}

/* The library's wanted variables that can be read without its MPI_T
 * (libvars.c: Open MPI's continuous ones of components in use), bound and
 * added to `vars`. Returns whether MPI_T must still be asked: the library
 * cannot be listed that way, or a wanted variable of it can only be read
 * through MPI_T. Open MPI's default variables (its queue lengths) are read
 * directly, so that sampling them does not initialize Open MPI's MPI_T
 * (212 ms per rank after MPI_Init: it loads every component). */
static bool open_direct(const char *globs)
{
    int n = msc_libpvar_count();
    if (n < 0) return true;
    bool rest = false;
    for (int i = 0; i < n; i++) {
        msc_libpvar_t lp;
        if (!msc_libpvar_describe(i, &lp) || !wanted(lp.name, lp.klass, globs) ||
            taken_direct(lp.name, lp.klass))
            continue;
        if (!lp.direct || nvars == MAX_VARS ||
            (lp.bind != MPI_T_BIND_NO_OBJECT && lp.bind != MPI_T_BIND_MPI_COMM)) {
            rest = true; /* noted, or sampled, through MPI_T */
            continue;
        }
        int count = msc_libpvar_bind(&lp, MPI_COMM_WORLD);
        if (count < 1 || count > 512) {
            if (count >= 0) msc_libpvar_unbind(&lp);
            rest = true;
            continue;
        }
        sampled_t *v = &vars[nvars++];
        memset(v, 0, sizeof *v);
        snprintf(v->name, sizeof v->name, "%s", lp.name);
        v->klass = lp.klass;
        v->bind = lp.bind;
        v->type = lp.type;
        v->count = count;
        v->index = -1;
        v->continuous = true;
        v->direct = true;
        v->lp = lp;
    }
    return rest;
}

static void open_sampling(void)
{
    const char *globs = pvar_globs();
    if (!globs[0] || strcmp(globs, "none") == 0) return;
    int n = 0;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[NAME_LEN];
        int len = sizeof name, verbosity, klass, bind, readonly, continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum en;
        int rc = MPI_T_pvar_get_info(i, name, &len, &verbosity, &klass, &type, &en, NULL, NULL,
                                     &bind, &readonly, &continuous, &atomic);
        if (rc != MPI_SUCCESS || !wanted(name, klass, globs) || taken_direct(name, klass)) continue;
        if (nvars == MAX_VARS) {
            note("%s and later matches left out: at most 32 variables are sampled%.0d", name, 0);
            break;
        }
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM) {
            note("%s left out: bound to an object other than a communicator%.0d", name, 0);
            continue;
        }
        if (!numeric(type)) {
            note("%s left out: not a number%.0d", name, 0);
            continue;
        }
        sampled_t *v = &vars[nvars];
        memset(v, 0, sizeof *v);
        snprintf(v->name, sizeof v->name, "%s", name);
        v->klass = klass;
        v->bind = bind;
        v->type = type;
        v->index = i;
        v->continuous = continuous;
        /* mpiscope's own communicator-bound variables bind only once the
         * run has started (after the modules' init): bound at the first sample. */
        bool own = strncmp(name, "mpiscope_", 9) == 0;
        if (bind == MPI_T_BIND_MPI_COMM && own) {
            v->pending = true;
            npending++;
            nvars++;
        } else if (bind_var(v)) {
            nvars++;
        }
    }
}

/* Allocates and starts the handle of `v`; false after a note. */
static bool bind_var(sampled_t *v)
{
    MPI_Comm world = MPI_COMM_WORLD;
    int rc = MPI_T_pvar_handle_alloc(session, v->index,
                                     v->bind == MPI_T_BIND_MPI_COMM ? (void *)&world : NULL,
                                     &v->handle, &v->count);
    if (rc != MPI_SUCCESS) {
        /* MPI_T_ERR_INVALID_INDEX: the layer calls the variable inactive
         * (Open MPI: invalidated or unloaded at MPI_Init, or of a transport
         * not in use, src/mpit/libvars.c). */
        if (rc == MPI_T_ERR_INVALID_INDEX)
            note("%s left out: no handle (inactive: invalidated or not in use)%.0d", v->name, 0);
        else
            note("%s left out: no handle (MPI_T error %d)", v->name, rc);
        return false;
    }
    if (v->count < 1 || v->count > 512) {
        MPI_T_pvar_handle_free(session, &v->handle);
        note("%s left out: %d values per read", v->name, v->count);
        return false;
    }
    if (!v->continuous) {
        if (MPI_T_pvar_start(session, v->handle) != MPI_SUCCESS) {
            MPI_T_pvar_handle_free(session, &v->handle);
            note("%s left out: cannot be started%.0d", v->name, 0);
            return false;
        }
        v->started = true;
    }
    return true;
}

/* The first sample of the run: the variables that could not be bound before. */
static void bind_pending(void)
{
    for (int i = 0; i < nvars; i++) {
        if (!vars[i].pending) continue;
        vars[i].pending = false;
        vars[i].dead = !bind_var(&vars[i]);
    }
    npending = 0;
}

static int mode_has_check(void)
{
    const char *choices = msc_setting_desc(MSC_SET_MODE)->choices;
    int bit = 0;
    for (const char *p = choices; *p; bit++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == 5 && strncmp(p, "check", 5) == 0)
            return (int)((msc_g.settings.v[MSC_SET_MODE].num >> bit) & 1);
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

static int pv_init(int slot)
{
    (void)slot;
    interval_ns = (uint64_t)msc_g.settings.v[MSC_SET_PVAR_INTERVAL].num * 1000000u;
    threshold = (uint64_t)msc_g.settings.v[MSC_SET_CHECK_UNEXPECTED].num;
    probe_stride = threshold / 4 > 16 ? 16 : threshold / 4 ? threshold / 4 : 1;
    check_on = mode_has_check() && threshold > 0;
    const char *globs = pvar_globs();
    bool sampling_on = globs[0] && strcmp(globs, "none") != 0;
    if (!sampling_on && !check_on) return 1; /* left out: no hooks on MPI calls */
    /* The library's MPI_T only when something asked for needs it. */
    bool need_library = sampling_on && open_direct(globs);
    if (check_on) {
        int n = msc_libpvar_count();
        for (int i = 0; i < n && !queue_direct; i++)
            queue_direct = msc_libpvar_describe(i, &queue_lp) && queue_lp.direct &&
                           queue_lp.bind == MPI_T_BIND_MPI_COMM &&
                           strcmp(queue_lp.name, "pml_ob1_unexpected_msgq_length") == 0;
        need_library |= !queue_direct && n != 0;
    }
    int provided;
    if (need_library) {
        if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 0;
    } else {
        msc_mpit_init_own();
    }
    mpit_open = true;
    if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) {
        session = MPI_T_PVAR_SESSION_NULL;
        return 0;
    }
    if (sampling_on) open_sampling();
    if (check_on && !queue_direct) {
        int index;
        if (MPI_T_pvar_get_index("pml_ob1_unexpected_msgq_length", MPI_T_PVAR_CLASS_SIZE,
                                 &index) == MPI_SUCCESS)
            queue_index = index;
    }
    if (!nvars && !check_on) {
        /* Nothing matched: no hooks on MPI calls for the rest of the run
         * (every rank sees the same variables, so all agree). */
        MPI_T_pvar_session_free(&session);
        MPI_T_finalize();
        mpit_open = false;
        return 1;
    }
    define_metrics();
    atomic_store(&enter_wanted, check_on);
    if (nvars) sample_now(0);
    atomic_store(&next_due, nvars ? msc_now_ns() + interval_ns : UINT64_MAX);
    return 0;
}

/* The slot of communicator `comm`, created on first use; NULL when full. */
static comm_slot_t *comm_slot(MPI_Comm comm)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i].comm == comm) return &comms[i];
    if (ncomms == MAX_COMMS) return NULL;
    comm_slot_t *s = &comms[ncomms++];
    memset(s, 0, sizeof *s);
    s->comm = comm;
    /* Open MPI 4.1's ob1 queue variable counts an intercommunicator's
     * peers by its local group but keeps them by its remote group: bound
     * to one whose local group is the larger (a spawned world of 3 ranks
     * reading its parent's of 2) it reads past its array and the process
     * crashes. Intercommunicators get the tool's own measure. */
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return s;
    if (queue_direct) {
        s->lp = queue_lp;
        s->count = msc_libpvar_bind(&s->lp, comm);
        if (s->count >= 1 && s->count <= 4096) s->have_handle = true;
        else if (s->count >= 0) msc_libpvar_unbind(&s->lp);
    } else if (queue_index >= 0 &&
               MPI_T_pvar_handle_alloc(session, queue_index, &comm, &s->handle, &s->count) ==
                   MPI_SUCCESS) {
        if (s->count >= 1 && s->count <= 4096) s->have_handle = true;
        else MPI_T_pvar_handle_free(session, &s->handle);
    }
    return s;
}

static void comm_forget(MPI_Comm comm)
{
    for (int i = 0; i < ncomms; i++) {
        if (comms[i].comm != comm) continue;
        if (comms[i].have_handle && queue_direct) msc_libpvar_unbind(&comms[i].lp);
        else if (comms[i].have_handle) MPI_T_pvar_handle_free(session, &comms[i].handle);
        comms[i] = comms[--ncomms];
        return;
    }
}

static void record_site(void *site, uint64_t length)
{
    for (int i = 0; i < nsites; i++) {
        if (sites[i].site != site) continue;
        sites[i].count++;
        if (length > sites[i].max_length) sites[i].max_length = length;
        return;
    }
    if (nsites == MAX_SITES) {
        sites_dropped++;
        return;
    }
    sites[nsites++] = (site_t){site, 1, length};
}

static void check_receive(msc_call_t *c)
{
    /* An all-zero handle (NULL in Open MPI, 0 in MPICH) names no
     * communicator in either MPI: the application's call fails with
     * MPI_ERR_COMM, and binding or probing it here would crash first. */
    static const MPI_Comm zero;
    if (c->comm == MPI_COMM_NULL || !memcmp(&c->comm, &zero, sizeof zero)) return;
    comm_slot_t *s = comm_slot(c->comm);
    if (!s) {
        receives_unchecked++;
        return;
    }
    uint64_t length;
    if (s->have_handle) {
        unsigned buf[4096];
        int rc = queue_direct ? msc_libpvar_read(&s->lp, buf)
                              : MPI_T_pvar_read(session, s->handle, buf);
        if (rc != MPI_SUCCESS) return;
        double sum = sum_values(MPI_UNSIGNED, buf, s->count);
        length = (uint64_t)sum;
    } else {
        /* Own measure: had the message already arrived? */
        /* its receive side is rpeer, rtag */
        bool sendrecv = c->kind == MSC_KIND_SENDRECV || c->kind == MSC_KIND_ISENDRECV;
        int source = sendrecv ? c->rpeer : c->peer, tag = sendrecv ? c->rtag : c->tag;
        if (source == MPI_PROC_NULL) return;
        if (s->skip) { /* no run: this one is not probed */
            s->skip--;
            return;
        }
        int flag = 0;
        MPI_Status st;
        if (PMPI_Iprobe(source, tag, c->comm, &flag, &st) != MPI_SUCCESS) return;
        s->run = flag ? s->run + 1 : 0;
        if (!flag) s->skip = probe_stride - 1;
        length = s->run;
    }
    if (length > threshold) record_site(c->site, length);
}

static void pv_enter(msc_call_t *c)
{
    if (!check_on) return;
    bool receive = c->kind == MSC_KIND_RECV || c->kind == MSC_KIND_IRECV ||
                   c->kind == MSC_KIND_SENDRECV || c->kind == MSC_KIND_ISENDRECV;
    bool comm_free = c->kind == MSC_KIND_COMM_FREE; /* c->comm: the one being freed */
    if (!receive && !comm_free) return;
    while (atomic_flag_test_and_set_explicit(&checking, memory_order_acquire)) {
    }
    if (receive) check_receive(c);
    else comm_forget(c->comm);
    atomic_flag_clear_explicit(&checking, memory_order_release);
}

static void pv_due(msc_call_t *c)
{
    if (!nvars || c->t_leave < atomic_load_explicit(&next_due, memory_order_relaxed)) return;
    if (atomic_flag_test_and_set_explicit(&sampling, memory_order_acquire)) return;
    if (npending) bind_pending();
    sample_now(c->t_leave);
    atomic_store_explicit(&next_due, c->t_leave + interval_ns, memory_order_relaxed);
    atomic_flag_clear_explicit(&sampling, memory_order_release);
    msc_hooks_refresh();
}

/* ---- results ---- */

enum { STATS = 5 }; /* first, last, min, max, samples */

typedef struct {
    char where[160]; /* file:line (function), or the address */
    uint64_t count, max_length;
    int rank;
} site_rec_t;

static void describe_site(msc_callsite_resolver_t *r, void *site, char *out, size_t len)
{
    msc_frame_t f;
    if (r && msc_callsite_resolve && msc_callsite_resolve(r, site, &f) && f.file && f.line) {
        const char *base = strrchr(f.file, '/');
        snprintf(out, len, "%s:%d%s%s%s", base ? base + 1 : f.file, f.line,
                 f.symbol ? " (" : "", f.symbol ? f.symbol : "", f.symbol ? ")" : "");
    } else {
        snprintf(out, len, "%p", site);
    }
}

/* The "pvars" object of mpit.json and profile.json. */
static void write_pvars_json(FILE *f, int size, const double *all, int nv)
{
    fprintf(f, "{\"setting\":");
    msc_json_put_string(f, pvar_globs());
    fprintf(f, ",\"interval_ms\":%lld,\"variables\":[",
            msc_g.settings.v[MSC_SET_PVAR_INTERVAL].num);
    bool first = true;
    for (int v = 0; v < nv; v++) {
        if (vars[v].dead) continue;
        fprintf(f, "%s\n{\"name\":", first ? "" : ",");
        first = false;
        msc_json_put_string(f, vars[v].name);
        fprintf(f, ",\"class\":\"%s\",\"bound_to\":%s,\"per_rank\":[",
                msc_pvar_class_name(vars[v].klass),
                vars[v].bind == MPI_T_BIND_MPI_COMM ? "\"MPI_COMM_WORLD\"" : "null");
        for (int r = 0; r < size; r++) {
            const double *s = &all[((size_t)r * nv + v) * STATS];
            fprintf(f, "%s{\"rank\":%d,\"samples\":%.0f,\"start\":%.17g,\"end\":%.17g,"
                       "\"min\":%.17g,\"max\":%.17g}",
                    r ? "," : "", r, s[4], s[0], s[1], s[2], s[3]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\"notes\":[");
    for (int i = 0; i < nnotes; i++) {
        if (i) fputc(',', f);
        msc_json_put_string(f, notes[i]);
    }
    fprintf(f, "],\"notes_dropped\":%d}", notes_dropped);
}

static void write_results(int size, const double *all, int nv, const site_rec_t *recs, int nrecs,
                          uint64_t dropped, uint64_t unchecked)
{
    const char *measure = queue_index >= 0 || queue_direct ? "pml_ob1_unexpected_msgq_length"
                                           : "receives in a row that found their message waiting";
    msc_out_t o;
    if (msc_out_open(&o, "mpit.txt")) {
        FILE *f = o.f;
        fprintf(f, "Performance variables (MPISCOPE_PVARS=%s), sampled at MPI call boundaries, "
                   "at most every %lld ms; values summed over the handle's count (per peer for "
                   "communicator-bound ones, bound to MPI_COMM_WORLD)\n",
                pvar_globs(), msc_g.settings.v[MSC_SET_PVAR_INTERVAL].num);
        if (!nv) fprintf(f, "  none sampled\n");
        else
            fprintf(f, "%-36s %-14s %5s %9s %14s %14s %14s %14s\n", "variable", "class", "rank",
                    "samples", "start", "end", "min", "max");
        for (int v = 0; v < nv; v++)
            for (int r = 0; r < size && !vars[v].dead; r++) {
                const double *s = &all[((size_t)r * nv + v) * STATS];
                fprintf(f, "%-36s %-14s %5d %9.0f %14.6g %14.6g %14.6g %14.6g\n", vars[v].name,
                        msc_pvar_class_name(vars[v].klass), r, s[4], s[0], s[1], s[2], s[3]);
            }
        for (int i = 0; i < nnotes; i++) fprintf(f, "note (rank 0): %s\n", notes[i]);
        if (notes_dropped) fprintf(f, "note (rank 0): %d more variables left out\n", notes_dropped);
        if (check_on) {
            fprintf(f, "\nUnexpected-queue check (threshold %" PRIu64 ", measure: %s): %s\n",
                    threshold, measure, nrecs ? "receives above the threshold" : "no findings");
            if (nrecs)
                fprintf(f, "%-48s %5s %9s %11s\n", "call site", "rank", "count", "max length");
            for (int i = 0; i < nrecs; i++)
                fprintf(f, "%-48s %5d %9" PRIu64 " %11" PRIu64 "\n", recs[i].where, recs[i].rank,
                        recs[i].count, recs[i].max_length);
            if (dropped)
                fprintf(f, "%" PRIu64 " findings at further call sites not kept\n", dropped);
            if (unchecked)
                fprintf(f, "%" PRIu64 " receives not checked: their communicators came after the "
                           "%d watched at once\n", unchecked, MAX_COMMS);
        }
        msc_out_close(&o);
    }
    if (check_on && nrecs) {
        uint64_t receives = 0;
        for (int i = 0; i < nrecs; i++) receives += recs[i].count;
        msc_warn("unexpected-queue check: %" PRIu64 " receives at %d call sites found more than "
                 "%" PRIu64 " unexpected messages (mpit.txt)",
                 receives, nrecs, threshold);
    }
    /* The same object goes into profile.json (msc_pvars_profile_section). */
    size_t seclen = 0;
    FILE *sec = open_memstream(&profile_section, &seclen);
    if (sec) {
        write_pvars_json(sec, size, all, nv);
        fclose(sec);
    }
    if (msc_out_open(&o, "mpit.json")) {
        FILE *f = o.f;
        fprintf(f, "{\"pvars\":%s", profile_section ? profile_section : "null");
        if (check_on) {
            fprintf(f, ",\n\"unexpected_queue\":{\"threshold\":%" PRIu64 ",\"measure\":", threshold);
            msc_json_put_string(f, measure);
            fprintf(f, ",\"dropped\":%" PRIu64 ",\"unchecked\":%" PRIu64 ",\"sites\":[", dropped,
                    unchecked);
            for (int i = 0; i < nrecs; i++) {
                fprintf(f, "%s\n{\"site\":", i ? "," : "");
                msc_json_put_string(f, recs[i].where);
                fprintf(f, ",\"rank\":%d,\"count\":%" PRIu64 ",\"max_length\":%" PRIu64 "}",
                        recs[i].rank, recs[i].count, recs[i].max_length);
            }
            fprintf(f, "]}");
        }
        fprintf(f, "}\n");
        msc_out_close(&o);
    }
}

static void pv_finalize(void)
{
    /* Collective over msc_g.comm on every rank where the module is active,
     * whatever happened to MPI_T here. */
    int rank = msc_g.world_rank, size = msc_g.world_size;
    /* Variables: every rank has the same list (the same library); use the
     * shortest in case one differs. */
    /* A last sample: mpiscope's own variables can still be read; the
     * library's handles are refused by now (their last sample stays). */
    if (mpit_open && nvars && !atomic_flag_test_and_set(&sampling)) {
        if (npending) bind_pending();
        finalizing = true;
        sample_now(0);
        atomic_flag_clear(&sampling);
    }
    for (int i = 0; i < nvars; i++)
        if (vars[i].direct) msc_libpvar_unbind(&vars[i].lp);
    for (int i = 0; i < ncomms; i++)
        if (comms[i].have_handle && queue_direct) msc_libpvar_unbind(&comms[i].lp);
    int nv = nvars;
    PMPI_Allreduce(MPI_IN_PLACE, &nv, 1, MPI_INT, MPI_MIN, msc_g.comm);
    double *mine = calloc((size_t)nv * STATS + 1, sizeof *mine);
    double *all = rank == 0 ? calloc((size_t)size * nv * STATS + 1, sizeof *all) : NULL;
    for (int v = 0; v < nv && mine; v++) {
        double *s = &mine[(size_t)v * STATS];
        s[0] = vars[v].first, s[1] = vars[v].last, s[2] = vars[v].min, s[3] = vars[v].max;
        s[4] = (double)vars[v].samples;
    }
    PMPI_Gather(mine, nv * STATS, MPI_DOUBLE, all, nv * STATS, MPI_DOUBLE, 0, msc_g.comm);

    /* Check findings: resolved here (addresses differ between ranks). */
    msc_callsite_resolver_t *res =
        check_on && nsites && msc_callsite_open ? msc_callsite_open() : NULL;
    site_rec_t *recs = calloc(MAX_SITES, sizeof *recs);
    int n = recs ? nsites : 0;
    for (int i = 0; i < n; i++) {
        describe_site(res, sites[i].site, recs[i].where, sizeof recs[i].where);
        recs[i].count = sites[i].count;
        recs[i].max_length = sites[i].max_length;
        recs[i].rank = rank;
    }
    if (res && msc_callsite_close) msc_callsite_close(res);
    int *counts = rank == 0 ? calloc((size_t)size, sizeof *counts) : NULL;
    int bytes = n * (int)sizeof(site_rec_t);
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    int *displs = rank == 0 ? calloc((size_t)size, sizeof *displs) : NULL;
    int total = 0;
    for (int r = 0; rank == 0 && counts && displs && r < size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    site_rec_t *allrecs = rank == 0 ? calloc((size_t)total / sizeof(site_rec_t) + 1,
                                             sizeof *allrecs)
                                    : NULL;
    PMPI_Gatherv(recs, bytes, MPI_BYTE, allrecs, counts, displs, MPI_BYTE, 0, msc_g.comm);
    uint64_t lost[2] = {sites_dropped, receives_unchecked};
    PMPI_Reduce(rank == 0 ? MPI_IN_PLACE : lost, lost, 2, MPI_UINT64_T, MPI_SUM, 0, msc_g.comm);
    if (rank == 0 && all && allrecs && msc_g.outdir[0])
        write_results(size, all, nv, allrecs, total / (int)sizeof(site_rec_t), lost[0], lost[1]);
    free(mine);
    free(all);
    free(recs);
    free(counts);
    free(displs);
    free(allrecs);
    /* The library's handles are gone with its MPI_T (closed before the
     * finalize hooks); freeing the session frees mpiscope's side. */
    if (session != MPI_T_PVAR_SESSION_NULL) MPI_T_pvar_session_free(&session);
    if (mpit_open) MPI_T_finalize();
    mpit_open = false;
}

static const msc_module_t module = {
    .abi = MSC_MODULE_ABI,
    .name = "pvars",
    .mode = NULL,
    .init = pv_init,
    .enter = pv_enter,
    .due = pv_due,
    .enter_wanted = &enter_wanted,
    .due_ns = &next_due,
    .finalize = pv_finalize,
};

MSC_CONSTRUCTOR static void pvars_register(void)
{
    msc_module_register(&module);
}
