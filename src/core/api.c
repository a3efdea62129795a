/* The public query functions of include/mpiscope.h. They walk the thread
 * registry and add up per-thread counters; they are for tests and curious
 * programs, not for hot loops.
 */
#include "mpiscope.h"

#include <string.h>

#include "msc_functions.h"
#include "state.h"

#define STR2(x) #x
#define STR(x) STR2(x)

__attribute__((visibility("default"))) const char *mpiscope_version(void)
{
    return STR(MPISCOPE_VERSION_MAJOR) "." STR(MPISCOPE_VERSION_MINOR) "." STR(
        MPISCOPE_VERSION_PATCH);
}

struct sum {
    int fn;
    long long total;
};

static void add(msc_thread_t *t, void *arg)
{
    struct sum *s = arg;
    s->total += (long long)t->calls[s->fn];
}

__attribute__((visibility("default"))) long long mpiscope_calls(const char *name)
{
    if (!name) return -1;
    int fn = msc_fn_lookup(name);
    if (fn < 0) return -1;
    struct sum s = {fn, 0};
    msc_threads_foreach(add, &s);
    return s.total;
}

__attribute__((visibility("default"))) const char *mpiscope_output_dir(void)
{
    return msc_g.outdir;
}
