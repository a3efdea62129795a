/* The MPI_T functions a client sees with mpiscope loaded: the union of the
 * MPI library's variables and mpiscope's own, conformant to section 14.3
 * whatever the library does.
 *
 * Index layout. Each kind (cvars, pvars, categories) has a map from union
 * index to (side, index on that side) that only grows. Whenever an MPI_T
 * call comes in, new library entries (its get_num grew) and newly registered
 * own entries are appended. So at the first MPI_T_init_thread the union is
 * the library's variables, then mpiscope's; anything either side adds later
 * comes after, and no index ever changes meaning.
 *
 * Handles and sessions are mpiscope's own objects: a session wraps a library
 * session (if the library's MPI_T is up) and a list of handles; a handle
 * wraps either a library handle or an own variable's per-handle state. They
 * are validated by looking them up in these lists, so a stale or foreign
 * pointer is answered with an error code and never dereferenced or passed on.
 *
 * The library's MPI_T is initialized once (one reference held by mpiscope)
 * when the first client initializes, and finalized at MPI_Finalize, while MPI
 * still works; after that it is never called again. It is never finalized
 * and initialized again (MPICH 4.0 crashes then), nor finalized after
 * MPI_Finalize (Open MPI 4.1 crashes then). What the library said about its variables is cached on the
 * first successful get_info, so later calls give the same answers (as the
 * standard requires) even where the library has since invalidated a
 * variable or was closed; such variables then refuse new handles with
 * MPI_T_ERR_INVALID_INDEX.
 *
 * One lock serializes all of it (internal.h). The event and source
 * functions of MPI 4 (MPICH) are passed through without the lock, because
 * the library calls event callbacks that may call them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/state.h"
#include "internal.h"

#define MSC_API __attribute__((visibility("default")))

enum { LIB_DOWN, LIB_UP, LIB_CLOSED };

static _Atomic int refcount;   /* client MPI_T_init_thread minus MPI_T_finalize */
static _Atomic int lib_state;  /* LIB_* */
/* Per kind (0 cvars, 1 pvars, 2 categories), learnt only when a call needs
 * that kind: Open MPI has a thousand control variables, and a client that
 * reads performance variables should not pay for them. */
enum { K_CVAR = 1, K_PVAR = 2, K_CAT = 4, K_ALL = 7 };
static int lib_stamp[3] = {-1, -1, -1}; /* MPI_T_category_changed of the library when last learnt */
static bool lib_rescan[3] = {true, true, true}; /* not learnt since the library was initialized */
static unsigned own_changes;   /* msc_own.changes last seen */
static int stamp;              /* our MPI_T_category_changed */

typedef struct {
    char *name, *desc;
    int verbosity, var_class, bind, scope, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype;
    msc_libvar_origin_t origin; /* control variables: where the library keeps the value */
} info_t;

typedef struct {
    int lib;                   /* 1: library index, 0: own index */
    int idx;
    info_t *info;              /* library entries: cached get_info */
} ref_t;

typedef struct {
    ref_t *v;
    int n, cap;
    int *from_lib, nlib;       /* library index -> union index */
    int *from_own, nown;       /* own index -> union index */
} map_t;

static map_t cvmap, pvmap, catmap;

/* Library enumerations seen in get_info answers and their copies, in pairs. */
static char sbuf_name[4096], sbuf_desc[65536];
static MPI_T_enum *lib_enums;
static int n_lib_enums, cap_lib_enums;

typedef union {
    unsigned long long u;
    double d;
} num_t;

typedef struct session session_t;

typedef struct phandle {
    struct phandle *next;
    session_t *s;
    int uidx;
    int lib;
    MPI_T_pvar_handle lh;      /* library handle; NULL once the library is closed */
    msc_own_pvar_t *pv;        /* own variable */
    int count, cls, continuous, readonly, atomic, started;
    MPI_Datatype type;
    unsigned char obj[16];     /* copy of the bound object's handle */
    void *objp;                /* obj, or NULL for MPI_T_BIND_NO_OBJECT */
    void *hctx;
    num_t *accum, *base;       /* counters, aggregates, timers */
    unsigned char *frozen;     /* other classes: value while stopped */
} phandle_t;

struct session {
    session_t *next;
    MPI_T_pvar_session ls;     /* library session, or NULL */
    phandle_t *handles;
};

typedef struct chandle {
    struct chandle *next;
    int lib;
    int li;                    /* library index of the variable when allocated */
    info_t *info;              /* library variables: the cached answer */
    MPI_T_cvar_handle lh;
    msc_own_cvar_t *cv;
    unsigned char obj[16];
    void *objp;
} chandle_t;

static session_t *sessions;
static chandle_t *chandles;

#define L (msc_lib())
#define LOCK() pthread_mutex_lock(&msc_mpit_lock)
#define UNLOCK() pthread_mutex_unlock(&msc_mpit_lock)

/* --- strings (section 14.3.3) ---------------------------------------------- */

static void put_string(const char *s, char *buf, int *len)
{
    if (!len) return;
    if (!s) s = "";
    int need = (int)strlen(s) + 1;
    if (buf && *len > 0) {
        int n = need <= *len ? need - 1 : *len - 1;
        memcpy(buf, s, (size_t)n);
        buf[n] = '\0';
    }
    *len = need;
}

/* --- maps ------------------------------------------------------------------ */

static int map_push(map_t *m, int lib, int idx, info_t *info)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 256;
        ref_t *p = realloc(m->v, (size_t)cap * sizeof *p);
        if (!p) return -1;
        m->v = p;
        m->cap = cap;
    }
    if (!lib) {
        int *p = realloc(m->from_own, (size_t)(m->nown + 1) * sizeof *p);
        if (!p) return -1;
        m->from_own = p;
        m->from_own[m->nown++] = m->n;
    }
    m->v[m->n] = (ref_t){.lib = lib, .idx = idx, .info = info};
    return m->n++;
}

static bool map_grow_own(map_t *m, int n)
{
    bool grew = false;
    while (m->nown < n && map_push(m, 0, m->nown, NULL) >= 0) grew = true;
    return grew;
}
static int lib_up(void)
{
    return atomic_load(&lib_state) == LIB_UP;
}

static void close_library_locked(bool mpi_usable);
static void rescan(map_t *m, int n, int kind);

/* Brings the maps of the kinds in `kinds` (K_*) up to date with both sides:
 * the library's entries first, then mpiscope's, the first time a kind is
 * needed. Calls through a handle need none (0): they do not look up
 * indices. Under the lock. */
static void sync_all(unsigned kinds)
{
    int phase = atomic_load(&msc_g.phase);
    if (phase == MSC_PHASE_DONE && atomic_load(&lib_state) != LIB_CLOSED)
        close_library_locked(false);
    else if (phase == MSC_PHASE_FINALIZING && atomic_load(&lib_state) != LIB_CLOSED)
        close_library_locked(true);
    if (!kinds) return;
    bool changed = false;
    map_t *maps[3] = {&cvmap, &pvmap, &catmap};
    int (*get_num[3])(int *) = {L->cvar_get_num, L->pvar_get_num, L->category_get_num};
    if (lib_up()) {
        int st = lib_stamp[0];
        if (L->category_changed) L->category_changed(&st);
        for (int k = 0; k < 3; k++) {
            int n = 0;
            if (!(kinds & (1u << k))) continue;
            if (get_num[k]) get_num[k](&n);
            if (!lib_rescan[k] && n == maps[k]->nlib && st == lib_stamp[k]) continue;
            int before = maps[k]->n;
            rescan(maps[k], n, k);
            changed |= st != lib_stamp[k] || maps[k]->n != before;
            lib_rescan[k] = false;
            lib_stamp[k] = st;
        }
    }
    int own[3] = {msc_own.ncvars, msc_own.npvars, msc_own.ncats};
    for (int k = 0; k < 3; k++)
        if (kinds & (1u << k)) changed |= map_grow_own(maps[k], own[k]);
    if (own_changes != msc_own.changes) {
        own_changes = msc_own.changes;
        changed = true;
    }
    if (changed) stamp++;
}

