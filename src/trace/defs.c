/* Local definitions of the trace and their unification at MPI_Finalize.
 *
 * Events carry local references: a communicator's reference is the order in
 * which this rank first met it, a user region's or metric's the order of its
 * definition. Nothing is exchanged while the program runs. At finalize every
 * rank sends its definitions to rank 0 (PMPI on the private communicator),
 * which merges them, writes the global definitions and sends each rank the
 * table from its local references to global ones; each rank writes those as
 * OTF2 mapping tables, which readers apply to its events.
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
    char file[128];      /* region, merged on rank 0: source file ("" none) */
    int line;            /* region, merged on rank 0: line */
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
    if (inter) {
        PMPI_Comm_remote_group(comm, &g);
        PMPI_Group_translate_ranks(g, nr, seq, world_group, ranks + n);
        PMPI_Group_free(&g);
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
        snprintf(d->name, sizeof d->name, "%s %d", inter ? "Intercomm" : "Comm", ncomms);
    e->ref = (uint32_t)ncomms++;
    e->rank = rank;
    PMPI_Comm_size(comm, &e->size);
    e->rsize = 0;
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

/* --- Serialization: int64 words; a string is its length and its bytes. -- */

typedef struct {
    int64_t *w;
    size_t n, cap;
} buf_t;

static void put(buf_t *b, int64_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        int64_t *p = realloc(b->w, cap * sizeof *p);
        if (!p) return;
        b->w = p;
        b->cap = cap;
    }
    b->w[b->n++] = v;
}

static void put_str(buf_t *b, const char *s)
{
    size_t len = strlen(s);
    put(b, (int64_t)len);
    for (size_t i = 0; i < len; i += 8) {
        int64_t v = 0;
        memcpy(&v, s + i, len - i < 8 ? len - i : 8);
        put(b, v);
    }
}

static int64_t get(const int64_t **p)
{
    return *(*p)++;
}

static void get_str(const int64_t **p, char *out, size_t cap)
{
    size_t len = (size_t)get(p);
    char tmp[1024] = {0};
    for (size_t i = 0; i < len; i += 8) {
        int64_t v = get(p);
        if (i < sizeof tmp - 8) memcpy(tmp + i, &v, 8);
    }
    if (len >= sizeof tmp) len = sizeof tmp - 1;
    tmp[len] = 0;
    snprintf(out, cap, "%s", tmp);
}

/* --- Rank 0: the merged definitions. ----------------------------------- */

typedef struct {
    comm_def_t *c;       /* unique communicators (pointing into the received words' copies) */
    int nc, capc;
    named_def_t *r, *m, *s;
    int nr, nm, ns;
    char **k;            /* comment texts, unique */
    int nk;
    int64_t *w;          /* windows: (global communicator, occurrence) pairs, unique */
    int nw;
    char (*f)[256];      /* file names, unique */
    int nf;
    int64_t *h;          /* handles: (global file, global communicator) pairs */
    int nh;
    struct { int64_t loc; char name[128]; } *ln; /* location names (VT_registernamed) */
    int nln;
    uint32_t nstrings;
    OTF2_GlobalDefWriter *gw;
    const char *hosts;        /* every rank's host name, TRC_HOST_LEN bytes each (rank 0) */
} merged_t;

static OTF2_StringRef str(merged_t *mg, const char *s)
{
    OTF2_StringRef ref = mg->nstrings++;
    OTF2_GlobalDefWriter_WriteString(mg->gw, ref, s);
    return ref;
}

static int find_comm(merged_t *mg, const comm_def_t *d)
{
    for (int i = 0; i < mg->nc; i++)
        if (mg->c[i].occ == d->occ && same_group(&mg->c[i], d->inter, d->n, d->nr, d->ranks))
            return i;
    if (mg->nc == mg->capc) {
        mg->capc = mg->capc ? 2 * mg->capc : 64;
        mg->c = realloc(mg->c, (size_t)mg->capc * sizeof *mg->c);
    }
    comm_def_t *n = &mg->c[mg->nc];
    *n = *d;
    n->ranks = malloc((size_t)(d->n + d->nr) * sizeof *n->ranks);
    memcpy(n->ranks, d->ranks, (size_t)(d->n + d->nr) * sizeof *n->ranks);
    return mg->nc++;
}

