/* Output directory and file creation. World rank 0 picks the directory
 * (MPISCOPE_OUTPUT, or a name made of the program, the time and its pid, so
 * that two runs started in the same second do not collide), creates it with
 * mode 0755 and broadcasts the outcome over the tool's private communicator.
 * A spawned world (msc_g.world_id) writes into <directory>/worlds/<id>, so
 * that no world's results overwrite another's. A solo process (sessions,
 * state.h) cannot agree on a name with the others: each creates
 * MPISCOPE_OUTPUT itself, or, when none is set, a name made of the program
 * and the job's id from the launcher's environment.
 */
#include "output.h"

#include <stdatomic.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "state.h"

static bool make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0) return true;
    if (errno != EEXIST) return false;
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* make_dir of `path` and of each of its parents. */
static bool make_dirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            make_dir(buf);
            *p = '/';
        }
    return make_dir(buf);
}

/* The directory's name when MPISCOPE_OUTPUT gives none: the program and,
 * for a solo process (which cannot hear rank 0's), the launcher's job id
 * (the PMIx namespace, Slurm's job and step, Hydra's PMI port), else rank
 * 0's time and process id. */
static void default_name(char *path, size_t size, const char *program)
{
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    if (!*base) base = "app";
    const char *ns = getenv("PMIX_NAMESPACE"), *job = getenv("SLURM_JOB_ID"),
               *step = getenv("SLURM_STEP_ID"), *port = getenv("PMI_PORT");
    if (msc_g.solo && ns && *ns)
        snprintf(path, size, "mpiscope-%.64s-%.64s", base, ns);
    else if (msc_g.solo && job)
        snprintf(path, size, "mpiscope-%.64s-%.32s.%.16s", base, job, step ? step : "0");
    else if (msc_g.solo && port)
        snprintf(path, size, "mpiscope-%.64s-pmi-%.64s", base, port);
    else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(path, size, "mpiscope-%.64s-%s-%ld", base, stamp, (long)getpid());
        if (msc_g.solo && msc_g.world_size > 1)
            msc_warn_once("solo-outdir", "MPISCOPE_OUTPUT is not set and the launcher gives no "
                                         "job id: each process of this sessions program "
                                         "writes into a directory of its own (%s)", path);
    }
    for (char *p = path; *p; p++)
        if (*p == '/' || *p == ':') *p = '_';
}

/* The directory: MPISCOPE_OUTPUT or a default name, and for a spawned
 * world its subdirectory worlds/<id>; created with its parents. */
static bool choose_dir(char *path, size_t size, const char *program)
{
    const char *given = msc_g.settings.v[MSC_SET_OUTPUT].str;
    if (*given)
        snprintf(path, size, "%s", given);
    else
        default_name(path, size, program);
    if (strlen(path) >= sizeof msc_g.outdir - 80) {
        msc_warn("output directory '%.80s...' is too long (%zu characters); results will "
                 "not be written",
                 path, strlen(path));
        return false;
    }
    if (!make_dir(path)) {
        msc_warn("cannot create output directory '%s': %s; results will not be written", path,
                 strerror(errno));
        return false;
    }
    if (msc_g.world_id[0]) {
        size_t n = strlen(path);
        snprintf(path + n, size - n, "/worlds");
        if (!make_dir(path)) return false;
        n = strlen(path);
        snprintf(path + n, size - n, "/%s", msc_g.world_id);
        if (!make_dir(path)) {
            msc_warn("cannot create output directory '%s': %s; results will not be written",
                     path, strerror(errno));
            return false;
        }
    }
    return true;
}

