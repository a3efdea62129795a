/* Fuzz target: the records `mpiscope vars` reads from its helper
 * (tools/cli/vars.c). The helper prints the MPI library's own strings
 * (names, descriptions, enumeration items, current values), escaped, one
 * tab-separated record per line, and a launcher may mix lines of its own
 * in: whatever arrives, the listing must not crash.
 *
 * The first byte picks the output (text or JSON), the kinds shown and the
 * verbosity limit; the second byte whether a name pattern and a category
 * filter apply, the MPI named in the header and before/after MPI_Init; the
 * rest is the helper's output. vars.c is compiled into this file to reach
 * its static reader; the helper is never started (fork and exec abort).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static pid_t fuzz_no_fork(void)
{
    abort();
}

#define fork fuzz_no_fork
#include "../../tools/cli/vars.c"
#undef fork

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t how = data[0], filt = data[1];
    char *text = malloc(size - 1);
    if (!text) return 0;
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0';
    int kinds = 1 + (how >> 4) % KIND_ALL;
    int max_verbosity = (how >> 1) % 9;
    const char *pattern = (filt & 1) ? "*a*" : NULL;
    const char *category = (filt & 2) ? "*" : NULL;
    msc_mpi_t mpi = (filt & 4) ? MSC_MPI_MPICH : MSC_MPI_OPENMPI;
    show_records(text, pattern, category, max_verbosity, kinds, how & 1, mpi, filt & 8);
    return 0;
}
