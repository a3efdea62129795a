/* Fuzz target: the command line of `mpiscope run` (tools/cli/run.c) and the
 * launcher argument parsing it relies on (tools/cli/launcher.c).
 *
 * The input is the argument list, one argument per line. run.c is compiled
 * into this file so that its static steps can be called one by one: the
 * options, the MPISCOPE_* environment, --trace/--check, then the launcher's
 * program, LD_PRELOAD option and rewritten command, and finally the whole
 * of run() with --dry-run forced on. Nothing is ever started: fork and
 * execvp are replaced by functions that abort, so reaching them is a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static pid_t fuzz_no_fork(void)
{
    abort();
}

static int fuzz_no_exec(const char *file, char *const argv[])
{
    (void)file, (void)argv;
    abort();
}

#define fork fuzz_no_fork
#define execvp fuzz_no_exec
#include "../../tools/cli/run.c"
#undef fork
#undef execvp

enum { MAX_ARGS = 64 };

static void check(int ok)
{
    if (!ok) abort();
}

/* The launcher's parsers, as run() would call them once the tool library is
 * known (run() itself stops early in this build: there is no library). */
static void fuzz_launcher(run_request_t *r, uint8_t flavor)
{
    char **cmd = r->cmd_argv;
    msc_launcher_t kind = msc_launcher_by_name(cmd[0]);
    if (kind == MSC_LAUNCHER_NONE) return;
    if (kind == MSC_LAUNCHER_MPIRUN)
        kind = msc_launcher_for_mpi(flavor % 2 ? MSC_MPI_MPICH : MSC_MPI_OPENMPI);
    char *program = NULL;
    int at = msc_launcher_program(kind, r->cmd_argc, cmd, &program);
    check(at < r->cmd_argc);
    free(program);
    const char *preload = msc_launcher_preload_option(kind, r->cmd_argc, cmd);
    msc_envvar_t vars[MSC_SET_COUNT + 1];
    int nvars = 0;
    vars[nvars++] = (msc_envvar_t){"LD_PRELOAD", preload ? preload : "/lib/libmpiscope.so"};
    for (int i = 0; i < MSC_SET_COUNT; i++)
        if (r->value[i])
            vars[nvars++] = (msc_envvar_t){msc_setting_desc((msc_setting_id_t)i)->name, r->value[i]};
    msc_argv_t command = {0};
    char err[MSC_SETTING_MAX_STRING + 256];
    if (msc_launcher_command(kind, r->cmd_argc, cmd, vars, nvars, &command, err, sizeof err))
        check(command.argv && command.argv[0]);
    msc_argv_free(&command);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* The dry run's command line is not wanted; the messages on stderr are
     * silenced by run.sh (-close_fd_mask), which keeps the crash reports. */
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (char *a = text, *next; a && argc < MAX_ARGS; a = next) {
        next = strchr(a, '\n');
        if (next) *next++ = 0;
        argv[argc++] = a;
    }
    argv[argc] = NULL;

    run_request_t r = {0};
    int rc = parse_options(&r, argc, argv);
    check(rc == 0 || rc == -1 || rc == EXIT_USAGE);
    if (rc == 0) rc = take_environment(&r);
    if (rc == 0) rc = settle_mode(&r);
    check(rc == 0 || rc == -1 || rc == EXIT_USAGE);
    if (rc == 0) {
        fuzz_launcher(&r, data[0]);
        r.dry_run = true;
        rc = run(&r);
        check(rc == 0 || rc == EXIT_USAGE || rc == EXIT_NOT_FOUND);
    }
    free(r.test_vars);
    free_made();
    free(text);
    return 0;
}
