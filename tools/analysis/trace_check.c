/* What keeps a trace from being whole, found before it is analysed: the
 * archive's own word (MPISCOPE::TRACE_COMPLETE=false with
 * MPISCOPE::INCOMPLETE_REASON, written by the trace module when a rank's
 * trace stopped on a write error) and each location whose event file is
 * missing, unreadable, empty although the definitions promise events, or
 * cut short. A closed OTF2 3.0 event file always ends with the two bytes
 * END_OF_FILE (2) and END_OF_BUFFER (1) (src/trace/segments.c relies on the
 * same); a file cut by a full disk or a killed writer does not, and OTF2's
 * reader would fail on it part way, or skip a missing file as a location
 * without events. The check reads the definitions and two bytes per
 * location, never the events, so it costs nothing next to the analysis.
 * A file cut where its last two bytes happen to be 2 and 1 passes it; on
 * such a file OTF2 3.0's reader loops, delivering events without end
 * (otf2-print too: 16 million events in 10 s from a 620 KB file cut by a
 * full disk), so the reader stops a location at the most events its file
 * can hold (msc_trace_location_max_events) and counts it unreadable.
 */
#include "trace_check.h"

#include <fcntl.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *s;
    size_t len, cap;
} text_t;

static void add(text_t *t, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    char line[1024];
    int n = vsnprintf(line, sizeof line, fmt, va);
    va_end(va);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->cap ? 2 * t->cap : 256) + (size_t)n;
        char *p = realloc(t->s, cap);
        if (!p) return;
        t->s = p, t->cap = cap;
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

/* Why the event file of location `id` is not whole, or NULL. */
static const char *file_problem(const char *dir, uint64_t id, uint64_t events)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/%llu.evt", dir, (unsigned long long)id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return access(path, F_OK) == 0 ? "its event file cannot be read"
                                                : (events ? "its event file is missing" : NULL);
    struct stat st;
    unsigned char tail[2] = {0, 0};
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = "its event file cannot be read";
    else if (st.st_size == 0)
        why = events ? "its event file is empty" : NULL;
    else if (st.st_size < 2 || pread(fd, tail, 2, st.st_size - 2) != 2)
        why = "its event file cannot be read";
    else if (tail[0] != 2 || tail[1] != 1)
        why = "its event file is cut short";
    close(fd);
    return why;
}

uint64_t msc_trace_location_max_events(const msc_trace_t *t, size_t i)
{
    if (i >= t->nloc) return UINT64_MAX;
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/%llu.evt", t->dir ? t->dir : ".",
             (unsigned long long)t->loc[i].id);
    struct stat st;
    return stat(path, &st) == 0 && st.st_size >= 0 ? (uint64_t)st.st_size / 2 : UINT64_MAX;
}

const char *msc_trace_location_problem(const msc_trace_t *t, size_t i)
{
    return i < t->nloc ? file_problem(t->dir ? t->dir : ".", t->loc[i].id, t->loc[i].events)
                       : "no such location";
}

char *msc_trace_damage(const char *anchor, size_t *bad_locations)
{
    text_t out = {0};
    size_t nbad = 0;
    char err[512];
    msc_trace_t *t = msc_trace_open(anchor, err, sizeof err);
    if (!t) {
        add(&out, "%s", err);
        if (bad_locations) *bad_locations = 0;
        return out.s ? out.s : strdup("the trace cannot be read");
    }
    char *complete = NULL, *reason = NULL;
    OTF2_Reader_GetProperty(t->rd, "MPISCOPE::TRACE_COMPLETE", &complete);
    if (complete && strcmp(complete, "false") == 0) {
        OTF2_Reader_GetProperty(t->rd, "MPISCOPE::INCOMPLETE_REASON", &reason);
        add(&out, "the trace was written incomplete (%s)", reason ? reason : "no reason given");
    }
    free(complete);
    free(reason);
    for (size_t i = 0; i < t->nloc; i++) {
        const char *why = msc_trace_location_problem(t, i);
        if (!why) continue;
        if (nbad++ < 16)
            add(&out, "%slocation %llu (rank %d, thread %u): %s", out.len ? "; " : "",
                (unsigned long long)t->loc[i].id, t->loc[i].rank, t->loc[i].thread, why);
    }
    if (nbad > 16) add(&out, "; and %zu more locations", nbad - 16);
    msc_trace_close(t);
    if (bad_locations) *bad_locations = nbad;
    return out.s;
}
