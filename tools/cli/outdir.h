/* Private to the `mpiscope` program: the output directory of a run (outdir.c). */
#ifndef MSC_CLI_OUTDIR_H
#define MSC_CLI_OUTDIR_H
#include <stdbool.h>
#include <stddef.h>

/* Whether a file can be made in `dir` (else *err is the errno). */
bool msc_outdir_writable(const char *dir, int *err);

/* How many of the names a run writes `dir` holds; `list` gets the first of
 * them, comma-separated. */
size_t msc_outdir_results(const char *dir, char *list, size_t len);
#endif
