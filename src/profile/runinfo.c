/* The run's metadata (runinfo.h): noted at MPI_Init, written by rank 0.
 *
 * The command line is the program's own: /proc/self/cmdline (its arguments
 * as the launcher passed them) with the first word replaced by the
 * executable's resolved path (/proc/self/exe), so a program started as
 * ./bt.S.x shows where it was. The MPI library's version is
 * MPI_Get_library_version's first line, with runs of white space made one
 * space (MPICH's has tabs).
 *
 * Under Slurm (SLURM_JOB_ID in the environment: srun's tasks, and the ranks
 * that mpirun starts inside salloc or sbatch, whose daemons srun starts) the
 * job is noted too: its id, the step the ranks are in, the cluster and the
 * job's node list as Slurm writes it (SLURM_JOB_NODELIST, "msn[1-3]"), so
 * the report can set the hosts the ranks ran on against the nodes the job
 * was given.
 */
#include "runinfo.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpiscope.h"
#include "settings.h"
#include "state.h"
#include "../core/json_out.h"

enum { ARGS_MAX = 8192 };

static char host[256] = "?";
static char exe[PATH_MAX] = "";
static const char *program = "?";
static char args[ARGS_MAX]; /* the arguments after the program, NUL-separated */
static size_t args_len;
static char *command; /* the command line as one string, made once (msc_prun_command) */
static struct timespec start;
static char library[256] = "";
static int version[2];

/* The Slurm job, when there is one (slurm_job[0] != 0). */
static char slurm_job[32], slurm_step[32], slurm_cluster[128], slurm_nodes[16];
static char *slurm_nodelist;

static void copy_env(char *dst, size_t size, const char *name)
{
    const char *v = getenv(name);
    snprintf(dst, size, "%s", v ? v : "");
}

void msc_prun_init(void)
{
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "?");
    host[sizeof host - 1] = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *slash = strrchr(exe, '/');
    program = exe[0] ? (slash ? slash + 1 : exe) : "?";
    clock_gettime(CLOCK_REALTIME, &start);
    PMPI_Get_version(&version[0], &version[1]);
    free(command);
    command = NULL;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        args_len = fread(args, 1, sizeof args - 1, f);
        fclose(f);
        /* Drop argv[0]: the executable's path stands for it. */
        size_t first = strnlen(args, args_len);
        first = first < args_len ? first + 1 : args_len;
        memmove(args, args + first, args_len - first);
        args_len -= first;
    }
    copy_env(slurm_job, sizeof slurm_job, "SLURM_JOB_ID");
    if (slurm_job[0]) {
        copy_env(slurm_step, sizeof slurm_step, "SLURM_STEP_ID");
        copy_env(slurm_cluster, sizeof slurm_cluster, "SLURM_CLUSTER_NAME");
        copy_env(slurm_nodes, sizeof slurm_nodes, "SLURM_JOB_NUM_NODES");
        const char *list = getenv("SLURM_JOB_NODELIST");
        if (!list) list = getenv("SLURM_NODELIST");
        free(slurm_nodelist);
        slurm_nodelist = list ? strdup(list) : NULL;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        size_t k = 0;
        bool space = false;
        for (int i = 0; i < len && lib[i] && lib[i] != '\n' && k + 1 < sizeof library; i++) {
            bool ws = lib[i] == ' ' || lib[i] == '\t' || lib[i] == '\r';
            if (ws && (space || k == 0)) continue;
            library[k++] = ws ? ' ' : lib[i];
            space = ws;
        }
        while (k && library[k - 1] == ' ') k--;
        library[k] = 0;
    }
}

const char *msc_prun_host(void)
{
    return host;
}

const char *msc_prun_program(void)
{
    return program;
}

