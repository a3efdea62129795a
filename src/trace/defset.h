/* Private to the trace module: a set of definitions as the unification at
 * MPI_Finalize moves it up a tree (defset.c; the tree is unify.c).
 *
 * A definition is a record of 64-bit words, a key and a payload, in one of
 * the kinds below. Records of a kind that dedupes are unique by key (a
 * hash table finds them); the payload is what the first record with that
 * key brought (for a region, the first non-empty source file). Some key
 * words are references to records of an earlier kind (a window's
 * communicator, a handle's file and communicator, a rank's host), which a
 * merge maps to the receiving set's indices. Records keep the order in
 * which they came: merging the sets of ranks [a, b) and [b, c) in that order
 * gives the records of [a, c) in order of first appearance, rank by rank,
 * which is the numbering a single merge at rank 0 gives.
 *
 * No MPI here: the unit tests drive it (tests/unit/test_defset.c).
 */
#ifndef MSC_TRACE_DEFSET_H
#define MSC_TRACE_DEFSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In dependency order: a kind refers only to kinds before it. */
enum {
    TU_COMM,    /* inter, n, nr, occ, consecutive?, first or members | name */
    TU_REGION,  /* role, paradigm, name, group | file, line */
    TU_METRIC,  /* type, mode, name | unit */
    TU_SCL,     /* line, file */
    TU_COMMENT, /* text */
    TU_FILE,    /* name */
    TU_HOST,    /* host name */
    TU_WIN,     /* communicator, occurrence */
    TU_HANDLE,  /* file, communicator (not deduplicated: one per MPI_File of a rank) */
    TU_RANK,    /* rank, host, locations, (id, events)... (one per rank) */
    TU_LOCNAME, /* location id, name (one per named location) */
    TU_KINDS
};

/* Kinds whose records local references point at: their maps go back down. */
bool tu_mapped(int kind);

typedef struct tu_set tu_set_t;

/* Word buffers; a string is its length and its bytes, 8 to a word. */
typedef struct {
    int64_t *w;
    size_t n, cap;
    bool oom;
} tu_buf_t;
void tu_put(tu_buf_t *b, int64_t v);
void tu_put_str(tu_buf_t *b, const char *s, size_t max); /* at most `max` bytes of s */
int64_t tu_get(const int64_t **p);
void tu_get_str(const int64_t **p, char *out, size_t cap);

/* Figures reduced along the tree. */
typedef struct {
    int64_t tmin, tmax;     /* first and last corrected time (min, max) */
    double err;             /* worst clock synchronization error (max) */
    uint64_t dropped;       /* calls without a call site (sum) */
} tu_totals_t;

/* Never NULL: without memory, a set that is broken from the start. */
tu_set_t *tu_set_new(void);
void tu_set_free(tu_set_t *s);
/* Adds a record (deduplicated by key where the kind dedupes) and returns
 * its index; UINT32_MAX when memory ran out, which breaks the set. */
uint32_t tu_add(tu_set_t *s, int kind, const int64_t *key, size_t nkey, const int64_t *pay,
                size_t npay);
uint32_t tu_count(const tu_set_t *s, int kind);
const int64_t *tu_key(const tu_set_t *s, int kind, uint32_t i, size_t *nkey);
const int64_t *tu_payload(const tu_set_t *s, int kind, uint32_t i, size_t *npay);
tu_totals_t *tu_totals(tu_set_t *s);
bool tu_broken(const tu_set_t *s);
void tu_break(tu_set_t *s);
/* Words of the live records (what the set costs and what serializing sends). */
size_t tu_words(const tu_set_t *s);

/* The set as words (to send up); NULL and 0 when memory ran out. */
int64_t *tu_serialize(const tu_set_t *s, size_t *nwords);
/* Merges a serialized set into `s`, after its own records. On success
 * map[k][i] is the index in `s` of the incoming set's record i of kind k,
 * for the kinds that are mapped (tu_mapped; NULL for the others), and
 * count[k] how many it had. False if the words are malformed, the sender's
 * set was broken or memory ran out (then `s` is broken too). */
bool tu_merge(tu_set_t *s, const int64_t *w, size_t nwords, uint32_t *map[TU_KINDS],
              uint32_t count[TU_KINDS]);

/* The binomial tree over `size` ranks rooted at 0: the parent of `rank`
 * (-1 for 0) and its children in the order they are merged, the nearest
 * first (rank + 1, + 2, + 4, ... below its lowest set bit): the subtree of
 * child k covers [rank + 2^k, rank + 2^(k+1)). Returns the child count. */
int tu_parent(int rank);
int tu_children(int rank, int size, int *children);

#endif