/* Every entry point but init_thread starts with this; `kinds`: what it
 * looks up by index or name (K_*). */
#define ENTER_K(kinds)                                             \
    do {                                                           \
        LOCK();                                                    \
        if (atomic_load(&refcount) <= 0) {                         \
            UNLOCK();                                              \
            return MPI_T_ERR_NOT_INITIALIZED;                      \
        }                                                          \
        sync_all(kinds);                                           \
    } while (0)
#define ENTER() ENTER_K(0)
#define LEAVE(rc)                                                  \
    do {                                                           \
        int leave_rc_ = (rc);                                      \
        UNLOCK();                                                  \
        return leave_rc_;                                          \
    } while (0)

/* A copy of a library enumeration, taken right after the library returned
 * it: Open MPI frees and re-creates its enumerations at MPI_Init, so a
 * pointer it gave earlier may dangle later. Clients only ever see copies,
 * which stay valid for the whole run. */
static MPI_T_enum copy_lib_enum(MPI_T_enum e)
{
    if (e == MPI_T_ENUM_NULL || !L->enum_get_info || !L->enum_get_item) return MPI_T_ENUM_NULL;
    for (int i = 0; i < n_lib_enums; i += 2)
        if (lib_enums[i] == e) return lib_enums[i + 1];
    int n = 0, nl = sizeof sbuf_name;
    sbuf_name[0] = 0;
    if (L->enum_get_info(e, &n, sbuf_name, &nl) != MPI_SUCCESS || n < 1) return MPI_T_ENUM_NULL;
    sbuf_name[sizeof sbuf_name - 1] = 0;
    msc_mpit_enum_t *x = calloc(1, sizeof *x);
    if (!x) return MPI_T_ENUM_NULL;
    x->name = strdup(sbuf_name[0] ? sbuf_name : "enum");
    x->values = calloc((size_t)n, sizeof *x->values);
    x->names = calloc((size_t)n, sizeof *x->names);
    bool ok = x->name && x->values && x->names;
    for (int i = 0; ok && i < n; i++) {
        nl = sizeof sbuf_name;
        sbuf_name[0] = 0;
        if (L->enum_get_item(e, i, &x->values[i], sbuf_name, &nl) != MPI_SUCCESS) ok = false;
        sbuf_name[sizeof sbuf_name - 1] = 0;
        if (ok) ok = (x->names[i] = strdup(sbuf_name[0] ? sbuf_name : "?")) != NULL;
    }
    if (!ok) {
        for (int i = 0; x->names && i < n; i++) free(x->names[i]);
        free(x->names);
        free(x->values);
        free(x->name);
        free(x);
        return MPI_T_ENUM_NULL;
    }
    x->n = n;
    x->next = msc_own.enums;
    msc_own.enums = x;
    if (n_lib_enums + 2 > cap_lib_enums) {
        int cap = cap_lib_enums ? 2 * cap_lib_enums : 64;
        MPI_T_enum *p = realloc(lib_enums, (size_t)cap * sizeof *p);
        if (!p) return (MPI_T_enum)x;
        lib_enums = p;
        cap_lib_enums = cap;
    }
    lib_enums[n_lib_enums++] = e;
    lib_enums[n_lib_enums++] = (MPI_T_enum)x;
    return (MPI_T_enum)x;
}

/* Maps what the library answered for a valid-looking index: Open MPI says
 * MPI_T_ERR_INVALID for variables it has invalidated. */
static int lib_index_error(int rc)
{
    return rc == MPI_T_ERR_INVALID || rc == MPI_T_ERR_INVALID_INDEX ? MPI_T_ERR_INVALID_INDEX : rc;
}


/* Asks the library about its variable `li` (kind 0 cvar, 1 pvar, 2
 * category); the strings land in sbuf_name/sbuf_desc. */
static int lib_fetch(int kind, int li, info_t *t)
{
    int nl = sizeof sbuf_name, dl = sizeof sbuf_desc, rc = MPI_T_ERR_INVALID_INDEX, x;
    *t = (info_t){0};
    sbuf_name[0] = sbuf_desc[0] = 0;
    if (kind == 0 && L->cvar_get_info)
        rc = L->cvar_get_info(li, sbuf_name, &nl, &t->verbosity, &t->datatype, &t->enumtype,
                              sbuf_desc, &dl, &t->bind, &t->scope);
    if (kind == 1 && L->pvar_get_info)
        rc = L->pvar_get_info(li, sbuf_name, &nl, &t->verbosity, &t->var_class, &t->datatype,
                              &t->enumtype, sbuf_desc, &dl, &t->bind, &t->readonly,
                              &t->continuous, &t->atomic);
    if (kind == 2 && L->category_get_info)
        rc = L->category_get_info(li, sbuf_name, &nl, sbuf_desc, &dl, &x, &x, &x);
    sbuf_name[sizeof sbuf_name - 1] = sbuf_desc[sizeof sbuf_desc - 1] = 0;
    if (rc == MPI_SUCCESS && !sbuf_name[0]) rc = MPI_T_ERR_INVALID_INDEX;
    return rc == MPI_SUCCESS ? rc : lib_index_error(rc);
}

/* The union entry of a library variable of that name (and class), or -1. */
static int find_lib(map_t *m, const char *name, int cls, int kind)
{
    for (int k = 0; k < m->n; k++) {
        ref_t *r = &m->v[k];
        if (r->lib && strcmp(r->info->name, name) == 0 && (kind != 1 || r->info->var_class == cls))
            return k;
    }
    return -1;
}

/* What a control variable's scope says must hold for the whole run
 * (section 14.3.6: get_info never changes): a variable the library will
 * never let MPI_T write (Open MPI: registered without
 * MCA_BASE_VAR_FLAG_SETTABLE, so every write answers
 * MPI_T_ERR_CVAR_SET_NOT_NOW) is read-only, so that a client does not try,
 * and writes get MPI_T_ERR_CVAR_SET_NEVER. Also notes where the library
 * keeps the value, to tell later whether it is still there (libvars.c). */
static void first_seen_cvar(int li, info_t *i)
{
    if (i->scope != MPI_T_SCOPE_CONSTANT && i->scope != MPI_T_SCOPE_READONLY &&
        msc_libvar_settable(li) == 0)
        i->scope = MPI_T_SCOPE_READONLY;
    msc_libvar_origin(li, &i->origin);
}

/* Learns the library's entries 0..n-1. A library entry of the union is
 * identified by its name (and class): Open MPI re-registers variables at
 * MPI_Init and may then give an index that used to name one variable to
 * another. What the library said first is kept (get_info must not change);
 * only the library index is updated. Entries the library calls invalid are
 * skipped until a later rescan finds them valid. */
static void rescan(map_t *m, int n, int kind)
{
    int *p = realloc(m->from_lib, (size_t)(n > 0 ? n : 1) * sizeof *p);
    if (!p) return;
    m->from_lib = p;
    for (int k = 0; k < m->n; k++)
        if (m->v[k].lib) m->v[k].idx = -1;
    for (int li = 0; li < n; li++) {
        info_t t;
        m->from_lib[li] = -1;
        if (lib_fetch(kind, li, &t) != MPI_SUCCESS) continue;
        int u = find_lib(m, sbuf_name, t.var_class, kind);
        if (u < 0) {
            info_t *i = calloc(1, sizeof *i);
            if (!i) continue;
            *i = t;
            i->name = strdup(sbuf_name);
            i->desc = strdup(sbuf_desc);
            i->enumtype = kind < 2 && t.datatype == MPI_INT ? copy_lib_enum(t.enumtype)
                                                            : MPI_T_ENUM_NULL;
            if (kind == 0) first_seen_cvar(li, i);
            if (!i->name || !i->desc || (u = map_push(m, 1, li, i)) < 0) {
                free(i->name);
                free(i->desc);
                free(i);
                continue;
            }
        }
        m->v[u].idx = li;
        m->from_lib[li] = u;
    }
    m->nlib = n;
}

