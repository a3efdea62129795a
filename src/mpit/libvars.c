/* What the MPI library knows about its variables but its MPI_T does not say,
 * for the layer in tool.c to answer as section 14.3 requires. Only Open MPI
 * (4.1) needs it; with any other library every function answers "unknown"
 * and the layer relies on the library's own answers.
 *
 * Open MPI keeps every control variable in its MCA base (libopen-pal): a
 * variable is writable through MPI_T only if it was registered with
 * MCA_BASE_VAR_FLAG_SETTABLE, whatever scope it reports (a write of any
 * other answers MPI_T_ERR_CVAR_SET_NOT_NOW, forever), and its value lives
 * where the registering code put it, often in a component's shared object.
 * When MPI_T is initialized before MPI_Init, Open MPI loads every component
 * to register its variables, and MPI_Init unloads those it does not select
 * (and with them libraries such as libmca_common_ucx) without invalidating
 * the variables: MPI_T_cvar_read then reads unmapped or reused memory.
 *
 * So the layer asks two things, found through the MCA base's own exported
 * functions (mca_base_var_get, mca_base_var_get_value: resolved in the MPI
 * library and its dependencies, no link-time dependency) and the structure
 * of Open MPI's installed development headers:
 * - settable: the SETTABLE flag, read once when the variable is first seen;
 * - where the value lives: the address of its storage and the base of the
 *   shared object holding it, taken when the variable is first seen, and
 *   checked again before every handle allocation, read and write: the value
 *   is still there only if the same object still holds that address (or,
 *   for storage outside any object, if the page is still mapped; mincore()
 *   tells without touching it), and never on a stack (storage that was a
 *   local variable). Nothing here dereferences the storage.
 * Without the headers (another Open MPI packaging) only the storage check
 * is done; the SETTABLE flag is then unknown.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include("opal/mca/base/mca_base_var.h")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wpedantic"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_pvar.h"
#pragma GCC diagnostic pop
#define MSC_HAVE_OMPI_VAR_T 1
#endif
#endif

static int (*var_get_value)(int, const void *, void *, const char **);
#ifdef MSC_HAVE_OMPI_VAR_T
static int (*var_get)(int, const mca_base_var_t **);
static int (*pvar_get)(int, const mca_base_pvar_t **);
static int (*pvar_get_count)(int *);
static int (*group_get)(int, const mca_base_var_group_t **);
static mca_base_component_t **mtl_selected; /* ompi_mtl_base_selected_component */
static mca_base_component_t *pml_selected;  /* mca_pml_base_selected_component */
#endif
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
    *(void **)&var_get_value = msc_lib_sym("mca_base_var_get_value");
#ifdef MSC_HAVE_OMPI_VAR_T
    *(void **)&var_get = msc_lib_sym("mca_base_var_get");
    *(void **)&pvar_get = msc_lib_sym("mca_base_pvar_get");
    *(void **)&pvar_get_count = msc_lib_sym("mca_base_pvar_get_count");
    *(void **)&group_get = msc_lib_sym("mca_base_var_group_get");
    mtl_selected = msc_lib_sym("ompi_mtl_base_selected_component");
    pml_selected = msc_lib_sym("mca_pml_base_selected_component");
#endif
}

/* The variable's storage in *p; false when the library says the variable
 * is not valid (Open MPI clears a variable's VALID flag when it closes its
 * component, yet still answers get_info and handle_alloc for it). *p is
 * NULL when nothing is known (not Open MPI). */
static bool storage_of(int li, void **p)
{
    pthread_once(&once, resolve);
    const void *v = NULL;
    *p = NULL;
    if (!var_get_value) return true;
    if (li < 0 || var_get_value(li, &v, NULL, NULL) != 0 || !v) return false;
    *p = (void *)v;
    return true;
}

