/* `mpiscope export --chrome DIR [-o FILE]`: the trace as Chrome trace-event
 * JSON (the format chrome://tracing and Perfetto open).
 *
 * One process per rank (pid = world rank), one thread per location (tid =
 * the thread number), a B/E slice per region entered (MPI calls, category
 * "MPI"; user regions, category "user"), a flow arrow (s -> f) per
 * point-to-point message from the send event to the receive event, and a
 * counter ("C") per metric value (MPI_T variables, VT_ counters).
 *
 * Messages are matched the way MPI does: the k-th send on a channel
 * (communicator, sender, receiver, tag) is the k-th receive on it, so each
 * location can be read on its own and both ends compute the same flow id.
 * Timestamps are microseconds from the start of the trace.
 */
#include <otf2/otf2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

typedef struct {
    char **s;
    size_t n;
} strs_t;

typedef struct {
    uint64_t id;
    int rank;
    uint32_t thread;
} xloc_t;

typedef struct {
    uint32_t a, b; /* groups; b == UINT32_MAX: intra */
} xcomm_t;

typedef struct {
    uint32_t n;
    uint32_t *m;
} xgroup_t;

typedef struct {
    uint64_t key[4];
    uint64_t sends, recvs;
    bool used;
} xchan_t;

typedef struct {
    strs_t str;
    uint32_t *region_name, *region_mpi;
    size_t nregion;
    xloc_t *loc;
    size_t nloc, caploc;
    xgroup_t *grp;
    size_t ngrp;
    xcomm_t *comm;
    size_t ncomm;
    uint32_t *member_name; /* metric member -> name */
    size_t nmember;
    uint32_t *class_member; /* metric class -> first member */
    uint32_t *class_n;
    size_t nclass;
    uint64_t res, offset;
    xchan_t *chan;
    size_t capchan, nchan;
    FILE *o;
    xloc_t *cur;
    uint64_t events, slices, flows, counters;
    bool first;
} xctx_t;

#define GROW(arr, n, need)                                                                  \
    do {                                                                                    \
        if ((need) > (n)) {                                                                 \
            size_t nn_ = (n) ? (n) : 16;                                                    \
            while (nn_ < (need)) nn_ *= 2;                                                  \
            void *p_ = realloc((arr), nn_ * sizeof *(arr));                                 \
            if (!p_) abort();                                                               \
            memset((char *)p_ + (n) * sizeof *(arr), 0, (nn_ - (n)) * sizeof *(arr));       \
            (arr) = p_;                                                                     \
            (n) = nn_;                                                                      \
        }                                                                                   \
    } while (0)

