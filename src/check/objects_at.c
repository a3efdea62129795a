/* The object a buffer points into, whatever its storage (issue 26): a
 * global or static variable (globals.c, from the ELF symbol tables and
 * DWARF) or a live heap block (libmpiscope-heap.so, the allocator
 * interposer `mpiscope run --check` preloads: src/heap/heap.h).
 *
 * The heap library is found once, by name, with dlsym(RTLD_DEFAULT); when
 * it is absent (a check run started without `mpiscope run`, or a
 * sanitizer's allocator bound first) heap blocks are simply not known, and
 * no finding depends on them. Globals are looked up first: a binary search
 * in a table that never changes, without a lock; the heap's look-up takes
 * the interposer's lock unless nothing was allocated or freed since this
 * thread's last answer. A buffer on the calling thread's stack is placed
 * in its frame's variables (stackvars.c) when the call's site is given;
 * the tool's own reads (chk_object_clamp) give none and skip that walk.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "check.h"
#include "heap/heap.h"

static msc_heap_find_fn heap_find;
static pthread_once_t heap_once = PTHREAD_ONCE_INIT;

static void find_heap_library(void)
{
    heap_find = (msc_heap_find_fn)dlsym(RTLD_DEFAULT, "msc_heap_find");
}

bool chk_object_find(uintptr_t addr, void *site, chk_object_t *out)
{
    if (chk_global_find(addr, out)) return true;
    if (site && chk_stack_find(addr, site, out)) return true;
    pthread_once(&heap_once, find_heap_library);
    msc_heap_block_t b;
    if (!heap_find || !heap_find(addr, &b)) return false;
    *out = (chk_object_t){.lo = b.start, .hi = b.start + b.size, .alloc_site = (void *)b.site};
    return true;
}

void chk_object_describe(const chk_object_t *o, char *buf, size_t n)
{
    unsigned long long bytes = (unsigned long long)(o->hi - o->lo);
    if (o->name && o->func) {
        snprintf(buf, n, "the local variable `%s` of %s (%llu bytes)", o->name, o->func, bytes);
        return;
    }
    if (o->name) {
        snprintf(buf, n, "the global or static object `%s` (%llu bytes, in %s)", o->name, bytes,
                 o->module ? o->module : "?");
        return;
    }
    chk_part_t p = {.rank = msc_g.world_rank, .site = o->alloc_site};
    if (o->alloc_site) chk_resolve(&p);
    if (p.line > 0)
        snprintf(buf, n, "the heap block of %llu bytes allocated at %s:%d%s%s", bytes, p.file,
                 p.line, p.func[0] ? " in " : "", p.func);
    else if (p.file[0] && p.file[0] != '?')
        snprintf(buf, n, "the heap block of %llu bytes allocated at %s%s%s", bytes, p.file,
                 p.func[0] ? " in " : "", p.func);
    else
        snprintf(buf, n, "a heap block of %llu bytes", bytes);
}

int64_t chk_object_clamp(const void *buf, int64_t len)
{
    chk_object_t g;
    uintptr_t lo = (uintptr_t)buf;
    if (len > 0 && chk_object_find(lo, NULL, &g) && lo + (uint64_t)len > g.hi)
        return (int64_t)(g.hi - lo);
    return len;
}
