/* Calls made outside MPI: before MPI_Init or after MPI_Finalize
 * (LOCAL:CALL:BEFORE_INIT, LOCAL:CALL:AFTER_FINALIZE), and MPI_Init* when
 * MPI is initialized already (LOCAL:CALL:INIT_TWICE). The wrappers' gate
 * keeps such calls away from every module, so the core hands them to the
 * hook set here (msc_outside_hook, runtime.h) from the first-call branch of
 * msc_call_begin, which only unregistered threads take, and from the
 * hand-written MPI_Init* and MPI_Finalize wrappers when the phase is wrong
 * (src/intercept/lifecycle.c): no cost is added to the path of any call
 * made while MPI runs. The functions the standard lets a program call at
 * any time (MPI 4.1 table 9 / 4.0 section 11.4.1: the MPI_Info,
 * error-class and error-handler functions listed there, MPI_Initialized,
 * MPI_Finalized, MPI_Get_version, MPI_Get_library_version, every MPI_T_
 * function) are not flagged, and neither is anything after
 * MPI_Session_init (the Sessions model needs no MPI_Init). Most MPI
 * libraries abort on such a call, so the finding is out before the call
 * proceeds unchanged. Before MPI_Init: one line on stderr per function, and
 * the finding appended to <MPISCOPE_OUTPUT>/checks.rank<R>.jsonl when the
 * output directory is set and the launcher's environment names the rank
 * (the directory is otherwise chosen only in MPI_Init); the call is also
 * kept (up to OUTSIDE_MAX distinct functions and sites) and becomes a
 * finding in checks.txt/json when the check module starts. After
 * MPI_Finalize and for a second MPI_Init a finding like any other
 * (chk_report: stderr and the per-rank file, which findings.c opens again
 * after the report). Before MPI_Init the settings are not read yet: this
 * file reads MPISCOPE_MODE, MPISCOPE_CHECK_CLASSES and MPISCOPE_OUTPUT
 * itself, silently (MPI_Init reports bad values). Limits: after
 * MPI_Finalize only the thread that called it is watched (other threads
 * keep their closed gates); the hook never calls MPI. The Fortran
 * MPI_INIT/MPI_INIT_THREAD/MPI_FINALIZE wrappers come here as the C ones do
 * (src/intercept/lifecycle.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "runtime.h"

enum { OUTSIDE_MAX = 16, OUTSIDE_NAMED = 8 };

static pthread_mutex_t olock = PTHREAD_MUTEX_INITIALIZER;
typedef struct {
    msc_fn_t fn;
    void *site;
    uint64_t count;
} early_t;
static early_t early[OUTSIDE_MAX];
static int nearly;
static uint64_t early_dropped;
static _Atomic bool session_seen;
static int enabled = -1; /* -1: not decided yet */
static msc_fn_t said[OUTSIDE_NAMED];
static int nsaid;
static uint64_t unsaid;

/* MPI 4.1 table 9 (MPI_Info_get/get_valuelen: the 4.0 list). */
static const char *const always[] = {
    "MPI_Initialized", "MPI_Finalized", "MPI_Get_version", "MPI_Get_library_version",
    "MPI_Info_create", "MPI_Info_create_env", "MPI_Info_set", "MPI_Info_delete",
    "MPI_Info_get", "MPI_Info_get_valuelen", "MPI_Info_get_string", "MPI_Info_get_nkeys",
    "MPI_Info_get_nthkey", "MPI_Info_dup", "MPI_Info_free", "MPI_Info_f2c", "MPI_Info_c2f",
    "MPI_Session_create_errhandler", "MPI_Session_call_errhandler", "MPI_Errhandler_free",
    "MPI_Errhandler_f2c", "MPI_Errhandler_c2f", "MPI_Error_string", "MPI_Error_class",
    "MPI_Add_error_class", "MPI_Remove_error_class", "MPI_Add_error_code",
    "MPI_Remove_error_code", "MPI_Add_error_string", "MPI_Remove_error_string",
};

