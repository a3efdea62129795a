/* Private to the mpiscope program. Launcher command lines.
 *
 * `mpiscope run` must get LD_PRELOAD and the MPISCOPE_* settings to every
 * rank, including ranks on other nodes, which do not inherit the launcher's
 * environment, while keeping the tool out of the launcher itself. So nothing
 * is put into the launcher's environment: each variable is passed on the
 * launcher's command line in that launcher's own syntax, right after its
 * name. This file knows those syntaxes, which of a launcher's options take
 * values (to find the program among its arguments), and how to look a
 * command up in PATH the way execvp does.
 */
#ifndef MSC_CLI_LAUNCHER_H
#define MSC_CLI_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mpi_detect.h"

typedef enum {
    MSC_LAUNCHER_NONE = 0, /* no launcher: the program runs as a singleton */
    MSC_LAUNCHER_OPENMPI,  /* orterun, prterun: -x NAME=VALUE */
    MSC_LAUNCHER_HYDRA,    /* MPICH's mpiexec.hydra: -genv NAME VALUE */
    MSC_LAUNCHER_SLURM,    /* srun: --export=ALL,NAME=VALUE,... */
    MSC_LAUNCHER_MPIRUN,   /* an mpirun/mpiexec of unknown make (a wrapper script) */
} msc_launcher_t;

/* A short description of `kind` for messages, e.g. "Open MPI (orterun)". */
const char *msc_launcher_describe(msc_launcher_t kind);

/* The kind a command named `argv0` is, by its base name alone: mpirun*,
 * mpiexec*, orterun and prterun are MSC_LAUNCHER_MPIRUN (refine it with
 * msc_launcher_refine), srun is MSC_LAUNCHER_SLURM, anything else is the
 * program itself (MSC_LAUNCHER_NONE). */
msc_launcher_t msc_launcher_by_name(const char *argv0);

/* The syntax to use for an MPIRUN-kind launcher of MPI `mpi`. */
msc_launcher_t msc_launcher_for_mpi(msc_mpi_t mpi);

/* Looks `name` up as execvp would: as given when it contains a slash, else in
 * each directory of PATH. Returns the malloc'd path of an executable regular
 * file, or NULL. */
char *msc_find_executable(const char *name);

/* Index in argv (argv[0] is the launcher) of the program the launcher starts:
 * the first argument after the launcher's options, and the values of those
 * options, that is an executable file. `*path` receives its malloc'd path.
 * Returns -1 when there is none (an appfile, a program not found). */
int msc_launcher_program(msc_launcher_t kind, int argc, char *const *argv, char **path);

/* The LD_PRELOAD that the launcher's own options (before the program) give
 * the ranks: Open MPI's -x LD_PRELOAD=V or -x LD_PRELOAD (the launcher's own
 * value), hydra's -genv/-env LD_PRELOAD V, srun's --export=...,LD_PRELOAD=V
 * (or LD_PRELOAD alone: the environment's). Each launcher keeps the last
 * value given, so such an option would replace ours: the caller puts its
 * value in front of ours, and msc_launcher_command leaves the option (for
 * srun, the token) out. Returns the
 * value of the last such option, or NULL when there is none. */
const char *msc_launcher_preload_option(msc_launcher_t kind, int argc, char *const *argv);

typedef struct {
    const char *name;  /* e.g. "LD_PRELOAD" */
    const char *value;
} msc_envvar_t;

/* A NULL-terminated argument vector that owns some of its strings. */
typedef struct {
    char **argv;
    int argc;
    int cap;
    char **owned;
    int nowned;
} msc_argv_t;

void msc_argv_free(msc_argv_t *a);

/* Builds the launcher command `argv` with `vars` passed in the syntax of
 * `kind` (which must be OPENMPI, HYDRA or SLURM), right after the launcher's
 * name, without the options msc_launcher_preload_option found. Returns false
 * with one sentence in `err` if a value cannot be expressed in that syntax. */
bool msc_launcher_command(msc_launcher_t kind, int argc, char *const *argv,
                          const msc_envvar_t *vars, int nvars, msc_argv_t *out, char *err,
                          size_t errlen);

/* Writes `word` to `out`, quoted for a POSIX shell when it needs quoting. */
void msc_print_shell_word(FILE *out, const char *word);

#endif