static const char *S(xctx_t *c, uint32_t r) { return r < c->str.n && c->str.s[r] ? c->str.s[r] : ""; }

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    xctx_t *c = u;
    GROW(c->str.s, c->str.n, (size_t)self + 1);
    c->str.s[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                  OTF2_StringRef file, uint32_t b, uint32_t e)
{
    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    xctx_t *c = u;
    size_t n = c->nregion;
    GROW(c->region_name, n, (size_t)self + 1);
    n = c->nregion;
    GROW(c->region_mpi, n, (size_t)self + 1);
    c->nregion = n;
    c->region_name[self] = name;
    c->region_mpi[self] = paradigm == OTF2_PARADIGM_MPI;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nev,
                                    OTF2_LocationGroupRef group)
{
    (void)name, (void)type, (void)nev;
    xctx_t *c = u;
    GROW(c->loc, c->caploc, c->nloc + 1);
    c->loc[c->nloc++] = (xloc_t){self, (int)group, (uint32_t)(self >> 32)};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                 uint32_t n, const uint64_t *members)
{
    (void)name, (void)paradigm, (void)flags, (void)type;
    xctx_t *c = u;
    GROW(c->grp, c->ngrp, (size_t)self + 1);
    c->grp[self].n = n;
    c->grp[self].m = malloc((n ? n : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) c->grp[self].m[i] = (uint32_t)members[i];
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    xctx_t *c = u;
    GROW(c->comm, c->ncomm, (size_t)self + 1);
    c->comm[self] = (xcomm_t){group, UINT32_MAX};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                     OTF2_GroupRef a, OTF2_GroupRef b, OTF2_CommRef common,
                                     OTF2_CommFlag flags)
{
    (void)name, (void)common, (void)flags;
    xctx_t *c = u;
    GROW(c->comm, c->ncomm, (size_t)self + 1);
    c->comm[self] = (xcomm_t){a, b};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                  OTF2_StringRef desc, OTF2_MetricType mt, OTF2_MetricMode mode,
                                  OTF2_Type vt, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
    (void)desc, (void)mt, (void)mode, (void)vt, (void)base, (void)exp, (void)unit;
    xctx_t *c = u;
    GROW(c->member_name, c->nmember, (size_t)self + 1);
    c->member_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_class(void *u, OTF2_MetricRef self, uint8_t n,
                                 const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
                                 OTF2_RecorderKind kind)
{
    (void)occ, (void)kind;
    xctx_t *c = u;
    size_t cap = c->nclass;
    GROW(c->class_member, cap, (size_t)self + 1);
    cap = c->nclass;
    GROW(c->class_n, cap, (size_t)self + 1);
    c->nclass = cap;
    c->class_member[self] = n ? members[0] : UINT32_MAX;
    c->class_n[self] = n;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    (void)len, (void)rt;
    xctx_t *c = u;
    c->res = res ? res : 1000000000u;
    c->offset = off;
    return OTF2_CALLBACK_SUCCESS;
}

static double us(xctx_t *c, uint64_t t)
{
    return (double)(int64_t)(t - c->offset) * 1e6 / (double)c->res;
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void sep(xctx_t *c)
{
    fputs(c->first ? "\n" : ",\n", c->o);
    c->first = false;
}

static OTF2_CallbackCode e_region(xctx_t *c, OTF2_TimeStamp t, OTF2_RegionRef r, char ph)
{
    c->events++;
    sep(c);
    bool mpi = r < c->nregion && c->region_mpi[r];
    fprintf(c->o, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"%s\",\"name\":", ph,
            c->cur->rank, c->cur->thread, us(c, t), mpi ? "MPI" : "user");
    jstr(c->o, r < c->nregion ? S(c, c->region_name[r]) : "?");
    fputc('}', c->o);
    if (ph == 'B') c->slices++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)l, (void)pos, (void)a;
    return e_region(u, t, r, 'B');
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)l, (void)pos, (void)a;
    return e_region(u, t, r, 'E');
}

static int64_t world_of(xctx_t *c, uint32_t comm, int me, uint32_t peer)
{
    if (comm >= c->ncomm || c->comm[comm].a >= c->ngrp) return -1;
    xgroup_t *g = &c->grp[c->comm[comm].a];
    if (c->comm[comm].b != UINT32_MAX && c->comm[comm].b < c->ngrp) {
        for (uint32_t i = 0; i < g->n; i++)
            if (g->m[i] == (uint32_t)me) {
                g = &c->grp[c->comm[comm].b];
                break;
            }
    }
    return peer < g->n ? (int64_t)g->m[peer] : -1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Index of a channel, created on first use. */
static size_t chan_index(xctx_t *c, const uint64_t k[4])
{
    if (c->nchan * 2 >= c->capchan) {
        size_t cap = c->capchan ? 2 * c->capchan : 256;
        xchan_t *t = calloc(cap, sizeof *t);
        for (size_t i = 0; i < c->capchan; i++) {
            if (!c->chan[i].used) continue;
            size_t h = mix(c->chan[i].key[0] ^ mix(c->chan[i].key[1] ^ mix(c->chan[i].key[2] ^
                                                                           mix(c->chan[i].key[3])))) & (cap - 1);
            while (t[h].used) h = (h + 1) & (cap - 1);
            t[h] = c->chan[i];
        }
        free(c->chan);
        c->chan = t;
        c->capchan = cap;
    }
    size_t h = mix(k[0] ^ mix(k[1] ^ mix(k[2] ^ mix(k[3])))) & (c->capchan - 1);
    while (c->chan[h].used && memcmp(c->chan[h].key, k, sizeof c->chan[h].key) != 0)
        h = (h + 1) & (c->capchan - 1);
    if (!c->chan[h].used) {
        c->chan[h].used = true;
        memcpy(c->chan[h].key, k, sizeof c->chan[h].key);
        c->nchan++;
    }
    return h;
}

static void flow(xctx_t *c, OTF2_TimeStamp t, bool send, uint32_t peer, OTF2_CommRef comm,
                 uint32_t tag, uint64_t len)
{
    c->events++;
    int64_t w = world_of(c, comm, c->cur->rank, peer);
    if (w < 0) return;
    uint64_t k[4] = {comm, send ? (uint64_t)c->cur->rank : (uint64_t)w,
                     send ? (uint64_t)w : (uint64_t)c->cur->rank, tag};
    /* The flow id: hash of the channel and the message's number on it. */
    size_t h = chan_index(c, k); /* may move the table */
    xchan_t *ch = &c->chan[h];
    uint64_t nth = send ? ch->sends++ : ch->recvs++;
    uint64_t id = mix(k[0] * 31 + k[1]) ^ mix(k[2] * 131 + k[3] + 0x9e3779b97f4a7c15ULL);
    id = (mix(id ^ (nth * 0x9e3779b97f4a7c15ULL)) & ((1ULL << 53) - 1));
    sep(c);
    fprintf(c->o, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"message\","
                  "\"name\":\"message\",\"id\":%llu,\"args\":{\"bytes\":%llu,\"tag\":%u}}",
            send ? "s" : "f\",\"bp\":\"e", c->cur->rank, c->cur->thread, us(c, t),
            (unsigned long long)id, (unsigned long long)len, tag);
    if (send) c->flows++;
}

static OTF2_CallbackCode e_send(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)l, (void)pos, (void)a;
    flow(u, t, true, peer, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_send(l, t, pos, u, a, peer, comm, tag, len);
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)l, (void)pos, (void)a;
    flow(u, t, false, peer, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)req;
    return e_recv(l, t, pos, u, a, peer, comm, tag, len);
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n,
                                  const OTF2_Type *types, const OTF2_MetricValue *values)
{
    (void)l, (void)pos, (void)a;
    xctx_t *c = u;
    c->events++;
    if (metric >= c->nclass || !n) return OTF2_CALLBACK_SUCCESS;
    uint32_t m = c->class_member[metric];
    double v = types[0] == OTF2_TYPE_DOUBLE ? values[0].floating_point
               : types[0] == OTF2_TYPE_INT64 ? (double)values[0].signed_int
                                             : (double)values[0].unsigned_int;
    const char *name = m < c->nmember ? S(c, c->member_name[m]) : "metric";
    sep(c);
    fprintf(c->o, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"name\":", c->cur->rank,
            c->cur->thread, us(c, t));
    jstr(c->o, name);
    fprintf(c->o, ",\"args\":{");
    jstr(c->o, name);
    fprintf(c->o, ":%.17g}}", v);
    c->counters++;
    return OTF2_CALLBACK_SUCCESS;
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope export --chrome [-o FILE] DIR\n"
               "\n"
               "Converts DIR/trace/traces.otf2 to Chrome trace-event JSON (DIR/trace.json, or\n"
               "FILE; '-' for stdout), for Perfetto (ui.perfetto.dev) and chrome://tracing: a\n"
               "slice per MPI call and user region, a flow arrow per message, a counter per\n"
               "metric (MPI_T variables). Processes are ranks, threads are locations.\n");
}

