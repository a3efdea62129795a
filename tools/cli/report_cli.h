/* Private to the `mpiscope` program. What the report, export and diff
 * commands share: reading files, the wait states, the renderers. */
#ifndef MSC_CLI_REPORT_CLI_H
#define MSC_CLI_REPORT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "../../src/profile/pjson.h"

/* The whole file, NUL-terminated (len excludes the NUL); NULL with errno. */
char *msc_slurp(const char *path, size_t *len);
/* Parsed JSON file, or NULL with a message on stderr (none when the file
 * does not exist and quiet_if_missing). */
msc_json_doc_t *msc_load_json(const char *path, bool quiet_if_missing);

/* DIR/waitstates.json, computed from DIR/trace when missing or older than
 * the trace (report_cmd.c). NULL when there is no trace or it cannot be read. */
msc_json_doc_t *msc_report_waitstates(const char *dir, bool reanalyze, long parallel_locations);

/* Runs the MPI analysis program on the trace when it has at least
 * `min_locations` locations (waitstate_par.c); it writes DIR/waitstates.json.
 * Returns 0 when it did, 1 when the trace is small, -1 on failure. */
int msc_waitstate_parallel(const char *dir, const char *anchor, long min_locations);

/* The text section of the wait states (waitstate_render.c); `limit` call
 * sites (0: all). Returns 0, or -1 if `ws` is not a waitstates.json. */
int msc_waitstates_render(FILE *out, const msc_json_t *ws, int limit);

/* The HTML report (report_html.c): any of dir (for checks.json, mpit.json),
 * profile_path and ws may be missing. Returns 0 or 1 (message on stderr). */
int msc_report_html(const char *dir, const char *profile_path, const msc_json_doc_t *ws,
                    const char *out_path);

#endif
