/* The OTF2 trace reader of the `mpiscope` program, shared by the wait-state
 * analysis, the timeline export and the analysis under MPI.
 *
 * Design. msc_trace_open reads the global definitions into plain arrays
 * indexed by OTF2 reference (strings, regions, locations, groups,
 * communicators, source code locations, metrics, clock), so that users
 * look them up without callbacks of their own. msc_trace_read then reads
 * the chosen locations one at a time with OTF2's local event reader (no
 * merge of event streams: neither user needs global time order), each
 * after its local definitions: OTF2 applies the clock offsets, and the
 * reader applies the mapping tables itself (OTF2's event reader would look
 * the location's table up again for every reference of every event, a
 * fifth of its instructions): each table of the kinds the callbacks use
 * (region, communicator, metric, source code location, attribute) becomes
 * a dense array per location, and a reference is then one bounds check and
 * one load. OTF2's callbacks are translated to a few narrow ones
 * (msc_trace_cbs_t): Isend and IrecvComplete become messages like Send and
 * Recv, and the source code location is taken from the Enter's attribute
 * list. For MPI regions the attribute is delta-encoded (docs/trace.md): an
 * Enter without one is at the location last given for the same pair
 * (previous MPI region entered on the location, its region), which the
 * reader keeps in a hash table per location (emptied at each new location
 * by a generation count). A process that reads only some locations (the analysis under MPI)
 * selects just those, so it opens only their files.
 *
 * Errors. Everything read from the archive is untrusted: references are
 * bounds-checked on every lookup, counts in definitions are only hints, and
 * every OTF2 call's status is checked; a bad archive gives an error message
 * and a -1 or NULL, never an abort (allocation failures included).
 */
#include "trace_reader.h"
#include "trace_anchor.h"
#include "trace_check.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest definition reference taken (of any kind): a trace of 16 M
 * strings, regions or locations is far beyond any real one, while a
 * corrupted reference would otherwise size an array of gigabytes. */
enum { MAX_REF = 1 << 24 };

/* Grows arr (element count *cap) to hold index `need - 1`, zero-filling;
 * false when out of memory or beyond MAX_REF (*absurd set then). */
