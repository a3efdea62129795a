/* The MPI library's own MPI_T functions.
 *
 * mpiscope defines both MPI_T_x and PMPI_T_x (so that a tool layered on top
 * of mpiscope that calls PMPI_T_x still sees the union), so from inside
 * libmpiscope a call to PMPI_T_x by name would come back to mpiscope. The
 * library's functions are found instead through the library object itself:
 * dladdr on PMPI_Init_thread (which mpiscope does not define) names the
 * MPI library file, dlopen(RTLD_NOLOAD) gives its handle, and dlsym on that
 * handle searches only the library and its dependencies. This works whether
 * mpiscope was preloaded or linked. If that fails, dlsym(RTLD_NEXT) is the
 * fallback. Resolved once, under pthread_once.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "internal.h"

static msc_lib_t lib;
static void *lib_handle;
static pthread_once_t once = PTHREAD_ONCE_INIT;

void *msc_lib_sym(const char *name)
{
    void *p = lib_handle ? dlsym(lib_handle, name) : NULL;
    if (!p) p = dlsym(RTLD_NEXT, name);
    return p;
}

#define RESOLVE(field, name) *(void **)&lib.field = msc_lib_sym("PMPI_T_" name)

static void resolve(void)
{
    Dl_info info;
    if (dladdr((void *)&PMPI_Init_thread, &info) && info.dli_fname)
        lib_handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    RESOLVE(init_thread, "init_thread");
    RESOLVE(finalize, "finalize");
    RESOLVE(cvar_get_num, "cvar_get_num");
    RESOLVE(cvar_get_info, "cvar_get_info");
    RESOLVE(cvar_get_index, "cvar_get_index");
    RESOLVE(cvar_handle_alloc, "cvar_handle_alloc");
    RESOLVE(cvar_handle_free, "cvar_handle_free");
    RESOLVE(cvar_read, "cvar_read");
    RESOLVE(cvar_write, "cvar_write");
    RESOLVE(pvar_get_num, "pvar_get_num");
    RESOLVE(pvar_get_info, "pvar_get_info");
    RESOLVE(pvar_get_index, "pvar_get_index");
    RESOLVE(pvar_session_create, "pvar_session_create");
    RESOLVE(pvar_session_free, "pvar_session_free");
    RESOLVE(pvar_handle_alloc, "pvar_handle_alloc");
    RESOLVE(pvar_handle_free, "pvar_handle_free");
    RESOLVE(pvar_start, "pvar_start");
    RESOLVE(pvar_stop, "pvar_stop");
    RESOLVE(pvar_read, "pvar_read");
    RESOLVE(pvar_write, "pvar_write");
    RESOLVE(pvar_reset, "pvar_reset");
    RESOLVE(pvar_readreset, "pvar_readreset");
    RESOLVE(enum_get_info, "enum_get_info");
    RESOLVE(enum_get_item, "enum_get_item");
    RESOLVE(category_get_num, "category_get_num");
    RESOLVE(category_get_info, "category_get_info");
    RESOLVE(category_get_index, "category_get_index");
    RESOLVE(category_get_cvars, "category_get_cvars");
    RESOLVE(category_get_pvars, "category_get_pvars");
    RESOLVE(category_get_categories, "category_get_categories");
    RESOLVE(category_changed, "category_changed");
}

const msc_lib_t *msc_lib(void)
{
    pthread_once(&once, resolve);
    return &lib;
}
