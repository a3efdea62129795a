/* Local definitions of the trace and their unification at MPI_Finalize.
 *
 * Events carry local references: a communicator's reference is the order in
 * which this rank first met it, a user region's or metric's the order of its
 * definition. Nothing is exchanged while the program runs. At finalize every
 * rank puts its definitions in a set (defset.h) that is merged with the
 * others' up a binomial tree (unify.c); rank 0 writes the global
 * definitions from the merged set, and each rank gets back the table from
 * its local references to global ones and writes it as OTF2 mapping tables,
 * which readers apply to its events.
 *
 * A communicator is identified across ranks without talking to the other
 * members: by its group (the world ranks of its members in rank order; for an
 * intercommunicator both groups, the one holding the lower world rank first)
 * and by how many communicators with that same group this rank had met
 * before. Members create a given group's communicators in the same order
 * (creation is collective), so the pair names the same communicator on every
 * member. MPI functions are regions with their function id as reference:
 * every rank has the same function table.
 *
 * MPI call sites (the return addresses the wrappers capture) get local
 * source code location references from a bounded lock-free table while the
 * program runs; only at finalize does each rank turn its addresses into
 * file and line (src/profile/callsite.h: reading DWARF takes milliseconds,
 * and load addresses differ between ranks), and they are unified by file
 * and line with the VT_ API's locations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRC_HOST_LEN 64   /* bytes per host name gathered for the system tree */

#include "../core/log.h"
#include "../core/output.h"
#include "../profile/callsite.h"
#include "impl.h"
#include "msc_functions.h"
#include "trace.h"

trc_comm_t trc_world;
static char incomplete_reason[1024]; /* rank 0: why the trace is incomplete (trace.c) */

void trc_defs_incomplete_reason(const char *why)
{
    snprintf(incomplete_reason, sizeof incomplete_reason, "%s", why ? why : "");
}
trc_comm_t *trc_self;
static trc_comm_t no_comm = {.ref = OTF2_UNDEFINED_COMM};

enum { SLOTS = 1 << 14, MAX_DEFS = 1 << 16 };

typedef struct {
    int inter, n, nr, occ;
    int *ranks;          /* n local then nr remote world ranks, canonical order */
    char name[32];
} comm_def_t;

typedef struct {
    char name[128];      /* region, metric: name; source location: file */
    char unit[32];
    int a, b;            /* region: role, paradigm; metric: type, mode; scl: line, 0 */
    char group[64];      /* region: its group (VT_ class); "" for none */
    _Atomic uint32_t scl; /* region: local source location + 1, 0: none */
} named_def_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static trc_comm_t slots[SLOTS];
static comm_def_t *comms;
static int ncomms, capcomms;
static named_def_t regions[1024], metrics[256], scls[TRC_SCL_SITES];
static _Atomic int nregions, nmetrics, nscls;
static char **comments;  /* texts of VT_log_comment, local string references */
static int ncomments, capcomments;
static MPI_Group world_group = MPI_GROUP_NULL;

/* Windows: a window is named across ranks by its communicator (local
 * reference, mapped to the global one at finalize) and by how many windows
 * over that communicator this rank created before (creation is collective). */
typedef struct {
    MPI_Win h;
    uint32_t comm;       /* local communicator reference */
    int occ;
    int live;
} win_def_t;
static win_def_t wins[4096];
static int nwins;
static int win_keyval = MPI_KEYVAL_INVALID;
static _Thread_local uint32_t win_freed = OTF2_UNDEFINED_RMA_WIN;

/* Attribute delete callback: MPI_Win_free calls it for the window being
 * freed, whose handle the leave hook can no longer read. */
static int win_deleted(MPI_Win w, int keyval, void *val, void *extra)
{
    (void)w, (void)keyval, (void)extra;
    uint32_t ref = (uint32_t)(uintptr_t)val;
    pthread_mutex_lock(&lock);
    if (ref < (uint32_t)nwins) wins[ref].live = 0;
    pthread_mutex_unlock(&lock);
    win_freed = ref;
    return MPI_SUCCESS;
}

uint32_t trc_win_created(MPI_Win w, MPI_Comm comm)
{
    if (w == MPI_WIN_NULL) return OTF2_UNDEFINED_RMA_WIN;
    uint32_t cref = trc_comm(comm)->ref;
    uint32_t ref = OTF2_UNDEFINED_RMA_WIN;
    pthread_mutex_lock(&lock);
    if (win_keyval == MPI_KEYVAL_INVALID)
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_deleted, &win_keyval, NULL);
    if (nwins < (int)(sizeof wins / sizeof *wins)) {
        int occ = 0;
        for (int i = 0; i < nwins; i++) occ += wins[i].comm == cref;
        wins[nwins] = (win_def_t){w, cref, occ, 1};
        ref = (uint32_t)nwins++;
    }
    pthread_mutex_unlock(&lock);
    if (ref != OTF2_UNDEFINED_RMA_WIN && win_keyval != MPI_KEYVAL_INVALID)
        PMPI_Win_set_attr(w, win_keyval, (void *)(uintptr_t)ref);
    return ref;
}

uint32_t trc_win(MPI_Win w)
{
    uint32_t ref = OTF2_UNDEFINED_RMA_WIN;
    pthread_mutex_lock(&lock);
    for (int i = nwins - 1; i >= 0 && ref == OTF2_UNDEFINED_RMA_WIN; i--)
        if (wins[i].live && wins[i].h == w) ref = (uint32_t)i;
    pthread_mutex_unlock(&lock);
    return ref;
}

/* Files and handles: a file is named by its name (unified across ranks by
 * name); a handle is one MPI_File of one rank, with the file, the
 * communicator of the open and the address of the variable the application
 * keeps it in (MPI_File_close resets the handle before the leave hook can
 * read it; the variable's address names it then). */
typedef struct {
    char name[256];
} file_def_t;
typedef struct {
    MPI_File h;
    const void *var;
    uint32_t file, comm;
    int live;
} fh_def_t;
static file_def_t files[1024];
static fh_def_t fhs[4096];
static int nfiles, nfhs;

