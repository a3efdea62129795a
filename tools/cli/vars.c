/* `mpiscope vars`: the MPI_T variables of the MPI a program uses.
 *
 * This program links no MPI, so the listing comes from mpiscope-vars, a
 * helper built per MPI beside that MPI's tool library (tools/vars). The
 * helper runs with the tool library preloaded, so that it sees what any
 * MPI_T client of a program run with mpiscope sees: the library's variables
 * and mpiscope's own, through mpiscope's MPI_T layer. Without --after-init it
 * runs as a plain process (MPI_T only, no MPI_Init, no launcher); with it, as
 * one rank under that MPI's launcher, since libraries add variables at
 * MPI_Init. The helper writes tab-separated records (see vars_helper.c);
 * this file reads them, filters (name glob, kind, verbosity, category
 * subtree) and prints a table per kind, the categories as a tree, or JSON.
 */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "launcher.h"
#include "mpi_detect.h"
#include "paths.h"
#include "../../src/core/json_out.h"

enum { KIND_CVAR = 1, KIND_PVAR = 2, KIND_CATEGORY = 4, KIND_ENUM = 8, KIND_ALL = 15 };

enum { MAX_FIELDS = 12, FLAGS_FIELD = MAX_FIELDS };

typedef struct {
    char *f[MAX_FIELDS + 1]; /* the record's fields, unescaped; f[0] is its kind */
    int nf;
    char flags[4];       /* pvars: "rca", '-' for each flag not set (f[FLAGS_FIELD]) */
    bool shown;          /* passes the filters */
    int depth;           /* categories: depth in the tree, -1 before it is known */
} record_t;

typedef struct {
    record_t *r;
    int n, cap;
} records_t;

/* Field positions of each record kind (vars_helper.c). */
enum { C_INDEX = 1, C_NAME, C_VERB, C_TYPE, C_ENUM, C_BIND, C_SCOPE, C_VALUE, C_DESC };
enum { P_INDEX = 1, P_NAME, P_VERB, P_CLASS, P_TYPE, P_ENUM, P_BIND, P_RO, P_CONT, P_ATOMIC,
       P_DESC };
enum { K_INDEX = 1, K_NAME, K_CVARS, K_PVARS, K_CATS, K_DESC };
enum { E_NAME = 1, E_ITEMS };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpiscope vars [options] [PATTERN | PROGRAM]\n"
            "\n"
            "Lists the MPI_T control variables, performance variables, categories and\n"
            "enumerations of an MPI library, mpiscope's own included, as an MPI_T tool\n"
            "sees them with mpiscope loaded. PATTERN is a shell glob on names; an\n"
            "argument naming an executable file is the program whose MPI is meant.\n"
            "\n"
            "Options:\n"
            "  --mpi openmpi|mpich   the MPI (default: the program's, else that of mpirun)\n"
            "  --program PATH        the program whose MPI is meant\n"
            "  --after-init          list after MPI_Init (one rank under the MPI's launcher);\n"
            "                        default: before it, without a launcher\n"
            "  --kind K[,K...]       cvar, pvar, category, enum (default: all)\n"
            "  --verbosity LEVEL     user, tuner, mpidev (all of that level and below) or\n"
            "                        one of them /basic, /detail, /all (default: all)\n"
            "  --category NAME       only variables in that category and its subcategories\n"
            "                        (a glob)\n"
            "  --json                one JSON object on stdout\n"
            "  -h, --help            this help\n"
            "\n"
            "Example: mpiscope vars --mpi openmpi --kind pvar 'pml_ob1_*'\n");
}

/* ---- reading the helper's records ---- */

static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static bool add_record(records_t *rs, char *line)
{
    if (rs->n == rs->cap) {
        int cap = rs->cap ? 2 * rs->cap : 1024;
        record_t *r = realloc(rs->r, (size_t)cap * sizeof *r);
        if (!r) return false;
        rs->r = r;
        rs->cap = cap;
    }
    record_t *rec = &rs->r[rs->n];
    memset(rec, 0, sizeof *rec);
    rec->depth = -1;
    char *p = line;
    while (rec->nf < MAX_FIELDS) {
        char *tab = strchr(p, '\t');
        if (tab) *tab = '\0';
        unescape(p);
        rec->f[rec->nf++] = p;
        if (!tab) break;
        p = tab + 1;
    }
    rs->n++;
    return true;
}

