/* Calls made outside MPI: before MPI_Init or after MPI_Finalize
 * (LOCAL:CALL:BEFORE_INIT, LOCAL:CALL:AFTER_FINALIZE). The wrappers' gate
 * keeps such calls away from every module, so the core hands them to the
 * hook set here (msc_outside_hook, runtime.h) from the first-call branch of
 * msc_call_begin, which only unregistered threads take: no cost is added to
 * the path of any call made while MPI runs. The functions the standard lets
 * a program call at any time (MPI 4.1 table 9 / 4.0 section 11.4.1: the
 * MPI_Info, error-class and error-handler functions listed there,
 * MPI_Initialized, MPI_Finalized, MPI_Get_version,
 * MPI_Get_library_version, every MPI_T_ function) are not flagged, and
 * neither is anything after MPI_Session_init (the Sessions model needs no
 * MPI_Init). Most MPI libraries abort on such a call, so the finding goes to
 * stderr at once, one line per function, before the call proceeds unchanged;
 * a call before MPI_Init is also kept (up to OUTSIDE_MAX distinct functions
 * and sites) and becomes a finding in checks.txt/json when the check module
 * starts. After MPI_Finalize there is no communicator left to gather
 * findings over, so those stay on stderr. Before MPI_Init the settings are
 * not read yet: this file reads MPISCOPE_MODE and MPISCOPE_CHECK_CLASSES
 * itself, silently (MPI_Init reports bad values). Limits: after
 * MPI_Finalize only the thread that called it is watched (other threads keep
 * their closed gates); hand-written wrappers (MPI_Init*, MPI_Finalize,
 * MPI_Pcontrol) are not checked; the hook never calls MPI.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
static msc_fn_t said[2][OUTSIDE_NAMED];
static int nsaid[2];
static uint64_t unsaid[2];

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

static bool decide(void)
{
    if (enabled >= 0) return enabled;
    static msc_settings_t s;
    msc_settings_load(&s, NULL, quiet, NULL);
    enabled = check_selected(&s);
    if (enabled && !chk_cfg.classes) chk_cfg.classes = s.v[MSC_SET_CHECK_CLASSES].str;
    return enabled;
}

static const char *const cls_of[2] = {"LOCAL:CALL:BEFORE_INIT", "LOCAL:CALL:AFTER_FINALIZE"};

static void explain(char *out, size_t n, msc_fn_t fn)
{
    snprintf(out, n,
             "%s was called before MPI_Init. Until MPI_Init (or MPI_Init_thread) has returned, "
             "only the functions the standard lists as always available (MPI_Initialized, "
             "MPI_Finalized, MPI_Get_version, the MPI_Info and error-string functions, "
             "MPI_T_*) may be called; most MPI libraries abort at such a call. Call MPI_Init "
             "first.",
             msc_fn_name[fn]);
}

static void outside(msc_fn_t fn, void *site, bool after)
{
    const char *name = msc_fn_name[fn];
    if (strcmp(name, "MPI_Session_init") == 0) {
        session_seen = true;
        return;
    }
    if (session_seen || chk_outside_allowed(name)) return;
    pthread_mutex_lock(&olock);
    if (!decide() || !chk_class_enabled(cls_of[after])) {
        pthread_mutex_unlock(&olock);
        return;
    }
    bool say = true;
    for (int i = 0; i < nsaid[after]; i++)
        if (said[after][i] == fn) say = false;
    if (say && nsaid[after] == OUTSIDE_NAMED) {
        unsaid[after]++;
        say = false;
    } else if (say) {
        said[after][nsaid[after]++] = fn;
    }
    if (!after) {
        int i = 0;
        while (i < nearly && !(early[i].fn == fn && early[i].site == site)) i++;
        if (i < nearly)
            early[i].count++;
        else if (nearly < OUTSIDE_MAX)
            early[nearly++] = (early_t){fn, site, 1};
        else
            early_dropped++;
    }
    pthread_mutex_unlock(&olock);
    if (!say) return;
    chk_part_t p = {.rank = msc_g.world_rank, .site = site};
    chk_resolve(&p);
    msc_warn("check: %s: %s called %s at %s:%d%s%s (only the functions the standard lists "
             "as always available may be called %s)",
             cls_of[after], name, after ? "after MPI_Finalize" : "before MPI_Init", p.file,
             p.line, p.func[0] ? " in " : "", p.func,
             after ? "after MPI_Finalize" : "before MPI_Init");
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
        explain(text, sizeof text, early[i].fn);
        for (uint64_t k = 0; k < early[i].count; k++)
            chk_report(cls_of[0], early[i].fn, early[i].site, "%s", text);
    }
    if (dropped)
        msc_warn("check: %llu more calls before MPI_Init at other sites were not kept (the first "
                 "%d are)",
                 (unsigned long long)dropped, OUTSIDE_MAX);
}

__attribute__((constructor)) static void chk_outside_register(void)
{
    msc_outside_hook = outside;
}