static int find_named(named_def_t **tab, int *n, const named_def_t *d)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*tab)[i].name, d->name) == 0 && (*tab)[i].a == d->a && (*tab)[i].b == d->b &&
            strcmp((*tab)[i].group, d->group) == 0)
            return i;
    *tab = realloc(*tab, (size_t)(*n + 1) * sizeof **tab);
    (*tab)[*n] = *d;
    return (*n)++;
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

static void write_global(merged_t *mg, const int64_t *all, const int *counts, const int *displs,
                         int size, int64_t gmin, int64_t gmax, bool complete)
{
    OTF2_GlobalDefWriter *gw = mg->gw;
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, (uint64_t)gmin,
                                              (uint64_t)(gmax - gmin), OTF2_UNDEFINED_TIMESTAMP);
    /* Comment texts first: the maps sent to the ranks take their index as
     * the global string reference. */
    for (int i = 0; i < mg->nk; i++) str(mg, mg->k[i]);
    OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, str(mg, "MPI"),
                                       OTF2_PARADIGM_CLASS_PROCESS);
    OTF2_StringRef empty = str(mg, "");
    /* System tree: the machine, one node per host (class "node", named by
     * the host name, in the order of the first rank on it), each rank's
     * location group under its node, so that Vampir and Scalasca group
     * ranks by node. */
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, str(mg, "machine"), str(mg, "machine"),
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint32_t *node_of = malloc((size_t)size * sizeof *node_of);
    uint32_t nnodes = 0;
    for (int r = 0; r < size; r++) {
        const char *h = mg->hosts + (size_t)r * TRC_HOST_LEN;
        node_of[r] = 0;
        for (int q = 0; q < r && !node_of[r]; q++)
            if (strncmp(h, mg->hosts + (size_t)q * TRC_HOST_LEN, TRC_HOST_LEN) == 0)
                node_of[r] = node_of[q];
        if (!node_of[r]) {
            node_of[r] = ++nnodes;
            OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, node_of[r], str(mg, h), str(mg, "node"), 0);
        }
    }
    uint64_t *members = malloc((size_t)size * sizeof *members);
    for (int r = 0; r < size; r++) {
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)r, str(mg, name),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[r],
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    }
    free(node_of);
    /* Locations: the tail of every rank's words (see trc_defs_write). */
    for (int r = 0; r < size; r++) {
        const int64_t *p = all + displs[r] + counts[r];
        int64_t nlocs = p[-1];
        const int64_t *l = p - 1 - 2 * nlocs;
        members[r] = (uint64_t)l[0];
        for (int i = 0; i < nlocs; i++) {
            char name[128];
            uint64_t id = (uint64_t)l[2 * i];
            if ((id >> 32) == TRC_LOC_FOREIGN)
                snprintf(name, sizeof name, "VT events logged by other ranks");
            else if (id >> 32)
                snprintf(name, sizeof name, "Thread %u", (unsigned)(id >> 32));
            else
                snprintf(name, sizeof name, "Master thread");
            for (int k = 0; k < mg->nln; k++)
                if ((uint64_t)mg->ln[k].loc == id) snprintf(name, sizeof name, "%s", mg->ln[k].name);
            OTF2_GlobalDefWriter_WriteLocation(gw, id, str(mg, name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                               (uint64_t)l[2 * i + 1], (OTF2_LocationGroupRef)r);
        }
    }
    for (int fn = 0; fn < MSC_FN_COUNT; fn++) {
        OTF2_StringRef s = str(mg, msc_fn_name[fn]);
        OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)fn, s, s, empty, fn_role(fn),
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    for (int i = 0; i < mg->nr; i++) {
        named_def_t *r = &mg->r[i];
        OTF2_StringRef s = str(mg, r->name), canon = s;
        if (r->group[0]) {
            char full[200];
            snprintf(full, sizeof full, "%s:%s", r->group, r->name);
            canon = str(mg, full);
        }
        OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)(MSC_FN_COUNT + i), s, canon, empty,
                                         (OTF2_RegionRole)r->a, (OTF2_Paradigm)r->b,
                                         OTF2_REGION_FLAG_NONE, r->file[0] ? str(mg, r->file) : empty,
                                         (uint32_t)r->line, (uint32_t)r->line);
    }
    OTF2_GlobalDefWriter_WriteAttribute(gw, TRC_ATTR_SCL, str(mg, "SOURCE_CODE_LOCATION"),
                                        str(mg, "where the event was logged"),
                                        OTF2_TYPE_SOURCE_CODE_LOCATION);
    OTF2_GlobalDefWriter_WriteParameter(gw, TRC_PARAM_COMMENT, str(mg, "comment"),
                                        OTF2_PARAMETER_TYPE_STRING);
    for (int i = 0; i < mg->ns; i++)
        OTF2_GlobalDefWriter_WriteSourceCodeLocation(gw, (OTF2_SourceCodeLocationRef)i,
                                                     str(mg, mg->s[i].name), (uint32_t)mg->s[i].a);
    OTF2_GroupRef group = 0;
    OTF2_GlobalDefWriter_WriteGroup(gw, group++, str(mg, "MPI_COMM_WORLD locations"),
                                    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)size, members);
    free(members);
    for (int i = 0; i < mg->nc; i++) {
        comm_def_t *d = &mg->c[i];
        uint64_t *m = malloc((size_t)(d->n + d->nr + 1) * sizeof *m);
        for (int k = 0; k < d->n + d->nr; k++) m[k] = (uint64_t)d->ranks[k];
        OTF2_StringRef name = str(mg, d->name);
        OTF2_GroupRef ga = group++;
        OTF2_GlobalDefWriter_WriteGroup(gw, ga, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)d->n, m);
        if (d->inter) {
            OTF2_GroupRef gb = group++;
            OTF2_GlobalDefWriter_WriteGroup(gw, gb, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            (uint32_t)d->nr, m + d->n);
            OTF2_GlobalDefWriter_WriteInterComm(gw, (OTF2_CommRef)i, name, ga, gb,
                                                OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        } else {
            OTF2_GlobalDefWriter_WriteComm(gw, (OTF2_CommRef)i, name, ga, OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE);
        }
        free(m);
    }
    if (mg->nf) {
        /* MPI-IO: a parallel I/O paradigm; its version property is the MPI
         * standard the library implements. */
        char ver[16];
        snprintf(ver, sizeof ver, "%d.%d", MPI_VERSION, MPI_SUBVERSION);
        OTF2_IoParadigmProperty prop = OTF2_IO_PARADIGM_PROPERTY_VERSION;
        OTF2_Type type = OTF2_TYPE_STRING;
        OTF2_AttributeValue val;
        val.stringRef = str(mg, ver);
        OTF2_StringRef mpiio = str(mg, "MPI-IO");
        OTF2_GlobalDefWriter_WriteIoParadigm(gw, 0, mpiio, mpiio, OTF2_IO_PARADIGM_CLASS_PARALLEL,
                                             OTF2_IO_PARADIGM_FLAG_NONE, 1, &prop, &type, &val);
    }
    for (int i = 0; i < mg->nf; i++)
        OTF2_GlobalDefWriter_WriteIoRegularFile(gw, (OTF2_IoFileRef)i, str(mg, mg->f[i]), 0);
    for (int i = 0; i < mg->nh; i++)
        OTF2_GlobalDefWriter_WriteIoHandle(gw, (OTF2_IoHandleRef)i, str(mg, mg->f[mg->h[2 * i]]),
                                           (OTF2_IoFileRef)mg->h[2 * i], 0,
                                           OTF2_IO_HANDLE_FLAG_NONE,
                                           (OTF2_CommRef)mg->h[2 * i + 1],
                                           OTF2_UNDEFINED_IO_HANDLE);
    for (int i = 0; i < mg->nw; i++) {
        char name[64];
        snprintf(name, sizeof name, "Window %d", i);
        OTF2_GlobalDefWriter_WriteRmaWin(gw, (OTF2_RmaWinRef)i, str(mg, name),
                                         (OTF2_CommRef)mg->w[2 * i], OTF2_RMA_WIN_FLAG_NONE);
    }
    /* One REGIONS group per region group (VT_ class), in order of first use. */
    uint64_t *rm = malloc(((size_t)mg->nr + 1) * sizeof *rm);
    for (int i = 0; i < mg->nr; i++) {
        if (!mg->r[i].group[0]) continue;
        bool first = true;
        for (int j = 0; j < i && first; j++) first = strcmp(mg->r[j].group, mg->r[i].group) != 0;
        if (!first) continue;
        uint32_t n = 0;
        for (int j = i; j < mg->nr; j++)
            if (strcmp(mg->r[j].group, mg->r[i].group) == 0) rm[n++] = (uint64_t)(MSC_FN_COUNT + j);
        OTF2_GlobalDefWriter_WriteGroup(gw, group++, str(mg, mg->r[i].group),
                                        OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_USER,
                                        OTF2_GROUP_FLAG_NONE, n, rm);
    }
    free(rm);
    for (int i = 0; i < mg->nm; i++) {
        OTF2_MetricMemberRef mm = (OTF2_MetricMemberRef)i;
        OTF2_GlobalDefWriter_WriteMetricMember(gw, mm, str(mg, mg->m[i].name), empty,
                                               OTF2_METRIC_TYPE_USER,
                                               (OTF2_MetricMode)mg->m[i].b,
                                               (OTF2_Type)mg->m[i].a, OTF2_BASE_DECIMAL, 0,
                                               str(mg, mg->m[i].unit));
        OTF2_GlobalDefWriter_WriteMetricClass(gw, (OTF2_MetricRef)i, 1, &mm,
                                              OTF2_METRIC_SYNCHRONOUS_STRICT,
                                              OTF2_RECORDER_KIND_CPU);
    }
    (void)complete;
}

