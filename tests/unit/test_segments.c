/* A location's event files after a full disk cut them (src/trace/segments.c),
 * read back by OTF2's own reader.
 *
 * OTF2 writes the files: a one-location archive whose event i (from 0) is
 * stamped i + 1, in 256 KiB chunks (OTF2's smallest), in one or two writers
 * joined as the tool joins a flushed location. A cut is that file truncated
 * where a write may have stopped. After trc_segment_salvage every file must
 * read to its end within a few seconds (OTF2's reader loops on a chunk
 * written in part, so each read runs in a child under alarm()), and what it
 * reads must be the first events as written: stamps 1, 2, 3 ... with none
 * missing, none twice. The cuts are a stride of positions, the positions
 * around each chunk boundary and those after END_OF_FILE, END_OF_BUFFER in
 * the file; each is tried as it is and with the cut chunk's last two bytes
 * made END_OF_FILE, END_OF_BUFFER: the tail a closed writer's file ends
 * with, which the last two bytes of a cut are by chance (after 3 % of the
 * positions of a real trace's file). A file salvaged as closed keeps every
 * event.
 */
#include <errno.h>
#include <fcntl.h>
#include <otf2/otf2.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/trace/segments.h"
#include "runner.h"

enum { CHUNK = 256 * 1024, READ_SECONDS = 10, REGIONS = 300 };

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

typedef struct {
    char root[256];     /* a fresh directory */
    char traces[300];   /* <root>/a/traces */
    char anchor[300];   /* <root>/a/traces.otf2 */
    OTF2_Archive *a;
    uint64_t events;    /* written so far */
} archive_t;

static void open_archive(archive_t *x)
{
    snprintf(x->root, sizeof x->root, "/tmp/msc-unit-segments.XXXXXX");
    ASSERT(mkdtemp(x->root) != NULL);
    snprintf(x->traces, sizeof x->traces, "%s/a/traces", x->root);
    snprintf(x->anchor, sizeof x->anchor, "%s/a/traces.otf2", x->root);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/a", x->root);
    x->a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, CHUNK, OTF2_CHUNK_SIZE_MIN,
                             OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    ASSERT(x->a != NULL);
    ASSERT_EQ(OTF2_Archive_SetFlushCallbacks(x->a, &flush_cb, NULL), OTF2_SUCCESS);
    ASSERT_EQ(OTF2_Archive_SetSerialCollectiveCallbacks(x->a), OTF2_SUCCESS);
    ASSERT_EQ(OTF2_Archive_OpenEvtFiles(x->a), OTF2_SUCCESS);
    x->events = 0;
}

/* One writer of location 0, `n` more events, closed: <traces>/0.evt. */
static void write_segment(archive_t *x, uint64_t n)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(x->a, 0);
    ASSERT(w != NULL);
    for (uint64_t i = 0; i < n; i++, x->events++) {
        OTF2_TimeStamp t = x->events + 1;
        OTF2_RegionRef r = (OTF2_RegionRef)(x->events / 2 % REGIONS);
        if (x->events % 2 == 0)
            ASSERT_EQ(OTF2_EvtWriter_Enter(w, NULL, t, r), OTF2_SUCCESS);
        else
            ASSERT_EQ(OTF2_EvtWriter_Leave(w, NULL, t, r), OTF2_SUCCESS);
    }
    ASSERT_EQ(OTF2_Archive_CloseEvtWriter(x->a, w), OTF2_SUCCESS);
}

/* The definitions and the anchor file. */
static void close_archive(archive_t *x)
{
    ASSERT_EQ(OTF2_Archive_CloseEvtFiles(x->a), OTF2_SUCCESS);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->a);
    ASSERT(g != NULL);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, x->events + 1, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteString(g, 1, "f");
    for (OTF2_RegionRef r = 0; r < REGIONS; r++)
        OTF2_GlobalDefWriter_WriteRegion(g, r, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 0, OTF2_LOCATION_TYPE_CPU_THREAD, x->events, 0);
    ASSERT_EQ(OTF2_Archive_CloseGlobalDefWriter(x->a, g), OTF2_SUCCESS);
    ASSERT_EQ(OTF2_Archive_OpenDefFiles(x->a), OTF2_SUCCESS);
    OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->a, 0);
    ASSERT(d != NULL);
    ASSERT_EQ(OTF2_Archive_CloseDefWriter(x->a, d), OTF2_SUCCESS);
    ASSERT_EQ(OTF2_Archive_CloseDefFiles(x->a), OTF2_SUCCESS);
    ASSERT_EQ(OTF2_Archive_Close(x->a), OTF2_SUCCESS);
    x->a = NULL;
}