uint32_t trc_io_opened(MPI_File h, const void *var, const char *name, MPI_Comm comm)
{
    if (h == MPI_FILE_NULL || !name) return OTF2_UNDEFINED_IO_HANDLE;
    uint32_t cref = trc_comm(comm)->ref, ref = OTF2_UNDEFINED_IO_HANDLE;
    pthread_mutex_lock(&lock);
    int f = 0;
    while (f < nfiles && strncmp(files[f].name, name, sizeof files[f].name - 1) != 0) f++;
    if (f == nfiles && nfiles < (int)(sizeof files / sizeof *files))
        snprintf(files[nfiles++].name, sizeof files[f].name, "%s", name);
    if (f < nfiles && nfhs < (int)(sizeof fhs / sizeof *fhs)) {
        fhs[nfhs] = (fh_def_t){h, var, (uint32_t)f, cref, 1};
        ref = (uint32_t)nfhs++;
    }
    pthread_mutex_unlock(&lock);
    return ref;
}

uint32_t trc_io_handle(MPI_File h)
{
    uint32_t ref = OTF2_UNDEFINED_IO_HANDLE;
    pthread_mutex_lock(&lock);
    for (int i = nfhs - 1; i >= 0 && ref == OTF2_UNDEFINED_IO_HANDLE; i--)
        if (fhs[i].live && fhs[i].h == h) ref = (uint32_t)i;
    pthread_mutex_unlock(&lock);
    return ref;
}

uint32_t trc_io_closed(const void *var)
{
    uint32_t ref = OTF2_UNDEFINED_IO_HANDLE;
    int live = 0, last = -1;
    pthread_mutex_lock(&lock);
    for (int i = nfhs - 1; i >= 0; i--) {
        if (!fhs[i].live) continue;
        live++, last = i;
        if (fhs[i].var == var && ref == OTF2_UNDEFINED_IO_HANDLE) ref = (uint32_t)i;
    }
    if (ref == OTF2_UNDEFINED_IO_HANDLE && live == 1) ref = (uint32_t)last;
    if (ref != OTF2_UNDEFINED_IO_HANDLE) fhs[ref].live = 0;
    pthread_mutex_unlock(&lock);
    return ref;
}

uint32_t trc_win_freed(void)
{
    uint32_t ref = win_freed;
    win_freed = OTF2_UNDEFINED_RMA_WIN;
    return ref;
}

static uint64_t handle_key(MPI_Comm c)
{
    uint64_t k = 0;
    memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
    return k;
}

static uint64_t hash(uint64_t k)
{
    k ^= k >> 29;
    k *= 0x9e3779b97f4a7c15ull;
    return k ^ (k >> 32);
}

static bool same_group(const comm_def_t *d, int inter, int n, int nr, const int *ranks)
{
    return d->inter == inter && d->n == n && d->nr == nr &&
           memcmp(d->ranks, ranks, (size_t)(n + nr) * sizeof *ranks) == 0;
}

/* Adds a definition for `comm` (lock held); fills the hot-path fields. */
static bool define(MPI_Comm comm, trc_comm_t *e)
{
    int inter = 0, n = 0, nr = 0, rank = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &rank);
    if (inter) PMPI_Comm_remote_size(comm, &nr);
    if (ncomms >= MAX_DEFS) return false;
    if (ncomms == capcomms) {
        int cap = capcomms ? 2 * capcomms : 64;
        comm_def_t *p = realloc(comms, (size_t)cap * sizeof *p);
        if (!p) return false;
        comms = p;
        capcomms = cap;
    }
    int *ranks = malloc((size_t)(n + nr) * sizeof *ranks);
    int *seq = malloc((size_t)(n > nr ? n : nr) * sizeof *seq);
    if (!ranks || !seq) {
        free(ranks);
        free(seq);
        return false;
    }
    for (int i = 0; i < (n > nr ? n : nr); i++) seq[i] = i;
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    PMPI_Group_translate_ranks(g, n, seq, world_group, ranks);
    PMPI_Group_free(&g);
    bool foreign = false;
    if (inter) {
        PMPI_Comm_remote_group(comm, &g);
        PMPI_Group_translate_ranks(g, nr, seq, world_group, ranks + n);
        PMPI_Group_free(&g);
        for (int i = 0; i < nr; i++) foreign |= ranks[n + i] == MPI_UNDEFINED;
    }
    if (foreign) {
        /* Another world's processes: the local group alone, as an
         * intracommunicator (its members create it in the same order). */
        inter = 0;
        nr = 0;
    } else if (inter) {
        if (ranks[n] < ranks[0]) { /* canonical order: lower world rank first */
            int *tmp = malloc((size_t)(n + nr) * sizeof *tmp);
            if (tmp) {
                memcpy(tmp, ranks + n, (size_t)nr * sizeof *tmp);
                memcpy(tmp + nr, ranks, (size_t)n * sizeof *tmp);
                free(ranks);
                ranks = tmp;
                int t = n;
                n = nr;
                nr = t;
            }
        }
    }
    free(seq);
    comm_def_t *d = &comms[ncomms];
    d->inter = inter;
    d->n = n;
    d->nr = nr;
    d->ranks = ranks;
    d->occ = 0;
    for (int i = 0; i < ncomms; i++)
        if (same_group(&comms[i], inter, n, nr, ranks)) d->occ++;
    if (comm == MPI_COMM_WORLD)
        strcpy(d->name, "MPI_COMM_WORLD");
    else if (comm == MPI_COMM_SELF)
        strcpy(d->name, "MPI_COMM_SELF");
    else
        snprintf(d->name, sizeof d->name, "%s %d", foreign ? "Intercomm to another world" : inter ? "Intercomm" : "Comm", ncomms);
    e->ref = (uint32_t)ncomms++;
    e->rank = rank;
    PMPI_Comm_size(comm, &e->size);
    e->rsize = 0;
    e->foreign = foreign;
    if (inter) PMPI_Comm_remote_size(comm, &e->rsize);
    return true;
}

/* Slot of `key`, or of the empty slot where it would go (lock held for
 * inserts; readers probe without it). */
static trc_comm_t *probe(uint64_t key)
{
    size_t i = hash(key) & (SLOTS - 1);
    for (size_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&slots[i].key, memory_order_acquire);
        if (k == key || k == 0) return &slots[i];
    }
    return NULL;
}

static trc_comm_t *insert(MPI_Comm comm)
{
    uint64_t key = handle_key(comm);
    trc_comm_t *e = probe(key);
    if (!e) return &no_comm;
    if (atomic_load(&e->key) == key && atomic_load(&e->live)) return e;
    trc_comm_t tmp = {0};
    if (!define(comm, &tmp)) return &no_comm;
    e->ref = tmp.ref;
    e->size = tmp.size;
    e->rank = tmp.rank;
    e->rsize = tmp.rsize;
    e->foreign = tmp.foreign;
    atomic_store(&e->live, 1);
    atomic_store_explicit(&e->key, key, memory_order_release);
    return e;
}