bool chk_outside_allowed(const char *name)
{
    if (strncmp(name, "MPI_T_", 6) == 0 || strncmp(name, "MPI_Session_", 12) == 0) return true;
    for (size_t i = 0; i < sizeof always / sizeof *always; i++)
        if (strcmp(name, always[i]) == 0) return true;
    return false;
}

/* Whether MPISCOPE_MODE selects the check module; before MPI_Init from the
 * environment (read once, quietly), afterwards from what MPI_Init read. */
static void quiet(const char *message, void *arg)
{
    (void)message;
    (void)arg;
}

static bool check_selected(const msc_settings_t *s)
{
    const char *choices = msc_setting_desc(MSC_SET_MODE)->choices;
    int bit = 0;
    for (const char *p = choices; *p; bit++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == 5 && strncmp(p, "check", 5) == 0) return (s->v[MSC_SET_MODE].num >> bit) & 1;
        if (!bar) break;
        p = bar + 1;
    }
    return false;
}

static msc_settings_t early_settings;

static bool decide(void)
{
    if (enabled >= 0) return enabled;
    msc_settings_load(&early_settings, NULL, quiet, NULL);
    enabled = check_selected(&early_settings);
    if (enabled && !chk_cfg.classes) chk_cfg.classes = early_settings.v[MSC_SET_CHECK_CLASSES].str;
    return enabled;
}

static const char *const cls_of[3] = {"LOCAL:CALL:BEFORE_INIT", "LOCAL:CALL:AFTER_FINALIZE",
                                      "LOCAL:CALL:INIT_TWICE"};
enum { BEFORE = 0, AFTER = 1, TWICE = 2 };

static void explain(char *out, size_t n, msc_fn_t fn, int when)
{
    if (when == BEFORE)
        snprintf(out, n,
                 "%s was called before MPI_Init. Until MPI_Init (or MPI_Init_thread) has "
                 "returned, only the functions the standard lists as always available "
                 "(MPI_Initialized, MPI_Finalized, MPI_Get_version, the MPI_Info and "
                 "error-string functions, MPI_T_*) may be called; most MPI libraries abort at "
                 "such a call. Call MPI_Init first.",
                 msc_fn_name[fn]);
    else if (when == AFTER)
        snprintf(out, n,
                 "%s was called after MPI_Finalize. Once MPI_Finalize has returned, no MPI "
                 "function may be called (not MPI_Init, not MPI_Finalize again) except those "
                 "the standard lists as always available (MPI_Initialized, MPI_Finalized, "
                 "MPI_Get_version, MPI_Get_library_version, the MPI_Info and error-string "
                 "functions, MPI_T_*); most MPI libraries abort at such a call. Move the call "
                 "before MPI_Finalize, or test MPI_Finalized first.",
                 msc_fn_name[fn]);
    else
        snprintf(out, n,
                 "%s was called, but MPI was initialized already. MPI_Init and "
                 "MPI_Init_thread may be called at most once per process (MPI-3.1 section "
                 "8.7); most MPI libraries abort at a second call. Ask MPI_Initialized before "
                 "initializing in code that may run after MPI_Init.",
                 msc_fn_name[fn]);
}

/* World rank of this process before MPI_Init, from the launcher; -1 if none
 * says. */
static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long r = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && !*end && r >= 0 && r < 1 << 30) return (int)r;
    }
    return -1;
}

/* A finding before MPI_Init goes to <MPISCOPE_OUTPUT>/checks.rank<R>.jsonl
 * at once, when the output directory is given and the launcher names the
 * rank: the MPI library will likely abort at this call. If MPI_Init comes,
 * the check module starts that file afresh and records the finding again
 * (chk_outside_init). */
