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

static msc_heap_now_fn heap_now;
static msc_heap_find_at_fn heap_find;
static msc_heap_find_freed_at_fn heap_find_freed;
static pthread_once_t heap_once = PTHREAD_ONCE_INIT;
/* The heap's state this thread's last chk_object_find asked about, and
 * whether chk_object_mark fixed it for the call being checked. */
static CHK_TLS uint64_t heap_when;
static CHK_TLS bool heap_marked;

static void find_heap_library(void)
{
    heap_now = (msc_heap_now_fn)dlsym(RTLD_DEFAULT, "msc_heap_now");
    heap_find = (msc_heap_find_at_fn)dlsym(RTLD_DEFAULT, "msc_heap_find_at");
    heap_find_freed = (msc_heap_find_freed_at_fn)dlsym(RTLD_DEFAULT, "msc_heap_find_freed_at");
    if (!heap_now) heap_find = NULL, heap_find_freed = NULL;
}

/* The heap is asked as it was when the check of the call began
 * (chk_object_mark) or else when the look-up began: the tool's own work
 * allocates (a datatype's first description, a module's symbols and DWARF
 * read the first time), and the allocator may hand the tool the very block
 * the application just freed (LOCAL:BUFFER:FREED would then see the tool's
 * live block instead). */
void chk_object_mark(bool on)
{
    pthread_once(&heap_once, find_heap_library);
    heap_marked = on && heap_now;
    if (heap_marked) heap_when = heap_now();
}

bool chk_object_find(uintptr_t addr, void *site, chk_object_t *out)
{
    pthread_once(&heap_once, find_heap_library);
    if (!heap_marked) heap_when = heap_now ? heap_now() : 0;
    if (chk_global_find(addr, out)) return true;
    if (site && chk_stack_find(addr, site, out)) return true;
    msc_heap_block_t b;
    if (!heap_find || !heap_find(addr, heap_when, &b)) return false;
    *out = (chk_object_t){.lo = b.start, .hi = b.start + b.size, .alloc_site = (void *)b.site};
    return true;
}

bool chk_freed_find(uintptr_t addr, chk_object_t *out)
{
    pthread_once(&heap_once, find_heap_library);
    msc_heap_freed_t b;
    if (!heap_find_freed || !heap_find_freed(addr, heap_when, &b)) return false;
    *out = (chk_object_t){.lo = b.start,
                          .hi = b.start + b.size,
                          .alloc_site = (void *)b.site,
                          .free_site = (void *)b.free_site};
    return true;
}

/* " at FILE:LINE in FUNC", " at FILE in FUNC" or "" for a return address. */
static void site_text(void *site, char *buf, size_t n)
{
    chk_part_t p = {.rank = msc_g.world_rank, .site = site};
    buf[0] = '\0';
    if (!site) return;
    chk_resolve(&p);
    if (p.line > 0)
        snprintf(buf, n, " at %s:%d%s%s", p.file, p.line, p.func[0] ? " in " : "", p.func);
    else if (p.file[0] && p.file[0] != '?')
        snprintf(buf, n, " at %s%s%s", p.file, p.func[0] ? " in " : "", p.func);
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
    char at[640], freed[640];
    site_text(o->alloc_site, at, sizeof at);
    site_text(o->free_site, freed, sizeof freed);
    if (o->free_site)
        snprintf(buf, n, "the heap block of %llu bytes%s%s, freed%s", bytes, at[0] ? " allocated" : "",
                 at, freed[0] ? freed : " already");
    else
        snprintf(buf, n, "%s heap block of %llu bytes%s%s", at[0] ? "the" : "a", bytes,
                 at[0] ? " allocated" : "", at);
}

int64_t chk_object_clamp(const void *buf, int64_t len)
{
    chk_object_t g;
    uintptr_t lo = (uintptr_t)buf;
    if (len > 0 && chk_object_find(lo, NULL, &g) && lo + (uint64_t)len > g.hi)
        return (int64_t)(g.hi - lo);
    return len;
}