/* The library's current index of a union entry, checked by name, or -1. */
static int lib_index(map_t *m, ref_t *r, int kind)
{
    info_t t;
    if (!lib_up() || r->idx < 0 || lib_fetch(kind, r->idx, &t) != MPI_SUCCESS) return -1;
    if (strcmp(sbuf_name, r->info->name) != 0 || (kind == 1 && t.var_class != r->info->var_class))
        return -1;
    (void)m;
    return r->idx;
}

/* The members of a library category in union indices (kind 0 cvars,
 * 1 pvars, 2 categories), in a malloc'd array; members the union does not
 * know (the library calls them invalid) are left out, so that the counts
 * get_info reports and the lists agree. */
static int lib_cat_members(ref_t *r, int kind, int **out)
{
    int n[3] = {0, 0, 0};
    *out = NULL;
    int li = lib_index(&catmap, r, 2);
    if (li < 0 || !L->category_get_info ||
        L->category_get_info(li, NULL, NULL, NULL, NULL, &n[0], &n[1], &n[2]) != MPI_SUCCESS)
        return 0;
    int (*fn)(int, int, int *) = kind == 0   ? L->category_get_cvars
                                 : kind == 1 ? L->category_get_pvars
                                             : L->category_get_categories;
    if (n[kind] <= 0 || !fn) return 0;
    int *v = malloc((size_t)n[kind] * sizeof *v);
    if (!v) return 0;
    if (fn(li, n[kind], v) != MPI_SUCCESS) {
        free(v);
        return 0;
    }
    map_t *m = kind == 0 ? &cvmap : kind == 1 ? &pvmap : &catmap;
    int k = 0;
    for (int i = 0; i < n[kind]; i++) {
        int u = v[i] >= 0 && v[i] < m->nlib ? m->from_lib[v[i]] : -1;
        if (u >= 0 && !(kind == 2 && &m->v[u] == r)) v[k++] = u;
    }
    *out = v;
    return k;
}

static void lib_cat_counts(ref_t *r, int *nc, int *np, int *ncat)
{
    int *v, *outs[3] = {nc, np, ncat};
    for (int kind = 0; kind < 3; kind++) {
        int n = lib_cat_members(r, kind, &v);
        free(v);
        if (outs[kind]) *outs[kind] = n;
    }
}

/* --- init and finalize (section 14.3.4) ------------------------------------ */

static void free_phandle_lib(session_t *s, phandle_t *h, bool mpi_usable)
{
    if (h->lib && h->lh && mpi_usable && L->pvar_handle_free && s->ls)
        L->pvar_handle_free(s->ls, &h->lh);
    h->lh = NULL;
}

static void own_notify(phandle_t *h, msc_pvar_event_t ev)
{
    if (h->pv && h->pv->d.notify) h->pv->d.notify(&h->pv->d, ev, h->objp, &h->hctx);
}

static void free_phandle(session_t *s, phandle_t *h, bool mpi_usable)
{
    if (h->lib) {
        free_phandle_lib(s, h, mpi_usable);
    } else {
        if (h->continuous || h->started) own_notify(h, MSC_PVAR_STOP);
        own_notify(h, MSC_PVAR_FREED);
    }
    free(h->accum);
    free(h->base);
    free(h->frozen);
    free(h);
}

static void free_session(session_t *s, bool mpi_usable)
{
    while (s->handles) {
        phandle_t *h = s->handles;
        s->handles = h->next;
        free_phandle(s, h, mpi_usable);
    }
    if (s->ls && mpi_usable && lib_up() && L->pvar_session_free) L->pvar_session_free(&s->ls);
    s->ls = NULL;
}

/* Drops every library object and the library's MPI_T (if MPI still works,
 * through the library; otherwise by forgetting them). Under the lock. */
static void close_library_locked(bool mpi_usable)
{
    int st = atomic_load(&lib_state);
    if (st == LIB_CLOSED) return;
    if (mpi_usable && st == LIB_DOWN && (cvmap.nlib || pvmap.nlib || catmap.nlib) &&
        L->init_thread && L->finalize) {
        int provided;
        if (L->init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS) {
            atomic_store(&lib_state, LIB_UP);
            rescan(&cvmap, cvmap.nlib, 0);
            rescan(&pvmap, pvmap.nlib, 1);
            rescan(&catmap, catmap.nlib, 2);
            L->finalize();
        }
    }
    for (session_t *s = sessions; s; s = s->next) {
        for (phandle_t *h = s->handles; h; h = h->next)
            if (h->lib) free_phandle_lib(s, h, mpi_usable && st == LIB_UP);
        if (s->ls && mpi_usable && st == LIB_UP && L->pvar_session_free)
            L->pvar_session_free(&s->ls);
        s->ls = NULL;
    }
    for (chandle_t *c = chandles; c; c = c->next) {
        if (c->lib && c->lh && mpi_usable && st == LIB_UP && L->cvar_handle_free)
            L->cvar_handle_free(&c->lh);
        c->lh = NULL;
    }
    if (mpi_usable && st == LIB_UP && L->finalize) L->finalize();
    atomic_store(&lib_state, LIB_CLOSED);
}

/* Called by the module at the start of MPI_Finalize, while MPI works. */
void msc_mpit_close_library(void) MSC_HIDDEN;
void msc_mpit_close_library(void)
{
    LOCK();
    /* The kinds clients have looked at are learnt once more (later answers
     * come from what is cached); the others were never shown. */
    unsigned seen = (lib_rescan[0] ? 0 : K_CVAR) | (lib_rescan[1] ? 0 : K_PVAR) |
                    (lib_rescan[2] ? 0 : K_CAT);
    if (atomic_load(&lib_state) == LIB_UP && atomic_load(&refcount) > 0) sync_all(seen);
    close_library_locked(true);
    UNLOCK();
}

MSC_API int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided) return MPI_T_ERR_INVALID;
    LOCK();
    int phase = atomic_load(&msc_g.phase);
    if (atomic_load(&lib_state) == LIB_DOWN && phase != MSC_PHASE_FINALIZING &&
        phase != MSC_PHASE_DONE && L->init_thread) {
        int p;
        if (L->init_thread(MPI_THREAD_MULTIPLE, &p) == MPI_SUCCESS) {
            atomic_store(&lib_state, LIB_UP);
            lib_rescan[0] = lib_rescan[1] = lib_rescan[2] = true;
        }
    }
    atomic_fetch_add(&refcount, 1);
    sync_all(0);
    /* Every MPI_T call is serialized by mpiscope's lock. */
    *provided = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                 : required;
    UNLOCK();
    return MPI_SUCCESS;
}

/* For mpiscope's own modules: MPI_T_init_thread without initializing the
 * library's MPI_T, which Open MPI 4.1 makes expensive after MPI_Init (212 ms
 * per rank here: it loads every component of every framework to register
 * their variables). The union holds mpiscope's variables only until a
 * client calls MPI_T_init_thread, which brings the library's in (after
 * mpiscope's, for the kinds already looked at). MPI_T_finalize ends it. */
void msc_mpit_init_own(void) MSC_HIDDEN;
void msc_mpit_init_own(void)
{
    LOCK();
    atomic_fetch_add(&refcount, 1);
    UNLOCK();
}

