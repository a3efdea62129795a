/* Private to the analysis engine. The one OTF2 trace reader that the
 * wait-state analysis (waitstate.c), the timeline export (tools/cli/export_chrome.c)
 * and the analysis under MPI (mpi/) share; see trace_reader.c. */
#ifndef MSC_CLI_TRACE_READER_H
#define MSC_CLI_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t id;      /* OTF2 location reference */
    int rank;         /* world rank (the location group) */
    uint32_t thread;  /* thread number within the rank */
    uint64_t events;  /* events, as the definition states (not trusted) */
} msc_tr_loc_t;

typedef struct {
    uint32_t n;
    uint32_t *m;      /* world ranks */
} msc_tr_group_t;

typedef struct {
    int32_t a, b;     /* groups; b = -1: intracommunicator */
} msc_tr_comm_t;

/* The global definitions, read once by msc_trace_open. Arrays are indexed
 * by the OTF2 reference; a reference beyond an array's length is unknown. */
typedef struct msc_trace {
    void *rd;                   /* OTF2_Reader */
    char **str;                 /* strings; NULL entries for gaps */
    size_t nstr;
    uint32_t *region_name;      /* string ref */
    uint8_t *region_mpi;        /* paradigm is MPI */
    size_t nregion;
    msc_tr_loc_t *loc;          /* in definition order */
    size_t nloc, caploc;
    msc_tr_group_t *grp;
    size_t ngrp;
    msc_tr_comm_t *comm;
    size_t ncomm;
    uint32_t *scl_file, *scl_line; /* source code locations */
    size_t nscl;
    uint32_t scl_attr;          /* the SOURCE_CODE_LOCATION attribute, or UINT32_MAX */
    uint32_t *member_name;      /* metric member -> string ref */
    size_t nmember;
    uint32_t *class_member;     /* metric class -> first member, UINT32_MAX if none */
    size_t nclass;
    uint64_t resolution;        /* ticks per second */
    uint64_t offset;            /* global offset: the trace's first tick */
    uint64_t length;            /* ticks from the first to the last event (0: unknown) */
    int ranks;                  /* highest location group + 1 */
    size_t unreadable;          /* locations msc_trace_read could not read (whole or part) */
    char *dir;                  /* the archive's directory (where traces.otf2 is) */
} msc_trace_t;

/* Event callbacks; any may be NULL. `u` is the pointer given to
 * msc_trace_read. Nonblocking sends and receive completions (Isend,
 * IrecvComplete) arrive as `msg` like their blocking forms; `peer` is the
 * rank in `comm` (see msc_trace_world). `scl` is the Enter's source code
 * location, UINT32_MAX if it has none; an MPI region's Enter without the
 * attribute has the one last given for its region on the location. */
typedef struct {
    void (*location)(void *u, size_t loc); /* before the events of loc (index in t->loc) */
    void (*enter)(void *u, uint64_t t, uint32_t region, uint32_t scl);
    void (*leave)(void *u, uint64_t t, uint32_t region);
    void (*msg)(void *u, uint64_t t, bool send, uint32_t peer, uint32_t comm, uint32_t tag,
                uint64_t bytes);
    void (*coll_end)(void *u, uint64_t t, uint32_t op, uint32_t comm, uint32_t root);
    void (*metric)(void *u, uint64_t t, uint32_t metric, double value); /* first member */
} msc_trace_cbs_t;

/* Opens the archive `anchor` (…/traces.otf2) and reads its global
 * definitions. NULL with a message in err if it cannot. */
msc_trace_t *msc_trace_open(const char *anchor, char *err, size_t errlen);

/* Reads the events of the locations with want[i] true (want NULL: all), in
 * definition order, each after its local definitions (mappings, clock
 * offsets). A location whose events cannot be read is skipped after what
 * could be read of it and counted in t->unreadable (msc_trace_damage names
 * such locations). Can be called once per msc_trace_t. Adds the events read to
 * *events. Returns 0, or -1 with a message in err. */
int msc_trace_read(msc_trace_t *t, const bool *want, const msc_trace_cbs_t *cb, void *u,
                   uint64_t *events, char *err, size_t errlen);

void msc_trace_close(msc_trace_t *t);

/* String `ref`, "" if unknown. */
const char *msc_trace_string(const msc_trace_t *t, uint32_t ref);

/* Name of region `r`, "?" if unknown; whether it is an MPI region. */
const char *msc_trace_region_name(const msc_trace_t *t, uint32_t r);
static inline bool msc_trace_region_is_mpi(const msc_trace_t *t, uint32_t r)
{
    return r < t->nregion && t->region_mpi[r];
}

/* World rank of rank `peer` of communicator `comm` as seen from world rank
 * `me` (the remote group of an intercommunicator), or -1. Intracommunicators
 * inline: this is once per message. */
int32_t msc_trace_world_inter(const msc_trace_t *t, uint32_t comm, int me, uint32_t peer);
static inline int32_t msc_trace_world(const msc_trace_t *t, uint32_t comm, int me, uint32_t peer)
{
    if (comm < t->ncomm && t->comm[comm].b < 0 && t->comm[comm].a >= 0 &&
        (size_t)t->comm[comm].a < t->ngrp) {
        const msc_tr_group_t *g = &t->grp[t->comm[comm].a];
        return peer < g->n ? (int32_t)g->m[peer] : -1;
    }
    return msc_trace_world_inter(t, comm, me, peer);
}

/* Whether `comm` is a known intracommunicator. */
static inline bool msc_trace_is_intra(const msc_trace_t *t, uint32_t comm)
{
    return comm < t->ncomm && t->comm[comm].a >= 0 && t->comm[comm].b < 0;
}

#endif