static int fields_of(const char *kind)
{
    if (strcmp(kind, "cvar") == 0) return C_DESC + 1;
    if (strcmp(kind, "pvar") == 0) return P_DESC + 1;
    if (strcmp(kind, "cat") == 0) return K_DESC + 1;
    if (strcmp(kind, "enum") == 0) return E_ITEMS + 1;
    return -1;
}

/* ---- running the helper ---- */

static char *scratch_dir; /* MPISCOPE_OUTPUT of an --after-init run, removed after it */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Runs `argv` with `env` (NAME=VALUE strings) added to the environment and
 * returns its stdout as one malloc'd string, or NULL. `status` gets the wait
 * status. */
static char *capture(char *const *argv, char *const *env, int nenv, int *status)
{
    int fd[2];
    if (pipe(fd) != 0) return NULL;
    pid_t pid = fork();
    if (pid < 0) return NULL;
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDOUT_FILENO);
        close(fd[1]);
        for (int i = 0; i < nenv; i++) putenv(env[i]);
        execvp(argv[0], argv);
        fprintf(stderr, "mpiscope vars: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && len + 4096 > cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
            } else {
                buf = b;
                cap *= 2;
            }
        }
        char sink[4096];
        ssize_t got = buf ? read(fd[0], buf + len, cap - len - 1) : read(fd[0], sink, sizeof sink);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (buf) len += (size_t)got;
    }
    close(fd[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    if (buf) buf[len] = '\0';
    return buf;
}

static char *run_helper(msc_mpi_t mpi, bool after_init, const char *lib, const char *helper)
{
    /* The user's LD_PRELOAD (e.g. a sanitizer runtime) first, as mpiscope run does. */
    const char *user = getenv("LD_PRELOAD");
    char preload[PATH_MAX * 2 + 8];
    snprintf(preload, sizeof preload, "%s%s%s", user && *user ? user : "",
             user && *user ? ":" : "", lib);
    int status = 0;
    char *out;
    if (!after_init) {
        static char env_preload[PATH_MAX * 2 + 32];
        snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", preload);
        char *env[] = {env_preload};
        char *argv[] = {(char *)helper, NULL};
        out = capture(argv, env, 1, &status);
    } else {
        const char *names[] = {mpi == MSC_MPI_OPENMPI ? "mpirun.openmpi" : "mpirun.mpich",
                               "mpirun", "mpiexec"};
        char *launcher = NULL;
        for (size_t i = 0; i < 3 && !launcher; i++) launcher = msc_find_executable(names[i]);
        if (!launcher) {
            fprintf(stderr, "mpiscope vars: --after-init needs the MPI's launcher "
                            "(mpirun.%s, mpirun or mpiexec in PATH); none found\n",
                    msc_mpi_name(mpi));
            return NULL;
        }
        char tmpl[] = "/tmp/mpiscope-vars-XXXXXX";
        if (!mkdtemp(tmpl)) {
            fprintf(stderr, "mpiscope vars: cannot create a scratch directory in /tmp: %s\n",
                    strerror(errno));
            free(launcher);
            return NULL;
        }
        scratch_dir = strdup(tmpl);
        char outdir[PATH_MAX];
        snprintf(outdir, sizeof outdir, "%s/out", tmpl);
        msc_envvar_t vars[] = {{"LD_PRELOAD", preload},
                               {"MPISCOPE_OUTPUT", outdir},
                               {"MPISCOPE_QUIET", "1"}};
        char *cmd[] = {launcher, (char *)"-np", (char *)"1", (char *)helper,
                       (char *)"--after-init", NULL};
        msc_argv_t full;
        char err[512];
        if (!msc_launcher_command(msc_launcher_for_mpi(mpi), 5, cmd, vars, 3, &full, err,
                                  sizeof err)) {
            fprintf(stderr, "mpiscope vars: %s\n", err);
            free(launcher);
            return NULL;
        }
        out = capture(full.argv, NULL, 0, &status);
        msc_argv_free(&full);
        free(launcher);
        nftw(scratch_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(scratch_dir);
        scratch_dir = NULL;
    }
    if (!out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "mpiscope vars: %s failed (%s %d); nothing listed\n", helper,
                WIFEXITED(status) ? "exit code" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        free(out);
        return NULL;
    }
    return out;
}

/* ---- filters ---- */

static int verbosity_rank(const char *v)
{
    static const char *const names[] = {"user/basic",   "user/detail",   "user/all",
                                        "tuner/basic",  "tuner/detail",  "tuner/all",
                                        "mpidev/basic", "mpidev/detail", "mpidev/all"};
    for (int i = 0; i < 9; i++)
        if (strcmp(v, names[i]) == 0) return i;
    if (strcmp(v, "user") == 0) return 2;
    if (strcmp(v, "tuner") == 0) return 5;
    if (strcmp(v, "mpidev") == 0) return 8;
    return -1;
}

static record_t *category_by_index(records_t *rs, int index)
{
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].f[0], "cat") == 0 && atoi(rs->r[i].f[K_INDEX]) == index)
            return &rs->r[i];
    return NULL;
}

