/* Private to the `mpiscope` program. What the report, export and diff
 * commands share: reading files, the wait states, the renderers. */
#ifndef MSC_CLI_REPORT_CLI_H
#define MSC_CLI_REPORT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../src/profile/pjson.h"

/* The whole file, NUL-terminated (len excludes the NUL); NULL with errno. */
char *msc_slurp(const char *path, size_t *len);
/* Parsed JSON file, or NULL with a message on stderr (none when the file
 * does not exist and quiet_if_missing). */
msc_json_doc_t *msc_load_json(const char *path, bool quiet_if_missing);

/* How the wait states are analysed: np > 1 runs the analysis under MPI
 * with np processes (mpi: "openmpi", "mpich" or NULL for the first found),
 * unless the trace has fewer than min_locations locations. */
typedef struct {
    int np;
    const char *mpi;
    long min_locations;
    bool timeline; /* the HTML page's timeline too (--html) */
    bool window;   /* its exact calls in [from_ns, to_ns] after the start (--from, --to):
                    * analysed again, not saved */
    unsigned long long from_ns, to_ns;
} msc_ws_opts_t;

/* DIR/waitstates.json, computed from DIR/trace when missing or older than
 * the trace (report_cmd.c). NULL when there is no trace or it cannot be read. */
msc_json_doc_t *msc_report_waitstates(const char *dir, bool reanalyze, const msc_ws_opts_t *o);

/* Runs the MPI analysis program (tools/analysis/mpi/) with np processes on the trace
 * `anchor` (waitstate_par.c), with the what-if options extra[0..nextra)
 * (at most 56). Returns the waitstates.json text it wrote (malloc'd, *len
 * bytes), or NULL with a message on stderr. */
char *msc_waitstate_parallel(const char *anchor, int np, const char *mpi, char *const *extra,
                             int nextra, size_t *len);

/* The text section of the wait states (waitstate_render.c); `limit` call
 * sites (0: all). Returns 0, or -1 if `ws` is not a waitstates.json. */
int msc_waitstates_render(FILE *out, const msc_json_t *ws, int limit);

/* The sections of the analyses after the wait states (analysis_render.c):
 * POP from the trace, the replays, the critical path, the delay. */
int msc_analysis_render(FILE *out, const msc_json_t *ws, int limit);
/* `mpiscope replay`'s text: real, ideal and predicted run time, per rank
 * (analysis_render.c). -1 if `ws` has no what-if replay. */
int msc_replay_render(FILE *out, const msc_json_t *ws);

/* The HTML sections of the analyses (report_html_analysis.c): POP's tree
 * from the profile and/or the trace (either may be NULL), and the critical
 * path and delay from waitstates.json. */
void msc_html_pop(FILE *out, const msc_json_t *profile, const msc_json_t *ws);
void msc_html_analysis(FILE *out, const msc_json_t *ws);
/* The timeline section (report_html_timeline.c), from waitstates.json's
 * "timeline"; nothing without one. */
void msc_html_timeline(FILE *out, const msc_json_t *ws, const msc_json_t *profile);

/* The profile's call paths as folded stacks (export_folded.c), the lines
 * of `mpiscope export --folded`: sites that differ only in their lines
 * merged, sorted by path, MPI time in microseconds summed over the ranks and
 * rounded, paths below half a microsecond left out. 0 (none when the profile
 * has no call sites) or -1 when out of memory. */
typedef struct {
    char *path; /* "main;solve;MPI_Allreduce" */
    int64_t us;
} msc_folded_t;
int msc_folded_stacks(const msc_json_t *profile, msc_folded_t **out, size_t *n);
void msc_folded_free(msc_folded_t *f, size_t n);
/* The flame view of those stacks (report_html_flame.c); nothing without
 * call sites. */
void msc_html_flame(FILE *out, const msc_json_t *profile);

/* POP's scaling table of n runs (scaling.c): profiles, and the traces'
 * analyses where there are traces. 0, or 1 with a message on stderr. */
int msc_report_scaling(int n, char **dirs, bool weak, const msc_ws_opts_t *wso, FILE *out);

/* `mpiscope report --by-node` (report_nodes.c): the ranks of profile.json
 * grouped by host; dir (may be NULL) for the trace's system tree. 0, or 1
 * with a message when no host per rank is known. */
int msc_report_nodes(const char *dir, const char *profile, FILE *out);

/* The trace in parts (report_parts.c): which ranks' event files are in
 * other nodes' copies (a message, or NULL when none is missing), and the
 * copies merged into a new directory of links (0, or 1 with a message). */
char *msc_report_parts_missing(const char *dir);
int msc_report_parts_merge(const char *target, char **parts, int nparts, char *merged, size_t len);
void msc_report_parts_cleanup(const char *merged);

/* Writes s with <, >, & and " as HTML entities (report_html.c). */
void msc_html_esc(FILE *o, const char *s);
/* The HTML report (report_html.c): any of dir (for checks.json, mpit.json),
 * profile_path and ws may be missing. Returns 0 or 1 (message on stderr). */
int msc_report_html(const char *dir, const char *profile_path, const msc_json_doc_t *ws,
                    const char *out_path);

/* The correctness checks of DIR (report_checks.c): checks.txt/json
 * assembled from the per-rank files when the run died before MPI_Finalize.
 * Returns 1 if DIR has a checks report (now), else 0. */
int msc_report_checks(const char *dir);
/* DIR/checks.txt as a section of the text report (nothing if absent). */
void msc_report_checks_print(const char *dir, FILE *out);

#endif
