/* `mpiscope run`: launch an MPI program with the tool loaded in every rank.
 *
 * The work happens in a fixed order, and nothing is started until every step
 * before the launch has succeeded:
 *   1. options, each value checked by the settings parser the library uses
 *      (msc_setting_parse), so a value the library would refuse is refused
 *      here, with the same message, before any rank runs;
 *   2. every MPISCOPE_* variable of the environment, checked the same way;
 *   3. the command: a launcher (mpirun*, mpiexec*, orterun, prterun, srun)
 *      and the program it starts, or a program alone (an MPI singleton);
 *   4. the MPI: --mpi, else the program's DT_NEEDED list, else the launcher
 *      (--mpi naming the other MPI than DT_NEEDED's is refused, exit 2);
 *      that picks the tool library <prefix>/<libdir>/mpiscope/<mpi>;
 *   5. the variables for the ranks: LD_PRELOAD (the user's, then ours) and
 *      every MPISCOPE_* setting given, plus MPISCOPE_OUTPUT (absolute, so
 *      ranks in another working directory agree) and MPISCOPE_QUIET;
 *   6. the output directory, created before the launch so that its name is
 *      known and printed even if the run fails;
 *   7. fork and execvp of the launcher, whose own environment is the user's,
 *      untouched; the variables travel on its command line. A singleton gets
 *      them in its environment, since it is the rank.
 * While the launcher runs, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and
 * SIGUSR2 sent to mpiscope are passed on to it. Signals the terminal sends
 * already reach the launcher (it is in our process group), so those are not
 * passed twice: Open MPI's mpirun treats a second SIGINT as "kill at once,
 * skip the clean-up".
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/profile/banner.h"
#include "commands.h"
#include "launcher.h"
#include "mpi_detect.h"
#include "outdir.h"
#include "spawn_match.h"
#include "paths.h"
#include "settings.h"

extern char **environ;

/* Exit codes; the launched command's own are passed through. */
enum {
    EXIT_USAGE = 2,       /* nothing was started: a bad option, setting or command */
    EXIT_CANNOT_RUN = 126, /* the command was found but could not be executed */
    EXIT_NOT_FOUND = 127, /* the command was not found */
};

typedef struct {
    /* The text of each setting to pass to the ranks; NULL when not given. */
    const char *value[MSC_SET_COUNT];
    /* MPISCOPE_TEST_* variables of the environment, passed through unchecked. */
    const char **test_vars;
    int ntest_vars;
    bool add_trace, add_check; /* --trace, --check */
    bool quiet;                /* --quiet */
    bool dry_run;              /* --dry-run */
    bool verbose;              /* --verbose */
    msc_mpi_t mpi;             /* --mpi, or MSC_MPI_UNKNOWN */
    int cmd_argc;              /* the command after the options */
    char **cmd_argv;
} run_request_t;

/* Memory allocated while preparing the launch; freed when the command ends. */
static void **made;
static int nmade, capmade;

static void *keep(void *s)
{
    if (!s) {
        fprintf(stderr, "mpiscope: out of memory\n");
        exit(EXIT_USAGE);
    }
    if (nmade == capmade) {
        capmade = capmade ? 2 * capmade : 16;
        void **m = realloc(made, (size_t)capmade * sizeof *m);
        if (!m) {
            fprintf(stderr, "mpiscope: out of memory\n");
            exit(EXIT_USAGE);
        }
        made = m;
    }
    return made[nmade++] = s;
}

static char *keepf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *keepf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return keep(s);
}

