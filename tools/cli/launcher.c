/* Launcher command lines. The tables below list the options of each launcher
 * that take separate values (from `mpirun --help all` of Open MPI 4.1 and
 * 5.0, `mpiexec.hydra -help` of MPICH 4, and srun(1)); the program is the
 * first argument past them that is an executable file, so an option value that
 * happens to be an executable (`--mca plm_rsh_agent /path/ssh`) is skipped and
 * an unknown option's value that is not one is passed over. Open MPI and
 * hydra accept their long options with one dash or two, so names are compared
 * without dashes. Slurm splits --export at commas but keeps a token that is
 * wholly in double quotes together, which is how a value with a comma is
 * passed there.
 */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *name;
    int values; /* separate arguments the option consumes */
} option_t;

/* Open MPI (orterun 4.x, prterun 5.x); names without leading dashes. */
static const option_t openmpi_options[] = {
    {"mca", 2}, {"gmca", 2}, {"pmixmca", 2}, {"prtemca", 2},
    {"am", 1}, {"app", 1}, {"bind-to", 1}, {"c", 1}, {"cf", 1}, {"cartofile", 1},
    {"cpu-list", 1}, {"cpu-set", 1}, {"cpus-per-proc", 1}, {"cpus-per-rank", 1},
    {"debugger", 1}, {"default-hostfile", 1}, {"display", 1}, {"H", 1}, {"host", 1},
    {"hnp", 1}, {"hostfile", 1}, {"launch-agent", 1}, {"machinefile", 1}, {"map-by", 1},
    {"max-restarts", 1}, {"max-vm-size", 1}, {"N", 1}, {"n", 1}, {"np", 1}, {"npernode", 1},
    {"npersocket", 1}, {"ompi-server", 1}, {"output", 1}, {"output-filename", 1}, {"path", 1},
    {"personality", 1}, {"ppr", 1}, {"prefix", 1}, {"preload-files", 1}, {"rank-by", 1},
    {"report-events", 1}, {"report-pid", 1}, {"report-uri", 1}, {"rf", 1}, {"rankfile", 1},
    {"runtime-options", 1}, {"stdin", 1}, {"timeout", 1}, {"tune", 1}, {"wd", 1}, {"wdir", 1},
    {"x", 1}, {"xml-file", 1}, {"xterm", 1},
    {NULL, 0},
};

/* MPICH hydra (mpiexec.hydra); names without leading dashes. */
static const option_t hydra_options[] = {
    {"genv", 2}, {"env", 2},
    {"bind-to", 1}, {"binding", 1}, {"bootstrap", 1}, {"bootstrap-exec", 1},
    {"ckpoint-interval", 1}, {"ckpoint-num", 1}, {"ckpoint-prefix", 1}, {"ckpointlib", 1},
    {"configfile", 1}, {"demux", 1}, {"envlist", 1}, {"errfile-pattern", 1}, {"f", 1},
    {"genvlist", 1}, {"gpus-per-proc", 1}, {"host", 1}, {"hostfile", 1}, {"hosts", 1},
    {"iface", 1}, {"launcher", 1}, {"launcher-exec", 1}, {"localhost", 1}, {"machinefile", 1},
    {"map-by", 1}, {"membind", 1}, {"n", 1}, {"nameserver", 1}, {"np", 1}, {"order-nodes", 1},
    {"outfile-pattern", 1}, {"ppn", 1}, {"prepend-pattern", 1}, {"rmk", 1}, {"topolib", 1},
    {"usize", 1}, {"wdir", 1},
    {NULL, 0},
};