static void write_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint64_t *map, size_t n)
{
    if (!n) return;
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(n, map, true);
    if (!m) return;
    OTF2_DefWriter_WriteMappingTable(dw, type, m);
    OTF2_IdMap_Free(m);
}

/* This rank's call sites, resolved now, as rank 0 reads source code
 * locations (line, file); their slots in that order go to *slots. An
 * address without a line table is "<object>+0x<offset>" at line 0 (the
 * offset is the same on every rank); one that no object maps is "?". */
static int put_sites(buf_t *b, uint32_t **slots)
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
        else if (mapped) snprintf(file, sizeof file, "%s+0x%lx", fr.module, (unsigned long)fr.offset);
        else snprintf(file, sizeof file, "?");
        /* The merged definitions keep 127 bytes of a name: a long path
         * keeps its end, the file's own name. */
        size_t len = strlen(file), keep = sizeof scls[0].name - 4;
        if (len > keep + 3) memcpy(file + len - keep - 3, "...", 3);
        put(b, line ? fr.line : 0);
        put_str(b, len > keep + 3 ? file + len - keep - 3 : file);
    }
    msc_callsite_close(res);
    *slots = slot;
    return n;
}

void trc_defs_write(OTF2_Archive *archive, const trc_loc_t *locs, int nlocs,
                    const int64_t sync_time[2], const int64_t sync_offset[2],
                    const double sync_dev[2], bool complete)
{
    int rank = msc_g.world_rank, size = msc_g.world_size;
    /* The worst error bound of any rank's clock synchronization (half its
     * shortest round trip, ns): readers comparing times across ranks must
     * allow this much. */
    double sync_err = sync_dev[0] > sync_dev[1] ? sync_dev[0] : sync_dev[1], sync_err_max = 0;
    PMPI_Reduce(&sync_err, &sync_err_max, 1, MPI_DOUBLE, MPI_MAX, 0, msc_g.comm);
    unsigned long long dropped = atomic_load(&sites_dropped), dropped_all = 0;
    PMPI_Reduce(&dropped, &dropped_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, msc_g.comm);
    if (rank == 0 && dropped_all)
        msc_warn("trace: the table of %d call sites per rank was full for %llu MPI calls, whose "
                 "Enter events have no source code location", TRC_SITES, dropped_all);
    uint32_t *site_slot = NULL;
    buf_t sb = {0};
    int nsite = put_sites(&sb, &site_slot);
    buf_t b = {0};
    pthread_mutex_lock(&lock);
    int nc = ncomms, nr = atomic_load(&nregions), nm = atomic_load(&nmetrics);
    int ns = atomic_load(&nscls), nk = ncomments;
    put(&b, nc);
    for (int i = 0; i < nc; i++) {
        comm_def_t *d = &comms[i];
        put(&b, d->inter), put(&b, d->n), put(&b, d->nr), put(&b, d->occ);
        /* Members that are consecutive world ranks (MPI_COMM_WORLD, blocks
         * of a split) go as the first one: a word per rank instead of P. */
        bool run = true;
        for (int k = 1; run && k < d->n + d->nr; k++) run = d->ranks[k] == d->ranks[0] + k;
        put(&b, run);
        if (run) put(&b, d->n + d->nr ? d->ranks[0] : 0);
        else for (int k = 0; k < d->n + d->nr; k++) put(&b, d->ranks[k]);
        put_str(&b, d->name);
    }
    put(&b, nr);
    for (int i = 0; i < nr; i++) {
        put(&b, regions[i].a), put(&b, regions[i].b), put_str(&b, regions[i].name);
        put_str(&b, regions[i].group);
        uint32_t sc = atomic_load(&regions[i].scl);
        put_str(&b, sc ? scls[sc - 1].name : "");
        put(&b, sc ? scls[sc - 1].a : 0);
    }
    put(&b, nm);
    for (int i = 0; i < nm; i++) {
        put(&b, metrics[i].a), put(&b, metrics[i].b);
        put_str(&b, metrics[i].name), put_str(&b, metrics[i].unit);
    }
    put(&b, ns + nsite); /* the VT_ API's source code locations, then the call sites */
    for (int i = 0; i < ns; i++) put(&b, scls[i].a), put_str(&b, scls[i].name);
    for (size_t i = 0; i < sb.n; i++) put(&b, sb.w[i]);
    free(sb.w);
    put(&b, nk);
    for (int i = 0; i < nk; i++) put_str(&b, comments[i]);
    int nw = nwins;
    put(&b, nw);
    for (int i = 0; i < nw; i++) put(&b, wins[i].comm), put(&b, wins[i].occ);
    int nf = nfiles, nh = nfhs;
    put(&b, nf);
    for (int i = 0; i < nf; i++) put_str(&b, files[i].name);
    put(&b, nh);
    for (int i = 0; i < nh; i++) put(&b, fhs[i].file), put(&b, fhs[i].comm);
    put(&b, nlocnames);
    for (int i = 0; i < nlocnames; i++) put(&b, (int64_t)locnames[i].loc), put_str(&b, locnames[i].name);
    pthread_mutex_unlock(&lock);
    put(&b, sync_time[0] + sync_offset[0]);       /* first corrected time */
    put(&b, sync_time[1] + sync_offset[1]);       /* last corrected time */
    for (int i = 0; i < nlocs; i++) put(&b, (int64_t)locs[i].id), put(&b, (int64_t)locs[i].events);
    put(&b, nlocs);

    int count = (int)b.n;
    int *counts = NULL, *displs = NULL;
    int64_t *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    PMPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < size; r++) displs[r] = (int)total, total += counts[r];
        all = malloc((size_t)total * sizeof *all);
    }
    PMPI_Gatherv(b.w, count, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, msc_g.comm);
    /* Every rank's host name, for the system tree's nodes. */
    char host[TRC_HOST_LEN] = {0};
    gethostname(host, sizeof host - 1);
    char *hosts = rank == 0 ? calloc((size_t)size, TRC_HOST_LEN) : NULL;
    PMPI_Gather(host, TRC_HOST_LEN, MPI_CHAR, hosts, TRC_HOST_LEN, MPI_CHAR, 0, msc_g.comm);

    /* Rank 0 merges and computes every rank's maps: comms, regions, metrics. */
    uint64_t *maps = NULL;
    int *mcounts = NULL, *mdispls = NULL;
    merged_t mg = {0};
    if (rank == 0) {
        mcounts = calloc((size_t)size, sizeof *mcounts);
        mdispls = calloc((size_t)size, sizeof *mdispls);
        size_t cap = 1024, used = 0;
        maps = malloc(cap * sizeof *maps);
        int64_t gmin = INT64_MAX, gmax = INT64_MIN;
        for (int r = 0; r < size; r++) {
            const int64_t *p = all + displs[r];
            mdispls[r] = (int)used;
            int64_t n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                comm_def_t d;
                d.inter = (int)get(&p), d.n = (int)get(&p), d.nr = (int)get(&p), d.occ = (int)get(&p);
                int *rk = malloc((size_t)(d.n + d.nr + 1) * sizeof *rk);
                if ((int)get(&p)) { /* consecutive world ranks from the first */
                    int first = (int)get(&p);
                    for (int k = 0; k < d.n + d.nr; k++) rk[k] = first + k;
                } else {
                    for (int k = 0; k < d.n + d.nr; k++) rk[k] = (int)get(&p);
                }
                d.ranks = rk;
                get_str(&p, d.name, sizeof d.name);
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)find_comm(&mg, &d);
                free(rk);
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                named_def_t d = {0};
                d.a = (int)get(&p), d.b = (int)get(&p);
                get_str(&p, d.name, sizeof d.name);
                get_str(&p, d.group, sizeof d.group);
                get_str(&p, d.file, sizeof d.file);
                d.line = (int)get(&p);
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                int gi = find_named(&mg.r, &mg.nr, &d);
                if (!mg.r[gi].file[0] && d.file[0]) { /* the first rank that knows it */
                    snprintf(mg.r[gi].file, sizeof mg.r[gi].file, "%s", d.file);
                    mg.r[gi].line = d.line;
                }
                maps[used++] = (uint64_t)(MSC_FN_COUNT + gi);
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                named_def_t d = {0};
                d.a = (int)get(&p), d.b = (int)get(&p);
                get_str(&p, d.name, sizeof d.name);
                get_str(&p, d.unit, sizeof d.unit);
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)find_named(&mg.m, &mg.nm, &d);
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                named_def_t d = {0};
                d.a = (int)get(&p);
                get_str(&p, d.name, sizeof d.name);
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)find_named(&mg.s, &mg.ns, &d);
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                char text[1024];
                get_str(&p, text, sizeof text);
                int k = 0;
                while (k < mg.nk && strcmp(mg.k[k], text) != 0) k++;
                if (k == mg.nk) {
                    mg.k = realloc(mg.k, (size_t)(mg.nk + 1) * sizeof *mg.k);
                    mg.k[mg.nk++] = strdup(text);
                }
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)k; /* comment strings are the first global strings */
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                int64_t cref = get(&p), occ = get(&p);
                int64_t gcomm = maps[mdispls[r] + cref];
                int k = 0;
                while (k < mg.nw && !(mg.w[2 * k] == gcomm && mg.w[2 * k + 1] == occ)) k++;
                if (k == mg.nw) {
                    mg.w = realloc(mg.w, (size_t)(mg.nw + 1) * 2 * sizeof *mg.w);
                    mg.w[2 * k] = gcomm, mg.w[2 * k + 1] = occ;
                    mg.nw++;
                }
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)k;
            }
            size_t file0 = used; /* this rank's file map, for its handles */
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                char name[256];
                get_str(&p, name, sizeof name);
                int k = 0;
                while (k < mg.nf && strcmp(mg.f[k], name) != 0) k++;
                if (k == mg.nf) {
                    mg.f = realloc(mg.f, (size_t)(mg.nf + 1) * sizeof *mg.f);
                    snprintf(mg.f[mg.nf++], sizeof *mg.f, "%s", name);
                }
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)k;
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                int64_t fref = get(&p), cref = get(&p);
                mg.h = realloc(mg.h, (size_t)(mg.nh + 1) * 2 * sizeof *mg.h);
                mg.h[2 * mg.nh] = (int64_t)maps[file0 + (size_t)fref];
                mg.h[2 * mg.nh + 1] = (int64_t)maps[mdispls[r] + cref];
                if (used == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
                maps[used++] = (uint64_t)mg.nh++;
            }
            n = get(&p);
            for (int64_t i = 0; i < n; i++) {
                mg.ln = realloc(mg.ln, (size_t)(mg.nln + 1) * sizeof *mg.ln);
                mg.ln[mg.nln].loc = get(&p);
                get_str(&p, mg.ln[mg.nln].name, sizeof mg.ln[mg.nln].name);
                mg.nln++;
            }
            int64_t first = get(&p), last = get(&p);
            if (first < gmin) gmin = first;
            if (last > gmax) gmax = last;
            mcounts[r] = (int)used - mdispls[r];
        }
        OTF2_Archive_SetCreator(archive, "mpiscope " MSC_MPI_NAME);
        char err_text[32];
        snprintf(err_text, sizeof err_text, "%.0f", sync_err_max);
        OTF2_Archive_SetProperty(archive, "MPISCOPE::CLOCK_SYNC_ERROR_NS", err_text, true);
        if (!complete) {
            OTF2_Archive_SetProperty(archive, "MPISCOPE::TRACE_COMPLETE", "false", true);
            if (incomplete_reason[0])
                OTF2_Archive_SetProperty(archive, "MPISCOPE::INCOMPLETE_REASON",
                                         incomplete_reason, true);
        } else
            OTF2_Archive_SetProperty(archive, "MPISCOPE::TRACE_COMPLETE", "true", true);
        mg.gw = OTF2_Archive_GetGlobalDefWriter(archive);
        mg.hosts = hosts;
        if (mg.gw) {
            write_global(&mg, all, counts, displs, size, gmin, gmax, complete);
            OTF2_Archive_CloseGlobalDefWriter(archive, mg.gw);
        }
        for (int i = 0; i < mg.nc; i++) free(mg.c[i].ranks);
        for (int i = 0; i < mg.nk; i++) free(mg.k[i]);
        free(mg.c), free(mg.r), free(mg.m), free(mg.s), free(mg.k), free(mg.w), free(mg.f), free(mg.h);
        free(mg.ln);
    }
    int nsl = ns + nsite;
    int mine = nc + nr + nm + nsl + nk + nw + nf + nh;
    uint64_t *map = calloc((size_t)mine + 1, sizeof *map);
    PMPI_Scatterv(maps, mcounts, mdispls, MPI_UINT64_T, map, mine, MPI_UINT64_T, 0, msc_g.comm);

    /* Region map: identity for MPI functions, then the user regions. */
    uint64_t *rmap = malloc(((size_t)MSC_FN_COUNT + (size_t)nr) * sizeof *rmap);
    for (int i = 0; i < MSC_FN_COUNT; i++) rmap[i] = (uint64_t)i;
    for (int i = 0; i < nr; i++) rmap[MSC_FN_COUNT + i] = map[nc + i];
    /* Source code location map: the VT_ API's references, then a call
     * site's TRC_SCL_SITES + slot (unused references: identity). */
    size_t nsm = nsite ? TRC_SCL_SITES + (size_t)site_slot[nsite - 1] + 1 : (size_t)ns;
    uint64_t *smap = malloc((nsm + 1) * sizeof *smap);
    for (size_t i = 0; smap && i < nsm; i++) smap[i] = i;
    for (int i = 0; smap && i < ns; i++) smap[i] = map[nc + nr + nm + i];
    for (int k = 0; smap && k < nsite; k++)
        smap[TRC_SCL_SITES + site_slot[k]] = map[nc + nr + nm + ns + k];
    OTF2_Archive_OpenDefFiles(archive);
    for (int i = 0; i < nlocs; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, locs[i].id);
        if (!dw) continue;
        write_map(dw, OTF2_MAPPING_COMM, map, (size_t)nc);
        if (nr) write_map(dw, OTF2_MAPPING_REGION, rmap, (size_t)MSC_FN_COUNT + (size_t)nr);
        write_map(dw, OTF2_MAPPING_METRIC, map + nc + nr, (size_t)nm);
        if (smap) write_map(dw, OTF2_MAPPING_SOURCE_CODE_LOCATION, smap, nsm);
        write_map(dw, OTF2_MAPPING_STRING, map + nc + nr + nm + nsl, (size_t)nk);
        write_map(dw, OTF2_MAPPING_RMA_WIN, map + nc + nr + nm + nsl + nk, (size_t)nw);
        write_map(dw, OTF2_MAPPING_IO_FILE, map + nc + nr + nm + nsl + nk + nw, (size_t)nf);
        write_map(dw, OTF2_MAPPING_IO_HANDLE, map + nc + nr + nm + nsl + nk + nw + nf, (size_t)nh);
        for (int k = 0; k < 2; k++)
            OTF2_DefWriter_WriteClockOffset(dw, (uint64_t)sync_time[k], sync_offset[k],
                                            sync_dev[k]);
        OTF2_Archive_CloseDefWriter(archive, dw);
    }
    OTF2_Archive_CloseDefFiles(archive);
    free(rmap), free(smap), free(site_slot), free(map), free(maps), free(mcounts), free(mdispls);
    free(all), free(counts), free(displs), free(b.w), free(hosts);
}
