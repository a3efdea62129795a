/* Private to the `mpiscope` program: the output directory of a run (outdir.c). */
#ifndef MSC_CLI_OUTDIR_H
#define MSC_CLI_OUTDIR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether a file can be made in `dir` (else *err is the errno). */
bool msc_outdir_writable(const char *dir, int *err);

/* How many of the names a run writes `dir` holds; `list` gets the first of
 * them, comma-separated. */
size_t msc_outdir_results(const char *dir, char *list, size_t len);

/* After a run that did not end normally (exit code rc, or ranks that left a
 * reason for stopping), prints what each rank left in `dir` (named `shown`)
 * and how to read it. 0: nothing to say (nothing printed); 1: said, and the
 * merged results (profile.json or checks.json) are there too; 2: said, and
 * only the per-rank files are. */
int msc_outdir_leftovers(const char *dir, const char *shown, int rc, FILE *o);

/* The ids of the worlds MPI_Comm_spawn made during the run whose results are
 * in `dir` (each in dir/worlds/<id>), sorted; their number. Free with
 * msc_outdir_worlds_free. */
int msc_outdir_worlds(const char *dir, char ***ids);
void msc_outdir_worlds_free(char **ids, int n);
#endif
