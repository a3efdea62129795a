/* The call counter's C side (the trampolines are generated assembly, see
 * gen_counter.py): at load, finds the next definition of every name it
 * traps with dlsym(RTLD_NEXT); per call, ctr_count counts it unless the
 * caller is an MPI library itself (or the tool under test: its own MPI use
 * is not the application's), by the name of the object that holds the
 * return address, remembered per call site; at exit, writes what was counted to
 * $MSC_COUNTER_OUT/counts.<rank>, one line per name and phase with a
 * nonzero count: "<name> <phase> <count>". The rank comes from the
 * launcher's environment (OMPI_COMM_WORLD_RANK, PMI_RANK), never from MPI:
 * the counter makes no MPI call of its own. Without MSC_COUNTER_OUT it
 * counts and writes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <stdint.h>
#include <string.h>

static int ctr_phase;

extern const char *const ctr_names[] __attribute__((visibility("hidden")));
extern const int ctr_n __attribute__((visibility("hidden")));
extern void *ctr_real[] __attribute__((visibility("hidden")));
extern unsigned long ctr_counts[] __attribute__((visibility("hidden")));
extern const unsigned char ctr_kind[] __attribute__((visibility("hidden")));

/* Call sites seen: (return address << 1) | 1 when the caller is an MPI
 * library. Direct-mapped; a collision only costs another dladdr(). */
#define SITES 4096
static uintptr_t sites[SITES];

static int from_mpi(uintptr_t ret)
{
    uintptr_t *slot = &sites[(ret >> 2) % SITES];
    uintptr_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (seen >> 1 == ret)
        return seen & 1;
    Dl_info info;
    int mpi = 0;
    if (dladdr((void *)ret, &info) && info.dli_fname) {
        const char *b = strrchr(info.dli_fname, '/');
        b = b ? b + 1 : info.dli_fname;
        static const char *const libs[] = {"libmpi", "libmpich", "libopen-pal", "libopen-rte",
                                           "mca_", "libmpiscope"};
        for (size_t k = 0; k < sizeof libs / sizeof *libs; k++)
            if (strncmp(b, libs[k], strlen(libs[k])) == 0)
                mpi = 1;
    }
    __atomic_store_n(slot, ret << 1 | (uintptr_t)mpi, __ATOMIC_RELAXED);
    return mpi;
}

/* Called by every trampoline before it jumps on (gen_counter.py). */
__attribute__((visibility("hidden"))) void ctr_count(int i, uintptr_t ret)
{
    if (from_mpi(ret))
        return;
    if (ctr_kind[i] == 2)
        __atomic_store_n(&ctr_phase, 2, __ATOMIC_RELAXED);
    int phase = __atomic_load_n(&ctr_phase, __ATOMIC_RELAXED);
    __atomic_fetch_add(&ctr_counts[phase * ctr_n + i], 1, __ATOMIC_RELAXED);
    if (ctr_kind[i] == 1)
        __atomic_store_n(&ctr_phase, 1, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void ctr_load(void)
{
    for (int i = 0; i < ctr_n; i++)
        ctr_real[i] = dlsym(RTLD_NEXT, ctr_names[i]);
}

__attribute__((destructor)) static void ctr_write(void)
{
    const char *dir = getenv("MSC_COUNTER_OUT");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMI_RANK");
    if (!dir || !rank)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/counts.%s", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int phase = 0; phase < 3; phase++)
        for (int i = 0; i < ctr_n; i++) {
            unsigned long c = __atomic_load_n(&ctr_counts[phase * ctr_n + i], __ATOMIC_RELAXED);
            if (c)
                fprintf(f, "%s %d %lu\n", ctr_names[i], phase, c);
        }
    fclose(f);
}