static bool grow(void **arr, size_t *cap, size_t need, size_t elem, bool *absurd)
{
    if (need <= *cap) return true;
    if (need > MAX_REF) {
        *absurd = true;
        return false;
    }
    size_t nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    char *p = realloc(*arr, nc * elem);
    if (!p) return false;
    memset(p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return true;
}
#define GROW(t, arr, n, need)                                                                  \
    do {                                                                                       \
        if (!grow((void **)&(arr), &(n), (size_t)(need), sizeof *(arr), &(t)->absurd)) {       \
            (t)->oom = true;                                                                   \
            return OTF2_CALLBACK_INTERRUPT;                                                    \
        }                                                                                      \
    } while (0)

/* The mapping tables the reader applies (rstate_t.map). */
enum { MAP_REGION, MAP_COMM, MAP_METRIC, MAP_SCL, MAP_ATTR, MAP_KINDS };

/* Reading state: the definitions being filled, then the event forwarding. */
typedef struct {
    msc_trace_t *t;
    bool oom, absurd; /* absurd: a reference beyond MAX_REF (oom set too) */
    size_t ncapstr, ncapregion, ncapmpi; /* capacities of arrays sharing a count */
    size_t ncapfile, ncapline, ncapclass;
    const msc_trace_cbs_t *cb;
    void *u;
    /* The call-site delta of MPI Enters: the region entered last and, per
     * pair (that region, region), the location last given. */
    uint32_t prev, gen;
    struct scl_slot *sm;
    size_t smcap, smn;
    /* The current location's mapping tables, local -> global reference;
     * n = 0: no table of that kind (identity). */
    struct idmap {
        uint32_t *v;
        size_t n, cap;
    } map[MAP_KINDS];
    uint32_t scl_attr; /* the location's own ref of t->scl_attr */
} rstate_t;

/* One pair of the call-site delta; empty unless gen is the location's. */
typedef struct scl_slot {
    uint64_t key;  /* previous region << 32 | region */
    uint32_t scl, gen;
} scl_slot_t;

static size_t scl_hash(uint64_t key)
{
    key *= 0x9e3779b97f4a7c15ull;
    return (size_t)(key ^ (key >> 29));
}

/* The slot of `key` in this location's table: its own, or the empty one
 * where it would go; NULL when out of memory. */
static scl_slot_t *scl_slot(rstate_t *r, uint64_t key)
{
    if (2 * (r->smn + 1) > r->smcap) {
        size_t cap = r->smcap ? 2 * r->smcap : 1024;
        scl_slot_t *n = calloc(cap, sizeof *n); /* generation 0: empty */
        if (!n) return NULL;
        for (size_t i = 0; i < r->smcap; i++) {
            if (r->sm[i].gen != r->gen) continue;
            size_t k = scl_hash(r->sm[i].key) & (cap - 1);
            while (n[k].gen == r->gen) k = (k + 1) & (cap - 1);
            n[k] = r->sm[i];
        }
        free(r->sm);
        r->sm = n, r->smcap = cap;
    }
    size_t m = r->smcap - 1;
    for (size_t i = scl_hash(key) & m;; i = (i + 1) & m)
        if (r->sm[i].gen != r->gen || r->sm[i].key == key) return &r->sm[i];
}

/* ---- global definitions -------------------------------------------------- */

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    size_t n = t->nstr;
    GROW(r, t->str, n, (size_t)self + 1);
    t->nstr = n;
    char *d = strdup(s ? s : "");
    if (!d) {
        r->oom = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    free(t->str[self]);
    t->str[self] = d;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                  OTF2_StringRef file, uint32_t b, uint32_t e)
{
    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    GROW(r, t->region_name, r->ncapregion, (size_t)self + 1);
    GROW(r, t->region_mpi, r->ncapmpi, (size_t)self + 1);
    if (t->nregion < (size_t)self + 1) t->nregion = (size_t)self + 1;
    t->region_name[self] = name;
    t->region_mpi[self] = paradigm == OTF2_PARADIGM_MPI;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nev,
                                    OTF2_LocationGroupRef group)
{
    (void)name, (void)type;
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    if (group >= (1u << 30)) return OTF2_CALLBACK_SUCCESS; /* not a rank: ignored */
    GROW(r, t->loc, t->caploc, t->nloc + 1);
    t->loc[t->nloc++] = (msc_tr_loc_t){self, (int)group, (uint32_t)(self >> 32), nev};
    if ((int)group + 1 > t->ranks) t->ranks = (int)group + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                 uint32_t n, const uint64_t *members)
{
    (void)name, (void)paradigm, (void)flags;
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    size_t cap = t->ngrp;
    GROW(r, t->grp, cap, (size_t)self + 1);
    t->ngrp = cap;
    msc_tr_group_t *g = &t->grp[self];
    free(g->m);
    *g = (msc_tr_group_t){0, NULL};
    /* Only communicator groups hold world ranks (the others hold locations). */
    if ((type == OTF2_GROUP_TYPE_COMM_GROUP || type == OTF2_GROUP_TYPE_COMM_SELF) && n && members) {
        g->m = malloc((size_t)n * sizeof *g->m);
        if (!g->m) {
            r->oom = true;
            return OTF2_CALLBACK_INTERRUPT;
        }
        g->n = n;
        for (uint32_t i = 0; i < n; i++) g->m[i] = (uint32_t)members[i];
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode set_comm(rstate_t *r, uint32_t self, int64_t a, int64_t b)
{
    msc_trace_t *t = r->t;
    size_t cap = t->ncomm;
    size_t old = t->ncomm;
    GROW(r, t->comm, cap, (size_t)self + 1);
    for (size_t i = old; i < cap; i++) t->comm[i] = (msc_tr_comm_t){-1, -1};
    t->ncomm = cap;
    /* b < 0: intracommunicator; b out of range: an intercommunicator whose
     * remote group is unknown (never resolved, never taken as intra). */
    t->comm[self] = (msc_tr_comm_t){a >= 0 && a < INT32_MAX ? (int32_t)a : -1,
                                    b < 0 ? -1 : b < INT32_MAX ? (int32_t)b : INT32_MAX};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    return set_comm(u, self, group, -1);
}

static OTF2_CallbackCode d_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                     OTF2_GroupRef a, OTF2_GroupRef b, OTF2_CommRef common,
                                     OTF2_CommFlag flags)
{
    (void)name, (void)common, (void)flags;
    rstate_t *r = u;
    if (b == OTF2_UNDEFINED_GROUP) return set_comm(r, self, a, INT32_MAX); /* never intra */
    return set_comm(r, self, a, b);
}

static OTF2_CallbackCode d_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                               uint32_t line)
{
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    GROW(r, t->scl_file, r->ncapfile, (size_t)self + 1);
    GROW(r, t->scl_line, r->ncapline, (size_t)self + 1);
    if (t->nscl < (size_t)self + 1) t->nscl = (size_t)self + 1;
    t->scl_file[self] = file;
    t->scl_line[self] = line;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef desc, OTF2_Type type)
{
    (void)desc;
    rstate_t *r = u;
    if (type == OTF2_TYPE_SOURCE_CODE_LOCATION &&
        !strcmp(msc_trace_string(r->t, name), "SOURCE_CODE_LOCATION"))
        r->t->scl_attr = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                  OTF2_StringRef desc, OTF2_MetricType mt, OTF2_MetricMode mode,
                                  OTF2_Type vt, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
    (void)desc, (void)mt, (void)mode, (void)vt, (void)base, (void)exp, (void)unit;
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    size_t cap = t->nmember;
    GROW(r, t->member_name, cap, (size_t)self + 1);
    t->nmember = cap;
    t->member_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_class(void *u, OTF2_MetricRef self, uint8_t n,
                                 const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
                                 OTF2_RecorderKind kind)
{
    (void)occ, (void)kind;
    rstate_t *r = u;
    msc_trace_t *t = r->t;
    size_t old = r->ncapclass;
    GROW(r, t->class_member, r->ncapclass, (size_t)self + 1);
    for (size_t i = old; i < r->ncapclass; i++) t->class_member[i] = UINT32_MAX;
    if (t->nclass < (size_t)self + 1) t->nclass = (size_t)self + 1;
    t->class_member[self] = n && members ? members[0] : UINT32_MAX;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    (void)rt;
    rstate_t *r = u;
    r->t->resolution = res ? res : 1000000000u;
    r->t->offset = off;
    r->t->length = len;
    return OTF2_CALLBACK_SUCCESS;
}

/* OTF2 prints every error on stderr by default; the reader's callers say
 * what went wrong in their own words (and trace_check.c names damaged
 * locations), so OTF2's lines are kept out of the output. */
static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *function,
                                  OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function, (void)fmt, (void)va;
    return code;
}

msc_trace_t *msc_trace_open(const char *anchor, char *err, size_t errlen)
{
    OTF2_Error_RegisterCallback(quiet_error, NULL);
    if (!msc_anchor_plausible(anchor, err, errlen)) return NULL;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        snprintf(err, errlen, "cannot open the OTF2 archive %s", anchor);
        return NULL;
    }
    msc_trace_t *t = calloc(1, sizeof *t);
    if (!t) {
        OTF2_Reader_Close(rd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->rd = rd;
    t->dir = strdup(anchor);
    if (t->dir) {
        char *slash = strrchr(t->dir, '/');
        if (slash) *slash = 0; else strcpy(t->dir, ".");
    }
    t->scl_attr = UINT32_MAX;
    t->resolution = 1000000000u;
    rstate_t r = {.t = t};
    OTF2_GlobalDefReader *gd = NULL;
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t ndefs = 0;
    if (!dcb || OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS ||
        !(gd = OTF2_Reader_GetGlobalDefReader(rd))) {
        snprintf(err, errlen, "%s has no global definitions", anchor);
        goto fail;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dcb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dcb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(dcb, d_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(dcb, d_scl);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(dcb, d_attr);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dcb, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dcb, d_class);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, d_clock);
    if (OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, &r) != OTF2_SUCCESS ||
        OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &ndefs) != OTF2_SUCCESS || r.oom) {
        if (r.absurd)
            snprintf(err, errlen,
                     "the definitions of %s are corrupted: a reference beyond %d (the "
                     "most definitions of one kind this reader takes)",
                     anchor, MAX_REF);
        else
            snprintf(err, errlen, r.oom ? "out of memory reading the definitions of %s"
                                        : "cannot read the definitions of %s",
                     anchor);
        goto fail;
    }
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    return t;
fail:
    if (dcb) OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    if (gd) OTF2_Reader_CloseGlobalDefReader(rd, gd);
    msc_trace_close(t);
    return NULL;
}

