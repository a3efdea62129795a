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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/state.h"
#include "impl.h"

enum { HDR_SIZE = 18, HDR_FIRST = 2, HDR_LAST = 10, END_OF_CHUNK = 0, END_OF_BUFFER = 1,
       END_OF_FILE = 2 };

static void evt_path(char *buf, size_t n, uint64_t loc, const char *suffix)
{
    snprintf(buf, n, "%s/trace/traces/%llu.evt%s", msc_g.outdir, (unsigned long long)loc,
             suffix);
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

bool trc_segment_flush(uint64_t loc, uint64_t chunk, uint64_t *base)
{
    char from[PATH_MAX + 64], to[PATH_MAX + 64];
    evt_path(from, sizeof from, loc, "");
    evt_path(to, sizeof to, loc, ".flushed");
    int fd = open_unsealed(to, chunk, O_CREAT);
    if (fd < 0) return false;
    bool ok = append_chunks(from, fd, chunk, base);
    if (close(fd) != 0) ok = false;
    if (ok) unlink(from);
    return ok;
}

bool trc_segment_finish(uint64_t loc, uint64_t chunk, uint64_t base)
{
    char from[PATH_MAX + 64], to[PATH_MAX + 64];
    evt_path(from, sizeof from, loc, "");
    evt_path(to, sizeof to, loc, ".flushed");
    if (access(to, F_OK) != 0) return true; /* never flushed: <loc>.evt is the whole */
    if (access(from, F_OK) != 0) return rename(to, from) == 0;
    int fd = open_unsealed(to, chunk, 0);
    if (fd < 0) return false;
    bool ok = append_chunks(from, fd, chunk, &base);
    if (close(fd) != 0) ok = false;
    return ok && rename(to, from) == 0;
}

/* After a write error (a full disk) the location's file ends in a chunk
 * written only in part, on which OTF2's reader loops. It is cut back to its
 * whole chunks, and an empty chunk that ends the file (a header numbering
 * no event, then END_OF_FILE and END_OF_BUFFER, as a closed writer's last
 * chunk ends) is appended: readers then get every event of the whole chunks.
 * A file without a whole chunk, or whose end cannot be written (the disk
 * is still full), is emptied (readers see no events). */
bool trc_segment_salvage(uint64_t loc, uint64_t chunk)
{
    char path[PATH_MAX + 64];
    evt_path(path, sizeof path, loc, "");
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT;
    struct stat st;
    unsigned char tail[2], first[HDR_SIZE], last[HDR_SIZE];
    bool ok = fstat(fd, &st) == 0;
    off_t size = ok ? st.st_size : 0;
    if (ok && size >= HDR_SIZE + 2 && pread(fd, tail, 2, size - 2) == 2 &&
        tail[0] == END_OF_FILE && tail[1] == END_OF_BUFFER) {
        close(fd);
        return true; /* whole */
    }
    off_t whole = size / (off_t)chunk * (off_t)chunk;
    if (ok && whole > 0 && pread(fd, first, HDR_SIZE, 0) == HDR_SIZE &&
        pread(fd, last, HDR_SIZE, whole - (off_t)chunk) == HDR_SIZE &&
        last[0] == first[0]) {
        uint64_t n;
        memcpy(&n, last + HDR_LAST, sizeof n);
        unsigned char end[HDR_SIZE + 2];
        memcpy(end, first, 2);
        uint64_t next = n + 1;
        memcpy(end + HDR_FIRST, &next, sizeof next);
        memcpy(end + HDR_LAST, &n, sizeof n);
        end[HDR_SIZE] = END_OF_FILE;
        end[HDR_SIZE + 1] = END_OF_BUFFER;
        /* The disk is full: the end goes where the part-written chunk's
         * bytes already are when there are enough of them, so that nothing
         * new is allocated (another rank may have taken the space that
         * cutting the file back frees), and only then is the file cut. */
        if (size - whole >= (off_t)sizeof end)
            ok = pwrite(fd, end, sizeof end, whole) == (ssize_t)sizeof end &&
                 ftruncate(fd, whole + (off_t)sizeof end) == 0;
        else
            ok = ftruncate(fd, whole) == 0 &&
                 pwrite(fd, end, sizeof end, whole) == (ssize_t)sizeof end;
        /* A file without its end makes the reader loop: better none of
         * its events than that. */
        if (!ok) ok = ftruncate(fd, 0) == 0;
    } else {
        ok = ftruncate(fd, 0) == 0;
    }
    if (close(fd) != 0) ok = false;
    return ok;
}