void msc_output_setup(const char *program)
{
    char path[sizeof msc_g.outdir];
    int ok = 0;
    if (msc_g.solo) {
        ok = choose_dir(path, sizeof path, program);
        msc_g.outdir_shared = true;
        snprintf(msc_g.outdir, sizeof msc_g.outdir, "%s", ok ? path : "");
        return;
    }
    if (msc_g.world_rank == 0) {
        ok = choose_dir(path, sizeof path, program);
        if (!ok) path[0] = 0;
    }
    char marker[sizeof path + 64];
    if (ok) {
        snprintf(marker, sizeof marker, "%s/.mpiscope-shared.%ld", path, (long)getpid());
        int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) close(fd);
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, msc_g.comm);
    if (ok) PMPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, msc_g.comm);
    if (ok) PMPI_Bcast(marker, (int)sizeof marker, MPI_CHAR, 0, msc_g.comm);
    if (ok) {
        int unseen = access(marker, F_OK) != 0, nunseen = 0, local_ok = 1;
        if (unseen && !make_dirs(path)) local_ok = 0;
        PMPI_Allreduce(&unseen, &nunseen, 1, MPI_INT, MPI_SUM, msc_g.comm);
        if (msc_g.world_rank == 0) {
            unlink(marker);
            if (nunseen)
                msc_warn("output directory '%s' is not shared by every rank: %d of %d ranks "
                         "(on other nodes) cannot see it and write into their own node's copy. "
                         "The profile is complete here; the trace's events of those ranks are "
                         "in their nodes' copies: copy every node's directory into this one "
                         "before 'mpiscope report'",
                         path, nunseen, msc_g.world_size);
        }
        if (!local_ok) {
            msc_warn("cannot create this node's copy of output directory '%s': %s", path,
                     strerror(errno));
            path[0] = 0;
        }
        msc_g.outdir_shared = !unseen;
        msc_g.outdir_unseen = nunseen;
    }
    snprintf(msc_g.outdir, sizeof msc_g.outdir, "%s", ok ? path : "");
}

bool msc_out_open(msc_out_t *o, const char *name)
{
    o->f = NULL;
    if (!msc_g.outdir[0]) return false;
    int n1 = snprintf(o->final_path, sizeof o->final_path, "%s/%s", msc_g.outdir, name);
    /* The temporary name is the last component's, hidden, beside it (name
     * may lie in a subdirectory: ".check/wait.3"). */
    const char *slash = strrchr(name, '/');
    int dirlen = slash ? (int)(slash - name + 1) : 0;
    int n2 = snprintf(o->temp_path, sizeof o->temp_path, "%s/%.*s.%s.partial-%ld", msc_g.outdir,
                      dirlen, name, name + dirlen, (long)getpid());
    if (n1 < 0 || n2 < 0 || (size_t)n2 >= sizeof o->temp_path ||
        (size_t)n1 >= sizeof o->final_path) {
        msc_warn_once("output-name", "path for '%s' in '%s' is too long; it will be missing", name,
                      msc_g.outdir);
        return false;
    }
    unlink(o->temp_path);
    int fd = open(o->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        msc_warn_once("output-open", "cannot create '%s': %s; it will be missing", o->final_path,
                      strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    return true;
}

static _Atomic unsigned long files_written;

void msc_output_wrote(void)
{
    atomic_fetch_add(&files_written, 1);
}

unsigned long msc_output_written(void)
{
    return atomic_load(&files_written);
}

bool msc_out_close(msc_out_t *o)
{
    if (!o->f) return false;
    bool ok = !ferror(o->f);
    int err = errno;
    if (fflush(o->f) != 0) ok = false, err = errno;
    if (fsync(fileno(o->f)) != 0 && errno != EINVAL) ok = false, err = errno;
    if (fclose(o->f) != 0) ok = false, err = errno;
    o->f = NULL;
    if (ok && rename(o->temp_path, o->final_path) != 0) ok = false, err = errno;
    if (ok) msc_output_wrote();
    if (!ok) {
        unlink(o->temp_path);
        msc_warn_once("output-write", "could not write '%s': %s; it is missing", o->final_path,
                      strerror(err));
    }
    return ok;
}