MSC_API int PMPI_T_finalize(void)
{
    LOCK();
    if (atomic_load(&refcount) <= 0) {
        UNLOCK();
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    if (atomic_load(&refcount) == 1) {
        int phase = atomic_load(&msc_g.phase);
        bool usable = phase != MSC_PHASE_DONE;
        while (sessions) {
            session_t *s = sessions;
            sessions = s->next;
            free_session(s, usable);
            free(s);
        }
        while (chandles) {
            chandle_t *c = chandles;
            chandles = c->next;
            if (c->lib && c->lh && usable && lib_up() && L->cvar_handle_free)
                L->cvar_handle_free(&c->lh);
            free(c);
        }
        /* The library's MPI_T stays initialized until MPI_Finalize: MPICH
         * 4.0 crashes when its MPI_T is initialized again after
         * MPI_T_finalize. */
    }
    atomic_fetch_sub(&refcount, 1);
    UNLOCK();
    return MPI_SUCCESS;
}

/* --- enumerations ---------------------------------------------------------- */

MSC_API int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    ENTER();
    if (!msc_mpit_enum_is_own(enumtype)) LEAVE(MPI_T_ERR_INVALID_INDEX);
    msc_mpit_enum_t *e = (msc_mpit_enum_t *)enumtype;
    if (num) *num = e->n;
    put_string(e->name, name, name_len);
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                                 int *name_len)
{
    ENTER();
    if (!msc_mpit_enum_is_own(enumtype)) LEAVE(MPI_T_ERR_INVALID_INDEX);
    msc_mpit_enum_t *e = (msc_mpit_enum_t *)enumtype;
    if (index < 0 || index >= e->n) LEAVE(MPI_T_ERR_INVALID_ITEM);
    if (value) *value = e->values[index];
    put_string(e->names[index], name, name_len);
    LEAVE(MPI_SUCCESS);
}

/* --- control variables (section 14.3.6) ------------------------------------ */

MSC_API int PMPI_T_cvar_get_num(int *num_cvar)
{
    ENTER_K(K_CVAR);
    if (!num_cvar) LEAVE(MPI_T_ERR_INVALID);
    *num_cvar = cvmap.n;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                                 MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                                 int *desc_len, int *bind, int *scope)
{
    ENTER_K(K_CVAR);
    if (cvar_index < 0 || cvar_index >= cvmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    ref_t *r = &cvmap.v[cvar_index];
    info_t own, *i = &own;
    if (r->lib) {
        i = r->info;
    } else {
        msc_cvar_desc_t *d = &msc_own.cvars[r->idx]->d;
        own = (info_t){.name = (char *)d->name, .desc = (char *)d->desc,
                       .verbosity = d->verbosity, .bind = d->bind, .scope = d->scope,
                       .datatype = d->datatype, .enumtype = (MPI_T_enum)d->enumtype};
    }
    put_string(i->name, name, name_len);
    put_string(i->desc, desc, desc_len);
    if (verbosity) *verbosity = i->verbosity;
    if (datatype) *datatype = i->datatype;
    if (enumtype) *enumtype = i->enumtype ? i->enumtype : MPI_T_ENUM_NULL;
    if (bind) *bind = i->bind;
    if (scope) *scope = i->scope;
    LEAVE(MPI_SUCCESS);
}

/* Union index of a name among cached library entries and own entries, or -1. */
static int find_cached(map_t *m, const char *name, int cls, bool pvar)
{
    for (int k = 0; k < m->n; k++) {
        ref_t *r = &m->v[k];
        const char *n = NULL;
        int c = cls;
        if (r->lib) {
            if (!r->info) continue;
            n = r->info->name;
            c = r->info->var_class;
        } else if (m == &cvmap) {
            n = msc_own.cvars[r->idx]->d.name;
        } else if (m == &pvmap) {
            n = msc_own.pvars[r->idx]->d.name;
            c = msc_own.pvars[r->idx]->d.var_class;
        } else {
            n = msc_own.cats[r->idx]->name;
        }
        if (strcmp(n, name) == 0 && (!pvar || c == cls)) return k;
    }
    return -1;
}


MSC_API int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    ENTER_K(K_CVAR);
    if (!name || !cvar_index) LEAVE(MPI_T_ERR_INVALID);
    int u = find_cached(&cvmap, name, 0, false);
    if (u < 0) LEAVE(MPI_T_ERR_INVALID_NAME);
    *cvar_index = u;
    LEAVE(MPI_SUCCESS);
}

static size_t obj_size(int bind)
{
    if (bind == MPI_T_BIND_MPI_COMM) return sizeof(MPI_Comm);
    if (bind == MPI_T_BIND_MPI_DATATYPE) return sizeof(MPI_Datatype);
    if (bind == MPI_T_BIND_MPI_ERRHANDLER) return sizeof(MPI_Errhandler);
    if (bind == MPI_T_BIND_MPI_FILE) return sizeof(MPI_File);
    if (bind == MPI_T_BIND_MPI_GROUP) return sizeof(MPI_Group);
    if (bind == MPI_T_BIND_MPI_OP) return sizeof(MPI_Op);
    if (bind == MPI_T_BIND_MPI_REQUEST) return sizeof(MPI_Request);
    if (bind == MPI_T_BIND_MPI_WIN) return sizeof(MPI_Win);
    if (bind == MPI_T_BIND_MPI_MESSAGE) return sizeof(MPI_Message);
    if (bind == MPI_T_BIND_MPI_INFO) return sizeof(MPI_Info);
    return 0;
}

