/* The call counter's C side (the trampolines are generated assembly, see
 * gen_counter.py): at load, finds the next definition of every name it
 * traps with dlsym(RTLD_NEXT); at exit, writes what was counted to
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

struct ctr_tls { long depth; long ret; };

__attribute__((visibility("hidden"), tls_model("initial-exec")))
__thread struct ctr_tls ctr_tls;
__attribute__((visibility("hidden"))) int ctr_phase;

extern const char *const ctr_names[] __attribute__((visibility("hidden")));
extern const int ctr_n __attribute__((visibility("hidden")));
extern void *ctr_real[] __attribute__((visibility("hidden")));
extern unsigned long ctr_counts[] __attribute__((visibility("hidden")));

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