/* ---- mapping tables ------------------------------------------------------ */

/* The global reference of local reference `ref`: unchanged without a table
 * or beyond it (as OTF2 does). */
static inline uint32_t map_ref(const rstate_t *r, int kind, uint64_t ref)
{
    const struct idmap *m = &r->map[kind];
    return ref < m->n ? m->v[ref] : (uint32_t)ref;
}

typedef struct {
    struct idmap *m;
    bool oom;
} fill_t;

static void map_one(uint64_t local, uint64_t global, void *u)
{
    fill_t *f = u;
    struct idmap *m = f->m;
    if (f->oom || local >= ((uint64_t)1 << 26)) return; /* absurd: left unmapped */
    if (local >= m->n) {
        if (local >= m->cap) {
            size_t cap = m->cap ? m->cap : 64;
            while (cap <= local) cap *= 2;
            uint32_t *v = realloc(m->v, cap * sizeof *v);
            if (!v) {
                f->oom = true;
                return;
            }
            m->v = v, m->cap = cap;
        }
        for (size_t i = m->n; i <= local; i++) m->v[i] = (uint32_t)i; /* gaps: identity */
        m->n = (size_t)local + 1;
    }
    m->v[local] = (uint32_t)global;
}

static OTF2_CallbackCode d_mapping(void *u, OTF2_MappingType type, const OTF2_IdMap *idmap)
{
    rstate_t *r = u;
    int kind = type == OTF2_MAPPING_REGION                 ? MAP_REGION
               : type == OTF2_MAPPING_COMM                 ? MAP_COMM
               : type == OTF2_MAPPING_METRIC               ? MAP_METRIC
               : type == OTF2_MAPPING_SOURCE_CODE_LOCATION ? MAP_SCL
               : type == OTF2_MAPPING_ATTRIBUTE            ? MAP_ATTR
                                                           : -1;
    if (kind < 0 || !idmap) return OTF2_CALLBACK_SUCCESS;
    fill_t f = {&r->map[kind], false};
    f.m->n = 0;
    if (OTF2_IdMap_Traverse(idmap, map_one, &f) != OTF2_SUCCESS || f.oom) {
        r->oom = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The location's own reference of the source code location attribute. */
static uint32_t local_scl_attr(const rstate_t *r)
{
    const struct idmap *m = &r->map[MAP_ATTR];
    if (r->t->scl_attr == UINT32_MAX || !m->n) return r->t->scl_attr;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i] == r->t->scl_attr) return (uint32_t)i;
    return r->t->scl_attr < m->n ? UINT32_MAX : r->t->scl_attr;
}