static void free_made(void)
{
    for (int i = 0; i < nmade; i++) free(made[i]);
    free(made);
    made = NULL;
    nmade = capmade = 0;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiscope run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static void print_help(FILE *out)
{
    const msc_setting_desc_t *depth = msc_setting_desc(MSC_SET_CALLSITE_DEPTH);
    fprintf(out,
            "usage: mpiscope run [options] -- <launcher> [launcher options] <program> [args]\n"
            "       mpiscope run [options] -- <program> [args]\n"
            "\n"
            "Runs an MPI program with the mpiscope tool library loaded into every rank,\n"
            "and into nothing else. The launcher (mpirun*, mpiexec*, orterun, prterun or\n"
            "srun) is told on its command line to give LD_PRELOAD and the MPISCOPE_*\n"
            "settings to the ranks, so that ranks on other nodes get them as well.\n"
            "Without a launcher the program runs as one process (an MPI singleton).\n"
            "\n"
            "Options:\n"
            "  -o, --output DIR      write the results into DIR (created if needed); default:\n"
            "                        a new mpiscope-<program>-<YYYYmmdd-HHMMSS>-<pid> here\n"
            "  --mode LIST           what to record: a comma-separated list of\n"
            "                        %s\n"
            "  --trace, --check      record this as well (added to --mode, or to profile)\n"
            "  --mpi openmpi|mpich   the MPI the program uses; default: found from the\n"
            "                        libraries the program is linked with, else from the\n"
            "                        launcher\n"
            "  --callsite-depth N    stack frames kept per call site (%lld to %lld)\n"
            "  --set NAME=VALUE      any setting below (the MPISCOPE_ may be left out)\n"
            "  --cvar NAME=VALUE     write MPI_T control variable NAME at start-up (added to\n"
            "                        MPISCOPE_CVARS; may be repeated; see mpiscope vars)\n"
            "  --quiet               print no closing line (neither mpiscope nor the library)\n"
            "  --dry-run             print the command that would run, and stop\n"
            "  --verbose             say how the launcher and the MPI were recognised\n"
            "  -h, --help            show this help\n"
            "Options must come before the command; '--' ends them.\n"
            "\n"
            "Settings (environment variables, checked before anything is launched):\n",
            msc_setting_desc(MSC_SET_MODE)->choices, depth->lo, depth->hi);
    msc_settings_print_help(out);
    fprintf(out,
            "\n"
            "Exit status: the launcher's (128+N if it was killed by signal N); 2 if\n"
            "mpiscope found a problem and started nothing; 126 or 127 if the command\n"
            "could not be executed or was not found.\n"
            "\n"
            "Examples:\n"
            "  mpiscope run -- mpirun -np 4 ./app\n"
            "  mpiscope run -o results --trace -- mpiexec -n 2 ./app input.dat\n"
            "  mpiscope run -- ./app\n");
}

/* ---- options ---------------------------------------------------------- */

typedef enum {
    OPT_OUTPUT, OPT_MODE, OPT_TRACE, OPT_CHECK, OPT_MPI, OPT_CALLSITE_DEPTH, OPT_SET,
    OPT_QUIET, OPT_DRY_RUN, OPT_VERBOSE, OPT_HELP, OPT_CVAR,
} option_id_t;

static const struct {
    const char *name;  /* long name, without "--" */
    char letter;       /* short name, or 0 */
    option_id_t id;
    const char *value; /* what the value is, for messages; NULL: no value */
} options[] = {
    {"output", 'o', OPT_OUTPUT, "a directory"},
    {"mode", 0, OPT_MODE, "a list of profile,trace,check,none"},
    {"trace", 0, OPT_TRACE, NULL},
    {"check", 0, OPT_CHECK, NULL},
    {"mpi", 0, OPT_MPI, "openmpi or mpich"},
    {"callsite-depth", 0, OPT_CALLSITE_DEPTH, "a number of stack frames"},
    {"set", 0, OPT_SET, "NAME=VALUE"},
    {"cvar", 0, OPT_CVAR, "NAME=VALUE (an MPI_T control variable)"},
    {"quiet", 0, OPT_QUIET, NULL},
    {"dry-run", 0, OPT_DRY_RUN, NULL},
    {"verbose", 0, OPT_VERBOSE, NULL},
    {"help", 'h', OPT_HELP, NULL},
};

#define ALLOWED_OPTIONS                                                                       \
    "the options are -o/--output DIR, --mode LIST, --trace, --check, --mpi openmpi|mpich, "   \
    "--callsite-depth N, --set NAME=VALUE, --cvar NAME=VALUE, --quiet, --dry-run, "       \
    "--verbose, -h/--help; "                                                                 \
    "put the command after '--'"

/* The names of all settings, comma-separated, for messages. */
static const char *known_settings(char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < MSC_SET_COUNT; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                 msc_setting_desc((msc_setting_id_t)i)->name);
    }
    return buf;
}

/* Checks `text` as setting `id` and records it. `option` names where the
 * value came from, for the message. Returns 0 or an exit code. */
static int take_setting(run_request_t *r, msc_setting_id_t id, const char *text,
                        const char *option)
{
    msc_setting_value_t v;
    char err[MSC_SETTING_MAX_STRING + 256];
    if (!msc_setting_parse(id, text, &v, err, sizeof err))
        return usage_error("%s: %s", option, err);
    r->value[id] = text;
    return 0;
}

