/* Buffers in freed heap blocks and windows over the wrong memory (issue 26):
 * LOCAL:BUFFER:FREED when a call's buffer lies in a heap block the program
 * has freed, LOCAL:BUFFER:OVERFLOW when a window's memory runs past its
 * object. Two ranks; each case ends with a barrier.
 *   send:    rank 0 sends 130 ints from a block it freed;
 *   recv:    rank 1 receives 4 ints into bytes 64.. of a freed block of 520
 *            (inside the block, clear of the allocator's free-list words);
 *   bcast:   the root's buffer is a freed block (the others' are live);
 *   isend:   rank 0's MPI_Isend from a freed block, completed by MPI_Wait;
 *   iowrite: MPI_File_write from a freed block (MPI-IO);
 *   ioread:  MPI_File_read of 12 ints into a block of 10 (OVERFLOW);
 *   wincreate: MPI_Win_create over a freed block (FREED) and over 80
 *            bytes of a block of 40 (OVERFLOW);
 *   zero:    a freed block passed with count 0 (no byte touched): nothing;
 * each with a twin (<case>_ok: the same call before the free, or a size that
 * fits) that must stay silent. "all" and "all_ok" run every case. The freed
 * pointers pass through a volatile so that the compiler does not see the use
 * after free the test is about. Open MPI needs OMPI_MCA_osc=pt2pt for the
 * windows.
 */
#include <stdlib.h>

#include "cases.h"

static void *volatile hold;

/* p, freed; the caller still holds its value. */
static void *freed(void *p)
{
    hold = p;
    free(p);
    return hold;
}

static void send_case(int ok)
{
    int live[130];
    if (rank == 0) {
        int *a = malloc(130 * sizeof *a);
        for (int i = 0; i < 130; i++) a[i] = i;
        if (ok) MPI_Send(a, 130, MPI_INT, 1, 1, MPI_COMM_WORLD);
        a = freed(a);
        if (!ok) MPI_Send(a, 130, MPI_INT, 1, 1, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:FREED rank=0 */
    } else if (rank == 1) {
        MPI_Recv(live, 130, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void recv_case(int ok)
{
    int four[4] = {1, 2, 3, 4};
    if (rank == 0) {
        MPI_Send(four, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        char *b = malloc(520);
        if (ok) MPI_Recv(b + 64, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        b = freed(b);
        if (!ok) MPI_Recv(b + 64, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:FREED rank=1 */
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bcast_case(int ok)
{
    double *d = malloc(40 * sizeof *d);
    for (int i = 0; i < 40; i++) d[i] = i;
    if (rank == 0 && !ok) d = freed(d);
    MPI_Bcast(d, 40, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:FREED rank=0 */
    if (rank != 0 || ok) free(d);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void isend_case(int ok)
{
    if (rank == 0) {
        long *a = malloc(70 * sizeof *a);
        for (int i = 0; i < 70; i++) a[i] = i;
        MPI_Request r;
        if (!ok) a = freed(a);
        MPI_Isend(a, 70, MPI_LONG, 1, 3, MPI_COMM_WORLD, &r); /* expect(all): LOCAL:BUFFER:FREED rank=0 */
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (ok) free(a);
    } else if (rank == 1) {
        long got[70];
        MPI_Recv(got, 70, MPI_LONG, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static MPI_File open_scratch(void)
{
    char path[4096];
    const char *dir = getenv("MPISCOPE_OUTPUT");
    snprintf(path, sizeof path, "%s/freedbuf.%d.dat", dir ? dir : "/tmp", rank);
    MPI_File f;
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &f);
    return f;
}

static void iowrite_case(int ok)
{
    MPI_File f = open_scratch();
    int *a = malloc(50 * sizeof *a);
    for (int i = 0; i < 50; i++) a[i] = i;
    if (ok) MPI_File_write(f, a, 50, MPI_INT, MPI_STATUS_IGNORE);
    a = freed(a);
    if (!ok) MPI_File_write(f, a, 50, MPI_INT, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:FREED rank=0, LOCAL:BUFFER:FREED rank=1 */
    MPI_File_close(&f);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void ioread_case(int ok)
{
    MPI_File f = open_scratch();
    int w[12] = {0};
    MPI_File_write_at(f, 0, w, 12, MPI_INT, MPI_STATUS_IGNORE);
    int *a = malloc(10 * sizeof *a);
    /* Beyond 10 ints the read would overwrite the allocator's next chunk:
     * the erroneous case reads from the end of the file, where 2 ints are
     * left, so MPI writes only 8 bytes although 48 are named. */
    MPI_File_read_at(f, ok ? 8 : 40, a, ok ? 10 : 12, MPI_INT, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    free(a);
    MPI_File_close(&f);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void wincreate_case(int ok)
{
    char *a = malloc(40), *b = malloc(40);
    MPI_Win w;
    if (!ok) a = freed(a);
    MPI_Win_create(a, 40, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w); /* expect(all): LOCAL:BUFFER:FREED rank=0, LOCAL:BUFFER:FREED rank=1 */
    MPI_Win_free(&w);
    MPI_Win_create(b, ok ? 40 : 80, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Win_free(&w);
    if (ok) free(a);
    free(b);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void zero_case(void)
{
    int *a = freed(malloc(64));
    if (rank == 0) MPI_Send(a, 0, MPI_INT, 1, 4, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(a, 0, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void all_bad(void)
{
    send_case(0), recv_case(0), bcast_case(0), isend_case(0), iowrite_case(0), ioread_case(0);
    wincreate_case(0), zero_case();
}
static void all_ok(void)
{
    send_case(1), recv_case(1), bcast_case(1), isend_case(1), iowrite_case(1), ioread_case(1);
    wincreate_case(1), zero_case();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