MSC_API int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                                     int *count)
{
    ENTER_K(K_CVAR);
    if (!handle || !count) LEAVE(MPI_T_ERR_INVALID);
    if (cvar_index < 0 || cvar_index >= cvmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    ref_t *r = &cvmap.v[cvar_index];
    int bind;
    int li = -1;
    bind = r->lib ? r->info->bind : msc_own.cvars[r->idx]->d.bind;
    if (bind != MPI_T_BIND_NO_OBJECT && !obj_handle) LEAVE(MPI_T_ERR_INVALID);
    if (r->lib && (li = lib_index(&cvmap, r, 0)) < 0) LEAVE(MPI_T_ERR_INVALID_INDEX);
    /* A variable whose value the library no longer holds (Open MPI unloads
     * components at MPI_Init without invalidating their variables) is
     * inactive: "accessing its value should return a corresponding error
     * code" (14.3.6), and the library would read freed memory. */
    if (r->lib && !msc_libvar_alive(li, &r->info->origin)) LEAVE(MPI_T_ERR_INVALID_INDEX);
    chandle_t *c = calloc(1, sizeof *c);
    if (!c) LEAVE(MPI_T_ERR_OUT_OF_HANDLES);
    if (bind != MPI_T_BIND_NO_OBJECT) {
        memcpy(c->obj, obj_handle, obj_size(bind));
        c->objp = c->obj;
    }
    int n = 1;
    if (r->lib) {
        c->lib = 1;
        c->li = li;
        c->info = r->info;
        int rc = L->cvar_handle_alloc ? L->cvar_handle_alloc(li, obj_handle, &c->lh, &n)
                                      : MPI_T_ERR_INVALID_INDEX;
        if (rc != MPI_SUCCESS) {
            free(c);
            LEAVE(lib_index_error(rc));
        }
    } else {
        c->cv = msc_own.cvars[r->idx];
        n = c->cv->d.count;
    }
    c->next = chandles;
    chandles = c;
    *handle = (MPI_T_cvar_handle)c;
    *count = n;
    LEAVE(MPI_SUCCESS);
}

static chandle_t **find_chandle(MPI_T_cvar_handle h)
{
    for (chandle_t **p = &chandles; *p; p = &(*p)->next)
        if ((MPI_T_cvar_handle)*p == h) return p;
    return NULL;
}

/* A library handle whose variable still holds its value. */
static bool lib_handle_usable(chandle_t *c)
{
    return c->lh && lib_up() && msc_libvar_alive(c->li, &c->info->origin);
}

/* The library's answer to a read or write through a handle: a variable it
 * has since invalidated is an invalid handle (there is no index here). */
static int lib_handle_error(int rc)
{
    return rc == MPI_T_ERR_INVALID_INDEX ? MPI_T_ERR_INVALID_HANDLE : rc;
}

/* Whether an enumeration (a copy: msc_mpit_enum_t) has this value; true
 * when there is none. */
static bool enum_has_value(MPI_T_enum e, int v)
{
    if (e == MPI_T_ENUM_NULL || !msc_mpit_enum_is_own(e)) return true;
    const msc_mpit_enum_t *x = (const msc_mpit_enum_t *)e;
    for (int i = 0; i < x->n; i++)
        if (x->values[i] == v) return true;
    return false;
}

MSC_API int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    ENTER();
    if (!handle) LEAVE(MPI_T_ERR_INVALID);
    chandle_t **p = find_chandle(*handle);
    if (!p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    chandle_t *c = *p;
    *p = c->next;
    if (c->lib && c->lh && lib_up() && L->cvar_handle_free) L->cvar_handle_free(&c->lh);
    free(c);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    ENTER();
    chandle_t **p = find_chandle(handle);
    if (!p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    chandle_t *c = *p;
    if (c->lib) {
        if (!lib_handle_usable(c) || !L->cvar_read) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        LEAVE(lib_handle_error(L->cvar_read(c->lh, buf)));
    }
    msc_cvar_desc_t *d = &c->cv->d;
    if (d->read) LEAVE(d->read(d, c->objp, buf));
    memcpy(buf, d->ctx, (size_t)d->count * (size_t)msc_mpit_type_size(d->datatype));
    if (d->datatype == MPI_CHAR) ((char *)buf)[d->count - 1] = 0;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    ENTER();
    chandle_t **p = find_chandle(handle);
    if (!p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    chandle_t *c = *p;
    if (c->lib) {
        if (!lib_handle_usable(c) || !L->cvar_write) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        if (c->info->scope == MPI_T_SCOPE_CONSTANT || c->info->scope == MPI_T_SCOPE_READONLY)
            LEAVE(MPI_T_ERR_CVAR_SET_NEVER);
        int rc = L->cvar_write(c->lh, buf);
        /* Open MPI answers SET_NOT_NOW for anything it refuses, and no later
         * time changes that: a variable no longer settable (it may have
         * re-registered it at MPI_Init without MCA_BASE_VAR_FLAG_SETTABLE,
         * after its scope was fixed) can never be set; one that is settable
         * refused the value (its enumeration's check), a bad parameter. */
        if (rc == MPI_T_ERR_CVAR_SET_NOT_NOW) {
            int settable = msc_libvar_settable(c->li);
            if (settable == 0) rc = MPI_T_ERR_CVAR_SET_NEVER;
            else if (settable == 1 || (c->info->datatype == MPI_INT &&
                                       !enum_has_value(c->info->enumtype, *(const int *)buf)))
                rc = MPI_T_ERR_INVALID;
        }
        LEAVE(lib_handle_error(rc));
    }
    msc_cvar_desc_t *d = &c->cv->d;
    if (d->scope == MPI_T_SCOPE_CONSTANT || d->scope == MPI_T_SCOPE_READONLY)
        LEAVE(MPI_T_ERR_CVAR_SET_NEVER);
    if (d->write) LEAVE(d->write(d, c->objp, buf));
    if (!d->ctx) LEAVE(MPI_T_ERR_CVAR_SET_NEVER);
    memcpy(d->ctx, buf, (size_t)d->count * (size_t)msc_mpit_type_size(d->datatype));
    if (d->datatype == MPI_CHAR) ((char *)d->ctx)[d->count - 1] = 0;
    LEAVE(MPI_SUCCESS);
}

/* --- performance variables (section 14.3.7) -------------------------------- */

MSC_API int PMPI_T_pvar_get_num(int *num_pvar)
{
    ENTER_K(K_PVAR);
    if (!num_pvar) LEAVE(MPI_T_ERR_INVALID);
    *num_pvar = pvmap.n;
    LEAVE(MPI_SUCCESS);
}

static void own_pvar_info(msc_own_pvar_t *p, info_t *i)
{
    msc_pvar_desc_t *d = &p->d;
    *i = (info_t){.name = (char *)d->name, .desc = (char *)d->desc, .verbosity = d->verbosity,
                  .var_class = d->var_class, .bind = d->bind, .datatype = d->datatype,
                  .enumtype = (MPI_T_enum)d->enumtype,
                  .readonly = !!(d->flags & MSC_PVAR_READONLY),
                  .continuous = !!(d->flags & MSC_PVAR_CONTINUOUS),
                  .atomic = !!(d->flags & MSC_PVAR_ATOMIC)};
}

MSC_API int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                                 int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                                 char *desc, int *desc_len, int *bind, int *readonly,
                                 int *continuous, int *atomic)
{
    ENTER_K(K_PVAR);
    if (pvar_index < 0 || pvar_index >= pvmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    ref_t *r = &pvmap.v[pvar_index];
    info_t own, *i = &own;
    if (r->lib) i = r->info;
    else own_pvar_info(msc_own.pvars[r->idx], &own);
    put_string(i->name, name, name_len);
    put_string(i->desc, desc, desc_len);
    if (verbosity) *verbosity = i->verbosity;
    if (var_class) *var_class = i->var_class;
    if (datatype) *datatype = i->datatype;
    if (enumtype) *enumtype = i->enumtype ? i->enumtype : MPI_T_ENUM_NULL;
    if (bind) *bind = i->bind;
    if (readonly) *readonly = i->readonly;
    if (continuous) *continuous = i->continuous;
    if (atomic) *atomic = i->atomic;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    ENTER_K(K_PVAR);
    if (!name || !pvar_index) LEAVE(MPI_T_ERR_INVALID);
    int u = find_cached(&pvmap, name, var_class, true);
    if (u < 0) LEAVE(MPI_T_ERR_INVALID_NAME);
    *pvar_index = u;
    LEAVE(MPI_SUCCESS);
}

static session_t *find_session(MPI_T_pvar_session s)
{
    for (session_t *x = sessions; x; x = x->next)
        if ((MPI_T_pvar_session)x == s) return x;
    return NULL;
}

MSC_API int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    ENTER();
    if (!session) LEAVE(MPI_T_ERR_INVALID);
    session_t *s = calloc(1, sizeof *s);
    if (!s) LEAVE(MPI_T_ERR_OUT_OF_SESSIONS);
    if (lib_up() && pvmap.nlib > 0 && L->pvar_session_create &&
        L->pvar_session_create(&s->ls) != MPI_SUCCESS)
        s->ls = NULL;
    s->next = sessions;
    sessions = s;
    *session = (MPI_T_pvar_session)s;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    ENTER();
    if (!session) LEAVE(MPI_T_ERR_INVALID);
    session_t *s = find_session(*session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    for (session_t **p = &sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    free_session(s, atomic_load(&msc_g.phase) != MSC_PHASE_DONE);
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    LEAVE(MPI_SUCCESS);
}

/* Values of own variables: typed element access. */
static num_t get_num(MPI_Datatype t, const void *buf, int i)
{
    num_t v = {0};
    if (t == MPI_DOUBLE) v.d = ((const double *)buf)[i];
    else if (t == MPI_UNSIGNED) v.u = ((const unsigned *)buf)[i];
    else if (t == MPI_UNSIGNED_LONG) v.u = ((const unsigned long *)buf)[i];
    else if (t == MPI_UNSIGNED_LONG_LONG) v.u = ((const unsigned long long *)buf)[i];
    return v;
}

static void put_num(MPI_Datatype t, void *buf, int i, num_t v)
{
    if (t == MPI_DOUBLE) ((double *)buf)[i] = v.d;
    else if (t == MPI_UNSIGNED) ((unsigned *)buf)[i] = (unsigned)v.u;
    else if (t == MPI_UNSIGNED_LONG) ((unsigned long *)buf)[i] = (unsigned long)v.u;
    else if (t == MPI_UNSIGNED_LONG_LONG) ((unsigned long long *)buf)[i] = v.u;
}

static bool arithmetic(int cls)
{
    return cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_AGGREGATE ||
           cls == MPI_T_PVAR_CLASS_TIMER;
}

static size_t value_bytes(phandle_t *h)
{
    return (size_t)h->count * (size_t)msc_mpit_type_size(h->type);
}

/* The underlying value of an own variable now. */
static int own_current(phandle_t *h, void *buf)
{
    msc_pvar_desc_t *d = &h->pv->d;
    if (d->read) return d->read(d, h->objp, h->hctx, buf);
    memcpy(buf, d->ctx, value_bytes(h));
    return MPI_SUCCESS;
}

/* Read (out may be NULL) and optionally reset, from one sample. */
static int own_read(phandle_t *h, void *out, bool reset)
{
    void *cur = malloc(value_bytes(h));
    if (!cur) return MPI_T_ERR_MEMORY;
    int rc = own_current(h, cur);
    if (rc != MPI_SUCCESS) {
        free(cur);
        return rc;
    }
    bool running = h->continuous || h->started;
    if (arithmetic(h->cls)) {
        for (int i = 0; i < h->count; i++) {
            num_t c = get_num(h->type, cur, i), v = h->accum[i];
            if (running) {
                if (h->type == MPI_DOUBLE) v.d += c.d - h->base[i].d;
                else v.u += c.u - h->base[i].u;
            }
            if (out) put_num(h->type, out, i, v);
            if (reset) {
                h->accum[i] = (num_t){0};
                h->base[i] = c;
            }
        }
    } else {
        if (out) memcpy(out, running ? cur : (void *)h->frozen, value_bytes(h));
        if (reset) {
            own_notify(h, MSC_PVAR_RESET);
            if (!running && own_current(h, cur) == MPI_SUCCESS)
                memcpy(h->frozen, cur, value_bytes(h));
        }
    }
    free(cur);
    return MPI_SUCCESS;
}

static int own_startstop(phandle_t *h, bool start)
{
    void *cur = malloc(value_bytes(h));
    if (!cur) return MPI_T_ERR_MEMORY;
    if (start) own_notify(h, MSC_PVAR_START);
    int rc = own_current(h, cur);
    if (rc == MPI_SUCCESS) {
        for (int i = 0; arithmetic(h->cls) && i < h->count; i++) {
            num_t c = get_num(h->type, cur, i);
            if (start) {
                h->base[i] = c;
            } else if (h->type == MPI_DOUBLE) {
                h->accum[i].d += c.d - h->base[i].d;
            } else {
                h->accum[i].u += c.u - h->base[i].u;
            }
        }
        if (!start && !arithmetic(h->cls)) memcpy(h->frozen, cur, value_bytes(h));
        h->started = start;
    }
    if (!start) own_notify(h, MSC_PVAR_STOP);
    free(cur);
    return rc;
}

static int own_write(phandle_t *h, const void *buf)
{
    if (arithmetic(h->cls)) {
        void *cur = malloc(value_bytes(h));
        if (!cur) return MPI_T_ERR_MEMORY;
        int rc = own_current(h, cur);
        for (int i = 0; rc == MPI_SUCCESS && i < h->count; i++) {
            h->accum[i] = get_num(h->type, buf, i);
            h->base[i] = get_num(h->type, cur, i);
        }
        free(cur);
        return rc;
    }
    msc_pvar_desc_t *d = &h->pv->d;
    int rc = MPI_SUCCESS;
    if (d->write) rc = d->write(d, h->objp, h->hctx, buf);
    else if (d->ctx) memcpy(d->ctx, buf, value_bytes(h));
    else return MPI_T_ERR_PVAR_NO_WRITE;
    if (rc == MPI_SUCCESS) memcpy(h->frozen, buf, value_bytes(h));
    return rc;
}

MSC_API int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                     MPI_T_pvar_handle *handle, int *count)
{
    ENTER_K(K_PVAR);
    session_t *s = find_session(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (!handle || !count) LEAVE(MPI_T_ERR_INVALID);
    if (pvar_index < 0 || pvar_index >= pvmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    ref_t *r = &pvmap.v[pvar_index];
    info_t own, *i = &own;
    int li = -1;
    if (r->lib) i = r->info;
    else own_pvar_info(msc_own.pvars[r->idx], &own);
    if (i->bind != MPI_T_BIND_NO_OBJECT && !obj_handle) LEAVE(MPI_T_ERR_INVALID);
    if (r->lib && (li = lib_index(&pvmap, r, 1)) < 0) LEAVE(MPI_T_ERR_INVALID_INDEX);
    /* Inactive too (14.3.7 follows 14.3.6): a variable of a component the
     * library has not selected, whose handle it would crash allocating. */
    if (r->lib && !msc_libvar_pvar_in_use(li)) LEAVE(MPI_T_ERR_INVALID_INDEX);
    phandle_t *h = calloc(1, sizeof *h);
    if (!h) LEAVE(MPI_T_ERR_OUT_OF_HANDLES);
    h->s = s;
    h->uidx = pvar_index;
    h->cls = i->var_class;
    h->continuous = i->continuous;
    h->readonly = i->readonly;
    h->atomic = i->atomic;
    h->type = i->datatype;
    if (i->bind != MPI_T_BIND_NO_OBJECT) {
        memcpy(h->obj, obj_handle, obj_size(i->bind));
        h->objp = h->obj;
    }
    int n = 1, rc = MPI_SUCCESS;
    if (r->lib) {
        h->lib = 1;
        if (!s->ls && L->pvar_session_create && L->pvar_session_create(&s->ls) != MPI_SUCCESS)
            s->ls = NULL;
        rc = s->ls && L->pvar_handle_alloc
                 ? lib_index_error(L->pvar_handle_alloc(s->ls, li, obj_handle, &h->lh, &n))
                 : MPI_T_ERR_INVALID_INDEX;
    } else {
        h->pv = msc_own.pvars[r->idx];
        if (h->pv->d.notify) n = h->pv->d.notify(&h->pv->d, MSC_PVAR_BOUND, h->objp, &h->hctx);
        if (n < 0) rc = -n;
        else if (n < 1) rc = MPI_T_ERR_INVALID;
        if (rc == MPI_SUCCESS) {
            h->count = n;
            h->accum = calloc((size_t)n, sizeof *h->accum);
            h->base = calloc((size_t)n, sizeof *h->base);
            h->frozen = calloc(1, value_bytes(h) ? value_bytes(h) : 1);
            if (!h->accum || !h->base || !h->frozen) rc = MPI_T_ERR_OUT_OF_HANDLES;
        }
        if (rc == MPI_SUCCESS) {
            if (h->continuous) {
                rc = own_startstop(h, true);
            } else if (!arithmetic(h->cls)) {
                rc = own_current(h, h->frozen);
            }
        }
        if (rc != MPI_SUCCESS && n >= 1) own_notify(h, MSC_PVAR_FREED);
    }
    if (rc != MPI_SUCCESS) {
        free(h->accum);
        free(h->base);
        free(h->frozen);
        free(h);
        LEAVE(rc);
    }
    h->count = n;
    h->next = s->handles;
    s->handles = h;
    *handle = (MPI_T_pvar_handle)h;
    *count = n;
    LEAVE(MPI_SUCCESS);
}

/* The handle in the session, or NULL (also for a handle of another session). */
static phandle_t *find_phandle(session_t *s, MPI_T_pvar_handle handle)
{
    for (phandle_t *h = s->handles; h; h = h->next)
        if ((MPI_T_pvar_handle)h == handle) return h;
    return NULL;
}

MSC_API int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    ENTER();
    session_t *s = find_session(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (!handle) LEAVE(MPI_T_ERR_INVALID);
    phandle_t *h = find_phandle(s, *handle);
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    for (phandle_t **p = &s->handles; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    free_phandle(s, h, lib_up());
    *handle = MPI_T_PVAR_HANDLE_NULL;
    LEAVE(MPI_SUCCESS);
}

/* A library handle that can still be used. */
static bool lib_alive(session_t *s, phandle_t *h)
{
    return h->lh && s->ls && lib_up();
}

static int start_one(session_t *s, phandle_t *h, bool start)
{
    if (h->continuous) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (h->lib) {
        if (!lib_alive(s, h)) return MPI_T_ERR_INVALID_HANDLE;
        int (*fn)(MPI_T_pvar_session, MPI_T_pvar_handle) = start ? L->pvar_start : L->pvar_stop;
        int rc = fn ? fn(s->ls, h->lh) : MPI_T_ERR_PVAR_NO_STARTSTOP;
        if (rc == MPI_SUCCESS) h->started = start;
        return rc;
    }
    if (h->started == start) return MPI_SUCCESS;
    return own_startstop(h, start);
}

static int startstop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool start)
{
    ENTER();
    session_t *s = find_session(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        int rc = MPI_SUCCESS;
        for (phandle_t *h = s->handles; h; h = h->next) {
            if (h->continuous || h->started == start) continue;
            if (h->lib && !lib_alive(s, h)) continue;
            if (start_one(s, h, start) != MPI_SUCCESS) rc = MPI_T_ERR_PVAR_NO_STARTSTOP;
        }
        LEAVE(rc);
    }
    phandle_t *h = find_phandle(s, handle);
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    LEAVE(start_one(s, h, start));
}

MSC_API int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return startstop(session, handle, true);
}

MSC_API int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return startstop(session, handle, false);
}

/* The session and handle of a single-handle call, or an error code. */
#define SINGLE_HANDLE(s, h, session, handle)                          \
    session_t *s = find_session(session);                             \
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);                         \
    if ((handle) == MPI_T_PVAR_ALL_HANDLES) LEAVE(MPI_T_ERR_INVALID_HANDLE); \
    phandle_t *h = find_phandle(s, handle);                           \
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE)

MSC_API int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    ENTER();
    SINGLE_HANDLE(s, h, session, handle);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    if (h->lib) {
        if (!lib_alive(s, h) || !L->pvar_read) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        LEAVE(L->pvar_read(s->ls, h->lh, buf));
    }
    LEAVE(own_read(h, buf, false));
}