trc_comm_t *trc_comm_lookup_slow(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return &no_comm;
    uint64_t key = handle_key(comm);
    trc_comm_t *e = probe(key);
    if (MSC_LIKELY(e && atomic_load_explicit(&e->key, memory_order_relaxed) == key &&
                   atomic_load_explicit(&e->live, memory_order_relaxed)))
        return e;
    pthread_mutex_lock(&lock);
    e = insert(comm);
    pthread_mutex_unlock(&lock);
    return e;
}

void trc_comm_created(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return;
    pthread_mutex_lock(&lock);
    trc_comm_t *e = probe(handle_key(comm));
    if (e && atomic_load(&e->key) == handle_key(comm)) atomic_store(&e->live, 0);
    insert(comm);
    pthread_mutex_unlock(&lock);
}

void trc_comm_freed(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD) return;
    pthread_mutex_lock(&lock);
    trc_comm_t *e = probe(handle_key(comm));
    if (e && atomic_load(&e->key) == handle_key(comm)) atomic_store(&e->live, 0);
    pthread_mutex_unlock(&lock);
}

bool trc_comm_define_ranks(MPI_Comm handle, int n, const int *ranks, int me)
{
    bool ok = false;
    pthread_mutex_lock(&lock);
    uint64_t key = handle_key(handle);
    trc_comm_t *e = probe(key);
    if (e && atomic_load(&e->key) == 0 && ncomms < MAX_DEFS) {
        if (ncomms == capcomms) {
            int cap = capcomms ? 2 * capcomms : 64;
            comm_def_t *p = realloc(comms, (size_t)cap * sizeof *p);
            if (p) comms = p, capcomms = cap;
        }
        int *r = ncomms < capcomms ? malloc((size_t)n * sizeof *r) : NULL;
        if (r) {
            memcpy(r, ranks, (size_t)n * sizeof *r);
            comm_def_t *d = &comms[ncomms];
            *d = (comm_def_t){.inter = 0, .n = n, .nr = 0, .ranks = r, .occ = 0};
            for (int i = 0; i < ncomms; i++)
                if (same_group(&comms[i], 0, n, 0, r)) d->occ++;
            snprintf(d->name, sizeof d->name, "VT comm %d", ncomms);
            e->ref = (uint32_t)ncomms++;
            e->rank = me;
            e->size = n;
            e->rsize = 0;
            e->foreign = false;
            atomic_store(&e->live, 1);
            atomic_store_explicit(&e->key, key, memory_order_release);
            ok = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void trc_defs_init(void)
{
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    pthread_mutex_lock(&lock);
    define(MPI_COMM_WORLD, &trc_world); /* local reference 0 */
    atomic_store(&trc_world.live, 1);
    trc_comm_t *self = insert(MPI_COMM_SELF); /* local reference 1; never freed */
    if (self != &no_comm) trc_self = self;
    pthread_mutex_unlock(&lock);
}

static uint32_t named_def(named_def_t *tab, _Atomic int *count, int cap, const char *name,
                          const char *unit, int a, int b, const char *group)
{
    if (!msc_trace_active() || !name) return UINT32_MAX;
    if (!group) group = "";
    pthread_mutex_lock(&lock);
    int n = atomic_load(count);
    uint32_t ref = UINT32_MAX;
    for (int i = 0; i < n && ref == UINT32_MAX; i++)
        if (strcmp(tab[i].name, name) == 0 && tab[i].a == a && tab[i].b == b &&
            strcmp(tab[i].group, group) == 0)
            ref = (uint32_t)i;
    if (ref == UINT32_MAX && n < cap) {
        snprintf(tab[n].name, sizeof tab[n].name, "%s", name);
        snprintf(tab[n].unit, sizeof tab[n].unit, "%s", unit ? unit : "");
        snprintf(tab[n].group, sizeof tab[n].group, "%s", group);
        atomic_store(&tab[n].scl, 0);
        tab[n].a = a;
        tab[n].b = b;
        ref = (uint32_t)n;
        atomic_store(count, n + 1);
    }
    pthread_mutex_unlock(&lock);
    return ref;
}

uint32_t msc_trace_region_def(const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
    return msc_trace_region_def_in(name, NULL, role, paradigm);
}

uint32_t msc_trace_region_def_in(const char *name, const char *group, OTF2_RegionRole role,
                                 OTF2_Paradigm paradigm)
{
    uint32_t i = named_def(regions, &nregions, 1024, name, NULL, role, paradigm, group);
    return i == UINT32_MAX ? i : (uint32_t)MSC_FN_COUNT + i;
}

void msc_trace_region_scl(uint32_t region, uint32_t scl)
{
    if (region < (uint32_t)MSC_FN_COUNT || region == UINT32_MAX || scl == UINT32_MAX) return;
    region -= (uint32_t)MSC_FN_COUNT;
    if (region >= (uint32_t)atomic_load(&nregions)) return;
    uint32_t none = 0;
    atomic_compare_exchange_strong(&regions[region].scl, &none, scl + 1);
}

uint32_t msc_trace_scl_def(const char *file, int line)
{
    return named_def(scls, &nscls, TRC_SCL_SITES, file, NULL, line, 0, NULL);
}

/* MPI call sites: slot i holds a return address (0: free); its local
 * reference is TRC_SCL_SITES + i. Lookups and inserts take no lock; an
 * address probes at most SITE_PROBES slots, so the table may refuse one
 * before it is quite full. */
enum { SITE_PROBES = 128 };
static _Atomic uintptr_t sites[TRC_SITES];
static _Atomic uint64_t sites_dropped;

uint32_t trc_site_scl(const void *site)
{
    uintptr_t a = (uintptr_t)site;
    if (!a) return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
    size_t i = hash((uint64_t)a) & (TRC_SITES - 1);
    for (int n = 0; n < SITE_PROBES; n++, i = (i + 1) & (TRC_SITES - 1)) {
        uintptr_t k = atomic_load_explicit(&sites[i], memory_order_relaxed);
        if (k == 0 && atomic_compare_exchange_strong(&sites[i], &k, a)) k = a;
        if (k == a) return (uint32_t)(TRC_SCL_SITES + i);
    }
    atomic_fetch_add_explicit(&sites_dropped, 1, memory_order_relaxed);
    return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
}

/* Names given to locations (VT_registernamed): the last one per location. */
static struct {
    uint64_t loc;
    char name[128];
} locnames[256];
static int nlocnames;

void trc_loc_name(uint64_t loc, const char *name)
{
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < nlocnames && locnames[i].loc != loc) i++;
    if (i < (int)(sizeof locnames / sizeof *locnames)) {
        locnames[i].loc = loc;
        snprintf(locnames[i].name, sizeof locnames[i].name, "%s", name);
        if (i == nlocnames) nlocnames++;
    }
    pthread_mutex_unlock(&lock);
}

uint32_t trc_comment_def(const char *text)
{
    uint32_t ref = UINT32_MAX;
    pthread_mutex_lock(&lock);
    for (int i = ncomments - 1; i >= 0 && ref == UINT32_MAX; i--)
        if (strcmp(comments[i], text) == 0) ref = (uint32_t)i;
    if (ref == UINT32_MAX && ncomments < MAX_DEFS) {
        if (ncomments == capcomments) {
            int cap = capcomments ? 2 * capcomments : 64;
            char **p = realloc(comments, (size_t)cap * sizeof *p);
            if (p) comments = p, capcomments = cap;
        }
        char *c = ncomments < capcomments ? strdup(text) : NULL;
        if (c) {
            comments[ncomments] = c;
            ref = (uint32_t)ncomments++;
        }
    }
    pthread_mutex_unlock(&lock);
    return ref;
}

uint32_t msc_trace_metric_def(const char *name, const char *unit, OTF2_Type type,
                              OTF2_MetricMode mode)
{
    return named_def(metrics, &nmetrics, 256, name, unit, type, mode, NULL);
}

OTF2_Type trc_metric_type(uint32_t metric)
{
    return metric < (uint32_t)atomic_load(&nmetrics) ? (OTF2_Type)metrics[metric].a
                                                      : OTF2_TYPE_UINT64;
}

static OTF2_RegionRole fn_role(int fn)
{
    const char *name = msc_fn_name[fn];
    switch (msc_fn_kind[fn]) {
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
        if (strstr(name, "arrier")) return OTF2_REGION_ROLE_BARRIER;
        if (strstr(name, "Bcast") || strstr(name, "Scatter")) return OTF2_REGION_ROLE_COLL_ONE2ALL;
        if (strstr(name, "Gather") && !strstr(name, "llgather")) return OTF2_REGION_ROLE_COLL_ALL2ONE;
        if (strncmp(name, "MPI_Reduce", 10) == 0 && !strstr(name, "scatter"))
            return OTF2_REGION_ROLE_COLL_ALL2ONE;
        if (strncmp(name, "MPI_Ireduce", 11) == 0 && !strstr(name, "scatter"))
            return OTF2_REGION_ROLE_COLL_ALL2ONE;
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case MSC_KIND_SEND: case MSC_KIND_RECV: case MSC_KIND_SENDRECV: case MSC_KIND_ISEND:
    case MSC_KIND_IRECV: case MSC_KIND_SEND_INIT: case MSC_KIND_RECV_INIT: case MSC_KIND_PROBE:
    case MSC_KIND_ISENDRECV:
    case MSC_KIND_MRECV: case MSC_KIND_IMRECV: case MSC_KIND_WAIT: case MSC_KIND_TEST:
    case MSC_KIND_WAITANY: case MSC_KIND_TESTANY: case MSC_KIND_WAITALL: case MSC_KIND_TESTALL:
    case MSC_KIND_WAITSOME: case MSC_KIND_TESTSOME: case MSC_KIND_START: case MSC_KIND_STARTALL:
    case MSC_KIND_REQUEST_FREE: case MSC_KIND_CANCEL:
        return OTF2_REGION_ROLE_POINT2POINT;
    default:
        if (strncmp(name, "MPI_File_", 9) == 0) return OTF2_REGION_ROLE_FILE_IO;
        if (strncmp(name, "MPI_Win_", 8) == 0 || strcmp(name, "MPI_Put") == 0 ||
            strcmp(name, "MPI_Get") == 0 || strstr(name, "ccumulate") ||
            strcmp(name, "MPI_Rput") == 0 || strcmp(name, "MPI_Rget") == 0 ||
            strcmp(name, "MPI_Compare_and_swap") == 0)
            return OTF2_REGION_ROLE_RMA;
        return OTF2_REGION_ROLE_FUNCTION;
    }
}


static void write_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint64_t *map, size_t n)
{
    if (!n) return;
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(n, map, true);
    if (!m) return;
    OTF2_DefWriter_WriteMappingTable(dw, type, m);
    OTF2_IdMap_Free(m);
}

/* --- Finalize: the local definitions as a set (defset.h), unified along a
 * binomial tree (unify.c); rank 0 writes the global definitions. ---------- */

/* Adds the record in `key` and `pay` to `s` (both buffers emptied). */
static uint32_t add(tu_set_t *s, int kind, tu_buf_t *key, tu_buf_t *pay)
{
    uint32_t i = UINT32_MAX;
    if (key->oom || pay->oom) tu_break(s);
    else i = tu_add(s, kind, key->w, key->n, pay->w, pay->n);
    key->n = pay->n = 0;
    key->oom = pay->oom = false;
    return i;
}

/* A communicator's key: its group (members that are consecutive world
 * ranks, as MPI_COMM_WORLD and the blocks of a split are, go as the first
 * one: a word instead of one per member) and its occurrence. */
static void put_comm(tu_buf_t *k, const comm_def_t *d)
{
    tu_put(k, d->inter), tu_put(k, d->n), tu_put(k, d->nr), tu_put(k, d->occ);
    bool run = true;
    for (int i = 1; run && i < d->n + d->nr; i++) run = d->ranks[i] == d->ranks[0] + i;
    tu_put(k, run);
    if (run) tu_put(k, d->n + d->nr ? d->ranks[0] : 0);
    else for (int i = 0; i < d->n + d->nr; i++) tu_put(k, d->ranks[i]);
}

/* This rank's call sites, resolved now, as (line, file) pairs in `b`; their
 * slots in that order go to *slots. An address without a line table is
 * "<object>+0x<offset> (<function>)" at line 0 (the offset is the same on
 * every rank; the function when the symbol table names it); one that no
 * object maps is "?". */
static int resolve_sites(tu_buf_t *b, uint32_t **slots)
{
    int n = 0;
    uint32_t *slot = malloc(TRC_SITES * sizeof *slot);
    for (uint32_t i = 0; slot && i < TRC_SITES; i++)
        if (atomic_load_explicit(&sites[i], memory_order_relaxed)) slot[n++] = i;
    msc_callsite_resolver_t *res = n ? msc_callsite_open() : NULL;
    for (int k = 0; k < n; k++) {
        msc_frame_t fr;
        char file[1100];
        bool mapped = msc_callsite_resolve(res, (const void *)sites[slot[k]], &fr);
        bool line = fr.file && fr.line > 0;
        if (line) snprintf(file, sizeof file, "%s", fr.file);
        else if (mapped && fr.symbol)
            snprintf(file, sizeof file, "%s+0x%lx (%s)", fr.module, (unsigned long)fr.offset,
                     fr.symbol);
        else if (mapped) snprintf(file, sizeof file, "%s+0x%lx", fr.module, (unsigned long)fr.offset);
        else snprintf(file, sizeof file, "?");
        /* Definitions keep 127 bytes of a name: a long path keeps its end,
         * the file's own name. */
        size_t len = strlen(file), keep = sizeof scls[0].name - 4;
        if (len > keep + 3) memcpy(file + len - keep - 3, "...", 3);
        tu_put(b, line ? fr.line : 0);
        tu_put_str(b, len > keep + 3 ? file + len - keep - 3 : file, sizeof scls[0].name - 1);
    }
    msc_callsite_close(res);
    *slots = slot;
    return n;
}

/* Global strings, numbered in the order written. */
typedef struct {
    OTF2_GlobalDefWriter *gw;
    uint32_t n;
} strings_t;

static OTF2_StringRef str(strings_t *g, const char *s)
{
    OTF2_StringRef ref = g->n++;
    OTF2_GlobalDefWriter_WriteString(g->gw, ref, s);
    return ref;
}

typedef struct {
    uint64_t loc;
    uint32_t i;
} locname_t;

static int locname_cmp(const void *a, const void *b)
{
    const locname_t *x = a, *y = b;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Rank 0: the global definitions from the unified set `s`, whose records
 * are in order of first appearance in rank order; a record's index is its
 * global reference (comment texts are the first strings). */
static void write_global(OTF2_GlobalDefWriter *gw, const tu_set_t *s, const tu_totals_t *t,
                         int size)
{
    strings_t g = {gw, 0};
    char text[1024];
    const int64_t *p;
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, (uint64_t)t->tmin,
                                              (uint64_t)(t->tmax - t->tmin), OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < tu_count(s, TU_COMMENT); i++) {
        p = tu_key(s, TU_COMMENT, i, NULL);
        tu_get_str(&p, text, sizeof text);
        str(&g, text);
    }
    OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, str(&g, "MPI"),
                                       OTF2_PARADIGM_CLASS_PROCESS);
    OTF2_StringRef empty = str(&g, "");
    /* System tree: the machine, one node per host (class "node", named by
     * the host name, in the order of the first rank on it), each rank's
     * location group under its node, so that Vampir and Scalasca group
     * ranks by node. The ranks' records are in rank order, the hosts in
     * order of their first rank. */
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, str(&g, "machine"), str(&g, "machine"),
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    const int64_t **rk = malloc((size_t)size * sizeof *rk);
    if (!rk) return;
    uint32_t nnodes = 0;
    for (int r = 0; r < size; r++) {
        rk[r] = tu_key(s, TU_RANK, (uint32_t)r, NULL);
        uint32_t host = (uint32_t)rk[r][1];
        if (host == nnodes) {
            p = tu_key(s, TU_HOST, host, NULL);
            tu_get_str(&p, text, sizeof text);
            OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, ++nnodes, str(&g, text), str(&g, "node"), 0);
        }
    }
    for (int r = 0; r < size; r++) {
        snprintf(text, sizeof text, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)r, str(&g, text),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                (OTF2_SystemTreeNodeRef)(rk[r][1] + 1),
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    }
    /* Names given to locations (VT_registernamed): the last one given wins. */
    uint32_t nln = tu_count(s, TU_LOCNAME);
    locname_t *ln = malloc(((size_t)nln + 1) * sizeof *ln);
    for (uint32_t i = 0; ln && i < nln; i++)
        ln[i] = (locname_t){(uint64_t)tu_key(s, TU_LOCNAME, i, NULL)[0], i};
    if (ln) qsort(ln, nln, sizeof *ln, locname_cmp);
    uint64_t *members = malloc((size_t)size * sizeof *members);
    for (int r = 0; members && r < size; r++) {
        int64_t nlocs = rk[r][2];
        const int64_t *l = rk[r] + 3;
        members[r] = nlocs ? (uint64_t)l[0] : (uint64_t)r;
        for (int64_t i = 0; i < nlocs; i++) {
            uint64_t id = (uint64_t)l[2 * i];
            if ((id >> 32) == TRC_LOC_FOREIGN)
                snprintf(text, sizeof text, "VT events logged by other ranks");
            else if (id >> 32)
                snprintf(text, sizeof text, "Thread %u", (unsigned)(id >> 32));
            else
                snprintf(text, sizeof text, "Master thread");
            size_t lo = 0, hi = ln ? nln : 0; /* the last entry with this id */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ln[mid].loc <= id) lo = mid + 1;
                else hi = mid;
            }
            if (lo > 0 && ln[lo - 1].loc == id) {
                p = tu_key(s, TU_LOCNAME, ln[lo - 1].i, NULL) + 1;
                tu_get_str(&p, text, 128);
            }
            OTF2_GlobalDefWriter_WriteLocation(gw, id, str(&g, text), OTF2_LOCATION_TYPE_CPU_THREAD,
                                               (uint64_t)l[2 * i + 1], (OTF2_LocationGroupRef)r);
        }
    }
    free(ln);
    for (int fn = 0; fn < MSC_FN_COUNT; fn++) {
        OTF2_StringRef sr = str(&g, msc_fn_name[fn]);
        OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)fn, sr, sr, empty, fn_role(fn),
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    uint32_t nr = tu_count(s, TU_REGION);
    char (*groups)[64] = calloc((size_t)nr + 1, sizeof *groups);
    for (uint32_t i = 0; groups && i < nr; i++) {
        char name[128], file[128];
        p = tu_key(s, TU_REGION, i, NULL);
        int role = (int)tu_get(&p), paradigm = (int)tu_get(&p);
        tu_get_str(&p, name, sizeof name);
        tu_get_str(&p, groups[i], sizeof groups[i]);
        p = tu_payload(s, TU_REGION, i, NULL);
        tu_get_str(&p, file, sizeof file);
        int line = (int)tu_get(&p);
        OTF2_StringRef sr = str(&g, name), canon = sr;
        if (groups[i][0]) {
            char full[200];
            snprintf(full, sizeof full, "%s:%s", groups[i], name);
            canon = str(&g, full);
        }
        OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)(MSC_FN_COUNT + i), sr, canon, empty,
                                         (OTF2_RegionRole)role, (OTF2_Paradigm)paradigm,
                                         OTF2_REGION_FLAG_NONE, file[0] ? str(&g, file) : empty,
                                         (uint32_t)line, (uint32_t)line);
    }
    OTF2_GlobalDefWriter_WriteAttribute(gw, TRC_ATTR_SCL, str(&g, "SOURCE_CODE_LOCATION"),
                                        str(&g, "where the event was logged"),
                                        OTF2_TYPE_SOURCE_CODE_LOCATION);
    OTF2_GlobalDefWriter_WriteParameter(gw, TRC_PARAM_COMMENT, str(&g, "comment"),
                                        OTF2_PARAMETER_TYPE_STRING);
    OTF2_GlobalDefWriter_WriteParameter(gw, TRC_PARAM_PARTITION, str(&g, "MPI partition"),
                                        OTF2_PARAMETER_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteParameter(gw, TRC_PARAM_PARTITION_BYTES,
                                        str(&g, "MPI partition bytes"), OTF2_PARAMETER_TYPE_UINT64);
    for (uint32_t i = 0; i < tu_count(s, TU_SCL); i++) {
        p = tu_key(s, TU_SCL, i, NULL);
        uint32_t line = (uint32_t)tu_get(&p);
        tu_get_str(&p, text, 128);
        OTF2_GlobalDefWriter_WriteSourceCodeLocation(gw, (OTF2_SourceCodeLocationRef)i,
                                                     str(&g, text), line);
    }
    OTF2_GroupRef group = 0;
    if (members)
        OTF2_GlobalDefWriter_WriteGroup(gw, group++, str(&g, "MPI_COMM_WORLD locations"),
                                        OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)size, members);
    free(members);
    free(rk);
    for (uint32_t i = 0; i < tu_count(s, TU_COMM); i++) {
        char name[32];
        p = tu_key(s, TU_COMM, i, NULL);
        int inter = (int)tu_get(&p), n = (int)tu_get(&p), nr2 = (int)tu_get(&p);
        tu_get(&p); /* occurrence */
        bool run = tu_get(&p) != 0;
        uint64_t *m = malloc((size_t)(n + nr2 + 1) * sizeof *m);
        if (!m) continue;
        int64_t first = run ? tu_get(&p) : 0;
        for (int k = 0; k < n + nr2; k++) m[k] = (uint64_t)(run ? first + k : tu_get(&p));
        p = tu_payload(s, TU_COMM, i, NULL);
        tu_get_str(&p, name, sizeof name);
        OTF2_StringRef sn = str(&g, name);
        OTF2_GroupRef ga = group++;
        OTF2_GlobalDefWriter_WriteGroup(gw, ga, sn, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)n, m);
        if (inter) {
            OTF2_GroupRef gb = group++;
            OTF2_GlobalDefWriter_WriteGroup(gw, gb, sn, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            (uint32_t)nr2, m + n);
            OTF2_GlobalDefWriter_WriteInterComm(gw, (OTF2_CommRef)i, sn, ga, gb,
                                                OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        } else {
            OTF2_GlobalDefWriter_WriteComm(gw, (OTF2_CommRef)i, sn, ga, OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE);
        }
        free(m);
    }
    uint32_t nf = tu_count(s, TU_FILE);
    if (nf) {
        /* MPI-IO: a parallel I/O paradigm; its version property is the MPI
         * standard the library implements. */
        char ver[16];
        snprintf(ver, sizeof ver, "%d.%d", MPI_VERSION, MPI_SUBVERSION);
        OTF2_IoParadigmProperty prop = OTF2_IO_PARADIGM_PROPERTY_VERSION;
        OTF2_Type type = OTF2_TYPE_STRING;
        OTF2_AttributeValue val;
        val.stringRef = str(&g, ver);
        OTF2_StringRef mpiio = str(&g, "MPI-IO");
        OTF2_GlobalDefWriter_WriteIoParadigm(gw, 0, mpiio, mpiio, OTF2_IO_PARADIGM_CLASS_PARALLEL,
                                             OTF2_IO_PARADIGM_FLAG_NONE, 1, &prop, &type, &val);
    }
    for (uint32_t i = 0; i < nf; i++) {
        p = tu_key(s, TU_FILE, i, NULL);
        tu_get_str(&p, text, 256);
        OTF2_GlobalDefWriter_WriteIoRegularFile(gw, (OTF2_IoFileRef)i, str(&g, text), 0);
    }
    for (uint32_t i = 0; i < tu_count(s, TU_HANDLE); i++) {
        const int64_t *h = tu_key(s, TU_HANDLE, i, NULL);
        p = tu_key(s, TU_FILE, (uint32_t)h[0], NULL);
        tu_get_str(&p, text, 256);
        OTF2_GlobalDefWriter_WriteIoHandle(gw, (OTF2_IoHandleRef)i, str(&g, text),
                                           (OTF2_IoFileRef)h[0], 0, OTF2_IO_HANDLE_FLAG_NONE,
                                           (OTF2_CommRef)h[1], OTF2_UNDEFINED_IO_HANDLE);
    }
    for (uint32_t i = 0; i < tu_count(s, TU_WIN); i++) {
        const int64_t *w = tu_key(s, TU_WIN, i, NULL);
        snprintf(text, sizeof text, "Window %u", i);
        OTF2_GlobalDefWriter_WriteRmaWin(gw, (OTF2_RmaWinRef)i, str(&g, text), (OTF2_CommRef)w[0],
                                         OTF2_RMA_WIN_FLAG_NONE);
    }
    /* One REGIONS group per region group (VT_ class), in order of first use. */
    uint64_t *rm = malloc(((size_t)nr + 1) * sizeof *rm);
    for (uint32_t i = 0; rm && groups && i < nr; i++) {
        if (!groups[i][0]) continue;
        bool first = true;
        for (uint32_t j = 0; j < i && first; j++) first = strcmp(groups[j], groups[i]) != 0;
        if (!first) continue;
        uint32_t n = 0;
        for (uint32_t j = i; j < nr; j++)
            if (strcmp(groups[j], groups[i]) == 0) rm[n++] = (uint64_t)(MSC_FN_COUNT + j);
        OTF2_GlobalDefWriter_WriteGroup(gw, group++, str(&g, groups[i]), OTF2_GROUP_TYPE_REGIONS,
                                        OTF2_PARADIGM_USER, OTF2_GROUP_FLAG_NONE, n, rm);
    }
    free(rm);
    free(groups);
    for (uint32_t i = 0; i < tu_count(s, TU_METRIC); i++) {
        char name[128], unit[32];
        p = tu_key(s, TU_METRIC, i, NULL);
        int type = (int)tu_get(&p), mode = (int)tu_get(&p);
        tu_get_str(&p, name, sizeof name);
        p = tu_payload(s, TU_METRIC, i, NULL);
        tu_get_str(&p, unit, sizeof unit);
        OTF2_MetricMemberRef mm = (OTF2_MetricMemberRef)i;
        OTF2_GlobalDefWriter_WriteMetricMember(gw, mm, str(&g, name), empty, OTF2_METRIC_TYPE_USER,
                                               (OTF2_MetricMode)mode, (OTF2_Type)type,
                                               OTF2_BASE_DECIMAL, 0, str(&g, unit));
        OTF2_GlobalDefWriter_WriteMetricClass(gw, (OTF2_MetricRef)i, 1, &mm,
                                              OTF2_METRIC_SYNCHRONOUS_STRICT,
                                              OTF2_RECORDER_KIND_CPU);
    }
}