/* srun; names as written (short options with one dash, long with two). */
static const option_t slurm_options[] = {
    {"-A", 1}, {"-b", 1}, {"-B", 1}, {"-c", 1}, {"-C", 1}, {"-d", 1}, {"-D", 1}, {"-e", 1},
    {"-G", 1}, {"-i", 1}, {"-J", 1}, {"-L", 1}, {"-m", 1}, {"-M", 1}, {"-n", 1}, {"-N", 1},
    {"-o", 1}, {"-p", 1}, {"-q", 1}, {"-r", 1}, {"-S", 1}, {"-t", 1}, {"-T", 1}, {"-w", 1},
    {"-W", 1}, {"-x", 1},
    {"--account", 1}, {"--acctg-freq", 1}, {"--begin", 1}, {"--chdir", 1}, {"--clusters", 1},
    {"--comment", 1}, {"--constraint", 1}, {"--container", 1}, {"--core-spec", 1},
    {"--cores-per-socket", 1}, {"--cpu-bind", 1}, {"--cpu-freq", 1}, {"--cpus-per-gpu", 1},
    {"--cpus-per-task", 1}, {"--dependency", 1}, {"--distribution", 1}, {"--epilog", 1},
    {"--error", 1}, {"--exclude", 1}, {"--export", 1}, {"--extra-node-info", 1},
    {"--gid", 1}, {"--gpu-bind", 1}, {"--gpus", 1}, {"--gpus-per-node", 1},
    {"--gpus-per-socket", 1}, {"--gpus-per-task", 1}, {"--gres", 1}, {"--het-group", 1},
    {"--hint", 1}, {"--input", 1}, {"--job-name", 1}, {"--jobid", 1}, {"--licenses", 1},
    {"--mail-type", 1}, {"--mail-user", 1}, {"--mem", 1}, {"--mem-bind", 1},
    {"--mem-per-cpu", 1}, {"--mem-per-gpu", 1}, {"--mincpus", 1}, {"--mpi", 1},
    {"--network", 1}, {"--nodelist", 1}, {"--nodes", 1}, {"--ntasks", 1},
    {"--ntasks-per-core", 1}, {"--ntasks-per-gpu", 1}, {"--ntasks-per-node", 1},
    {"--ntasks-per-socket", 1}, {"--open-mode", 1}, {"--output", 1}, {"--partition", 1},
    {"--profile", 1}, {"--prolog", 1}, {"--qos", 1}, {"--relative", 1}, {"--reservation", 1},
    {"--signal", 1}, {"--slurmd-debug", 1}, {"--sockets-per-node", 1}, {"--switches", 1},
    {"--task-epilog", 1}, {"--task-prolog", 1}, {"--threads", 1}, {"--threads-per-core", 1},
    {"--time", 1}, {"--time-min", 1}, {"--tmp", 1}, {"--tres-per-task", 1}, {"--uid", 1},
    {"--wait", 1}, {"--wckey", 1},
    {NULL, 0},
};