MSC_API int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                              const void *buf)
{
    ENTER();
    SINGLE_HANDLE(s, h, session, handle);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    if (h->readonly) LEAVE(MPI_T_ERR_PVAR_NO_WRITE);
    if (h->lib) {
        if (!lib_alive(s, h) || !L->pvar_write) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        LEAVE(L->pvar_write(s->ls, h->lh, buf));
    }
    LEAVE(own_write(h, buf));
}

static int reset_one(session_t *s, phandle_t *h)
{
    if (h->readonly) return MPI_T_ERR_PVAR_NO_WRITE;
    if (h->lib) {
        if (!lib_alive(s, h) || !L->pvar_reset) return MPI_T_ERR_INVALID_HANDLE;
        return L->pvar_reset(s->ls, h->lh);
    }
    return own_read(h, NULL, true);
}

MSC_API int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    ENTER();
    session_t *s = find_session(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        int rc = MPI_SUCCESS;
        for (phandle_t *h = s->handles; h; h = h->next) {
            if (h->readonly || (h->lib && !lib_alive(s, h))) continue;
            if (reset_one(s, h) != MPI_SUCCESS) rc = MPI_T_ERR_PVAR_NO_WRITE;
        }
        LEAVE(rc);
    }
    phandle_t *h = find_phandle(s, handle);
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    LEAVE(reset_one(s, h));
}

