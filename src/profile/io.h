/* Private to the profile module. The I/O section: what each rank did to each
 * file it opened through MPI-IO, in the spirit of Darshan's MPI-IO module.
 *
 * One table per process (a mutex: file operations cost microseconds, a lock
 * costs tens of nanoseconds), filled from the profile's leave hook: an
 * MPI_File_open makes (or finds) the file's record by name and maps the new
 * handle to it; reads and writes are counted on the record their handle
 * maps to (independent or collective: the _all and _ordered forms and the
 * split collectives), with their bytes from the status (nonblocking ones when
 * they complete), their time and an access-size histogram each; open and
 * close count as the file's other (metadata) time. A handle maps to the file
 * of its latest open, so a handle value the MPI hands out again after a
 * close is never confused with the closed file. Files beyond
 * MPISCOPE_PROFILE_FILES are summed into one "other files" record.
 */
#ifndef MSC_PROFILE_IO_H
#define MSC_PROFILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

enum { MSC_PIO_READ = 0, MSC_PIO_WRITE = 1 };
enum { MSC_PIO_INDEP = 0, MSC_PIO_COLL = 1 };

typedef struct {
    uint64_t opens;                   /* MPI_File_open calls */
    uint64_t ops[2][2];               /* [read, write][independent, collective] operations */
    uint64_t bytes[2];                /* bytes read, written */
    uint64_t time_ns[3];              /* ns in reads, writes, open and close */
    uint64_t hist[2][MSC_PROF_BINS];  /* operations per access size, reads and writes */
} msc_pio_stat_t;

typedef struct {
    char *name;                       /* as opened; relative names made absolute */
    msc_pio_stat_t s;
} msc_pio_file_t;

/* Sets the table up (profile init). */
void msc_pio_init(void) __attribute__((visibility("hidden")));

/* The profile's leave hook hands over every call of a file kind (and
 * MPI_File_open/close): counts it. `bytes` is what the status says was done
 * (blocking calls); nonblocking ones count their bytes in msc_pio_done. */
void msc_pio_call(const msc_call_t *c, uint64_t bytes) __attribute__((visibility("hidden")));

/* A nonblocking read or write completed (c->done). */
void msc_pio_done(const msc_done_t *d) __attribute__((visibility("hidden")));

/* A copy of this rank's files (*n of them, names duplicated), and the
 * number of files summed into others[] (the last entry, name NULL, when
 * *others > 0). Caller frees with msc_pio_free. */
msc_pio_file_t *msc_pio_snapshot(size_t *n, uint64_t *others) __attribute__((visibility("hidden")));
void msc_pio_free(msc_pio_file_t *f, size_t n) __attribute__((visibility("hidden")));

/* Adds b into a. */
void msc_pio_stat_add(msc_pio_stat_t *a, const msc_pio_stat_t *b) __attribute__((visibility("hidden")));

#endif
