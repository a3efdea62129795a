/* Private to mpiscope. The closing lines of a run on stderr, in the manner
 * of IPM's banner: what a user wants to know first, read back from the run's
 * output directory (profile.json; checks.json and the trace when they are
 * there), so that `mpiscope run` (after the launcher returned) and the tool
 * library (rank 0, run without `mpiscope run`) print the same. No MPI: the
 * command-line program compiles this file too.
 */
#ifndef MSC_PROFILE_BANNER_H
#define MSC_PROFILE_BANNER_H

#include <stdio.h>

/* Writes the summary of the run in `dir` to `o`, each line starting with
 * "mpiscope: ": wall time, MPI share and imbalance, the three functions
 * with the most MPI time, I/O, check findings by severity (checks.json),
 * the trace's size (trace/), and the next command. `shown` is the directory
 * as the user named it. Returns the number of lines, 0 if dir has no
 * readable profile.json (nothing is written then). */
int msc_banner_print(FILE *o, const char *dir, const char *shown);

/* The ranks profile.json in `dir` covers, or -1 without one. */
int msc_banner_ranks(const char *dir);

/* The worlds the run in `dir` spawned (profile.json's spawned_worlds), 0
 * without one. */
int msc_banner_spawned(const char *dir);

#endif
