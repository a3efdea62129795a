/* A location's event files while the run goes on and after a write error
 * (segments.c). Free of MPI and of the tool's global state, so that the
 * unit tests drive it on files that OTF2 writes (tests/unit/test_segments.c).
 *
 * traces/<loc>.evt is what the location's current OTF2 writer writes;
 * traces/<loc>.evt.flushed holds the events of its earlier writers, each
 * appended after its writer was closed. `base` and `sealed` say what the
 * appends left: the number of the last event, and the file's size after the
 * last append that went through in full, so that an append cut short by a
 * full disk is known and dropped.
 */
#ifndef MSC_TRACE_SEGMENTS_H
#define MSC_TRACE_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *dir;  /* the archive's traces/ directory */
    uint64_t loc;     /* the location: its files are <dir>/<loc>.evt[.flushed] */
    uint64_t chunk;   /* the archive's event chunk size */
    uint64_t base;    /* events in <loc>.evt.flushed, by its chunk headers */
    uint64_t sealed;  /* bytes of <loc>.evt.flushed after its last whole append */
} trc_segfile_t;

/* After the location's writer was closed: <loc>.evt appended to
 * <loc>.evt.flushed and removed. False when the append did not go through
 * (<loc>.evt is then left as it was). */
bool trc_segment_flush(trc_segfile_t *s) __attribute__((visibility("hidden")));

/* After the last writer was closed: the two files made one <loc>.evt. */
bool trc_segment_finish(trc_segfile_t *s) __attribute__((visibility("hidden")));

/* For a rank whose trace stopped on a write error: the location's files made
 * one <loc>.evt that readers read to its end, whatever was cut. `closed`
 * says that <loc>.evt, if it exists, is a closed writer's whole file (its
 * close wrote every chunk); otherwise its end is taken to be cut. What an
 * append cut short added to <loc>.evt.flushed is dropped; the result keeps
 * the whole chunks and ends with a chunk that stops readers. */
bool trc_segment_salvage(trc_segfile_t *s, bool closed) __attribute__((visibility("hidden")));

#endif