static void remove_archive(archive_t *x)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", x->root);
    ASSERT_EQ(system(cmd), 0);
}

/* --- Reading back --------------------------------------------------------- */

typedef struct {
    uint64_t n;
    bool in_order; /* event i stamped i + 1 */
} got_t;

static OTF2_CallbackCode on_event(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)attrs, (void)region;
    got_t *g = ud;
    if (t != g->n + 1) g->in_order = false;
    g->n++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_ErrorCode quiet(void *ud, const char *file, uint64_t line, const char *fn,
                            OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)fn, (void)fmt, (void)va;
    return code;
}

/* The events OTF2's reader gets from the archive: their number, or -1 when
 * the reader does not finish within READ_SECONDS, -2 when they are not the
 * first events as written, -3 when the reader reports an error. */
static long long read_events(const archive_t *x)
{
    int fds[2];
    ASSERT(pipe(fds) == 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(READ_SECONDS);
        got_t g = {0, true};
        bool error = false;
        OTF2_Error_RegisterCallback(quiet, NULL); /* a cut file's errors are expected */
        OTF2_Reader *r = OTF2_Reader_Open(x->anchor);
        if (!r) error = true;
        if (r) {
            OTF2_Reader_SetSerialCollectiveCallbacks(r);
            OTF2_Reader_SelectLocation(r, 0);
            OTF2_Reader_OpenDefFiles(r);
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, 0);
            uint64_t nd = 0;
            if (d) OTF2_Reader_ReadAllLocalDefinitions(r, d, &nd);
            if (d) OTF2_Reader_CloseDefReader(r, d);
            OTF2_Reader_CloseDefFiles(r);
            OTF2_Reader_OpenEvtFiles(r);
            OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, 0);
            if (!e) error = true;
            if (e) {
                OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
                OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_event);
                OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_event);
                OTF2_Reader_RegisterEvtCallbacks(r, e, cb, &g);
                uint64_t n = 0;
                if (OTF2_Reader_ReadAllLocalEvents(r, e, &n) != OTF2_SUCCESS) error = true;
                OTF2_EvtReaderCallbacks_Delete(cb);
            }
        }
        long long v = error ? -3 : g.in_order ? (long long)g.n : -2;
        ssize_t k = write(fds[1], &v, sizeof v);
        _exit(k == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fds[1]);
    long long v = -1;
    ssize_t k = read(fds[0], &v, sizeof v);
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) return -1;
    ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0 && k == (ssize_t)sizeof v);
    return v;
}

/* --- Files ---------------------------------------------------------------- */

typedef struct {
    unsigned char *p;
    size_t n;
} bytes_t;