/* ---- events -------------------------------------------------------------- */

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos;
    rstate_t *r = u;
    region = map_ref(r, MAP_REGION, region);
    uint32_t scl = UINT32_MAX;
    bool given = false;
    if (al && r->scl_attr != UINT32_MAX && OTF2_AttributeList_GetNumberOfElements(al)) {
        OTF2_SourceCodeLocationRef s;
        if (OTF2_AttributeList_GetSourceCodeLocationRef(al, r->scl_attr, &s) == OTF2_SUCCESS)
            scl = map_ref(r, MAP_SCL, s), given = true;
    }
    if (region < r->t->nregion && r->t->region_mpi[region]) {
        uint64_t key = (uint64_t)r->prev << 32 | region;
        scl_slot_t *e = scl_slot(r, key);
        r->prev = region;
        if (given && e) {
            if (e->gen != r->gen) e->gen = r->gen, e->key = key, r->smn++;
            e->scl = scl;
        } else if (!given) {
            scl = e && e->gen == r->gen ? e->scl : UINT32_MAX;
        }
    }
    r->cb->enter(r->u, time, region, scl);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)al;
    rstate_t *r = u;
    r->cb->leave(r->u, time, map_ref(r, MAP_REGION, region));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    rstate_t *r = u;
    r->cb->msg(r->u, time, true, peer, map_ref(r, MAP_COMM, comm), tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_send(loc, time, pos, u, al, peer, comm, tag, len);
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    rstate_t *r = u;
    r->cb->msg(r->u, time, false, peer, map_ref(r, MAP_COMM, comm), tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_recv(loc, time, pos, u, al, peer, comm, tag, len);
}

static OTF2_CallbackCode e_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
                                    void *u, OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                    OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)loc, (void)pos, (void)al, (void)sent, (void)recvd;
    rstate_t *r = u;
    r->cb->coll_end(r->u, time, op, map_ref(r, MAP_COMM, comm), root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_MetricRef metric, uint8_t n,
                                  const OTF2_Type *types, const OTF2_MetricValue *values)
{
    (void)loc, (void)pos, (void)al;
    rstate_t *r = u;
    if (!n || !types || !values) return OTF2_CALLBACK_SUCCESS;
    double v = types[0] == OTF2_TYPE_DOUBLE  ? values[0].floating_point
               : types[0] == OTF2_TYPE_INT64 ? (double)values[0].signed_int
                                             : (double)values[0].unsigned_int;
    r->cb->metric(r->u, time, map_ref(r, MAP_METRIC, metric), v);
    return OTF2_CALLBACK_SUCCESS;
}