static bool list_has(const char *list, int index)
{
    for (const char *p = list; *p && *p != '-';) {
        if (atoi(p) == index) return true;
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
    return false;
}

static int list_length(const char *list)
{
    if (*list == '\0' || *list == '-') return 0;
    int n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    return n;
}

/* Marks `in[i]` for every category in the subtree of `cat` (cycle-safe). */
static void mark_subtree(records_t *rs, record_t *cat, bool *in)
{
    int at = (int)(cat - rs->r);
    if (in[at]) return;
    in[at] = true;
    for (const char *p = cat->f[K_CATS]; *p && *p != '-';) {
        record_t *child = category_by_index(rs, atoi(p));
        if (child) mark_subtree(rs, child, in);
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
}

/* ---- output ---- */

static void json_list(const char *list)
{
    putchar('[');
    if (*list != '-') fputs(list, stdout);
    putchar(']');
}

static void print_json(records_t *rs, msc_mpi_t mpi, bool after_init, int kinds)
{
    printf("{\"mpi\":\"%s\",\"after_init\":%s", msc_mpi_name(mpi), after_init ? "true" : "false");
    static const struct {
        int kind;
        const char *tag, *key;
    } sections[] = {{KIND_CVAR, "cvar", "cvars"},
                    {KIND_PVAR, "pvar", "pvars"},
                    {KIND_CATEGORY, "cat", "categories"},
                    {KIND_ENUM, "enum", "enums"}};
    for (size_t s = 0; s < 4; s++) {
        if (!(kinds & sections[s].kind)) continue;
        printf(",\"%s\":[", sections[s].key);
        bool first = true;
        for (int i = 0; i < rs->n; i++) {
            record_t *r = &rs->r[i];
            if (!r->shown || strcmp(r->f[0], sections[s].tag) != 0) continue;
            printf("%s\n{", first ? "" : ",");
            first = false;
            if (sections[s].kind == KIND_CVAR) {
                printf("\"index\":%s,\"name\":", r->f[C_INDEX]);
                msc_json_put_string(stdout, r->f[C_NAME]);
                printf(",\"verbosity\":\"%s\",\"datatype\":\"%s\",\"enum\":", r->f[C_VERB],
                       r->f[C_TYPE]);
                if (strcmp(r->f[C_ENUM], "-") == 0) fputs("null", stdout);
                else msc_json_put_string(stdout, r->f[C_ENUM]);
                printf(",\"bind\":\"%s\",\"scope\":\"%s\",\"value\":", r->f[C_BIND],
                       r->f[C_SCOPE]);
                if (strcmp(r->f[C_VALUE], "-") == 0) fputs("null", stdout);
                else msc_json_put_string(stdout, r->f[C_VALUE]);
                fputs(",\"description\":", stdout);
                msc_json_put_string(stdout, r->f[C_DESC]);
            } else if (sections[s].kind == KIND_PVAR) {
                printf("\"index\":%s,\"name\":", r->f[P_INDEX]);
                msc_json_put_string(stdout, r->f[P_NAME]);
                printf(",\"verbosity\":\"%s\",\"class\":\"%s\",\"datatype\":\"%s\",\"enum\":",
                       r->f[P_VERB], r->f[P_CLASS], r->f[P_TYPE]);
                if (strcmp(r->f[P_ENUM], "-") == 0) fputs("null", stdout);
                else msc_json_put_string(stdout, r->f[P_ENUM]);
                printf(",\"bind\":\"%s\",\"readonly\":%s,\"continuous\":%s,\"atomic\":%s,"
                       "\"description\":",
                       r->f[P_BIND], atoi(r->f[P_RO]) ? "true" : "false",
                       atoi(r->f[P_CONT]) ? "true" : "false",
                       atoi(r->f[P_ATOMIC]) ? "true" : "false");
                msc_json_put_string(stdout, r->f[P_DESC]);
            } else if (sections[s].kind == KIND_CATEGORY) {
                printf("\"index\":%s,\"name\":", r->f[K_INDEX]);
                msc_json_put_string(stdout, r->f[K_NAME]);
                fputs(",\"cvars\":", stdout);
                json_list(r->f[K_CVARS]);
                fputs(",\"pvars\":", stdout);
                json_list(r->f[K_PVARS]);
                fputs(",\"categories\":", stdout);
                json_list(r->f[K_CATS]);
                fputs(",\"description\":", stdout);
                msc_json_put_string(stdout, r->f[K_DESC]);
            } else {
                fputs("\"name\":", stdout);
                msc_json_put_string(stdout, r->f[E_NAME]);
                fputs(",\"items\":[", stdout);
                char *items = strdup(r->f[E_ITEMS]);
                bool firstitem = true;
                for (char *it = items ? strtok(items, ";") : NULL; it; it = strtok(NULL, ";")) {
                    char *eq = strchr(it, '=');
                    if (!eq) continue;
                    *eq = '\0';
                    printf("%s{\"value\":%s,\"name\":", firstitem ? "" : ",", it);
                    msc_json_put_string(stdout, eq + 1);
                    putchar('}');
                    firstitem = false;
                }
                free(items);
                putchar(']');
            }
            putchar('}');
        }
        putchar(']');
    }
    puts("}");
}

static int count_kind(records_t *rs, const char *tag, bool shown_only)
{
    int n = 0;
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].f[0], tag) == 0 && (!shown_only || rs->r[i].shown)) n++;
    return n;
}

