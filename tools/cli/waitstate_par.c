/* The wait-state analysis under MPI: `mpiscope report --np N` runs
 *     <launcher> -np N <prefix>/lib/mpiscope/<mpi>/mpiscope-analyze ANCHOR OUT TRACE_REL
 * (tools/analysis/mpi/mpiscope_analyze.c) and reads back the waitstates.json it wrote.
 *
 * Design. The analysis program is built once per MPI next to that MPI's
 * tool library, so it is found the same way (paths.c); the launcher is that
 * MPI's own (mpirun.openmpi, mpirun.mpich: Debian's names, found in PATH).
 * Without --mpi the first MPI whose program and launcher both exist is
 * taken, Open MPI first. The result goes to a fresh private directory under
 * $TMPDIR, not into the run directory, so a failed or killed analysis never
 * leaves a half-written file there; the caller saves it as the serial
 * analysis would. The launcher's stdout goes to stderr: `mpiscope report`'s
 * stdout is the report alone. Open MPI is allowed to oversubscribe (the
 * analysis may be given more processes than cores).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "report_cli.h"

/* Absolute path of `name` in PATH, or false. */
static bool in_path(const char *name, char *out, size_t outlen)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && n < outlen) {
            int w = snprintf(out, outlen, "%.*s/%s", (int)n, p, name);
            if (w > 0 && (size_t)w < outlen && access(out, X_OK) == 0) return true;
        }
        p += n + (e ? 1 : 0);
        if (!e) break;
    }
    return false;
}

/* The analysis program and launcher of `mpi`; false if either is missing. */
static bool find_mpi(const char *mpi, char *prog, size_t proglen, char *launcher, size_t llen)
{
    char lib[PATH_MAX];
    msc_tool_library(mpi, lib, sizeof lib);
    char *slash = strrchr(lib, '/');
    if (!slash) return false;
    *slash = '\0';
    int w = snprintf(prog, proglen, "%s/mpiscope-analyze", lib);
    if (w < 0 || (size_t)w >= proglen || access(prog, X_OK) != 0) return false;
    char name[64];
    snprintf(name, sizeof name, "mpirun.%s", mpi);
    return in_path(name, launcher, llen);
}

char *msc_waitstate_parallel(const char *anchor, int np, const char *mpi, char *const *extra,
                             int nextra, size_t *len)
{
    static const char *const known[] = {"openmpi", "mpich"};
    char prog[PATH_MAX], launcher[PATH_MAX];
    bool found = false;
    if (mpi) {
        found = find_mpi(mpi, prog, sizeof prog, launcher, sizeof launcher);
    } else {
        for (size_t i = 0; i < sizeof known / sizeof *known && !found; i++)
            if (find_mpi(known[i], prog, sizeof prog, launcher, sizeof launcher)) mpi = known[i];
        found = mpi != NULL;
    }
    if (!found) {
        fprintf(stderr, "mpiscope report: no MPI analysis program%s%s with its launcher "
                        "(mpiscope-analyze, mpirun.<mpi>)\n",
                mpi ? " for " : "", mpi ? mpi : "");
        return NULL;
    }
    const char *tmpdir = getenv("TMPDIR");
    char dir[PATH_MAX], out[PATH_MAX + 32], nps[16];
    snprintf(dir, sizeof dir, "%s/mpiscope-analyze-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mpiscope report: cannot create a directory in %s: %s\n",
                tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        return NULL;
    }
    snprintf(out, sizeof out, "%s/waitstates.json", dir);
    snprintf(nps, sizeof nps, "%d", np);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(2, 1);
        setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
        char *args[64] = {launcher, "-np", nps, prog, (char *)anchor, out, "trace/traces.otf2"};
        int na = 7;
        for (int i = 0; i < nextra && na < 63; i++) args[na++] = extra[i];
        args[na] = NULL;
        execv(launcher, args);
        fprintf(stderr, "mpiscope report: cannot run %s: %s\n", launcher, strerror(errno));
        _exit(127);
    }
    int status = 0;
    bool ok = pid > 0;
    if (!ok) fprintf(stderr, "mpiscope report: cannot start %s: %s\n", launcher, strerror(errno));
    while (ok && waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) ok = false;
    char *text = NULL;
    if (ok && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        text = msc_slurp(out, len);
        if (!text) fprintf(stderr, "mpiscope report: the MPI analysis wrote no %s\n", out);
    } else if (ok) {
        fprintf(stderr, "mpiscope report: the analysis under %s (%s -np %d) failed (%s %d)\n", mpi,
                launcher, np, WIFEXITED(status) ? "exit code" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    unlink(out);
    rmdir(dir); /* fails, harmlessly, if a killed analysis left its temporary file */
    return text;
}