const char *msc_launcher_describe(msc_launcher_t kind)
{
    switch (kind) {
    case MSC_LAUNCHER_NONE: return "no launcher (singleton)";
    case MSC_LAUNCHER_OPENMPI: return "Open MPI";
    case MSC_LAUNCHER_HYDRA: return "MPICH hydra";
    case MSC_LAUNCHER_SLURM: return "Slurm srun";
    case MSC_LAUNCHER_MPIRUN: return "mpirun of unknown make";
    }
    return "?";
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

msc_launcher_t msc_launcher_by_name(const char *argv0)
{
    const char *n = base_name(argv0);
    if (strncmp(n, "mpirun", 6) == 0 || strncmp(n, "mpiexec", 7) == 0 ||
        strcmp(n, "orterun") == 0 || strcmp(n, "prterun") == 0)
        return MSC_LAUNCHER_MPIRUN;
    if (strcmp(n, "srun") == 0) return MSC_LAUNCHER_SLURM;
    return MSC_LAUNCHER_NONE;
}

msc_launcher_t msc_launcher_for_mpi(msc_mpi_t mpi)
{
    switch (mpi) {
    case MSC_MPI_OPENMPI: return MSC_LAUNCHER_OPENMPI;
    case MSC_MPI_MPICH: return MSC_LAUNCHER_HYDRA;
    default: return MSC_LAUNCHER_MPIRUN;
    }
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *msc_find_executable(const char *name)
{
    if (!*name) return NULL;
    if (strchr(name, '/')) return is_executable_file(name) ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/bin:/usr/bin"; /* what execvp uses */
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char *candidate = malloc(len + strlen(name) + 3);
        if (!candidate) return NULL;
        if (len == 0) /* an empty entry means the current directory */
            sprintf(candidate, "./%s", name);
        else
            sprintf(candidate, "%.*s/%s", (int)len, p, name);
        if (is_executable_file(candidate)) return candidate;
        free(candidate);
        if (!colon) break;
        p = colon + 1;
    }
    return NULL;
}

/* How many separate values option `arg` takes in `table`. */
static int lookup_values(const option_t *table, const char *name, size_t len)
{
    for (const option_t *o = table; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o->values;
    return -1;
}

/* How many arguments after `arg` (an option of a launcher of `kind`) are its
 * values; 0 for options with an attached value or unknown ones. */
static int option_values(msc_launcher_t kind, const char *arg)
{
    if (strchr(arg, '=')) return 0;
    if (kind == MSC_LAUNCHER_SLURM) {
        if (arg[1] != '-' && strlen(arg) > 2) return 0; /* -n4: value attached */
        int v = lookup_values(slurm_options, arg, strlen(arg));
        return v < 0 ? 0 : v;
    }
    const char *name = arg;
    while (*name == '-') name++;
    size_t len = strlen(name);
    int v = -1;
    if (kind == MSC_LAUNCHER_OPENMPI || kind == MSC_LAUNCHER_MPIRUN)
        v = lookup_values(openmpi_options, name, len);
    if (v < 0 && (kind == MSC_LAUNCHER_HYDRA || kind == MSC_LAUNCHER_MPIRUN))
        v = lookup_values(hydra_options, name, len);
    return v < 0 ? 0 : v;
}

int msc_launcher_program(msc_launcher_t kind, int argc, char *const *argv, char **path)
{
    bool options_done = false;
    *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && a[0] == '-' && a[1]) {
            i += option_values(kind, a);
            continue;
        }
        if ((*path = msc_find_executable(a))) return i;
    }
    return -1;
}

/* How many arguments from argv[i] on set LD_PRELOAD for the ranks (0: none);
 * `*value` receives the value set. */
static int preload_option_span(msc_launcher_t kind, int argc, char *const *argv, int i,
                               const char **value)
{
    const char *a = argv[i];
    if (kind == MSC_LAUNCHER_OPENMPI && strcmp(a, "-x") == 0 && i + 1 < argc) {
        if (strcmp(argv[i + 1], "LD_PRELOAD") == 0) {
            const char *own = getenv("LD_PRELOAD");
            *value = own ? own : "";
            return 2;
        }
        if (strncmp(argv[i + 1], "LD_PRELOAD=", 11) == 0) {
            *value = argv[i + 1] + 11;
            return 2;
        }
    }
    if (kind == MSC_LAUNCHER_HYDRA && i + 2 < argc && strcmp(argv[i + 1], "LD_PRELOAD") == 0) {
        const char *name = a;
        while (*name == '-') name++;
        if (strcmp(name, "genv") == 0 || strcmp(name, "env") == 0) {
            *value = argv[i + 2];
            return 3;
        }
    }
    return 0;
}

/* Marks in `skip` (argc entries) the launcher options that set LD_PRELOAD,
 * before the program; returns the value of the last one, or NULL. */
static const char *find_preload_options(msc_launcher_t kind, int argc, char *const *argv,
                                        bool *skip)
{
    char *program = NULL;
    int end = msc_launcher_program(kind, argc, argv, &program);
    free(program);
    if (end < 0) end = argc;
    const char *value = NULL;
    for (int i = 1; i < end; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        const char *v;
        int span = preload_option_span(kind, argc, argv, i, &v);
        if (span > 0) {
            value = v;
            for (int k = 0; k < span && skip; k++) skip[i + k] = true;
            i += span - 1;
        } else if (argv[i][0] == '-') {
            i += option_values(kind, argv[i]);
        }
    }
    return value;
}

/* srun's --export among its options (before the program): the index of the
 * last one, its list in *list; -1 when there is none. */