/* One cell: padded to `width` and two spaces, or (width -1) the last of its line. */
static void print_cell(const char *text, int width)
{
    if (width < 0) printf("%s\n", text);
    else printf("%-*s  ", width, text);
}

/* Prints one table: `cols` field positions, with headers, widths capped at 40
 * (longer entries push the rest of their line); the last column unpadded. */
static void print_table(records_t *rs, const char *tag, const int *cols, const char *const *heads,
                        int ncols)
{
    int width[MAX_FIELDS] = {0};
    for (int c = 0; c < ncols; c++) width[c] = (int)strlen(heads[c]);
    for (int i = 0; i < rs->n; i++) {
        record_t *r = &rs->r[i];
        if (!r->shown || strcmp(r->f[0], tag) != 0) continue;
        for (int c = 0; c < ncols - 1; c++) {
            int w = (int)strlen(r->f[cols[c]]);
            if (w > 40) w = 40;
            if (w > width[c]) width[c] = w;
        }
    }
    for (int c = 0; c < ncols; c++) print_cell(heads[c], c == ncols - 1 ? -1 : width[c]);
    for (int i = 0; i < rs->n; i++) {
        record_t *r = &rs->r[i];
        if (!r->shown || strcmp(r->f[0], tag) != 0) continue;
        for (int c = 0; c < ncols; c++) {
            const char *v = r->f[cols[c]];
            print_cell(*v ? v : "-", c == ncols - 1 ? -1 : width[c]);
        }
    }
}

