/* Private to the MPI_T layer (src/mpit). The tables of mpiscope's own
 * variables, shared by the registry (registry.c) and the interposed MPI_T
 * functions (tool.c), and the library's MPI_T functions (lib.c).
 *
 * One mutex guards all of it: MPI_T calls are not on the application's hot
 * path, and a single lock makes every MPI_T function thread-safe whatever
 * the library under it provides.
 */
#ifndef MSC_MPIT_INTERNAL_H
#define MSC_MPIT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "mpit.h"

#define MSC_HIDDEN __attribute__((visibility("hidden")))

struct msc_mpit_enum {
    char *name;
    int n;
    int *values;
    char **names;
    struct msc_mpit_enum *next;
};

typedef struct {
    msc_pvar_desc_t d;        /* name and desc are owned copies */
} msc_own_pvar_t;

typedef struct {
    msc_cvar_desc_t d;
} msc_own_cvar_t;

typedef struct {
    int *v;
    int n, cap;
} msc_intlist_t;

typedef struct {
    char *name, *desc;
    msc_intlist_t cvars, pvars, cats; /* own indices */
} msc_own_cat_t;

typedef struct {
    msc_own_pvar_t **pvars;
    msc_own_cvar_t **cvars;
    msc_own_cat_t **cats;
    int npvars, ncvars, ncats;
    int cap_pvars, cap_cvars, cap_cats;
    msc_mpit_enum_t *enums;   /* list of every own enumeration */
    unsigned changes;         /* incremented on every registration */
} msc_own_t;

extern pthread_mutex_t msc_mpit_lock MSC_HIDDEN;
extern msc_own_t msc_own MSC_HIDDEN;

bool msc_mpit_enum_is_own(const void *e) MSC_HIDDEN;
/* Bytes of one value of a table 14.4 datatype, 0 for any other. */
int msc_mpit_type_size(MPI_Datatype t) MSC_HIDDEN;
bool msc_intlist_add(msc_intlist_t *l, int v) MSC_HIDDEN;

/* The library's own MPI_T functions (never mpiscope's), resolved once. */
typedef struct {
    int (*init_thread)(int, int *);
    int (*finalize)(void);
    int (*cvar_get_num)(int *);
    int (*cvar_get_info)(int, char *, int *, int *, MPI_Datatype *, MPI_T_enum *, char *, int *,
                         int *, int *);
    int (*cvar_get_index)(const char *, int *);
    int (*cvar_handle_alloc)(int, void *, MPI_T_cvar_handle *, int *);
    int (*cvar_handle_free)(MPI_T_cvar_handle *);
    int (*cvar_read)(MPI_T_cvar_handle, void *);
    int (*cvar_write)(MPI_T_cvar_handle, const void *);
    int (*pvar_get_num)(int *);
    int (*pvar_get_info)(int, char *, int *, int *, int *, MPI_Datatype *, MPI_T_enum *, char *,
                         int *, int *, int *, int *, int *);
    int (*pvar_get_index)(const char *, int, int *);
    int (*pvar_session_create)(MPI_T_pvar_session *);
    int (*pvar_session_free)(MPI_T_pvar_session *);
    int (*pvar_handle_alloc)(MPI_T_pvar_session, int, void *, MPI_T_pvar_handle *, int *);
    int (*pvar_handle_free)(MPI_T_pvar_session, MPI_T_pvar_handle *);
    int (*pvar_start)(MPI_T_pvar_session, MPI_T_pvar_handle);
    int (*pvar_stop)(MPI_T_pvar_session, MPI_T_pvar_handle);
    int (*pvar_read)(MPI_T_pvar_session, MPI_T_pvar_handle, void *);
    int (*pvar_write)(MPI_T_pvar_session, MPI_T_pvar_handle, const void *);
    int (*pvar_reset)(MPI_T_pvar_session, MPI_T_pvar_handle);
    int (*pvar_readreset)(MPI_T_pvar_session, MPI_T_pvar_handle, void *);
    int (*enum_get_info)(MPI_T_enum, int *, char *, int *);
    int (*enum_get_item)(MPI_T_enum, int, int *, char *, int *);
    int (*category_get_num)(int *);
    int (*category_get_info)(int, char *, int *, char *, int *, int *, int *, int *);
    int (*category_get_index)(const char *, int *);
    int (*category_get_cvars)(int, int, int *);
    int (*category_get_pvars)(int, int, int *);
    int (*category_get_categories)(int, int, int *);
    int (*category_changed)(int *);
} msc_lib_t;

/* The library's functions; a member is NULL if the library lacks it. */
const msc_lib_t *msc_lib(void) MSC_HIDDEN;
/* The library's PMPI_T_<name>, for the functions not in msc_lib_t. */
void *msc_lib_sym(const char *name) MSC_HIDDEN;

/* Facts about the library's control variables that its MPI_T does not
 * give (libvars.c; Open MPI only, "unknown" elsewhere). `li` is the
 * library's index of the variable. */
typedef struct {
    void *storage;            /* where the library kept the value when first seen */
    void *object;             /* base of the shared object holding it, or NULL */
    bool dead;                /* the storage was on a stack: never valid */
} msc_libvar_origin_t;
/* 1: may be written through MPI_T, 0: never, -1: unknown. */
int msc_libvar_settable(int li) MSC_HIDDEN;
void msc_libvar_origin(int li, msc_libvar_origin_t *o) MSC_HIDDEN;
/* False when the value's storage is gone (its object was unloaded). */
bool msc_libvar_alive(int li, const msc_libvar_origin_t *o) MSC_HIDDEN;
/* False for a performance variable of a component not in use, which the
 * library would crash taking a handle for. */
bool msc_libvar_pvar_in_use(int li) MSC_HIDDEN;

/* The library's performance variables without its MPI_T (libvars.c; Open
 * MPI only): count (-1: not available), description of variable i (false:
 * none there), and for `direct` ones binding (returns the count, -1 on
 * failure), reading (MPI_SUCCESS or an MPI_T error) and unbinding. */
typedef struct {
    const void *pvar;         /* the library's own description */
    const char *name;
    int klass, bind;
    MPI_Datatype type;
    bool direct;              /* readable here: continuous, no start value, in use */
    void *obj;                /* bound object, as the library takes it */
} msc_libpvar_t;
int msc_libpvar_count(void) MSC_HIDDEN;
bool msc_libpvar_describe(int i, msc_libpvar_t *out) MSC_HIDDEN;
int msc_libpvar_bind(msc_libpvar_t *p, MPI_Comm comm) MSC_HIDDEN;
int msc_libpvar_read(const msc_libpvar_t *p, void *buf) MSC_HIDDEN;
void msc_libpvar_unbind(msc_libpvar_t *p) MSC_HIDDEN;
/* MPI_T_init_thread without the library's MPI_T, for mpiscope's modules. */
void msc_mpit_init_own(void) MSC_HIDDEN;

#endif