static int slurm_export(int argc, char *const *argv, const char **list)
{
    char *program = NULL;
    int prog = msc_launcher_program(MSC_LAUNCHER_SLURM, argc, argv, &program);
    free(program);
    int at = -1;
    *list = NULL;
    for (int i = 1; i < (prog < 0 ? argc : prog); i++) {
        if (strncmp(argv[i], "--export=", 9) == 0) {
            at = i, *list = argv[i] + 9;
        } else if (strcmp(argv[i], "--export") == 0 && i + 1 < argc) {
            at = i, *list = argv[i + 1];
        }
    }
    return at;
}

/* The first LD_PRELOAD token of a Slurm --export list from `list` on:
 * "LD_PRELOAD=V", "\"LD_PRELOAD=V\"" (a value with commas) or "LD_PRELOAD"
 * (the environment's). Its start and length (without the comma after it);
 * false when there is none. */
static bool slurm_preload_token(const char *list, size_t *start, size_t *len)
{
    for (size_t i = 0; list[i];) {
        size_t j = i;
        if (list[j] == '"') {
            j++;
            while (list[j] && list[j] != '"') j++;
            if (list[j]) j++;
        }
        while (list[j] && list[j] != ',') j++;
        const char *t = list + i + (list[i] == '"');
        if (strncmp(t, "LD_PRELOAD=", 11) == 0 || (j - i == 10 && strncmp(t, "LD_PRELOAD", 10) == 0)) {
            *start = i, *len = j - i;
            return true;
        }
        i = list[j] ? j + 1 : j;
    }
    return false;
}

/* The value the last LD_PRELOAD token of srun's --export gives the ranks;
 * NULL when there is none. */
static const char *slurm_preload(int argc, char *const *argv)
{
    static char value[8192];
    const char *list, *found = NULL;
    if (slurm_export(argc, argv, &list) < 0) return NULL;
    size_t at = 0, start, len;
    while (slurm_preload_token(list + at, &start, &len)) {
        const char *t = list + at + start;
        bool quoted = *t == '"';
        if (len == 10) {
            found = getenv("LD_PRELOAD");
            if (!found) found = "";
        } else {
            size_t n = len - 11 - (quoted ? 2 : 0);
            snprintf(value, sizeof value, "%.*s", (int)n, t + 11 + quoted);
            found = value;
        }
        at += start + len;
    }
    return found;
}

const char *msc_launcher_preload_option(msc_launcher_t kind, int argc, char *const *argv)
{
    if (kind == MSC_LAUNCHER_SLURM) return slurm_preload(argc, argv);
    return find_preload_options(kind, argc, argv, NULL);
}

void msc_argv_free(msc_argv_t *a)
{
    for (int i = 0; i < a->nowned; i++) free(a->owned[i]);
    free(a->owned);
    free(a->argv);
    *a = (msc_argv_t){0};
}

static void argv_push(msc_argv_t *a, char *arg, bool owned)
{
    if (a->argc + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        char **v = realloc(a->argv, (size_t)a->cap * sizeof *v);
        char **o = realloc(a->owned, (size_t)a->cap * sizeof *o);
        if (!v || !o) {
            fprintf(stderr, "mpiscope: out of memory\n");
            exit(2);
        }
        a->argv = v;
        a->owned = o;
    }
    a->argv[a->argc++] = arg;
    a->argv[a->argc] = NULL;
    if (owned) a->owned[a->nowned++] = arg;
}

static char *format(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (!s) {
        fprintf(stderr, "mpiscope: out of memory\n");
        exit(2);
    }
    snprintf(s, n, fmt, a, b);
    return s;
}

/* Appends `NAME=VALUE` to a Slurm --export list in `list`, quoting the token
 * when the value has a comma. */
static bool slurm_append(char **list, const msc_envvar_t *v, char *err, size_t errlen)
{
    bool comma = strchr(v->value, ',') != NULL;
    if (comma && strchr(v->value, '"')) {
        snprintf(err, errlen,
                 "%s='%s' has both a comma and a double quote, which srun --export cannot pass",
                 v->name, v->value);
        return false;
    }
    char *token = format(comma ? "\"%s=%s\"" : "%s=%s", v->name, v->value);
    char *joined = format("%s,%s", *list, token);
    free(token);
    free(*list);
    *list = joined;
    return true;
}