static void print_category_tree(records_t *rs, record_t *cat, int depth, bool *visited)
{
    int at = (int)(cat - rs->r);
    if (visited[at]) return;
    visited[at] = true;
    if (cat->shown) {
        int ncv = 0, npv = 0;
        ncv = list_length(cat->f[K_CVARS]);
        npv = list_length(cat->f[K_PVARS]);
        printf("%*s%s  (%d cvars, %d pvars)  %s\n", 2 * depth, "", cat->f[K_NAME], ncv, npv,
               cat->f[K_DESC]);
    }
    for (const char *p = cat->f[K_CATS]; *p && *p != '-';) {
        record_t *child = category_by_index(rs, atoi(p));
        if (child) print_category_tree(rs, child, depth + 1, visited);
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
}

static void print_text(records_t *rs, msc_mpi_t mpi, bool after_init, int kinds)
{
    const char *when = after_init ? "after MPI_Init" : "before MPI_Init";
    bool first = true;
    if (kinds & KIND_CVAR) {
        printf("Control variables of %s, %s: %d of %d\n", msc_mpi_name(mpi), when,
               count_kind(rs, "cvar", true), count_kind(rs, "cvar", false));
        static const int cols[] = {C_NAME, C_VERB, C_SCOPE, C_TYPE, C_BIND, C_VALUE, C_DESC};
        static const char *const heads[] = {"NAME", "VERBOSITY", "SCOPE", "DATATYPE",
                                            "BIND", "VALUE",     "DESCRIPTION"};
        print_table(rs, "cvar", cols, heads, 7);
        first = false;
    }
    if (kinds & KIND_PVAR) {
        if (!first) putchar('\n');
        printf("Performance variables of %s, %s: %d of %d (flags: r readonly, c continuous, "
               "a atomic)\n",
               msc_mpi_name(mpi), when, count_kind(rs, "pvar", true), count_kind(rs, "pvar", false));
        /* The three flags as one column. */
        for (int i = 0; i < rs->n; i++) {
            record_t *r = &rs->r[i];
            if (strcmp(r->f[0], "pvar") != 0) continue;
            r->flags[0] = atoi(r->f[P_RO]) ? 'r' : '-';
            r->flags[1] = atoi(r->f[P_CONT]) ? 'c' : '-';
            r->flags[2] = atoi(r->f[P_ATOMIC]) ? 'a' : '-';
            r->flags[3] = '\0';
            r->f[FLAGS_FIELD] = r->flags;
        }
        static const int cols[] = {P_NAME, P_VERB, P_CLASS, P_TYPE, P_BIND, FLAGS_FIELD, P_DESC};
        static const char *const heads[] = {"NAME", "VERBOSITY", "CLASS", "DATATYPE",
                                            "BIND", "FLAGS",     "DESCRIPTION"};
        print_table(rs, "pvar", cols, heads, 7);
        first = false;
    }
    if (kinds & KIND_CATEGORY) {
        if (!first) putchar('\n');
        printf("Categories of %s, %s: %d of %d\n", msc_mpi_name(mpi), when,
               count_kind(rs, "cat", true), count_kind(rs, "cat", false));
        /* Roots: categories no other category contains. */
        bool *child = calloc((size_t)rs->n + 1, 1), *visited = calloc((size_t)rs->n + 1, 1);
        if (child && visited) {
            for (int i = 0; i < rs->n; i++) {
                if (strcmp(rs->r[i].f[0], "cat") != 0) continue;
                for (const char *p = rs->r[i].f[K_CATS]; *p && *p != '-';) {
                    record_t *c = category_by_index(rs, atoi(p));
                    if (c) child[c - rs->r] = true;
                    p = strchr(p, ',');
                    if (!p) break;
                    p++;
                }
            }
            for (int i = 0; i < rs->n; i++)
                if (strcmp(rs->r[i].f[0], "cat") == 0 && !child[i])
                    print_category_tree(rs, &rs->r[i], 0, visited);
        }
        free(child);
        free(visited);
        first = false;
    }
    if (kinds & KIND_ENUM) {
        if (!first) putchar('\n');
        printf("Enumerations of %s, %s: %d of %d\n", msc_mpi_name(mpi), when,
               count_kind(rs, "enum", true), count_kind(rs, "enum", false));
        for (int i = 0; i < rs->n; i++) {
            record_t *r = &rs->r[i];
            if (r->shown && strcmp(r->f[0], "enum") == 0)
                printf("%s: %s\n", r->f[E_NAME], r->f[E_ITEMS]);
        }
    }
}

/* ---- the command ---- */

static int parse_kinds(const char *text)
{
    int kinds = 0;
    char *copy = strdup(text);
    if (!copy) return -1;
    for (char *w = strtok(copy, ","); w; w = strtok(NULL, ",")) {
        if (strcmp(w, "cvar") == 0) kinds |= KIND_CVAR;
        else if (strcmp(w, "pvar") == 0) kinds |= KIND_PVAR;
        else if (strcmp(w, "category") == 0) kinds |= KIND_CATEGORY;
        else if (strcmp(w, "enum") == 0) kinds |= KIND_ENUM;
        else {
            free(copy);
            return -1;
        }
    }
    free(copy);
    return kinds;
}

static bool is_program(const char *path)
{
    return access(path, X_OK) == 0 && strchr(path, '*') == NULL;
}

static int show_records(char *text, const char *pattern, const char *category,
                        int max_verbosity, int kinds, bool json, msc_mpi_t mpi, bool after_init);

int msc_cmd_vars(int argc, char **argv)
{
    const char *mpi_name = NULL, *program = NULL, *pattern = NULL, *category = NULL;
    const char *verbosity = NULL;
    bool after_init = false, json = false;
    int kinds = KIND_ALL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **value = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--after-init") == 0) {
            after_init = true;
            continue;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        } else if (strcmp(a, "--mpi") == 0) value = &mpi_name;
        else if (strcmp(a, "--program") == 0) value = &program;
        else if (strcmp(a, "--category") == 0) value = &category;
        else if (strcmp(a, "--verbosity") == 0) value = &verbosity;
        else if (strcmp(a, "--kind") == 0) {
            if (i + 1 >= argc || (kinds = parse_kinds(argv[i + 1])) <= 0) {
                fprintf(stderr, "mpiscope vars: --kind takes a comma-separated list of cvar, "
                                "pvar, category, enum\n");
                return 2;
            }
            i++;
            continue;
        } else if (a[0] == '-') {
            fprintf(stderr, "mpiscope vars: unknown option '%s' (see mpiscope vars --help)\n", a);
            return 2;
        } else if (!pattern && !program && is_program(a)) {
            program = a;
            continue;
        } else if (!pattern) {
            pattern = a;
            continue;
        } else {
            fprintf(stderr, "mpiscope vars: one pattern only; '%s' is a second one\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "mpiscope vars: %s needs a value\n", a);
            return 2;
        }
        *value = argv[++i];
    }
    int max_verbosity = 8;
    if (verbosity && (max_verbosity = verbosity_rank(verbosity)) < 0) {
        fprintf(stderr, "mpiscope vars: --verbosity takes user, tuner, mpidev, or one of them "
                        "followed by /basic, /detail or /all; not '%s'\n",
                verbosity);
        return 2;
    }

    msc_mpi_t mpi = MSC_MPI_UNKNOWN;
    char why[512] = "";
    if (mpi_name) {
        mpi = msc_mpi_from_name(mpi_name);
        if (mpi == MSC_MPI_UNKNOWN) {
            fprintf(stderr, "mpiscope vars: --mpi takes openmpi or mpich, not '%s'\n", mpi_name);
            return 2;
        }
    } else if (program) {
        char *path = msc_find_executable(program);
        mpi = path ? msc_mpi_of_program(path, why, sizeof why) : MSC_MPI_UNKNOWN;
        free(path);
        if (mpi == MSC_MPI_UNKNOWN) {
            fprintf(stderr, "mpiscope vars: cannot tell which MPI %s uses (%s); give --mpi\n",
                    program, *why ? why : "not found");
            return 2;
        }
    } else {
        char *path = msc_find_executable("mpirun");
        mpi = path ? msc_mpi_of_launcher(path, why, sizeof why) : MSC_MPI_UNKNOWN;
        free(path);
        if (mpi == MSC_MPI_UNKNOWN) {
            fprintf(stderr, "mpiscope vars: no --mpi, no program, and mpirun does not tell "
                            "which MPI is meant; give --mpi openmpi or --mpi mpich\n");
            return 2;
        }
    }
    char lib[PATH_MAX];
    if (!msc_tool_library(msc_mpi_name(mpi), lib, sizeof lib)) {
        fprintf(stderr, "mpiscope vars: the %s tool library is not built (looked for %s)\n",
                msc_mpi_name(mpi), lib);
        return 2;
    }
    char helper[PATH_MAX + 32];
    snprintf(helper, sizeof helper, "%.*s/mpiscope-vars", (int)(strrchr(lib, '/') - lib), lib);
    if (access(helper, X_OK) != 0) {
        fprintf(stderr, "mpiscope vars: %s is missing; it is built with the %s tool library\n",
                helper, msc_mpi_name(mpi));
        return 2;
    }

    fflush(stdout);
    char *text = run_helper(mpi, after_init, lib, helper);
    if (!text) return 1;
    return show_records(text, pattern, category, max_verbosity, kinds, json, mpi, after_init);
}

