/* Flushing a live location's events to disk (MPI_Pcontrol(2), VT_flush).
 *
 * OTF2 3.0.2 writes a location's buffer only when its memory callback
 * refuses a chunk or when the writer is closed, and a writer opened again
 * for the same location truncates the location's file. A flush therefore
 * closes the thread's event writer (OTF2 writes every chunk to
 * traces/<loc>.evt and closes the file), appends that file here to
 * traces/<loc>.evt.flushed, removes it, and the caller opens a new writer.
 * An event file is a sequence of chunks of the archive's event chunk size,
 * each opening with an 18-byte header: record type, endianness, then the
 * numbers of its first and last event over the location (from 1, host
 * order); a closed writer's last chunk is written short and ends with
 * END_OF_FILE (2) and END_OF_BUFFER (1), which stop a reader. Before a
 * segment is appended, those two bytes of the file's last chunk become
 * END_OF_CHUNK (0) and the chunk is padded with it, as OTF2 fills every
 * chunk but the last; the appended headers get the events of the earlier
 * segments added. So <loc>.evt.flushed is, after every flush, what a single
 * writer closed at that moment would have written: a process killed after
 * a flush leaves its events up to the flush in a readable file. At
 * MPI_Finalize, and in the emergency hook, the last writer's file is
 * appended the same way and the result becomes <loc>.evt.
 *
 * After a write error (a full disk) a file can end in a chunk written only
 * in part, on which OTF2's reader loops. Whether a file's end is whole is
 * never read from its bytes (its last two can be END_OF_FILE and
 * END_OF_BUFFER by chance: in 3 % of the cuts of a real file they are); the
 * caller knows whether the last close went through, and `sealed` where the
 * last whole append ended (segments.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "segments.h"

enum { HDR_SIZE = 18, HDR_FIRST = 2, HDR_LAST = 10, END_OF_CHUNK = 0, END_OF_BUFFER = 1,
       END_OF_FILE = 2, CHUNK_HEADER = 3 };

/* A chunk header's second byte: the writer's byte order, in which its event
 * numbers are. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
enum { HOST_ENDIANNESS = 0x23 };
#else
enum { HOST_ENDIANNESS = 0x42 };
#endif

static void evt_path(char *buf, size_t n, const trc_segfile_t *s, const char *suffix)
{
    snprintf(buf, n, "%s/%llu.evt%s", s->dir, (unsigned long long)s->loc, suffix);
}

static bool write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static size_t read_full(int fd, unsigned char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

/* Appends `from` to the descriptor `to` (at its end), chunk by chunk,
 * adding `*base` to the event numbers of each header. `*base` becomes the
 * number of the last event written. */
static bool append_chunks(const char *from, int to, uint64_t chunk, uint64_t *base)
{
    int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (in < 0) return false;
    unsigned char *buf = malloc(chunk);
    bool ok = buf != NULL && lseek(to, 0, SEEK_END) >= 0;
    uint64_t last = *base;
    while (ok) {
        size_t n = read_full(in, buf, chunk);
        if (n == 0) break;
        if (n < HDR_SIZE) {
            ok = false;
            break;
        }
        uint64_t first, end;
        memcpy(&first, buf + HDR_FIRST, 8);
        memcpy(&end, buf + HDR_LAST, 8);
        first += *base;
        end += *base;
        memcpy(buf + HDR_FIRST, &first, 8);
        memcpy(buf + HDR_LAST, &end, 8);
        last = end;
        ok = write_all(to, buf, n);
        if (n < chunk) break;
    }
    free(buf);
    close(in);
    if (ok) *base = last;
    return ok;
}

/* Opens `path` for appending another segment: a short last chunk (the end
 * of the previous segment) loses its END_OF_FILE and END_OF_BUFFER bytes
 * and is padded with END_OF_CHUNK, which ftruncate's zeros are. */
static int open_unsealed(const char *path, uint64_t chunk, int flags)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | flags, 0666);
    if (fd < 0) return -1;
    struct stat st;
    unsigned char tail[2];
    off_t size = fstat(fd, &st) == 0 ? st.st_size : -1;
    if (size < 0) goto bad;
    if (size % (off_t)chunk == 0) return fd;
    if (size < HDR_SIZE + 2 || pread(fd, tail, 2, size - 2) != 2) goto bad;
    if (tail[0] == END_OF_FILE && tail[1] == END_OF_BUFFER) {
        static const unsigned char zero[2];
        if (pwrite(fd, zero, 2, size - 2) != 2) goto bad;
    }
    if (ftruncate(fd, size + ((off_t)chunk - size % (off_t)chunk)) != 0) goto bad;
    return fd;
bad:
    close(fd);
    return -1;
}

bool trc_segment_flush(trc_segfile_t *s)
{
    char from[PATH_MAX + 64], to[PATH_MAX + 64];
    evt_path(from, sizeof from, s, "");
    evt_path(to, sizeof to, s, ".flushed");
    int fd = open_unsealed(to, s->chunk, O_CREAT);
    if (fd < 0) return false;
    uint64_t base = s->base;
    struct stat st;
    bool ok = append_chunks(from, fd, s->chunk, &base) && fstat(fd, &st) == 0;
    if (close(fd) != 0) ok = false;
    if (!ok) return false;
    s->base = base;
    s->sealed = (uint64_t)st.st_size;
    unlink(from);
    return true;
}