/* --set NAME=VALUE, where NAME may lack the MPISCOPE_ prefix and be in any case. */
static int take_set(run_request_t *r, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return usage_error("--set '%s' is not NAME=VALUE (e.g. --set MPISCOPE_TRACE_BUFFER=16M)", arg);
    size_t n = (size_t)(eq - arg);
    char name[128] = "MPISCOPE_";
    size_t skip = (n > 9 && strncasecmp(arg, "MPISCOPE_", 9) == 0) ? 9 : 0;
    if (n - skip + 10 > sizeof name) return usage_error("--set: no setting is named %.*s", (int)n, arg);
    for (size_t i = skip; i < n; i++) {
        char c = arg[i];
        name[9 + i - skip] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : (c == '-' ? '_' : c);
    }
    name[9 + n - skip] = 0;
    msc_setting_id_t id = msc_setting_find(name);
    if (id == MSC_SET_COUNT) {
        char known[2048];
        return usage_error("--set %.*s: no such setting; the settings are %s", (int)n, arg,
                           known_settings(known, sizeof known));
    }
    return take_setting(r, id, eq + 1, "--set");
}

/* --cvar NAME=VALUE: one more entry of MPISCOPE_CVARS (src/mpit/cvars.c),
 * after those given before it (--set, earlier --cvar). */
static int take_cvar(run_request_t *r, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || strchr(arg, ',') || strchr(arg, ' '))
        return usage_error("--cvar '%s' is not NAME=VALUE (one control variable, no comma; "
                           "e.g. --cvar MPIR_CVAR_ASYNC_PROGRESS=1)",
                           arg);
    const char *before = r->value[MSC_SET_CVARS];
    const char *joined = before && *before ? keepf("%s,%s", before, arg) : arg;
    return take_setting(r, MSC_SET_CVARS, joined, "--cvar");
}

static int take_option(run_request_t *r, option_id_t id, const char *value)
{
    switch (id) {
    case OPT_OUTPUT:
        if (!*value) return usage_error("--output needs a directory, not an empty name");
        return take_setting(r, MSC_SET_OUTPUT, value, "--output");
    case OPT_MODE: return take_setting(r, MSC_SET_MODE, value, "--mode");
    case OPT_CALLSITE_DEPTH:
        return take_setting(r, MSC_SET_CALLSITE_DEPTH, value, "--callsite-depth");
    case OPT_SET: return take_set(r, value);
    case OPT_CVAR: return take_cvar(r, value);
    case OPT_MPI:
        r->mpi = msc_mpi_from_name(value);
        if (r->mpi == MSC_MPI_UNKNOWN)
            return usage_error("--mpi '%s' is not an MPI mpiscope knows; use openmpi or mpich",
                               value);
        return 0;
    case OPT_TRACE: r->add_trace = true; return 0;
    case OPT_CHECK: r->add_check = true; return 0;
    case OPT_QUIET: r->quiet = true; return 0;
    case OPT_DRY_RUN: r->dry_run = true; return 0;
    case OPT_VERBOSE: r->verbose = true; return 0;
    case OPT_HELP: print_help(stdout); return -1; /* done, exit 0 */
    }
    return 0;
}

/* Returns 0 when the command is ready in r->cmd_*, -1 after --help, or an
 * exit code. */
static int parse_options(run_request_t *r, int argc, char **argv)
{
    int i = 0;
    while (i < argc) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0) break; /* the command starts here */
        int found = -1;
        const char *value = NULL;
        char shown[64];
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
                if (strlen(options[k].name) == len && strncmp(options[k].name, a + 2, len) == 0)
                    found = (int)k;
            if (found < 0) return usage_error("unknown option '%s'; " ALLOWED_OPTIONS, a);
            snprintf(shown, sizeof shown, "--%s", options[found].name);
            if (eq) {
                if (!options[found].value)
                    return usage_error("option %s takes no value (given '%s')", shown, eq + 1);
                value = eq + 1;
            }
        } else {
            for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
                if (options[k].letter && options[k].letter == a[1]) found = (int)k;
            if (found < 0) return usage_error("unknown option '%s'; " ALLOWED_OPTIONS, a);
            snprintf(shown, sizeof shown, "-%c", a[1]);
            if (a[2]) {
                if (!options[found].value)
                    return usage_error("unknown option '%s'; " ALLOWED_OPTIONS, a);
                value = a + 2;
            }
        }
        if (options[found].value && !value) {
            if (i + 1 >= argc)
                return usage_error("option %s needs a value: %s", shown, options[found].value);
            value = argv[++i];
        }
        int rc = take_option(r, options[found].id, value);
        if (rc) return rc;
        i++;
    }
    r->cmd_argc = argc - i;
    r->cmd_argv = argv + i;
    if (r->cmd_argc == 0)
        return usage_error("no command to run; usage: mpiscope run [options] -- <launcher> "
                           "[launcher options] <program> [args], or -- <program> [args]");
    return 0;
}