MSC_API int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    ENTER();
    SINGLE_HANDLE(s, h, session, handle);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    if (!h->atomic) LEAVE(MPI_T_ERR_PVAR_NO_ATOMIC);
    if (h->readonly) LEAVE(MPI_T_ERR_PVAR_NO_WRITE);
    if (h->lib) {
        if (!lib_alive(s, h) || !L->pvar_read || !L->pvar_reset) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        int rc = L->pvar_readreset ? L->pvar_readreset(s->ls, h->lh, buf) : MPI_T_ERR_INVALID;
        if (rc == MPI_SUCCESS) LEAVE(rc);
        /* Open MPI 4.1 refuses readreset of its atomic variables with
         * MPI_T_ERR_INVALID_HANDLE: read and reset under mpiscope's lock. */
        rc = L->pvar_read(s->ls, h->lh, buf);
        if (rc == MPI_SUCCESS) rc = L->pvar_reset(s->ls, h->lh);
        LEAVE(rc);
    }
    LEAVE(own_read(h, buf, true));
}

/* --- categories (section 14.3.8) ------------------------------------------- */

MSC_API int PMPI_T_category_get_num(int *num_cat)
{
    ENTER_K(K_ALL);
    if (!num_cat) LEAVE(MPI_T_ERR_INVALID);
    *num_cat = catmap.n;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                                     int *desc_len, int *num_cvars, int *num_pvars,
                                     int *num_categories)
{
    ENTER_K(K_ALL);
    if (cat_index < 0 || cat_index >= catmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    ref_t *r = &catmap.v[cat_index];
    const char *n, *d;
    int nc, np, nk;
    if (r->lib) {
        lib_cat_counts(r, &nc, &np, &nk);
        n = r->info->name;
        d = r->info->desc;
    } else {
        msc_own_cat_t *c = msc_own.cats[r->idx];
        n = c->name;
        d = c->desc;
        nc = c->cvars.n;
        np = c->pvars.n;
        nk = c->cats.n;
    }
    put_string(n, name, name_len);
    put_string(d, desc, desc_len);
    if (num_cvars) *num_cvars = nc;
    if (num_pvars) *num_pvars = np;
    if (num_categories) *num_categories = nk;
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    ENTER_K(K_ALL);
    if (!name || !cat_index) LEAVE(MPI_T_ERR_INVALID);
    int u = find_cached(&catmap, name, 0, false);
    if (u < 0) LEAVE(MPI_T_ERR_INVALID_NAME);
    *cat_index = u;
    LEAVE(MPI_SUCCESS);
}

/* kind: 0 cvars, 1 pvars, 2 categories. */
static int category_members(int cat_index, int len, int indices[], int kind)
{
    ENTER_K(K_ALL);
    if (cat_index < 0 || cat_index >= catmap.n) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices)) LEAVE(MPI_T_ERR_INVALID);
    map_t *m = kind == 0 ? &cvmap : kind == 1 ? &pvmap : &catmap;
    ref_t *r = &catmap.v[cat_index];
    if (!r->lib) {
        msc_own_cat_t *c = msc_own.cats[r->idx];
        msc_intlist_t *l = kind == 0 ? &c->cvars : kind == 1 ? &c->pvars : &c->cats;
        for (int i = 0; i < l->n && i < len; i++) indices[i] = m->from_own[l->v[i]];
        LEAVE(MPI_SUCCESS);
    }
    int *v, n = lib_cat_members(r, kind, &v);
    for (int i = 0; i < n && i < len; i++) indices[i] = v[i];
    free(v);
    LEAVE(MPI_SUCCESS);
}

