/* Private to mpiscope. Messages to the user on stderr.
 *
 * Every line starts with "mpiscope:" and, once MPI is up, the world rank, so a
 * user can tell the tool's words from the application's. msc_warn_once prints
 * a given key only the first time in the process: a tool that fails on every
 * call must say so once, not a million times.
 */
#ifndef MSC_CORE_LOG_H
#define MSC_CORE_LOG_H

#include <stdbool.h>

/* The world rank to put in front of messages; -1 before MPI_Init. */
void msc_log_set_rank(int rank);

void msc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints only the first message for each distinct `key` (a static string). */
void msc_warn_once(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True for the process that should speak for all: world rank 0, or, before
 * MPI_Init, the process the launcher calls rank 0 (or any process when the
 * launcher does not say). */
bool msc_log_is_speaker(void);

#endif