void trc_defs_write(OTF2_Archive *archive, const trc_loc_t *locs, int nlocs,
                    const int64_t sync_time[2], const int64_t sync_offset[2],
                    const double sync_dev[2], bool complete)
{
    int rank = msc_g.world_rank, size = msc_g.world_size;
    tu_set_t *s = tu_set_new();
    tu_totals_t *tot = tu_totals(s);
    tot->tmin = sync_time[0] + sync_offset[0]; /* first and last corrected times */
    tot->tmax = sync_time[1] + sync_offset[1];
    /* The worst error bound of any rank's clock synchronization (half its
     * shortest round trip, ns): readers comparing times across ranks must
     * allow this much. */
    tot->err = sync_dev[0] > sync_dev[1] ? sync_dev[0] : sync_dev[1];
    tot->dropped = atomic_load(&sites_dropped);
    uint32_t *site_slot = NULL;
    tu_buf_t sb = {0}, k = {0}, v = {0};
    int nsite = resolve_sites(&sb, &site_slot);

    /* The local definitions as records; lm[kind][i]: the record of local
     * reference i in this rank's set. */
    pthread_mutex_lock(&lock);
    int nc = ncomms, nr = atomic_load(&nregions), nm = atomic_load(&nmetrics);
    int ns = atomic_load(&nscls), nk = ncomments, nw = nwins, nf = nfiles, nh = nfhs;
    int nsl = ns + nsite;
    int mine = nc + nr + nm + nsl + nk + nw + nf + nh;
    uint32_t *lm = calloc((size_t)mine + 1, sizeof *lm);
    if (!lm) tu_break(s);
    uint32_t *lc = lm, *lr = lc + nc, *lme = lr + nr, *ls = lme + nm, *lk = ls + nsl, *lw = lk + nk,
             *lf = lw + nw, *lh = lf + nf;
    for (int i = 0; lm && i < nc; i++) {
        put_comm(&k, &comms[i]);
        tu_put_str(&v, comms[i].name, sizeof comms[i].name);
        lc[i] = add(s, TU_COMM, &k, &v);
    }
    for (int i = 0; lm && i < nr; i++) {
        tu_put(&k, regions[i].a), tu_put(&k, regions[i].b);
        tu_put_str(&k, regions[i].name, 127), tu_put_str(&k, regions[i].group, 63);
        uint32_t sc = atomic_load(&regions[i].scl);
        tu_put_str(&v, sc ? scls[sc - 1].name : "", 127);
        tu_put(&v, sc ? scls[sc - 1].a : 0);
        lr[i] = add(s, TU_REGION, &k, &v);
    }
    for (int i = 0; lm && i < nm; i++) {
        tu_put(&k, metrics[i].a), tu_put(&k, metrics[i].b), tu_put_str(&k, metrics[i].name, 127);
        tu_put_str(&v, metrics[i].unit, 31);
        lme[i] = add(s, TU_METRIC, &k, &v);
    }
    for (int i = 0; lm && i < ns; i++) { /* the VT_ API's source code locations, then the call sites */
        tu_put(&k, scls[i].a), tu_put_str(&k, scls[i].name, 127);
        ls[i] = add(s, TU_SCL, &k, &v);
    }
    const int64_t *p = sb.w;
    for (int i = 0; lm && !sb.oom && i < nsite; i++) {
        int64_t line = tu_get(&p), len = p[0];
        tu_put(&k, line);
        for (int64_t w = 0; w <= (len + 7) / 8; w++) tu_put(&k, tu_get(&p));
        ls[ns + i] = add(s, TU_SCL, &k, &v);
    }
    if (sb.oom) tu_break(s);
    free(sb.w);
    for (int i = 0; lm && i < nk; i++) {
        tu_put_str(&k, comments[i], 1023);
        lk[i] = add(s, TU_COMMENT, &k, &v);
    }
    for (int i = 0; lm && i < nf; i++) {
        tu_put_str(&k, files[i].name, 255);
        lf[i] = add(s, TU_FILE, &k, &v);
    }
    /* (A window or handle over a communicator that had no room in the
     * table has no definition: UINT32_MAX, mapped to undefined.) */
    for (int i = 0; lm && i < nw; i++) {
        lw[i] = UINT32_MAX;
        if (wins[i].comm >= (uint32_t)nc) continue;
        tu_put(&k, lc[wins[i].comm]), tu_put(&k, wins[i].occ);
        lw[i] = add(s, TU_WIN, &k, &v);
    }
    for (int i = 0; lm && i < nh; i++) {
        lh[i] = UINT32_MAX;
        if (fhs[i].comm >= (uint32_t)nc || fhs[i].file >= (uint32_t)nf) continue;
        tu_put(&k, lf[fhs[i].file]), tu_put(&k, lc[fhs[i].comm]);
        lh[i] = add(s, TU_HANDLE, &k, &v);
    }
    for (int i = 0; i < nlocnames; i++) {
        tu_put(&k, (int64_t)locnames[i].loc), tu_put_str(&k, locnames[i].name, 127);
        add(s, TU_LOCNAME, &k, &v);
    }
    pthread_mutex_unlock(&lock);
    /* This rank: its host (for the system tree's nodes) and its locations. */
    char host[TRC_HOST_LEN] = {0};
    gethostname(host, sizeof host - 1);
    tu_put_str(&k, host, TRC_HOST_LEN - 1);
    uint32_t hi = add(s, TU_HOST, &k, &v);
    tu_put(&k, rank), tu_put(&k, hi), tu_put(&k, nlocs);
    for (int i = 0; i < nlocs; i++) tu_put(&k, (int64_t)locs[i].id), tu_put(&k, (int64_t)locs[i].events);
    add(s, TU_RANK, &k, &v);
    free(k.w), free(v.w);

    uint32_t *block = NULL, *g[TU_KINDS];
    trc_unify_stats_t st;
    bool ok = trc_unify(s, &block, g, &st) && lm;
    if (rank == 0) {
        if (!ok || tu_count(s, TU_RANK) != (uint32_t)size) {
            ok = false;
            msc_warn("trace: out of memory while unifying the definitions; the archive has no "
                     "global definitions and cannot be read");
        }
        if (tot->dropped)
            msc_warn("trace: the table of %d call sites per rank was full for %llu MPI calls, whose "
                     "Enter events have no source code location", TRC_SITES,
                     (unsigned long long)tot->dropped);
    }

    /* Local references to global ones: comms, regions (identity for MPI
     * functions), metrics, source code locations (the VT_ API's references,
     * then a call site's TRC_SCL_SITES + slot; unused references: identity),
     * strings, windows, files, handles. */
    size_t nsm = nsite ? TRC_SCL_SITES + (size_t)site_slot[nsite - 1] + 1 : (size_t)ns;
    uint64_t *map = ok ? malloc(((size_t)mine + MSC_FN_COUNT + nsm + 1) * sizeof *map) : NULL;
    uint64_t *mc = map, *mr = mc + nc, *mme = mr + MSC_FN_COUNT + nr, *msl = mme + nm,
             *mk = msl + nsm, *mw = mk + nk, *mf = mw + nw, *mh = mf + nf;
    for (int i = 0; map && i < nc; i++) mc[i] = g[TU_COMM][lc[i]];
    for (int i = 0; map && i < MSC_FN_COUNT; i++) mr[i] = (uint64_t)i;
    for (int i = 0; map && i < nr; i++) mr[MSC_FN_COUNT + i] = MSC_FN_COUNT + g[TU_REGION][lr[i]];
    for (int i = 0; map && i < nm; i++) mme[i] = g[TU_METRIC][lme[i]];
    for (size_t i = 0; map && i < nsm; i++) msl[i] = i;
    for (int i = 0; map && i < ns; i++) msl[i] = g[TU_SCL][ls[i]];
    for (int i = 0; map && i < nsite; i++) msl[TRC_SCL_SITES + site_slot[i]] = g[TU_SCL][ls[ns + i]];
    for (int i = 0; map && i < nk; i++) mk[i] = g[TU_COMMENT][lk[i]]; /* comments: the first strings */
    for (int i = 0; map && i < nw; i++)
        mw[i] = lw[i] == UINT32_MAX ? OTF2_UNDEFINED_RMA_WIN : g[TU_WIN][lw[i]];
    for (int i = 0; map && i < nf; i++) mf[i] = g[TU_FILE][lf[i]];
    for (int i = 0; map && i < nh; i++)
        mh[i] = lh[i] == UINT32_MAX ? OTF2_UNDEFINED_IO_HANDLE : g[TU_HANDLE][lh[i]];
    free(block), free(lm), free(site_slot);

    /* Rank 0 writes the global definitions while the maps travel down. */
    if (rank == 0) {
        OTF2_Archive_SetCreator(archive, "mpiscope " MSC_MPI_NAME);
        char err_text[32];
        snprintf(err_text, sizeof err_text, "%.0f", tot->err);
        OTF2_Archive_SetProperty(archive, "MPISCOPE::CLOCK_SYNC_ERROR_NS", err_text, true);
        if (!complete) {
            OTF2_Archive_SetProperty(archive, "MPISCOPE::TRACE_COMPLETE", "false", true);
            if (incomplete_reason[0])
                OTF2_Archive_SetProperty(archive, "MPISCOPE::INCOMPLETE_REASON",
                                         incomplete_reason, true);
        } else
            OTF2_Archive_SetProperty(archive, "MPISCOPE::TRACE_COMPLETE", "true", true);
        OTF2_GlobalDefWriter *gw = ok ? OTF2_Archive_GetGlobalDefWriter(archive) : NULL;
        if (gw) {
            write_global(gw, s, tot, size);
            OTF2_Archive_CloseGlobalDefWriter(archive, gw);
        }
    }
    tu_set_free(s);

    OTF2_Archive_OpenDefFiles(archive);
    for (int i = 0; i < nlocs; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, locs[i].id);
        if (!dw) continue;
        if (map) {
            write_map(dw, OTF2_MAPPING_COMM, mc, (size_t)nc);
            if (nr) write_map(dw, OTF2_MAPPING_REGION, mr, (size_t)MSC_FN_COUNT + (size_t)nr);
            write_map(dw, OTF2_MAPPING_METRIC, mme, (size_t)nm);
            write_map(dw, OTF2_MAPPING_SOURCE_CODE_LOCATION, msl, nsm);
            write_map(dw, OTF2_MAPPING_STRING, mk, (size_t)nk);
            write_map(dw, OTF2_MAPPING_RMA_WIN, mw, (size_t)nw);
            write_map(dw, OTF2_MAPPING_IO_FILE, mf, (size_t)nf);
            write_map(dw, OTF2_MAPPING_IO_HANDLE, mh, (size_t)nh);
        }
        for (int j = 0; j < 2; j++)
            OTF2_DefWriter_WriteClockOffset(dw, (uint64_t)sync_time[j], sync_offset[j], sync_dev[j]);
        OTF2_Archive_CloseDefWriter(archive, dw);
    }
    OTF2_Archive_CloseDefFiles(archive);
    free(map);
}