bool trc_segment_finish(trc_segfile_t *s)
{
    char from[PATH_MAX + 64], to[PATH_MAX + 64];
    evt_path(from, sizeof from, s, "");
    evt_path(to, sizeof to, s, ".flushed");
    if (access(to, F_OK) != 0) return true; /* never flushed: <loc>.evt is the whole */
    if (access(from, F_OK) != 0) return rename(to, from) == 0;
    int fd = open_unsealed(to, s->chunk, 0);
    if (fd < 0) return false;
    uint64_t base = s->base;
    bool ok = append_chunks(from, fd, s->chunk, &base);
    if (close(fd) != 0) ok = false;
    return ok && rename(to, from) == 0;
}

/* `path` cut back to its whole chunks and ended by a chunk that numbers no
 * event and holds END_OF_FILE and END_OF_BUFFER, as a closed writer's last
 * chunk ends: readers get every event of the whole chunks and stop. A file
 * without a whole chunk (cut in its first, empty, or missing) becomes that
 * end alone: a location without events, which readers open. One whose end
 * cannot be written (the disk is still full) is emptied. */
static bool cut_back(const char *path, uint64_t chunk)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return false;
    struct stat st;
    unsigned char first[2], last[HDR_SIZE];
    bool ok = fstat(fd, &st) == 0;
    off_t size = ok ? st.st_size : 0;
    off_t whole = size / (off_t)chunk * (off_t)chunk;
    unsigned char end[HDR_SIZE + 2] = {CHUNK_HEADER, HOST_ENDIANNESS};
    uint64_t n = 0; /* the number of the last event of the whole chunks */
    if (whole > 0 && pread(fd, first, 2, 0) == 2 && first[0] == CHUNK_HEADER &&
        pread(fd, last, HDR_SIZE, whole - (off_t)chunk) == HDR_SIZE &&
        last[0] == CHUNK_HEADER && last[1] == first[1]) {
        memcpy(end, first, 2);
        memcpy(&n, last + HDR_LAST, sizeof n);
    } else {
        whole = 0;
    }
    uint64_t next = n + 1;
    memcpy(end + HDR_FIRST, &next, sizeof next);
    memcpy(end + HDR_LAST, &n, sizeof n);
    end[HDR_SIZE] = END_OF_FILE;
    end[HDR_SIZE + 1] = END_OF_BUFFER;
    /* The disk is full: the end goes where the part-written chunk's bytes
     * already are when there are enough of them, so that nothing new is
     * allocated (another rank may have taken the space that cutting the
     * file back frees), and only then is the file cut. */
    if (ok && size - whole >= (off_t)sizeof end)
        ok = pwrite(fd, end, sizeof end, whole) == (ssize_t)sizeof end &&
             ftruncate(fd, whole + (off_t)sizeof end) == 0;
    else if (ok)
        ok = ftruncate(fd, whole) == 0 &&
             pwrite(fd, end, sizeof end, whole) == (ssize_t)sizeof end;
    /* A file without its end makes the reader loop: better none of its
     * events than that. */
    if (!ok) ok = ftruncate(fd, 0) == 0;
    if (close(fd) != 0) ok = false;
    return ok;
}

/* Whether the file ends as a closed writer's file does. */
static bool ends_closed(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    struct stat st;
    unsigned char tail[2];
    bool ok = fstat(fd, &st) == 0 && st.st_size >= HDR_SIZE + 2 &&
              pread(fd, tail, 2, st.st_size - 2) == 2 && tail[0] == END_OF_FILE &&
              tail[1] == END_OF_BUFFER;
    close(fd);
    return ok;
}

bool trc_segment_salvage(trc_segfile_t *s, bool closed)
{
    char evt[PATH_MAX + 64], flushed[PATH_MAX + 64];
    evt_path(evt, sizeof evt, s, "");
    evt_path(flushed, sizeof flushed, s, ".flushed");
    bool have_evt = access(evt, F_OK) == 0;
    /* Whether the joined file's end is a close's end, by what was done to
     * it (never by its last bytes alone). */
    bool whole = closed || !have_evt;
    if (s->sealed > 0 && access(flushed, F_OK) == 0) {
        /* What a cut append added goes; the rest ends with a close's end,
         * whose last two bytes an append made END_OF_CHUNK (open_unsealed):
         * they are END_OF_FILE and END_OF_BUFFER again. */
        static const unsigned char tail[2] = {END_OF_FILE, END_OF_BUFFER};
        int fd = open(flushed, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        bool ok = fd >= 0 && s->sealed >= 2 && ftruncate(fd, (off_t)s->sealed) == 0 &&
                  pwrite(fd, tail, 2, (off_t)s->sealed - 2) == 2;
        if (fd >= 0 && close(fd) != 0) ok = false;
        if (ok && have_evt) {
            fd = open_unsealed(flushed, s->chunk, 0);
            uint64_t base = s->base;
            ok = fd >= 0 && append_chunks(evt, fd, s->chunk, &base);
            if (fd >= 0 && close(fd) != 0) ok = false;
            whole = whole && ok;
        }
        if (!ok) whole = false;
        if (rename(flushed, evt) != 0) return false;
    } else {
        /* No append went through: <loc>.evt is all there is. */
        unlink(flushed);
    }
    if (whole && ends_closed(evt)) return true;
    return cut_back(evt, s->chunk);
}
