/* The trace in parts: an output directory that not every node shares.
 *
 * When some ranks cannot see rank 0's output directory (src/core/output.c:
 * msc_g.outdir_unseen, the same number on every rank), each writes its event
 * files into its own node's copy (trace.c), and rank 0's copy has the anchor,
 * the definitions and the events of the ranks on its node only. So that
 * this copy never passes for the whole trace, rank 0 writes
 * trace/parts.txt there, one line per rank whose events are elsewhere:
 *     rank <R> host <H>
 * under a comment that says what to do. `mpiscope report` reads it
 * (tools/cli/report_parts.c): it names exactly the ranks whose event files
 * are still missing and their hosts, and merges the copies given with
 * --part. One gather of (sees the directory, host name) to rank 0, at
 * finalize and only when the directory is not shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/log.h"
#include "impl.h"

enum { HOST_LEN = 64 };

typedef struct {
    int sees;
    char host[HOST_LEN];
} part_t;

void trc_parts_write(void)
{
    if (msc_g.outdir_unseen <= 0) return;
    part_t me = {.sees = msc_g.outdir_shared};
    gethostname(me.host, sizeof me.host - 1);
    part_t *all = NULL;
    if (msc_g.world_rank == 0) {
        all = calloc((size_t)msc_g.world_size, sizeof *all);
        if (!all) msc_warn("trace: out of memory for the list of the trace's parts");
    }
    int ok = msc_g.world_rank != 0 || all;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, msc_g.comm);
    if (!ok) return;
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, msc_g.comm);
    if (msc_g.world_rank != 0) return;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/trace/parts.txt", msc_g.outdir);
    FILE *f = fopen(path, "w");
    if (!f) {
        msc_warn("trace: cannot write %s: the trace here lacks the events of %d ranks and "
                 "cannot say so", path, msc_g.outdir_unseen);
        free(all);
        return;
    }
    fprintf(f, "# mpiscope: the output directory was not shared by every node. The event\n"
               "# files (trace/traces/<location>.evt, .def) of the ranks below are in the\n"
               "# copy of this directory on their host: copy them into trace/traces/ here,\n"
               "# or give those copies to 'mpiscope report DIR --part COPY ...'.\n");
    for (int r = 0; r < msc_g.world_size; r++)
        if (!all[r].sees) fprintf(f, "rank %d host %s\n", r, all[r].host[0] ? all[r].host : "?");
    if (fclose(f) != 0) msc_warn("trace: cannot write %s", path);
    free(all);
}