int msc_trace_read(msc_trace_t *t, const bool *want, const msc_trace_cbs_t *cb, void *u,
                   uint64_t *events, char *err, size_t errlen)
{
    OTF2_Reader *rd = t->rd;
    size_t nsel = 0;
    for (size_t i = 0; i < t->nloc; i++) {
        if (want && !want[i]) continue;
        if (OTF2_Reader_SelectLocation(rd, t->loc[i].id) != OTF2_SUCCESS) {
            snprintf(err, errlen, "cannot select location %llu of the trace",
                     (unsigned long long)t->loc[i].id);
            return -1;
        }
        nsel++;
    }
    if (!nsel) return 0;
    bool def_files = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        if (def_files) OTF2_Reader_CloseDefFiles(rd);
        snprintf(err, errlen, "cannot open the event files of the trace");
        return -1;
    }
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    if (!ecb) {
        snprintf(err, errlen, "out of memory");
        OTF2_Reader_CloseEvtFiles(rd);
        if (def_files) OTF2_Reader_CloseDefFiles(rd);
        return -1;
    }
    if (cb->enter) OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, e_enter);
    if (cb->leave) OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, e_leave);
    if (cb->msg) {
        OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, e_send);
        OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, e_isend);
        OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, e_recv);
        OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, e_irecv);
    }
    if (cb->coll_end) OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, e_coll_end);
    if (cb->metric) OTF2_EvtReaderCallbacks_SetMetricCallback(ecb, e_metric);
    rstate_t r = {.t = t, .cb = cb, .u = u};
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    if (!dcb) {
        snprintf(err, errlen, "out of memory");
        OTF2_EvtReaderCallbacks_Delete(ecb);
        OTF2_Reader_CloseEvtFiles(rd);
        if (def_files) OTF2_Reader_CloseDefFiles(rd);
        return -1;
    }
    OTF2_DefReaderCallbacks_SetMappingTableCallback(dcb, d_mapping);
    int rc = 0;
    for (size_t i = 0; i < t->nloc && rc == 0; i++) {
        if (want && !want[i]) continue;
        if (cb->location) cb->location(u, i);
        r.gen++, r.smn = 0, r.prev = UINT32_MAX; /* the call-site delta starts afresh */
        for (int k = 0; k < MAP_KINDS; k++) r.map[k].n = 0;
        if (def_files) {
            /* Mapping tables and clock offsets are local definitions: the
             * tables come to d_mapping, the offsets stay with OTF2, whose
             * event reader applies them once they have been read. */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, t->loc[i].id);
            if (dr) {
                uint64_t n = 0;
                if (OTF2_Reader_RegisterDefCallbacks(rd, dr, dcb, &r) == OTF2_SUCCESS)
                    OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
            if (r.oom) {
                snprintf(err, errlen, r.absurd ? "the definitions of location %llu are corrupted: "
                                                 "a reference beyond %d"
                                               : "out of memory",
                         (unsigned long long)t->loc[i].id, MAX_REF);
                rc = -1;
                break;
            }
        }
        r.scl_attr = local_scl_attr(&r);
        /* A location whose events cannot be read (a missing or cut event
         * file: trace_check.c names them) is skipped after what could be
         * read of it; the caller says the result is partial. */
        /* OTF2's reader can loop on a file cut short: such a file is not
         * opened at all. */
        if (msc_trace_location_problem(t, i)) {
            t->unreadable++;
            continue;
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, t->loc[i].id);
        if (!er) {
            if (t->loc[i].events) t->unreadable++;
            continue;
        }
        /* The location's definition says how many events were written: a
         * file that gives fewer was cut, one that gives more loops. */
        uint64_t n = 0, most = msc_trace_location_max_events(t, i), want_n = t->loc[i].events;
        if (want_n && want_n < most) most = want_n;
        bool bad = OTF2_EvtReader_ApplyMappingTables(er, false) != OTF2_SUCCESS ||
                   OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, &r) != OTF2_SUCCESS;
        /* In batches, so that a file on which OTF2's reader loops (see
         * trace_check.c) is left once it has given more events than it can
         * hold. */
        while (!bad) {
            uint64_t got = 0;
            enum { BATCH = 1 << 16 };
            bad = OTF2_Reader_ReadLocalEvents(rd, er, BATCH, &got) != OTF2_SUCCESS;
            n += got;
            if (n > most) bad = true;
            if (got < BATCH) break;
        }
        if (bad || (want_n && n != want_n)) t->unreadable++;
        *events += n;
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_DefReaderCallbacks_Delete(dcb);
    for (int k = 0; k < MAP_KINDS; k++) free(r.map[k].v);
    free(r.sm);
    if (def_files) OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    return rc;
}

