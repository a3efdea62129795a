/* The tool leaves nothing of its own on the stack main finds before it
 * writes anything (src/core/stack_scrub.c). What is there natively differs
 * from run to run (addresses, and between launchers), so the test asks what
 * can be told apart for certain: a word that points into libmpiscope.so can
 * only be the tool's (a return address of its constructors' frames, one of
 * its pointers). Before the scrub, MPICH's test pt2pt/rqstatus failed under
 * every mode because the MPI_ERROR field Open MPI 4.1 leaves unwritten in
 * MPI_Request_get_status(MPI_REQUEST_NULL) showed what the tool had left.
 * Prints, per rank, the number of words of an uninitialized 4 KiB local of
 * main that point into the tool's loaded segments, and whether the tool was
 * found loaded at all. Reading uninitialized memory is the point here. */
#define _GNU_SOURCE
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { WORDS = 512, RANGES = 16 };
static struct {
    uintptr_t lo, hi;
} tool[RANGES];
static int ntool;

static int find_tool(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libmpiscope")) return 0;
    for (int i = 0; i < info->dlpi_phnum && ntool < RANGES; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            tool[ntool].lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            tool[ntool].hi = tool[ntool].lo + info->dlpi_phdr[i].p_memsz;
            ntool++;
        }
    return 0;
}

int main(int argc, char **argv)
{
    volatile uintptr_t frame[WORDS];
    uintptr_t copy[WORDS];
    for (int i = 0; i < WORDS; i++) copy[i] = frame[i];
    MPI_Init(&argc, &argv);
    dl_iterate_phdr(find_tool, NULL);
    int ours = 0;
    for (int i = 0; i < WORDS; i++)
        for (int t = 0; t < ntool; t++) ours += copy[i] >= tool[t].lo && copy[i] < tool[t].hi;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: %s; %d words of main's frame point into it\n", rank,
           ntool ? "libmpiscope loaded" : "libmpiscope not loaded", ours);
    MPI_Finalize();
    return 0;
}
