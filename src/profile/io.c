/* The I/O section's table (io.h): files by name, handles mapped to files.
 *
 * Few files are open at once and file calls are slow, so the table is two
 * small arrays behind one mutex (taken only once a second thread has used
 * the table: solo.h): the files (at most MPISCOPE_PROFILE_FILES,
 * then one record of others) and the open handles. An MPI_File_open finds
 * its file by name (linear: opens are rare) and puts (handle, file) in the
 * map, replacing an older entry of the same handle value; MPI_File_close
 * drops the entry whose handle variable it was given. A close through a
 * different variable (a copy of the handle, or Fortran's converted handle)
 * leaves its entry, which the next open of the same handle value replaces,
 * and the map keeps at most MAP_MAX entries (the oldest go first).
 */
#include "io.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solo.h"
#include "state.h"

enum { MAP_MAX = 1024 };

typedef struct {
    MPI_File fh;
    const void *var; /* the handle variable MPI_File_open wrote */
    int file;        /* index into files */
} map_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static msc_solo_t solo = MSC_SOLO_INIT; /* the lock costs nothing while one thread does I/O */
static msc_pio_file_t *files; /* max_files + 1 entries: the last is "others" (name NULL) */
static size_t nfiles, max_files;
static uint64_t others;       /* opens of files that did not fit */
static map_t *map;
static size_t nmap;
static unsigned char coll[MSC_FN_COUNT]; /* collective file operations */

/* The table's lock: none while one thread has used it (solo.h). */
static bool table_lock(void)
{
    bool alone = msc_solo_enter(&solo);
    if (!alone) pthread_mutex_lock(&lock);
    return alone;
}

static void table_unlock(bool alone)
{
    if (alone) msc_solo_leave(&solo);
    else pthread_mutex_unlock(&lock);
}

void msc_pio_init(void)
{
    msc_solo_init(&solo);
    max_files = (size_t)msc_g.settings.v[MSC_SET_PROFILE_FILES].num;
    for (int f = 0; f < MSC_FN_COUNT; f++)
        coll[f] = strstr(msc_fn_name[f], "_all") || strstr(msc_fn_name[f], "_ordered");
}