const char *msc_prun_command(void)
{
    if (command) return command;
    /* The command line as one string, each argument quoted when it has to be. */
    char *cmd = NULL;
    size_t clen = 0;
    FILE *c = open_memstream(&cmd, &clen);
    if (!c) return exe;
    fputs(exe, c);
    for (size_t i = 0; i < args_len; i += strlen(args + i) + 1) {
        const char *a = args + i;
        bool plain = *a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;");
        if (plain) {
            fprintf(c, " %s", a);
            continue;
        }
        fputs(" '", c);
        for (; *a; a++) *a == '\'' ? fputs("'\\''", c) : fputc(*a, c);
        fputc('\'', c);
    }
    if (fclose(c) != 0) {
        free(cmd);
        return exe;
    }
    command = cmd;
    return command;
}

/* Whether a setting's value differs from its default. */
static bool non_default(msc_setting_id_t id)
{
    const msc_setting_desc_t *d = msc_setting_desc(id);
    const msc_setting_value_t *v = &msc_g.settings.v[id];
    msc_setting_value_t def;
    char err[256];
    if (!v->given || !msc_setting_parse(id, d->dflt, &def, err, sizeof err)) return false;
    if (d->type == MSC_SETTING_STRING) return strcmp(v->str, def.str) != 0;
    return v->num != def.num;
}

void msc_prun_json(FILE *o, uint64_t wall_ns)
{
    /* How the processes came into MPI: a spawned world (its id names its
     * directory, worlds/<id>), a sessions program (solo, state.h), or the
     * job's first world through MPI_Init. */
    fprintf(o, "\"world\": {\"id\": ");
    msc_json_put_string(o, msc_g.world_id);
    fprintf(o, ", \"spawned\": %s, \"entered_by\": \"%s\"}, ", msc_g.world_id[0] ? "true" : "false",
            msc_g.solo ? "MPI_Session_init" : "MPI_Init");
    fprintf(o, "\"executable\": ");
    msc_json_put_string(o, exe);
    fprintf(o, ", \"args\": [");
    for (size_t i = 0; i < args_len; i += strlen(args + i) + 1) {
        fprintf(o, "%s", i ? ", " : "");
        msc_json_put_string(o, args + i);
    }
    fprintf(o, "], \"command\": ");
    msc_json_put_string(o, msc_prun_command());
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&start.tv_sec, &tm))
        snprintf(when, sizeof when, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 start.tv_nsec / 1000000);
    fprintf(o, ", \"start_time\": \"%s\", \"start_unix_ns\": %lld, \"duration_ns\": %llu",
            when, (long long)start.tv_sec * 1000000000LL + start.tv_nsec,
            (unsigned long long)wall_ns);
    fprintf(o, ", \"mpi_library\": ");
    msc_json_put_string(o, library);
    fprintf(o, ", \"mpi_version\": \"%d.%d\", \"mpiscope_version\": ", version[0], version[1]);
    msc_json_put_string(o, mpiscope_version());
    fprintf(o, ", \"settings\": {");
    bool first = true;
    for (int id = 0; id < MSC_SET_COUNT; id++) {
        if (!non_default((msc_setting_id_t)id)) continue;
        fprintf(o, "%s", first ? "" : ", ");
        msc_json_put_string(o, msc_setting_desc((msc_setting_id_t)id)->name);
        fprintf(o, ": ");
        msc_json_put_string(o, msc_g.settings.v[id].str);
        first = false;
    }
    fputc('}', o);
    if (slurm_job[0]) {
        fprintf(o, ", \"slurm\": {\"job_id\": ");
        msc_json_put_string(o, slurm_job);
        if (slurm_step[0]) {
            fprintf(o, ", \"step_id\": ");
            msc_json_put_string(o, slurm_step);
        }
        if (slurm_cluster[0]) {
            fprintf(o, ", \"cluster\": ");
            msc_json_put_string(o, slurm_cluster);
        }
        if (slurm_nodelist) {
            fprintf(o, ", \"nodelist\": ");
            msc_json_put_string(o, slurm_nodelist);
        }
        char *end = NULL;
        long n = strtol(slurm_nodes, &end, 10);
        if (slurm_nodes[0] && *end == 0 && n > 0) fprintf(o, ", \"nodes\": %ld", n);
        fputc('}', o);
    }
}
