/* Test program for `mpiscope run`. Each rank prints one line saying what it
 * sees, and the test scripts check those lines:
 *
 *   probe rank=R size=N tool=yes|no barriers=B output=DIR outdir_before_init=yes|no
 *         depth=D preload=LD_PRELOAD parent=COMM parent_env=inherited|cleared
 *         mpiscope=yes|no ancestors=clean|<pid>:<comm>:<what>,...
 *
 * tool/barriers: the tool library is loaded (its mpiscope_calls is found
 * with dlsym, as include/mpiscope.h advises) and counted the MPI_Barrier
 * calls made here (3). outdir_before_init: MPISCOPE_OUTPUT existed before
 * MPI_Init, so `mpiscope run` made it, not the library. parent_env: whether
 * the rank's parent (mpirun, orted, hydra_pmi_proxy) has MSC_PROBE_MARKER,
 * which the tests set in mpiscope's environment; "cleared" means the parent
 * did not inherit that environment, as on another node. ancestors: every
 * process from the parent up to the `mpiscope` program (included) must have
 * neither libmpiscope mapped nor an LD_PRELOAD naming it nor MPISCOPE_OUTPUT
 * in its environment. mpiscope=yes: that walk did reach `mpiscope`.
 *
 * Exits with the number given as its first argument (default 0).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads /proc/<pid>/<what> into buf (at most len-1 bytes); returns the size. */
static size_t read_proc(int pid, const char *what, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, what);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return n;
}

static int parent_of(int pid)
{
    char stat[1024];
    if (!read_proc(pid, "stat", stat, sizeof stat)) return 0;
    const char *close = strrchr(stat, ')'); /* the name may contain spaces */
    int ppid = 0;
    if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1) return 0;
    return ppid;
}

/* Whether the NUL-separated environment of `pid` has an entry starting with
 * `prefix` and, if `containing` is not NULL, containing it. */
static int env_has(int pid, const char *prefix, const char *containing)
{
    static char env[1 << 20];
    size_t n = read_proc(pid, "environ", env, sizeof env);
    for (size_t i = 0; i < n; i += strlen(env + i) + 1)
        if (strncmp(env + i, prefix, strlen(prefix)) == 0 &&
            (!containing || strstr(env + i, containing)))
            return 1;
    return 0;
}

static int maps_library(int pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "libmpiscope") != NULL;
    fclose(f);
    return found;
}

static void check_ancestors(char *out, size_t len, int *reached_mpiscope)
{
    snprintf(out, len, "clean");
    size_t used = 0;
    *reached_mpiscope = 0;
    for (int pid = getppid(), depth = 0; pid > 1 && depth < 64; pid = parent_of(pid), depth++) {
        char comm[64] = "?";
        read_proc(pid, "comm", comm, sizeof comm);
        comm[strcspn(comm, "\n")] = 0;
        const char *what = maps_library(pid)                         ? "mapped"
                           : env_has(pid, "LD_PRELOAD=", "libmpiscope") ? "preload"
                           : env_has(pid, "MPISCOPE_OUTPUT=", NULL)    ? "output"
                                                                        : NULL;
        if (what) {
            int n = snprintf(out + used, len - used, "%s%d:%s:%s", used ? "," : "", pid, comm,
                             what);
            if (n > 0 && (size_t)n < len - used) used += (size_t)n;
        }
        if (strcmp(comm, "mpiscope") == 0) {
            *reached_mpiscope = 1;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    const char *outdir = getenv("MPISCOPE_OUTPUT");
    struct stat st;
    int outdir_before_init = outdir && stat(outdir, &st) == 0 && S_ISDIR(st.st_mode);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);

    long long (*calls)(const char *) =
        (long long (*)(const char *))dlsym(RTLD_DEFAULT, "mpiscope_calls");
    char parent[64] = "?";
    read_proc(getppid(), "comm", parent, sizeof parent);
    parent[strcspn(parent, "\n")] = 0;
    char ancestors[1024];
    int reached;
    check_ancestors(ancestors, sizeof ancestors, &reached);
    const char *preload = getenv("LD_PRELOAD");
    const char *depth = getenv("MPISCOPE_CALLSITE_DEPTH");

    printf("probe rank=%d size=%d tool=%s barriers=%lld output=%s outdir_before_init=%s depth=%s "
           "preload=%s parent=%s parent_env=%s mpiscope=%s ancestors=%s\n",
           rank, size, calls ? "yes" : "no", calls ? calls("MPI_Barrier") : -1LL,
           outdir ? outdir : "-", outdir_before_init ? "yes" : "no", depth ? depth : "-",
           preload ? preload : "-", parent,
           env_has(getppid(), "MSC_PROBE_MARKER=", NULL) ? "inherited" : "cleared",
           reached ? "yes" : "no", ancestors);
    fflush(stdout);
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