static bytes_t slurp(const char *path)
{
    bytes_t b = {0, 0};
    FILE *f = fopen(path, "rb");
    ASSERT(f != NULL);
    ASSERT(fseek(f, 0, SEEK_END) == 0);
    long n = ftell(f);
    ASSERT(n > 0);
    rewind(f);
    b.p = malloc((size_t)n);
    ASSERT(b.p != NULL);
    ASSERT(fread(b.p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    b.n = (size_t)n;
    return b;
}

static void spit(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    ASSERT(f != NULL);
    ASSERT(n == 0 || fwrite(p, 1, n, f) == n);
    ASSERT(fclose(f) == 0);
}

static void file_path(char *buf, size_t n, const archive_t *x, const char *suffix)
{
    snprintf(buf, n, "%s/0.evt%s", x->traces, suffix);
}

/* The number of the last event in the chunks wholly within the first `cut`
 * bytes (OTF2's chunk header: type, endianness, first event, last event). */
static uint64_t events_in_whole_chunks(const bytes_t *b, size_t cut)
{
    size_t whole = cut / CHUNK * CHUNK;
    if (whole == 0) return 0;
    uint64_t last;
    memcpy(&last, b->p + whole - CHUNK + 10, sizeof last);
    return last;
}

/* The positions to cut a file at: after every `every`-th END_OF_FILE,
 * END_OF_BUFFER pair in it, every `stride`-th byte, and around chunk
 * boundaries. */
static size_t cut_positions(const bytes_t *b, size_t *out, size_t max, size_t every,
                            size_t stride)
{
    size_t k = 0, pairs = 0;
    for (size_t i = 2; i < b->n && k < max; i++)
        if (b->p[i - 2] == 2 && b->p[i - 1] == 1 && pairs++ % every == 0) out[k++] = i;
    for (size_t i = 1; i < b->n && k < max; i += stride) out[k++] = i;
    for (size_t c = CHUNK; c < b->n; c += CHUNK)
        for (size_t d = c - 2; d <= c + 2 && d < b->n && k < max; d++) out[k++] = d;
    return k;
}

/* The first `cut` bytes of `b` into `path`; with `closed_tail`, the last two
 * bytes of the chunk written in part are END_OF_FILE and END_OF_BUFFER, as
 * the bytes a write stopped after can be. False when the cut leaves fewer
 * than two bytes of that chunk. */
static bool spit_cut(const char *path, const bytes_t *b, size_t cut, bool closed_tail)
{
    if (!closed_tail) {
        spit(path, b->p, cut);
        return true;
    }
    if (cut % CHUNK < 2) return false;
    unsigned char save[2] = {b->p[cut - 2], b->p[cut - 1]};
    b->p[cut - 2] = 2, b->p[cut - 1] = 1;
    spit(path, b->p, cut);
    b->p[cut - 2] = save[0], b->p[cut - 1] = save[1];
    return true;
}

/* --- Tests ---------------------------------------------------------------- */

enum { EVENTS = 50000 }; /* about 2.3 chunks */

/* One writer whose file was cut anywhere (a flush or the close failed):
 * salvaged as not closed, it reads to its end and gives exactly the events
 * of its whole chunks. */
TEST(segments_cut_file_reads_to_its_end)
{
    archive_t x;
    open_archive(&x);
    write_segment(&x, EVENTS);
    close_archive(&x);
    char evt[400];
    file_path(evt, sizeof evt, &x, "");
    bytes_t b = slurp(evt);
    ASSERT(b.n > 2 * CHUNK);
    size_t cuts[4096];
    size_t n = cut_positions(&b, cuts, 4094, 3, 4099);
    cuts[n++] = 0; /* nothing written */
    cuts[n++] = 1;
    size_t tails = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        size_t cut = cuts[i / 2];
        bool closed_tail = i % 2;
        if (!spit_cut(evt, &b, cut, closed_tail)) continue;
        trc_segfile_t s = {.dir = x.traces, .loc = 0, .chunk = CHUNK};
        ASSERT(trc_segment_salvage(&s, false));
        long long got = read_events(&x);
        if (got < 0)
            FAIL("cut at %zu of %zu%s: %s", cut, b.n, closed_tail ? " (ending 02 01)" : "",
                 got == -1   ? "the reader does not finish"
                 : got == -2 ? "events missing or out of order"
                             : "the reader reports an error");
        uint64_t want = events_in_whole_chunks(&b, cut);
        if ((uint64_t)got != want)
            FAIL("cut at %zu%s: %lld events read, %llu in the whole chunks", cut,
                 closed_tail ? " (ending 02 01)" : "", got, (unsigned long long)want);
        tails += closed_tail;
    }
    ASSERT(tails > 250); /* cuts that look like a closed file's end were tried */
    free(b.p);
    remove_archive(&x);
}

/* A closed writer's file salvaged as closed (another thread's write failed)
 * keeps every event, and so does one never cut. */
TEST(segments_closed_file_keeps_every_event)
{
    archive_t x;
    open_archive(&x);
    write_segment(&x, EVENTS);
    close_archive(&x);
    trc_segfile_t s = {.dir = x.traces, .loc = 0, .chunk = CHUNK};
    ASSERT(trc_segment_salvage(&s, true));
    ASSERT_EQ(read_events(&x), EVENTS);
    remove_archive(&x);
}

/* Two writers of location 0, as the tool leaves them after a flush: the
 * first's EVENTS / 2 events appended to <loc>.evt.flushed (`s` says what the
 * append left), the second's EVENTS in <loc>.evt; `first` and `second` are
 * the two files' bytes. */
typedef struct {
    archive_t x;
    trc_segfile_t s;
    char evt[400], flushed[400];
    bytes_t first, second;
} two_writers_t;

static void two_writers(two_writers_t *w)
{
    open_archive(&w->x);
    write_segment(&w->x, EVENTS / 2);
    w->s = (trc_segfile_t){.dir = w->x.traces, .loc = 0, .chunk = CHUNK};
    ASSERT(trc_segment_flush(&w->s));
    ASSERT_EQ(w->s.base, EVENTS / 2);
    file_path(w->evt, sizeof w->evt, &w->x, "");
    file_path(w->flushed, sizeof w->flushed, &w->x, ".flushed");
    write_segment(&w->x, EVENTS);
    close_archive(&w->x);
    w->first = slurp(w->flushed);
    w->second = slurp(w->evt);
}

static void two_writers_free(two_writers_t *w)
{
    free(w->first.p);
    free(w->second.p);
    remove_archive(&w->x);
}

/* Two writers: the first flushed whole (appended to <loc>.evt.flushed), the
 * second's file cut anywhere. The result reads to its end: every event of
 * the first, then the second's whole chunks, numbered on. */
TEST(segments_cut_after_a_flush_keeps_the_flushed)
{
    two_writers_t w;
    two_writers(&w);
    size_t cuts[1024];
    size_t n = cut_positions(&w.second, cuts, 1024, 16, 16411);
    for (size_t i = 0; i < 2 * n; i++) {
        spit(w.flushed, w.first.p, w.first.n);
        if (!spit_cut(w.evt, &w.second, cuts[i / 2], i % 2)) continue;
        trc_segfile_t t = w.s;
        ASSERT(trc_segment_salvage(&t, false));
        long long got = read_events(&w.x);
        uint64_t want = EVENTS / 2 + events_in_whole_chunks(&w.second, cuts[i / 2]);
        if (got < 0 || (uint64_t)got != want)
            FAIL("second writer cut at %zu%s: %lld events read, %llu expected", cuts[i / 2],
                 i % 2 ? " (ending 02 01)" : "", got, (unsigned long long)want);
    }
    two_writers_free(&w);
}

/* The append of a whole second writer's file cut part way (the disk filled
 * during the flush): what it added is dropped and the append made again, so
 * every event of both writers is read once. When the append cannot be made
 * again, the flushed events are still read. */
TEST(segments_cut_append_is_dropped)
{
    two_writers_t w;
    two_writers(&w);
    /* What a whole append makes, to cut. */
    trc_segfile_t whole = w.s;
    ASSERT(trc_segment_flush(&whole));
    bytes_t joined = slurp(w.flushed);
    ASSERT(joined.n > w.first.n);
    size_t n1 = w.first.n;
    size_t cuts[] = {n1 + 1, n1 + CHUNK / 3, joined.n - 1, joined.n - 19};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        spit(w.flushed, joined.p, cuts[i]);
        spit(w.evt, w.second.p, w.second.n);
        trc_segfile_t t = w.s;
        ASSERT(trc_segment_salvage(&t, true));
        long long got = read_events(&w.x);
        if (got != EVENTS / 2 + EVENTS)
            FAIL("append cut at %zu: %lld events read, %d written", cuts[i], got,
                 EVENTS / 2 + EVENTS);
    }
    /* The second writer's file is gone too (a later rename lost it). */
    spit(w.flushed, joined.p, n1 + 1000);
    ASSERT(unlink(w.evt) == 0);
    trc_segfile_t t = w.s;
    ASSERT(trc_segment_salvage(&t, true));
    ASSERT_EQ(read_events(&w.x), EVENTS / 2);
    free(joined.p);
    two_writers_free(&w);
}

/* A location whose file was never written (the disk was full before its
 * first flush) reads as a location without events. */
TEST(segments_missing_file_reads_as_empty)
{
    archive_t x;
    open_archive(&x);
    write_segment(&x, 100);
    close_archive(&x);
    char evt[400];
    file_path(evt, sizeof evt, &x, "");
    ASSERT(unlink(evt) == 0);
    ASSERT_EQ(read_events(&x), -3); /* OTF2 cannot read the location */
    trc_segfile_t s = {.dir = x.traces, .loc = 0, .chunk = CHUNK};
    ASSERT(trc_segment_salvage(&s, false));
    ASSERT_EQ(read_events(&x), 0);
    remove_archive(&x);
}