static void early_file(const chk_finding_t *f, int rank)
{
    const char *dir = early_settings.v[MSC_SET_OUTPUT].str;
    if (rank < 0 || !dir || !*dir) return;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/checks.rank%d.jsonl", dir, rank) >= (int)sizeof path)
        return;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) return;
    char *buf = malloc(CHK_LINE_MAX);
    int fd = buf ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        size_t n = chk_io_encode(f, buf, CHK_LINE_MAX);
        if (write(fd, buf, n) != (ssize_t)n) { /* nothing more to do: stderr has it */
        }
        close(fd);
    }
    free(buf);
}

static void outside(msc_fn_t fn, void *site, int phase)
{
    const char *name = msc_fn_name[fn];
    if (strcmp(name, "MPI_Session_init") == 0) {
        session_seen = true;
        return;
    }
    if (session_seen || chk_outside_allowed(name)) return;
    int when = phase == MSC_PHASE_BEFORE_INIT ? BEFORE : phase == MSC_PHASE_DONE ? AFTER : TWICE;
    if (when != BEFORE) {
        /* The check module has run (or runs): a finding like any other, on
         * stderr and in the per-rank file, which findings.c opens again
         * after MPI_Finalize. */
        pthread_mutex_lock(&olock);
        bool on = decide();
        pthread_mutex_unlock(&olock);
        if (!on) return;
        char text[CHK_TEXT];
        explain(text, sizeof text, fn, when);
        chk_report(cls_of[when], fn, site, "%s", text);
        return;
    }
    pthread_mutex_lock(&olock);
    if (!decide() || !chk_class_enabled(cls_of[BEFORE])) {
        pthread_mutex_unlock(&olock);
        return;
    }
    bool say = true;
    for (int i = 0; i < nsaid; i++)
        if (said[i] == fn) say = false;
    if (say && nsaid == OUTSIDE_NAMED) {
        unsaid++;
        say = false;
    } else if (say) {
        said[nsaid++] = fn;
    }
    int i = 0;
    while (i < nearly && !(early[i].fn == fn && early[i].site == site)) i++;
    if (i < nearly)
        early[i].count++;
    else if (nearly < OUTSIDE_MAX)
        early[nearly++] = (early_t){fn, site, 1};
    else
        early_dropped++;
    pthread_mutex_unlock(&olock);
    if (!say) return;
    chk_finding_t *f = calloc(1, sizeof *f);
    if (!f) return;
    snprintf(f->cls, sizeof f->cls, "%s", cls_of[BEFORE]);
    explain(f->text, sizeof f->text, fn, BEFORE);
    f->nparts = 1;
    f->count = 1;
    chk_part_t *p = &f->parts[0];
    p->rank = msc_g.world_rank;
    p->site = site;
    snprintf(p->call, sizeof p->call, "%s", name);
    chk_resolve(p);
    msc_warn("check: %s: %s called before MPI_Init at %s:%d%s%s (only the functions the "
             "standard lists as always available may be called before MPI_Init)",
             cls_of[BEFORE], name, p->file, p->line, p->func[0] ? " in " : "", p->func);
    p->rank = launcher_rank();
    early_file(f, p->rank);
    free(f);
}

void chk_outside_init(void)
{
    pthread_mutex_lock(&olock);
    enabled = 1;
    int n = nearly;
    nearly = 0;
    uint64_t dropped = early_dropped;
    pthread_mutex_unlock(&olock);
    for (int i = 0; i < n; i++) {
        char text[CHK_TEXT];
        explain(text, sizeof text, early[i].fn, BEFORE);
        for (uint64_t k = 0; k < early[i].count; k++)
            chk_report(cls_of[0], early[i].fn, early[i].site, "%s", text);
    }
    if (dropped)
        msc_warn("check: %llu more calls before MPI_Init at other sites were not kept (the first "
                 "%d are)",
                 (unsigned long long)dropped, OUTSIDE_MAX);
}

MSC_CONSTRUCTOR static void chk_outside_register(void)
{
    msc_outside_hook = outside;
}