int msc_cmd_export(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    bool chrome = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--chrome")) {
            chrome = true;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir || !chrome) {
        if (dir && !chrome) fprintf(stderr, "mpiscope export: give the format: --chrome\n");
        usage(stderr);
        return 2;
    }
    char anchor[4096], path[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    snprintf(path, sizeof path, "%s", out ? out : "");
    if (!out) snprintf(path, sizeof path, "%s/trace.json", dir);
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "mpiscope export: %s has no trace (%s)\n", dir, anchor);
        return 1;
    }
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        fprintf(stderr, "mpiscope export: cannot open %s\n", anchor);
        return 1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    xctx_t *c = calloc(1, sizeof *c);
    c->res = 1000000000u;
    c->first = true;
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dcb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dcb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(dcb, d_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dcb, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dcb, d_class);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, d_clock);
    uint64_t nd = 0;
    int rc = 1;
    if (!gd || OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, c) != OTF2_SUCCESS ||
        OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &nd) != OTF2_SUCCESS) {
        fprintf(stderr, "mpiscope export: cannot read the definitions of %s\n", anchor);
        goto done;
    }
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    gd = NULL;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    bool to_stdout = !strcmp(path, "-");
    c->o = to_stdout ? stdout : fopen(tmp, "w");
    if (!c->o) {
        fprintf(stderr, "mpiscope export: cannot write %s\n", tmp);
        goto done;
    }
    fprintf(c->o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"mpiscope\",\"trace\":");
    jstr(c->o, anchor);
    fprintf(c->o, "},\"traceEvents\":[");
    int last_rank = -1;
    for (size_t i = 0; i < c->nloc; i++) {
        xloc_t *l = &c->loc[i];
        if (l->rank != last_rank) {
            sep(c);
            fprintf(c->o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\","
                          "\"args\":{\"name\":\"rank %d\"}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                          "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
                    l->rank, l->rank, l->rank, l->rank);
            last_rank = l->rank;
        }
        sep(c);
        fprintf(c->o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\","
                      "\"args\":{\"name\":\"%s %u\"}}",
                l->rank, l->thread, l->thread ? "thread" : "main thread", l->thread);
        OTF2_Reader_SelectLocation(rd, l->id);
    }
    bool defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(rd);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, e_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, e_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, e_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, e_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, e_irecv);
    OTF2_EvtReaderCallbacks_SetMetricCallback(ecb, e_metric);
    bool tty = isatty(2);
    for (size_t i = 0; i < c->nloc; i++) {
        c->cur = &c->loc[i];
        if (tty) {
            fprintf(stderr, "\rmpiscope: export: location %zu of %zu (%.1f M events)\033[K", i + 1,
                    c->nloc, (double)c->events / 1e6);
            fflush(stderr);
        }
        if (defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, c->cur->id);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, c->cur->id);
        if (!er) continue;
        OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, c);
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    if (tty) fprintf(stderr, "\r\033[K");
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (defs) OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    fprintf(c->o, "\n]}\n");
    if (!to_stdout) {
        bool bad = ferror(c->o);
        if (fclose(c->o) != 0 || bad || rename(tmp, path) != 0) {
            fprintf(stderr, "mpiscope export: cannot write %s\n", path);
            unlink(tmp);
            goto done;
        }
        printf("mpiscope export: wrote %s: %llu slices, %llu messages, %llu counter values\n", path,
               (unsigned long long)c->slices, (unsigned long long)c->flows,
               (unsigned long long)c->counters);
    }
    rc = 0;
done:
    if (gd) OTF2_Reader_CloseGlobalDefReader(rd, gd);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    OTF2_Reader_Close(rd);
    for (size_t i = 0; i < c->str.n; i++) free(c->str.s[i]);
    for (size_t i = 0; i < c->ngrp; i++) free(c->grp[i].m);
    free(c->str.s), free(c->region_name), free(c->region_mpi), free(c->loc), free(c->grp);
    free(c->comm), free(c->member_name), free(c->class_member), free(c->class_n), free(c->chan);
    free(c);
    return rc;
}