/* ---- the environment --------------------------------------------------- */

/* Checks every MPISCOPE_* variable; the ones no option overrides are passed
 * on. Reports every problem, then returns EXIT_USAGE if there was one. */
static int take_environment(run_request_t *r)
{
    int problems = 0;
    const char *from_env[MSC_SET_COUNT] = {0};
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "MPISCOPE_", 9) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char *name = keep(strndup(*e, (size_t)(eq - *e)));
        msc_setting_id_t id = msc_setting_find(name);
        if (id == MSC_SET_COUNT) {
            if (strncmp(name, "MPISCOPE_TEST_", 14) == 0) { /* test-only knobs */
                const char **t = realloc(r->test_vars, (size_t)(r->ntest_vars + 1) * sizeof *t);
                if (!t) return usage_error("out of memory");
                r->test_vars = t;
                r->test_vars[r->ntest_vars++] = *e;
                continue;
            }
            char known[2048];
            usage_error("the environment has %s, which is no setting; the settings are %s", name,
                        known_settings(known, sizeof known));
            problems++;
            continue;
        }
        msc_setting_value_t v;
        char err[MSC_SETTING_MAX_STRING + 256];
        if (!msc_setting_parse(id, eq + 1, &v, err, sizeof err)) {
            usage_error("in the environment: %s", err);
            problems++;
            continue;
        }
        from_env[id] = eq + 1;
    }
    if (problems) return EXIT_USAGE;
    for (int i = 0; i < MSC_SET_COUNT; i++)
        if (!r->value[i]) r->value[i] = from_env[i];
    /* An empty MPISCOPE_OUTPUT means "the default name", as in the library. */
    if (r->value[MSC_SET_OUTPUT] && !*r->value[MSC_SET_OUTPUT]) r->value[MSC_SET_OUTPUT] = NULL;
    return 0;
}

/* Bit of `word` in the MPISCOPE_MODE list. */
static long long mode_bit(const char *word)
{
    msc_setting_value_t v;
    char err[256];
    return msc_setting_parse(MSC_SET_MODE, word, &v, err, sizeof err) ? v.num : 0;
}

/* Applies --trace and --check to the mode; returns 0 or an exit code. */
static int settle_mode(run_request_t *r)
{
    if (!r->add_trace && !r->add_check) return 0;
    const char *base = r->value[MSC_SET_MODE] ? r->value[MSC_SET_MODE]
                                              : msc_setting_desc(MSC_SET_MODE)->dflt;
    msc_setting_value_t v;
    char err[MSC_SETTING_MAX_STRING + 256];
    if (!msc_setting_parse(MSC_SET_MODE, base, &v, err, sizeof err)) return usage_error("%s", err);
    if (v.num & mode_bit("none"))
        return usage_error("--trace and --check cannot be combined with MPISCOPE_MODE '%s', "
                           "which records nothing",
                           base);
    const char *mode = base;
    if (r->add_trace && !(v.num & mode_bit("trace"))) mode = keepf("%s,trace", mode);
    if (r->add_check && !(v.num & mode_bit("check"))) mode = keepf("%s,check", mode);
    return take_setting(r, MSC_SET_MODE, mode, r->add_trace ? "--trace" : "--check");
}

/* Whether the settled mode has `word` ("none", "check"). */
static bool mode_has(const run_request_t *r, const char *word)
{
    const char *mode = r->value[MSC_SET_MODE] ? r->value[MSC_SET_MODE]
                                              : msc_setting_desc(MSC_SET_MODE)->dflt;
    msc_setting_value_t v;
    char err[MSC_SETTING_MAX_STRING + 256];
    return msc_setting_parse(MSC_SET_MODE, mode, &v, err, sizeof err) &&
           (v.num & mode_bit(word));
}