void msc_trace_close(msc_trace_t *t)
{
    if (!t) return;
    if (t->rd) OTF2_Reader_Close(t->rd);
    /* A corrupted reference sizes these arrays far beyond their entries;
     * free(NULL) is not free under a sanitizer (it unwinds the stack). */
    for (size_t i = 0; i < t->nstr; i++)
        if (t->str[i]) free(t->str[i]);
    for (size_t i = 0; i < t->ngrp; i++)
        if (t->grp[i].m) free(t->grp[i].m);
    free(t->str), free(t->region_name), free(t->region_mpi), free(t->loc), free(t->grp);
    free(t->comm), free(t->scl_file), free(t->scl_line), free(t->member_name);
    free(t->class_member);
    free(t->dir);
    free(t);
}

const char *msc_trace_string(const msc_trace_t *t, uint32_t ref)
{
    return ref < t->nstr && t->str[ref] ? t->str[ref] : "";
}

const char *msc_trace_region_name(const msc_trace_t *t, uint32_t r)
{
    return r < t->nregion ? msc_trace_string(t, t->region_name[r]) : "?";
}

int32_t msc_trace_world_inter(const msc_trace_t *t, uint32_t comm, int me, uint32_t peer)
{
    if (comm >= t->ncomm) return -1;
    const msc_tr_comm_t *k = &t->comm[comm];
    if (k->a < 0 || (size_t)k->a >= t->ngrp) return -1;
    const msc_tr_group_t *g = &t->grp[k->a];
    if (k->b >= 0) {
        bool in_a = false;
        for (uint32_t i = 0; i < g->n && !in_a; i++) in_a = g->m[i] == (uint32_t)me;
        if (in_a) {
            if ((size_t)k->b >= t->ngrp) return -1;
            g = &t->grp[k->b];
        }
    }
    return peer < g->n ? (int32_t)g->m[peer] : -1;
}
