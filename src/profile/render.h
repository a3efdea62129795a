/* Private to mpiscope. The text report of a profile, rendered from the
 * parsed profile.json alone. The tool library (profile.txt) and `mpiscope
 * report` both call it, so the two texts are the same for the same data.
 * No MPI here: the command-line program compiles this file too.
 */
#ifndef MSC_PROFILE_RENDER_H
#define MSC_PROFILE_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "pjson.h"

/* The profile.json schema version written, and the newest one read. */
#define MSC_PROFILE_SCHEMA 1

typedef enum { MSC_SORT_TIME, MSC_SORT_CALLS, MSC_SORT_BYTES, MSC_SORT_NAME } msc_sort_t;

typedef struct {
    msc_sort_t sort; /* order of the function and call-site tables */
    int limit;       /* rows per table; 0: all */
} msc_render_opts_t;

/* What profile.txt uses: by time, 20 rows. */
msc_render_opts_t msc_render_defaults(void);

/* Parses "time", "calls", "bytes" or "name"; false if none of them. */
int msc_render_parse_sort(const char *word, msc_sort_t *out);

/* Writes the report; returns 0, or -1 if `root` is not a profile (with a
 * line on `out` saying why). */
int msc_profile_render(FILE *out, const msc_json_t *root, const msc_render_opts_t *opts);

/* The Slurm job of a profile's "run" (run.slurm), on one line without its
 * end: "job 3, step 0, cluster c: nodes n[1-3] (3), ranks on all 3", the
 * job's nodes set against run.hosts. Writes nothing and returns false when
 * the run has no Slurm job. */
bool msc_render_slurm(FILE *out, const msc_json_t *run);

/* DIR has no profile.json: merges each rank's profile.rank<R>.incomplete.json
 * (or its latest MPI_Pcontrol(2) flush), renders the merge and says which
 * ranks are missing and why (rank-<R>.incomplete notes). Returns 0, -1 on
 * error, -2 if DIR holds no partial profile at all (said on `err`). */
int msc_profile_render_partial(FILE *out, FILE *err, const char *dir,
                               const msc_render_opts_t *opts);

#endif