static bool records_nothing(const run_request_t *r) { return mode_has(r, "none"); }

/* ---- output directory -------------------------------------------------- */

/* mkdir -p with mode 0755 (less the umask), like the library's own. */
static bool make_dirs(const char *path)
{
    char *p = keep(strdup(path));
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return false;
        *s = '/';
    }
    if (mkdir(p, 0755) != 0) {
        if (errno != EEXIST) return false;
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return false;
        }
    }
    return true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- launching --------------------------------------------------------- */

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define NFORWARDED (int)(sizeof forwarded_signals / sizeof forwarded_signals[0])
static volatile sig_atomic_t launched_pid;

static void forward_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    /* SI_KERNEL: from the terminal, to the whole process group; the launcher
     * has it already. */
    if (info && info->si_code == SI_KERNEL) return;
    if (launched_pid > 0) kill((pid_t)launched_pid, sig);
}

/* Runs argv (with `env` added to its environment if nenv > 0) and waits for
 * it. Returns its exit code, 128+N for signal N. */
static int launch(char **argv, const msc_envvar_t *env, int nenv)
{
    sigset_t forwarded, old_mask;
    sigemptyset(&forwarded);
    for (int i = 0; i < NFORWARDED; i++) sigaddset(&forwarded, forwarded_signals[i]);
    sigprocmask(SIG_BLOCK, &forwarded, &old_mask);

    /* A signal ignored when we started (nohup, a background job of a
     * non-interactive shell) stays ignored, in the launcher too. */
    struct sigaction old_action[NFORWARDED];
    bool handled[NFORWARDED];
    for (int i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded_signals[i], NULL, &old_action[i]);
        handled[i] = old_action[i].sa_handler != SIG_IGN;
        if (!handled[i]) continue;
        struct sigaction sa = {0};
        sa.sa_sigaction = forward_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded_signals[i], &sa, NULL);
    }

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < NFORWARDED; i++)
            if (handled[i]) sigaction(forwarded_signals[i], &old_action[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        for (int i = 0; i < nenv; i++) setenv(env[i].name, env[i].value, 1);
        execvp(argv[0], argv);
        int err = errno;
        fprintf(stderr, "mpiscope run: cannot run '%s': %s\n", argv[0], strerror(err));
        _exit(err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
    }
    if (pid < 0) {
        int err = errno;
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        fprintf(stderr, "mpiscope run: cannot start '%s': %s\n", argv[0], strerror(err));
        return EXIT_CANNOT_RUN;
    }
    launched_pid = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "mpiscope run: waiting for '%s': %s\n", argv[0], strerror(errno));
            status = EXIT_CANNOT_RUN << 8;
            break;
        }
    }
    launched_pid = 0;
    for (int i = 0; i < NFORWARDED; i++)
        if (handled[i]) sigaction(forwarded_signals[i], &old_action[i], NULL);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* ---- the command ------------------------------------------------------- */

