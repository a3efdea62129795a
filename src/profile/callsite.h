/* Private to mpiscope. Call sites: return addresses captured at call time,
 * turned into function, file and line only when a report is written.
 *
 * Capture is the caller's business (a wrapper's return address costs
 * nothing; msc_callsite_backtrace gives deeper stacks through libunwind).
 * Resolution reads the process's own memory map and the DWARF of each object
 * through elfutils' libdwfl, so it must run in the process that captured the
 * addresses: load addresses differ between ranks (ASLR) and between shared
 * libraries. Strings returned stay valid until msc_callsite_close. Used by
 * the profile module and meant for the correctness checks too.
 */
#ifndef MSC_PROFILE_CALLSITE_H
#define MSC_PROFILE_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *module; /* path of the ELF object holding the address, or "?" */
    const char *symbol; /* enclosing function (C++ names demangled), or NULL */
    const char *file;   /* source file of the call, or NULL without line tables */
    int line;           /* source line, 0 if unknown */
    uintptr_t offset;   /* address relative to the object's load base: stable across ranks */
} msc_frame_t;

typedef struct msc_callsite_resolver msc_callsite_resolver_t;

/* A resolver for this process's current memory map; NULL if libdwfl cannot
 * read it (the caller then reports raw addresses). */
msc_callsite_resolver_t *msc_callsite_open(void) __attribute__((visibility("hidden")));

/* The same for the objects that hold one of addrs[0..n) only: reading the
 * other objects' ELF headers costs about 2.5 M instructions per process
 * with Open MPI's hundred-odd shared objects, which MPI_Finalize pays on
 * every rank. Addresses outside these objects do not resolve. */
msc_callsite_resolver_t *msc_callsite_open_for(void *const *addrs, size_t n)
    __attribute__((visibility("hidden")));

/* Resolves `return_address` (the address after the call instruction) to the
 * line of the call itself. Returns false if no object maps the address;
 * fields that could not be found are NULL or 0. */
bool msc_callsite_resolve(msc_callsite_resolver_t *r, const void *return_address,
                          msc_frame_t *out) __attribute__((visibility("hidden")));

void msc_callsite_close(msc_callsite_resolver_t *r) __attribute__((visibility("hidden")));

/* Fills pcs[0..depth) with the return addresses of the frames from `site`
 * outwards (pcs[0] = site; missing frames are NULL). Costs an unwind of the
 * current stack: 80-260 ns more per call at depth 4 than at depth 1
 * (bench/profile). */
void msc_callsite_backtrace(void *site, void **pcs, int depth) __attribute__((visibility("hidden")));

#endif
