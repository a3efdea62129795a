/* Private to mpiscope. Findings as data, without MPI: the record every part
 * of the checks fills, its one-line text form in the per-rank files, and the
 * writers of checks.txt and checks.json. Shared by the tool library (which
 * appends each finding to <outdir>/checks.rank<R>.jsonl the moment it is
 * found, and assembles the report at MPI_Finalize or after a deadlock) and
 * the `mpiscope` program (which assembles the same report from the per-rank
 * files when the run died before MPI_Finalize).
 *
 * A per-rank file is a sequence of lines, each one JSON object:
 *   {"class":..,"group":..,"count":N,"text":..,"sites":[{"rank":R,"call":..,
 *    "file":..,"line":L,"function":..},...]}      a finding, in the order found
 *   {"update":K,"count":N}                      finding K (from 0) was seen N times
 *   {"suppressed":CLASS,"rank":R,"count":N}     N more of CLASS were not listed
 * Lines are written whole with one write(2) each, so that a process that dies
 * at any point leaves only whole lines behind (a torn last line is skipped).
 */
#ifndef MSC_CHECK_FINDINGS_IO_H
#define MSC_CHECK_FINDINGS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { CHK_PARTS_MAX = 4, CHK_WHERE = 256, CHK_TEXT = 1024, CHK_CLASS = 64, CHK_GROUP = 96 };

typedef struct {
    int rank;              /* world rank */
    void *site;            /* return address in that rank (resolved by that rank) */
    char call[48];         /* MPI function, or "" */
    bool resolved;
    char file[CHK_WHERE];  /* source file, or the object and offset without line tables */
    int line;              /* 0: unknown */
    char func[128];        /* enclosing function, or "" */
    /* A site of another rank (a sender's, reported by its receiver): the
     * object's key (chk_obj_key) and the offset in it, which this rank maps
     * to its own copy of the object; objkey 0: not known. */
    uint64_t objkey, objoff;
} chk_part_t;

typedef struct {
    char cls[CHK_CLASS];   /* LOCAL:ARG:NEGATIVE_COUNT ... */
    char group[CHK_GROUP]; /* findings with the same nonempty group, from several ranks, are one */
    char text[CHK_TEXT];   /* one paragraph: what is wrong and how to fix it */
    int nparts;
    chk_part_t parts[CHK_PARTS_MAX];
    uint64_t count;        /* occurrences folded into this finding */
} chk_finding_t;

/* "N more CLASS findings on rank R not listed". */
typedef struct {
    char cls[CHK_CLASS];
    int rank;
    long long count;
} chk_suppressed_t;

/* One finding as a line of a per-rank file, '\n' included; returns its
 * length, or 0 if it does not fit `cap` (never: cap >= CHK_LINE_MAX). */
enum { CHK_LINE_MAX = 8192 };
size_t chk_io_encode(const chk_finding_t *f, char *buf, size_t cap);
size_t chk_io_encode_update(int index, uint64_t count, char *buf, size_t cap);
size_t chk_io_encode_suppressed(const chk_suppressed_t *s, char *buf, size_t cap);

/* A growing list of findings and notes read from per-rank files. */
typedef struct {
    chk_finding_t *f;
    int n, cap;
    chk_suppressed_t *s;
    int ns, scap;
} chk_io_list_t;

/* Appends what the per-rank file at `path` holds (findings with their last
 * counts, suppression notes). Returns the number of findings read, -1 if
 * the file cannot be opened. Lines that do not parse are skipped. */
int chk_io_read(const char *path, chk_io_list_t *l);
bool chk_io_add(chk_io_list_t *l, const chk_finding_t *f);
bool chk_io_add_suppressed(chk_io_list_t *l, const chk_suppressed_t *s);
void chk_io_list_free(chk_io_list_t *l);

/* Merges findings of one group (a collective mismatch seen by every member)
 * into one listing every rank (up to CHK_PARTS_MAX sites), then sorts by
 * class and rank. Returns the new count. */
int chk_io_merge(chk_finding_t *f, int n);

/* Writes dir/checks.txt and dir/checks.json (each under a temporary name,
 * renamed into place when complete) from merged findings. `note` (may be
 * NULL) heads both files. false, with the reason in err, if either could
 * not be written. */
bool chk_io_write(const char *dir, const chk_finding_t *f, int n, const chk_suppressed_t *s,
                  int ns, const char *note, char *err, size_t errlen);

#endif