static int run(run_request_t *r)
{
    int rc = settle_mode(r);
    if (rc) return rc;

    /* 3. The command: a launcher and its program, or a program alone. */
    char **cmd = r->cmd_argv;
    msc_launcher_t kind = msc_launcher_by_name(cmd[0]);
    char *launcher_path = NULL, *program_path = NULL;
    msc_mpi_t launcher_mpi = MSC_MPI_UNKNOWN;
    char launcher_why[PATH_MAX + 512] = "", program_why[PATH_MAX + 512] = "";
    int program_index = 0;
    if (kind != MSC_LAUNCHER_NONE) {
        launcher_path = msc_find_executable(cmd[0]);
        if (!launcher_path) {
            fprintf(stderr, "mpiscope run: cannot find the launcher '%s'%s\n", cmd[0],
                    strchr(cmd[0], '/') ? "" : " in PATH");
            return EXIT_NOT_FOUND;
        }
        keep(launcher_path);
        if (kind == MSC_LAUNCHER_MPIRUN) {
            launcher_mpi = msc_mpi_of_launcher(launcher_path, launcher_why, sizeof launcher_why);
            if (launcher_mpi != MSC_MPI_UNKNOWN) kind = msc_launcher_for_mpi(launcher_mpi);
        }
        program_index = msc_launcher_program(kind, r->cmd_argc, cmd, &program_path);
        if (program_path) keep(program_path);
        if (program_index < 0)
            snprintf(program_why, sizeof program_why,
                     "no argument of '%s' is an executable file", cmd[0]);
    } else {
        program_path = msc_find_executable(cmd[0]);
        if (!program_path) {
            fprintf(stderr, "mpiscope run: cannot find the program '%s'%s\n", cmd[0],
                    strchr(cmd[0], '/') ? "" : " in PATH");
            return EXIT_NOT_FOUND;
        }
        keep(program_path);
    }

    /* 4. The MPI. */
    msc_mpi_t program_mpi = MSC_MPI_UNKNOWN;
    if (program_index >= 0)
        program_mpi = msc_mpi_of_program(program_path, program_why, sizeof program_why);
    msc_mpi_t mpi = r->mpi;
    if (mpi == MSC_MPI_UNKNOWN) mpi = program_mpi;
    if (mpi == MSC_MPI_UNKNOWN) mpi = launcher_mpi;
    if (r->verbose) {
        if (kind != MSC_LAUNCHER_NONE)
            fprintf(stderr, "mpiscope run: launcher %s (%s)%s%s\n", launcher_path,
                    msc_launcher_describe(kind), *launcher_why ? ": " : "", launcher_why);
        fprintf(stderr, "mpiscope run: program: %s\n", program_why);
    }
    if (mpi == MSC_MPI_UNKNOWN) {
        if (kind == MSC_LAUNCHER_NONE || !*launcher_why)
            return usage_error("cannot tell which MPI '%s' uses (%s); give --mpi openmpi or "
                               "--mpi mpich",
                               cmd[program_index < 0 ? 0 : program_index], program_why);
        return usage_error("cannot tell which MPI the command uses (%s; %s); give --mpi "
                           "openmpi or --mpi mpich",
                           program_why, launcher_why);
    }
    /* The tool library of one MPI in a program linked with the other: the
     * two ABIs differ (handles are ints in MPICH, pointers in Open MPI), so
     * every rank would crash in its first wrapped call. Refused before
     * anything is launched; the program's DT_NEEDED list is the evidence. */
    if (r->mpi != MSC_MPI_UNKNOWN && program_mpi != MSC_MPI_UNKNOWN && program_mpi != r->mpi)
        return usage_error("--mpi %s, but %s, so it uses %s: the %s tool library cannot be "
                           "loaded into it (different ABIs; every rank would crash); drop "
                           "--mpi or give --mpi %s",
                           msc_mpi_name(r->mpi), program_why, msc_mpi_name(program_mpi),
                           msc_mpi_name(r->mpi), msc_mpi_name(program_mpi));
    /* The other MPI's launcher rarely works, but the user may know better:
     * say so and go on. */
    if (launcher_mpi != MSC_MPI_UNKNOWN && launcher_mpi != mpi)
        fprintf(stderr, "mpiscope run: warning: %s (%s), but %s (%s)\n", program_why,
                msc_mpi_name(mpi), launcher_why, msc_mpi_name(launcher_mpi));
    if (kind == MSC_LAUNCHER_MPIRUN) kind = msc_launcher_for_mpi(mpi);

    char library[2 * (PATH_MAX + 256) + 1]; /* the heap library's path may join it */
    if (!msc_tool_library(msc_mpi_name(mpi), library, sizeof library)) {
        fprintf(stderr, "mpiscope run: the tool library for %s is missing (%s); was mpiscope "
                        "built with %s?\n",
                msc_mpi_name(mpi), library, msc_mpi_name(mpi));
        return EXIT_USAGE;
    }
    /* Check mode's allocator interposer goes before the tool library (it
     * only defines the allocation functions); other modes never load it. A
     * missing one costs the heap blocks' checks only: said, and run. */
    if (mode_has(r, "check") && !records_nothing(r)) {
        char heap[PATH_MAX + 256];
        if (msc_heap_library(heap, sizeof heap)) {
            size_t hn = strlen(heap), ln = strlen(library);
            if (hn + 1 + ln < sizeof library) {
                memmove(library + hn + 1, library, ln + 1);
                memcpy(library, heap, hn);
                library[hn] = ':';
            }
        } else {
            fprintf(stderr, "mpiscope run: warning: check mode's allocator library is missing "
                            "(%s); buffers in heap blocks are not checked against their "
                            "blocks\n",
                    heap);
        }
    }

    /* 5. The variables for the ranks. */
    bool nothing = records_nothing(r);
    const char *shown_dir = r->value[MSC_SET_OUTPUT];
    if (!shown_dir) {
        const char *program = program_index >= 0 ? base_name(program_path) : "app";
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        shown_dir = keepf("mpiscope-%s-%s-%ld", *program ? program : "app", stamp, (long)getpid());
    }
    if (shown_dir[0] == '/') {
        r->value[MSC_SET_OUTPUT] = shown_dir;
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "mpiscope run: cannot tell the current directory: %s\n",
                    strerror(errno));
            return EXIT_USAGE;
        }
        const char *rel = shown_dir;
        while (rel[0] == '.' && rel[1] == '/') rel += 2;
        r->value[MSC_SET_OUTPUT] = keepf("%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", rel);
    }
    rc = take_setting(r, MSC_SET_OUTPUT, r->value[MSC_SET_OUTPUT], "--output");
    if (rc) return rc;
    bool quiet = r->quiet;
    if (r->quiet) {
        r->value[MSC_SET_QUIET] = "1";
    } else if (r->value[MSC_SET_QUIET]) {
        msc_setting_value_t v;
        char err[256];
        quiet = msc_setting_parse(MSC_SET_QUIET, r->value[MSC_SET_QUIET], &v, err, sizeof err) &&
                v.num;
    } else {
        r->value[MSC_SET_QUIET] = "1"; /* mpiscope prints the closing line itself */
    }

    msc_envvar_t *vars = malloc((size_t)(MSC_SET_COUNT + 1 + r->ntest_vars) * sizeof *vars);
    if (!vars) return usage_error("out of memory");
    keep(vars);
    int nvars = 0;
    /* The user's LD_PRELOAD stays, before ours: the one the launcher's options
     * would give the ranks, else the one of the environment. */
    const char *preload = kind != MSC_LAUNCHER_NONE
                              ? msc_launcher_preload_option(kind, r->cmd_argc, cmd)
                              : NULL;
    if (!preload) preload = getenv("LD_PRELOAD");
    vars[nvars++] = (msc_envvar_t){"LD_PRELOAD", (preload && *preload)
                                                     ? keepf("%s:%s", preload, library)
                                                     : library};
    for (int i = 0; i < MSC_SET_COUNT; i++)
        if (r->value[i])
            vars[nvars++] = (msc_envvar_t){msc_setting_desc((msc_setting_id_t)i)->name,
                                           r->value[i]};
    for (int i = 0; i < r->ntest_vars; i++) {
        const char *eq = strchr(r->test_vars[i], '=');
        vars[nvars++] = (msc_envvar_t){keep(strndup(r->test_vars[i], (size_t)(eq - r->test_vars[i]))),
                                       eq + 1};
    }

    msc_argv_t command = {0};
    if (kind != MSC_LAUNCHER_NONE) {
        char err[MSC_SETTING_MAX_STRING + 256];
        if (!msc_launcher_command(kind, r->cmd_argc, cmd, vars, nvars, &command, err,
                                  sizeof err))
            return usage_error("%s", err);
    }

    if (r->dry_run) {
        if (kind == MSC_LAUNCHER_NONE) {
            for (int i = 0; i < nvars; i++) {
                fprintf(stdout, "%s=", vars[i].name);
                msc_print_shell_word(stdout, vars[i].value);
                fputc(' ', stdout);
            }
        }
        char **words = kind == MSC_LAUNCHER_NONE ? cmd : command.argv;
        for (int i = 0; words[i]; i++) {
            if (i) fputc(' ', stdout);
            msc_print_shell_word(stdout, words[i]);
        }
        fputc('\n', stdout);
        msc_argv_free(&command);
        return 0;
    }

    /* 6. The output directory. */
    struct stat before;
    bool existed = stat(r->value[MSC_SET_OUTPUT], &before) == 0;
    if (!nothing && !make_dirs(r->value[MSC_SET_OUTPUT])) {
        int err = errno;
        msc_argv_free(&command);
        fprintf(stderr, "mpiscope run: cannot create the output directory '%s': %s\n", shown_dir,
                strerror(err));
        return EXIT_USAGE;
    }
    /* An existing directory must be writable (a read-only mount or an
     * immutable directory stops root too), and must not hold another run's
     * results, which this run would mix with its own. */
    int werr = 0;
    char held[512];
    if (!nothing && !msc_outdir_writable(r->value[MSC_SET_OUTPUT], &werr)) {
        msc_argv_free(&command);
        fprintf(stderr, "mpiscope run: cannot write in the output directory '%s': %s\n",
                shown_dir, strerror(werr));
        return EXIT_USAGE;
    }
    if (!nothing && msc_outdir_results(r->value[MSC_SET_OUTPUT], held, sizeof held)) {
        msc_argv_free(&command);
        fprintf(stderr, "mpiscope run: the output directory '%s' holds another run's results "
                        "(%s); give a new directory with -o, or remove them\n", shown_dir, held);
        return EXIT_USAGE;
    }

    /* 7. Launch. */
    if (kind == MSC_LAUNCHER_NONE)
        rc = launch(cmd, vars, nvars);
    else
        rc = launch(command.argv, NULL, 0);
    msc_argv_free(&command);
    /* Say what was written, or that nothing was and why. */
    if (!quiet && !nothing) {
        msc_banner_print(stderr, r->value[MSC_SET_OUTPUT], shown_dir);
        /* Each world that MPI_Comm_spawn made, with results of its own. */
        char **worlds = NULL;
        int nw = msc_outdir_worlds(r->value[MSC_SET_OUTPUT], &worlds);
        int procs = 0, unknown = 0, n0 = msc_banner_ranks(r->value[MSC_SET_OUTPUT]);
        int spawned = msc_banner_spawned(r->value[MSC_SET_OUTPUT]);
        if (n0 < 0) unknown++;
        else procs += n0;
        for (int i = 0; i < nw; i++) {
            char *dir = keepf("%s/worlds/%s", r->value[MSC_SET_OUTPUT], worlds[i]);
            char *shown = keepf("%s/worlds/%s", shown_dir, worlds[i]);
            fprintf(stderr, "mpiscope: spawned world %d of %d, %s:\n", i + 1, nw, worlds[i]);
            if (!msc_banner_print(stderr, dir, shown))
                fprintf(stderr, "mpiscope: no profile in %s\n", shown);
            int n = msc_banner_ranks(dir);
            if (n < 0) unknown++;
            else procs += n;
            spawned += msc_banner_spawned(dir);
        }
        if (nw)
            fprintf(stderr, "mpiscope: %d worlds (the job's and %d spawned), %d processes%s\n",
                    nw + 1, nw, procs, unknown ? " in the worlds with a profile" : "");
        if (spawned > nw) {
            fprintf(stderr, "mpiscope: %d of the %d worlds MPI_Comm_spawn made left no results "
                            "(spawned without mpiscope loaded, or failed before MPI_Init)%s\n",
                    spawned - nw, spawned, spawned - nw > 1 ? "; the calls that made them:"
                                                            : "; the call that made it:");
            char **missing = NULL;
            int nm = msc_spawns_unanswered(r->value[MSC_SET_OUTPUT], &missing);
            for (int i = 0; i < nm; i++) fprintf(stderr, "mpiscope:   %s\n", missing[i]);
            if (!nm) fprintf(stderr, "mpiscope:   (not described: the calls were not recorded)\n");
            msc_spawns_free(missing, nm);
        }
        msc_outdir_worlds_free(worlds, nw);
        size_t n = msc_outdir_results(r->value[MSC_SET_OUTPUT], held, sizeof held);
        if (n) {
            if (msc_outdir_leftovers(r->value[MSC_SET_OUTPUT], shown_dir, rc, stderr) < 2)
                fprintf(stderr, "mpiscope: results in %s (%s)\n", shown_dir, held);
        } else if (rc == 126 || rc == 127)
            fprintf(stderr, "mpiscope: nothing was written to %s: the command could not be "
                            "started (exit code %d)\n", shown_dir, rc);
        else
            fprintf(stderr, "mpiscope: nothing was written to %s: no process of the command "
                            "initialized MPI with mpiscope loaded (not an MPI program, or it "
                            "ended before MPI_Init), or the results could not be written (see "
                            "the messages above)\n", shown_dir);
        /* A directory made for this run and left empty goes again. */
        if (!n && !existed) rmdir(r->value[MSC_SET_OUTPUT]);
    }
    return rc;
}

int msc_cmd_run(int argc, char **argv)
{
    run_request_t r = {0};
    int rc = parse_options(&r, argc, argv);
    if (rc == 0) rc = take_environment(&r);
    if (rc == 0) rc = run(&r);
    free(r.test_vars);
    free_made();
    return rc < 0 ? 0 : rc;
}