int msc_libvar_settable(int li)
{
    pthread_once(&once, resolve);
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_var_t *v = NULL;
    if (var_get && li >= 0 && var_get(li, &v) == 0 && v)
        return (v->mbv_flags & MCA_BASE_VAR_FLAG_SETTABLE) ? 1 : 0;
#else
    (void)li;
#endif
    return -1;
}

/* The base of the loaded object that holds address p, or NULL. */
static void *object_base(const void *p)
{
    Dl_info i;
    return dladdr(p, &i) && i.dli_fname ? i.dli_fbase : NULL;
}

static bool page_mapped(const void *p)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char v;
    void *page = (void *)((uintptr_t)p & ~(uintptr_t)(pg > 0 ? pg - 1 : 4095));
    return mincore(page, 1, &v) == 0;
}

/* Whether p is in this thread's stack. Open MPI 4.1's pml_ucx registers
 * pml_ucx_multi_send_nb with a local variable of its register function as
 * the storage: once that returned, the value is whatever the stack holds
 * (191, 223, 0 in different runs) and a write would corrupt the stack. */
static bool on_stack(const void *p)
{
    static _Thread_local char *lo, *hi;
    static _Thread_local bool known;
    if (!known) {
        pthread_attr_t a;
        void *base = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            pthread_attr_getstack(&a, &base, &size);
            pthread_attr_destroy(&a);
        }
        lo = base;
        hi = lo ? lo + size : NULL;
        known = true;
    }
    return lo && (const char *)p >= lo && (const char *)p < hi;
}

void msc_libvar_origin(int li, msc_libvar_origin_t *o)
{
    void *p;
    storage_of(li, &p);
    o->storage = p;
    o->object = p ? object_base(p) : NULL;
    o->dead = p && !o->object && on_stack(p);
}

bool msc_libvar_alive(int li, const msc_libvar_origin_t *o)
{
    void *p;
    if (!storage_of(li, &p)) return false;
    if (!p) return true; /* nothing known here: the library answers */
    if (p == o->storage && o->dead) return false;
    if (p == o->storage && o->object) return object_base(p) == o->object;
    return object_base(p) || page_mapped(p);
}

/* Performance variables: Open MPI lists those of every component it loaded,
 * selected or not, and the point-to-point layers' (frameworks pml and mtl,
 * one component selected each) read state that exists only once their
 * component is selected and initialized: MPI_T_pvar_handle_alloc of
 * mtl_psm2_* without PSM2 in use calls psm2_mq_get_stats on no queue and
 * crashes. Such a variable is not in use: false. Before MPI_Init selects,
 * none of theirs is. Anything else: true. */
bool msc_libvar_pvar_in_use(int li)
{
    pthread_once(&once, resolve);
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_pvar_t *pv = NULL;
    const mca_base_var_group_t *g = NULL;
    if (!pvar_get || !group_get || li < 0 || pvar_get(li, &pv) != 0 || !pv ||
        group_get(pv->group_index, &g) != 0 || !g || !g->group_framework || !g->group_component)
        return true;
    const char *selected = NULL;
    if (strcmp(g->group_framework, "mtl") == 0 && mtl_selected)
        selected = *mtl_selected ? (*mtl_selected)->mca_component_name : "";
    else if (strcmp(g->group_framework, "pml") == 0 && pml_selected)
        selected = pml_selected->mca_component_name;
    else
        return true;
    return strcmp(selected, g->group_component) == 0;
#else
    (void)li;
    return true;
#endif
}

/* --- performance variables read without the library's MPI_T ---------------
 *
 * Open MPI's MPI_T_init_thread after MPI_Init costs 212 ms per rank here (it
 * loads every component of every framework to register their variables),
 * yet the variables of the components MPI_Init selected are registered
 * already, in the MCA base. A continuous variable that is neither a sum nor
 * a watermark (its handle keeps no start value: Open MPI's MPI_T_pvar_read
 * just calls its get_value function) is read here the same way: the
 * variable's notify function binds it (MCA_BASE_PVAR_HANDLE_BIND gives the
 * count, e.g. the communicator's size), get_value reads it, UNBIND ends it.
 * Only for variables that are valid and of a component in use. */