/* Open MPI's "-x NAME=VALUE" for each variable. */
static void push_openmpi_vars(msc_argv_t *out, const msc_envvar_t *vars, int nvars)
{
    for (int i = 0; i < nvars; i++) {
        argv_push(out, "-x", false);
        argv_push(out, format("%s=%s", vars[i].name, vars[i].value), true);
    }
}

bool msc_launcher_command(msc_launcher_t kind, int argc, char *const *argv,
                          const msc_envvar_t *vars, int nvars, msc_argv_t *out, char *err,
                          size_t errlen)
{
    *out = (msc_argv_t){0};
    argv_push(out, argv[0], false);
    switch (kind) {
    case MSC_LAUNCHER_OPENMPI:
        push_openmpi_vars(out, vars, nvars);
        break;
    case MSC_LAUNCHER_HYDRA:
        for (int i = 0; i < nvars; i++) {
            argv_push(out, "-genv", false);
            argv_push(out, (char *)vars[i].name, false);
            argv_push(out, (char *)vars[i].value, false);
        }
        break;
    case MSC_LAUNCHER_SLURM: {
        /* srun keeps only the last --export, so ours joins the user's if
         * there is one among srun's options, without its LD_PRELOAD (the
         * caller put its value in front of ours). A list left empty meant
         * those variables only: NONE, then ours. */
        const char *their_list;
        int theirs = slurm_export(argc, argv, &their_list);
        char *list = strdup(their_list ? their_list : "ALL");
        size_t start, len;
        while (list && slurm_preload_token(list, &start, &len)) {
            size_t end = start + len + (list[start + len] == ',');
            if (!list[end] && start > 0) start--; /* the last token: its comma before */
            memmove(list + start, list + end, strlen(list + end) + 1);
        }
        if (list && !*list) {
            free(list);
            list = strdup("NONE");
        }
        for (int i = 0; i < nvars && list; i++) {
            if (!slurm_append(&list, &vars[i], err, errlen)) {
                free(list);
                msc_argv_free(out);
                return false;
            }
        }
        if (!list) {
            snprintf(err, errlen, "out of memory");
            msc_argv_free(out);
            return false;
        }
        char *option = format("%s%s", "--export=", list);
        free(list);
        if (theirs < 0) {
            argv_push(out, option, true);
        } else {
            /* Replace theirs in place: same position, one argument. */
            for (int i = 1; i < argc; i++) {
                if (i == theirs) {
                    argv_push(out, option, true);
                    if (strcmp(argv[i], "--export") == 0) i++;
                } else {
                    argv_push(out, argv[i], false);
                }
            }
            return true;
        }
        break;
    }
    default:
        snprintf(err, errlen, "no known way to pass variables to %s",
                 msc_launcher_describe(kind));
        msc_argv_free(out);
        return false;
    }
    bool *skip = calloc((size_t)argc, sizeof *skip);
    if (!skip) {
        snprintf(err, errlen, "out of memory");
        msc_argv_free(out);
        return false;
    }
    find_preload_options(kind, argc, argv, skip);
    for (int i = 1; i < argc; i++) {
        if (skip[i]) continue;
        argv_push(out, argv[i], false);
        /* Open MPI gives "-x NAME=VALUE" to the ranks of the app context it
         * is in (4.1: even before the first context's options), so an MPMD
         * command (prog-a : -np 2 prog-b) gets ours again after every ":",
         * or the ranks of the later programs would run without the tool
         * while the first program's ranks wait for them in its exchanges. */
        if (kind == MSC_LAUNCHER_OPENMPI && strcmp(argv[i], ":") == 0)
            push_openmpi_vars(out, vars, nvars);
    }
    free(skip);
    return true;
}

void msc_print_shell_word(FILE *out, const char *word)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_@%+=:,./-";
    if (*word && strspn(word, safe) == strlen(word)) {
        fputs(word, out);
        return;
    }
    /* In single quotes, where nothing is special but the quote itself,
     * which is written as '\'' (close, escaped quote, reopen). */
    fputc('\'', out);
    for (const char *p = word; *p; p++) {
        if (*p == '\'') fputs("'\\''", out);
        else fputc(*p, out);
    }
    fputc('\'', out);
}