static bool same_file(MPI_File a, MPI_File b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The name MPI_File_open was given, absolute when it was relative (every
 * rank's working directory may differ; a ROMIO prefix such as "ufs:" is
 * kept as it is). From Fortran it is blank-padded and c->count long. */
static char *file_name(const msc_call_t *c)
{
    const char *s = c->buf;
    if (!s) return strdup("?");
    size_t len = c->lang == MSC_LANG_C ? strlen(s) : (size_t)(c->count > 0 ? c->count : 0);
    if (c->lang != MSC_LANG_C) {
        while (len && s[len - 1] == ' ') len--;
        while (len && *s == ' ') s++, len--;
    }
    const char *colon = memchr(s, ':', len), *slash = memchr(s, '/', len);
    bool relative = len && s[0] != '/' && !(colon && (!slash || colon < slash));
    char cwd[4096] = "";
    if (relative && !getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    size_t cl = strlen(cwd);
    if (len >= 2 && s[0] == '.' && s[1] == '/' && cl) s += 2, len -= 2;
    char *name = malloc(cl + len + 2);
    if (!name) return NULL;
    if (cl) {
        memcpy(name, cwd, cl);
        name[cl++] = '/';
    }
    memcpy(name + cl, s, len);
    name[cl + len] = 0;
    return name;
}

/* The file of `name` (which it takes), made if new; the others' record if
 * the table is full; -1 without memory. Under the lock. */
static int file_of(char *name)
{
    for (size_t i = 0; i < nfiles; i++)
        if (strcmp(files[i].name, name) == 0) {
            free(name);
            return (int)i;
        }
    if (!files) files = calloc(max_files + 1, sizeof *files);
    if (!files) {
        free(name);
        return -1;
    }
    if (nfiles == max_files) {
        free(name);
        others++;
        return (int)max_files;
    }
    files[nfiles].name = name;
    return (int)nfiles++;
}

/* The file a handle maps to, or -1. Under the lock. */
static int file_of_handle(MPI_File fh)
{
    for (size_t i = nmap; i-- > 0;)
        if (same_file(map[i].fh, fh)) return map[i].file;
    return -1;
}

static void map_put(MPI_File fh, const void *var, int file)
{
    for (size_t i = 0; i < nmap; i++)
        if (same_file(map[i].fh, fh)) {
            memmove(&map[i], &map[i + 1], (nmap - i - 1) * sizeof *map);
            nmap--;
            break;
        }
    if (!map) map = calloc(MAP_MAX, sizeof *map);
    if (!map) return;
    if (nmap == MAP_MAX) memmove(&map[0], &map[1], --nmap * sizeof *map);
    map[nmap++] = (map_t){fh, var, file};
}

static unsigned size_bin(uint64_t bytes)
{
    if (bytes == 0) return 0;
    unsigned b = 64u - (unsigned)__builtin_clzll(bytes);
    return b < MSC_PROF_BINS ? b : MSC_PROF_BINS - 1;
}

void msc_pio_call(const msc_call_t *c, uint64_t bytes)
{
    uint64_t dt = c->t_leave - c->t_enter;
    if (c->rc != MPI_SUCCESS) return;
    bool alone = table_lock();
    if (c->kind == MSC_KIND_HANDLE_NEW) { /* MPI_File_open */
        char *name = file_name(c);
        int f = name ? file_of(name) : -1;
        if (f >= 0) {
            files[f].s.opens++;
            files[f].s.time_ns[2] += dt;
            map_put(*(const MPI_File *)c->obj, c->obj, f);
        }
    } else if (c->kind == MSC_KIND_HANDLE_FREE) { /* MPI_File_close */
        for (size_t i = nmap; i-- > 0;)
            if (map[i].var == c->obj) {
                files[map[i].file].s.time_ns[2] += dt;
                memmove(&map[i], &map[i + 1], (nmap - i - 1) * sizeof *map);
                nmap--;
                break;
            }
    } else {
        int f = file_of_handle(c->file);
        if (f >= 0) {
            bool w = c->kind == MSC_KIND_IO_WRITE || c->kind == MSC_KIND_IO_IWRITE ||
                     (c->kind == MSC_KIND_IO_END && msc_prof.io_write[c->fn]);
            msc_pio_stat_t *s = &files[f].s;
            s->ops[w][coll[c->fn]]++;
            s->time_ns[w] += dt;
            if (c->kind != MSC_KIND_IO_IREAD && c->kind != MSC_KIND_IO_IWRITE) {
                s->bytes[w] += bytes;
                s->hist[w][size_bin(bytes)]++;
            }
        }
    }
    table_unlock(alone);
}

void msc_pio_done(const msc_done_t *d)
{
    bool w = d->info.kind == MSC_KIND_IO_IWRITE;
    uint64_t bytes = d->bytes > 0 ? (uint64_t)d->bytes : 0;
    bool alone = table_lock();
    int f = file_of_handle(d->info.file);
    if (f >= 0) {
        files[f].s.bytes[w] += bytes;
        files[f].s.hist[w][size_bin(bytes)]++;
    }
    table_unlock(alone);
}

void msc_pio_stat_add(msc_pio_stat_t *a, const msc_pio_stat_t *b)
{
    a->opens += b->opens;
    for (int i = 0; i < 2; i++) {
        a->ops[i][0] += b->ops[i][0];
        a->ops[i][1] += b->ops[i][1];
        a->bytes[i] += b->bytes[i];
        for (int k = 0; k < MSC_PROF_BINS; k++) a->hist[i][k] += b->hist[i][k];
    }
    for (int i = 0; i < 3; i++) a->time_ns[i] += b->time_ns[i];
}

msc_pio_file_t *msc_pio_snapshot(size_t *n, uint64_t *n_others)
{
    bool alone = table_lock();
    size_t k = nfiles + (others ? 1 : 0);
    msc_pio_file_t *copy = calloc(k + 1, sizeof *copy);
    *n = 0;
    *n_others = others;
    for (size_t i = 0; copy && i < nfiles; i++) {
        copy[*n].name = strdup(files[i].name);
        if (!copy[*n].name) continue;
        copy[(*n)++].s = files[i].s;
    }
    if (copy && others) copy[(*n)++].s = files[max_files].s; /* name NULL: the others */
    table_unlock(alone);
    return copy;
}

void msc_pio_free(msc_pio_file_t *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) free(f[i].name);
    free(f);
}