/* Reads the helper's output `text` (freed here), filters and prints it:
 * 0, or 1 (out of memory), or 2 (no category matches). */
static int show_records(char *text, const char *pattern, const char *category,
                        int max_verbosity, int kinds, bool json, msc_mpi_t mpi, bool after_init)
{
    records_t rs = {0};
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        /* Launchers may add lines of their own: only the helper's records count. */
        if (!add_record(&rs, line)) {
            fprintf(stderr, "mpiscope vars: out of memory\n");
            free(rs.r);
            free(text);
            return 1;
        }
        int want = fields_of(rs.r[rs.n - 1].f[0]);
        if (want < 0 || rs.r[rs.n - 1].nf != want) rs.n--;
    }

    /* The category filter: variables in any matching category's subtree. */
    bool *in = NULL;
    if (category) {
        in = calloc((size_t)rs.n + 1, 1);
        if (!in) {
            free(rs.r);
            free(text);
            return 1;
        }
        bool any = false;
        for (int i = 0; i < rs.n; i++)
            if (strcmp(rs.r[i].f[0], "cat") == 0 && fnmatch(category, rs.r[i].f[K_NAME], 0) == 0) {
                mark_subtree(&rs, &rs.r[i], in);
                any = true;
            }
        if (!any) {
            fprintf(stderr, "mpiscope vars: no category matches '%s'\n", category);
            free(in);
            free(rs.r);
            free(text);
            return 2;
        }
    }
    for (int i = 0; i < rs.n; i++) {
        record_t *r = &rs.r[i];
        const char *kind = r->f[0];
        int name_at = strcmp(kind, "enum") == 0 ? E_NAME : 2;
        bool ok = !pattern || fnmatch(pattern, r->f[name_at], 0) == 0;
        if (ok && (strcmp(kind, "cvar") == 0 || strcmp(kind, "pvar") == 0)) {
            int v = verbosity_rank(r->f[strcmp(kind, "cvar") == 0 ? C_VERB : P_VERB]);
            ok = v >= 0 && v <= max_verbosity;
            if (ok && in) {
                bool is_cvar = strcmp(kind, "cvar") == 0;
                int index = atoi(r->f[1]);
                ok = false;
                for (int c = 0; c < rs.n && !ok; c++)
                    if (in[c]) ok = list_has(rs.r[c].f[is_cvar ? K_CVARS : K_PVARS], index);
            }
        } else if (ok && in && strcmp(kind, "cat") == 0) {
            ok = in[i];
        }
        r->shown = ok;
    }
    if (json) print_json(&rs, mpi, after_init, kinds);
    else print_text(&rs, mpi, after_init, kinds);
    free(in);
    free(rs.r);
    free(text);
    return 0;
}