int msc_libpvar_count(void)
{
    pthread_once(&once, resolve);
#ifdef MSC_HAVE_OMPI_VAR_T
    int n = 0;
    if (pvar_get && pvar_get_count && group_get && pvar_get_count(&n) == 0) return n;
#endif
    return -1;
}

#ifdef MSC_HAVE_OMPI_VAR_T
static MPI_Datatype mpi_type(mca_base_var_type_t t)
{
    switch (t) {
    case MCA_BASE_VAR_TYPE_INT: return MPI_INT;
    case MCA_BASE_VAR_TYPE_UNSIGNED_INT: return MPI_UNSIGNED;
    case MCA_BASE_VAR_TYPE_UNSIGNED_LONG: return MPI_UNSIGNED_LONG;
    case MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG: return MPI_UNSIGNED_LONG_LONG;
    case MCA_BASE_VAR_TYPE_SIZE_T:
        return sizeof(size_t) == sizeof(unsigned long) ? MPI_UNSIGNED_LONG : MPI_UNSIGNED_LONG_LONG;
    case MCA_BASE_VAR_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}
#endif

bool msc_libpvar_describe(int i, msc_libpvar_t *out)
{
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_pvar_t *pv = NULL;
    memset(out, 0, sizeof *out);
    if (msc_libpvar_count() < 0 || pvar_get(i, &pv) != 0 || !pv || !pv->name) return false;
    out->pvar = pv;
    out->name = pv->name;
    out->klass = pv->var_class;
    out->bind = pv->bind;
    out->type = mpi_type(pv->type);
    int c = pv->var_class;
    out->direct = (pv->flags & MCA_BASE_PVAR_FLAG_CONTINUOUS) && pv->get_value && pv->notify &&
                  c != MPI_T_PVAR_CLASS_COUNTER && c != MPI_T_PVAR_CLASS_AGGREGATE &&
                  c != MPI_T_PVAR_CLASS_TIMER && c != MPI_T_PVAR_CLASS_HIGHWATERMARK &&
                  c != MPI_T_PVAR_CLASS_LOWWATERMARK && out->type != MPI_DATATYPE_NULL &&
                  msc_libvar_pvar_in_use(i);
    return true;
#else
    (void)i;
    (void)out;
    return false;
#endif
}

int msc_libpvar_bind(msc_libpvar_t *p, MPI_Comm comm)
{
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_pvar_t *pv = p->pvar;
    int count = 0;
    p->obj = p->bind == MPI_T_BIND_NO_OBJECT ? NULL : (void *)comm;
    if (!p->direct || (p->bind != MPI_T_BIND_NO_OBJECT && comm == MPI_COMM_NULL) ||
        pv->notify((mca_base_pvar_t *)pv, MCA_BASE_PVAR_HANDLE_BIND, p->obj, &count) < 0)
        return -1;
    return count;
#else
    (void)p;
    (void)comm;
    return -1;
#endif
}

int msc_libpvar_read(const msc_libpvar_t *p, void *buf)
{
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_pvar_t *pv = p->pvar;
    return pv->get_value(pv, buf, p->obj) == 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
#else
    (void)p;
    (void)buf;
    return MPI_T_ERR_INVALID_HANDLE;
#endif
}

void msc_libpvar_unbind(msc_libpvar_t *p)
{
#ifdef MSC_HAVE_OMPI_VAR_T
    const mca_base_pvar_t *pv = p->pvar;
    int count = 0;
    if (pv && pv->notify) pv->notify((mca_base_pvar_t *)pv, MCA_BASE_PVAR_HANDLE_UNBIND, p->obj, &count);
#endif
    p->obj = NULL;
}
