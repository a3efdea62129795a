/* A run with something for every section of the HTML page (check_html.py
 * --full): point-to-point and collective traffic (matrix, histogram), two
 * VT_ user regions, MPI-IO on a file in the output directory, and one
 * correctness finding the check module must report (a datatype never
 * freed). Rank r computes r+1 times longer than rank 0, for the imbalance. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "VT.h"

static void work(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, solve, io;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    VT_funcdef("Solver:step", VT_NOCLASS, &solve);
    VT_funcdef("Output:write", VT_NOCLASS, &io);
    double buf[512] = {0}, in[512];
    for (int i = 0; i < 10; i++) {
        VT_begin(solve);
        work(2 * (r + 1));
        MPI_Sendrecv(buf, 64 << (i % 3), MPI_DOUBLE, (r + 1) % n, 0, in, 512, MPI_DOUBLE,
                     (r + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, buf, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        VT_end(solve);
    }
    VT_begin(io);
    const char *dir = getenv("MPISCOPE_OUTPUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/html-page.dat", dir ? dir : ".");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)r * sizeof buf, buf, 512, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    VT_end(io);
    MPI_Datatype leaked; /* the finding: committed, never freed */
    MPI_Type_contiguous(4, MPI_INT, &leaked);
    MPI_Type_commit(&leaked);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Finalize();
    return 0;
}