MSC_API int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return category_members(cat_index, len, indices, 0);
}

MSC_API int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return category_members(cat_index, len, indices, 1);
}

MSC_API int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return category_members(cat_index, len, indices, 2);
}

MSC_API int PMPI_T_category_changed(int *stamp_out)
{
    ENTER_K(K_ALL);
    if (!stamp_out) LEAVE(MPI_T_ERR_INVALID);
    *stamp_out = stamp;
    LEAVE(MPI_SUCCESS);
}

/* --- MPI 4.0 events and sources (MPICH): passed through -------------------- */

#if MPI_VERSION >= 4
/* The library's category index of a union category, or -1 for an own one. */
static int lib_category(int cat_index, int *li)
{
    if (cat_index < 0 || cat_index >= catmap.n) return MPI_T_ERR_INVALID_INDEX;
    *li = catmap.v[cat_index].lib ? catmap.v[cat_index].idx : -1;
    return MPI_SUCCESS;
}

MSC_API int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    ENTER_K(K_ALL);
    int li, rc = lib_category(cat_index, &li);
    if (rc != MPI_SUCCESS) LEAVE(rc);
    if (!num_events) LEAVE(MPI_T_ERR_INVALID);
    int (*fn)(int, int *) = msc_lib_sym("PMPI_T_category_get_num_events");
    if (li < 0 || !lib_up() || !fn) {
        *num_events = 0;
        LEAVE(MPI_SUCCESS);
    }
    LEAVE(fn(li, num_events));
}

MSC_API int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    ENTER_K(K_ALL);
    int li, rc = lib_category(cat_index, &li);
    if (rc != MPI_SUCCESS) LEAVE(rc);
    if (len < 0 || (len > 0 && !indices)) LEAVE(MPI_T_ERR_INVALID);
    int (*fn)(int, int, int *) = msc_lib_sym("PMPI_T_category_get_events");
    if (li < 0 || !lib_up() || !fn) LEAVE(MPI_SUCCESS);
    LEAVE(fn(li, len, indices));
}

/* Events and sources belong to the library alone; they are passed through
 * without mpiscope's lock (the library calls event callbacks, which may call
 * these functions), once the interface is initialized. */
#define PASS(name, params, args)                                              \
    MSC_API int PMPI_T_##name params                                          \
    {                                                                         \
        static int(*fn) params;                                               \
        if (atomic_load(&refcount) <= 0) return MPI_T_ERR_NOT_INITIALIZED;    \
        if (!lib_up()) return MPI_T_ERR_INVALID;                              \
        if (!fn) *(void **)&fn = msc_lib_sym("PMPI_T_" #name);                \
        return fn ? fn args : MPI_T_ERR_INVALID;                              \
    }                                                                         \
    MSC_API int MPI_T_##name params __attribute__((alias("PMPI_T_" #name)));

PASS(event_get_num, (int *num_events), (num_events))
PASS(event_get_info,
     (int event_index, char *name, int *name_len, int *verbosity,
      MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
      MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind),
     (event_index, name, name_len, verbosity, array_of_datatypes, array_of_displacements,
      num_elements, enumtype, info, desc, desc_len, bind))
PASS(event_get_index, (const char *name, int *event_index), (name, event_index))
PASS(event_handle_alloc,
     (int event_index, void *obj_handle, MPI_Info info, MPI_T_event_registration *reg),
     (event_index, obj_handle, info, reg))
PASS(event_handle_get_info, (MPI_T_event_registration reg, MPI_Info *info_used), (reg, info_used))
PASS(event_handle_set_info, (MPI_T_event_registration reg, MPI_Info info), (reg, info))
PASS(event_register_callback,
     (MPI_T_event_registration reg, MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
      MPI_T_event_cb_function event_cb_function),
     (reg, cb_safety, info, user_data, event_cb_function))
PASS(event_callback_get_info,
     (MPI_T_event_registration reg, MPI_T_cb_safety cb_safety, MPI_Info *info_used),
     (reg, cb_safety, info_used))
PASS(event_callback_set_info,
     (MPI_T_event_registration reg, MPI_T_cb_safety cb_safety, MPI_Info info),
     (reg, cb_safety, info))
PASS(event_handle_free,
     (MPI_T_event_registration reg, void *user_data, MPI_T_event_free_cb_function free_cb),
     (reg, user_data, free_cb))
PASS(event_set_dropped_handler,
     (MPI_T_event_registration reg, MPI_T_event_dropped_cb_function dropped_cb),
     (reg, dropped_cb))
PASS(event_read, (MPI_T_event_instance ev, int element_index, void *buffer),
     (ev, element_index, buffer))
PASS(event_copy, (MPI_T_event_instance ev, void *buffer), (ev, buffer))
PASS(event_get_timestamp, (MPI_T_event_instance ev, MPI_Count *ts), (ev, ts))
PASS(event_get_source, (MPI_T_event_instance ev, int *source_index), (ev, source_index))
PASS(source_get_num, (int *num_sources), (num_sources))
PASS(source_get_info,
     (int source_index, char *name, int *name_len, char *desc, int *desc_len,
      MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
      MPI_Info *info),
     (source_index, name, name_len, desc, desc_len, ordering, ticks_per_second, max_ticks, info))
PASS(source_get_timestamp, (int source_index, MPI_Count *ts), (source_index, ts))

#define TWIN_V4(name, params) \
    MSC_API int MPI_T_##name params __attribute__((alias("PMPI_T_" #name)));
TWIN_V4(category_get_num_events, (int cat_index, int *num_events))
TWIN_V4(category_get_events, (int cat_index, int len, int indices[]))
#endif

/* --- the MPI_T_ names: the same functions ----------------------------------- */

#define TWIN(name, params) \
    MSC_API int MPI_T_##name params __attribute__((alias("PMPI_T_" #name)));
TWIN(init_thread, (int required, int *provided))
TWIN(finalize, (void))
TWIN(enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
TWIN(enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
TWIN(cvar_get_num, (int *num_cvar))
TWIN(cvar_get_info,
     (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
      MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
TWIN(cvar_get_index, (const char *name, int *cvar_index))
TWIN(cvar_handle_alloc,
     (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
TWIN(cvar_handle_free, (MPI_T_cvar_handle * handle))
TWIN(cvar_read, (MPI_T_cvar_handle handle, void *buf))
TWIN(cvar_write, (MPI_T_cvar_handle handle, const void *buf))
TWIN(pvar_get_num, (int *num_pvar))
TWIN(pvar_get_info,
     (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
      MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
      int *readonly, int *continuous, int *atomic))
TWIN(pvar_get_index, (const char *name, int var_class, int *pvar_index))
TWIN(pvar_session_create, (MPI_T_pvar_session * session))
TWIN(pvar_session_free, (MPI_T_pvar_session * session))
TWIN(pvar_handle_alloc,
     (MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle,
      int *count))
TWIN(pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
TWIN(pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TWIN(pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TWIN(pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
TWIN(pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
TWIN(pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TWIN(pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
TWIN(category_get_num, (int *num_cat))
TWIN(category_get_info,
     (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
      int *num_pvars, int *num_categories))
TWIN(category_get_index, (const char *name, int *cat_index))
TWIN(category_get_cvars, (int cat_index, int len, int indices[]))
TWIN(category_get_pvars, (int cat_index, int len, int indices[]))
TWIN(category_get_categories, (int cat_index, int len, int indices[]))
TWIN(category_changed, (int *stamp))
